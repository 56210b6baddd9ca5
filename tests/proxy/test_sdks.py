"""The official SDKs against the proxy, each running a small agent loop (tests/proxy/agents) under
`cachelint run --fake-model`: no key, no network, the base URL taken from the environment as any
user's agent takes it. The Node packages are installed by npm once per test run.

The TypeScript-side agent carries a cache break on purpose (the time in its system prompt): the
run reports it live and the audit shows it with the byte diff. The others keep their prefix and
exit 0. An API key given to the agent reaches neither the capture nor any output."""

from __future__ import annotations

import re

import fcntl
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("aiohttp")

AGENTS = Path(__file__).resolve().parent / "agents"
# Keys of the shape the masking patterns know, given to the agents instead of the placeholder.
ANTHROPIC_KEY = "sk-ant-api03-Qx7Lm2Nv8Bc4Rt6Yw1Ui9Op3As5Df7Gh2Jk4Lz8Xc"
OPENAI_KEY = "sk-proj-Zq1Wx2Ec3Rv4Tb5Yn6Um7Ik8Ol9Pa0Sd1Fg2Hj3Kl4"
NODE_PACKAGES = {"@anthropic-ai/sdk": "^1.17.0", "openai": "^6.49.0"}


def _clean_environment(**extra: str) -> dict[str, str]:
    """The test's environment without any key or base URL of the machine's, plus ``extra``."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.endswith(("_API_KEY", "_BASE_URL", "_API_BASE", "_AUTH_TOKEN")) and not k.startswith("CACHELINT_")
    }
    return {**env, **extra}


def cachelint_run(tmp_path: Path, command: list[str], env: dict[str, str], cwd: Path | None = None):
    """``cachelint run --fake-model`` in a process of its own; (exit code, report, stderr, capture)."""
    capture, report = tmp_path / "capture.jsonl", tmp_path / "report.txt"
    args = ["run", "--isolated", "--fake-model", "--capture", str(capture), "-o", str(report), "--", *command]
    done = subprocess.run(
        [sys.executable, "-m", "cachelint", *args],
        cwd=cwd or tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
    )
    text = report.read_text(encoding="utf-8") if report.exists() else ""
    return done.returncode, text, done.stdout + done.stderr, capture


def _records(capture: Path) -> list[dict]:
    return [json.loads(line) for line in capture.read_text(encoding="utf-8").splitlines()]


def _no_key_anywhere(key: str, *texts: str) -> None:
    for text in texts:
        assert key not in text
        assert key[12:30] not in text  # no part of it either


def test_python_anthropic_agent_runs_and_keeps_its_prefix(tmp_path):
    code, report, output, capture = cachelint_run(
        tmp_path,
        [sys.executable, str(AGENTS / "anthropic_agent.py")],
        _clean_environment(ANTHROPIC_API_KEY=ANTHROPIC_KEY),
    )
    assert code == 0, output + report
    assert output.count("called: get_weather{'city': 'aa', 'unit': 'c'}") == 2  # minLength 2, the first enum value
    assert output.count("called: get_time{'zone': ''}") == 2 and output.count("answer: Done.") == 2
    assert "All checks passed!" in report and "6 LLM requests in 2 sessions, 0 prefix breaks" in report
    records = _records(capture)
    assert [r["url"] for r in records] == ["https://api.anthropic.com/v1/messages"] * 6
    assert [r["request"].get("stream", False) for r in records] == [False] * 3 + [True] * 3
    assert all(r["status"] == 200 and r["request"]["model"] == "claude-sonnet-4-5" for r in records)
    _no_key_anywhere(ANTHROPIC_KEY, capture.read_text(encoding="utf-8"), report, output)


def test_python_openai_agent_runs_and_keeps_its_prefix(tmp_path):
    code, report, output, capture = cachelint_run(
        tmp_path, [sys.executable, str(AGENTS / "openai_agent.py")], _clean_environment(OPENAI_API_KEY=OPENAI_KEY)
    )
    assert code == 0, output + report
    assert output.count("called: get_forecast") == 4 and output.count("called: get_hotels") == 4
    assert output.count("answer: Done.") == 4
    assert "12 LLM requests in 4 sessions, 0 prefix breaks" in report
    endpoints = [r["url"].rsplit("/v1/", 1)[1] for r in _records(capture)]
    assert endpoints == ["chat/completions"] * 6 + ["responses"] * 6
    _no_key_anywhere(OPENAI_KEY, capture.read_text(encoding="utf-8"), report, output)


@pytest.fixture(scope="session")
def node_sdks(tmp_path_factory) -> Path:
    """A folder with the Node SDKs installed by npm and the agents beside them; made once per test
    run (the workers of a parallel run share it, one installing while the others wait)."""
    if not (shutil.which("node") and shutil.which("npm")):
        if os.environ.get("CI"):
            pytest.fail("node and npm are needed for the Node SDK tests")
        pytest.skip("node and npm are not installed")
    root = tmp_path_factory.getbasetemp().parent / "cachelint-node-sdks"
    root.mkdir(exist_ok=True)
    with open(root.parent / "cachelint-node-sdks.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (root / "node_modules" / "openai" / "package.json").exists():
            (root / "package.json").write_text(
                json.dumps({"private": True, "type": "module", "dependencies": NODE_PACKAGES}), encoding="utf-8"
            )
            done = subprocess.run(
                ["npm", "install", "--no-audit", "--no-fund", "--no-package-lock", "--loglevel=error"],
                cwd=root,
                capture_output=True,
                text=True,
                timeout=600,
            )
            if done.returncode != 0:
                pytest.fail(f"npm install failed:\n{done.stdout}\n{done.stderr}")
        for agent in AGENTS.glob("*.mjs"):
            shutil.copyfile(agent, root / agent.name)
    return root


def test_node_anthropic_agent_with_a_clock_in_its_system_prompt_is_caught(tmp_path, node_sdks):
    code, report, output, capture = cachelint_run(
        tmp_path, ["node", str(node_sdks / "anthropic_agent.mjs")], _clean_environment(ANTHROPIC_API_KEY=ANTHROPIC_KEY)
    )
    assert code == 1, output + report  # findings
    assert output.count("called: search_flights") == 2 and output.count("answer: Done.") == 2
    # said live, as each request came
    live = [line for line in output.splitlines() if "cache break in session" in line]
    assert len(live) == 4 and all("system changed (only a timestamp, date, id or counter)" in line for line in live)
    # and reported with the byte diff
    assert "6 LLM requests in 2 sessions, 4 prefix breaks" in report
    # one cause, its four findings counted, the first three in full
    assert re.search(r"CL309 volatile-prefix-content \([^)]*\): 4 findings in 2 sessions", report), report
    assert report.count("CL309 system tier changes only by a timestamp") == 3
    before = [line for line in report.splitlines() if line.strip().startswith("before:")]
    after = [line for line in report.splitlines() if line.strip().startswith("after:")]
    assert len(before) == len(after) == 3
    assert all("Current time: " in line and "⟨" in line for line in before + after)
    assert "invalidates system, messages" in report
    records = _records(capture)
    assert [r["url"] for r in records] == ["https://api.anthropic.com/v1/messages"] * 6
    assert records[0]["request"]["tools"][0]["name"] == "search_flights"
    # the smallest arguments the tool's schema accepts: a three-capital code, a count of at least 1
    assert records[1]["request"]["messages"][1]["content"][0]["input"] == {"from": "AAA", "to": "", "adults": 1}
    _no_key_anywhere(ANTHROPIC_KEY, capture.read_text(encoding="utf-8"), report, output)


def test_node_openai_agent_runs_and_keeps_its_prefix(tmp_path, node_sdks):
    code, report, output, capture = cachelint_run(
        tmp_path, ["node", str(node_sdks / "openai_agent.mjs")], _clean_environment(OPENAI_API_KEY=OPENAI_KEY)
    )
    assert code == 0, output + report
    assert output.count("called: find_hotels") == 2 and output.count("called: check_reviews") == 2
    assert "6 LLM requests in 2 sessions, 0 prefix breaks" in report
    endpoints = [r["url"].rsplit("/v1/", 1)[1] for r in _records(capture)]
    assert endpoints == ["chat/completions"] * 3 + ["responses"] * 3
    _no_key_anywhere(OPENAI_KEY, capture.read_text(encoding="utf-8"), report, output)
