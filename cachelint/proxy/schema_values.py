"""The smallest arguments a tool's JSON Schema accepts: what the scripted model calls a tool with
when its script gives none.

Required properties only, each at its smallest (``""``, ``0``, ``false``, ``[]``), raised to what
``minLength``, ``minimum``, ``minItems``, ``enum``, ``const`` and ``format`` ask; ``$ref``,
``allOf``, ``anyOf`` and ``oneOf`` followed. Gemini's schema dialect (OpenAPI's, with upper-case
type names: https://ai.google.dev/api/caching#Schema) is read alike. The value is checked with
jsonschema; ``pattern`` is the one keyword this cannot always satisfy, and ``minimal_arguments``
says so rather than pretend.
"""

from __future__ import annotations

import math
import re
from typing import Any, Iterator, Mapping

# Past this depth a required property that refers back to its own schema gets null: a recursive
# schema that requires itself has no finite instance anyway.
MAX_DEPTH = 12

_FORMATS = {
    "date-time": "2026-01-01T00:00:00Z",
    "date": "2026-01-01",
    "time": "00:00:00Z",
    "duration": "P1D",
    "email": "user@example.com",
    "idn-email": "user@example.com",
    "hostname": "example.com",
    "idn-hostname": "example.com",
    "ipv4": "127.0.0.1",
    "ipv6": "::1",
    "uri": "https://example.com/",
    "uri-reference": "https://example.com/",
    "iri": "https://example.com/",
    "url": "https://example.com/",
    "uuid": "00000000-0000-4000-8000-000000000000",
    "regex": ".*",
    "json-pointer": "",
}
_TYPE_ORDER = ("object", "string", "integer", "number", "boolean", "array", "null")


def minimal_arguments(schema: Any) -> tuple[dict[str, Any], str | None]:
    """(arguments valid for ``schema``, None) — or (the closest arguments found, why they are not
    valid) when the schema asks for what cannot be made (a ``pattern``, a contradiction)."""
    if not isinstance(schema, Mapping):
        return {}, None
    value = minimal_value(schema, schema)
    if not isinstance(value, dict):
        value = {}
    problem = validation_problem(schema, value)
    return value, problem


def validation_problem(schema: Mapping[str, Any], value: Any) -> str | None:
    """jsonschema's first complaint about ``value``, or None when it is valid (or the schema
    itself is not one jsonschema can use)."""
    import jsonschema

    try:
        validator_class = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        error = jsonschema.exceptions.best_match(validator_class(_json_schema(schema)).iter_errors(value))
    except (jsonschema.exceptions.SchemaError, jsonschema.exceptions.RefResolutionError, TypeError, ValueError):
        return None
    return None if error is None else error.message


def minimal_value(schema: Any, root: Mapping[str, Any], depth: int = 0) -> Any:
    if not isinstance(schema, Mapping) or depth > MAX_DEPTH:
        return None if depth > MAX_DEPTH else ""
    if "$ref" in schema:
        target = _resolve(root, schema["$ref"])
        return minimal_value(target if target is not None else {}, root, depth + 1)
    for key in ("const",):
        if key in schema:
            return schema[key]
    for key in ("enum", "examples"):
        options = schema.get(key)
        if isinstance(options, list) and options:
            return options[0]
    if "default" in schema:
        return schema["default"]
    if isinstance(schema.get("allOf"), list):
        merged = _merge([schema, *schema["allOf"]], root)
        return minimal_value(merged, root, depth + 1)
    for key in ("anyOf", "oneOf"):
        options = schema.get(key)
        if isinstance(options, list) and options:
            rest = {k: v for k, v in schema.items() if k != key}
            for option in options:
                candidate = minimal_value(_merge([rest, option], root), root, depth + 1)
                if validation_problem(_json_schema_at(root, option), candidate) is None:
                    return candidate
            return minimal_value(_merge([rest, options[0]], root), root, depth + 1)
    kind = _type_of(schema)
    if kind == "object":
        return _object(schema, root, depth)
    if kind == "array":
        return _array(schema, root, depth)
    if kind == "string":
        return _string(schema)
    if kind in ("integer", "number"):
        return _number(schema, kind == "integer")
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    return ""


def _type_of(schema: Mapping[str, Any]) -> str | None:
    declared = schema.get("type")
    if isinstance(declared, list):
        names = [str(t).lower() for t in declared]
        for name in _TYPE_ORDER:  # null last: a value says more than its absence
            if name in names:
                return name
        return None
    if isinstance(declared, str):
        return declared.lower()  # Gemini's OpenAPI dialect writes OBJECT, STRING…
    if "properties" in schema or "required" in schema:
        return "object"
    if "items" in schema or "prefixItems" in schema:
        return "array"
    return None


