"""Index files: what lists skills for the prompt, and which skills each entry names.

An index is a configured file (``[tool.cachelint.skills] index = [globs]``) or a detected one:
a Markdown/text file, a plugin ``marketplace.json`` / ``plugin.json`` or another JSON/YAML file
whose *entries* name two or more existing skills. Only entry-like lines are entries:

- Markdown list items (``- name: description``, ``- **name** — …``, ``- [name](skills/name/)``),
- table rows (``| **name** | description |``),
- lines that start with a link,
- marketplace ``skills`` paths and plugin ``source`` paths, ``plugin.json`` ``skills`` paths,
- JSON/YAML lists of objects with a ``name`` (``[{name, description}, …]``).

A sentence in a README that mentions a skill is not an entry, nor is a link to an ordinary
document. Paths that leave the repository (``../../etc/passwd``, absolute paths; a Markdown
link from its file's folder) are recorded as such and never read.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, Callable, Iterator

from cachelint.discovery import is_relative_to
from cachelint.skills.mdlines import TableRow, is_table_separator, lead_name, link_at_start, links, list_item, path_tokens, table_row
from cachelint.skills.tree import Skill, SkillTree

if TYPE_CHECKING:
    from cachelint.diagnostics import Diagnostic

_SLUG = re.compile(r"^(?=[a-z0-9-]*[a-z])[a-z0-9][a-z0-9-]*$")  # a skill-like name, not a number
_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+")  # the marker; the title is the rest, trimmed
_EMPHASIZED = re.compile(r"^(\*\*|__|`)([A-Za-z0-9][A-Za-z0-9_.-]*)\1")
HEADING_BLOCK = -1  # the block of every heading entry


@dataclass
class Resolution:
    """Where an entry's path led: a skill, a folder of skills, nothing, or out of the repository."""

    skills: list[Skill] = field(default_factory=list)
    collection: bool = False  # a folder holding skills, not a skill itself
    # a bare name that several skills share and nothing in the index tells apart: the entry lists
    # one of them, which is unknown, so it never sets the index's scope
    ambiguous: bool = False
    outside: bool = False
    resolved: str | None = None  # "the marketplace's folder", "the repository root", ...
    tried: list[str] = field(default_factory=list)
    # the path exists and is a valid entry although it leads to no skill (a plugin of commands)
    present: bool = False


@dataclass
class IndexEntry:
    line: int
    column: int
    end_column: int
    text: str  # what the entry says, for messages
    name: str | None = None  # the skill name it names, when it names one
    path: str | None = None  # the path it points at, when it points at one
    resolution: Resolution | None = None
    strict: bool = False  # an entry that must name a skill (link, marketplace path)
    external: bool = False  # named by the text of a link to another site: never a CL204
    block: int = 0  # Markdown: entries of one list or table share a block
    slash: bool = False  # written as a slash command (``/standup``)
    # a Markdown heading: it lists the skill it names, but a heading that names no skill is a
    # section title, never a stale entry, and headings alone never make a file an index
    heading: bool = False
    # a name in a mapping table's key column or in a command's section: it lists the skill it
    # names, but is never a stale entry and never makes its file an index
    mention: bool = False
    source: bool = False  # a marketplace plugin's source folder

    @property
    def skills(self) -> list[Skill]:
        return self.resolution.skills if self.resolution else []


