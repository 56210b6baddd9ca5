"""JSON and YAML indexes: plugin marketplaces (``marketplace.json``), plugin manifests
(``plugin.json``) and other lists of objects with a ``name``."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path, PurePosixPath
from typing import Any, Iterator

from cachelint.discovery import is_relative_to
from cachelint.skills.indexes.model import IndexEntry, IndexFile, Resolution
from cachelint.skills.indexes.resolve import (
    _folder_of_skills,
    _symlinked_skills,
    _is_local_link,
    _outside,
    _resolve_name,
    _settle_shared_names,
    resolve_path,
)
from cachelint.skills.loaders import Loader, Loaders, builtin_loaders
from cachelint.skills.tree import Skill, SkillTree


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


def marketplace_root(path: Path, loaders: Loaders | None = None) -> Path:
    """The folder relative plugin sources resolve from: "the marketplace root, which is the
    directory containing .claude-plugin/" (Claude Code plugin marketplaces); the same for each
    loader's documented location (``.agents/plugins/`` for Codex) and for other agents'
    ``.<agent>-plugin/`` folders; else the file's own folder."""
    loaders = loaders if loaders is not None else builtin_loaders()
    if loaders.marketplace_loader(path) is not None:
        return loaders.manifest_root(path, "marketplace")
    owner = loaders.marketplace_owner(path)
    if owner is not None and owner.marketplace is not None:
        # another marketplace file beside a loader's own resolves its sources as that file does
        return loaders.manifest_root(path.with_name(PurePosixPath(owner.marketplace).name), "marketplace")
    parent = path.parent
    if parent.name.startswith(".") and parent.name.endswith("-plugin"):
        return parent.parent
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


def parse_marketplace(
    tree: SkillTree, path: Path, display: str, text: str, data: Any, loaders: Loaders | None = None
) -> IndexFile:
    """Plugin entries: a relative ``source`` resolves from the marketplace root; a source-only
    plugin lists the skills its loader loads from that folder (a folder of commands or agents
    only is a plugin too, and lists none); a source that names no folder, or a folder of skills
    that is no plugin root, is an entry without a skill. ``skills`` paths resolve from the
    plugin's folder (then the marketplace's folder and the repository root, conventions seen in
    the wild). Sources fetched from elsewhere (``github``, ``url``, ``git-subdir``, ``npm``,
    ``archive``, ``command`` objects) are not checked."""
    loaders = loaders if loaders is not None else builtin_loaders()
    locate = _Locator(text)
    folder = path.parent
    root = marketplace_root(path, loaders)
    loader = loaders.marketplace_loader(path)
    root_label = "the marketplace root" if root == tree.root else f"the marketplace root {_rel(tree, root)}/"
    metadata = data.get("metadata") if isinstance(data, dict) else None
    plugin_root = (
        metadata.get("pluginRoot")
        if isinstance(metadata, dict) and isinstance(metadata.get("pluginRoot"), str)
        else None
    )
    entries: list[IndexEntry] = []
    plugin_folders: list[Path] = []
    for plugin in data.get("plugins", []) if isinstance(data, dict) else []:
        if not isinstance(plugin, dict):
            continue
        source = local_source(plugin.get("source"))
        skills = _as_list(plugin.get("skills"))
        name = plugin.get("name") if isinstance(plugin.get("name"), str) else None
        first = len(entries)
        plugin_bases: list[tuple[str, Path]] = []
        if isinstance(source, str) and _is_local_link(source):
            candidate, outside = _plugin_source(tree, source, root, plugin_root)
            line, col, end = locate.find(source)
            if outside:
                entries.append(
                    IndexEntry(line, col, end, source, path=source, resolution=Resolution(outside=True), strict=True)
                )
            elif candidate is not None and candidate.is_dir():
                plugin_folders.append(candidate)
                plugin_bases.append((f"the plugin source {source} from {root_label}", candidate))
                if not skills:
                    below = tree.skills_under(candidate)
                    loaded = source_skills(tree, candidate, loader)
                    res = Resolution(
                        skills=loaded, collection=True, resolved=root_label, present=not below or bool(loaded)
                    )
                    if below and not loaded:
                        res.unloaded = len([s for s in below if not s.nested])
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
        for entry in entries[first:]:
            entry.plugin = name
    folders = tuple(sorted(set(plugin_folders)))
    return IndexFile(path, display, "marketplace", entries, plugin_folders=folders)


