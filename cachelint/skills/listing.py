"""The listing of skill names and descriptions each loader puts in the prompt, measured against
the budget its documentation gives (CL207 skill-listing-over-budget, ``cachelint index --listing``).

A *view* is what one loader lists for one way of installing the repository's skills:

- a plugin marketplace or manifest of the loader: the skills its plugins load;
- the loader's own project folder (``.claude/skills``, ``.agents/skills``): the skills in it;
- the other skills, by the folder below the repository root that holds them (``skills/``): the
  collection as a user installs it at once (copied into a loader's folder, ``npx skills add``).

User-only skills are in no listing (``disable-model-invocation``; Codex's
``policy.allow_implicit_invocation: false``), nor are sub-documents and templates. What each
entry costs follows the loader's documented listing (``rules/packs/skills-loaders.yaml``):

- Claude Code lists every name with its description and ``when_to_use``, cut at 1,536 characters;
  over budget it "drops descriptions starting with the skills you invoke least" (which ones
  depends on use: the finding gives the fewest and the most that go);
- Codex lists ``- <name>: <description> (file: <path>)``; over budget it shortens every
  description alike, then leaves skills out, in the order of their names.

The characters a loader adds around an entry that its documentation does not give are not
counted, and Codex's path is counted as written from the repository root (an installed skill's
absolute path is longer): the figures are lower bounds.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Sequence

from cachelint.discovery import is_relative_to
from cachelint.skills.indexes import IndexFile, enclosing_plugin
from cachelint.skills.indexes.manifests import plugin_skills, read_manifest
from cachelint.skills.loaders import Loader, ListingBudget, Loaders
from cachelint.skills.scope import is_template
from cachelint.skills.tree import Skill, SkillTree


@dataclass(frozen=True)
class ListingView:
    loader: Loader
    what: str  # "the plugin marketplace .claude-plugin/marketplace.json", "the 92 skills under skills/"
    skills: tuple[Skill, ...]  # the skills the listing holds, sorted by name
    manifest: IndexFile | None = None
    namespaces: tuple[tuple[Path, str], ...] = ()  # SKILL.md -> its plugin ("plugin:skill")
    line: int = 1  # the manifest's line of the plugin's entry
    anchor: tuple[Path, str] | None = None  # the manifest file a finding goes to: (path, display)
    # installed as one by the loader (a plugin, the loader's project folder): CL207 reports it; a
    # collection installed at once by copying is measured for `cachelint index --listing` only
    unit: bool = True


@dataclass(frozen=True)
class ListingMeasure:
    view: ListingView
    budget: int  # characters
    used: int  # characters of the full listing
    names_only: int  # characters with every description left out
    dropped: tuple[int, int] = (0, 0)  # Claude Code: the fewest and the most descriptions dropped
    shortened_to: int | None = None  # Codex: the characters of description each entry keeps
    shortened: tuple[Skill, ...] = ()  # Codex: the skills whose description is cut
    omitted: tuple[Skill, ...] = ()  # Codex: the skills left out of the listing
    cut_entries: tuple[Skill, ...] = field(default=())  # entries cut at the loader's per-entry cap

    @property
    def share(self) -> float:
        return self.used / self.budget if self.budget else 0.0

    @property
    def over(self) -> bool:
        return self.used > self.budget


def listed_by(skill: Skill, loader: Loader) -> bool:
    """Whether the loader's listing holds the skill (user-only skills stay out of it)."""
    if skill.nested or is_template(skill) or skill.front.data is None:
        return False
    if loader.user_only_field == "disable-model-invocation" and skill.disables_model_invocation:
        return False
    if loader.user_only_policy and skill.implicit_invocation is False:
        return False
    return True