@dataclass
class IndexFile:
    path: Path
    display: str
    kind: str  # markdown | marketplace | plugin | data
    entries: list[IndexEntry]
    configured: bool = False
    # a list of some skills (a bundle, a "selected skills" table) that is no index of them all:
    # its entries must lead to skills (CL204), but the skills it leaves out are not missing
    selection: bool = False
    # Markdown tables whose key column is headed "Skill": their names are skills, live or stale
    skill_tables: frozenset[int] = frozenset()

    def listed(self, ambiguous: bool = True) -> list[Skill]:
        """Every skill an entry leads to; ``ambiguous=False`` leaves out the candidates of bare
        names that several skills share (the prompt shows one of them, which is unknown)."""
        seen: dict[Path, Skill] = {}
        for entry in self.entries:
            if not ambiguous and entry.resolution and entry.resolution.ambiguous:
                continue
            for skill in entry.skills:
                seen.setdefault(skill.path, skill)
        return sorted(seen.values(), key=lambda s: s.display)

    def named_directly(self, headings: bool = True) -> list[Skill]:
        """Skills named one by one (not through a folder of skills, nor by an ambiguous name);
        ``headings=False`` leaves out those named by headings only."""
        seen: dict[Path, Skill] = {}
        for entry in self.entries:
            if not headings and (entry.heading or entry.mention):
                continue
            if entry.resolution and not entry.resolution.collection and not entry.resolution.ambiguous:
                for skill in entry.skills:
                    seen.setdefault(skill.path, skill)
        return sorted(seen.values(), key=lambda s: s.display)

    def has_ambiguous_names(self) -> bool:
        return any(entry.resolution is not None and entry.resolution.ambiguous for entry in self.entries)

    @property
    def role(self) -> str:
        """``manifest`` (a plugin marketplace or manifest: what a loader installs), ``prompt``
        (a file the agent reads: AGENTS.md, CLAUDE.md, a system-prompt file, a configured index,
        a data file listing skills) or ``catalog`` (a README or docs page: documentation for
        people, which the model does not read)."""
        if self.kind in ("marketplace", "plugin"):
            return "manifest"
        if self.configured or self.kind == "data" or has_prompt_name(self.path):
            return "prompt"
        return "catalog"


# Files an agent reads into its prompt by convention (Claude Code reads CLAUDE.md, Codex and
# others AGENTS.md, Gemini CLI GEMINI.md, GitHub Copilot .github/copilot-instructions.md).
PROMPT_FILE_NAMES = frozenset({"agents.md", "claude.md", "gemini.md", "copilot-instructions.md"})
_SYSTEM_PROMPT = re.compile(r"system[-_ .]?prompt", re.IGNORECASE)


def has_prompt_name(path: Path) -> bool:
    return path.name.lower() in PROMPT_FILE_NAMES or bool(_SYSTEM_PROMPT.search(path.name))


@dataclass(frozen=True)
class IndexRules:
    """Index detection settings: rules/packs/skills-index.yaml merged with the configuration."""

    index: tuple[str, ...] = ()  # configured index globs
    not_index: tuple[str, ...] = ()
    skill_folders: tuple[str, ...] = ("skills",)
    min_coverage: float = 0.5
    max_index_bytes: int = 1 << 20

    @classmethod
    def load(cls, pack_paths, index, not_index, min_coverage) -> "IndexRules":
        from cachelint.catalog import load_packs

        packs = load_packs("skills-index", pack_paths)
        return cls(
            index=tuple(index),
            not_index=tuple(g for p in packs for g in p.get("not_index", ())) + tuple(not_index),
            skill_folders=tuple(sorted({f for p in packs for f in p.get("skill_folders", ())})) or ("skills",),
            min_coverage=min_coverage,
            # the last pack that sets it wins: the user's packs come after the built-in ones
            max_index_bytes=([int(p["max_index_bytes"]) for p in packs if "max_index_bytes" in p] or [1 << 20])[-1],
        )


# --- resolving paths and names -----------------------------------------------------------------


def _outside(path: str) -> bool:
    if path.startswith(("/", "\\", "~")) or re.match(r"^[A-Za-z]:[\\/]", path):
        return True
    return False