def local_source(source: Any) -> Any:
    """A plugin entry's source, with Codex's object for a folder of the repository read as its
    path: ``{"source": "local", "path": "./plugins/x"}`` ("point each source.path at the plugin
    folder with a ./-prefixed path relative to the marketplace root", Codex build plugins docs).
    Any other object is a plugin fetched from elsewhere and stays as it is."""
    if isinstance(source, dict) and source.get("source") == "local" and isinstance(source.get("path"), str):
        return source["path"]
    return source


def source_skills(tree: SkillTree, plugin: Path, loader: Loader | None) -> list[Skill]:
    """The skills a marketplace's loader loads from the plugin folder ``plugin``: Claude Code
    loads ``<plugin>/skills/<name>/SKILL.md``, or a SKILL.md at the plugin root when there is no
    skills/ folder (plugins reference: ``plugin_skills``); other loaders read the skills folders
    their plugin manifest names (``"skills": "./skills/"`` in ``.codex-plugin/plugin.json``),
    scanned recursively, or, with none named, every skill below the plugin's folder."""
    if loader is not None and loader.key == "claude-code":
        return plugin_skills(tree, plugin)
    manifest = (
        read_manifest(plugin / PurePosixPath(loader.plugin_manifest)) if loader and loader.plugin_manifest else None
    )
    named = (
        [raw for raw in _as_list(manifest.get("skills")) if isinstance(raw, str)] if isinstance(manifest, dict) else []
    )
    if not named:
        return tree.skills_under(plugin)
    found: dict[Path, Skill] = {}
    for raw in named:
        for skill in tree.skills_under(Path(os.path.normpath(plugin / PurePosixPath(raw)))):
            found.setdefault(skill.path, skill)
    return sorted(found.values(), key=lambda s: s.display)


def plugin_skills(tree: SkillTree, plugin: Path) -> list[Skill]:
    """The skills a Claude Code plugin at ``plugin`` loads by itself: ``skills/<name>/SKILL.md``
    (symlinked skill folders included: the cache copies their targets), the ``skills`` paths of
    its ``.claude-plugin/plugin.json``, or, with neither, a ``SKILL.md`` at the plugin root."""
    folder = plugin / "skills"
    found: dict[Path, Skill] = {s.path: s for s in tree.skills_under(folder) if s.folder.parent == folder}
    try:
        with os.scandir(folder) as entries:
            linked = sorted(Path(e.path) for e in entries if e.is_symlink())
    except OSError:
        linked = []
    for link in linked:
        for skill in _symlinked_skills(tree, link):
            found.setdefault(skill.path, skill)
    declared = _declared_skills(tree, plugin)
    for skill in declared:
        found.setdefault(skill.path, skill)
    if not found and not os.path.isdir(folder) and not declared and plugin in tree.by_folder:
        found[tree.by_folder[plugin].path] = tree.by_folder[plugin]
    return sorted(found.values(), key=lambda s: s.display)


def _declared_skills(tree: SkillTree, plugin: Path) -> list[Skill]:
    """The skills the ``skills`` paths of ``<plugin>/.claude-plugin/plugin.json`` lead to."""
    data = read_manifest(plugin / ".claude-plugin" / "plugin.json")
    out: list[Skill] = []
    for raw in _as_list(data.get("skills")) if isinstance(data, dict) else []:
        res = resolve_path(tree, raw, [("the plugin root", plugin)])
        if res.collection:
            # a folder of skills: its <name>/SKILL.md children, as the default skills/ scan reads
            base = Path(os.path.normpath(plugin / PurePosixPath(raw)))
            out.extend(s for s in res.skills if s.folder.parent == base)
        else:
            out.extend(res.skills)
    return out


