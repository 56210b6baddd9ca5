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

    def example_inputs(self, kind: str) -> list[Any]:
        """The inputs of the ``bad`` or ``good`` examples: a good example is its input, a bad one
        ``{input, expect}``, its input and the findings it gives."""
        examples = self.examples.get(kind, [])
        return [example["input"] for example in examples] if kind == "bad" else list(examples)

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

    from cachelint.yamlload import SafeLoader

    try:
        with open(path, encoding="utf-8") as handle:
            return yaml.load(handle, Loader=SafeLoader)  # noqa: S506 - a safe loader
    except OSError as exc:
        raise CatalogError(f"{path}: {exc.strerror or exc}") from exc
    except (UnicodeDecodeError, yaml.YAMLError, ValueError, RecursionError) as exc:
        # one line: PyYAML's messages span several ("while parsing …\n  in …, line 2")
        raise CatalogError(f"{path}: {' '.join(str(exc).split())}") from exc


@functools.lru_cache(maxsize=None)
def load_schema(name: str) -> dict[str, Any]:
    path = rules_dir() / "schema" / name
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CatalogError(f"{path}: {exc}") from exc


def validation_errors(data: Any, schema_name: str) -> list[str]:
    """All schema violations of ``data`` as one-line messages (``path: message``)."""
    from cachelint.schema_check import satisfies

    if satisfies(load_schema(schema_name), data) is True:
        return []  # valid: jsonschema (~50 ms to import) is needed only to word the errors
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


# --- the compact rule index (start-up path) ---------------------------------------------------
# What a warm run needs from the catalog is the code -> (name, scope, severity, status) table:
# selection, default severities and rule names in the output. Parsing 25+ YAML files costs
# ~45 ms (20 ms of it importing yaml), a sixth of the 0.3 s warm budget, so that table is kept
# as a small JSON file in the project's cache folder, keyed by the catalog files' stat. The
# engine hands the folder to ``rule_index`` and, through the settings, to ``load_packs``; without
# one, the YAML is read.

INDEX_FORMAT = 1


@dataclass(frozen=True)
class CatalogFolder:
    """Where the catalog keeps its start-up data in a run that uses the result cache (its folder):
    the compact rule index, the user's packs as JSON and their validation verdicts; and the
    warnings about damaged files found there, for the run to show. Two are equal when their paths
    are (what is read from a folder is memoised per path, in workers too)."""

    path: Path
    warnings: list[str] = field(default_factory=list, compare=False, hash=False)


@dataclass(frozen=True)
class RuleSummary:
    code: str
    name: str
    scope: str
    severity: Severity
    status: str


def _catalog_stat_key() -> str:
    import hashlib

    h = hashlib.sha256(str(INDEX_FORMAT).encode())
    for path in sorted((rules_dir() / "catalog").glob("*.yaml")):
        try:
            st = path.stat()
        except OSError:
            continue
        h.update(f"{path}\0{st.st_mtime_ns}\0{st.st_size}\n".encode())
    return h.hexdigest()[:24]


def _summaries_from_catalog() -> dict[str, RuleSummary]:
    shipped = _shipped_rule_index()
    if shipped is not None:
        return shipped
    return {
        code: RuleSummary(doc.code, doc.name, doc.scope, doc.severity, doc.status)
        for code, doc in load_catalog().items()
    }


# --- the shipped rule index (start-up path of a run without a cache folder) ---------------------
# An audit has no cache folder (``--isolated``, a log outside any project): without a copy, its
# rule table cost importing yaml and parsing every catalog file, about a tenth of an audit of a
# small folder. The table therefore also ships as rules/catalog/index.json (written by
# ``python -m cachelint.docs``; a test fails when it is stale), each row with the SHA-256 of the
# YAML it was made from, and is used only while the catalog holds exactly those files unchanged.

RULE_INDEX_NAME = "index.json"


def _index_row_shape(row: Any) -> bool:
    return isinstance(row, list) and len(row) == 5 and all(isinstance(v, str) for v in row) and row[3] in _SEVERITIES


