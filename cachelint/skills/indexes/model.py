"""The index data types: an index file, its entries, where each entry led, and the detection
settings."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from cachelint.skills.loaders import Loaders, builtin_loaders
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
    # skills below a plugin source that its loader does not load (a folder of skills given as
    # the plugin's root): the entry leads to none of them
    unloaded: int = 0
    # a discovery index's digest that does not match the bytes it names: (expected, actual)
    digest: tuple[str, str] | None = None


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
    plugin: str | None = None  # the plugin a manifest's entry belongs to (its skills' namespace)

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
    # the loaders that read the file (into the prompt, or as their manifest), by name
    readers: tuple[str, ...] = ()
    # the largest number of skills the file says it holds ("181 local specialized skills")
    claimed_skills: int | None = None
    planned: int = 0  # Markdown: to-do items and items of plan sections (no entries)
    # Markdown: the lists and tables under a heading that says they are a selection ("Primary
    # workflows", "Featured skills"): they name some skills, not all
    chosen_blocks: frozenset[int] = frozenset()
    # a marketplace: the folders of the repository its entries' local sources name (its plugins)
    plugin_folders: tuple[Path, ...] = ()

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

    def entries_by_plugin(self) -> dict[str, list[IndexEntry]]:
        """The entries that lead to skills, by the plugin they belong to ("" where a manifest
        names none), in name order: a user installs a marketplace's plugins one by one, and an
        installed plugin's skills all go into the listing together."""
        entries_of: dict[str, list[IndexEntry]] = {}
        for entry in self.entries:
            if entry.skills:
                entries_of.setdefault(entry.plugin or "", []).append(entry)
        return dict(sorted(entries_of.items()))

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
        """``manifest`` (a plugin marketplace or manifest, a discovery index: what a loader
        installs), ``prompt`` (a file a loader reads into the prompt: CLAUDE.md, AGENTS.md,
        GEMINI.md, QWEN.md, a system-prompt file, or a configured index) or ``catalog`` (a
        README, a docs page or a data file: a list for readers, which no loader puts in the
        prompt)."""
        if self.kind in ("marketplace", "plugin", "well-known"):
            return "manifest"
        if self.configured or self.readers or _SYSTEM_PROMPT.search(self.path.name):
            return "prompt"
        return "catalog"

    def view(self) -> str:
        """Whose view of the skills the index is, for messages: "Claude Code's plugin
        marketplace", "the prompt file of Codex", "a catalog for readers"."""
        if self.role == "manifest":
            what = {"marketplace": "plugin marketplace", "plugin": "plugin manifest", "well-known": "discovery index"}
            owner = f"{self.readers[0]}'s " if self.readers else ""
            return f"{owner}{what[self.kind]}"
        if self.role == "prompt":
            if self.readers:
                return f"read into the prompt by {_names(self.readers)}"
            return "a configured index" if self.configured else "a system-prompt file"
        return "a catalog for readers"


def _names(names: tuple[str, ...]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


_SYSTEM_PROMPT = re.compile(r"system[-_ .]?prompt", re.IGNORECASE)


@dataclass(frozen=True)
class IndexRules:
    """Index detection settings: rules/packs/skills-index.yaml merged with the configuration."""

    index: tuple[str, ...] = ()  # configured index globs
    not_index: tuple[str, ...] = ()
    skill_folders: tuple[str, ...] = ("skills",)
    min_coverage: float = 0.5
    max_index_bytes: int = 1 << 20
    loaders: Loaders = field(default_factory=builtin_loaders)
    # headings of sections whose lists are plans, not entries ("Roadmap", "Coming soon")
    plan_sections: tuple[str, ...] = ()
    not_index_data: tuple[str, ...] = ()  # globs of files never indexes when they hold data (tests/)
    selection_words: tuple[str, ...] = ()  # heading words that make a section's lists a selection

    @classmethod
    def load(
        cls, pack_paths, index, not_index, min_coverage, loaders: Loaders | None = None, folder=None
    ) -> "IndexRules":
        from cachelint.catalog import load_packs

        packs = load_packs("skills-index", pack_paths, folder)
        return cls(
            loaders=loaders if loaders is not None else Loaders.load(pack_paths, None, folder),
            plan_sections=tuple(sorted({s.lower() for p in packs for s in p.get("plan_sections", ())})),
            not_index_data=tuple(g for p in packs for g in p.get("not_index_data", ())),
            selection_words=tuple(sorted({w.lower() for p in packs for w in p.get("selection_words", ())})),
            index=tuple(index),
            not_index=tuple(g for p in packs for g in p.get("not_index", ())) + tuple(not_index),
            skill_folders=tuple(sorted({f for p in packs for f in p.get("skill_folders", ())})) or ("skills",),
            min_coverage=min_coverage,
            # the last pack that sets it wins: the user's packs come after the built-in ones
            max_index_bytes=([int(p["max_index_bytes"]) for p in packs if "max_index_bytes" in p] or [1 << 20])[-1],
        )


def prompt_readers(path: Path, loaders: Loaders) -> tuple[str, ...]:
    """The names of the loaders that read ``path`` into the prompt (CLAUDE.md: Claude Code)."""
    return tuple(loader.name for loader in loaders.readers_of(path))


def has_prompt_name(path: Path, loaders: Loaders) -> bool:
    """A context file some loader reads into the prompt, or a system-prompt file by its name."""
    return bool(loaders.readers_of(path)) or bool(_SYSTEM_PROMPT.search(path.name))
