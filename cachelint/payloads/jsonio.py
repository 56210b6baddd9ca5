"""JSON with orjson (a dependency; the standard library if it cannot be imported).

Key order is always kept (wire bytes are the truth); output is compact UTF-8 bytes."""

from __future__ import annotations

import json
from typing import Any

try:  # orjson is 5-10x faster on the audit's hot path (docs/benchmarks.md); optional
    import orjson as _orjson
except ImportError:  # pragma: no cover - exercised only without the extra
    _orjson = None  # type: ignore[assignment]

JSONDecodeError: tuple[type[Exception], ...] = (ValueError,)
# The JSONL reuse decoder (cachelint.payloads.reuse) needs orjson's error positions on memoryviews.
FAST = _orjson is not None


def loads(data: bytes | bytearray | str) -> Any:
    """Parse JSON. Raises ValueError (orjson.JSONDecodeError is a ValueError) or RecursionError."""
    if _orjson is not None:
        return _orjson.loads(data)
    return json.loads(data)


def dumps(value: Any) -> bytes:
    """Compact JSON bytes, key order as in the value, non-ASCII kept as UTF-8."""
    if _orjson is not None:
        try:
            return _orjson.dumps(value)
        except TypeError:
            pass  # integers beyond 64 bits, etc.: fall back to the standard library
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
