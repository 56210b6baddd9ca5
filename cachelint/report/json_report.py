"""JSON outputs, in a stable order and key order.

``json``: for ``check``, a list of objects, one per finding (unchanged since the first release;
``fingerprint`` was added beside the other keys). For ``audit``, one object: ``version``, the
``findings`` and the audit's ``summary`` (sessions, usage, money), described by
``rules/schema/audit-output.schema.json`` so that CI can gate on a hit rate or a cost.
``json-lines``: one finding a line (both commands), as Ruff writes it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence as SequenceABC
from typing import Any, Callable, Iterator, Mapping, Sequence

from cachelint.diagnostics import Diagnostic
from cachelint.report.common import cell_of, fingerprints, name_of, severity_of

AUDIT_OUTPUT_VERSION = 1


def diagnostic_record(d: Diagnostic, fingerprint: str | None = None) -> dict:
    data: dict[str, Any] = {
        "code": d.code,
        "name": name_of(d),
        "severity": severity_of(d).value,
        "message": d.message,
        "path": d.path,
        "line": d.line,
        "column": d.column,
        "end_line": d.end_line,
        "end_column": d.end_column,
    }
    cell = cell_of(d)
    if cell is not None:
        data["cell"] = cell  # line and column count in this notebook cell (Ruff's JSON has it too)
    if d.record is not None:
        data["record"] = d.record
    if d.session is not None:
        data["session"] = d.session
    if d.kind is not None:
        data["kind"] = d.kind
    if d.fix is not None:
        data["fix"] = {
            "description": d.fix.description,
            "applicability": d.fix.applicability.value,
            "edits": [
                {
                    "line": e.line,
                    "column": e.column,
                    "end_line": e.end_line,
                    "end_column": e.end_column,
                    "content": e.content,
                    **e.where(),  # "path" of another file, "cell" of a notebook
                }
                for e in d.fix.edits
            ],
        }
    if d.details:
        data["details"] = d.details
    if fingerprint is not None:
        data["fingerprint"] = fingerprint
    return data


def records(diagnostics: Sequence[Diagnostic]) -> list[dict]:
    return [diagnostic_record(d, fp) for d, fp in zip(diagnostics, fingerprints(diagnostics))]


def render_json(diagnostics: Sequence[Diagnostic], summary: Any = None) -> str:
    """``summary``: the audit's ``AuditSummary`` (then the output is the audit's object)."""
    return "".join(json_parts(diagnostics, summary))


def json_parts(diagnostics: Sequence[Diagnostic], summary: Any = None) -> Iterator[str]:
    """The text of ``render_json`` in pieces, to be written as they come: the text of
    json.dumps(indent=2) of the whole object, made a finding and a session at a time. One object
    of every session, the encoder's pieces of it, or even the whole text at once would weigh many
    times what a session's entry does (a million one-request sessions)."""
    if summary is None:
        yield _dumps(records(diagnostics)) + "\n"
        return
    sessions = summary.sessions
    yield '{\n  "version": ' + _dumps(AUDIT_OUTPUT_VERSION) + ',\n  "findings": '
    yield from _list_parts((diagnostic_record(d, fp) for d, fp in zip(diagnostics, fingerprints(diagnostics))), 1)
    yield ',\n  "summary": '
    yield from _mapping_parts(
        summary.to_dict(sessions=False),
        1,
        {
            "sessions": lambda _placeholder, level: _list_parts((s.to_dict() for s in sessions), level),
            "usage": lambda usage, level: _mapping_parts(usage, level, {"sessions": _list_parts}),
        },
    )
    yield "\n}\n"


def _dumps(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def _list_parts(items: Any, level: int) -> Iterator[str]:
    """What json.dumps(indent=2) writes for a list of ``items`` nested ``level`` deep (JSON text
    holds no raw line break but its layout's, so nesting is a change of indent), an item a piece."""
    pad = "\n" + "  " * (level + 1)
    first = True
    for item in items:
        yield ("[" if first else ",") + pad + _dumps(item).replace("\n", pad)
        first = False
    yield "[]" if first else "\n" + "  " * level + "]"


def _mapping_parts(value: Any, level: int, parts: Mapping[str, Callable[[Any, int], Iterator[str]]]) -> Iterator[str]:
    """What json.dumps(indent=2) writes for the mapping ``value`` nested ``level`` deep, the
    values under the keys of ``parts`` written by those functions (in pieces) when they are
    containers (a sequence that is no list: the sessions a run keeps out of memory); a value of
    any other kind as json.dumps writes it."""
    if not isinstance(value, dict):
        yield _dumps(value).replace("\n", "\n" + "  " * level)
        return
    if not value:
        yield "{}"
        return
    pad = "\n" + "  " * (level + 1)
    for i, (key, item) in enumerate(value.items()):
        yield ("{" if i == 0 else ",") + pad + _dumps(key) + ": "
        if key in parts and (isinstance(item, (list, dict)) or _is_sequence(item)):
            yield from parts[key](item, level + 1)
        else:
            yield _dumps(item).replace("\n", pad)
    yield "\n" + "  " * level + "}"


def _is_sequence(value: Any) -> bool:
    return isinstance(value, SequenceABC) and not isinstance(value, (str, bytes, bytearray))


def render_json_lines(diagnostics: Sequence[Diagnostic]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False, default=str) + "\n" for r in records(diagnostics))
