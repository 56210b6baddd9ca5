"""``cachelint index``: the skill index rendered from the files, the cure for CL203/CL204.

The index is one line per skill, sorted by name: ``- name: description`` with the description's
whitespace collapsed to single spaces, so it renders the same bytes on every machine (a stable
prompt prefix). ``--write FILE`` puts it between two markers in a Markdown file: it replaces the
block, else the one hand-written list of the file that names skills (refusing when several do),
else it adds the block at the end; ``--diff`` previews that change. ``--check FILE`` says whether
the committed block is current.

What ``--write`` may change, and how it writes (the user's file is never made worse):

- only lines it owns: between its markers, the entries it writes (``- name: description``); in a
  hand-written list, the items that name a skill (stale ones included: CL204's) and their
  continuation lines. Any other line there (a rule among the skills, a nested item) means it
  cannot tell what the list is: it refuses, saying where, and writes nothing;
- markers count on their own lines outside fenced code blocks: a README that quotes them in an
  example is not an index block;
- the file is replaced as ``--fix`` replaces a fixed file (``fileutil.replace_if_unchanged``: a
  locked compare with the bytes it read, then an atomic rename keeping mode, owner and group): a
  read-only file, one with other hard links, or one that changed meanwhile is left alone with the
  reason; a symlink is written through its target when the target lies inside DIRECTORY or the
  link's own folder (the link stays a link), else left alone;
- a skill it cannot list (front matter without a valid name or a description: CL201) is named with
  the reason, the command exits 1, and ``--check`` fails until it is fixed, as ``check`` keeps
  reporting it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cachelint.diagnostics import Diagnostic
from cachelint.fileutil import Skipped, atomic_write, replace_if_unchanged, sha256
from cachelint.skills.mdlines import FENCE, list_item
from cachelint.textio import SourceText, decode, read_bytes

if TYPE_CHECKING:
    from cachelint.config import Settings

START = "<!-- cachelint:index:start -->"
END = "<!-- cachelint:index:end -->"


class IndexFileError(Exception):
    """The target file cannot hold the index: unreadable, markers out of order, lines the index
    does not own where it would write, or a file it may not replace (read-only, hard links...)."""


@dataclass(frozen=True)
class LeftOut:
    """A skill the index cannot list, and why (its CL201)."""

    display: str
    why: str


@dataclass(frozen=True)
class RenderedIndex:
    lines: tuple[str, ...]
    left_out: tuple[LeftOut, ...]

    @property
    def text(self) -> str:
        return "".join(line + "\n" for line in self.lines)

    def left_out_note(self) -> str:
        """``; 1 skill cannot be listed ... (CL201): skills/x/SKILL.md (front matter has no name)``, or ""."""
        if not self.left_out:
            return ""
        count = len(self.left_out)
        names = "; ".join(f"{s.display} ({s.why})" for s in self.left_out)
        return (
            f"; {count} skill{'' if count == 1 else 's'} cannot be listed until the front matter is fixed "
            f"(CL201): {names}"
        )


def _why_left_out(skill) -> str:
    problems = [p for p in skill.front.problems if not p.unreadable] or list(skill.front.problems)
    if problems:
        return problems[0].message
    return "front matter has no name" if skill.name is None else "front matter has no description"


def rendered_index(root: Path, settings: "Settings") -> RenderedIndex:
    """The index of the skills under ``root`` and the skills it cannot list."""
    from cachelint.skills.tree import build_tree, has_valid_name

    root = root.resolve()
    tree = build_tree(root, [], settings, root)
    rows = []
    left_out = []
    for skill in tree.skills:
        # a skill whose front matter does not parse has no name or description to list (CL201)
        if not has_valid_name(skill) or not skill.description or not skill.description.strip():
            left_out.append(LeftOut(skill.display, _why_left_out(skill)))
            continue
        rows.append((skill.name, skill.display, " ".join(skill.description.split())))
    rows.sort()
    return RenderedIndex(
        tuple(f"- {name}: {description}" for name, _display, description in rows),
        tuple(sorted(left_out, key=lambda s: s.display)),
    )


def index_lines(root: Path, settings: "Settings") -> list[str]:
    return list(rendered_index(root, settings).lines)


def render_index(root: Path, settings: "Settings") -> str:
    """The index of the skills under ``root``, one ``- name: description`` line each."""
    return rendered_index(root, settings).text


def _block(rendered: str, newline: str) -> str:
    body = rendered.replace("\n", newline)
    return f"{START}{newline}{body}{END}"


def _marker_lines(text: str) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The (line number, offset of the marker) of each start and end marker: a marker alone on its
    line (at most three spaces before it: four make a code block) outside fenced code blocks."""
    starts: list[tuple[int, int]] = []
    ends: list[tuple[int, int]] = []
    in_fence = False
    offset = 0
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        if FENCE.match(line):
            in_fence = not in_fence
        elif not in_fence:
            indent = len(line) - len(line.lstrip(" "))
            stripped = line.strip()
            if indent <= 3 and stripped in (START, END):
                (starts if stripped == START else ends).append((number, offset + indent))
        offset += len(line)
    return starts, ends


