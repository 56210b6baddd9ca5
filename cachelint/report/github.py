"""GitHub Actions workflow annotations (``::error file=…,line=…::message``).

Escaping follows actions/toolkit: data escapes %, CR, LF; properties also escape ':' and ','.
The runner rejects col/endColumn on multi-line spans (ruff#22074), so those carry lines only.
"""

from __future__ import annotations

from typing import Sequence

from cachelint.diagnostics import Diagnostic, Severity
from cachelint.report.common import file_position, headline, name_of, severity_of

LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def escape_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def annotation(d: Diagnostic) -> str:
    # a notebook finding is annotated on its line of the notebook's file; the text names the cell
    line, column, end_line, end_column = file_position(d)
    props = [
        f"title={escape_property(f'cachelint ({d.code} {name_of(d)})')}",
        f"file={escape_property(d.path)}",
        f"line={line}",
    ]
    end_line = max(end_line, line)
    if end_line == line:
        props.append(f"col={column}")
        props.append(f"endLine={end_line}")
        props.append(f"endColumn={max(end_column, column)}")
    else:
        props.append(f"endLine={end_line}")
    return f"::{LEVEL[severity_of(d)]} {','.join(props)}::{escape_data(headline(d))}"


def render_github(diagnostics: Sequence[Diagnostic]) -> str:
    return "".join(annotation(d) + "\n" for d in diagnostics)
