"""`cachelint server` driven as an editor drives it: a real LSP session over the subprocess's stdin
and stdout (JSON-RPC with Content-Length headers): initialize, didOpen, publishDiagnostics,
codeAction, notebooks, shutdown. docs/editors.md shows the transcript of this session, message
for message (the test compares them; CACHELINT_LSP_TRANSCRIPT=FILE writes it anew)."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from conftest import write_tree

pytest.importorskip("pygls")

AGENT = (
    "import anthropic\n"
    "client = anthropic.Anthropic()\n"
    "TOOLS = {'a': {'name': 'a'}}\n"
    "tools = [TOOLS[n] for n in {'a'}]\n"
    "client.messages.create(model='m', max_tokens=1, tools=tools, messages=[])\n"
)
SKILL = "---\nname: helper\ndescription: Helps with tasks.\n---\nbody\n"
# A hang guard only, far above what any step takes on a loaded machine: every wait below ends on
# a message the server must send, never on the clock.
HANG = 600


class Client:
    """A minimal LSP client: JSON-RPC over the server's pipes, each message kept in order."""

    def __init__(self, cwd: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "cachelint", "server"],
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.transcript: list[tuple[str, dict]] = []
        self.inbox: queue.Queue = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stream = self.proc.stdout
        assert stream is not None
        while True:
            headers = {}
            while True:
                line = stream.readline()
                if not line:
                    self.inbox.put(None)
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii").partition(":")
                headers[name.strip().lower()] = value.strip()
            body = stream.read(int(headers["content-length"]))
            self.inbox.put(json.loads(body))

    def send(self, message: dict) -> None:
        message = {"jsonrpc": "2.0", **message}
        self.transcript.append(("client", message))
        body = json.dumps(message).encode("utf-8")
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def request(self, method: str, params: Any) -> Any:
        self.next_id += 1
        self.send({"id": self.next_id, "method": method, "params": params})
        reply = self.wait(lambda m: m.get("id") == self.next_id and "method" not in m)
        assert "error" not in reply, reply
        return reply["result"]

    def notify(self, method: str, params: Any) -> None:
        self.send({"method": method, "params": params})

    def wait(self, wanted) -> dict:
        while True:
            message = self.inbox.get(timeout=HANG)
            assert message is not None, self.proc.stderr.read().decode() if self.proc.stderr else "server ended"
            self.transcript.append(("server", message))
            if wanted(message):
                return message

    def diagnostics_of(self, uri: str) -> list[dict]:
        message = self.wait(
            lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri
        )
        return message["params"]["diagnostics"]

    def close(self) -> int:
        self.request("shutdown", None)
        self.notify("exit", None)
        return self.proc.wait(timeout=HANG)


def _apply(text: str, edits: list[dict]) -> str:
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))

    def offset(position: dict) -> int:
        return offsets[min(position["line"], len(lines))] + position["character"]

    for edit in sorted(edits, key=lambda e: offset(e["range"]["start"]), reverse=True):
        start, end = offset(edit["range"]["start"]), offset(edit["range"]["end"])
        text = text[:start] + edit["newText"] + text[end:]
    return text


@pytest.fixture
def session(tmp_path):
    write_tree(tmp_path, {"pyproject.toml": "[tool.cachelint]\n", "skills/helper/SKILL.md": SKILL})
    client = Client(tmp_path)
    yield client, tmp_path
    if client.proc.poll() is None:
        client.proc.kill()
        client.proc.wait()
    target = os.environ.get("CACHELINT_LSP_TRANSCRIPT")
    if target:
        Path(target).write_text(shown_transcript(client.transcript, tmp_path), encoding="utf-8")


DOCS = Path(__file__).resolve().parents[2] / "docs" / "editors.md"
DOCS_ROOT = "/projects/demo"  # where the session's folder is in the docs