def _locate(text: str, display: str) -> tuple[int, int] | None:
    """Offsets of the block (start of the start marker, end of the end marker), or None."""
    starts, ends = _marker_lines(text)
    if not starts and not ends:
        return None
    if len(starts) > 1 or len(ends) > 1:
        raise IndexFileError(f"{display}: more than one index block; keep one {START} … {END} pair")
    if not starts or not ends or ends[0][0] < starts[0][0]:
        raise IndexFileError(
            f"{display}: the index markers are incomplete or out of order ({START} must come before {END})"
        )
    _check_owned_block(text, starts[0][0], ends[0][0], display)
    return starts[0][1], ends[0][1] + len(END)


def _is_written_entry(line: str) -> bool:
    """A line of the shape the index writes: ``- name: description``, the name one lowercase token
    (a valid skill name is lowercase: the Agent Skills specification)."""
    if not line.startswith("- "):
        return False
    name, colon, _rest = line[2:].partition(": ")
    return bool(colon) and bool(name) and not any(c.isspace() for c in name) and name == name.lower()


def _check_owned_block(text: str, start: int, end: int, display: str) -> None:
    """Between the markers, only the entries the index writes (and blank lines): anything else was
    put there by hand, and replacing the block would delete it."""
    lines = text.splitlines()
    for number in range(start + 1, end):
        line = lines[number - 1]
        if line.strip() and not _is_written_entry(line):
            raise IndexFileError(
                f"{display}: line {number}, between the index markers, is not an entry the index writes "
                "(- name: description); move it out of the block, then write the index again"
            )


def _read(file: Path, settings: "Settings") -> tuple[bytes, SourceText] | None:
    if not file.exists():
        return None
    data = read_bytes(file, str(file), settings.max_file_size)
    if isinstance(data, Diagnostic):
        raise IndexFileError(f"{file}: {data.message}")
    source = decode(data, str(file))
    if isinstance(source, Diagnostic):
        raise IndexFileError(f"{file}: {source.message}")
    return data, source


def updated_text(text: str, rendered: str, newline: str, display: str) -> str:
    span = _locate(text, display)
    block = _block(rendered, newline)
    if span is None:
        sep = "" if not text or text.endswith(("\n", "\r")) else newline
        gap = newline if text.strip() else ""
        return f"{text}{sep}{gap}{block}{newline}" if text.strip() else f"{block}{newline}"
    start, end = span
    return text[:start] + block + text[end:]


def hand_written_list(root: Path, file: Path, text: str, settings: "Settings") -> tuple[int, int] | None:
    """The lines (first, last; 1-based) of the list or table of ``text`` that names the skills
    under ``root`` one by one, when it has no markers: the list ``--write`` replaces. None when
    no list names a skill; IndexFileError when several do (which one is the index is the
    author's call: the markers say it)."""
    from cachelint.skills.indexes import parse_markdown
    from cachelint.skills.tree import build_tree

    root = root.resolve()
    tree = build_tree(root, [], settings, root)
    parsed = parse_markdown(tree, file.resolve(), str(file), text)
    blocks: dict[int, list[int]] = {}
    for entry in parsed.entries:
        if not entry.heading and not entry.mention:
            blocks.setdefault(entry.block, []).append(entry.line)
    naming = sorted(
        {e.block for e in parsed.entries if e.skills and not e.heading and not e.mention},
        key=lambda b: min(blocks[b]),
    )
    if not naming:
        return None
    if len(naming) > 1:
        where = ", ".join(f"lines {min(blocks[b])}-{max(blocks[b])}" for b in naming)
        raise IndexFileError(
            f"{file}: {len(naming)} lists name skills ({where}); put {START} and {END} around the one the index replaces"
        )
    lines = text.splitlines()
    first, last = min(blocks[naming[0]]), max(blocks[naming[0]])
    while first > 1 and lines[first - 2].lstrip().startswith("|"):
        first -= 1  # a table's header and separator go with its rows
    while last < len(lines) and lines[last][:1] in (" ", "\t") and lines[last].strip():
        last += 1  # the indented lines of the last item belong to it
    _check_owned_list(lines, first, last, set(blocks[naming[0]]), file)
    return first, last


