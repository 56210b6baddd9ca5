"""Output formats: SARIF validates against the 2.1.0 schema, GitHub annotations escape correctly,
JSON carries the documented keys."""

from __future__ import annotations

import json

import jsonschema
import pytest

from cachelint.diagnostics import Applicability, Diagnostic, Edit, Fix, Severity
from cachelint.report import render
from cachelint.report.github import annotation, escape_data, escape_property
from conftest import DATA

SAMPLE = [
    Diagnostic(
        code="CL001",
        message="cannot read: 50% done, bad\nline",
        path="src/a.py",
        line=3,
        column=5,
        end_line=3,
        end_column=9,
    ),
    Diagnostic(
        code="CL002",
        message="multi-line span",
        path="src/b.py",
        line=2,
        column=7,
        end_line=4,
        end_column=2,
        severity=Severity.INFO,
    ),
    Diagnostic(
        code="CL001",
        message="payload",
        path="logs/run.jsonl",
        line=7,
        column=1,
        record=6,
        session="s1",
        kind="reordered",
    ),
    Diagnostic(
        code="CL002",
        message="with fix",
        path="src/a.py",
        line=5,
        column=1,
        fix=Fix("wrap in sorted()", (Edit(5, 1, 5, 1, "sorted("), Edit(5, 4, 5, 4, ")")), Applicability.SAFE),
    ),
]


def sarif_schema():
    """The OASIS SARIF 2.1.0 schema (errata 01), shipped in tests/data."""
    return json.loads((DATA / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))


def validate_sarif(doc) -> None:
    schema = sarif_schema()
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class(schema, format_checker=validator_class.FORMAT_CHECKER).validate(doc)


def test_sarif_validates_against_the_schema():
    doc = json.loads(render("sarif", SAMPLE))
    validate_sarif(doc)
    run = doc["runs"][0]
    assert doc["version"] == "2.1.0"
    assert {r["id"] for r in run["tool"]["driver"]["rules"]} >= {"CL001", "CL002"}
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]]
    assert uris == ["src/a.py", "src/b.py", "logs/run.jsonl", "src/a.py"]  # relative URIs
    assert all(not u.startswith("file:") for u in uris)
    levels = [r["level"] for r in run["results"]]
    assert levels == ["error", "note", "error", "warning"]
    assert run["results"][2]["properties"] == {"record": 6, "session": "s1", "kind": "reordered"}
    assert (
        run["results"][3]["fixes"][0]["artifactChanges"][0]["replacements"][0]["insertedContent"]["text"] == "sorted("
    )


def test_sarif_fingerprints_are_stable_and_unique():
    a = json.loads(render("sarif", SAMPLE))["runs"][0]["results"]
    b = json.loads(render("sarif", SAMPLE))["runs"][0]["results"]
    fa = [r["partialFingerprints"]["primaryLocationLineHash"] for r in a]
    assert fa == [r["partialFingerprints"]["primaryLocationLineHash"] for r in b]
    assert len(set(fa)) == len(fa)


