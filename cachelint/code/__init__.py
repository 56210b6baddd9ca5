"""Agent-code checks (CL101-CL105): order-flow analysis of Python sources.

Entry point used by the engine: ``check_module(path, text, settings) -> list[Diagnostic]``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cachelint.config import Settings
    from cachelint.diagnostics import Diagnostic


def check_module(path: str, text: str, settings: "Settings") -> "list[Diagnostic]":
    return []
