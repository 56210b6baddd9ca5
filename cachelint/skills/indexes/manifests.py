"""JSON and YAML indexes: plugin marketplaces (``marketplace.json``), plugin manifests
(``plugin.json``) and other lists of objects with a ``name``."""

from __future__ import annotations

import json
import os
from pathlib import Path, PurePosixPath
from typing import Any, Iterator

from cachelint.discovery import is_relative_to
from cachelint.skills.indexes.model import IndexEntry, IndexFile, Resolution
from cachelint.skills.indexes.resolve import (
    _folder_of_skills,
    _is_local_link,
    _outside,
    _resolve_name,
    _settle_shared_names,
    resolve_path,
)
from cachelint.skills.tree import SkillTree


class _Locator:
    """Finds the line of successive string values in a JSON/YAML text (document order)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.cursor = 0

    def find(self, value: str) -> tuple[int, int, int]:
        for needle in (json.dumps(value), f"'{value}'", value):
            at = self.text.find(needle, self.cursor)
            if at == -1:
                at = self.text.find(needle)
            if at != -1:
                self.cursor = at + len(needle)
                line = self.text.count("\n", 0, at) + 1
                column = at - (self.text.rfind("\n", 0, at) + 1) + 1
                return line, column, column + len(needle)
        return 1, 1, 1


def _as_list(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


MARKETPLACE_FOLDERS = (".claude-plugin", ".cursor-plugin")


def marketplace_root(path: Path) -> Path:
    """The folder relative plugin sources resolve from: the one holding ``.claude-plugin/``
    (``.cursor-plugin/``; ``.agents/plugins/`` for that layout), else the file's own folder."""
    parent = path.parent
    if parent.name in MARKETPLACE_FOLDERS:
        return parent.parent
    if parent.name == "plugins" and parent.parent.name == ".agents":
        return parent.parent.parent
    return parent


def _plugin_source(tree: SkillTree, source: str, root: Path, plugin_root: str | None) -> tuple[Path | None, bool]:
    """(the folder a relative plugin source names, whether it leaves the repository). A source
    without ``./`` is read under ``metadata.pluginRoot`` when the marketplace sets one."""
    if _outside(source):
        return None, True
    base = root
    if plugin_root and not source.startswith(("./", "../")) and source not in (".", ".."):
        base = Path(os.path.normpath(root / PurePosixPath(plugin_root)))
    candidate = Path(os.path.normpath(base / PurePosixPath(source)))
    if not (candidate == tree.root or is_relative_to(candidate, tree.root)):
        return None, True
    return candidate, False


def parse_marketplace(tree: SkillTree, path: Path, display: str, text: str, data: Any) -> IndexFile:
    """Plugin entries: a relative ``source`` resolves from the marketplace root; a source-only
    plugin loads every skill below its folder, so the entry lists them all (a folder of commands
    or agents only is a plugin too, and lists none); a source that names no folder is an entry
    without a skill. ``skills`` paths resolve from the plugin's folder (then the marketplace's
    folder and the repository root, conventions seen in the wild)."""
    locate = _Locator(text)
    folder = path.parent
    root = marketplace_root(path)
    root_label = "the marketplace root" if root == tree.root else f"the marketplace root {_rel(tree, root)}/"
    metadata = data.get("metadata") if isinstance(data, dict) else None
    plugin_root = (
        metadata.get("pluginRoot")
        if isinstance(metadata, dict) and isinstance(metadata.get("pluginRoot"), str)
        else None
    )
    entries: list[IndexEntry] = []
    for plugin in data.get("plugins", []) if isinstance(data, dict) else []:
        if not isinstance(plugin, dict):
            continue
        source = plugin.get("source")
        skills = _as_list(plugin.get("skills"))
        plugin_bases: list[tuple[str, Path]] = []
        if isinstance(source, str) and _is_local_link(source):
            candidate, outside = _plugin_source(tree, source, root, plugin_root)
            line, col, end = locate.find(source)
            if outside:
                entries.append(
                    IndexEntry(line, col, end, source, path=source, resolution=Resolution(outside=True), strict=True)
                )
            elif candidate is not None and candidate.is_dir():
                plugin_bases.append((f"the plugin source {source} from {root_label}", candidate))
                if not skills:
                    res = Resolution(
                        skills=tree.skills_under(candidate), collection=True, resolved=root_label, present=True
                    )
                    entries.append(
                        IndexEntry(line, col, end, source, path=source, resolution=res, strict=True, source=True)
                    )
            else:
                res = Resolution(tried=[root_label])
                entries.append(
                    IndexEntry(line, col, end, source, path=source, resolution=res, strict=True, source=True)
                )
        bases: list[tuple[str, Path]] = []
        for label, base in plugin_bases + [("the marketplace's folder", folder), ("the repository root", tree.root)]:
            if all(base != b for _, b in bases):
                bases.append((label, base))
        if isinstance(source, dict) or (isinstance(source, str) and not _is_local_link(source)):
            continue  # a plugin fetched from elsewhere: its skills paths are inside that copy
        for raw in skills:
            line, col, end = locate.find(raw)
            res = resolve_path(tree, raw, bases)
            _folder_of_skills(raw, res)
            entries.append(IndexEntry(line, col, end, raw, path=raw, resolution=res, strict=True))
    return IndexFile(path, display, "marketplace", entries)


