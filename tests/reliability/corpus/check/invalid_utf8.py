greeting = 'olá'
print(greeting)
