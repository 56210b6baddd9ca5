"""CL206 indistinct-skill-descriptions: descriptions among the skills of one index too alike for
the model to choose between.

Skills are compared within groups the model sees together: the skills an index lists, and the
skills of one folder (the index generated from the files). Each description becomes a set of
content words with the skill's own name words removed ("Automate Slack tasks via Composio" for
``slack-automation`` -> {automate, tasks, composio}). Three blocking steps keep this near-linear:

1. identical word sets share a key (a dict): templated descriptions whose slot is the skill's own
   name collapse here, however many there are;
2. near-duplicates: Jaccard similarity >= threshold, found with prefix filtering (each distinct
   set is indexed under its rarest ``|s| - ceil(t*|s|) + 1`` words; two sets at or above the
   threshold must share one of them), then verified;
3. templates with a slot that is not the skill's name: the word sequence with one run of one or
   two words (not task words) replaced by ``*`` is a key; descriptions sharing a key differ only
   in that slot ("Automate Gmail tasks…" / "Automate Google Calendar tasks…").

Clusters are the connected components (union-find), reported once at the description line of
their first member that the user gave, listing every member. Skills that share a name (copies
of one skill in two folders) are never united with each other, only through a third skill.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Iterable, Sequence

from cachelint.diagnostics import Diagnostic, Severity
from cachelint.skills.context import SkillContext
from cachelint.skills.lexicon import Lexicon, normal_text, fold
from cachelint.skills.listing import project_skills
from cachelint.skills.tree import Skill, SkillTree
from cachelint.rules.declarations import SkillRule

CODE = "CL206"

# Templated descriptions are short; a slot search over long texts would cost O(n^2) per text and
# find nothing the Jaccard step does not.
MAX_TEMPLATE_WORDS = 32
MIN_WORDS = 3  # shorter word sets are CL202's business
LISTED_MEMBERS = 10


class _UnionFind:
    def __init__(self, n: int) -> None:
        self.parent = list(range(n))

    def find(self, a: int) -> int:
        while self.parent[a] != a:
            self.parent[a] = self.parent[self.parent[a]]
            a = self.parent[a]
        return a

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def _own_words(skill: Skill) -> set[str]:
    words: set[str] = set()
    for label in (skill.name or "", skill.folder_name):
        for part in fold(label).replace("_", "-").split("-"):
            if part:
                words.add(part)
    return words


def _content_sequence(skill: Skill, lexicon: Lexicon) -> tuple[str, ...]:
    own = _own_words(skill)
    words = normal_text(skill.description or "").words
    return tuple(w for w in lexicon.content_words(words) if w not in own)


def _jaccard_pairs(sets: Sequence[frozenset[str]], threshold: float) -> Iterable[tuple[int, int]]:
    """Pairs of indexes with Jaccard >= threshold (prefix filtering, then verification)."""
    frequency: dict[str, int] = defaultdict(int)
    for s in sets:
        for w in s:
            frequency[w] += 1
    postings: dict[str, list[int]] = defaultdict(list)
    for i, s in enumerate(sets):
        ordered = sorted(s, key=lambda w: (frequency[w], w))
        prefix = len(ordered) - math.ceil(threshold * len(ordered)) + 1
        candidates: set[int] = set()
        for w in ordered[:prefix]:
            candidates.update(postings[w])
            postings[w].append(i)
        for j in sorted(candidates):
            other = sets[j]
            small, large = sorted((len(s), len(other)))
            if small < threshold * large:
                continue
            inter = len(s & other)
            if inter / (len(s) + len(other) - inter) >= threshold:
                yield j, i


def _template_keys(seq: tuple[str, ...], lexicon: Lexicon, min_shared: int) -> Iterable[tuple]:
    if len(seq) > MAX_TEMPLATE_WORDS:
        return
    for width in (1, 2):
        for i in range(0, len(seq) - width + 1):
            slot = seq[i : i + width]
            if any(lexicon.is_task_word(w) for w in slot):
                continue
            if len(seq) - width < min_shared:
                continue
            yield seq[:i] + ("*",) + seq[i + width :]


def find_clusters(
    groups: Sequence[Sequence[Skill]], lexicon: Lexicon, threshold: float, min_shared: int
) -> list[tuple[list[Skill], str]]:
    """Clusters of indistinct skills (each sorted by display path) with how they were found."""
    skills: list[Skill] = []
    position: dict[str, int] = {}
    for group in groups:
        for skill in group:
            if skill.display not in position:
                position[skill.display] = len(skills)
                skills.append(skill)
    sequences = [_content_sequence(s, lexicon) for s in skills]
    labels = [s.label for s in skills]
    uf = _UnionFind(len(skills))
    reason: dict[int, str] = {}

    def join(alike: list[int], why: str) -> None:
        """Unite skills that are all alike to one another, unless they all share one name: copies
        of one skill (``builtin/gamma``, ``examples/gamma``) are not two choices for the model,
        and a name is never compared with itself. Skills of one name that are each alike to a
        third are still united through it."""
        if len({labels[m] for m in alike}) < 2:
            return
        for other in alike[1:]:
            if uf.find(alike[0]) != uf.find(other):
                uf.union(alike[0], other)
                reason.setdefault(min(alike), why)

    for group in groups:
        members = sorted({position[s.display] for s in group})
        # 0. the very same description under different names, however short: nothing to choose by
        by_text: dict[str, list[int]] = defaultdict(list)
        for m in members:
            by_text[" ".join(normal_text(skills[m].description or "").words)].append(m)
        for text, ms in by_text.items():
            if text:
                join(ms, "the same description")
        members = [m for m in members if len(set(sequences[m])) >= MIN_WORDS]
        # 1. identical word sets
        by_set: dict[frozenset[str], list[int]] = defaultdict(list)
        for m in members:
            by_set[frozenset(sequences[m])].append(m)
        for ms in by_set.values():
            join(ms, "same words once each skill's own name is removed")
        # 2. near-duplicates among distinct sets
        distinct = sorted(by_set, key=lambda s: by_set[s][0])
        for a, b in _jaccard_pairs(distinct, threshold):
            join(
                sorted(by_set[distinct[a]] + by_set[distinct[b]]),
                f"descriptions share at least {threshold:.0%} of their words",
            )
        # 3. one-slot templates
        by_key: dict[tuple, list[int]] = defaultdict(list)
        for m in members:
            for key in set(_template_keys(sequences[m], lexicon, min_shared)):
                by_key[key].append(m)
        for key in sorted(by_key, key=lambda k: (by_key[k][0], k)):
            join(by_key[key], 'same template "' + " ".join(key) + '"')

    components: dict[int, list[int]] = defaultdict(list)
    for i in range(len(skills)):
        components[uf.find(i)].append(i)
    clusters = []
    for _root, members in components.items():
        if len(members) < 2:
            continue
        why = next((reason[m] for m in sorted(members) if m in reason), "similar descriptions")
        clusters.append((sorted((skills[m] for m in members), key=lambda s: s.display), why))
    clusters.sort(key=lambda c: c[0][0].display)
    return clusters


def _plugin_skills(entries) -> list[Skill]:
    """The skills a plugin's entries lead to, without the candidates of ambiguous names."""
    seen: dict = {}
    for entry in entries:
        if not (entry.resolution and entry.resolution.ambiguous):
            for skill in entry.skills:
                seen.setdefault(skill.path, skill)
    return sorted(seen.values(), key=lambda s: s.display)


