"""Rules of scope `input`: one module per rule (see cachelint.rules)."""
