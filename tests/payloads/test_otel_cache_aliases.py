"""Span exports name the cache counts in several ways (the OpenTelemetry GenAI conventions' dotted
names, OpenLLMetry's and Strands' underscore names, Sentry's ``input_tokens.cached``): each is
read, and the same spans give the same usage whichever names they carry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cachelint.payloads.formats.common import otel_cache_tokens

SAMPLES = Path(__file__).parent / "format_samples"
OTEL = SAMPLES / "otel-genai-collector" / "timestamp" / "otel-genai-collector.jsonl"
OPENLLMETRY = SAMPLES / "openllmetry" / "timestamp" / "openllmetry-collector.jsonl"


@pytest.mark.parametrize(
    ("attrs", "expected"),
    [
        ({"gen_ai.usage.cache_read.input_tokens": 5, "gen_ai.usage.cache_creation.input_tokens": 7}, (5, 7)),
        ({"gen_ai.usage.cache_read_input_tokens": 5, "gen_ai.usage.cache_creation_input_tokens": 7}, (5, 7)),
        ({"gen_ai.usage.cache_read_input_tokens": 5, "gen_ai.usage.cache_write_input_tokens": 7}, (5, 7)),
        ({"gen_ai.usage.input_tokens.cached": 5, "gen_ai.usage.input_tokens.cache_write": 7}, (5, 7)),
        ({"gen_ai.usage.input_tokens": 9}, (None, None)),
    ],
)
def test_every_alias_is_read(attrs, expected):
    assert otel_cache_tokens(attrs) == expected


def _usage_of(tmp_path: Path, text: str, name: str) -> dict:
    from cachelint.api import audit_logs
    from cachelint.config import load_settings

    (tmp_path / name).write_text(text)
    result = audit_logs([name], settings=load_settings(tmp_path, isolated=True), cwd=tmp_path)
    return result.summary.to_dict()["usage"]["total"]["tokens"]


@pytest.mark.parametrize(
    ("sample", "renames"),
    [
        (
            OTEL,
            {
                "cache_read.input_tokens": "input_tokens.cached",
                "cache_creation.input_tokens": "input_tokens.cache_write",
            },
        ),
        (
            OTEL,
            {
                "cache_read.input_tokens": "cache_read_input_tokens",
                "cache_creation.input_tokens": "cache_write_input_tokens",
            },
        ),
        (
            OPENLLMETRY,
            {
                "cache_read_input_tokens": "cache_read.input_tokens",
                "cache_creation_input_tokens": "cache_creation.input_tokens",
            },
        ),
    ],
)
def test_the_same_spans_under_other_names_give_the_same_usage(tmp_path, sample, renames):
    text = sample.read_text()
    renamed = text
    for old, new in renames.items():
        renamed = renamed.replace(f'"key":"gen_ai.usage.{old}"', f'"key":"gen_ai.usage.{new}"')
    assert renamed != text
    original = _usage_of(tmp_path, text, "a.jsonl")
    assert original["read"] > 0 and original["written"] > 0
    assert _usage_of(tmp_path, renamed, "b.jsonl") == original
    json.loads(renamed.splitlines()[0])  # still a span export
