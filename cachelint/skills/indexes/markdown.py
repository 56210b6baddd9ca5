"""Markdown and text indexes: list items, table rows, lines that start with a link, headings, and
the blocks (lists, tables) they form."""

from __future__ import annotations

import os
import re
from pathlib import Path, PurePosixPath
from typing import Iterator

from cachelint.skills.indexes.model import _SLUG, IndexEntry, IndexFile, IndexRules, Resolution
from cachelint.skills.indexes.resolve import _is_local_link, _loose, _resolve_name, _settle_shared_names, resolve_path
from cachelint.skills.mdlines import (
    FENCE,
    TableRow,
    is_table_separator,
    lead_name,
    link_at_start,
    links,
    list_item,
    mask_code_spans,
    table_row,
)
from cachelint.skills.tree import SkillTree

_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+")  # the marker; the title is the rest, trimmed
_EMPHASIZED = re.compile(r"^(\*\*|__|`)([A-Za-z0-9][A-Za-z0-9_.-]*)\1")
HEADING_BLOCK = -1  # the block of every heading entry


def _clean(text: str) -> str:
    return text.strip().strip("*_`").strip()


def parse_markdown(tree: SkillTree, path: Path, display: str, text: str, rules: IndexRules = IndexRules()) -> IndexFile:
    entries: list[IndexEntry] = []
    lines = text.splitlines()
    claimed = claimed_total(text)
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
    plan_level: int | None = None  # the level of the "Roadmap" heading whose section this is
    planned = 0  # to-do items and items of plan sections
    chosen_level: int | None = None  # the level of a heading that says its lists are a selection
    chosen_blocks: set[int] = set()
    command_blocks: set[int] = set()
    headers: dict[int, str] = {}  # a table's block -> its header row
    header: str | None = None  # the header row of the table that follows
    # YAML front matter (a docs page's title, tags, related files) is metadata, not a list
    skip = _front_matter_end(lines)
    for number, line in enumerate(lines, start=1):
        if number <= skip:
            continue
        if FENCE.match(line):
            in_fence = not in_fence
            item = None
            continue
        if in_fence:
            continue
        kind, body, offset = None, "", 0
        heading = _HEADING.match(line)
        if heading:
            level = len(line.lstrip(" ")) - len(line.lstrip(" ").lstrip("#"))
            if plan_level is not None and level <= plan_level:
                plan_level = None
            if plan_level is None and _plain(line[heading.end() :]) in rules.plan_sections:
                plan_level = level
            if chosen_level is not None and level <= chosen_level:
                chosen_level = None
            if chosen_level is None and set(_plain(line[heading.end() :]).split()) & set(rules.selection_words):
                chosen_level = level
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
        if m and (plan_level is not None or _TASK_BOX.search(line[: m.offset])):
            # a to-do item (``- [ ] future-skill``) or a list under "Roadmap": plans, not entries
            planned += 1
            previous_kind, item = None, None
            continue
        if m:
            kind, body, offset = "list", m.body, m.offset
        else:
            t = table_row(line)
            if (
                t is None
                and line.lstrip().startswith("|")
                and (last_table == number - 1 or is_table_separator(lines[number] if number < len(lines) else ""))
            ):
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
            elif line.lstrip().startswith("[") and link_at_start(mask_code_spans(line.lstrip())):
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
        if chosen_level is not None:
            chosen_blocks.add(block)
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
        block
        for block, row in headers.items()
        if _SKILL_HEADER.match(_clean(_cell(_cells(row), name_column.get(block, 0))))
    )
    return IndexFile(
        path,
        display,
        "markdown",
        entries,
        skill_tables=skill_tables,
        claimed_skills=claimed,
        planned=planned,
        chosen_blocks=frozenset(chosen_blocks),
    )


# "181 local specialized skills", "over 1,200 skills": a page stating how many skills it holds
_CLAIM = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+)\+?\s+(?:[A-Za-z-]+\s+){0,3}?skills\b", re.IGNORECASE)


def claimed_total(text: str) -> int | None:
    """The largest count of skills the text states, if any."""
    counts = [int(m.group(1).replace(",", "")) for m in _CLAIM.finditer(text)]
    return max(counts) if counts else None


_TASK_BOX = re.compile(r"\[[ xX]\]\s*$")
_NOT_LETTERS = re.compile(r"[^\w\s-]+")


def _plain(title: str) -> str:
    """A heading's words, lower case, without emphasis, emoji or punctuation ("🗺️ Roadmap:")."""
    return " ".join(_NOT_LETTERS.sub(" ", title.replace("_", " ")).split()).lower()


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


def _line_entries(
    tree, kind, body, offset, number, block, base, skill_folders, column=0, hint=""
) -> Iterator[IndexEntry]:
    near = base[0][1]  # the index file's folder
    lead = body
    if kind == "table":
        cells = _cells(body)
        lead = cells[column] if column < len(cells) else ""
    heading = kind == "heading"
    found = list(links(mask_code_spans(body)))  # a link inside a code span is code
    local = [link for link in found if _is_local_link(link.target)]
    if heading:
        # a title that links to a skill names it; one that links to a folder of skills (a
        # plugin) is the page's title, not an entry covering all its skills
        local = [link for link in local if _names_one_skill(resolve_path(tree, link.target, base[:1], base[1:]))]
    for link in local:
        target = link.target
        col = offset + link.start + 1
        res = resolve_path(tree, target, base[:1], base[1:])  # the root: for root-relative paths written without "/"
        if (
            not res.skills
            and not _looks_like_skill_path(target, skill_folders)
            and not _missing_folder(res, target, base)
        ):
            continue  # a link to some other document, in the repository or not: not an entry
        if res.collection:
            _narrow_to_label(res, link.label, target)
        if res.collection and not _leads(kind, body, link, lead):
            continue  # "22 structured [Skills](./skills/) out of the box": prose about the folder
        yield IndexEntry(
            number,
            col,
            offset + link.end + 1,
            link.text(body),
            path=target,
            resolution=res,
            strict=not heading,
            block=block,
            heading=heading,
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
    resolution = _resolve_name(tree, name, near, hint)
    if heading and resolution.collection:
        return  # a title named like a plugin's folder ("# my-plugin"): not an entry for all its skills
    col = offset + body.find(name) + 1 if name in body else offset + 1
    yield IndexEntry(
        number,
        col,
        col + len(name),
        name,
        name=name,
        resolution=resolution,
        block=block,
        external=external,
        slash=slash,
        heading=heading,
    )


def _leads(kind: str, body: str, link, lead: str) -> bool:
    """Whether a link starts its entry (after emphasis), or sits in a table row's key column: a
    link to a folder of skills elsewhere in a line is prose about the folder, not an entry for
    every skill in it."""
    if kind == "table":
        return bool(lead.strip()) and lead in body and body.find(lead) <= link.start < body.find(lead) + len(lead)
    return not body[: link.start].strip(" \t*_`")


def _names_one_skill(res: Resolution) -> bool:
    return bool(res.skills) and not res.collection


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
    if (
        len(names) < (1 if labelled else 2)
        or not all(_SLUG.match(n) for n in names)
        or not any(n in tree.by_name for n in names)
    ):
        return
    cursor = 0
    for name in names:
        at = body.find(name, cursor)
        cursor = at + len(name) if at != -1 else cursor
        col = offset + (at if at != -1 else 0) + 1
        yield IndexEntry(
            number,
            col,
            col + len(name),
            name,
            name=name,
            resolution=_resolve_name(tree, name, near, hint),
            block=block,
            heading=heading,
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