def test_sarif_fingerprint_survives_lines_added_above(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.py").write_text("x = {1}\n")
    d1 = Diagnostic(code="CL001", message="m", path="a.py", line=1, column=1)
    fp1 = json.loads(render("sarif", [d1]))["runs"][0]["results"][0]["partialFingerprints"]
    (tmp_path / "a.py").write_text("import os\n\nx = {1}\n")
    d2 = Diagnostic(code="CL001", message="m", path="a.py", line=3, column=1)
    fp2 = json.loads(render("sarif", [d2]))["runs"][0]["results"][0]["partialFingerprints"]
    assert fp1 == fp2


def test_empty_sarif_is_valid():
    validate_sarif(json.loads(render("sarif", [])))


@pytest.mark.parametrize("damage", ["version", "message", "region", "extra"])
def test_the_sarif_schema_rejects_a_damaged_log(damage):
    """The schema in tests/data constrains the whole log (a copy whose root constraints sat under
    "definitions" would accept anything): each damage is caught."""
    doc = json.loads(render("sarif", SAMPLE))
    result = doc["runs"][0]["results"][0]
    if damage == "version":
        doc["version"] = "2.0.0"
    elif damage == "message":
        del result["message"]
    elif damage == "region":
        result["locations"][0]["physicalLocation"]["region"]["startLine"] = 0
    else:
        doc["extra"] = True
    with pytest.raises(jsonschema.ValidationError):
        validate_sarif(doc)


def test_github_escaping():
    assert escape_data("50% a\r\nb") == "50%25 a%0D%0Ab"
    assert escape_property("a:b,c%") == "a%3Ab%2Cc%25"
    line = annotation(SAMPLE[0])
    assert line.startswith(
        "::error title=cachelint (CL001 unreadable-input),file=src/a.py,line=3,col=5,endLine=3,endColumn=9::"
    )
    assert line.endswith("src/a.py:3:5: CL001 cannot read: 50%25 done, bad%0Aline")
    assert "\n" not in line


def test_github_multiline_span_has_no_columns():
    line = annotation(SAMPLE[1])
    assert line.startswith("::notice ")
    assert "col=" not in line and "endColumn=" not in line
    assert "line=2,endLine=4::" in line


def test_json_has_documented_keys():
    data = json.loads(render("json", SAMPLE))
    for item in data:
        assert {"code", "name", "severity", "message", "path", "line", "column", "end_line", "end_column"} <= set(item)
    assert data[2]["record"] == 6 and data[2]["session"] == "s1" and data[2]["kind"] == "reordered"
    assert data[0]["name"] == "unreadable-input"


def test_concise_is_the_stable_editor_format():
    text = render("concise", SAMPLE[:1])
    assert text == "src/a.py:3:5: CL001 cannot read: 50% done, bad\nline\n"


def test_full_shows_payload_location_and_details():
    d = Diagnostic(
        code="CL001",
        message="m",
        path="x.jsonl",
        line=2,
        column=1,
        record=1,
        session="s",
        details={"offset": 42, "before": "abc\ndef"},
    )
    text = render("full", [d])
    assert "record 1, session s" in text and "offset: 42" in text and "      def" in text


def test_full_output_keeps_quoted_line_breaks_on_their_line():
    """A captured prompt quoted inside a nested detail (CL307's ``starts``) must not break the
    report into lines that look like other findings."""
    from cachelint.report.text import render_full

    d = Diagnostic(
        code="CL307",
        message="text sent again",
        path="log.jsonl",
        line=2,
        column=1,
        details={
            "repeats": [{"chars": 2650, "starts": "YOU ARE HELPFUL.\nlog.jsonl:9:1: CL999 fake"}],
            "kinds": ["a\nb"],
        },
    )
    text = render_full([d])
    assert not any(line.startswith("log.jsonl:9:1") or line == "b" for line in text.splitlines())
    assert "starts=YOU ARE HELPFUL.\\nlog.jsonl:9:1: CL999 fake" in text and "kinds: a\\nb" in text


def test_sarif_uris_are_percent_encoded():
    from cachelint.report.sarif import artifact_uri

    assert artifact_uri("tests/cassettes/test_eval[anthropic].yaml") == "tests/cassettes/test_eval%5Banthropic%5D.yaml"
    assert artifact_uri("dir/a b#1%.py") == "dir/a%20b%231%25.py"
    assert artifact_uri("pkg/é.py") == "pkg/%C3%A9.py"
    assert artifact_uri("src/agent.py") == "src/agent.py"
    assert artifact_uri("caf\\xe9.py") == "caf%E9.py"  # a non-UTF-8 name as displayed: its byte
    assert artifact_uri("a\\x41.py") == "a%5Cx41.py"  # a literal backslash stays one
    d = Diagnostic(code="CL101", message="m", path="a b/[x].py", line=1, column=1)
    sarif = json.loads(render("sarif", [d]))
    assert (
        sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        == "a%20b/%5Bx%5D.py"
    )