def _listable(groups) -> list[list[Skill]]:
    # a user-only skill is in no model's listing: the model never chooses between it and another
    return [[s for s in g if s.description and not s.user_only] for g in groups if len(g) >= 2]


def comparison_groups(tree: SkillTree, indexes, loaders=()) -> list[list[Skill]]:
    """Skills the model sees side by side: each index's list (a marketplace's, plugin by plugin:
    a user installs its plugins one by one), each folder of skills, and each loader's project
    skills, which it lists together from all of its folders (GitHub Copilot and OpenCode read
    .claude/skills and .agents/skills both: a copy of a skill in each, renamed, is two entries of
    one description in their listing)."""
    groups: list[list[Skill]] = []
    for index in indexes:
        if index.kind == "marketplace":
            groups.extend(_plugin_skills(entries) for entries in index.entries_by_plugin().values())
        else:
            # an ambiguous name shows one of its skills, which is unknown: none of them joins the group
            groups.append(index.listed(ambiguous=False))
    by_parent: dict = defaultdict(list)
    for skill in tree.skills:
        if not skill.nested:  # a sub-document is chosen through its skill, not by the model
            by_parent[skill.folder.parent].append(skill)
    groups.extend(by_parent[p] for p in sorted(by_parent))
    for loader in loaders:
        if len(loader.skill_folders) > 1:  # one folder: its skills are a folder's group already
            groups.append([s for s in project_skills(tree, loader) if not s.nested])
    return _listable(groups)


