"""A quick yes to "does this value satisfy this JSON Schema?" for the small schemas cachelint
validates on every run (skill front matter once per skill, the configuration, custom packs), so
that the common case — a valid value — costs neither jsonschema's import (~50 ms) nor its
validation (~65 µs a front matter, the largest part of checking a thousand skills).

Only a yes is trusted: ``satisfies`` answers True when the value is valid, False when it is not,
and None when the schema uses a keyword it does not know. Callers ask jsonschema for the errors
whenever the answer is not True, so jsonschema stays the authority on every message; a property
test compares the two answers on generated values (tests/test_schema_check.py).
"""

from __future__ import annotations

import re
from typing import Any, Mapping, Sized

# Keywords that never change validity (annotations and this project's x- extensions).
_ANNOTATIONS = frozenset(
    {"$schema", "$id", "$comment", "title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly"}
)

_PATTERNS: dict[str, re.Pattern[str]] = {}


class _Unknown(Exception):
    """The schema uses a keyword this module does not evaluate."""


def satisfies(schema: Any, value: Any) -> bool | None:
    """Whether ``value`` is valid against ``schema`` (Draft 2020-12 semantics, as jsonschema's
    ``is_valid``), or None when the schema uses a keyword not handled here."""
    try:
        return _valid(schema, value, schema)
    except (_Unknown, re.error, RecursionError, TypeError):
        return None


def _is_type(value: Any, name: str) -> bool:
    if name == "string":
        return isinstance(value, str)
    if name == "object":
        return isinstance(value, dict)
    if name == "array":
        return isinstance(value, list)
    if name == "boolean":
        return isinstance(value, bool)
    if name == "null":
        return value is None
    if name == "integer":
        if isinstance(value, bool):
            return False
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if name == "number":
        return _number(value)
    raise _Unknown(name)


def _valid(schema: Any, value: Any, root: Mapping[str, Any]) -> bool:
    if schema is True:
        return True
    if schema is False:
        return False
    if not isinstance(schema, Mapping):
        raise _Unknown("schema")
    for keyword, arg in schema.items():
        if keyword in _ANNOTATIONS or keyword.startswith("x-") or keyword in ("then", "else", "$defs"):
            continue
        if not _keyword(keyword, arg, schema, value, root):
            return False
    return True


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# Size keywords: the JSON type they apply to, and whether the size is a lower bound.
_SIZES: dict[str, tuple[type[Sized], bool]] = {
    "minLength": (str, True),
    "maxLength": (str, False),
    "minItems": (list, True),
    "maxItems": (list, False),
    "minProperties": (dict, True),
    "maxProperties": (dict, False),
}


def _keyword(keyword: str, arg: Any, schema: Mapping[str, Any], value: Any, root: Mapping[str, Any]) -> bool:
    if keyword == "type":
        names = arg if isinstance(arg, list) else [arg]
        return any(_is_type(value, n) for n in names)
    if keyword == "required":
        return not isinstance(value, dict) or all(k in value for k in arg)
    if keyword == "properties":
        if not isinstance(value, dict):
            return True
        return all(_valid(sub, value[k], root) for k, sub in arg.items() if k in value)
    if keyword == "additionalProperties":
        if not isinstance(value, dict):
            return True
        known = schema.get("properties", {})
        if schema.get("patternProperties"):
            raise _Unknown("patternProperties")
        return all(_valid(arg, v, root) for k, v in value.items() if k not in known)
    if keyword in _SIZES:
        kind, at_least = _SIZES[keyword]
        if not isinstance(value, kind):
            return True
        return len(value) >= arg if at_least else len(value) <= arg
    if keyword == "pattern":
        if not isinstance(value, str):
            return True
        compiled = _PATTERNS.get(arg)
        if compiled is None:
            compiled = _PATTERNS[arg] = re.compile(arg)
        return compiled.search(value) is not None
    if keyword == "anyOf":
        return any(_valid(sub, value, root) for sub in arg)
    if keyword == "allOf":
        return all(_valid(sub, value, root) for sub in arg)
    if keyword == "oneOf":
        return sum(1 for sub in arg if _valid(sub, value, root)) == 1
    if keyword == "not":
        return not _valid(arg, value, root)
    if keyword == "if":
        if _valid(arg, value, root):
            return _valid(schema.get("then", True), value, root)
        return _valid(schema.get("else", True), value, root)
    if keyword == "items":
        if "prefixItems" in schema:
            raise _Unknown("prefixItems")
        return not isinstance(value, list) or all(_valid(arg, item, root) for item in value)
    if keyword in _BOUNDS:
        if not _number(value) or not _number(arg):
            return not _number(value)
        return _BOUNDS[keyword](value, arg)
    if keyword == "enum":
        return any(_equal(choice, value) for choice in arg)
    if keyword == "const":
        return _equal(arg, value)
    if keyword == "uniqueItems":
        if not arg or not isinstance(value, list):
            return True
        return all(not _equal(value[i], value[j]) for i in range(len(value)) for j in range(i + 1, len(value)))
    if keyword == "propertyNames":
        return not isinstance(value, dict) or all(_valid(arg, k, root) for k in value)
    if keyword == "$ref":
        if not isinstance(arg, str) or not arg.startswith("#/$defs/") or "~" in arg or "%" in arg:
            raise _Unknown("$ref")
        target = root.get("$defs", {}).get(arg[len("#/$defs/") :])
        if target is None:
            raise _Unknown("$ref")
        return _valid(target, value, root)
    raise _Unknown(keyword)


def _equal(a: Any, b: Any) -> bool:
    """JSON equality as JSON Schema means it: true and 1 differ, 1 and 1.0 do not."""
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    if isinstance(a, (list, dict)) or isinstance(b, (list, dict)):
        return False
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    return a == b


_BOUNDS = {
    "minimum": lambda v, a: v >= a,
    "maximum": lambda v, a: v <= a,
    "exclusiveMinimum": lambda v, a: v > a,
    "exclusiveMaximum": lambda v, a: v < a,
}
