"""Baselines: findings accepted once and hidden from later runs (``--baseline FILE``).

A baseline is the JSON output of an earlier run: ``check``'s list of findings, or ``audit``'s
object with its ``findings``. A finding is matched by its ``fingerprint`` (the identity SARIF's
``partialFingerprints`` carry, ``cachelint.report.common.fingerprints``): for code and skill
files the rule, the path and the flagged line's text, so it survives lines added or removed
above; for request logs the rule, the path, the record, the session and the kind. An entry
without a fingerprint (a baseline written by hand, or by an older version) hides the findings of
its ``code`` in its ``path`` (and, when it names them, its ``record``, ``session`` and ``kind``).

Baselined findings are left out of everything the run reports: the list, the counts, the exit
code, and for audits the session reports and the money.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from cachelint.diagnostics import INTERNAL_ERROR, Diagnostic


class BaselineError(ValueError):
    """A baseline file that cannot be read: one line, exit code 2."""


@dataclass(frozen=True)
class Baseline:
    fingerprints: frozenset[str]
    keys: frozenset[tuple[Any, ...]]

    def split(self, diagnostics: Sequence[Diagnostic]) -> tuple[list[Diagnostic], list[Diagnostic]]:
        """(kept, hidden), each in the order given."""
        from cachelint.report.common import fingerprints

        prints = fingerprints(diagnostics) if self.fingerprints else [""] * len(diagnostics)
        kept: list[Diagnostic] = []
        hidden: list[Diagnostic] = []
        for d, fp in zip(diagnostics, prints):
            accepted = d.code != INTERNAL_ERROR and (  # cachelint's own failure is never accepted
                fp in self.fingerprints
                or (d.code, d.path, d.record, d.session, d.kind) in self.keys
                or (d.code, d.path, None, None, None) in self.keys
            )
            (hidden if accepted else kept).append(d)
        return kept, hidden


def load_baseline(path: Path) -> Baseline:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and isinstance(data.get("findings"), list):
            data = data["findings"]
        if not isinstance(data, list):
            raise ValueError("expected the JSON output of cachelint (a list of findings, or an object with 'findings')")
        prints: set[str] = set()
        keys: set[tuple[Any, ...]] = set()
        for entry in data:
            if not isinstance(entry, dict):
                raise ValueError(f"a finding is a JSON object, not {type(entry).__name__}")
            fp = entry.get("fingerprint")
            if isinstance(fp, str) and fp:
                prints.add(fp)
            else:
                keys.add((entry["code"], entry["path"], entry.get("record"), entry.get("session"), entry.get("kind")))
    except OSError as exc:
        raise BaselineError(f"baseline {path}: cannot read: {exc.strerror or exc}") from exc
    except (ValueError, KeyError, TypeError) as exc:
        detail = f"missing key {exc}" if isinstance(exc, KeyError) else str(exc)
        raise BaselineError(f"baseline {path}: {detail}") from exc
    return Baseline(frozenset(prints), frozenset(keys))
