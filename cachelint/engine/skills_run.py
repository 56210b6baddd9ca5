"""The skills part of a run: the skill checks over every tree of the given files, cached as one
result per run whose inputs are known cheaply, and the inline suppressions of their files."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from cachelint.config import Settings
from cachelint.diagnostics import Diagnostic, internal_error
from cachelint.discovery import InputFile, repository_root, root_fallbacks

if TYPE_CHECKING:
    from cachelint.textio import FileReader
    from cachelint.cache import ResultCache


def checked_folders(paths: Sequence[str], cwd: Path) -> list[Path]:
    """The folders named on the command line, resolved (a file named there is no folder)."""
    return [candidate for candidate in ((cwd / p).resolve() for p in paths) if candidate.is_dir()]


def skills_cache_key(files: Sequence[InputFile], walked: Sequence[Path], settings: Settings) -> str | None:
    """Signature of every input the skill checks can read in this run, or None when it cannot be
    known cheaply. The skill checks walk each repository root in full (indexes must see every
    skill); when this run walked those roots itself, the skill-related files it discovered are
    exactly that set, and their (path, mtime, size) key the result. Otherwise (a pre-commit run
    naming a few files) there is no key and the checks run. ``walked``: the folders named on the
    command line (``checked_folders``)."""
    memo: dict[Path, Path | None] = {}
    fallbacks = root_fallbacks(settings.project_root, walked)
    for f in files:
        root = repository_root(f.path, fallbacks, memo)
        if not any(root == d or d in root.parents for d in walked):
            return None
    h = hashlib.sha256()
    for f in sorted(files, key=lambda f: str(f.path)):
        try:
            st = os.stat(f.path)
            stamp = f"{st.st_mtime_ns}:{st.st_size}"
        except OSError:
            stamp = "missing"
        h.update(f"{f.path}\0{f.display}\0{int(f.explicit)}\0{stamp}\n".encode())
    return h.hexdigest()[:32]


def apply_skill_suppressions(
    found: Sequence[Diagnostic], settings: Settings, cwd: Path, reader: "FileReader | None" = None
) -> list[Diagnostic]:
    """The inline suppressions of the Markdown and YAML files the skill findings are about."""
    if not found:
        return []
    from cachelint.catalog import rule_index
    from cachelint.suppressions import apply_text_file_suppressions
    from cachelint.textio import DISK

    def text_of(display: str) -> str | None:
        source = (reader or DISK).read_text(cwd / display, display, settings.max_file_size)
        return None if isinstance(source, Diagnostic) else source.text

    return apply_text_file_suppressions(found, text_of, rule_index())


def check_skills_cached(
    files: Sequence[InputFile],
    paths: Sequence[str],
    settings: Settings,
    cwd: Path,
    cache: "ResultCache | None",
    reader: "FileReader | None" = None,
) -> list[Diagnostic]:
    checked = checked_folders(paths, cwd)
    key = skills_cache_key(files, checked, settings) if cache is not None else None
    if key is not None and cache is not None:
        hit = cache.skills_result(key)
        if hit is not None:
            try:
                return [Diagnostic.from_dict(d) for d in hit]
            except (KeyError, TypeError, ValueError):
                pass  # a damaged entry is a miss
    from cachelint.skills import check_skills, is_timeout

    try:
        found = check_skills(files, settings, cwd, checked, reader)
    except Exception as exc:  # pragma: no cover - defensive: a check bug must not kill the run
        return [internal_error(files[0].display, "in the skill checks", exc)]
    if key is not None and cache is not None and not any(is_timeout(d) for d in found):
        cache.store_skills(key, [d.to_dict() for d in found])
    return found