def listing_views(tree: SkillTree, indexes: Sequence[IndexFile], loaders: Loaders) -> list[ListingView]:
    """Every view of every loader whose listing has a documented budget."""
    loader_folders = {folder for loader in loaders for folder in loader.skill_folders}
    views: list[ListingView] = []
    for loader in loaders:
        if loader.listing is None:
            continue
        mine: list[ListingView] = []
        for index in sorted(indexes, key=lambda i: i.display):
            if index.kind == "marketplace" and loader.name in index.readers:
                mine.extend(_plugin_views(loader, index))
        # the loader's plugins by their manifests; one a marketplace lists is measured there
        for plugin in _manifest_views(tree, loader):
            if not _within(plugin, mine):
                mine.append(plugin)
        covered = {s.path for view in mine for s in view.skills}
        project = project_skills(tree, loader)
        if project:
            mine.append(_view(loader, "the project skills in " + ", ".join(loader.skill_folders), project))
            covered |= {s.path for s in project}
        collections: dict[str, list[Skill]] = {}
        for skill in tree.skills:
            if skill.path in covered or not listed_by(skill, loader) or _in_folders(tree, skill, loader_folders):
                continue
            if enclosing_plugin(tree, skill.path) is not None:
                continue  # a plugin's skill (another loader's): installed with its plugin
            collections.setdefault(_collection_folder(tree, skill), []).append(skill)
        for top in sorted(collections):
            where = f"under {top}/" if top else "of the repository"
            members = collections[top]
            count = "the skill" if len(members) == 1 else f"the {len(members)} skills"
            mine.append(replace(_view(loader, f"{count} {where}, installed together", members), unit=False))
        views.extend(mine)
    return views


def project_skills(tree: SkillTree, loader: Loader) -> list[Skill]:
    """The skills ``loader`` lists from its project folders (``.claude/skills`` at any level of
    the repository), user-only ones left out."""
    return [s for s in tree.skills if _in_folders(tree, s, loader.skill_folders) and listed_by(s, loader)]


def _plugin_views(loader: Loader, index: IndexFile) -> list[ListingView]:
    """One view per plugin of a manifest: a user installs plugins one by one, and an installed
    plugin's skills all go into the listing."""
    views = []
    for name, entries in index.entries_by_plugin().items():
        skills = {s.path: s for e in entries for s in e.skills if listed_by(s, loader)}
        if not skills:
            continue
        what = f"the plugin {name} of {index.display}" if name else f"the plugin of {index.display}"
        namespaces = {path: name for path in skills} if name else {}
        views.append(_view(loader, what, list(skills.values()), index, namespaces, min(e.line for e in entries)))
    return views


def _manifest_views(tree: SkillTree, loader: Loader) -> list[ListingView]:
    """A view per plugin manifest of the loader (``.claude-plugin/plugin.json``): the skills the
    plugin loads (Claude Code: ``skills/<name>/SKILL.md``, declared paths or a root SKILL.md;
    another loader: every skill below the plugin's folder)."""
    if loader.plugin_manifest is None:
        return []
    views = []
    ending = "/" + loader.plugin_manifest
    for f in sorted(tree.index_files, key=lambda f: f.display):
        if not ("/" + f.path.as_posix()).endswith(ending):
            continue
        root = f.path
        for _ in loader.plugin_manifest.split("/"):
            root = root.parent
        found = plugin_skills(tree, root) if loader.key == "claude-code" else declared_skill_folders(tree, f.path, root)
        skills = [s for s in found if listed_by(s, loader)]
        if skills:
            # Claude Code names a plugin's skills "<plugin>:<skill>", the plugin by its manifest's name
            manifest = read_manifest(f.path)
            declared = manifest.get("name") if isinstance(manifest, dict) else None
            name: str = declared if isinstance(declared, str) else root.name
            namespaces = {s.path: name for s in skills}
            view = _view(loader, f"the plugin {f.display}", skills, None, namespaces)
            views.append(replace(view, anchor=(f.path, f.display)))
    return views


