"""Rules of scope `code`: one module per rule (see cachelint.rules)."""