def _check_owned_list(lines: list[str], first: int, last: int, entries: set[int], file: Path) -> None:
    """Every line the list's replacement would delete is one the index owns: an entry (a line that
    names a skill, or a stale one), an indented continuation line of one, a blank line, or the
    header of its table. An item that names no skill ("- Never print secrets in logs.") or a
    nested item is the author's: the list is not only an index, and which lines are is theirs
    to say (with the markers)."""
    in_entry = False
    for number in range(first, last + 1):
        line = lines[number - 1]
        if number in entries:
            in_entry = True
        elif not line.strip():
            in_entry = False
        elif number < min(entries):
            pass  # a table's header and separator
        elif not (in_entry and line[:1] in (" ", "\t") and list_item(line) is None):
            raise IndexFileError(
                f"{file}: the list at lines {first}-{last} names skills, but line {number} is not an entry of "
                f"one; the index replaces only its own entries: put {START} and {END} around the skill entries "
                "(or move the other items out of the list), then write the index again"
            )


def replaced_text(text: str, span: tuple[int, int], rendered: str, newline: str) -> str:
    lines = text.splitlines(keepends=True)
    first, last = span
    tail = "".join(lines[last:])
    return "".join(lines[: first - 1]) + _block(rendered, newline) + newline + tail


def _inside(path: str, folder: Path) -> bool:
    root = os.path.realpath(folder)
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _target(root: Path, file: Path) -> Path:
    """The file to write: ``file``, or the target of the symlink ``file`` when it lies inside
    ``root`` or the link's own folder (as ``--fix`` writes through a link to a file it checks);
    IndexFileError otherwise. Replacing the link itself by a file would cut it from its target."""
    if not file.is_symlink():
        return file
    real = os.path.realpath(file)
    if not os.path.exists(real):
        raise IndexFileError(f"{file}: is a symlink to {real}, which does not exist; the index was not written")
    if not (_inside(real, root) or _inside(real, file.absolute().parent)):
        raise IndexFileError(
            f"{file}: is a symlink to {real}, outside {root} and the link's folder; the index was not written"
        )
    return Path(real)


def write_index(root: Path, file: Path, settings: "Settings", diff: bool = False) -> tuple[bool, str, bool]:
    """Write the rendered index into ``file`` between the markers; (changed, message, complete):
    ``complete`` is False when some skills could not be listed (the message names them). A file
    without markers whose one list names the skills has that list replaced by the block (a second
    list beside a stale one would leave the stale lines in the prompt); ``diff`` returns the change
    as a unified diff and writes nothing."""
    target = _target(root, file)
    current = _read(target, settings)
    data, source = current if current is not None else (b"", SourceText(text="", size=0, had_bom=False, newline="\n"))
    text, newline = source.text, source.newline
    index = rendered_index(root, settings)
    span = (
        hand_written_list(root, file, text, settings)
        if current is not None and _locate(text, str(file)) is None
        else None
    )
    new_text = (
        replaced_text(text, span, index.text, newline) if span else updated_text(text, index.text, newline, str(file))
    )
    note = index.left_out_note()
    complete = not index.left_out
    if current is not None and new_text == text:
        return False, f"{file}: index block is up to date{note}", complete
    if diff:
        import difflib

        from cachelint.masking import masker

        # printed: masked like every output (the same lengths, so the lines compare as before)
        mask = masker(settings.pack_paths()).mask
        name = mask(str(file))
        return (
            True,
            "".join(
                difflib.unified_diff(
                    mask(text).splitlines(True), mask(new_text).splitlines(True), f"a/{name}", f"b/{name}"
                )
            ),
            complete,
        )
    new_data = (("\ufeff" if source.had_bom else "") + new_text).encode("utf-8")
    if current is None:
        atomic_write(target, new_data)
    else:
        try:
            replace_if_unchanged(target, sha256(data), lambda _current: new_data, settings.max_file_size)
        except Skipped as skipped:
            raise IndexFileError(f"{file}: {skipped}; the index was not written") from None
    replaced = f", replacing the list at lines {span[0]}-{span[1]}" if span else ""
    return True, f"{file}: index block written ({len(index.lines)} skills{replaced}){note}", complete


def check_index(root: Path, file: Path, settings: "Settings") -> tuple[bool, str]:
    """Whether ``file`` holds the index rendered from ``root`` and every skill is in it; (ok,
    message). A skill the index cannot list is missing from it, as CL203 and CL201 keep saying."""
    fix = f"run cachelint index {root} --write {file}"
    current = _read(file, settings)
    if current is None:
        return False, f"{file}: no such file; {fix}"
    text = current[1].text
    span = _locate(text, str(file))
    if span is None:
        return False, f"{file}: has no index block ({START} … {END}); {fix}"
    start, end = span
    committed = text[start:end].replace("\r\n", "\n")
    index = rendered_index(root, settings)
    if committed != _block(index.text, "\n"):
        return False, f"{file}: index block is stale; {fix}"
    if index.left_out:
        return False, f"{file}: index block is current but incomplete{index.left_out_note()}"
    return True, f"{file}: index block is up to date"
