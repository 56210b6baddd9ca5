"""The findings of a run, finalised: selection (select / ignore / per-file-ignores, by the
configuration closest to each file), masking, de-duplication and one stable order."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from cachelint.config import Settings
from cachelint.diagnostics import INTERNAL_ERROR, Diagnostic

if TYPE_CHECKING:
    from cachelint.catalog import CatalogFolder
    from cachelint.config import ConfigResolver


def finalize(
    diagnostics: Sequence[Diagnostic],
    settings: Settings,
    cwd: Path,
    resolver: "ConfigResolver | None" = None,
    folder: "CatalogFolder | None" = None,
) -> list[Diagnostic]:
    """Selection (select / ignore / per-file-ignores), key-shaped strings masked
    (``cachelint.masking``), de-duplication and a stable order. With a
    ``resolver``, each finding is selected by the settings of the configuration closest to its
    file; per-file-ignores patterns match the path relative to that configuration's folder.
    ``folder``: where the catalog keeps the user's packs as JSON (the run's cache folder)."""
    memo: dict[str, tuple[set[str], list[tuple[str, set[str]]], Path]] = {}

    def selection(path: str) -> tuple[set[str], list[tuple[str, set[str]]], Path]:
        known = memo.get(path)
        if known is None:
            own = resolver.for_path(cwd / path) if resolver is not None else settings
            known = memo[path] = (own.enabled_codes(), _per_file_ignores(own), own.root)
        return known

    from cachelint.masking import masker

    mask = masker(settings.pack_paths(), folder).mask_diagnostic
    seen = set()
    out = []
    for d in diagnostics:
        enabled, pfi, root = selection(d.path)
        if d.code == INTERNAL_ERROR:
            pass  # cachelint's own fault: no selection or ignore hides it
        elif d.code not in enabled:
            continue
        elif pfi:
            relative = _relative_to_root(d.path, cwd, root)
            if any(d.code in codes and _glob_match(relative, pattern) for pattern, codes in pfi):
                continue
        d = mask(d)
        key = (d.sort_key(), d.end_line, d.end_column, d.session, d.kind)
        if key in seen:
            continue
        seen.add(key)
        out.append(d)
    out.sort(key=Diagnostic.sort_key)
    return out


def _relative_to_root(display: str, cwd: Path, root: Path) -> str:
    """A finding's path relative to its configuration's folder (what per-file-ignores match), so
    that the same pattern selects the same files from whatever folder the command runs."""
    absolute = Path(os.path.abspath(cwd / display))
    try:
        return absolute.relative_to(Path(os.path.abspath(root))).as_posix()
    except ValueError:
        return display


def _per_file_ignores(settings: Settings) -> list[tuple[str, set[str]]]:
    from cachelint.catalog import expand_selectors

    return [(pattern, expand_selectors(codes)) for pattern, codes in sorted(settings.per_file_ignores.items())]


def _glob_match(path: str, pattern: str) -> bool:
    from cachelint.discovery import compile_patterns

    return any(rule.matches(path) for rule in compile_patterns([pattern]))