def shown_transcript(transcript: list[tuple[str, dict]], root: Path) -> str:
    """The session as docs/editors.md shows it: a message a line, ``→`` client to server, ``←``
    server to client, the test's folder shown as /projects/demo and the version as ``…``."""
    from cachelint import __version__

    lines = []
    for who, message in transcript:
        text = json.dumps(message, ensure_ascii=False)
        text = text.replace(root.as_uri(), "file://" + DOCS_ROOT).replace(str(root), DOCS_ROOT)
        text = text.replace(f'"name": "cachelint", "version": "{__version__}"', '"name": "cachelint", "version": "…"')
        lines.append(("→ " if who == "client" else "← ") + text)
    return "\n".join(lines) + "\n"


def docs_transcript() -> str:
    """The text block of docs/editors.md's "A session, message by message"."""
    text = DOCS.read_text(encoding="utf-8")
    section = text[text.index("### A session, message by message") :]
    start = section.index("```text\n") + len("```text\n")
    return section[start : section.index("```\n", start)]


def test_an_editor_session_diagnostics_and_code_actions(session):
    client, root = session
    init = client.request(
        "initialize",
        {
            "processId": None,
            "rootUri": root.as_uri(),
            "capabilities": {},
            "workspaceFolders": [{"uri": root.as_uri(), "name": "demo"}],
        },
    )
    assert init["serverInfo"]["name"] == "cachelint"
    assert init["capabilities"]["codeActionProvider"]["codeActionKinds"] == ["quickfix", "source.fixAll.cachelint"]
    client.notify("initialized", {})

    # A Python buffer (not on disk): the finding of its unordered tools, at 0-based positions.
    uri = (root / "agent.py").as_uri()
    client.notify(
        "textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": AGENT}}
    )
    [finding] = client.diagnostics_of(uri)
    assert (finding["code"], finding["source"], finding["severity"]) == ("CL101", "cachelint", 1)
    assert finding["range"]["start"] == {"line": 3, "character": 27}
    assert finding["message"].startswith("tools built from a set (unordered) reach tools=")

    actions = client.request(
        "textDocument/codeAction",
        {"textDocument": {"uri": uri}, "range": finding["range"], "context": {"diagnostics": [finding]}},
    )
    assert [(a["title"], a["kind"]) for a in actions] == [
        ("Fix CL101: wrap the unordered value in sorted(...)", "quickfix"),
        ("Suppress CL101 on this line", "quickfix"),
        ("cachelint: fix all safe fixes", "source.fixAll.cachelint"),
    ]
    fix = next(a for a in actions if a["title"].startswith("Fix CL101"))
    fixed = _apply(AGENT, fix["edit"]["changes"][uri])
    assert "tools = [TOOLS[n] for n in sorted({'a'})]\n" in fixed
    suppress = next(a for a in actions if a["title"] == "Suppress CL101 on this line")
    assert "tools = [TOOLS[n] for n in {'a'}]  # cachelint: ignore[CL101]\n" in _apply(
        AGENT, suppress["edit"]["changes"][uri]
    )
    fix_all = next(a for a in actions if a["kind"] == "source.fixAll.cachelint")
    assert _apply(AGENT, fix_all["edit"]["changes"][uri]) == fixed

    # The fixed buffer: no finding left.
    client.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"text": fixed}]},
    )
    assert client.diagnostics_of(uri) == []

    # A SKILL.md: its front matter's finding, and the YAML comment that suppresses it.
    skill_uri = (root / "skills" / "helper" / "SKILL.md").as_uri()
    client.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": skill_uri, "languageId": "markdown", "version": 1, "text": SKILL}},
    )
    [generic] = client.diagnostics_of(skill_uri)
    assert (generic["code"], generic["range"]["start"]["line"]) == ("CL202", 2)
    [suppress_skill] = client.request(
        "textDocument/codeAction",
        {"textDocument": {"uri": skill_uri}, "range": generic["range"], "context": {"diagnostics": [generic]}},
    )
    assert _apply(SKILL, suppress_skill["edit"]["changes"][skill_uri]) == (
        "---\nname: helper\n# cachelint: ignore[CL202]\ndescription: Helps with tasks.\n---\nbody\n"
    )

    # Saved: checked again (the buffer, which a save does not change); closed: its findings cleared.
    client.notify("textDocument/didSave", {"textDocument": {"uri": skill_uri}})
    assert [d["code"] for d in client.diagnostics_of(skill_uri)] == ["CL202"]
    client.notify("textDocument/didClose", {"textDocument": {"uri": skill_uri}})
    assert client.diagnostics_of(skill_uri) == []

    # A notebook, synced cell by cell: the finding is published on its cell's document.
    nb_uri = (root / "nb.ipynb").as_uri()
    cells = [
        "import anthropic, time\nclient = anthropic.Anthropic()\n",
        "client.messages.create(model='m', max_tokens=1, system=f'{time.time()}', messages=[])\n",
    ]
    cell_uris = [f"vscode-notebook-cell:{root / 'nb.ipynb'}#C{i}" for i in range(len(cells))]
    client.notify(
        "notebookDocument/didOpen",
        {
            "notebookDocument": {
                "uri": nb_uri,
                "notebookType": "jupyter-notebook",
                "version": 1,
                "cells": [{"kind": 2, "document": u} for u in cell_uris],
            },
            "cellTextDocuments": [
                {"uri": u, "languageId": "python", "version": 1, "text": t} for u, t in zip(cell_uris, cells)
            ],
        },
    )
    assert client.diagnostics_of(cell_uris[0]) == []
    [clock] = client.diagnostics_of(cell_uris[1])
    assert clock["code"] == "CL105" and clock["range"]["start"]["line"] == 0
    assert not clock["message"].startswith("cell ")

    assert client.close() == 0
    # docs/editors.md shows this very session (CACHELINT_LSP_TRANSCRIPT=FILE writes it anew)
    assert shown_transcript(client.transcript, root) == docs_transcript()


