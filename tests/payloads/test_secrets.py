"""Secrets planted in headers, URLs and body fields of HAR, JSONL and cassette inputs never reach
any output format (nor the summary)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from helpers import TOOLS, anthropic, turns
from test_readers import har, har_entry

from cachelint.cli import main

SECRETS = {
    "authorization": "Bearer sk-ant-oat01-PLANTED-AUTH",
    "x-api-key": "sk-ant-api03-PLANTED-XKEY",
    "api-key": "PLANTED-AZURE-KEY",
    "x-goog-api-key": "PLANTED-GOOG-KEY",
    "cookie": "session=PLANTED-COOKIE",
}
URL_KEY = "PLANTED-URL-KEY"
USER_ID = "PLANTED-USER-ID-acc-uuid"
BODY_KEY = "PLANTED-BODY-API-KEY"
PLANTED = [*SECRETS.values(), URL_KEY, USER_ID, BODY_KEY, "PLANTED"]


def body(n, tools=TOOLS):
    b = anthropic(turns(n), tools=tools, metadata={"user_id": USER_ID})
    b["api_key"] = BODY_KEY
    return b


def write_inputs(root: Path) -> list[str]:
    url = f"https://api.anthropic.com/v1/messages?beta=true&key={URL_KEY}"
    # JSONL envelopes
    with open(root / "log.jsonl", "w") as handle:
        for n, tools in ((1, TOOLS), (3, list(reversed(TOOLS)))):
            handle.write(
                json.dumps({"request": body(n, tools), "url": url, "headers": SECRETS, "response": {"id": "msg"}})
                + "\n"
            )
    # HAR with header, cookie and queryString secrets
    entries = []
    for i, (n, tools) in enumerate(((1, TOOLS), (3, list(reversed(TOOLS))))):
        entry = har_entry(body(n, tools), f"2026-11-29T10:00:0{i}Z", url=url)
        entry["request"]["headers"] += [{"name": k.title(), "value": v} for k, v in SECRETS.items()]
        entry["request"]["cookies"] = [{"name": "session", "value": "PLANTED-COOKIE"}]
        entry["request"]["queryString"] = [{"name": "key", "value": URL_KEY}]
        entry["response"]["headers"].append({"name": "set-cookie", "value": "id=PLANTED-SET-COOKIE"})
        entries.append(entry)
    (root / "s.har").write_text(har(entries))
    # a cassette
    interactions = [
        {
            "request": {
                "method": "POST",
                "uri": url,
                "body": json.dumps(body(n, tools)),
                "headers": {k: [v] for k, v in SECRETS.items()},
            },
            "response": {
                "status": {"code": 200},
                "headers": {"set-cookie": ["PLANTED-SET-COOKIE"]},
                "body": {"string": "{}"},
            },
        }
        for n, tools in ((1, TOOLS), (3, list(reversed(TOOLS))))
    ]
    (root / "c.yaml").write_text(yaml.safe_dump({"version": 1, "interactions": interactions}))
    return ["log.jsonl", "s.har", "c.yaml"]


@pytest.mark.parametrize("fmt", ["concise", "full", "json", "sarif", "github", "html"])
def test_no_secret_in_any_output(tmp_path, monkeypatch, fmt):
    monkeypatch.chdir(tmp_path)
    inputs = write_inputs(tmp_path)
    args = ["audit", "--isolated", "--fail-on", "info", "--output-format", fmt, *inputs]
    if fmt == "html":
        args += ["-o", "report.html"]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 1, (
        result.output
    )  # the planted tool reorder is found in every input (information: no breakpoint)
    output = result.output + ((tmp_path / "report.html").read_text() if fmt == "html" else "")
    assert "CL301" in output
    for secret in PLANTED:
        assert secret not in output, (fmt, secret)
    for path in tmp_path.rglob("*"):
        if path.is_file() and path.name not in inputs:
            assert "PLANTED" not in path.read_text(errors="replace"), path


def test_the_api_result_holds_no_secret(tmp_path):
    from cachelint.api import audit_logs
    from cachelint.config import load_settings

    inputs = write_inputs(tmp_path)
    result = audit_logs(inputs, settings=load_settings(tmp_path, isolated=True), cwd=tmp_path)
    dump = json.dumps([d.to_dict() for d in result.diagnostics]) + json.dumps(result.summary, default=str)
    assert all(secret not in dump for secret in PLANTED)
    assert sorted({d.path for d in result.diagnostics if d.code == "CL301"}) == ["c.yaml", "log.jsonl", "s.har"]
