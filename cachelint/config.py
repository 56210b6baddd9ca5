"""Configuration: ``[tool.cachelint]`` in ``pyproject.toml`` or a ``cachelint.toml``.

As in Ruff, the closest configuration file to each checked file wins (no merging between files):
``ConfigResolver`` finds it per directory. ``--config FILE`` names one file for every input,
``--config 'key = value'`` gives inline TOML overrides applied over whichever file is found, and
``--isolated`` reads no file. Every table is validated by a JSON Schema in
``rules/schema``: the top level by ``config.schema.json`` and each section (``code``, ``skills``,
``audit``) by ``config-<section>.schema.json``, so each part of the tool owns its options.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping, Sequence

if TYPE_CHECKING:
    from cachelint.catalog import CatalogFolder

from cachelint import __version__

CONFIG_FILES = (".cachelint.toml", "cachelint.toml", "pyproject.toml")
SECTIONS = ("code", "skills", "audit")
DEFAULT_MAX_FILE_SIZE = 8 * 1024 * 1024
# Tokens of one Python file (an estimate of its syntax tree's nodes, 0.4-1 KB of memory each while
# parsed and analysed): a 100,000-line module of ordinary code has ~800,000 (measured: 297 MB);
# an 8 MB list literal 5.4 million (2.6 GB to parse alone).
DEFAULT_MAX_SYNTAX_NODES = 2_000_000
DEFAULT_EXCLUDE = (
    ".git",
    ".hg",
    ".svn",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    "__pycache__",
    "node_modules",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
    ".cachelint_cache",
    # Jupyter's autosaved copies of the notebooks beside them: the same findings twice, in a file
    # the user never edits
    ".ipynb_checkpoints",
    "build",
    "dist",
    "site-packages",
)


class ConfigError(Exception):
    """A configuration problem: reported in one line, exit code 2."""


@dataclass(frozen=True)
class Settings:
    root: Path
    config_path: Path | None = None
    select: tuple[str, ...] = ("ALL",)
    ignore: tuple[str, ...] = ()
    extend_select: tuple[str, ...] = ()
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    extend_exclude: tuple[str, ...] = ()
    per_file_ignores: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    respect_gitignore: bool = True
    packs: tuple[str, ...] = ()
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    analysis_timeout: float = 30.0
    max_syntax_nodes: int = DEFAULT_MAX_SYNTAX_NODES
    cache_dir: str = ".cachelint_cache"
    sections: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    # Where the catalog keeps its start-up data in a run that uses the result cache: set by the
    # engine for that run, no part of the configuration (nor of its fingerprint).
    catalog_folder: "CatalogFolder | None" = field(default=None, compare=False)

    @property
    def project_root(self) -> Path | None:
        """The configuration file's folder, or None without a configuration file (``root`` is
        then the working directory, which must not decide what a run reads)."""
        return self.root if self.config_path is not None else None

    def section(self, name: str) -> Mapping[str, Any]:
        """The raw, validated options of one section (``code``, ``skills``, ``audit``)."""
        return self.sections.get(name, {})

    def enabled_codes(self) -> set[str]:
        from cachelint.catalog import expand_selectors

        # CL001 (unreadable input) stays on even with a narrow --select: a file we could not read
        # must never look clean. Only an explicit ignore turns it off.
        return (self.selected_codes() | {"CL001"}) - expand_selectors(self.ignore)

    def selected_codes(self) -> set[str]:
        """The codes the selection names (select and extend-select, less ignore), without CL001
        kept on by default: what decides which inputs a run reads at all."""
        from cachelint.catalog import expand_selectors

        codes = expand_selectors(self.select) | expand_selectors(self.extend_select)
        return codes - expand_selectors(self.ignore)

    def pack_paths(self) -> tuple[str, ...]:
        return tuple(str((self.root / p).resolve()) if not Path(p).is_absolute() else p for p in self.packs)

    def cache_folder(self) -> Path:
        """The folder of the result cache (``cache-dir``, relative to the configuration's root)."""
        base = Path(self.cache_dir)
        return base if base.is_absolute() else self.root / base

    def fingerprint(self) -> str:
        """Key for the result cache: tool version, settings and the bytes of every pack."""
        from cachelint.catalog import rules_dir

        h = hashlib.sha256()
        h.update(__version__.encode())
        payload = {
            "select": self.select,
            "ignore": self.ignore,
            "extend_select": self.extend_select,
            "per_file_ignores": {k: list(v) for k, v in sorted(self.per_file_ignores.items())},
            "max_file_size": self.max_file_size,
            "analysis_timeout": self.analysis_timeout,
            "max_syntax_nodes": self.max_syntax_nodes,
            "sections": self.sections,
        }
        h.update(json.dumps(payload, sort_keys=True, default=str).encode())
        pack_files = sorted((rules_dir() / "packs").glob("*.yaml")) + [Path(p) for p in self.pack_paths()]
        pack_files += sorted((rules_dir() / "catalog").glob("*.yaml"))
        for p in pack_files:
            try:
                h.update(p.read_bytes())
            except OSError:
                h.update(b"<missing>")
        h.update(_code_stamp().encode())
        return h.hexdigest()[:32]


def _code_stamp() -> str:
    """(path, mtime, size) of cachelint's own modules: an edited check (an editable install, a
    development checkout) must not be answered from results of its previous code. ~1 ms."""
    package = Path(__file__).resolve().parent
    rows = []
    for directory, dirnames, filenames in os.walk(package):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__" and d != "_rules")
        for name in sorted(filenames):
            if name.endswith(".py"):
                try:
                    st = os.stat(os.path.join(directory, name))
                except OSError:
                    continue
                rows.append(f"{directory}/{name}:{st.st_mtime_ns}:{st.st_size}")
    return "\n".join(rows)


def config_in(directory: Path) -> tuple[Path, dict[str, Any]] | None:
    """The config file of ``directory`` itself that has cachelint settings, or None."""
    for name in CONFIG_FILES:
        candidate = directory / name
        if not candidate.is_file():
            continue
        raw = _read_bytes(candidate)
        if name == "pyproject.toml" and b"cachelint" not in raw:
            # another tool's file: no TOML parser on the start-up path (any spelling of a
            # tool.cachelint table, dotted keys and [tool] tables included, has the word)
            continue
        data = _read_toml(candidate, raw)
        if name == "pyproject.toml":
            table = data.get("tool", {}).get("cachelint")
            if table is None:
                continue
            return candidate, table
        _refuse_tool_prefix(candidate, data)
        return candidate, data
    return None


def _refuse_tool_prefix(path: Path, data: Mapping[str, Any]) -> None:
    """``[tool.cachelint]`` is pyproject.toml's spelling; in a cachelint.toml the keys stand at the
    top level. Said as such, not as the schema's "'tool' was unexpected"."""
    tool = data.get("tool")
    if isinstance(tool, Mapping) and "cachelint" in tool:
        raise ConfigError(
            f"{path}: [tool.cachelint] is the pyproject.toml spelling; in {path.name} drop the prefix "
            f"and write the keys at the top level (e.g. select = [...], [code])"
        )


def find_config(start: Path) -> tuple[Path, dict[str, Any]] | None:
    """The closest config file from ``start`` upwards that has cachelint settings."""
    start = start.resolve()
    for directory in [start, *start.parents]:
        found = config_in(directory)
        if found is not None:
            return found
    return None


def _tomllib() -> Any:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    return tomllib


def _read_bytes(path: Path) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read configuration: {exc}") from exc


def _read_toml(path: Path, raw: bytes | None = None) -> dict[str, Any]:
    """The file's TOML; ``raw``: its bytes when the caller read them already (read once)."""
    tomllib = _tomllib()
    try:
        return tomllib.loads((raw if raw is not None else _read_bytes(path)).decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read configuration: {exc}") from exc


def _not_finite(value: Any, path: str = "") -> str | None:
    """The key path of the first number in ``value`` that is NaN or infinite, with the value.
    TOML has ``nan`` and ``inf``, JSON Schema cannot say "finite" (JSON has neither), and every
    range check is false for NaN: ``max-gzip-ratio = nan`` turned the bomb limit off and
    ``analysis-timeout = inf`` failed every file."""
    if isinstance(value, float) and not math.isfinite(value):
        return f"{path}: {value} is not a finite number"
    if isinstance(value, Mapping):
        items: Any = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return None
    for key, item in items:
        found = _not_finite(item, f"{path}/{key}" if path else str(key))
        if found:
            return found
    return None


def validate(table: Mapping[str, Any], where: str) -> None:
    if not table:
        return  # nothing to validate: keep jsonschema off the start-up path
    bad_number = _not_finite(table)
    if bad_number:
        raise ConfigError(f"{where}: invalid configuration: {bad_number}")
    from cachelint.catalog import rules_dir, validation_errors

    errors = validation_errors(dict(table), "config.schema.json")
    for section in SECTIONS:
        value = table.get(section)
        if isinstance(value, dict) and (rules_dir() / "schema" / f"config-{section}.schema.json").is_file():
            errors += [f"{section}/{e}" for e in validation_errors(value, f"config-{section}.schema.json")]
    if errors:
        raise ConfigError(f"{where}: invalid configuration: {errors[0]}")
    from cachelint.catalog import unknown_selectors

    for key in ("select", "ignore", "extend-select"):
        bad = unknown_selectors(table.get(key, ()))
        if bad:
            raise ConfigError(f"{where}: invalid configuration: {key}: unknown rule selector {bad[0]!r}")
    for pattern, codes in table.get("per-file-ignores", {}).items():
        bad = unknown_selectors(codes)
        if bad:
            raise ConfigError(
                f"{where}: invalid configuration: per-file-ignores/{pattern}: unknown rule selector {bad[0]!r}"
            )


def _parse_inline(overrides: Sequence[str]) -> dict[str, Any]:
    merged: dict[str, Any] = {}
    tomllib = _tomllib()
    for item in overrides:
        try:
            data = tomllib.loads(item)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"--config {item!r}: not a file and not valid TOML: {exc}") from exc
        _deep_merge(merged, data)
    return merged


def _deep_merge(into: dict[str, Any], data: Mapping[str, Any]) -> None:
    for key, value in data.items():
        if isinstance(value, dict) and isinstance(into.get(key), dict):
            _deep_merge(into[key], value)
        else:
            into[key] = value


def _merge_overrides(table: dict[str, Any], overrides: Mapping[str, Any]) -> None:
    """Command line options over a file's table: ``extend-*`` lists add to the file's (as Ruff's
    ``--extend-select`` and ``--extend-exclude`` do), every other key replaces it."""
    for key, value in overrides.items():
        if value is None:
            continue
        if key in ("extend-select", "extend-exclude") and isinstance(table.get(key), list):
            table[key] = [*table[key], *value]
        else:
            table[key] = value


def _settings_from(table: Mapping[str, Any], config_path: Path | None, cwd: Path) -> Settings:
    root = config_path.parent if config_path else cwd
    return Settings(
        root=root,
        config_path=config_path,
        select=tuple(table.get("select", ("ALL",))),
        ignore=tuple(table.get("ignore", ())),
        extend_select=tuple(table.get("extend-select", ())),
        exclude=tuple(table.get("exclude", DEFAULT_EXCLUDE)),
        extend_exclude=tuple(table.get("extend-exclude", ())),
        per_file_ignores={k: tuple(v) for k, v in table.get("per-file-ignores", {}).items()},
        respect_gitignore=bool(table.get("respect-gitignore", True)),
        packs=tuple(table.get("packs", ())),
        max_file_size=int(table.get("max-file-size", DEFAULT_MAX_FILE_SIZE)),
        analysis_timeout=float(table.get("analysis-timeout", 30.0)),
        max_syntax_nodes=int(table.get("max-syntax-nodes", DEFAULT_MAX_SYNTAX_NODES)),
        cache_dir=str(table.get("cache-dir", ".cachelint_cache")),
        sections={s: dict(table.get(s, {})) for s in SECTIONS},
    )


class ConfigResolver:
    """The settings of each input: those of the closest configuration file above it (found once
    per directory, each file read and validated once), with the inline ``--config`` overrides and
    the command line's options applied over it. With ``--config FILE`` or ``--isolated``, one set
    of settings for every input.

    ``cwd`` only anchors relative ``--config`` paths and gives the root of the settings used where
    no file is found; which file applies to an input depends on where the input is, not on where
    the command runs."""

    def __init__(
        self,
        cwd: Path | None = None,
        config: Sequence[str] = (),
        isolated: bool = False,
        overrides: Mapping[str, Any] | None = None,
    ) -> None:
        self.cwd = (cwd or Path.cwd()).resolve()
        self.isolated = isolated
        self.overrides = dict(overrides or {})
        self.inline: list[str] = []
        self.fixed: Settings | None = None
        self._by_dir: dict[Path, Settings] = {}
        self._by_file: dict[Path | None, Settings] = {}
        config_file: Path | None = None
        for item in config:
            candidate = Path(item)
            if not candidate.is_absolute():
                candidate = self.cwd / candidate
            if "=" not in item and (candidate.is_file() or candidate.suffix == ".toml"):
                if not candidate.is_file():
                    raise ConfigError(f"--config {item}: no such file")
                config_file = candidate.resolve()
            else:
                self.inline.append(item)
        self._extra = _parse_inline(self.inline) if self.inline else {}
        if self._extra:
            validate(self._extra, "--config")
        if config_file is not None:
            data = _read_toml(config_file)
            if config_file.name == "pyproject.toml":
                data = data.get("tool", {}).get("cachelint", {})
            else:
                _refuse_tool_prefix(config_file, data)
            self.fixed = self._build(config_file, data)
        elif isolated:
            self.fixed = self._build(None, {})

    def _build(self, config_path: Path | None, table: Mapping[str, Any]) -> Settings:
        if config_path in self._by_file:
            return self._by_file[config_path]
        merged = json.loads(json.dumps(table))  # a deep copy: the file's table stays as read
        validate(merged, str(config_path) if config_path else "configuration")
        if self._extra:
            _deep_merge(merged, json.loads(json.dumps(self._extra)))
        if self.overrides:
            _merge_overrides(merged, self.overrides)
            validate(merged, "command line")
        settings = _settings_from(merged, config_path, self.cwd)
        if settings.packs:
            from cachelint.catalog import CatalogError, validate_pack_files

            try:
                validate_pack_files(settings.pack_paths(), settings.cache_folder())
            except CatalogError as exc:
                raise ConfigError(f"{config_path or 'command line'}: invalid configuration: packs: {exc}") from exc
        self._by_file[config_path] = settings
        return settings

    def for_directory(self, directory: Path) -> Settings:
        """The settings of the inputs in ``directory`` (an absolute path)."""
        if self.fixed is not None:
            return self.fixed
        directory = Path(os.path.abspath(directory))
        chain: list[Path] = []
        found: Settings | None = None
        for candidate in [directory, *directory.parents]:
            known = self._by_dir.get(candidate)
            if known is not None:
                found = known
                break
            chain.append(candidate)
            located = config_in(candidate)
            if located is not None:
                found = self._build(*located)
                break
        if found is None:
            found = self._build(None, {})
        for d in chain:
            self._by_dir[d] = found
        return found

    def for_path(self, path: Path) -> Settings:
        """The settings of one input file (or folder: its own configuration counts)."""
        path = Path(os.path.abspath(path))
        return self.for_directory(path if path.is_dir() else path.parent)

    def default(self) -> Settings:
        """The settings of the working directory (discovery's root, the audit's pipeline)."""
        return self.for_directory(self.cwd)


def load_settings(
    cwd: Path | None = None,
    config: Sequence[str] = (),
    isolated: bool = False,
    overrides: Mapping[str, Any] | None = None,
) -> Settings:
    """Resolve settings: the config file (given, or found from ``cwd`` up), inline overrides from
    ``--config key=value`` and finally CLI ``overrides`` (already in table form)."""
    return ConfigResolver(cwd, config, isolated, overrides).default()
