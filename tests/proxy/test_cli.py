"""`cachelint proxy` and `cachelint run` as a user runs them: what they print, set and refuse, and
their exit codes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx

# A child that sends one Messages request to wherever ANTHROPIC_BASE_URL points, as an SDK would,
# prints what it got, and exits with the status given as its argument.
SENDER = """
import json, os, sys, urllib.request
body = json.dumps({"model": "claude-sonnet-4-5", "max_tokens": 8, "messages": [{"role": "user", "content": "hi"}]}).encode()
request = urllib.request.Request(os.environ["ANTHROPIC_BASE_URL"] + "/v1/messages", data=body, method="POST",
    headers={"content-type": "application/json", "x-api-key": os.environ.get("ANTHROPIC_API_KEY", ""), "x-test-mode": "json"})
print(urllib.request.urlopen(request).read().decode())
sys.exit(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
"""
PRINT_ENV = (
    "import json, os; print(json.dumps({k: v for k, v in os.environ.items() if 'BASE' in k or k.endswith('_API_KEY')}))"
)


def _environment(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL", "_API_BASE"))}
    return {**env, **extra}


def cachelint(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "cachelint", *args],
        capture_output=True,
        text=True,
        env=env or _environment(),
        cwd=cwd,
        timeout=120,
    )


def test_run_sets_the_base_urls_and_placeholder_keys_for_the_command(tmp_path):
    done = cachelint(
        "run",
        "--isolated",
        "--fake-model",
        "--",
        sys.executable,
        "-c",
        PRINT_ENV,
        env=_environment(OPENAI_API_KEY="mine"),
    )
    assert done.returncode == 2  # it sent nothing
    child = json.loads(done.stdout.splitlines()[0])
    base = child["ANTHROPIC_BASE_URL"].removesuffix("/anthropic")
    assert base.startswith("http://127.0.0.1:")
    assert child["OPENAI_BASE_URL"] == f"{base}/openai/v1" and child["OPENAI_API_BASE"] == f"{base}/openai/v1"
    assert child["ANTHROPIC_API_BASE"] == f"{base}/anthropic"
    assert child["GOOGLE_GEMINI_BASE_URL"] == f"{base}/gemini" and child["GEMINI_API_BASE"] == f"{base}/gemini"
    assert child["ANTHROPIC_API_KEY"] == "cachelint-fake-model-key" and child["OPENAI_API_KEY"] == "mine"
    assert "sent no request through the proxy: does it read its base URL from ANTHROPIC_BASE_URL" in done.stderr


def test_run_forwards_to_the_base_url_the_environment_already_had(tmp_path, upstream):
    """A command that goes through a gateway keeps going there, through the proxy."""
    done = cachelint(
        "run", "--isolated", "--capture", str(tmp_path / "c.jsonl"), "--", sys.executable, "-c", SENDER,
        env=_environment(ANTHROPIC_BASE_URL=upstream.url, ANTHROPIC_API_KEY="sk-ant-api03-" + "k" * 40),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert upstream.seen[0]["path"] == "/v1/messages"
    assert dict((k.lower(), v) for k, v in upstream.seen[0]["headers"])["x-api-key"].endswith("k" * 40)
    [record] = [json.loads(line) for line in (tmp_path / "c.jsonl").read_text().splitlines()]
    assert record["url"] == f"{upstream.url}/v1/messages" and "x-api-key" not in record["headers"]
    assert "1 LLM request in 1 session" in done.stdout and "k" * 20 not in done.stdout + done.stderr


def test_run_reports_then_exits_2_when_the_command_failed(tmp_path):
    done = cachelint("run", "--isolated", "--fake-model", "--", sys.executable, "-c", SENDER, "3")
    assert done.returncode == 2
    assert "Audit of 1 file (jsonl): 1 LLM request in 1 session" in done.stdout  # the report still comes
    assert done.stderr.rstrip().endswith("cachelint: error: the command exited with status 3")


def test_run_says_when_the_command_cannot_start(tmp_path):
    done = cachelint("run", "--isolated", "--", "no-such-command-for-cachelint")
    assert done.returncode == 2 and "cannot start 'no-such-command-for-cachelint'" in done.stderr


def test_run_refuses_a_script_it_cannot_read_and_an_upstream_it_cannot_parse(tmp_path):
    missing = cachelint("run", "--isolated", f"--fake-model={tmp_path / 'nope.yaml'}", "--", "true")
    assert missing.returncode == 2 and "nope.yaml: cannot read the fake model script" in missing.stderr
    bad = cachelint("run", "--isolated", "--upstream", "openai", "--", "true")
    assert bad.returncode == 2 and "--upstream expects NAME=URL" in bad.stderr


def test_proxy_refuses_a_public_address_without_the_flag_and_says_why():
    done = cachelint("proxy", "--isolated", "--listen", "0.0.0.0:0")
    assert done.returncode == 2
    assert "refusing to listen on 0.0.0.0" in done.stderr and "spend your keys" in done.stderr
    assert "--allow-remote" in done.stderr


def test_proxy_without_its_extra_says_how_to_install_it(tmp_path):
    code = "import sys; sys.modules['aiohttp'] = None; from cachelint.cli import main; main(['proxy', '--isolated'])"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "pip install 'cachelint[proxy]'" in done.stderr


def test_proxy_serves_until_stopped_and_says_what_it_captured(tmp_path):
    capture = tmp_path / "cap.jsonl"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "cachelint",
            "proxy",
            "--isolated",
            "--listen",
            "127.0.0.1:0",
            "-o",
            str(capture),
            "--fake-model",
        ],
        stderr=subprocess.PIPE,
        text=True,
        env=_environment(),
    )
    try:
        banner = []
        while not any(line.startswith("cachelint: routes:") for line in banner):
            line = process.stderr.readline()
            assert line, "".join(banner)
            banner.append(line)
        url = banner[0].split("proxy on ", 1)[1].split(",", 1)[0]
        assert f"  export ANTHROPIC_BASE_URL={url}/anthropic\n" in banner
        assert f"  export OPENAI_BASE_URL={url}/openai/v1\n" in banner
        body = {"model": "gpt-5", "messages": [{"role": "user", "content": "hi"}]}
        reply = httpx.post(f"{url}/openai/v1/chat/completions", json=body, timeout=30)
        assert reply.json()["choices"][0]["message"]["content"] == "Done."
    finally:
        process.send_signal(signal.SIGTERM)
        rest = process.communicate(timeout=60)[1]
    assert process.returncode == 0
    assert f"1 exchange captured in {capture}; audit them: cachelint audit {capture}" in rest
    [record] = [json.loads(line) for line in capture.read_text().splitlines()]
    assert record["url"] == "https://api.openai.com/v1/chat/completions"


def test_a_key_anywhere_in_a_request_reaches_no_capture_and_no_output(tmp_path, upstream):
    """Keys in the credential headers, in the query, in a body field and pasted into the prompt:
    forwarded (the upstream needs them), never written or printed."""
    from .helpers import routes_to, start_proxy

    key = "sk-ant-api03-Wq8Er5Ty2Ui9Op4As7Df1Gh6Jk3Lz0Xc5Vb8Nm2Qw"
    google = "AIzaSyD4x9K2m7N3p8Q1r6T0v5W2y9Z4b7C1e3F"
    proxy, reports = start_proxy(tmp_path / "capture.jsonl", routes_to(upstream.url))
    try:
        for turn in range(2):
            body = {
                "model": "claude-sonnet-4-5",
                "max_tokens": 8,
                "api_key": key,
                "system": f"Use {key} for the billing API. Turn {turn} at 2026-12-0{turn + 1}T10:00:00Z",
                "messages": [{"role": "user", "content": f"my other key is {google}"}]
                + [{"role": "assistant", "content": "ok"}, {"role": "user", "content": "and?"}] * turn,
            }
            headers = {
                "x-api-key": key,
                "authorization": f"Bearer {key}",
                "x-goog-api-key": google,
                "x-test-mode": "json",
            }
            httpx.post(f"{proxy.base_url}/anthropic/v1/messages?key={google}", json=body, headers=headers, timeout=30)
        time.sleep(0.2)
    finally:
        proxy.stop()
    assert key in upstream.seen[0]["body"].decode() and google in upstream.seen[0]["path"]
    written = (tmp_path / "capture.jsonl").read_text(encoding="utf-8")
    assert key not in written and google not in written and key[13:30] not in written
    assert "sk-ant-*" in written  # masked where it stood, its length kept
    said = "\n".join(reports)
    assert any("cache break" in r for r in reports)  # the live line quotes the system prompt…
    assert key not in said and google not in said  # …masked
