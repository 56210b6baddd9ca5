"""Detection: which files of a tree are indexes (configured, detected, or selections of some
skills), their stale entries, and the blocks, layouts and plugins an index's scope is read from."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from cachelint.discovery import is_relative_to
from cachelint.skills.indexes.manifests import _load_data, parse_data, parse_marketplace, parse_plugin_manifest
from cachelint.skills.indexes.markdown import parse_markdown
from cachelint.skills.indexes.model import _SLUG, IndexEntry, IndexFile, IndexRules, has_prompt_name
from cachelint.skills.tree import SkillTree

if TYPE_CHECKING:
    from cachelint.textio import FileReader
    from cachelint.diagnostics import Diagnostic


def parse_index_file(
    tree: SkillTree, path: Path, display: str, text: str, rules: IndexRules = IndexRules()
) -> IndexFile | None:
    suffix = path.suffix.lower()
    if suffix in (".md", ".markdown", ".txt"):
        return parse_markdown(tree, path, display, text, rules)
    data = _load_data(text, suffix)
    if data is None:
        return None
    if path.name == "marketplace.json" or (isinstance(data, dict) and isinstance(data.get("plugins"), list)):
        return parse_marketplace(tree, path, display, text, data)
    if path.name == "plugin.json":
        return parse_plugin_manifest(tree, path, display, text, data)
    return parse_data(tree, path, display, text, data)


def detect_indexes(
    tree: SkillTree, rules: IndexRules, max_file_size: int, reader: "FileReader | None" = None
) -> tuple[list[IndexFile], list[Diagnostic]]:
    """The index files of the tree and CL001 problems of configured, given ones.

    Configured files are indexes whatever they hold. Other files are indexes when their entries
    name two or more skills one by one; a Markdown or data file must also name at least
    ``min_coverage`` of the folders' skills it draws from (a page that names 2 of 14 skills is
    documentation mentioning them, not the list a prompt is built from), and name each skill
    about once (worked examples and change logs name the same skills again and again). A marketplace's
    ``skills`` lists ARE what gets loaded, so they need no coverage.
    """
    from cachelint.diagnostics import Diagnostic, unreadable
    from cachelint.discovery import compile_patterns
    from cachelint.textio import DISK

    wanted = compile_patterns(rules.index)
    unwanted = _combined(compile_patterns(rules.not_index))
    indexes: list[IndexFile] = []
    problems: list[Diagnostic] = []
    for f in tree.index_files:
        rel = f.path.relative_to(tree.root).as_posix() if is_relative_to(f.path, tree.root) else f.path.name
        configured = any(rule.matches(rel) for rule in wanted)
        if not configured and _matches(unwanted, rel):
            continue
        if not tree.skills and not configured:
            continue
        if not configured:
            try:
                if os.stat(f.path).st_size > rules.max_index_bytes:
                    continue
            except OSError:
                continue
        source = (reader or DISK).read_text(f.path, f.display, max_file_size)
        if isinstance(source, Diagnostic):
            if configured and tree.is_given(f.path):
                problems.append(source)
            continue
        if (
            not configured
            and f.path.name not in ("marketplace.json", "plugin.json")
            and not _may_list_skills(tree, f.path, source.text)
        ):
            continue
        try:
            parsed = parse_index_file(tree, f.path, f.display, source.text, rules)
        except RecursionError:
            if configured and tree.is_given(f.path):
                problems.append(unreadable(f.display, "index file is nested too deeply to read"))
            continue
        if parsed is None:
            continue
        parsed.configured = configured
        if configured or _is_detected_index(tree, parsed, rules.min_coverage):
            indexes.append(parsed)
        elif _is_selection(tree, parsed):
            parsed.selection = True
            indexes.append(parsed)
    return indexes, problems


def _combined(rules) -> tuple[list, list]:
    """The file patterns and the folder patterns (``dir/`` ones too) of a pattern set."""
    files = [r for r in rules if not r.dir_only and not r.negated]
    dirs = [r for r in rules if not r.negated]
    return files, dirs


def _matches(combined, rel: str) -> bool:
    """gitignore-like: a pattern matches the file, or a folder pattern matches a parent folder."""
    files, dirs = combined
    if any(rule.matches(rel) for rule in files):
        return True
    if not dirs:
        return False
    parts = rel.split("/")
    return any(rule.matches("/".join(parts[: i + 1])) for i in range(len(parts) - 1) for rule in dirs)


# Entries per distinct skill above which a Markdown or data file is a document that keeps naming
# skills, not an index (an index that lists a few skills under two headings stays well below).
REPEAT_LIMIT = 1.5


def _is_detected_index(tree: SkillTree, index: IndexFile, min_coverage: float) -> bool:
    """A marketplace or plugin manifest with an entry is what a loader reads. A Markdown or data
    file names two skills one by one, or one when it has a conventional index name (AGENTS.md,
    CLAUDE.md) or links into a skill folder, and names each about once; it must also cover
    ``min_coverage`` of the folders it draws from (a CLAUDE.md whose status notes name 4 of 47
    skills is no index of them), counting its stale entries too (a table whose skills were deleted stays an index: the staler it gets, the more
    it needs checking)."""
    if index.kind in ("marketplace", "plugin"):
        return bool(index.entries)
    named = index.named_directly(headings=False)
    conventional = has_prompt_name(index.path)
    linked = any(
        e.strict and e.skills and not e.mention and e.resolution is not None and not e.resolution.collection
        for e in index.entries
    )
    if len(named) < (1 if conventional or linked else 2):
        return False
    # An index lists each skill once; a page of worked examples or a change log names the same
    # skills again and again ("Skills used: …" under every example).
    mentions = sum(
        1
        for e in index.entries
        if e.skills
        and not e.heading
        and not e.mention
        and not (e.resolution and (e.resolution.collection or e.resolution.ambiguous))
    )
    if mentions > REPEAT_LIMIT * len(named):
        return False
    parents = {s.folder.parent for s in named}
    pool = [s for s in tree.skills if s.folder.parent in parents and not s.nested]
    return len(named) + len(stale_entries(index)) >= min_coverage * len(pool)


def _is_selection(tree: SkillTree, index: IndexFile) -> bool:
    """A Markdown file whose lists name skills one by one, too few of their folders' to be their
    index (docs/BUNDLES.md: packs of five skills each), yet each list mostly of skills."""
    if index.kind != "markdown" or len(index.named_directly(headings=False)) < 2:
        return False
    mentions = sum(1 for e in index.entries if e.skills and not e.heading and not e.mention)
    if mentions > REPEAT_LIMIT * len(index.named_directly(headings=False)):
        return False
    return bool(selection_blocks(index))


def selection_blocks(index: IndexFile) -> set[int]:
    """The lists and tables of which two or more entries, and most, name skills."""
    hits: dict[int, int] = {}
    sizes: dict[int, int] = {}
    for entry in index.entries:
        if entry.heading or entry.mention or entry.external:
            continue
        sizes[entry.block] = sizes.get(entry.block, 0) + 1
        if entry.skills:
            hits[entry.block] = hits.get(entry.block, 0) + 1
    return {block for block, count in hits.items() if count >= 2 and 2 * count > sizes[block]}


def listing_blocks(index: IndexFile) -> set[int]:
    """Lists and tables of skills although most of their names lead nowhere: a table whose key
    column is headed "Skill", and, in a file whose lists are lists of skills (three or more, and
    two thirds of the lists that name a skill, are mostly skills: a page of bundles), every list
    that names a skill (a bundle written against skills that were renamed or never added). Each
    must name one skill at least."""
    hits = block_hits(index)
    chosen = {block for block in index.skill_tables if hits.get(block, 0)}
    lists = selection_blocks(index)
    named = {e.block for e in index.entries if e.skills and not (e.heading or e.mention or e.external)}
    if len(lists) >= 3 and 3 * len(lists) >= 2 * len(named):
        chosen |= named
    return chosen


def block_hits(index: IndexFile) -> dict[int, int]:
    """Entries that lead to a skill, per Markdown block (list or table)."""
    hits: dict[int, int] = {}
    for entry in index.entries:
        if entry.skills:
            hits[entry.block] = hits.get(entry.block, 0) + 1
    return hits


def stale_entries(index: IndexFile, needed: int = 2) -> list[IndexEntry]:
    """Entries that lead to nothing: a path (link, marketplace path or source) to no skill
    and no plugin, or a skill-like name in a list or table whose other entries (``needed`` of
    them) name skills. Paths that leave the repository are not counted (nor read)."""
    hits = block_hits(index)
    out = []
    for entry in index.entries:
        res = entry.resolution
        if (
            entry.skills
            or entry.external
            or entry.heading
            or entry.mention
            or (res is not None and (res.present or res.outside))
        ):
            continue
        if entry.strict or (entry.name is not None and _SLUG.match(entry.name) and hits.get(entry.block, 0) >= needed):
            out.append(entry)
    return out


# An index that lists skills of this many sibling folders of one layout (``plugins/<p>/skills``),
# and of two thirds of them at least, is the index of the layout (a guide that names the skills
# of 3 of 5 sub-plugins is not).
LAYOUT_MIN_FOLDERS = 5


def layout_folders(tree: SkillTree, parents: set[Path]) -> set[Path]:
    """The folders of skills laid out like those an index draws from: an index that lists the
    skills of most plugins of ``plugins/`` (``plugins/<p>/skills/<skill>``), by plugin, also lists
    the plugins it leaves out entirely ("181 skills across 50 plugins" naming 44 of them)."""
    by_layout: dict[tuple[Path, str], set[Path]] = {}
    for parent in parents:
        # a folder of plugins below the root (``plugins/``): at the root, ``<x>/skills`` is as
        # often an agent's own folder (``.gemini/skills``) or an example's as a plugin's
        top = parent.parent.parent
        if top != tree.root and is_relative_to(top, tree.root):
            by_layout.setdefault((top, parent.name), set()).add(parent)
    out: set[Path] = set()
    for (top, name), drawn in by_layout.items():
        if len(drawn) < LAYOUT_MIN_FOLDERS:
            continue
        alike = {
            s.folder.parent
            for s in tree.skills_under(top)
            if s.folder.parent.name == name and s.folder.parent.parent.parent == top and not s.nested
        }
        if 3 * len(drawn) >= 2 * len(alike):
            out |= alike
    return out


# Where a folder is a plugin: its manifest (Claude Code, Cursor, Codex layouts).
PLUGIN_MANIFESTS = (".claude-plugin/plugin.json", ".cursor-plugin/plugin.json", ".codex-plugin/plugin.json")


def enclosing_plugin(tree: SkillTree, path: Path) -> Path | None:
    """The plugin folder (one holding ``.claude-plugin/plugin.json``) that holds the file
    ``path``, below the repository root. Stats, cached per folder."""
    cache: dict[Path, Path | None] = tree.__dict__.setdefault("_plugin_of_folder", {})
    chain: list[Path] = []
    folder = path.parent
    found: Path | None = None
    while folder != tree.root and is_relative_to(folder, tree.root):
        if folder in cache:
            found = cache[folder]
            break
        chain.append(folder)
        if any(os.path.isfile(folder / manifest) for manifest in PLUGIN_MANIFESTS):
            found = folder
            break
        folder = folder.parent
    for visited in chain:
        cache[visited] = found
    return found


def only_in_other_plugins(tree: SkillTree, index: IndexFile, name: str) -> bool:
    """Whether the skills (or folders of skills) called ``name`` all lie outside the plugin that
    holds the index: an installed plugin is copied on its own, so a plugin's README or CLAUDE.md
    that names a skill of another plugin names one its plugin does not have (Claude Code
    plugins reference, "Plugin caching and file resolution")."""
    plugin = enclosing_plugin(tree, index.path)
    if plugin is None:
        return False
    folders = [s.folder for s in tree.by_name.get(name, ())] + list(tree.collections_by_name.get(name, ()))
    return bool(folders) and not any(is_relative_to(folder, plugin) for folder in folders)


_WORD = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9_.-]*[A-Za-z0-9_-])?")


def _may_list_skills(tree: SkillTree, path: Path, text: str) -> bool:
    """Prefilter, linear in the text: a detected index names two skills one by one, by name or
    by folder (a path ends in the folder name), or one when it has an index's name or links to
    it, so a file mentioning fewer cannot be one."""
    named = len(set(_WORD.findall(text)) & tree.by_name.keys())
    return named >= 2 or (named == 1 and (has_prompt_name(path) or "](" in text))
