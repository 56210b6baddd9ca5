"""cachelint.schema_check answers "valid?" as jsonschema does, for every schema of the project.

Its True skips jsonschema entirely (no error is looked for), so a True where jsonschema finds an
error would hide a finding: the values compared here are built to sit near the boundaries (the
schemas' own property names, patterns, enum values and length limits, valid packs and
configurations with one part broken)."""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cachelint.catalog import load_schema, rules_dir
from cachelint.schema_check import satisfies

SCHEMAS = sorted(p.name for p in (rules_dir() / "schema").glob("*.schema.json"))


@lru_cache(maxsize=None)
def vocabulary(name: str) -> tuple[tuple[str, ...], tuple[Any, ...]]:
    """Property names and literal values (enum, const, bounds) found anywhere in the schema."""
    keys: set[str] = set()
    literals: list[Any] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                if k in ("properties", "$defs", "patternProperties") and isinstance(v, dict):
                    keys.update(v)
                    for sub in v.values():
                        walk(sub)
                elif k == "required" and isinstance(v, list):
                    keys.update(x for x in v if isinstance(x, str))
                elif k in ("enum",) and isinstance(v, list):
                    literals.extend(v)
                elif k == "const":
                    literals.append(v)
                elif k in (
                    "minimum",
                    "maximum",
                    "exclusiveMinimum",
                    "exclusiveMaximum",
                    "minLength",
                    "maxLength",
                    "minItems",
                    "maxItems",
                ) and isinstance(v, (int, float)):
                    literals.extend([v, v - 1, v + 1, v + 0.5, "x" * max(0, int(v)), "x" * (int(v) + 1)])
                elif not k.startswith("x-"):
                    walk(v)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(load_schema(name))
    return tuple(sorted(keys)), tuple(json.loads(json.dumps(literals)))


def values(name: str) -> st.SearchStrategy[Any]:
    keys, literals = vocabulary(name)
    texts = st.sampled_from(
        [
            "",
            " ",
            "a",
            "ok-name",
            "-bad",
            "Bad Name",
            "a" * 64,
            "a" * 65,
            "x" * 1025,
            "é",
            "2026-11-29",
            "*",
            "CL101",
            "CL1",
            "anthropic",
        ]
    )
    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-3, 2000),
        st.floats(-10, 2000, allow_nan=False),
        st.sampled_from([0, 1, 1.0, True, False]),
        texts,
        st.text(max_size=8),
        *([st.sampled_from(literals)] if literals else []),
    )
    names = st.one_of(st.sampled_from(keys), st.text(max_size=6)) if keys else st.text(max_size=6)
    return st.recursive(
        scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(names, inner, max_size=6), max_leaves=25
    )


def agree(name: str, value: Any) -> None:
    schema = load_schema(name)
    quick = satisfies(schema, value)
    expected = jsonschema.Draft202012Validator(schema).is_valid(value)
    assert quick is not None, f"{name}: a keyword is not handled, so the fast path never applies"
    assert quick == expected, (name, value)


def near(schema: Any, root: dict, depth: int = 0) -> st.SearchStrategy[Any]:
    """Values built from ``schema``: mostly valid, at its limits (lengths and bounds exactly at,
    and one past, each limit), so that an off-by-one or a forgotten keyword in the fast path
    shows as a disagreement."""
    if not isinstance(schema, dict) or depth > 6:
        return st.none() | st.integers(0, 3) | st.text(max_size=3)
    if "$ref" in schema:
        target = root.get("$defs", {}).get(schema["$ref"].rsplit("/", 1)[-1], {})
        return near(target, root, depth + 1)
    if "enum" in schema:
        return st.sampled_from(schema["enum"])
    if "const" in schema:
        return st.just(schema["const"])
    for combinator in ("anyOf", "oneOf", "allOf"):
        if combinator in schema:
            rest = {k: v for k, v in schema.items() if k != combinator}
            return st.one_of(
                [near(_merged(rest, sub), root, depth + 1) for sub in schema[combinator]]
                + [near(rest, root, depth + 1)]
            )
    kinds = schema.get("type", ["string", "integer", "object", "array", "boolean", "null"])
    kinds = kinds if isinstance(kinds, list) else [kinds]
    return st.one_of([_near_type(kind, schema, root, depth) for kind in kinds])


def _merged(schema: dict, branch: Any) -> dict:
    """``schema`` with one branch of its combinator folded in (required and properties joined),
    so that a value built from it meets both."""
    if not isinstance(branch, dict):
        return schema
    out = dict(schema)
    for key, value in branch.items():
        if key == "required":
            out["required"] = list(dict.fromkeys([*schema.get("required", []), *value]))
        elif key == "properties":
            out["properties"] = {**schema.get("properties", {}), **value}
        else:
            out[key] = value
    return out