def declared_skill_folders(tree: SkillTree, manifest: Path, root: Path) -> list[Skill]:
    """A Codex-style plugin's skills: every skill below the folders its manifest's ``skills``
    field names (``"skills": "./skills/"``), else below its ``skills/`` folder, else below the
    plugin's root (Codex scans skills folders recursively)."""
    import os

    data = read_manifest(manifest)
    raw = data.get("skills") if isinstance(data, dict) else None
    paths = [raw] if isinstance(raw, str) else [p for p in raw if isinstance(p, str)] if isinstance(raw, list) else []
    found: dict[Path, Skill] = {}
    for path in paths:
        folder = Path(os.path.normpath(root / path))
        if is_relative_to(folder, tree.root):
            found.update((s.path, s) for s in tree.skills_under(folder))
    if not paths:
        found = {s.path: s for s in (tree.skills_under(root / "skills") or tree.skills_under(root))}
    return sorted(found.values(), key=lambda s: s.display)


def _view(
    loader: Loader,
    what: str,
    skills: Sequence[Skill],
    manifest: IndexFile | None = None,
    names: dict[Path, str] | None = None,
    line: int = 1,
) -> ListingView:
    ordered = tuple(sorted(skills, key=lambda s: (entry_name(s), s.display)))
    namespaces = tuple(sorted((names or {}).items()))
    anchor = (manifest.path, manifest.display) if manifest is not None else None
    return ListingView(loader, what, ordered, manifest, namespaces, line, anchor)


def _within(view: ListingView, views: Sequence[ListingView]) -> bool:
    paths = {s.path for s in view.skills}
    return any(
        other is not view
        and other.manifest is not None
        and other.manifest.kind == "marketplace"
        and paths <= {s.path for s in other.skills}
        for other in views
    )


def _in_folders(tree: SkillTree, skill: Skill, folders) -> bool:
    """Whether the skill sits directly in one of a loader's project folders (``.claude/skills``),
    at the repository root or below it."""
    parent = skill.folder.parent
    if not is_relative_to(parent, tree.root):
        return False
    rel = parent.relative_to(tree.root).as_posix()
    return any(rel == f or rel.endswith("/" + f) for f in folders)


def _collection_folder(tree: SkillTree, skill: Skill) -> str:
    """The folder a collection is installed from: the nearest folder named ``skills`` above the
    skill (``docs/ja-JP/skills/``, ``skills/`` of ``skills/engineering/tdd``), else the folder below
    the repository root that holds it; "" for a skill folder at the root itself (``pdf/SKILL.md``)
    or the root's own SKILL.md."""
    rel = skill.folder.relative_to(tree.root).parts if is_relative_to(skill.folder, tree.root) else ()
    parents = rel[:-1]
    for depth in range(len(parents), 0, -1):
        if parents[depth - 1] == "skills":
            return "/".join(parents[:depth])
    return rel[0] if len(rel) >= 2 else ""


def entry_name(skill: Skill) -> str:
    return skill.name if skill.name else skill.folder_name


def measure(view: ListingView, tree: SkillTree) -> ListingMeasure:
    listing = view.loader.listing
    assert listing is not None
    if listing.entry == "name-description-path":
        return _measure_with_paths(view, tree, listing)
    return _measure_names(view, listing)


def _measure_names(view: ListingView, listing: ListingBudget) -> ListingMeasure:
    """Claude Code: a name and its text (description, then when_to_use, cut at the entry cap);
    over budget, descriptions are dropped, the least-invoked skills' first."""
    namespaces = dict(view.namespaces)
    names: list[int] = []
    texts: list[int] = []
    cut: list[Skill] = []
    for skill in view.skills:
        prefix = namespaces.get(skill.path)
        names.append(len(entry_name(skill)) + (len(prefix) + 1 if prefix else 0))
        text = len(skill.listing_text())
        if listing.entry_cap is not None and text > listing.entry_cap:
            cut.append(skill)
            text = listing.entry_cap
        texts.append(text)
    used = sum(names) + sum(texts)
    names_only = sum(names)
    budget = listing.chars
    dropped = (0, 0)
    if used > budget:
        dropped = (_drops(texts, used - budget, longest_first=True), _drops(texts, used - budget, longest_first=False))
    return ListingMeasure(view, budget, used, names_only, dropped=dropped, cut_entries=tuple(cut))


