"""CL001 unreadable-input: a file or record that cannot be read or parsed, or that exceeds a bound
the user can change (file size, syntax nodes, nesting, analysis time).

Raised where inputs are read, through ``cachelint.diagnostics.unreadable``: the text reader
(``cachelint.textio``), the Python and notebook parsers (``cachelint.code.program``), the skill
tree (``cachelint.skills.tree``: SKILL.md files, front matter refused as input), the log readers
and formats (``cachelint.payloads.readers``, ``cachelint.payloads.formats``) and the engine's
deadlines."""

from __future__ import annotations

from cachelint.rules.declarations import InputRule

CODE = "CL001"


RULE = InputRule(CODE)