def read_manifest(path: Path) -> Any:
    """A plugin manifest's JSON, or None when it is missing, too large or not JSON."""
    try:
        if path.stat().st_size > 1 << 20:
            return None
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _rel(tree: SkillTree, path: Path) -> str:
    return path.relative_to(tree.root).as_posix() if is_relative_to(path, tree.root) else path.as_posix()


def plugin_root(path: Path) -> Path:
    """The folder of the plugin whose ``.claude-plugin/plugin.json`` is ``path``."""
    return path.parent.parent if path.parent.name.endswith("-plugin") else path.parent


def parse_plugin_manifest(
    tree: SkillTree, path: Path, display: str, text: str, data: Any, loaders: Loaders | None = None
) -> IndexFile:
    locate = _Locator(text)
    root = plugin_root(path)
    entries = []
    for raw in _as_list(data.get("skills")) if isinstance(data, dict) else []:
        line, col, end = locate.find(raw)
        res = resolve_path(tree, raw, [("the plugin root", root), ("the repository root", tree.root)])
        _folder_of_skills(raw, res)
        entries.append(IndexEntry(line, col, end, raw, path=raw, resolution=res, strict=True))
    name = data.get("name") if isinstance(data, dict) and isinstance(data.get("name"), str) else None
    for entry in entries:
        entry.plugin = name
    return IndexFile(path, display, "plugin", entries)


def parse_data(tree: SkillTree, path: Path, display: str, text: str, data: Any) -> IndexFile:
    """Any JSON/YAML list of objects with a ``name`` (and a description or path). Lists of other
    components (agents, commands, MCP servers, held under such a key or typed so) are not lists
    of skills, nor are entries whose path names a file: a skill is a folder."""
    locate = _Locator(text)
    entries = []
    for obj in _name_objects(data, depth=0):
        if not _may_be_skill(obj):
            continue
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


# Component kinds other than skills, as lists name them (a key holding the list, or an object's
# "type"/"kind"): Claude Code plugins bundle agents, commands, hooks and MCP servers beside
# skills (plugins reference, "Plugin components reference"), and catalogs list them alike.
OTHER_COMPONENTS = frozenset(
    {
        "agent",
        "agents",
        "subagent",
        "subagents",
        "command",
        "commands",
        "hook",
        "hooks",
        "mcp",
        "mcps",
        "mcpservers",
        "mcp-server",
        "mcp-servers",
        "server",
        "servers",
        "tool",
        "tools",
        "prompt",
        "prompts",
        "rule",
        "rules",
        "setting",
        "settings",
        "template",
        "templates",
        "workflow",
        "workflows",
        "output-style",
        "output-styles",
        "theme",
        "themes",
    }
)


def _may_be_skill(obj: dict) -> bool:
    for key in ("type", "kind", "component"):
        value = obj.get(key)
        if isinstance(value, str) and value.strip().lower().replace("_", "-") in OTHER_COMPONENTS:
            return False
    target = obj.get("path") if isinstance(obj.get("path"), str) else obj.get("file")
    if isinstance(target, str):
        last = PurePosixPath(target.split("#", 1)[0].rstrip("/")).name
        if "." in last and last != "SKILL.md":
            return False  # agents/reviewer.md, mcps/server.json: a file, not a skill folder
    return True


