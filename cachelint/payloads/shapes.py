"""What an input file is when it is not a request log the readers understand, asked only where
the audit would otherwise say nothing useful: ``not_a_log(name, head)``, a file given to
``cachelint audit`` whose first bytes are not JSON (for the JSON formats) — Python, Markdown, TOML,
HTML, a notebook… One CL001 naming what it looks like, instead of one "not valid JSON" per line;
``not_a_cassette(doc)``, a YAML document that is not a VCR cassette. What a *record* is when no
reader or provider took it: ``cachelint.payloads.formats.unread``.
"""

from __future__ import annotations

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
    if suffix not in _SUFFIX_KINDS and any(line.lstrip()[:1] in (b"{", b"[") for line in text.splitlines()[:50]):
        return None  # a log whose first line is damaged (cut by a rotation): its other lines are read
    if named:
        kind = _SUFFIX_KINDS[suffix]
    elif b"\x00" in text[:8192]:
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