def resolve_path(
    tree: SkillTree, raw: str, bases: list[tuple[str, Path]], fallbacks: list[tuple[str, Path]] | None = None
) -> Resolution:
    """Resolve a relative path against each base, then each fallback; never reads, never leaves
    the root.

    A path that leaves the root from a base is outside (a marketplace path that does so under
    either convention), unless another base finds its skill. Fallbacks only find skills: a
    Markdown link resolves against its file's folder, so ``../docs/spec.md`` in
    ``python/AGENTS.md`` is inside the repository although, read from the root, it would leave it."""
    from urllib.parse import unquote

    res = Resolution()
    target = unquote(raw.split("#", 1)[0].split("?", 1)[0])
    if not target:
        return res
    if _outside(target):
        res.outside = True
        return res
    tries = [(label, base, False) for label, base in bases] + [(label, base, True) for label, base in fallbacks or ()]
    for label, base, fallback in tries:
        joined = Path(os.path.normpath(base / PurePosixPath(target)))
        res.tried.append(label)
        if not (joined == tree.root or is_relative_to(joined, tree.root)):
            res.outside = res.outside or not fallback
            continue
        folder = joined.parent if joined.name == "SKILL.md" else joined
        if folder in tree.by_folder:
            res.skills = [tree.by_folder[folder]]
            res.resolved, res.outside = label, False
            return res
        # no stat for paths already known; only a folder holding skills needs the tree walk
        under = tree.skills_under(folder)
        if under:
            res.skills, res.collection, res.resolved, res.outside = under, True, label, False
            return res
        linked = _symlinked_skills(tree, folder)
        if linked:
            res.skills, res.collection, res.resolved, res.outside = linked, linked[0].folder != _real(folder), label, False
            return res
    return res


def _real(folder: Path) -> Path:
    try:
        return Path(os.path.realpath(folder))
    except (OSError, ValueError):
        return folder


def _symlinked_skills(tree: SkillTree, folder: Path) -> list[Skill]:
    """The skill (or the skills below the folder) a symlinked folder points to, when it lies in
    the tree (a plugin's ``skills/aesthetic -> ../../../.claude/skills/aesthetic``): the walker
    does not follow symlinks, the loader does. Only a readlink, for paths that found nothing."""
    try:
        if not os.path.islink(folder):
            return []
    except (OSError, ValueError):
        return []
    real = _real(folder)
    if not is_relative_to(real, tree.root):
        return []
    if real in tree.by_folder:
        return [tree.by_folder[real]]
    return tree.skills_under(real)


def _folder_of_skills(raw: str, res: Resolution) -> None:
    """A manifest's ``skills`` folder path (``./skills/``) that holds nothing is the plugin's
    default components folder, not an entry naming a skill: a plugin of agents and commands
    declares it too, and loses nothing."""
    if raw.strip().endswith("/") and not res.skills and not res.outside:
        res.present = True


def _resolve_name(tree: SkillTree, name: str, near: Path, hint: str = "") -> Resolution:
    """The skill called ``name`` (front matter name or folder). An index file whose folder holds
    skills names those (``.gemini/skills-index.json`` lists ``.gemini/skills/*``, not the copies in
    ``.codex/skills``); one in a folder without skills (``docs/``, the root) names any. Among
    several matches, the one the entry's path ``hint`` points to wins, else the ones closest to
    the index file; a tie left is ambiguous (``_settle_shared_names`` may still break it)."""
    home = tree.home_skills(near.parent if near.name.endswith("-plugin") else near)
    found = [s for s in tree.by_name.get(name, []) if home is None or s.path in home]
    if len(found) > 1:
        found = _best(found, lambda skill: _hint_score(tree, skill, name, hint))
    if len(found) > 1:
        found = _best(found, lambda skill: len(os.path.commonpath([str(skill.folder), str(near)])))
    if not found and name in tree.collections_by_name:
        # the name of a folder of skills (a plugin): it lists them, and is no stale entry; an
        # index whose folder holds skills names a folder among them (not another plugin)
        folders = sorted(f for f in tree.collections_by_name[name] if home is None or tree.skills_under(f)[0].path in home)
        under = {s.path: s for folder in folders for s in tree.skills_under(folder)}
        if under:
            return Resolution(skills=sorted(under.values(), key=lambda s: s.display), collection=True, resolved="name")
    return Resolution(skills=found, resolved="name" if found else None, ambiguous=len(found) > 1)