def _drops(texts: Sequence[int], excess: int, longest_first: bool) -> int:
    """How many descriptions must go for the listing to lose ``excess`` characters."""
    removed = count = 0
    for length in sorted(texts, reverse=longest_first):
        if removed >= excess:
            break
        if length:
            removed += length
            count += 1
    return count


def _measure_with_paths(view: ListingView, tree: SkillTree, listing: ListingBudget) -> ListingMeasure:
    """Codex: ``- <name>: <description> (file: <path>)`` lines; over budget every description is
    shortened alike (the unused share of a short one goes to the others), and when even the
    lines without descriptions do not fit, skills are left out in the order of their names."""
    minimal: list[int] = []
    descriptions: list[int] = []
    for skill in view.skills:
        path = skill.path.relative_to(tree.root).as_posix() if is_relative_to(skill.path, tree.root) else skill.display
        minimal.append(len(f"- {entry_name(skill)}: (file: {path})\n"))
        descriptions.append(len((skill.description or "").strip()))
    full = sum(minimal) + sum(d + 1 for d in descriptions if d)
    names_only = sum(minimal)
    budget = listing.chars
    if full <= budget:
        return ListingMeasure(view, budget, full, names_only)
    if names_only <= budget:
        level = _level(descriptions, budget - names_only)
        shortened = tuple(s for s, d in zip(view.skills, descriptions) if d > level)
        return ListingMeasure(view, budget, full, names_only, shortened_to=level, shortened=shortened)
    used = 0
    omitted: list[Skill] = []
    for skill, cost in zip(view.skills, minimal):
        if used + cost <= budget:
            used += cost
        else:
            omitted.append(skill)
    shortened = tuple(s for s, d in zip(view.skills, descriptions) if d)
    return ListingMeasure(view, budget, full, names_only, shortened_to=0, shortened=shortened, omitted=tuple(omitted))


def _level(descriptions: Sequence[int], room: int) -> int:
    """The most characters every description may keep (a shorter one keeps all of its own) so
    that the descriptions and the space before each fit in ``room``."""

    def cost(level: int) -> int:
        return sum(min(d, level) + 1 for d in descriptions if d and level)

    low, high = 0, max(descriptions, default=0)
    while low < high:
        middle = (low + high + 1) // 2
        if cost(middle) <= room:
            low = middle
        else:
            high = middle - 1
    return low


def measure_all(tree: SkillTree, indexes: Sequence[IndexFile], loaders: Loaders) -> list[ListingMeasure]:
    return [measure(view, tree) for view in listing_views(tree, indexes, loaders)]


def listing_report(root: Path, settings) -> list[ListingMeasure]:
    """Every listing of the skills under ``root`` (a repository), measured: what ``cachelint
    index DIR --listing`` prints."""
    from cachelint.skills.indexes import IndexRules, detect_indexes
    from cachelint.skills.options import SkillOptions
    from cachelint.skills.tree import build_tree

    options = SkillOptions.from_settings(settings)
    folder = settings.catalog_folder
    loaders = Loaders.load(settings.pack_paths(), options.listing, folder)
    rules = IndexRules.load(
        settings.pack_paths(), options.index, options.not_index, options.index_min_coverage, loaders, folder
    )
    root = root.resolve()
    tree = build_tree(root, [], settings, root)
    indexes, _problems = detect_indexes(tree, rules, settings.max_file_size)
    return measure_all(tree, indexes, loaders)


BAR_CELLS = 20


def bar(share: float) -> str:
    """``[██████████▌         ]`` for 52%; a listing over budget fills the bar and ends in ``▶``."""
    eighths = " ▏▎▍▌▋▊▉"
    filled = min(share, 1.0) * BAR_CELLS
    whole = int(filled)
    rest = "" if whole >= BAR_CELLS else eighths[int((filled - whole) * 8)]
    return "[" + ("█" * whole + rest).ljust(BAR_CELLS) + "]" + ("▶" if share > 1 else "")