def _shipped_rule_index() -> dict[str, RuleSummary] | None:
    import hashlib

    folder = rules_dir() / "catalog"
    try:
        data = json.loads((folder / RULE_INDEX_NAME).read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("format") != INDEX_FORMAT or not isinstance(data.get("rules"), dict):
        return None
    entries = data["rules"]
    paths = sorted(folder.glob("*.yaml"))
    if sorted(entries) != [p.stem for p in paths]:
        return None  # a catalog file added or removed since the index was written
    out: dict[str, RuleSummary] = {}
    for path in paths:
        entry = entries[path.stem]
        try:
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
        except OSError:
            return None
        if not isinstance(entry, dict) or entry.get("sha256") != digest:
            return None
        row: Any = entry.get("rule")
        if not _index_row_shape(row) or row[0] != path.stem:
            return None
        out[row[0]] = RuleSummary(row[0], row[1], row[2], Severity(row[3]), row[4])
    return out


def rule_index_text() -> str:
    """rules/catalog/index.json as it should be on disk (deterministic: code order)."""
    import hashlib

    folder = rules_dir() / "catalog"
    docs = load_catalog()
    rows = {
        path.stem: {
            "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
            "rule": [doc.code, doc.name, doc.scope, doc.severity.value, doc.status],
        }
        for path in sorted(folder.glob("*.yaml"))
        for doc in (docs[path.stem],)
    }
    return json.dumps({"format": INDEX_FORMAT, "rules": rows}, indent=1) + "\n"


def _rule_index_in(folder: CatalogFolder) -> dict[str, RuleSummary]:
    from cachelint import cachefile

    target = folder.path / f"rules-{_catalog_stat_key()}.json"
    codes = sorted(p.stem for p in (rules_dir() / "catalog").glob("CL*.yaml"))

    def shape(rows: Any) -> bool:
        # one row per catalog file, each (code, name, scope, severity, status) of known values: a
        # table missing rules would select none of them
        return isinstance(rows, list) and all(_index_row_shape(r) for r in rows) and sorted(r[0] for r in rows) == codes

    rows = cachefile.read(target, "rules", INDEX_FORMAT, shape, warnings=folder.warnings)
    if rows is not None:
        return {r[0]: RuleSummary(r[0], r[1], r[2], Severity(r[3]), r[4]) for r in rows}
    index = _summaries_from_catalog()
    rows = [[s.code, s.name, s.scope, s.severity.value, s.status] for s in index.values()]
    try:
        for old in folder.path.glob("rules-*.json"):
            old.unlink()
        cachefile.write(target, "rules", INDEX_FORMAT, json.dumps(rows).encode())
    except OSError:
        pass  # a read-only tree still works, from the YAML
    return index


_SEVERITIES = frozenset(s.value for s in Severity)


# The rule table of this process, by the folder it was read from (None: the YAML). The table is
# the same whichever way it was read: a call without a folder takes the one already read.
_RULE_TABLES: dict[Path | None, dict[str, RuleSummary]] = {}


def loaded_rule_index() -> dict[str, RuleSummary] | None:
    """The rule table if this process has read it already, else None (reading it costs the YAML
    of the whole catalog where no cache folder holds its compact copy: an audit's case)."""
    return next(iter(_RULE_TABLES.values())) if _RULE_TABLES else None


def rule_index(folder: CatalogFolder | None = None) -> dict[str, RuleSummary]:
    """Every rule's code, name, scope, default severity and status, in code order: read from the
    compact copy in ``folder`` (written there when missing or stale), else the table this process
    already read, else the catalog's YAML."""
    if folder is None and _RULE_TABLES:
        return next(iter(_RULE_TABLES.values()))
    key = folder.path if folder is not None else None
    table = _RULE_TABLES.get(key)
    if table is None:
        table = _RULE_TABLES[key] = _summaries_from_catalog() if folder is None else _rule_index_in(folder)
    return table


def rule(code: str) -> RuleDoc:
    try:
        return load_catalog()[code]
    except KeyError:
        raise CatalogError(f"unknown rule code {code!r}") from None


def rule_name(code: str) -> str:
    doc = rule_index().get(code)
    return doc.name if doc else code


def default_severity(code: str) -> Severity:
    doc = rule_index().get(code)
    return doc.severity if doc else Severity.WARNING


def _selector_code(selector: str, names: Mapping[str, str]) -> str:
    """A selector as a code or code prefix: rule names (``unordered-tools``) stand for their code,
    as ``cachelint rule unordered-tools`` does."""
    sel = selector.strip()
    return names.get(sel.lower(), sel.upper())


def _names() -> dict[str, str]:
    return {s.name: s.code for s in rule_index().values()}


def expand_selectors(selectors: Iterable[str], known: Iterable[str] | None = None) -> set[str]:
    """Codes matched by selectors: exact codes, prefixes (``CL1``, ``CL10``, ``ALL``) or rule
    names (``unordered-tools``)."""
    codes = list(known if known is not None else rule_index())
    names = _names()
    out: set[str] = set()
    for sel in selectors:
        sel = _selector_code(sel, names)
        if sel == "ALL":
            out.update(codes)
            continue
        out.update(c for c in codes if c.startswith(sel))
    return out


def unknown_selectors(selectors: Iterable[str]) -> list[str]:
    codes = list(rule_index())
    names = _names()
    return sorted(
        s
        for s in selectors
        if _selector_code(s, names) != "ALL" and not any(c.startswith(_selector_code(s, names)) for c in codes)
    )


def code_of(selector: str) -> str | None:
    """The rule code a single code or rule name stands for (None for a prefix or an unknown name)."""
    sel = _selector_code(selector, _names())
    return sel if sel in rule_index() else None


# --- packs -----------------------------------------------------------------------------------


def _pack_files(extra: Sequence[str | Path]) -> list[Path]:
    builtin = sorted((rules_dir() / "packs").glob("*.yaml"))
    return builtin + [Path(p) for p in extra]


@functools.lru_cache(maxsize=None)
def _load_pack_file(path: Path, folder: CatalogFolder | None = None) -> dict[str, Any]:
    # Validating every pack with jsonschema costs ~0.2 s a run (import included), and parsing
    # them from YAML ~75 ms (import included): a pack whose exact bytes already validated against
    # the same schema files is neither validated nor parsed again, but read from its JSON copy.
    # Built-in packs ship with the tool and are validated by the test suite (tests/test_catalog.py),
    # like the catalog: only the user's packs are validated at run time.
    builtin = path.parent == rules_dir() / "packs"
    if builtin:
        bundled = _bundled_pack(path)
        if bundled is not None:
            return bundled
    verdict = _pack_verdict_key(path) if folder is not None else None
    known_valid = builtin or (folder is not None and verdict is not None and verdict in _known_valid_packs(folder))
    if known_valid and folder is not None and verdict is not None:
        copy = _read_pack_copy(folder, verdict)
        if copy is not None:
            return copy
    data = _load_yaml(path)
    if not isinstance(data, dict) or "kind" not in data:
        raise CatalogError(f"{path}: a pack is a mapping with a 'kind' key")
    kind_schema = rules_dir() / "schema" / f"pack-{data['kind']}.schema.json"
    if known_valid:
        if folder is not None and verdict is not None:
            _write_pack_copy(folder, verdict, data)
        return data
    errors = validation_errors(data, "pack.schema.json")
    if kind_schema.is_file():
        errors += validation_errors(data, kind_schema.name)
    if errors:
        raise CatalogError(f"{path}: " + "; ".join(errors))
    if folder is not None and verdict is not None:
        _remember_valid_pack(folder, verdict)
        _write_pack_copy(folder, verdict, data)
    return data


# --- the bundle of built-in packs (start-up path) -----------------------------------------------
# Importing yaml and parsing the fourteen built-in packs costs ~40 ms a run, as much as auditing
# 400 requests. The packs therefore also ship as one JSON file (rules/packs/bundle.json, written by
# ``python -m cachelint.docs``; a test fails when it is stale). Each entry carries the SHA-256 of
# the YAML it was made from and is used only while that YAML is unchanged: an edited pack is read
# from its YAML, never from a stale copy.

BUNDLE_NAME = "bundle.json"
BUNDLE_FORMAT = 1


@functools.lru_cache(maxsize=None)
def _pack_bundle() -> dict[str, Any]:
    try:
        data = json.loads((rules_dir() / "packs" / BUNDLE_NAME).read_bytes(), object_hook=_decode_pack_object)
    except (OSError, ValueError, TypeError):
        return {}
    if not isinstance(data, dict) or data.get("format") != BUNDLE_FORMAT or not isinstance(data.get("packs"), dict):
        return {}
    return data["packs"]


def _bundled_pack(path: Path) -> dict[str, Any] | None:
    entry = _pack_bundle().get(path.name)
    if not isinstance(entry, dict) or not isinstance(entry.get("data"), dict):
        return None
    import hashlib

    try:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None
    return entry["data"] if entry.get("sha256") == digest else None


def pack_bundle_text() -> str:
    """The bundle of the built-in packs as it should be on disk (deterministic: file order, key
    order as written in the YAML)."""
    import hashlib

    packs = {}
    for path in sorted((rules_dir() / "packs").glob("*.yaml")):
        packs[path.name] = {"sha256": hashlib.sha256(path.read_bytes()).hexdigest(), "data": _load_yaml(path)}
    return (
        json.dumps({"format": BUNDLE_FORMAT, "packs": packs}, default=_encode_pack_value, ensure_ascii=False, indent=1)
        + "\n"
    )


# YAML gives dates and datetimes (``as_of: 2025-06-01``); JSON has neither, so the copy tags them
# and the reader restores the same types. A pack that already holds such a tag is not copied.
_TAGS = {"$date": "date", "$datetime": "datetime"}


def _encode_pack_value(value: Any) -> Any:
    import datetime

    if isinstance(value, datetime.datetime):
        return {"$datetime": value.isoformat()}
    if isinstance(value, datetime.date):
        return {"$date": value.isoformat()}
    raise TypeError(f"{type(value).__name__} has no JSON form")


def _decode_pack_object(obj: dict[str, Any]) -> Any:
    if len(obj) == 1:
        import datetime

        ((key, value),) = obj.items()
        if key == "$date" and isinstance(value, str):
            return datetime.date.fromisoformat(value)
        if key == "$datetime" and isinstance(value, str):
            return datetime.datetime.fromisoformat(value)
    return obj


def _has_tag_like_keys(value: Any) -> bool:
    if isinstance(value, dict):
        return any(k in _TAGS for k in value) or any(_has_tag_like_keys(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_tag_like_keys(v) for v in value)
    return False


def _pack_copy_path(folder: CatalogFolder, digest: str) -> Path:
    return folder.path / f"pack-{digest}.json"


def _read_pack_copy(folder: CatalogFolder, digest: str) -> dict[str, Any] | None:
    from cachelint import cachefile

    def shape(data: Any) -> bool:
        return isinstance(data, dict) and isinstance(data.get("kind"), str)

    return cachefile.read(
        _pack_copy_path(folder, digest), "pack", 1, shape, warnings=folder.warnings, object_hook=_decode_pack_object
    )


def _write_pack_copy(folder: CatalogFolder, digest: str, data: dict[str, Any]) -> None:
    if _has_tag_like_keys(data):
        return
    try:
        text = json.dumps(data, default=_encode_pack_value, ensure_ascii=False)
    except (TypeError, ValueError):
        return  # a YAML type without a JSON form (binary, ...): stays YAML-only
    try:
        from cachelint import cachefile

        target = _pack_copy_path(folder, digest)
        cachefile.write(target, "pack", 1, text.encode("utf-8"))
        _forget_old_pack_copies(target.parent)
    except OSError:
        pass


# Copies of packs that were edited since stay behind; keep the most recent ones only (a few KB each).
KEEP_PACK_COPIES = 64


def _forget_old_pack_copies(folder: Path) -> None:
    copies = []
    for copy in folder.glob("pack-*.json"):
        try:
            copies.append((copy.stat().st_mtime_ns, str(copy)))
        except OSError:
            continue
    for _, name in sorted(copies, reverse=True)[KEEP_PACK_COPIES:]:
        try:
            Path(name).unlink()
        except OSError:
            pass


def _schema_stat_key() -> str:
    import hashlib

    h = hashlib.sha256()
    for schema in sorted((rules_dir() / "schema").glob("pack*.schema.json")):
        try:
            st = schema.stat()
        except OSError:
            continue
        h.update(f"{schema.name}\0{st.st_mtime_ns}\0{st.st_size}\n".encode())
    return h.hexdigest()[:24]


def _pack_verdict_key(path: Path) -> str | None:
    """Digest of a pack's bytes (None: unreadable), the key of its verdict and its copy."""
    import hashlib

    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()[:32]
    except OSError:
        return None


def _verdict_file(folder: CatalogFolder) -> Path:
    return folder.path / f"packs-valid-{_schema_stat_key()}.json"


@functools.lru_cache(maxsize=None)
def _known_valid_packs_in(target: Path) -> tuple[set[str], tuple[str, ...]]:
    """(the digests of the packs known valid, the warnings of reading them), read once a process."""
    from cachelint import cachefile

    def shape(data: Any) -> bool:
        return isinstance(data, list) and all(isinstance(d, str) and len(d) == 32 for d in data)

    warnings: list[str] = []
    data = cachefile.read(target, "packs-valid", 1, shape, warnings=warnings)
    return (set(data) if data is not None else set()), tuple(warnings)


def _known_valid_packs(folder: CatalogFolder) -> set[str]:
    known, warnings = _known_valid_packs_in(_verdict_file(folder))
    folder.warnings.extend(w for w in warnings if w not in folder.warnings)
    return known


def _remember_valid_pack(folder: CatalogFolder, digest: str) -> None:
    target = _verdict_file(folder)
    known = _known_valid_packs(folder)
    known.add(digest)
    try:
        from cachelint import cachefile

        for old in target.parent.glob("packs-valid-*.json"):
            if old != target:
                old.unlink()
        cachefile.write(target, "packs-valid", 1, json.dumps(sorted(known)).encode())
    except OSError:
        pass


def pack_validation_errors(path: Path) -> list[str]:
    """Every schema violation of one pack file (the common envelope and its kind's schema)."""
    data = _load_yaml(path)
    if not isinstance(data, dict) or "kind" not in data:
        return ["a pack is a mapping with a 'kind' key"]
    errors = validation_errors(data, "pack.schema.json")
    if (rules_dir() / "schema" / f"pack-{data['kind']}.schema.json").is_file():
        errors += validation_errors(data, f"pack-{data['kind']}.schema.json")
    return errors


def validate_pack_files(paths: Sequence[str | Path], cache_folder: Path | None = None) -> None:
    """Read and validate the user's packs (a configuration's ``packs``) now, where the
    configuration is read: CatalogError names the first pack that cannot be used, as the user's
    configuration error. A pack whose exact bytes an earlier run found valid in ``cache_folder``
    (the verdicts ``load_packs`` keeps there) is not read again: this only reads the verdicts, the
    run's own ``load_packs`` keeps them."""
    known: set[str] = set()
    if cache_folder is not None:
        known = _known_valid_packs_in(_verdict_file(CatalogFolder(cache_folder)))[0]
    for path in paths:
        if known and _pack_verdict_key(Path(path)) in known:
            continue
        _load_pack_file(Path(path))


def load_packs(
    kind: str, extra: Sequence[str | Path] = (), folder: CatalogFolder | None = None
) -> list[dict[str, Any]]:
    """Every pack of ``kind``: the built-in ones (sorted by file name), then the user's, in the
    order configured. Consumers merge them (later packs extend earlier ones). ``folder``: where
    the user's packs that validated are kept as JSON (the run's cache folder), if anywhere."""
    out = []
    for path in _pack_files(tuple(extra)):
        data = _load_pack_file(Path(path), folder)
        if data["kind"] == kind:
            out.append(data)
    return out
