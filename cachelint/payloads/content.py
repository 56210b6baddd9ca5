"""A prompt's content as observability tools log it, before it is rebuilt in a provider's request
shape (``cachelint.payloads.providers``: each provider's ``ContentShape``): the parts of a message
(``Part``), JSON held as text, and values whose key order the log did not keep (``sorted_keys``)."""

from __future__ import annotations

from typing import Any

from cachelint.payloads.jsonio import dumps, loads


def json_value(value: Any) -> Any:
    """A value that a log may hold as JSON text or already decoded: the decoded value (None when
    the text is not JSON)."""
    if isinstance(value, (str, bytes, bytearray)):
        try:
            return loads(value)
        except (ValueError, RecursionError):
            return None
    return value


def sorted_keys(value: Any) -> Any:
    """A copy with every object's keys sorted: content-level logs do not keep the wire's key
    order, so none is compared."""
    if not isinstance(value, (dict, list)):
        return value
    try:
        import orjson

        return orjson.loads(orjson.dumps(value, option=orjson.OPT_SORT_KEYS))  # the whole tree at C speed
    except (ImportError, TypeError, ValueError):
        pass
    if isinstance(value, dict):
        return {k: sorted_keys(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [sorted_keys(v) for v in value]
    return value


class Part:
    """One part of a message in a content-level log: ``text``, ``tool_call`` (``id``, ``name``,
    ``arguments``), ``tool_result`` (``id``, ``content``) or ``other`` (a value kept as it is)."""

    __slots__ = ("kind", "text", "id", "name", "arguments", "value")

    def __init__(
        self, kind: str, text: str = "", id: Any = None, name: Any = None, arguments: Any = None, value: Any = None
    ) -> None:
        self.kind = kind
        self.text = text
        self.id = id
        self.name = name
        self.arguments = arguments
        self.value = value


def text_parts(content: Any) -> list[Part]:
    """Message content as logs write it (a string, a list of typed parts, OpenAI parts) as Parts."""
    if content is None:
        return []
    if isinstance(content, str):
        return [Part("text", content)]
    if isinstance(content, list):
        parts: list[Part] = []
        for item in content:
            if isinstance(item, str):
                parts.append(Part("text", item))
            elif isinstance(item, dict):
                kind = item.get("type")
                if kind in ("text", "input_text", "output_text") or (
                    kind is None and isinstance(item.get("text"), str)
                ):
                    parts.append(Part("text", str(item.get("text", item.get("content", "")))))
                elif kind == "tool_use":
                    parts.append(
                        Part("tool_call", id=item.get("id"), name=item.get("name"), arguments=item.get("input"))
                    )
                elif kind == "tool_result":
                    parts.append(Part("tool_result", id=item.get("tool_use_id"), value=item.get("content")))
                else:
                    parts.append(
                        Part("other", value=sorted_keys({k: v for k, v in item.items() if k != "cache_control"}))
                    )
        return parts
    return [Part("other", value=sorted_keys(content))]


def arguments_value(value: Any) -> Any:
    """A tool call's arguments as a value (JSON text decoded), its keys sorted."""
    decoded = json_value(value) if isinstance(value, str) else value
    return sorted_keys(decoded if decoded is not None else value)


def result_text(value: Any) -> Any:
    """A tool result's content: its text parts joined, or the value with its keys sorted."""
    if isinstance(value, list) and all(isinstance(v, dict) and v.get("type") == "text" for v in value):
        return "".join(str(v.get("text", "")) for v in value)
    return value if isinstance(value, str) else sorted_keys(value)


def arguments_text(value: Any) -> str:
    """A tool call's arguments as OpenAI sends them: JSON text, keys sorted."""
    decoded = json_value(value) if isinstance(value, str) else value
    if decoded is None and isinstance(value, str):
        return value
    return dumps(sorted_keys(decoded)).decode("utf-8", "replace")
