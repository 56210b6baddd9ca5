"""CL002 invalid-suppression: a suppression comment that names a code cachelint does not know.

Raised by ``cachelint.suppressions.apply_suppressions`` while it applies a file's suppressions."""

from __future__ import annotations

from cachelint.rules.declarations import InputRule

CODE = "CL002"


RULE = InputRule(CODE)
