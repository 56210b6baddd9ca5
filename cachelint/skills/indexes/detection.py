"""Detection: which files of a tree are indexes (configured, detected, or selections of some
skills), their stale entries, and the blocks, layouts and plugins an index's scope is read from."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from cachelint.discovery import is_relative_to
from cachelint.skills.indexes.manifests import (
    load_data,
    parse_data,
    parse_marketplace,
    parse_plugin_manifest,
    parse_well_known,
)
from cachelint.skills.indexes.markdown import parse_markdown
from cachelint.skills.indexes.model import _SLUG, IndexEntry, IndexFile, IndexRules, has_prompt_name, prompt_readers
from cachelint.skills.loaders import builtin_loaders
from cachelint.skills.tree import SkillTree

# The manifests plugin loaders read by their file name (docs/background/skills.md).
MANIFEST_NAMES = ("marketplace.json", "plugin.json")

if TYPE_CHECKING:
    from cachelint.textio import FileReader
    from cachelint.diagnostics import Diagnostic


def parse_index_file(
    tree: SkillTree, path: Path, display: str, text: str, rules: IndexRules = IndexRules()
) -> IndexFile | None:
    suffix = path.suffix.lower()
    if suffix in (".md", ".markdown", ".txt"):
        return parse_markdown(tree, path, display, text, rules)
    data = load_data(text, suffix)
    if data is None:
        return None
    loaders = rules.loaders
    # A marketplace is a file named marketplace.json (in .claude-plugin/, .agents/plugins/,
    # .cursor-plugin/ and the like) or one of its shape (a "plugins" list: the source a generated
    # marketplace.json is built from); a test's registry is no index (not_index_data)
    if path.name == "marketplace.json" or (isinstance(data, dict) and isinstance(data.get("plugins"), list)):
        index = parse_marketplace(tree, path, display, text, data, loaders)
    elif path.name == "plugin.json":
        index = parse_plugin_manifest(tree, path, display, text, data, loaders)
    elif loaders.well_known_loader(path) is not None:
        index = parse_well_known(tree, path, display, text, data)
    else:
        return parse_data(tree, path, display, text, data)
    loader = loaders.marketplace_loader(path) or loaders.plugin_loader(path) or loaders.well_known_loader(path)
    index.readers = (loader.name,) if loader is not None else ()
    return index


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
    unwanted_data = _combined(compile_patterns(rules.not_index_data))
    indexes: list[IndexFile] = []
    problems: list[Diagnostic] = []
    for f in tree.index_files:
        rel = f.path.relative_to(tree.root).as_posix() if is_relative_to(f.path, tree.root) else f.path.name
        configured = any(rule.matches(rel) for rule in wanted)
        if not configured and (
            _matches(unwanted, rel) or (f.path.suffix.lower() in _DATA_SUFFIXES and _matches(unwanted_data, rel))
        ):
            continue
        if not tree.skills and not configured:
            continue
        # Files an agent or a plugin loader reads by their name are read up to max-file-size like
        # any input, and one that cannot be read is a CL001: a 9 MB AGENTS.md or marketplace.json
        # used to be skipped without a word. Other candidates past max_index_bytes are documents.
        read_by_name = f.path.name in MANIFEST_NAMES or has_prompt_name(f.path, rules.loaders)
        if not configured and not read_by_name:
            try:
                if os.stat(f.path).st_size > rules.max_index_bytes:
                    continue
            except OSError:
                continue
        source = (reader or DISK).read_text(f.path, f.display, max_file_size)
        if isinstance(source, Diagnostic):
            if (configured or read_by_name) and tree.is_given(f.path):
                problems.append(source)
            continue
        if (
            not configured
            and f.path.name not in MANIFEST_NAMES
            and rules.loaders.well_known_loader(f.path) is None
            and not _beside_a_marketplace(f.path, source.text, rules)
            and not _may_list_skills(tree, f.path, source.text, rules)
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
        if not configured and _is_tracker(parsed):
            continue  # mostly to-do items: a progress tracker or a plan, not a list a loader reads
        if parsed.kind in ("markdown", "data"):
            parsed.readers = prompt_readers(f.path, rules.loaders)
        if configured or _is_detected_index(tree, parsed, rules):
            parsed.selection = not configured and _all_chosen(parsed)
            indexes.append(parsed)
        elif _is_selection(tree, parsed):
            parsed.selection = True
            indexes.append(parsed)
    return indexes, problems


_DATA_SUFFIXES = (".json", ".yaml", ".yml")


def _combined(rules) -> tuple[list, list, dict[str, bool]]:
    """The file patterns and the folder patterns (``dir/`` ones too) of a pattern set, and the
    verdicts on folders already asked about (the files of a tree share their folders: each is
    matched once, not once per file)."""
    files = [r for r in rules if not r.dir_only and not r.negated]
    dirs = [r for r in rules if not r.negated]
    return files, dirs, {}


def _matches(combined, rel: str) -> bool:
    """gitignore-like: a pattern matches the file, or a folder pattern matches a parent folder."""
    files, dirs, folders = combined
    if any(rule.matches(rel) for rule in files):
        return True
    if not dirs:
        return False
    parts = rel.split("/")
    for i in range(len(parts) - 1):
        prefix = "/".join(parts[: i + 1])
        verdict = folders.get(prefix)
        if verdict is None:
            verdict = folders[prefix] = any(rule.matches(prefix) for rule in dirs)
        if verdict:
            return True
    return False


# Entries per distinct skill above which a Markdown or data file is a document that keeps naming
# skills, not an index (an index that lists a few skills under two headings stays well below).
REPEAT_LIMIT = 1.5


def _is_detected_index(tree: SkillTree, index: IndexFile, rules: IndexRules) -> bool:
    """A marketplace or plugin manifest with an entry is what a loader reads. A Markdown or data
    file names two skills one by one, or one when it has a conventional index name (AGENTS.md,
    CLAUDE.md) or links into a skill folder, and names each about once; it must also cover
    ``min_coverage`` of the folders it draws from (a CLAUDE.md whose status notes name 4 of 47
    skills is no index of them), counting its stale entries too (a table whose skills were deleted stays an index: the staler it gets, the more
    it needs checking)."""
    if index.kind in ("marketplace", "plugin", "well-known"):
        return bool(index.entries)
    named = index.named_directly(headings=False)
    conventional = has_prompt_name(index.path, rules.loaders)
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
    return len(named) + len(stale_entries(index)) >= rules.min_coverage * len(pool)


def _is_tracker(index: IndexFile) -> bool:
    """A Markdown file whose to-do items (and plan sections' items) are at least as many as its
    other entries, three or more: a progress tracker."""
    listed = sum(1 for e in index.entries if not e.heading)
    return index.planned >= 3 and index.planned >= listed


def _all_chosen(index: IndexFile) -> bool:
    """Every list or table that names a skill lies under a heading that says it is a selection
    ("Primary workflows"): the file names some skills on purpose, not all."""
    blocks = {e.block for e in index.entries if e.skills and not e.heading}
    return bool(blocks) and blocks <= index.chosen_blocks


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


def layout_folders(tree: SkillTree, index: IndexFile, parents: set[Path]) -> set[Path]:
    """The folders of skills laid out like those an index draws from, when the index says it
    is the catalog of them all: one that lists the skills of most plugins of ``plugins/``
    (``plugins/<p>/skills/<skill>``), by plugin, and states a total of skills larger than the
    number it names ("181 skills across 50 plugins" naming 160 of 44 plugins) also lists the
    plugins it leaves out entirely. Without such a claim a page that lists plugins covers those
    it lists, not those it omits."""
    if index.claimed_skills is None or index.claimed_skills <= len(index.named_directly()):
        return set()
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
        if any(os.path.isfile(folder / manifest) for manifest in builtin_loaders().plugin_manifests):
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


def _beside_a_marketplace(path: Path, text: str, rules: IndexRules) -> bool:
    """A file in a loader's marketplace folder that may list plugins
    (``.claude-plugin/marketplace.extended.json``: a marketplace its users add by path), read
    even when it names plugins only: what it lists is installable."""
    return '"plugins"' in text and rules.loaders.marketplace_owner(path) is not None


_WORD = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9_.-]*[A-Za-z0-9_-])?")


def _may_list_skills(tree: SkillTree, path: Path, text: str, rules: IndexRules) -> bool:
    """Prefilter, linear in the text: a detected index names two skills one by one, by name or
    by folder (a path ends in the folder name), or one when it has an index's name or links to
    it, so a file mentioning fewer cannot be one."""
    named = len(set(_WORD.findall(text)) & tree.by_name.keys())
    return named >= 2 or (named == 1 and (has_prompt_name(path, rules.loaders) or "](" in text))
