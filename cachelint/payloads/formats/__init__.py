"""Log formats of the tools teams already run: observability exports, gateway logs, batch files,
provider logs, agent transcripts. Each module of this package is one format and defines
``FORMAT``, a ``LogFormat`` (``_registry``): how to recognise a record of it, and how to turn a
record into the ``Record`` (request body, response, time, session key) the audit reads.

The registry's functions (``registry``, ``get``, ``match``, ``detect``, ``read_records``,
``resemblance``…) and types (``LogFormat``, ``ReadContext``, ``Joins``) are reached through this
package; they are imported on first use, so that the CLI can list the names without them.
"""

from __future__ import annotations

from typing import Any

# Every format's name, in detection order where two formats could claim one record (the narrower
# shape first). Spelled out so that the CLI can offer them without importing the modules (a test
# checks it against the modules).
NAMES = (
    "claude-code",
    "codex",
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
    "otel-genai",
    "openllmetry",
    "zhar",
)


def __getattr__(name: str) -> Any:
    import importlib

    if name.startswith("__"):
        raise AttributeError(name)
    _registry = importlib.import_module(f"{__name__}._registry")
    try:
        return getattr(_registry, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