def _best(skills: list[Skill], score: Callable[[Skill], int]) -> list[Skill]:
    """The skills with the highest score (all of them on a tie)."""
    scores = {s.path: score(s) for s in skills}
    top = max(scores.values())
    return [s for s in skills if scores[s.path] == top]


def _loose(part: str) -> str:
    return re.sub(r"[^a-z0-9]", "", part.lower())


def _hint_score(tree: SkillTree, skill: Skill, name: str, hint: str) -> int:
    """How much of a path in ``hint`` that ends in ``name`` (``<built_in_skills_dir>/gamma/SKILL.md``,
    ``examples/gamma/``) matches the folders above ``skill``, read upwards: the letters of each
    folder that the hint's folder equals or contains (placeholders such as
    ``<built_in_skills_dir>`` name the folder ``builtin`` or ``built_in_skills`` only loosely)."""
    parents = skill.folder.relative_to(tree.root).parts[:-1] if is_relative_to(skill.folder, tree.root) else ()
    best = 0
    for token in path_tokens(hint):
        parts = token.split("/")
        if name not in parts[1:]:
            continue
        score = 0
        for wanted, actual in zip(reversed(parts[: parts.index(name, 1)]), reversed(parents)):
            wanted_letters, actual_letters = _loose(wanted), _loose(actual)
            if not actual_letters or not (wanted_letters == actual_letters or (len(actual_letters) >= 3 and actual_letters in wanted_letters)):
                break
            score += len(actual_letters)
        best = max(best, score)
    return best


def _settle_shared_names(entries: list[IndexEntry]) -> None:
    """An ambiguous name resolves to its copy in a folder the index's other entries draw from:
    an index of ``builtin/alpha`` and ``builtin/beta`` that names ``gamma`` means ``builtin/gamma``,
    not the copy in ``examples/``."""
    drawn_from = {
        skill.folder.parent
        for entry in entries
        if entry.resolution and not entry.resolution.collection and not entry.resolution.ambiguous
        for skill in entry.skills
    }
    for entry in entries:
        res = entry.resolution
        if res is not None and res.ambiguous:
            beside = [s for s in res.skills if s.folder.parent in drawn_from]
            if len(beside) == 1:
                res.skills, res.ambiguous = beside, False


def _is_local_link(target: str) -> bool:
    return not re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) and not target.startswith("#")


# --- Markdown and text --------------------------------------------------------------------------


def _clean(text: str) -> str:
    return text.strip().strip("*_`").strip()


