"""JSON output: a list of objects, one per finding, in a stable order and key order."""
from __future__ import annotations

import json
from typing import Sequence

from cachelint.diagnostics import Diagnostic
from cachelint.report.common import name_of, severity_of


def diagnostic_record(d: Diagnostic) -> dict:
    data = {
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
    return data


def render_json(diagnostics: Sequence[Diagnostic]) -> str:
    return json.dumps([diagnostic_record(d) for d in diagnostics], indent=2, ensure_ascii=False, default=str) + "\n"