def test_positions_are_utf16_code_units():
    from cachelint.server.protocol import utf16_column

    line = "s = '\U0001f600' + x"  # an emoji: one column for cachelint, two UTF-16 units
    assert utf16_column(line, line.index("x") + 1) == line.index("x") + 1
    assert utf16_column("abc", 3) == 2


def test_server_without_pygls_says_how_to_install_it(monkeypatch):
    import importlib.util

    from click.testing import CliRunner

    from cachelint.cli import main

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "pygls" else real(name, *a))
    result = CliRunner().invoke(main, ["server"])
    assert result.exit_code == 2
    assert result.stderr == (
        "cachelint: error: cachelint server needs pygls: pip install 'prefix-cache-lint[lsp]' (see docs/editors.md)\n"
    )


def test_a_buffer_under_a_bad_configuration_is_the_users_error_not_a_crash(tmp_path):
    from cachelint.server.buffers import Buffer, check_buffer

    write_tree(tmp_path, {"sub/cachelint.toml": "selekt = 1\n"})
    checked = check_buffer(Buffer(tmp_path / "sub" / "agent.py", AGENT, tmp_path))
    assert checked.diagnostics == []
    assert checked.error == (
        f"{os.path.realpath(tmp_path / 'sub')}/cachelint.toml: invalid configuration: (top level):"
        " Additional properties are not allowed ('selekt' was unexpected)"
    )


def test_a_buffer_is_checked_with_the_configuration_closest_to_its_file(tmp_path):
    from cachelint.server.buffers import Buffer, check_buffer

    write_tree(tmp_path, {"quiet/cachelint.toml": "ignore = ['CL101']\n"})
    loud = check_buffer(Buffer(tmp_path / "agent.py", AGENT, tmp_path))
    quiet = check_buffer(Buffer(tmp_path / "quiet" / "agent.py", AGENT, tmp_path))
    assert [d.code for d in loud.diagnostics] == ["CL101"] and quiet.diagnostics == []
    fixed = check_buffer(Buffer(tmp_path / "agent.py", AGENT, tmp_path), fix=True)
    assert fixed.fixed_text == AGENT.replace("in {'a'}]", "in sorted({'a'})]") and fixed.diagnostics == []
    assert not (tmp_path / "agent.py").exists()
