"""Inline suppressions: ``# cachelint: ignore[CL101, CL103]`` and ``# noqa: CL101``.

A suppression applies to its own line and to the line below it (a comment on the line above the
flagged one). The same text works in Markdown (``<!-- cachelint: ignore[CL202] -->``) and YAML
front matter. Codes are required: a blanket ``# noqa`` is another tool's business and is left
alone. An unknown code inside a cachelint suppression is itself reported (CL002), because a typo
there silently keeps a finding alive.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Sequence

from cachelint.diagnostics import Diagnostic

_CACHELINT = re.compile(r"cachelint\s*:\s*ignore\s*\[([^\]]*)\]", re.IGNORECASE)
_NOQA = re.compile(r"#\s*noqa\s*:\s*([A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*)", re.IGNORECASE)
_CODE = re.compile(r"^CL[0-9]{3}$")


@dataclass(frozen=True)
class Suppression:
    line: int  # 1-based line of the comment
    column: int
    codes: tuple[str, ...]
    explicit: bool  # written for cachelint (not a shared noqa)


def find_suppressions(text: str) -> list[Suppression]:
    lowered = text.lower()
    if "cachelint" not in lowered and "noqa" not in lowered:
        return []
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        if "cachelint" in line.lower():
            for m in _CACHELINT.finditer(line):
                codes = tuple(c.strip().upper() for c in re.split(r"[\s,]+", m.group(1)) if c.strip())
                out.append(Suppression(number, m.start() + 1, codes, True))
        if "noqa" in line.lower():
            for m in _NOQA.finditer(line):
                codes = tuple(c.upper() for c in re.split(r"[\s,]+", m.group(1)) if c)
                # noqa is shared with flake8/ruff: only our own codes concern us
                codes = tuple(c for c in codes if c.startswith("CL"))
                if codes:
                    out.append(Suppression(number, m.start() + 1, codes, False))
    return out


def apply_suppressions(
    diagnostics: Sequence[Diagnostic], text: str, path: str, known_codes: Iterable[str]
) -> list[Diagnostic]:
    """Drop suppressed diagnostics of one file; add CL002 for unknown codes in suppressions."""
    suppressions = find_suppressions(text)
    if not suppressions:
        return list(diagnostics)
    known = set(known_codes)
    by_line: dict[int, set[str]] = {}
    extra: list[Diagnostic] = []
    for s in suppressions:
        for code in s.codes:
            if code not in known:
                if s.explicit or _CODE.match(code):
                    extra.append(
                        Diagnostic(
                            code="CL002",
                            message=f"unknown rule code {code!r} in suppression comment",
                            path=path,
                            line=s.line,
                            column=s.column,
                        )
                    )
                continue
            by_line.setdefault(s.line, set()).add(code)
            by_line.setdefault(s.line + 1, set()).add(code)
    kept = [d for d in diagnostics if d.code not in by_line.get(d.line, ())]
    return kept + extra