def render_listing_text(measures: Sequence[ListingMeasure]) -> str:
    if not measures:
        return "No skill listing with a documented budget: no skills, or no loader lists them.\n"
    lines: list[str] = []
    loader_seen: str | None = None
    for m in measures:
        listing = m.view.loader.listing
        assert listing is not None
        if m.view.loader.key != loader_seen:
            loader_seen = m.view.loader.key
            lines.append(f"{m.view.loader.name}: {m.budget:,} characters ({listing.basis()})")
        lines.append(
            f"  {bar(m.share)} {m.share:>5.0%}  {m.used:>7,} chars  {_skills(len(m.view.skills))}  {m.view.what}"
        )
        for note in _notes(m):
            lines.append(f"      {note}")
    return "\n".join(lines) + "\n"


def render_listing_markdown(measures: Sequence[ListingMeasure]) -> str:
    """The listings as Markdown tables, one per loader, each share with its bar: a summary for a
    CI job's page (``>> "$GITHUB_STEP_SUMMARY"``) or a pull request comment."""
    if not measures:
        return "No skill listing with a documented budget: no skills, or no loader lists them.\n"
    lines: list[str] = ["## Skill listings against their budgets", ""]
    loader_seen: str | None = None
    for m in measures:
        listing = m.view.loader.listing
        assert listing is not None
        if m.view.loader.key != loader_seen:
            if loader_seen is not None:
                lines.append("")
            loader_seen = m.view.loader.key
            lines += [
                f"### {_md(m.view.loader.name)}: {m.budget:,} characters ({_md(listing.basis())})",
                "",
                "| listing | skills | characters | share | | notes |",
                "|---|---:|---:|---:|---|---|",
            ]
        notes = "; ".join(_notes(m)) or ("over budget" if m.over else "")
        lines.append(
            f"| {_md(m.view.what)} | {len(m.view.skills):,} | {m.used:,} | {m.share:.0%} | `{bar(m.share)}` | {_md(notes)} |"
        )
    return "\n".join(lines) + "\n"


def _md(text: str) -> str:
    """Text for a Markdown table cell: pipes escaped, no line breaks."""
    return " ".join(text.split()).replace("|", "\\|")


def _skills(count: int) -> str:
    return f"{count:>4} skill " if count == 1 else f"{count:>4} skills"


def _notes(m: ListingMeasure) -> list[str]:
    notes = []
    if m.cut_entries:
        notes.append(f"entries cut at the per-entry cap: {', '.join(entry_name(s) for s in m.cut_entries)}")
    if not m.over:
        return notes
    if m.view.loader.listing and m.view.loader.listing.overflow == "drop-least-invoked":
        if m.names_only > m.budget:
            notes.append(f"every description dropped: the names alone take {m.names_only:,} characters")
        else:
            fewest, most = m.dropped
            notes.append(f"descriptions dropped, the least-invoked skills' first: {fewest} to {most}")
    elif m.omitted:
        notes.append(f"every description removed; left out: {', '.join(entry_name(s) for s in m.omitted)}")
    else:
        notes.append(
            f"descriptions shortened to {m.shortened_to} characters: {len(m.shortened)} of {len(m.view.skills)}"
        )
    return notes


def listing_json(measures: Sequence[ListingMeasure]) -> list[dict]:
    out = []
    for m in measures:
        listing = m.view.loader.listing
        assert listing is not None
        record: dict = {
            "loader": m.view.loader.key,
            "view": m.view.what,
            "skills": [s.display for s in m.view.skills],
            "characters": m.used,
            "budget": m.budget,
            "basis": listing.basis(),
            "share": round(m.share, 4),
            "over": m.over,
            "unit": m.view.unit,
        }
        if m.cut_entries:
            record["cut_entries"] = [s.display for s in m.cut_entries]
        if m.over and listing.overflow == "drop-least-invoked":
            record["dropped"] = list(m.dropped) if m.names_only <= m.budget else [len(m.view.skills)] * 2
        if m.shortened_to is not None:
            record["shortened_to"] = m.shortened_to
            record["shortened"] = [s.display for s in m.shortened]
        if m.omitted:
            record["omitted"] = [s.display for s in m.omitted]
        out.append(record)
    return out
