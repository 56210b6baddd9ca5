"""``cachelint index``: the skill index rendered from the files, the cure for CL203/CL204.

The index is one line per skill, sorted by name: ``- name: description`` with the description's
whitespace collapsed to single spaces, so it renders the same bytes on every machine (a stable
prompt prefix). ``--write FILE`` puts it between two markers in a Markdown file: it replaces the
block, else the one hand-written list of the file that names skills (refusing when several do),
else it adds the block at the end; ``--diff`` previews that change. ``--check FILE`` says whether
the committed block is current.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cachelint.diagnostics import Diagnostic
from cachelint.fileutil import atomic_write
from cachelint.textio import read_text

if TYPE_CHECKING:
    from cachelint.config import Settings

START = "<!-- cachelint:index:start -->"
END = "<!-- cachelint:index:end -->"


def declares_index(text: str) -> bool:
    """The text holds a block ``--write`` made: the start marker alone on a line, outside a fenced
    code block (a page that shows or names the markers declares nothing)."""
    if START not in text:
        return False
    fence = None
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            marker = stripped[:3]
            fence = None if fence == marker else (fence or marker)
        elif fence is None and stripped == START:
            return True
    return False


class IndexFileError(Exception):
    """The target file cannot hold the index (unreadable, or its markers are out of order)."""


@dataclass(frozen=True)
class RenderedIndex:
    """The index of the skills under a folder: one ``- name: description`` line per skill that
    can be listed, sorted by name, and the skills left out with why (``unlisted_because``)."""

    lines: tuple[str, ...]
    unlisted: tuple[tuple[str, str], ...]  # (display path of the SKILL.md, why), by path

    @property
    def text(self) -> str:
        return "".join(line + "\n" for line in self.lines)

    def warnings(self, target: str | None = None) -> list[str]:
        where = f" in {target}" if target else ""
        return [f"{display}: not listed{where}: {why}" for display, why in self.unlisted]


def build_index(root: Path, settings: "Settings", cwd: Path | None = None) -> RenderedIndex:
    """The index of the skills under ``root``; ``cwd`` anchors the paths of the skills left out."""
    from cachelint.discovery import display_path
    from cachelint.skills.tree import build_tree, unlisted_because

    root = root.resolve()
    tree = build_tree(root, [], settings, root)
    rows = []
    unlisted = []
    for skill in tree.skills:
        why = unlisted_because(skill)
        if why is not None:
            unlisted.append((display_path(skill.path, cwd or Path.cwd()), why))
            continue
        rows.append((skill.name, skill.display, " ".join((skill.description or "").split())))
    rows.sort()
    return RenderedIndex(
        tuple(f"- {name}: {description}" for name, _display, description in rows), tuple(sorted(unlisted))
    )


def render_index(root: Path, settings: "Settings") -> str:
    """The index of the skills under ``root``, one ``- name: description`` line each."""
    return build_index(root, settings).text


def _block(rendered: str, newline: str) -> str:
    body = rendered.replace("\n", newline)
    return f"{START}{newline}{body}{END}"


def _locate(text: str, display: str) -> tuple[int, int] | None:
    """Offsets of the block (start of the start marker, end of the end marker), or None."""
    start = text.find(START)
    end = text.find(END)
    if start == -1 and end == -1:
        return None
    if start == -1 or end == -1 or end < start:
        raise IndexFileError(
            f"{display}: the index markers are incomplete or out of order ({START} must come before {END})"
        )
    if text.find(START, start + 1) != -1 or text.find(END, end + 1) != -1:
        raise IndexFileError(f"{display}: more than one index block; keep one {START} … {END} pair")
    return start, end + len(END)


def _read(file: Path, settings: "Settings") -> tuple[str, str, bool] | None:
    if not file.exists():
        return None
    source = read_text(file, str(file), settings.max_file_size)
    if isinstance(source, Diagnostic):
        raise IndexFileError(f"{file}: {source.message}")
    return source.text, source.newline, source.had_bom


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
    return first, last


def replaced_text(text: str, span: tuple[int, int], rendered: str, newline: str) -> str:
    lines = text.splitlines(keepends=True)
    first, last = span
    tail = "".join(lines[last:])
    return "".join(lines[: first - 1]) + _block(rendered, newline) + newline + tail


def write_index(root: Path, file: Path, settings: "Settings", diff: bool = False) -> tuple[bool, str, RenderedIndex]:
    """Write the rendered index into ``file`` between the markers; (changed, message, the index).
    A file without markers whose one list names the skills has that list replaced by the block (a
    second list beside a stale one would leave the stale lines in the prompt); ``diff`` returns
    the change as a unified diff and writes nothing."""
    current = _read(file, settings)
    text, newline, had_bom = current if current is not None else ("", "\n", False)
    index = build_index(root, settings)
    rendered = index.text
    span = (
        hand_written_list(root, file, text, settings)
        if current is not None and _locate(text, str(file)) is None
        else None
    )
    new_text = (
        replaced_text(text, span, rendered, newline) if span else updated_text(text, rendered, newline, str(file))
    )
    if current is not None and new_text == text:
        return False, f"{file}: index block is up to date", index
    if diff:
        import difflib

        return (
            True,
            "".join(difflib.unified_diff(text.splitlines(True), new_text.splitlines(True), f"a/{file}", f"b/{file}")),
            index,
        )
    data = (("\ufeff" if had_bom else "") + new_text).encode("utf-8")
    mode = None
    if file.exists():
        import os
        import stat

        mode = stat.S_IMODE(os.stat(file).st_mode)
    atomic_write(file, data, mode)
    replaced = f", replacing the list at lines {span[0]}-{span[1]}" if span else ""
    left_out = f"; {len(index.unlisted)} left out, see above" if index.unlisted else ""
    return True, f"{file}: index block written ({len(index.lines)} skills{replaced}{left_out})", index


def check_index(root: Path, file: Path, settings: "Settings") -> tuple[bool, str, RenderedIndex]:
    """Whether ``file`` holds the index rendered from ``root``; (ok, message, the index)."""
    fix = f"run cachelint index {root} --write {file}"
    index = build_index(root, settings)
    current = _read(file, settings)
    if current is None:
        return False, f"{file}: no such file; {fix}", index
    text, newline, _ = current
    span = _locate(text, str(file))
    if span is None:
        return False, f"{file}: has no index block ({START} … {END}); {fix}", index
    start, end = span
    committed = text[start:end].replace("\r\n", "\n")
    expected = _block(index.text, "\n")
    if committed != expected:
        return False, f"{file}: index block is stale; {fix}", index
    return True, f"{file}: index block is up to date", index