def parse_markdown(tree: SkillTree, path: Path, display: str, text: str, rules: IndexRules = IndexRules()) -> IndexFile:
    entries: list[IndexEntry] = []
    lines = text.splitlines()
    block = 0
    previous_kind = None
    in_fence = False
    base = [("the file's folder", path.parent), ("the repository root", tree.root)]
    rows: list[tuple[str, str, int, int, int]] = []
    # indented lines under a list item belong to it; they may say where its skill lives
    # ("  -> Read `<built_in_skills_dir>/gamma/SKILL.md`"), which tells apart skills of one name
    continuation: dict[int, list[str]] = {}
    item: int | None = None  # the row of the list item whose continuation lines follow
    last_table = -1  # the number of the last table line (row, header or separator)
    in_command = False  # under a heading that names a slash command (not a skill)
    command_blocks: set[int] = set()
    headers: dict[int, str] = {}  # a table's block -> its header row
    header: str | None = None  # the header row of the table that follows
    # YAML front matter (a docs page's title, tags, related files) is metadata, not a list
    skip = _front_matter_end(lines)
    for number, line in enumerate(lines, start=1):
        if number <= skip:
            continue
        if _FENCE.match(line):
            in_fence = not in_fence
            item = None
            continue
        if in_fence:
            continue
        kind, body, offset = None, "", 0
        heading = _HEADING.match(line)
        if heading:
            # ``### 3. **name** - what it does``: a catalog that lists skills as headings names
            # them there (read for listing only, see IndexEntry.heading)
            start = heading.end()
            text = line[start:].rstrip().rstrip("#").rstrip()
            numbered = list_item(text)
            if numbered and text[:1].isdecimal():
                text, start = numbered.body, start + numbered.offset
            rows.append(("heading", text, start, number, HEADING_BLOCK))
            previous_kind, item = None, None
            # ``## /discover``: the section of a command, whose lists name what it uses
            command = _SLASH.match(text.strip())
            in_command = command is not None and lead_name(_SLASH.sub(r"\1", text.strip(), count=1)) not in tree.by_name
            continue
        m = list_item(line)
        if m:
            kind, body, offset = "list", m.body, m.offset
        else:
            t = table_row(line)
            if t is None and line.lstrip().startswith("|") and (last_table == number - 1 or is_table_separator(lines[number] if number < len(lines) else "")):
                # a row without its closing pipe is still a row (GitHub renders it)
                start = len(line) - len(line.lstrip())
                t = TableRow(line[start + 1 :].rstrip(), start + 1)
            if t:
                last_table = number
            if t and not is_table_separator(line):
                nxt = lines[number] if number < len(lines) else ""
                if is_table_separator(nxt):
                    kind, header = "header", t.body  # a header row is not an entry
                else:
                    kind, body, offset = "table", t.body, t.offset
            elif line.lstrip().startswith("[") and link_at_start(line.lstrip()):
                kind, body, offset = "link", line.lstrip(), len(line) - len(line.lstrip())
        if kind is None:
            if line.strip():
                previous_kind = None  # prose ends a block; blank lines do not
                if item is not None and line[:1] in (" ", "\t"):
                    continuation.setdefault(item, []).append(line.strip())
                else:
                    item = None
            else:
                item = None
            continue
        if kind != previous_kind:
            block += 1
            previous_kind = kind
            if kind == "table" and header is not None:
                headers[block] = header
        if kind != "header":
            header = None
        if in_command:
            command_blocks.add(block)
        if kind == "header":
            item = None
            continue
        item = len(rows) if kind == "list" else None
        rows.append((kind, body, offset, number, block))
    name_column = _name_columns(tree, rows)
    mapping = _mapping_tables(tree, rows, name_column)
    for row, (kind, body, offset, number, block) in enumerate(rows):
        column = name_column.get(block, 0)
        hint = " ".join([body, *continuation.get(row, ())])
        for entry in _line_entries(tree, kind, body, offset, number, block, base, rules.skill_folders, column, hint):
            entry.mention = entry.mention or block in mapping or block in command_blocks
            entries.append(entry)
    _settle_shared_names(entries)
    skill_tables = frozenset(
        block for block, row in headers.items() if _SKILL_HEADER.match(_clean(_cell(_cells(row), name_column.get(block, 0))))
    )
    return IndexFile(path, display, "markdown", entries, skill_tables=skill_tables)


# the key column's header of a table of skills ("Skill", "Skills", "Skill name")
_SKILL_HEADER = re.compile(r"^skills?(?: name)?$", re.IGNORECASE)


def _cell(cells: list[str], column: int) -> str:
    return cells[column] if column < len(cells) else ""


def _front_matter_end(lines: list[str]) -> int:
    """The number of the line that closes a YAML front matter opened by a first line ``---``
    (0 when there is none, or it is never closed)."""
    if not lines or lines[0].rstrip() != "---":
        return 0
    for number, line in enumerate(lines[1:], start=2):
        if line.rstrip() in ("---", "..."):
            return number
    return 0


def _cells(body: str) -> list[str]:
    return re.split(r"(?<!\\)\|", body)