def _object(schema: Mapping[str, Any], root: Mapping[str, Any], depth: int) -> dict[str, Any]:
    properties: Mapping[str, Any] = schema["properties"] if isinstance(schema.get("properties"), Mapping) else {}
    required = [name for name in schema.get("required") or () if isinstance(name, str)]
    value = {name: minimal_value(properties.get(name, {}), root, depth + 1) for name in required}
    wanted = schema.get("minProperties")
    if isinstance(wanted, int):
        for name, sub in properties.items():
            if len(value) >= wanted:
                break
            value.setdefault(name, minimal_value(sub, root, depth + 1))
    return value


def _array(schema: Mapping[str, Any], root: Mapping[str, Any], depth: int) -> list[Any]:
    count = _count(schema.get("minItems"))
    prefix: list[Any] = schema["prefixItems"] if isinstance(schema.get("prefixItems"), list) else []
    items = schema.get("items", {})
    out = []
    for i in range(count):
        sub = prefix[i] if i < len(prefix) else (items if isinstance(items, Mapping) else {})
        item = minimal_value(sub, root, depth + 1)
        if schema.get("uniqueItems"):
            item = _distinct(item, i)
        out.append(item)
    return out


def _distinct(value: Any, index: int) -> Any:
    """The ``index``-th of several items a ``uniqueItems`` array needs, all alike but for this."""
    if index == 0:
        return value
    if isinstance(value, bool):
        return not value if index == 1 else value
    if isinstance(value, (int, float)):
        return value + index
    if isinstance(value, str):
        return value + "a" * index
    return value


def _count(value: Any) -> int:
    """A ``minItems`` / ``minLength``: a non-negative integer, else 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _string(schema: Mapping[str, Any]) -> str:
    length = _count(schema.get("minLength"))
    fmt = schema.get("format")
    if isinstance(fmt, str) and fmt.lower() in _FORMATS:
        text = _FORMATS[fmt.lower()]
        return text + "0" * max(0, length - len(text))
    pattern = schema.get("pattern")
    if isinstance(pattern, str):
        for text in _pattern_candidates(pattern, length):
            try:
                if re.search(pattern, text):
                    return text
            except re.error:
                break
    return "a" * length


def _pattern_candidates(pattern: str, length: int) -> Iterator[str]:
    """Strings to try against a ``pattern``: the shortest one its regular expression spells out,
    then runs of one kind of character (three capitals, digits, an identifier…)."""
    spelled = shortest_match(pattern)
    if spelled is not None:
        yield spelled + "a" * max(0, length - len(spelled))
    for size in dict.fromkeys((length, *range(max(length, 1), max(length, 1) + 16))):
        for unit in ("a", "A", "0", "a0", "Aa0", "a-", "a_", "a."):
            yield (unit * size)[:size]


def shortest_match(pattern: str) -> str | None:
    """A short string ``pattern`` matches, spelled from its parsed form (each repeat at its
    minimum, the first branch, the first character of a class); None for what it cannot spell
    (look-arounds, back-references). Python's own parser reads the pattern."""
    import importlib

    try:
        parser = importlib.import_module("re._parser")
    except ImportError:  # Python 3.10 keeps it under its old name
        parser = importlib.import_module("sre_parse")
    try:
        return _spell(parser.parse(pattern), parser)
    except Exception:  # noqa: BLE001 - a construct this does not spell: fall back to plain runs
        return None


def _spell(items: Any, parser: Any) -> str:
    constants = parser
    out = []
    for op, arg in items:
        name = str(op)
        if name == "LITERAL":
            out.append(chr(arg))
        elif name == "NOT_LITERAL":
            out.append("a" if chr(arg) != "a" else "b")
        elif name == "ANY":
            out.append("a")
        elif name == "IN":
            out.append(_class_member(arg))
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, _, sub = arg
            out.append(_spell(sub, constants) * low)
        elif name == "SUBPATTERN":
            out.append(_spell(arg[-1], constants))
        elif name == "ATOMIC_GROUP":
            out.append(_spell(arg, constants))
        elif name == "BRANCH":
            out.append(_spell(arg[1][0], constants))
        elif name == "AT":
            continue
        else:
            raise ValueError(name)
    return "".join(out)


def _class_member(items: Any) -> str:
    """A character of a ``[...]`` class (or of ``\\d``, ``\\w``, ``\\s``)."""
    if items and str(items[0][0]) == "NEGATE":
        excluded = set()
        for op, arg in items[1:]:
            if str(op) == "LITERAL":
                excluded.add(chr(arg))
            elif str(op) == "RANGE":
                excluded.update(chr(c) for c in range(arg[0], arg[1] + 1))
            else:
                raise ValueError(str(op))
        return next(c for c in "a0A_-. " if c not in excluded)
    op, arg = items[0]
    if str(op) == "LITERAL":
        return chr(arg)
    if str(op) == "RANGE":
        return chr(arg[0])
    if str(op) == "CATEGORY":
        return {"CATEGORY_DIGIT": "0", "CATEGORY_SPACE": " ", "CATEGORY_WORD": "a"}.get(str(arg), "a")
    raise ValueError(str(op))


