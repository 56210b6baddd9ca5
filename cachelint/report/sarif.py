"""SARIF 2.1.0 for GitHub code scanning: relative URIs, rule metadata from the catalog, and
stable ``partialFingerprints`` (they must not move when unrelated lines are added above)."""

from __future__ import annotations

import json
import os
import re
from urllib.parse import quote
from typing import Any, Sequence

from cachelint import __version__
from cachelint.catalog import load_catalog
from cachelint.diagnostics import Diagnostic, Severity
from cachelint.report.common import cell_of, file_position, fingerprints, severity_of

LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFO_URI = "https://github.com/cachelint/cachelint"


def _rule_descriptor(doc) -> dict:
    help_md = (
        f"**{doc.code} {doc.name}** — {doc.summary}\n\n**Why:** {doc.why}\n\n**Fix:** {doc.fix}\n\n"
        f"**Fix safety:** {doc.fix_safety}"
    )
    return {
        "id": doc.code,
        "name": doc.name,
        "shortDescription": {"text": doc.summary[:1024]},
        "fullDescription": {"text": doc.why},
        "help": {"text": f"{doc.summary}\n\nWhy: {doc.why}\n\nFix: {doc.fix}", "markdown": help_md},
        "helpUri": f"{INFO_URI}/blob/main/docs/rules/{doc.code}.md",
        "defaultConfiguration": {"level": LEVEL[doc.severity]},
        "properties": {"tags": [doc.scope, "prompt-cache"], "status": doc.status},
    }


def artifact_uri(path: str) -> str:
    """A display path as the relative URI reference SARIF asks for (RFC 3986): each segment
    percent-encoded, so that ``eval[anthropic].yaml``, ``a b.py``, ``x#1.py`` or ``é.py`` stay
    one path (a raw ``#`` would start a fragment, ``[`` is not allowed in a path)."""
    if os.sep != "/":  # a Windows display path; on POSIX a backslash is part of a file name
        path = path.replace(os.sep, "/")
    if "\\x" not in path:
        return quote(path, safe="/")
    # A file name that is not UTF-8 is displayed with its bytes as \xNN (diagnostics.printable,
    # always 80-FF): in a URI those are the bytes themselves, %NN.
    parts = _ESCAPED_BYTE.split(path)
    return "".join(quote(part, safe="/") if i % 2 == 0 else "%" + part.upper() for i, part in enumerate(parts))


_ESCAPED_BYTE = re.compile(r"\\x([89a-f][0-9a-f])")


def render_sarif(diagnostics: Sequence[Diagnostic], root_uri: str | None = None) -> str:
    catalog = load_catalog()
    codes = sorted({d.code for d in diagnostics} | set(catalog))
    rules = [_rule_descriptor(catalog[c]) for c in codes if c in catalog]
    index = {r["id"]: i for i, r in enumerate(rules)}
    results = []
    for d, fp in zip(diagnostics, fingerprints(diagnostics)):
        # the region is in the file's own text: a notebook finding's place in the notebook's JSON
        # (its cell, line and column are in properties)
        line, column, end_line, end_col = file_position(d)
        region = {"startLine": max(line, 1), "startColumn": max(column, 1)}
        end_line = max(end_line, line)
        region["endLine"] = end_line
        if end_line > line or end_col > column:
            region["endColumn"] = max(end_col, 1)
        result: dict[str, Any] = {
            "ruleId": d.code,
            "level": LEVEL[severity_of(d)],
            "message": {"text": d.message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": artifact_uri(d.path), "uriBaseId": "%SRCROOT%"},
                        "region": region,
                    }
                }
            ],
            "partialFingerprints": {"primaryLocationLineHash": fp},
        }
        if d.code in index:
            result["ruleIndex"] = index[d.code]
        props: dict[str, Any] = {}
        if d.record is not None:
            props["record"] = d.record
        if d.session is not None:
            props["session"] = d.session
        if d.kind is not None:
            props["kind"] = d.kind
        cell = cell_of(d)
        if cell is not None:
            props.update({"cell": cell, "cellLine": d.line, "cellColumn": d.column})
        related = d.details.get("related_lines") if d.details else None
        if isinstance(related, list) and cell is None:
            # the other lines the finding shows on (the call it reaches, where it is put in order)
            result["relatedLocations"] = [
                {
                    "id": i,
                    "physicalLocation": {
                        "artifactLocation": {"uri": artifact_uri(d.path), "uriBaseId": "%SRCROOT%"},
                        "region": {"startLine": n},
                    },
                }
                for i, n in enumerate(related, start=1)
                if isinstance(n, int)
            ]
        if props:
            result["properties"] = props
        # a notebook's fix is in lines of a cell, which SARIF cannot address inside the JSON file
        if d.fix is not None and not any(e.cell is not None for e in d.fix.edits):
            result["fixes"] = [
                {
                    "description": {"text": d.fix.description},
                    "artifactChanges": [
                        {
                            "artifactLocation": {"uri": artifact_uri(target), "uriBaseId": "%SRCROOT%"},
                            "replacements": [
                                {
                                    "deletedRegion": {
                                        "startLine": e.line,
                                        "startColumn": e.column,
                                        "endLine": e.end_line,
                                        "endColumn": e.end_column,
                                    },
                                    "insertedContent": {"text": e.content},
                                }
                                for e in d.fix.edits
                                if (e.path or d.path) == target
                            ],
                        }
                        # a fix may edit another file than the finding's (the module that puts the value in order)
                        for target in sorted({e.path or d.path for e in d.fix.edits})
                    ],
                }
            ]
        results.append(result)
    run = {
        "tool": {
            "driver": {
                "name": "cachelint",
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": INFO_URI,
                "rules": rules,
            }
        },
        "results": results,
        "columnKind": "unicodeCodePoints",
    }
    if root_uri:
        run["originalUriBaseIds"] = {"%SRCROOT%": {"uri": root_uri}}
    doc = {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}
    return json.dumps(doc, indent=2, ensure_ascii=False) + "\n"