_NO_NAME_CELL = re.compile(r"^[\s\d#.()*_`-]*$|^\W*$")


def _name_columns(tree: SkillTree, rows) -> dict[int, int]:
    """For each table, the column that holds the row's key: the first one, after any leading
    columns of numbers or icons. A table whose key is something else (a product, with the skill
    in a later column) is a mapping, not an index, and is read by its first column."""
    cells_by_block: dict[int, list[list[str]]] = {}
    for kind, body, _offset, _number, block in rows:
        if kind == "table":
            cells_by_block.setdefault(block, []).append(_cells(body))
    out: dict[int, int] = {}
    for block, table in cells_by_block.items():
        width = max(len(r) for r in table)
        column = 0
        while column < width - 1 and all(column >= len(r) or _NO_NAME_CELL.match(r[column].strip()) for r in table):
            column += 1
        out[block] = column
    return out


def _mapping_tables(tree: SkillTree, rows, name_column: dict[int, int]) -> set[int]:
    """Tables whose key column names fewer skills than a later column (``| express | vercel-functions |``:
    packages mapped to skills): their keys are no index entries, and never stale ones."""
    counts: dict[int, dict[int, int]] = {}
    for kind, body, _offset, _number, block in rows:
        if kind != "table":
            continue
        per = counts.setdefault(block, {})
        for column, cell in enumerate(_cells(body)):
            name = lead_name(_clean_lead(_SLASH.sub(r"\1", cell.strip(), count=1)))
            if name is not None and name in tree.by_name:
                per[column] = per.get(column, 0) + 1
    out = set()
    for block, per in counts.items():
        key = per.get(name_column.get(block, 0), 0)
        if any(count > key for column, count in per.items() if column > name_column.get(block, 0)):
            out.add(block)
    return out


def _line_entries(tree, kind, body, offset, number, block, base, skill_folders, column=0, hint="") -> Iterator[IndexEntry]:
    near = base[0][1]  # the index file's folder
    lead = body
    if kind == "table":
        cells = _cells(body)
        lead = cells[column] if column < len(cells) else ""
    heading = kind == "heading"
    found = list(links(body))
    local = [link for link in found if _is_local_link(link.target)]
    if heading:
        local = [link for link in local if resolve_path(tree, link.target, base[:1], base[1:]).skills]
    for link in local:
        target = link.target
        col = offset + link.start + 1
        res = resolve_path(tree, target, base[:1], base[1:])  # the root: for root-relative paths written without "/"
        if not res.skills and not _looks_like_skill_path(target, skill_folders) and not _missing_folder(res, target, base):
            continue  # a link to some other document, in the repository or not: not an entry
        if res.collection:
            _narrow_to_label(res, link.label, target)
        yield IndexEntry(
            number, col, offset + link.end + 1, link.text(body), path=target, resolution=res, strict=not heading, block=block, heading=heading
        )
    if local:
        return
    external = bool(found) and lead.lstrip().startswith("[")
    cleaned = _clean_lead(lead)
    # ``/standup`` in a Commands table: a slash command names the skill it runs
    unslashed = _SLASH.sub(r"\1", cleaned, count=1)
    slash = unslashed != cleaned
    # ``**senior-pm/** - …``: a skill named by its folder; other folders (``skills/``,
    # ``agents/`` in a plugin's layout) are no entries, live or stale
    folder = _FOLDER_NAME.match(unslashed)
    if folder:
        if folder.group(2) not in tree.by_name:
            return
        unslashed = _FOLDER_NAME.sub(r"\1\2\1", unslashed, count=1)
    if not external and ("," in cleaned or _LIST_LABEL.match(cleaned)):
        listed = list(_comma_entries(tree, cleaned, body, offset, number, block, near, hint, heading))
        if listed:
            yield from listed
            return
    name = lead_name(unslashed)
    if name is None and not external:
        # ``**skill-creator** ⭐ - …``, ``### `/brief` -- Legal Team Briefing``: an emphasised
        # name that is a skill's, whatever follows
        emphasized = _EMPHASIZED.match(unslashed)
        if emphasized and emphasized.group(2) in tree.by_name:
            name = emphasized.group(2)
    if name is None:
        return
    if external and name not in tree.by_name:
        return  # a link to a skill elsewhere: not one of ours, and not a stale entry either
    col = offset + body.find(name) + 1 if name in body else offset + 1
    yield IndexEntry(
        number, col, col + len(name), name, name=name, resolution=_resolve_name(tree, name, near, hint), block=block, external=external,
        slash=slash, heading=heading,
    )


