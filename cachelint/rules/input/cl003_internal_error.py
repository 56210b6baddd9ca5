"""CL003 internal-error: cachelint itself failed on an input (a check raised).

Raised through ``cachelint.diagnostics.internal_error`` where the runners catch a check's
exception: the engine's per-file analysis and skill checks, the audit's check loop. No input is
meant to trigger it, so its catalog entry has no examples (``TRIGGERED_BY_INPUT``); the tests
trigger it by making a check raise."""

from __future__ import annotations

from cachelint.rules.declarations import InputRule

CODE = "CL003"


RULE = InputRule(CODE, triggered_by_input=False)
