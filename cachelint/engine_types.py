"""The options and the result of a ``check`` run: the nouns the engine, the fixer, the API and
the CLI share. A leaf module (it imports only ``cachelint.diagnostics``), so that the fixer can
name them without importing the engine that calls it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from cachelint.diagnostics import Diagnostic


@dataclass(frozen=True)
class StdinInput:
    """A file read from standard input (``cachelint check -``): its bytes and the path it stands
    for (``--stdin-filename``), which gives its kind (by suffix), its configuration and its place
    among the project's modules."""

    data: bytes
    path: Path  # absolute
    display: str  # the name findings carry: the given file name, or "-"


@dataclass
class CheckOptions:
    fix: bool = False
    unsafe_fixes: bool = False
    diff: bool = False
    no_cache: bool = False
    force_exclude: bool = False
    jobs: int | None = None
    stdin: StdinInput | None = None
    baseline: str | None = None  # a JSON file of accepted findings to leave out (cachelint.baseline)


@dataclass
class CheckResult:
    diagnostics: list[Diagnostic]
    files_checked: int = 0
    fixes_applied: int = 0
    diffs: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # display path -> rule code -> findings whose fixes this run wrote (``--show-fixes``)
    fixed: dict[str, dict[str, int]] = field(default_factory=dict)
    # configuration file (None: defaults) -> files checked with it (``-v``)
    configurations: dict[str | None, int] = field(default_factory=dict)
    # request logs met on the way and left to ``cachelint audit`` (display paths, sorted)
    logs_seen: list[str] = field(default_factory=list)
    baselined: int = 0  # findings hidden by the baseline


__all__ = ["CheckOptions", "CheckResult", "StdinInput"]