def _rel(tree: SkillTree, path: Path) -> str:
    return path.relative_to(tree.root).as_posix() if is_relative_to(path, tree.root) else path.as_posix()


def plugin_root(path: Path) -> Path:
    """The folder of the plugin whose ``.claude-plugin/plugin.json`` is ``path``."""
    return path.parent.parent if path.parent.name.endswith("-plugin") else path.parent


def parse_plugin_manifest(tree: SkillTree, path: Path, display: str, text: str, data: Any) -> IndexFile:
    locate = _Locator(text)
    root = plugin_root(path)
    entries = []
    for raw in _as_list(data.get("skills")) if isinstance(data, dict) else []:
        line, col, end = locate.find(raw)
        res = resolve_path(tree, raw, [("the plugin root", root), ("the repository root", tree.root)])
        _folder_of_skills(raw, res)
        entries.append(IndexEntry(line, col, end, raw, path=raw, resolution=res, strict=True))
    return IndexFile(path, display, "plugin", entries)


def parse_data(tree: SkillTree, path: Path, display: str, text: str, data: Any) -> IndexFile:
    """Any JSON/YAML list of objects with a ``name`` (and a description or path)."""
    locate = _Locator(text)
    entries = []
    for obj in _name_objects(data, depth=0):
        name = obj["name"]
        line, col, end = locate.find(name)
        hint = " ".join(v for v in (obj.get("path"), obj.get("source")) if isinstance(v, str))
        entries.append(
            IndexEntry(
                line, col, end, name, name=name, resolution=_resolve_name(tree, name, path.parent, hint), block=1
            )
        )
    _settle_shared_names(entries)
    return IndexFile(path, display, "data", entries)


def _name_objects(data: Any, depth: int) -> Iterator[dict]:
    if depth > 6:
        return
    if isinstance(data, list):
        objs = [d for d in data if isinstance(d, dict) and isinstance(d.get("name"), str)]
        if len(objs) >= 2 and all(any(k in d for k in ("description", "when_to_use", "path", "source")) for d in objs):
            yield from objs
            return
        for item in data:
            yield from _name_objects(item, depth + 1)
    elif isinstance(data, dict):
        for key in sorted(data, key=str):
            yield from _name_objects(data[key], depth + 1)


def _load_data(text: str, suffix: str) -> Any:
    """JSON or YAML data, or None when the file is not a parseable index candidate. A file that
    does not parse is not reported: an arbitrary .json/.yaml is not ours to judge unless it is an
    index, and an unparseable one lists nothing."""
    try:
        if suffix == ".json":
            return json.loads(text)
        from cachelint.skills.frontmatter import MAX_EXPANDED_NODES, _expanded_size
        from cachelint.yamlload import SafeLoader

        loader = SafeLoader(text)
        try:
            node = loader.get_single_node()
            if node is None or _expanded_size(node, MAX_EXPANDED_NODES * 10) is None:
                return None
            return loader.construct_document(node)
        finally:
            loader.dispose()
    except Exception:  # noqa: BLE001 - any parse failure (incl. RecursionError): not an index
        return None