def _number(schema: Mapping[str, Any], integer: bool) -> int | float:
    """0 when the bounds allow it, else the value nearest to it that they and ``multipleOf`` do."""
    low, low_open = _bound(schema, "minimum", "exclusiveMinimum", max)
    high, high_open = _bound(schema, "maximum", "exclusiveMaximum", min)
    step = schema.get("multipleOf")
    step = step if isinstance(step, (int, float)) and not isinstance(step, bool) and step > 0 else None
    unit = step or (1 if integer else 0.5)

    def fits(value: float) -> bool:
        if low is not None and (value < low or (low_open and value == low)):
            return False
        if high is not None and (value > high or (high_open and value == high)):
            return False
        return step is None or abs(value / step - round(value / step)) < 1e-9

    candidates: list[float] = [0]
    if low is not None:
        start = math.ceil(low / unit) * unit
        candidates += [start, start + unit]
    if high is not None:
        start = math.floor(high / unit) * unit
        candidates += [start, start - unit]
    for value in candidates:
        if fits(value):
            return int(value) if integer else value
    return int(candidates[-1]) if integer else candidates[-1]


def _bound(schema: Mapping[str, Any], closed: str, open_: str, tighter: Any) -> tuple[float | None, bool]:
    """(the bound, whether it is exclusive) from ``minimum`` / ``exclusiveMinimum`` (or the
    maximum pair); draft 4's boolean ``exclusiveMinimum`` makes ``minimum`` exclusive."""
    values = []
    if _is_number(schema.get(closed)):
        values.append((schema[closed], schema.get(open_) is True))
    if _is_number(schema.get(open_)):
        values.append((schema[open_], True))
    if not values:
        return None, False
    best = tighter(v for v, _ in values)
    return best, any(v == best and is_open for v, is_open in values)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _resolve(root: Mapping[str, Any], ref: Any) -> Any:
    """A local ``$ref`` (``#/$defs/x``, ``#/definitions/x``, ``#``), or None."""
    if not isinstance(ref, str) or not ref.startswith("#"):
        return None
    node: Any = root
    for part in ref[1:].split("/")[1:]:
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


def _merge(parts: list[Any], root: Mapping[str, Any]) -> dict[str, Any]:
    """One schema that asks what every part asks (as far as the minimal value is concerned):
    properties and required lists united, other keywords from the later part."""
    merged: dict[str, Any] = {}
    for part in parts:
        if isinstance(part, Mapping) and "$ref" in part:
            target = _resolve(root, part["$ref"])
            part = {**(target if isinstance(target, Mapping) else {}), **{k: v for k, v in part.items() if k != "$ref"}}
        if not isinstance(part, Mapping):
            continue
        for key, value in part.items():
            if key == "allOf":
                continue
            if key == "properties" and isinstance(value, Mapping):
                merged["properties"] = {**merged.get("properties", {}), **value}
            elif key == "required" and isinstance(value, list):
                merged["required"] = list(dict.fromkeys([*merged.get("required", []), *value]))
            else:
                merged[key] = value
    return merged


def _json_schema_at(root: Mapping[str, Any], schema: Any) -> Any:
    """``schema`` (a part of ``root``) with root's definitions beside it, so its $refs resolve."""
    if not isinstance(schema, Mapping):
        return schema
    extra = {k: root[k] for k in ("$defs", "definitions") if k in root and k not in schema}
    return _json_schema({**schema, **extra})


def _json_schema(schema: Any) -> Any:
    """Gemini's OpenAPI dialect as JSON Schema: type names lower-cased, ``nullable`` as a type."""
    if isinstance(schema, list):
        return [_json_schema(v) for v in schema]
    if not isinstance(schema, Mapping):
        return schema
    out = {}
    for key, value in schema.items():
        if key == "type" and isinstance(value, str):
            value = value.lower()
        elif key in ("properties", "$defs", "definitions", "patternProperties") and isinstance(value, Mapping):
            value = {k: _json_schema(v) for k, v in value.items()}
        elif isinstance(value, (Mapping, list)) and key not in ("enum", "const", "default", "examples", "required"):
            value = _json_schema(value)
        out[key] = value
    if schema.get("nullable") is True and isinstance(out.get("type"), str):
        out["type"] = [out["type"], "null"]
    return out
