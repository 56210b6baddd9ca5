"""Skill-folder checks (CL201-CL206) and index rendering.

Entry point used by the engine: ``check_skills(files, settings, cwd) -> list[Diagnostic]`` where
``files`` are the discovered non-Python inputs (SKILL.md files and candidate index files).
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    from cachelint.config import Settings
    from cachelint.diagnostics import Diagnostic
    from cachelint.discovery import InputFile


def check_skills(files: "Sequence[InputFile]", settings: "Settings", cwd: Path) -> "list[Diagnostic]":
    return []
