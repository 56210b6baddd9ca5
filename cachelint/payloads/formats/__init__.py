"""Every log format cachelint reads, one module each, in one registry (``registry``): the generic
ones (``jsonl``, ``json``, ``har``, ``vcr``) and those of the tools teams already run
(observability exports, gateway logs, batch files, provider logs, agent transcripts). Each format
module defines ``FORMAT``, a ``LogFormat``: how to recognise a record of it, and how to turn a
record into the ``Record`` (request body, response, time, session key) the audit reads.

The registry's functions (``all_formats``, ``get``, ``match``, ``resolve``, ``read_log``,
``sniff_format``, ``read_records``…) and types (``LogFormat``, ``ReadContext``, ``Joins``) are
reached through this package; they are imported on first use, so that the CLI can list the names
without them. What a skipped record looks like: ``unread``; what the audit does with the formats
besides reading them (side files, fidelity): ``run``; what the format modules share: ``common``,
``stream``.
"""

from __future__ import annotations

from typing import Any

# Every format's name: the generic formats, then the others in detection order where two formats
# could claim one record (the narrower shape first). Spelled out so that the CLI can offer them
# without importing the modules (a test checks it against the modules).
NAMES = (
    "jsonl",
    "json",
    "har",
    "vcr",
    "claude-code",
    "codex",
    "gemini-cli",
    "opencode",
    "bedrock-invocation",
    "helicone",
    "anthropic-batch-results",
    "anthropic-batch",
    "openai-batch-output",
    "openai-batch",
    "litellm",
    "langsmith",
    "langfuse",
    "otlp",
    "openinference",
    "vercel-ai",
    "otel-genai",
    "openllmetry",
    "zhar",
    "nock",
    "httprr",
    "inspect",
    "inspect-archive",
    "parquet",
)


def __getattr__(name: str) -> Any:
    import importlib

    if name.startswith("__"):
        raise AttributeError(name)
    registry = importlib.import_module(f"{__name__}.registry")
    try:
        return getattr(registry, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
