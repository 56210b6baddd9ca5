"""Routing as data: where a path goes, what a child is told, which address is this machine; and the
proxy's place in the package (the base install never imports aiohttp; one module reaches into the
audit)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from cachelint.catalog import load_packs
from cachelint.proxy.routes import RouteTable, is_loopback, parse_listen

PACKAGE = Path(__file__).resolve().parents[2] / "cachelint"
DOCS = Path(__file__).resolve().parents[2] / "docs"


@pytest.fixture
def table() -> RouteTable:
    return RouteTable.from_packs(load_packs("proxy-upstreams"))


@pytest.mark.parametrize(
    ("path", "headers", "upstream", "url"),
    [
        ("/anthropic/v1/messages", {}, "anthropic", "https://api.anthropic.com/v1/messages"),
        ("/anthropic/messages", {}, "anthropic", "https://api.anthropic.com/v1/messages"),
        ("/openai/v1/responses", {}, "openai", "https://api.openai.com/v1/responses"),
        ("/openai/responses", {}, "openai", "https://api.openai.com/v1/responses"),
        ("/gemini/v1beta/models/gemini-2.5-pro:generateContent", {}, "gemini",
         "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:generateContent"),
        # no route prefix: the headers, then the path
        ("/v1/models", {"anthropic-version": "2023-06-01"}, "anthropic", "https://api.anthropic.com/v1/models"),
        ("/v1/models", {}, "openai", "https://api.openai.com/v1/models"),
        ("/v1beta/models", {}, "gemini", "https://generativelanguage.googleapis.com/v1beta/models"),
        ("/v1/models/gemini-2.5-pro:countTokens", {}, "gemini",
         "https://generativelanguage.googleapis.com/v1/models/gemini-2.5-pro:countTokens"),
    ],
)  # fmt: skip
def test_a_path_goes_to_its_upstream(table, path, headers, upstream, url):
    target = table.target(path, headers)
    assert target is not None and (target.upstream.name, target.url) == (upstream, url)


def test_a_path_no_upstream_claims_has_no_target(table):
    assert table.target("/metrics", {}) is None and table.target("/v2/chat", {}) is None


def test_a_gateway_keeps_its_own_path_and_a_new_route_is_found_by_prefix(table):
    routed = table.with_urls({"openai": "https://gateway.example/api/v1", "local": "http://127.0.0.1:11434/v1"})
    assert routed.target("/openai/v1/chat/completions", {}).url == "https://gateway.example/api/v1/chat/completions"
    assert routed.target("/local/chat/completions", {}).url == "http://127.0.0.1:11434/v1/chat/completions"
    assert routed.target("/v1/messages", {}).url == "https://api.anthropic.com/v1/messages"  # the others unchanged


def test_the_base_urls_already_set_become_the_upstreams(table):
    found = table.urls_from_environment(
        {
            "OPENAI_API_BASE": "https://legacy.example/v1",
            "OPENAI_BASE_URL": "https://gw.example/v1",
            "GEMINI_API_BASE": "",
        }
    )
    assert found == {"openai": "https://gw.example/v1"}  # the first variable of the pack that is set wins


def test_the_child_is_told_every_variable_in_the_form_its_readers_expect(table):
    env = table.child_environment("http://127.0.0.1:9")
    assert env == {
        "ANTHROPIC_BASE_URL": "http://127.0.0.1:9/anthropic",
        "ANTHROPIC_API_BASE": "http://127.0.0.1:9/anthropic",
        "OPENAI_BASE_URL": "http://127.0.0.1:9/openai/v1",
        "OPENAI_API_BASE": "http://127.0.0.1:9/openai/v1",
        "GOOGLE_GEMINI_BASE_URL": "http://127.0.0.1:9/gemini",
        "GEMINI_API_BASE": "http://127.0.0.1:9/gemini",
    }


def test_every_variable_is_in_the_documented_table(table):
    text = (DOCS / "capture.md").read_text(encoding="utf-8")
    for variable in table.variables:
        assert f"| `{variable.name}` |" in text


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("8787", ("127.0.0.1", 8787)),
        (":0", ("127.0.0.1", 0)),
        ("localhost:1", ("localhost", 1)),
        ("[::1]:80", ("::1", 80)),
    ],
)
def test_listen_addresses_parse(value, expected):
    assert parse_listen(value) == expected


@pytest.mark.parametrize("value", ["host", "1.2.3.4:x", "1.2.3.4:70000"])
def test_bad_listen_addresses_are_refused(value):
    with pytest.raises(ValueError):
        parse_listen(value)


def test_only_this_machine_counts_as_loopback():
    assert all(is_loopback(h) for h in ("127.0.0.1", "127.9.9.9", "::1", "[::1]", "localhost"))
    assert not any(is_loopback(h) for h in ("0.0.0.0", "::", "192.168.1.2", "10.0.0.1", "example.com"))


def test_the_linter_never_imports_aiohttp():
    code = "import sys, cachelint.cli, cachelint.api, cachelint.proxy.launch; print('aiohttp' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_one_module_of_the_proxy_reaches_into_the_audit():
    """The live report goes through the audit's public functions, from live.py alone: a change of
    the audit's pipeline meets the proxy in one place."""
    reaching = []
    for path in sorted((PACKAGE / "proxy").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("cachelint.payloads"):
                reaching.append(path.name)
    assert set(reaching) == {"live.py"}
