"""GitLab Code Quality report (a JSON list; the merge request widget reads ``description``,
``check_name``, ``fingerprint``, ``severity`` and ``location.path`` / ``location.lines.begin``).
Paths are relative to the working directory, which in a GitLab job is the project folder
(``CI_PROJECT_DIR``). Spec: https://docs.gitlab.com/ci/testing/code_quality/#code-quality-report-format
"""

from __future__ import annotations

import json
from typing import Sequence

from cachelint.diagnostics import Diagnostic, Severity
from cachelint.report.common import cell_of, file_position, fingerprints, name_of, severity_of

# GitLab's levels: info, minor, major, critical, blocker.
SEVERITY = {Severity.ERROR: "major", Severity.WARNING: "minor", Severity.INFO: "info"}


def render_gitlab(diagnostics: Sequence[Diagnostic]) -> str:
    out = []
    for d, fp in zip(diagnostics, fingerprints(diagnostics)):
        out.append(
            {
                "description": f"{d.code} {d.message}"
                if cell_of(d) is None
                else f"{d.code} cell {cell_of(d)}: {d.message}",
                "check_name": f"{d.code} {name_of(d)}",
                # GitLab compares fingerprints between pipelines: the identity the baseline and
                # SARIF use, which survives lines added above
                "fingerprint": fp,
                "severity": SEVERITY[severity_of(d)],
                "location": {
                    "path": d.path,
                    "lines": {"begin": file_position(d)[0], "end": max(file_position(d)[2], file_position(d)[0])},
                },
            }
        )
    return json.dumps(out, indent=2, ensure_ascii=False) + "\n"
