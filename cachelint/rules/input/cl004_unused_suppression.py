"""CL004 unused-suppression: a suppression comment whose code covered no finding.

Raised by ``cachelint.suppressions.apply_suppressions`` while it applies a file's suppressions,
with the fix that removes the code (``cachelint.suppressions.removal_edit``)."""

from __future__ import annotations

from cachelint.rules.declarations import InputRule

CODE = "CL004"


RULE = InputRule(CODE)
