"""Fixtures of the proxy's tests: a fake upstream and the proxy in front of it (tests/proxy/helpers.py)."""

from __future__ import annotations

import pytest

pytest.importorskip("aiohttp")

from .helpers import FakeUpstream, routes_to, start_proxy


@pytest.fixture
def upstream():
    server = FakeUpstream().start()
    yield server
    server.stop()


@pytest.fixture
def proxy(tmp_path, upstream):
    server, reports = start_proxy(tmp_path / "capture.jsonl", routes_to(upstream.url))
    server.reports = reports
    yield server
    server.stop()
