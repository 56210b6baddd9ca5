"""Loads the declarative knowledge in ``rules/``: the rule catalog and the packs.

In a checkout the data lives in ``<repo>/rules``; an installed wheel carries it as
``cachelint/_rules`` (hatch force-include), so the tool works without the checkout.
"""
from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from cachelint.diagnostics import Severity


class CatalogError(Exception):
    """A rule or pack file that is missing or does not validate (exit code 2)."""


def rules_dir() -> Path:
    packaged = Path(__file__).resolve().parent / "_rules"
    if packaged.is_dir():
        return packaged
    return Path(__file__).resolve().parent.parent / "rules"


@dataclass(frozen=True)
class RuleDoc:
    code: str
    name: str
    scope: str
    severity: Severity
    status: str
    summary: str
    why: str
    fix: str
    fix_safety: str
    examples: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)
    references: tuple[str, ...] = ()
    options: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def stable(self) -> bool:
        return self.status == "stable"

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "name": self.name,
            "scope": self.scope,
            "severity": self.severity.value,
            "status": self.status,
            "summary": self.summary,
            "why": self.why,
            "fix": self.fix,
            "fix_safety": self.fix_safety,
            "examples": dict(self.examples),
            "references": list(self.references),
        }


def _load_yaml(path: Path) -> Any:
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when available: ~10x faster
    try:
        with open(path, encoding="utf-8") as handle:
            return yaml.load(handle, Loader=loader)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise CatalogError(f"{path}: {exc}") from exc


@functools.lru_cache(maxsize=None)
def load_schema(name: str) -> dict[str, Any]:
    path = rules_dir() / "schema" / name
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CatalogError(f"{path}: {exc}") from exc


def validation_errors(data: Any, schema_name: str) -> list[str]:
    """All schema violations of ``data`` as one-line messages (``path: message``)."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(load_schema(schema_name))
    errors = sorted(validator.iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path])
    out = []
    for err in errors:
        where = "/".join(str(p) for p in err.absolute_path) or "(top level)"
        out.append(f"{where}: {err.message}")
    return out


@functools.lru_cache(maxsize=None)
def load_catalog() -> dict[str, RuleDoc]:
    """Every rule, keyed by code, in code order."""
    rules: dict[str, RuleDoc] = {}
    for path in sorted((rules_dir() / "catalog").glob("*.yaml")):
        data = _load_yaml(path)
        # The catalog ships with the tool and is validated against rules/schema/rule.schema.json
        # by the test suite; re-validating it on every run would cost jsonschema's import (~70 ms)
        # on the warm path. A broken file still fails loudly here.
        if not isinstance(data, dict) or not {"code", "name", "scope", "severity", "status"} <= set(data):
            raise CatalogError(f"{path}: not a rule entry (see rules/schema/rule.schema.json)")
        if path.stem != data["code"]:
            raise CatalogError(f"{path}: file name does not match code {data['code']}")
        rules[data["code"]] = RuleDoc(
            code=data["code"],
            name=data["name"],
            scope=data["scope"],
            severity=Severity(data["severity"]),
            status=data["status"],
            summary=data["summary"].strip(),
            why=data["why"].strip(),
            fix=data["fix"].strip(),
            fix_safety=data["fix_safety"].strip(),
            examples=data.get("examples", {}),
            references=tuple(data.get("references", ())),
            options=data.get("options", {}),
        )
    return dict(sorted(rules.items()))


def rule(code: str) -> RuleDoc:
    try:
        return load_catalog()[code]
    except KeyError:
        raise CatalogError(f"unknown rule code {code!r}") from None


def rule_name(code: str) -> str:
    doc = load_catalog().get(code)
    return doc.name if doc else code


def default_severity(code: str) -> Severity:
    doc = load_catalog().get(code)
    return doc.severity if doc else Severity.WARNING


def expand_selectors(selectors: Iterable[str], known: Iterable[str] | None = None) -> set[str]:
    """Codes matched by selectors: exact codes or prefixes (``CL1``, ``CL10``, ``ALL``)."""
    codes = list(known if known is not None else load_catalog())
    out: set[str] = set()
    for sel in selectors:
        sel = sel.strip().upper()
        if sel == "ALL":
            out.update(codes)
            continue
        out.update(c for c in codes if c.startswith(sel))
    return out


def unknown_selectors(selectors: Iterable[str]) -> list[str]:
    codes = list(load_catalog())
    return sorted(
        s for s in selectors if s.strip().upper() != "ALL" and not any(c.startswith(s.strip().upper()) for c in codes)
    )


# --- packs -----------------------------------------------------------------------------------

def _pack_files(extra: Sequence[str | Path]) -> list[Path]:
    builtin = sorted((rules_dir() / "packs").glob("*.yaml"))
    return builtin + [Path(p) for p in extra]


@functools.lru_cache(maxsize=None)
def _load_pack_file(path: Path) -> dict[str, Any]:
    data = _load_yaml(path)
    if not isinstance(data, dict) or "kind" not in data:
        raise CatalogError(f"{path}: a pack is a mapping with a 'kind' key")
    errors = validation_errors(data, "pack.schema.json")
    kind_schema = rules_dir() / "schema" / f"pack-{data['kind']}.schema.json"
    if kind_schema.is_file():
        errors += validation_errors(data, kind_schema.name)
    if errors:
        raise CatalogError(f"{path}: " + "; ".join(errors))
    return data


def load_packs(kind: str, extra: Sequence[str | Path] = ()) -> list[dict[str, Any]]:
    """Every pack of ``kind``: the built-in ones (sorted by file name), then the user's, in the
    order configured. Consumers merge them (later packs extend earlier ones)."""
    out = []
    for path in _pack_files(tuple(extra)):
        data = _load_pack_file(Path(path))
        if data["kind"] == kind:
            out.append(data)
    return out
