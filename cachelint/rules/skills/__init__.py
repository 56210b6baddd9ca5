"""Rules of scope `skills`: one module per rule (see cachelint.rules)."""