def _finding(
    tree: SkillTree, members: Sequence[Skill], why: str, among: str = "", when: str = "", **more
) -> Diagnostic | None:
    """A cluster's one finding, at the description of its first given member (None when the user
    gave none of them); ``among`` says whose skills they are and ``when`` where the model sees them
    together; ``more`` goes into the details (an info-level finding's severity among them)."""
    given = [s for s in members if tree.is_given(s.path)]
    if not given:
        return None
    names = [s.label for s in members]
    shown = ", ".join(names[:LISTED_MEMBERS])
    if len(names) > LISTED_MEMBERS:
        shown += f" and {len(names) - LISTED_MEMBERS} more"
    severity = more.pop("severity", None)
    return Diagnostic(
        CODE,
        f"{len(members)} skills{among} have descriptions too alike to choose between{when} ({why}): {shown}",
        given[0].display,
        given[0].description_line,
        1,
        severity=severity,
        details={"members": [s.display for s in members], "names": names, "reason": why, **more},
    )


def _cross_plugin_clusters(indexes, reported: list[frozenset], lexicon, threshold, min_shared):
    """Clusters across a marketplace's plugins, with the plugins and the marketplace: the model
    sees them together only where a user installs those plugins together, each under its
    plugin's name. A cluster of one plugin, or one already reported, is left out."""
    for index in sorted(indexes, key=lambda i: i.display):
        if index.kind != "marketplace":
            continue
        plugin_of: dict = {}
        for name, entries in index.entries_by_plugin().items():
            for skill in _plugin_skills(entries):
                plugin_of.setdefault(skill.path, name)
        for members, why in find_clusters(_listable([index.listed(ambiguous=False)]), lexicon, threshold, min_shared):
            paths = frozenset(s.path for s in members)
            plugins = sorted({plugin_of.get(s.path, "") for s in members})
            if len(plugins) < 2 or any(paths <= seen for seen in reported):
                continue
            reported.append(paths)  # two marketplaces listing the same plugins: reported once
            yield members, why, plugins, index.display


def check(ctx: SkillContext) -> Iterable[Diagnostic]:
    tree, indexes, lexicon = ctx.tree, ctx.indexes, ctx.lexicon
    threshold, min_shared = ctx.options.similarity_threshold, ctx.options.template_min_shared_words
    found: list[Diagnostic | None] = []
    reported: list[frozenset] = []
    for members, why in find_clusters(comparison_groups(tree, indexes, ctx.loaders), lexicon, threshold, min_shared):
        reported.append(frozenset(s.path for s in members))
        found.append(_finding(tree, members, why))
    for members, why, plugins, marketplace in _cross_plugin_clusters(indexes, reported, lexicon, threshold, min_shared):
        among, when = f" of {len(plugins)} plugins of {marketplace}", " where a user installs those plugins together"
        more = {"severity": Severity.INFO, "plugins": plugins, "marketplace": marketplace}
        found.append(_finding(tree, members, why, among, when, **more))
    return [d for d in found if d is not None]


RULE = SkillRule(CODE, check)