def _narrow_to_label(res: Resolution, label: str, target: str) -> None:
    """``[ML Paper Writing](20-ml-paper-writing/)``: a link to a folder of several skills whose
    text is the name of one of them (letters alike, case and separators aside) lists that one,
    not the folder's other skills. A text that is the folder's own name (``[trailmark](plugins/trailmark/)``,
    a plugin with a skill of its name) names the folder."""
    wanted = _loose(_clean(label))
    if not wanted or wanted == _loose(PurePosixPath(target.split("#", 1)[0].rstrip("/")).name):
        return
    named = [s for s in res.skills if wanted in (_loose(s.name or ""), _loose(s.folder_name))]
    if len(named) == 1:
        res.skills, res.collection = named, False


def _comma_entries(tree, cleaned, body, offset, number, block, near, hint, heading) -> Iterator[IndexEntry]:
    """``- senior-architect, senior-frontend, senior-backend``: a line of names, one entry each,
    when at least one of them is a skill's name; after a label (``**Animation**: auto-animate,
    motion``, ``**3D**: threejs``), with notes in parentheses (``cloudflare-workers (10 skills)``)."""
    label = _LIST_LABEL.match(cleaned)
    labelled = label is not None and label.group(1).strip() not in tree.by_name
    if label is not None and labelled:
        cleaned = cleaned[label.end() :]
    elif "," not in cleaned:
        return
    names = [part.strip().strip("*_`").strip() for part in _NOTE.sub("", cleaned).split(",")]
    if len(names) < (1 if labelled else 2) or not all(_SLUG.match(n) for n in names) or not any(n in tree.by_name for n in names):
        return
    cursor = 0
    for name in names:
        at = body.find(name, cursor)
        cursor = at + len(name) if at != -1 else cursor
        col = offset + (at if at != -1 else 0) + 1
        yield IndexEntry(
            number, col, col + len(name), name, name=name, resolution=_resolve_name(tree, name, near, hint), block=block, heading=heading
        )


_SLASH = re.compile(r"^([*_`]*)/(?=[A-Za-z0-9])")
_LIST_LABEL = re.compile(r"^(?:\*\*|__)?([A-Za-z0-9][\w &/.+-]{0,40}?)(?:\*\*|__)?:\s+")  # ``**Animation**: ``
_NOTE = re.compile(r"\s*\([^()]*\)")  # ``(10 skills)`` after a name
_FOLDER_NAME = re.compile(r"^(\*\*|__|`|)([A-Za-z0-9][A-Za-z0-9_.-]*)/\1(?=\s|:|$)")


def _missing_folder(res: Resolution, target: str, base: list[tuple[str, Path]]) -> bool:
    """A link to a folder with a skill-like name that exists neither from the file's folder nor
    from the root (``[Close Automation](./close-automation/)`` after the skill was removed):
    a stale entry when the file is an index. One stat per base, only for links that found no
    skill; never outside the repository."""
    if res.outside:
        return False
    clean = target.split("#", 1)[0].split("?", 1)[0].rstrip("/")
    name = PurePosixPath(clean).name
    if not name or not _SLUG.match(name) or "." in name:
        return False
    return not any(os.path.lexists(os.path.normpath(folder / PurePosixPath(clean))) for _, folder in base)


