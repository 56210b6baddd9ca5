"""The index data types: an index file, its entries, where each entry led, and the detection
settings."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from cachelint.skills.tree import Skill

_SLUG = re.compile(r"^(?=[a-z0-9-]*[a-z])[a-z0-9][a-z0-9-]*$")  # a skill-like name, not a number


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
    def load(cls, pack_paths, index, not_index, min_coverage, folder=None) -> "IndexRules":
        from cachelint.catalog import load_packs

        packs = load_packs("skills-index", pack_paths, folder)
        return cls(
            index=tuple(index),
            not_index=tuple(g for p in packs for g in p.get("not_index", ())) + tuple(not_index),
            skill_folders=tuple(sorted({f for p in packs for f in p.get("skill_folders", ())})) or ("skills",),
            min_coverage=min_coverage,
            # the last pack that sets it wins: the user's packs come after the built-in ones
            max_index_bytes=([int(p["max_index_bytes"]) for p in packs if "max_index_bytes" in p] or [1 << 20])[-1],
        )
