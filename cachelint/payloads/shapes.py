"""What an input is when it is not a request log the readers understand.

Two questions, asked only on the paths where the audit would otherwise say nothing useful:

- ``not_a_log(name, head)``: a file given to ``cachelint audit`` whose first bytes are not JSON
  (for the JSON formats) — Python, Markdown, TOML, HTML, a notebook… One CL001 naming what it looks
  like, instead of one "not valid JSON" per line.
- ``unread_shape(record)``: a record that no provider adapter took. Most are traffic that is not an
  LLM call (telemetry, embeddings, uploads), skipped and counted; but some are LLM logs in a shape
  the readers do not read (an observability export, an agent's transcript, responses without their
  requests, a request body nested under other keys). Those are named and counted, so that an audit
  that read nothing says what it saw.
"""

from __future__ import annotations

import json
import re
from typing import Any, Mapping

_SUFFIX_KINDS = {
    ".py": "Python source",
    ".pyi": "Python stub",
    ".ipynb": "a Jupyter notebook",
    ".md": "Markdown",
    ".markdown": "Markdown",
    ".rst": "reStructuredText",
    ".txt": "plain text",
    ".toml": "TOML",
    ".cfg": "an INI file",
    ".ini": "an INI file",
    ".js": "JavaScript source",
    ".mjs": "JavaScript source",
    ".ts": "TypeScript source",
    ".html": "HTML",
    ".htm": "HTML",
    ".csv": "CSV",
    ".sh": "a shell script",
    ".xml": "XML",
}

# Files the other command reads: say so in the message.
_CHECKED_BY_CHECK = {".py", ".pyi", ".ipynb", ".md", ".markdown"}

_PYTHON = re.compile(
    rb"^(?:#!.*python|from\s+[\w.]+\s+import\s|import\s+[\w.]+|def\s+\w+\s*\(|class\s+\w+[\s:(]|async\s+def\s)", re.M
)


def not_a_log(name: str, head: bytes) -> str | None:
    """How to describe a file whose first bytes (``head``, decompressed) are not JSON, for a
    one-line CL001; None when they start like JSON (a log, or at least worth parsing)."""
    text = head[3:] if head.startswith(b"\xef\xbb\xbf") else head
    stripped = text.lstrip(b" \t\r\n")
    lower = name.lower()
    if lower.endswith(".gz"):
        lower = lower[:-3]
    suffix = lower[lower.rfind(".") :] if "." in lower.rsplit("/", 1)[-1] else ""
    # a name no log has (TOML starts with "[", a notebook is JSON): said whatever the bytes
    named = suffix in _SUFFIX_KINDS and suffix != ".txt"
    if not stripped or (stripped[:1] in (b"{", b"[") and not named):
        return None
    # JSON text holds no NUL byte (control characters are escaped inside strings): a file with
    # one is binary, whatever its random lines start with (one in 128 starts with "{" or "["),
    # unless a whole line of it is JSON (a log whose unflushed blocks a crash left as NULs).
    lines = text.splitlines()[:50]
    binary = b"\x00" in text[:8192] and not any(_is_json_line(line) for line in lines[:-1])
    if not binary and suffix not in _SUFFIX_KINDS and any(line.lstrip()[:1] in (b"{", b"[") for line in lines):
        return None  # a log whose first line is damaged (cut by a rotation): its other lines are read
    if named:
        kind = _SUFFIX_KINDS[suffix]
    elif head.startswith((b"\xff\xfe", b"\xfe\xff")):
        kind = "UTF-16 text (save the log as UTF-8)"  # what Windows PowerShell 5 redirects write
    elif binary:
        kind = "a binary file"
    elif suffix in _SUFFIX_KINDS:
        kind = _SUFFIX_KINDS[suffix]
    elif _PYTHON.search(text[:8192]):
        kind = "Python source"
    elif stripped.startswith((b"<!DOCTYPE", b"<!doctype", b"<html", b"<?xml")):
        kind = "HTML or XML"
    elif stripped.startswith(b"#") or stripped.startswith(b"---\n"):
        kind = "Markdown or plain text"
    else:
        kind = "plain text"
    message = f"not a request log: {kind} (cachelint audit reads JSONL, JSON, HAR and VCR cassettes; see docs/audit.md)"
    if suffix in _CHECKED_BY_CHECK:
        message += f"; check code and skill files with `cachelint check {name}`"
    return message


def _is_json_line(line: bytes) -> bool:
    stripped = line.strip(b" \t\r\x00")
    if stripped[:1] not in (b"{", b"["):
        return False
    try:
        json.loads(stripped)
    except ValueError:
        return False
    return True