def _name_objects(data: Any, depth: int, key: str = "") -> Iterator[dict]:
    if depth > 6:
        return
    if isinstance(data, list):
        if key.lower().replace("_", "-") in OTHER_COMPONENTS:
            return  # {"agents": [...]}: a list of agents, whatever their names
        objs = [d for d in data if isinstance(d, dict) and isinstance(d.get("name"), str)]
        if len(objs) >= 2 and all(any(k in d for k in ("description", "when_to_use", "path", "source")) for d in objs):
            yield from objs
            return
        for item in data:
            yield from _name_objects(item, depth + 1)
    elif isinstance(data, dict):
        for sub in sorted(data, key=str):
            yield from _name_objects(data[sub], depth + 1, str(sub))


def load_data(text: str, suffix: str) -> Any:
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


# The digests of a discovery index: "sha256:{hex}", 64 lowercase hexadecimal characters.
_DIGEST = re.compile(r"^sha256:([0-9a-f]{64})$")
# Artifacts larger than this are not hashed (a skill's SKILL.md or archive is far smaller).
_MAX_DIGEST_BYTES = 64 << 20


def parse_well_known(tree: SkillTree, path: Path, display: str, text: str, data: Any) -> IndexFile:
    """``/.well-known/agent-skills/index.json`` (Agent Skills discovery, v0.2.0): each skill
    entry names its artifact by ``url`` (``type`` ``skill-md``: the SKILL.md; ``archive``: an
    archive) with the ``digest`` ``sha256:{hex}`` of its raw bytes; v0.1.0 entries name their
    files, the SKILL.md at ``/.well-known/agent-skills/{name}/SKILL.md``. A local URL resolves
    from the site root (the folder holding ``.well-known``) when it starts with ``/``, else from
    the index's folder; a URL of another site is not checked. An artifact that is missing is an
    entry without a skill; one whose bytes do not match its digest is refused by every client
    ("clients MUST NOT use unverified content")."""
    loaders = builtin_loaders()
    site = loaders.manifest_root(path, "well_known_index") if loaders.well_known_loader(path) else path.parent
    locate = _Locator(text)
    entries: list[IndexEntry] = []
    skills = data.get("skills") if isinstance(data, dict) else None
    for item in skills if isinstance(skills, list) else []:
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            continue
        name = item["name"]
        url = item.get("url")
        kind = item.get("type", "skill-md")
        if not isinstance(url, str):
            url = f"/.well-known/agent-skills/{name}/SKILL.md"
        line, col, end = locate.find(item["url"] if isinstance(item.get("url"), str) else name)
        if not _is_local_link(url):
            # an artifact served from another site: the name may still list a local skill
            entries.append(
                IndexEntry(
                    line, col, end, name, name=name, resolution=_resolve_name(tree, name, path.parent), external=True
                )
            )
            continue
        base = site if url.startswith("/") else path.parent
        target = Path(os.path.normpath(base / PurePosixPath(url.lstrip("/"))))
        if not (target == tree.root or is_relative_to(target, tree.root)):
            entries.append(IndexEntry(line, col, end, url, path=url, resolution=Resolution(outside=True), strict=True))
            continue
        label = "the site root" if url.startswith("/") else "the index's folder"
        if kind == "skill-md":
            skill = tree.by_folder.get(target.parent) if target.name == "SKILL.md" else None
            res = Resolution(skills=[skill] if skill else [], resolved=label if skill else None, tried=[label])
        else:
            res = Resolution(present=target.is_file(), tried=[label])
        entry = IndexEntry(line, col, end, url, name=name, path=url, resolution=res, strict=kind == "skill-md")
        expected = item.get("digest")
        if isinstance(expected, str) and target.is_file():
            res.present = True
            actual = _sha256(target)
            match = _DIGEST.match(expected)
            if actual is not None and (match is None or match.group(1) != actual):
                res.digest = (expected, "sha256:" + actual)
        entries.append(entry)
    return IndexFile(path, display, "well-known", entries)


def _sha256(path: Path) -> str | None:
    import hashlib

    try:
        if path.stat().st_size > _MAX_DIGEST_BYTES:
            return None
        with open(path, "rb") as handle:
            return hashlib.sha256(handle.read()).hexdigest()
    except OSError:
        return None