def _sizes(schema: dict, low_key: str, high_key: str, default_high: int) -> st.SearchStrategy[int]:
    low, high = schema.get(low_key, 0), schema.get(high_key)
    edges = {low, max(0, low - 1), low + 1}
    if high is not None:
        edges |= {high, high + 1, max(0, high - 1)}
    return st.sampled_from(sorted(edges)) | st.integers(low, high if high is not None else low + default_high)


def _near_type(kind: str, schema: dict, root: dict, depth: int) -> st.SearchStrategy[Any]:
    if kind == "string":
        lengths = _sizes(schema, "minLength", "maxLength", 12)
        padded = lengths.map(lambda n: "a" * n)
        if "pattern" in schema:
            matching = st.from_regex(schema["pattern"], fullmatch=True).filter(lambda t: len(t) < 2000)
            stretched = st.tuples(matching, lengths).map(
                lambda pair: (pair[0] * (pair[1] // max(1, len(pair[0])) + 1))[: pair[1]] if pair[0] else pair[0]
            )
            # a match with blanks around it: a fast path that anchored the pattern (match instead
            # of search) would reject what JSON Schema accepts
            framed = st.tuples(
                st.sampled_from(["", " ", "\n", "A"]), matching, st.sampled_from(["", " ", "\n", "-"])
            ).map("".join)
            return matching | stretched | padded | framed | st.sampled_from(["", " ", "A-", "-a", "é"])
        return padded | st.text(max_size=5)
    if kind in ("integer", "number"):
        edges = [0, 1, -1]
        for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
            if key in schema:
                edges += [schema[key], schema[key] - 1, schema[key] + 1, schema[key] + 0.5, schema[key] - 0.5]
        choice = st.sampled_from(edges)
        return choice.map(int) if kind == "integer" else choice | st.floats(-5, 5, allow_nan=False)
    if kind == "boolean":
        return st.booleans()
    if kind == "null":
        return st.none()
    if kind == "array":
        item = near(schema.get("items", {}), root, depth + 1)
        return _sizes(schema, "minItems", "maxItems", 3).flatmap(
            lambda n: st.lists(item, min_size=min(n, 4), max_size=min(n, 4))
        )
    if kind == "object":
        props = schema.get("properties", {})
        required = [k for k in schema.get("required", []) if isinstance(k, str)]
        optional = sorted(k for k in props if k not in required)
        extra = schema.get("additionalProperties", True)

        @st.composite
        def build(draw):
            keys = [k for k in required if draw(st.integers(0, 19))]  # now and then one is missing
            keys += draw(st.lists(st.sampled_from(optional), unique=True, max_size=4)) if optional else []
            out = {k: draw(near(props.get(k, extra if isinstance(extra, dict) else {}), root, depth + 1)) for k in keys}
            if draw(st.integers(0, 4)) == 0:
                out[draw(st.text(min_size=1, max_size=4))] = draw(
                    near(extra if isinstance(extra, dict) else {}, root, depth + 1)
                )
            return out

        return build()
    return st.none()


@pytest.mark.parametrize("name", SCHEMAS)
@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
@given(data=st.data())
def test_values_near_each_schema(name, data):
    schema = load_schema(name)
    value = data.draw(near(schema, schema))
    if data.draw(st.booleans()):
        value = mutations(value, data.draw, values(name))
    agree(name, value)


@pytest.mark.parametrize("name", SCHEMAS)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_random_values(name, data):
    agree(name, data.draw(values(name)))


def valid_examples() -> list[tuple[str, Any]]:
    """Real valid values: every bundled pack (against the pack schema of its kind), the example
    configuration of the docs, a front matter."""
    out: list[tuple[str, Any]] = [
        (
            "skill-frontmatter.schema.json",
            {
                "name": "pdf-forms",
                "description": "Fill PDF forms.",
                "license": "MIT",
                "allowed-tools": ["Read"],
                "metadata": {"a": 1},
            },
        ),
        ("skill-frontmatter.schema.json", {"name": "x", "when_to_use": "When the user asks."}),
        (
            "config.schema.json",
            {
                "select": ["CL1", "CL3"],
                "ignore": ["CL105"],
                "exclude": ["build"],
                "per-file-ignores": {"tests/*": ["CL1"]},
            },
        ),
    ]
    bundle = json.loads((rules_dir() / "packs" / "bundle.json").read_text(encoding="utf-8"))
    for entry in bundle.get("packs", bundle).values() if isinstance(bundle, dict) else ():
        data = entry.get("data", entry) if isinstance(entry, dict) else None
        if isinstance(data, dict) and isinstance(data.get("kind"), str):
            out.append(("pack.schema.json", data))
            kind = f"pack-{data['kind']}.schema.json"
            if kind in SCHEMAS:
                out.append((kind, data))
    return out


EXAMPLES = valid_examples()


def test_examples_are_valid_and_cover_the_packs():
    assert sum(1 for name, _ in EXAMPLES if name.startswith("pack-")) >= 5
    for name, value in EXAMPLES:
        assert satisfies(load_schema(name), value) is True, name
        agree(name, value)


def mutations(value: Any, draw, replacement: st.SearchStrategy[Any]) -> Any:
    """``value`` with one part deleted or replaced, somewhere down its tree."""
    if isinstance(value, dict) and value:
        key = draw(st.sampled_from(sorted(value, key=str)))
        action = draw(st.sampled_from(["delete", "replace", "descend", "add"]))
        copy = dict(value)
        if action == "delete":
            del copy[key]
        elif action == "replace":
            copy[key] = draw(replacement)
        elif action == "add":
            copy[draw(st.text(min_size=1, max_size=5))] = draw(replacement)
        else:
            copy[key] = mutations(value[key], draw, replacement)
        return copy
    if isinstance(value, list) and value:
        index = draw(st.integers(0, len(value) - 1))
        copy = list(value)
        action = draw(st.sampled_from(["delete", "replace", "descend", "duplicate"]))
        if action == "delete":
            del copy[index]
        elif action == "replace":
            copy[index] = draw(replacement)
        elif action == "duplicate":
            copy.append(copy[index])
        else:
            copy[index] = mutations(value[index], draw, replacement)
        return copy
    return draw(replacement)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_broken_real_values(data):
    name, value = data.draw(st.sampled_from(EXAMPLES))
    for _ in range(data.draw(st.integers(1, 3))):
        value = mutations(value, data.draw, values(name))
    agree(name, value)


def _limit_values(sub: dict) -> list[Any]:
    """Values exactly at and one past each limit of a property's schema."""
    out: list[Any] = [None, True, 1, 1.5, "", " ", "x", [], {}]
    low, high = sub.get("minLength"), sub.get("maxLength")
    for n in (low, high):
        if isinstance(n, int):
            out += ["a" * n, "a" * (n + 1), "a" * max(0, n - 1), " " * n]
    if "pattern" in sub:
        out += [" a", "a ", "\na", "a-", "-a", "A", "a" * 3, "é"]
    for key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        if isinstance(sub.get(key), (int, float)):
            b = sub[key]
            out += [b, b - 1, b + 1, b - 0.5, b + 0.5, float(b)]
    for key in ("minItems", "maxItems"):
        if isinstance(sub.get(key), int):
            out += [["a"] * sub[key], ["a"] * (sub[key] + 1), ["a"] * max(0, sub[key] - 1)]
    out += list(sub.get("enum", [])) + ([sub["const"]] if "const" in sub else [])
    return out


LIMITED = [
    "skill-frontmatter.schema.json",
    "config.schema.json",
    "config-audit.schema.json",
    "config-code.schema.json",
    "config-skills.schema.json",
]


@pytest.mark.parametrize("name", LIMITED)
def test_the_limits_of_every_property(name):
    """Every property of the schemas checked on every run (front matter, configuration), set to
    values at and past its limits inside an otherwise valid value, with each other property
    left out or kept: deterministic, so an off-by-one cannot slip through by chance."""
    schema = load_schema(name)
    bases = [value for n, value in EXAMPLES if n == name] or [{}]
    checked = 0
    for base in bases:
        for key, sub in schema.get("properties", {}).items():
            if isinstance(sub, dict) and "$ref" in sub:
                sub = schema.get("$defs", {}).get(sub["$ref"].rsplit("/", 1)[-1], sub)
            for limit in _limit_values(sub):
                for value in ({**base, key: limit}, {key: limit, **({"name": "ok"} if key != "name" else {})}):
                    agree(name, value)
                    checked += 1
    assert checked > 20


def test_unknown_keywords_give_no_answer():
    assert satisfies({"type": "string", "format": "email"}, "x") is None
    assert satisfies({"patternProperties": {"^a": {"type": "string"}}}, {"a": 1}) is None
    assert satisfies({"$ref": "https://example.com/s.json"}, 1) is None
    assert satisfies({"type": "string", "title": "t", "x-messages": {}}, "x") is True


def test_json_equality_in_enum_and_const():
    assert satisfies({"enum": [1]}, True) is False
    assert satisfies({"enum": [1]}, 1.0) is True
    assert satisfies({"const": False}, 0) is False
    assert satisfies({"uniqueItems": True}, [1, True]) is True
    assert satisfies({"uniqueItems": True}, [1, 1.0]) is False
