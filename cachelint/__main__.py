from cachelint.cli import main

main()
