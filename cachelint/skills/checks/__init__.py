"""One module per rule. Each check takes the parsed skill tree (and what else it needs) and
returns Diagnostics only about the files the user gave (``SkillTree.given``)."""
