"""Summaries as plain data, both ways: ``value_to_data`` writes a ``Value`` as the deterministic,
JSON-serialisable form other modules of the run read (``cachelint.code.analysis.summarize``), and
``value_from_summary`` reads one back at a call site of this module."""

from __future__ import annotations

from typing import Any, Mapping

from cachelint.code.flow.facts import Positions
from cachelint.code.values import (
    NAME,
    PARAM,
    PATH,
    STR,
    UNORDERED,
    VOLATILE,
    Origin,
    Span,
    Value,
)

_KINDS = frozenset({STR, PATH, NAME})


def _made_in(what: str, via: str, line: Any) -> str:
    """``set() (made in pkg.registry.names(), line 5)``: where another module makes the value; a
    value that module itself has from a third one keeps where it is made and adds the function
    that hands it on (``...; returned by app.tools.agent_tools()``)."""
    if what.endswith(")") and " (made in " in what:
        return f"{what[:-1]}; returned by {via})"
    return f"{what} (made in {via}, line {line})"


def _origin_from_summary(entry: Mapping[str, Any], site: Span, via: str, module: str) -> Origin:
    if entry.get("kind") == PARAM:
        return Origin(PARAM, entry["what"], site, mode=entry.get("mode", "whole"), attr=entry.get("attr"))
    fix = entry.get("fix")
    fix_at: Span | None = None
    if isinstance(fix, list) and len(fix) == 4 and all(type(n) is int for n in fix):
        fix_at = (fix[0], fix[1], fix[2], fix[3])
    return Origin(
        entry["kind"],
        _made_in(str(entry["what"]), via, entry.get("line", "?")),
        site,
        sortable=bool(entry.get("sortable", True)),
        granularity=entry.get("granularity", "time"),
        # where the other module first puts the value in order: the fix goes there
        fix_at=fix_at,
        fix_safe=fix_at is not None and entry.get("fix_safe") is True,
        fix_module=(entry.get("fix_module") or module) if fix_at is not None else None,
        external=via,
        empty=bool(entry.get("empty", False)),
    )


def value_from_summary(data: Mapping[str, Any], site: Span, via: str, module: str) -> Value:
    own = frozenset(_origin_from_summary(e, site, via, module) for e in data.get("own", ()))
    inner = frozenset(_origin_from_summary(e, site, via, module) for e in data.get("inner", ()))
    kind = data.get("kind")
    elements = data.get("elements")
    return Value(own, inner, kind if kind in _KINDS else None, elements if elements in _KINDS else None)


def origin_to_data(o: Origin, positions: Positions | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {"kind": o.kind, "what": o.what}
    if o.kind == PARAM:
        data["mode"] = o.mode
        if o.attr is not None:
            data["attr"] = o.attr
        return data
    data["line"] = o.site[0]
    if not o.sortable:
        data["sortable"] = False
    if o.kind == VOLATILE:
        data["granularity"] = o.granularity
    if o.empty:
        data["empty"] = True
    if o.kind == UNORDERED and o.fix_at is not None and o.sortable:
        if o.fix_module is not None:
            data["fix"] = list(o.fix_at)
            data["fix_module"] = o.fix_module
        elif positions is not None:
            data["fix"] = positions(o.fix_at)
        else:
            return data
        data["fix_safe"] = o.fix_safe
    return data


def _data_key(d: Mapping[str, Any]) -> tuple:
    return (
        d["kind"],
        d["what"],
        d.get("line", 0),
        d.get("mode", ""),
        d.get("attr", ""),
        d.get("granularity", ""),
        d.get("sortable", True),
        d.get("empty", False),
    )


def _fix_rank(d: Mapping[str, Any]) -> tuple:
    """Among origins that merge, the one whose fix is kept: a safe fix first, then the earliest."""
    return (not d.get("fix_safe", False), "fix" not in d, d.get("fix_module", ""), d.get("fix", []))


def value_to_data(v: Value, positions: Positions | None = None) -> dict[str, Any]:
    """Plain, deterministic data (origins that differ only in columns or fix spots merge, keeping
    the first fix in a fixed order). ``positions``: see ``Positions``; without it, no fix spot of
    this module is given."""

    def table(origins: frozenset[Origin]) -> list[dict[str, Any]]:
        unique: dict[tuple, dict[str, Any]] = {}
        for d in (origin_to_data(o, positions) for o in origins):
            key = _data_key(d)
            current = unique.get(key)
            if current is None or _fix_rank(d) < _fix_rank(current):
                unique[key] = d
        return [unique[k] for k in sorted(unique)]

    data: dict[str, Any] = {"own": table(v.own), "inner": table(v.inner)}
    if v.kind is not None:
        data["kind"] = v.kind
    if v.elements is not None:
        data["elements"] = v.elements
    return data
