"""Rules of scope `payloads`: one module per rule (see cachelint.rules)."""
