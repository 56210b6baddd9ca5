"""Shared helpers of the reporters."""
from __future__ import annotations

from cachelint.catalog import default_severity, rule_name
from cachelint.diagnostics import Diagnostic, Severity


def severity_of(d: Diagnostic) -> Severity:
    return d.severity or default_severity(d.code)


def location(d: Diagnostic) -> str:
    return f"{d.path}:{d.line}:{d.column}"


def headline(d: Diagnostic) -> str:
    """The stable concise line editors parse: ``path:line:col: CODE message``."""
    return f"{location(d)}: {d.code} {d.message}"


def name_of(d: Diagnostic) -> str:
    return rule_name(d.code)