def not_a_cassette(doc: Any) -> str:
    """The CL001 message for a YAML document that is not a VCR cassette."""
    if isinstance(doc, Mapping):
        # YAML 1.1 reads the key `on` (a GitHub workflow's trigger) as True
        keys = (
            ", ".join(
                sorted({True: "on", False: "off"}.get(k, str(k)) if isinstance(k, bool) else str(k) for k in doc)[:6]
            )
            or "none"
        )
        what = f"a YAML mapping with the keys {keys}"
    elif isinstance(doc, list):
        what = f"a YAML list of {len(doc)} item(s)"
    elif doc is None:
        what = "an empty YAML document"
    else:
        what = f"a YAML {type(doc).__name__}"
    return f"not a request log: {what}, not a VCR cassette (a cassette has an 'interactions' list; see docs/audit.md)"


def unread_shape(request: Any, response: Any = None) -> str | None:
    """The name of the LLM log shape a record has when no provider adapter took it, or None for
    traffic that is not an LLM call. ``request``: the record's body; ``response``: its response."""
    if request is None:
        if isinstance(response, Mapping) and _is_response(response.get("body")):
            return "OpenAI Batch output (responses only, without their requests)"
        return None
    if not isinstance(request, Mapping):
        return None
    from cachelint.payloads.formats import _registry

    fmt = _registry.match(dict(request))
    if fmt is not None:  # a log format cachelint reads, met inside a file read as another
        return f"{fmt.title} (audit it with --input-format {fmt.name})"
    kind = request.get("type")
    if (
        kind in ("user", "assistant", "summary", "system")
        and isinstance(request.get("message"), Mapping)
        and ("sessionId" in request or "uuid" in request or "parentUuid" in request)
    ):
        return "Claude Code transcript (the conversation, not the requests sent)"
    if kind in ("session_meta", "response_item", "event_msg", "turn_context", "compacted") and "payload" in request:
        return "Codex CLI rollout (the conversation, not the requests sent)"
    if "resourceSpans" in request or "scopeSpans" in request:
        return "OpenTelemetry traces (OTLP JSON)"
    attributes = _attribute_keys(request.get("attributes"))
    if any(k.startswith("gen_ai.") for k in attributes):
        return "OpenTelemetry GenAI span"
    if any(k.startswith(("llm.", "openinference.")) for k in attributes):
        return "OpenInference span"
    if "run_type" in request and ("inputs" in request or "outputs" in request):
        return "LangSmith run"
    if str(kind).upper() == "GENERATION" or (
        "observations" in request and isinstance(request.get("observations"), list)
    ):
        return "Langfuse export"
    if "op_name" in request and "inputs" in request:
        return "W&B Weave call"
    if "custom_id" in request and isinstance(request.get("result"), Mapping):
        return "Anthropic Message Batches result (responses only, without their requests)"
    if _is_response(request):
        return "a response body without its request"
    nested = _nested_request(request, 0, "")
    if nested:
        where, as_text = nested
        return f"a request body nested under '{where}'" + (" (as a JSON string)" if as_text else "")
    return None


def _attribute_keys(attributes: Any) -> list[str]:
    if isinstance(attributes, Mapping):
        return [str(k) for k in attributes]
    if isinstance(attributes, list):  # OTLP: [{"key": ..., "value": {...}}]
        return [str(a.get("key")) for a in attributes[:200] if isinstance(a, Mapping)]
    return []


def _is_response(value: Any) -> bool:
    if not isinstance(value, Mapping):
        return False
    if value.get("type") == "message" and value.get("role") == "assistant" and "content" in value:
        return True  # Anthropic Messages
    if value.get("object") in ("chat.completion", "chat.completion.chunk", "response"):
        return True  # OpenAI Chat Completions, Responses
    return "candidates" in value and "usageMetadata" in value  # Gemini


def _looks_like_body(value: Mapping[str, Any]) -> bool:
    """A request body as the provider adapters read one: a model and messages, contents or input."""
    if isinstance(value.get("contents"), list):
        return True
    return "model" in value and (isinstance(value.get("messages"), list) or "input" in value)


def _nested_request(
    value: Mapping[str, Any], depth: int, path: str, budget: list[int] | None = None
) -> tuple[str, bool] | None:
    """(dotted path, held as a JSON string) of a request body inside ``value`` (at most three
    levels down, at most 500 values looked at: a skipped record costs little however wide it is),
    or None."""
    budget = budget if budget is not None else [500]
    if depth > 3:
        return None
    for key in list(value)[:50]:
        budget[0] -= 1
        if budget[0] < 0:
            return None
        child = value[key]
        where = f"{path}.{key}" if path else str(key)
        if isinstance(child, Mapping):
            if _looks_like_body(child):
                return where, False
            found = _nested_request(child, depth + 1, where, budget)
            if found:
                return found
        elif isinstance(child, str) and depth < 2 and child[:1] == "{" and '"model"' in child[:4096]:
            return where, True
    return None