def _clean_lead(lead: str) -> str:
    lead = lead.strip()
    link = link_at_start(lead)
    if link:
        return link.label
    return lead


def _looks_like_skill_path(target: str, skill_folders: tuple[str, ...]) -> bool:
    """A link that points at a skill: ``…/SKILL.md`` or a folder inside a skills folder."""
    clean = target.split("#", 1)[0].rstrip("/")
    if clean.endswith("SKILL.md"):
        return True
    parent = PurePosixPath(clean).parent.as_posix()
    name = PurePosixPath(clean).name
    return bool(name) and "." not in name and any(parent == f or parent.endswith("/" + f) for f in skill_folders)


# --- JSON / YAML ----------------------------------------------------------------------------------


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
    plugin_root = metadata.get("pluginRoot") if isinstance(metadata, dict) and isinstance(metadata.get("pluginRoot"), str) else None
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
                entries.append(IndexEntry(line, col, end, source, path=source, resolution=Resolution(outside=True), strict=True))
            elif candidate is not None and candidate.is_dir():
                plugin_bases.append((f"the plugin source {source} from {root_label}", candidate))
                if not skills:
                    res = Resolution(skills=tree.skills_under(candidate), collection=True, resolved=root_label, present=True)
                    entries.append(IndexEntry(line, col, end, source, path=source, resolution=res, strict=True, source=True))
            else:
                res = Resolution(tried=[root_label])
                entries.append(IndexEntry(line, col, end, source, path=source, resolution=res, strict=True, source=True))
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
        entries.append(IndexEntry(line, col, end, name, name=name, resolution=_resolve_name(tree, name, path.parent, hint), block=1))
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


def parse_index_file(tree: SkillTree, path: Path, display: str, text: str, rules: IndexRules = IndexRules()) -> IndexFile | None:
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


def _load_data(text: str, suffix: str) -> Any:
    """JSON or YAML data, or None when the file is not a parseable index candidate. A file that
    does not parse is not reported: an arbitrary .json/.yaml is not ours to judge unless it is an
    index, and an unparseable one lists nothing."""
    try:
        if suffix == ".json":
            return json.loads(text)
        from cachelint.skills.frontmatter import MAX_EXPANDED_NODES, _expanded_size, _Loader

        loader = _Loader(text)
        try:
            node = loader.get_single_node()
            if node is None or _expanded_size(node, MAX_EXPANDED_NODES * 10) is None:
                return None
            return loader.construct_document(node)
        finally:
            loader.dispose()
    except Exception:  # noqa: BLE001 - any parse failure (incl. RecursionError): not an index
        return None


# --- detection ------------------------------------------------------------------------------------


def detect_indexes(tree: SkillTree, rules: IndexRules, max_file_size: int) -> tuple[list[IndexFile], list[Diagnostic]]:
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
    from cachelint.textio import read_text

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
        source = read_text(f.path, f.display, max_file_size)
        if isinstance(source, Diagnostic):
            if configured and tree.is_given(f.path):
                problems.append(source)
            continue
        if not configured and f.path.name not in ("marketplace.json", "plugin.json") and not _may_list_skills(tree, f.path, source.text):
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
    linked = any(e.strict and e.skills and not e.mention and e.resolution is not None and not e.resolution.collection for e in index.entries)
    if len(named) < (1 if conventional or linked else 2):
        return False
    # An index lists each skill once; a page of worked examples or a change log names the same
    # skills again and again ("Skills used: …" under every example).
    mentions = sum(
        1 for e in index.entries if e.skills and not e.heading and not e.mention and not (e.resolution and (e.resolution.collection or e.resolution.ambiguous))
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
        if entry.skills or entry.external or entry.heading or entry.mention or (res is not None and (res.present or res.outside)):
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
            s.folder.parent for s in tree.skills_under(top) if s.folder.parent.name == name and s.folder.parent.parent.parent == top and not s.nested
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
