"""Skill folders: the analyses the skill rules read, their runner, and index rendering.

Entry point used by the engine: ``check_skills(files, settings, cwd) -> list[Diagnostic]`` where
``files`` are the discovered non-Python inputs (SKILL.md files and candidate index files).

Flow: tree (discover the repository's skills and index candidates, parse front matter) ->
indexes (detect and parse index files) -> ``SkillContext`` -> the skill rules of the registry
(``cachelint/rules/skills/cl2NN_*.py``, each ``check(ctx)``, in code order; those the selection
enables) -> Diagnostics about the given files only.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from cachelint.deadline import TimeLimitExceeded, deadline
from cachelint.diagnostics import Diagnostic

if TYPE_CHECKING:
    from cachelint.config import Settings
    from cachelint.discovery import InputFile
    from cachelint.rules.declarations import SkillRule
    from cachelint.skills.context import SkillContext
    from cachelint.textio import FileReader


def check_skills(
    files: "Sequence[InputFile]",
    settings: "Settings",
    cwd: Path,
    checked: "Sequence[Path]" = (),
    reader: "FileReader | None" = None,
) -> "list[Diagnostic]":
    """``checked``: the folders named on the command line, resolved (see ``discovery.repository_root``);
    ``reader``: how the run reads its inputs (from disk by default, ``cachelint.textio.FileReader``)."""
    from cachelint.rules import enabled
    from cachelint.skills.context import SkillContext
    from cachelint.skills.indexes import IndexRules, detect_indexes
    from cachelint.skills.lexicon import load_lexicon
    from cachelint.skills.options import SkillOptions
    from cachelint.skills.tree import tree_builders, unreadable_front_matter

    options = SkillOptions.from_settings(settings)
    folder = settings.catalog_folder
    lexicon = load_lexicon(settings.pack_paths(), options.lexicon, folder)
    rules = IndexRules.load(settings.pack_paths(), options.index, options.not_index, options.index_min_coverage, folder)
    skill_rules: tuple[SkillRule, ...] = enabled("skills", settings)
    out: list[Diagnostic] = []
    from cachelint.textio import DISK

    reader = reader or DISK
    for tree_files, build in tree_builders(files, settings, cwd, checked, reader):
        found: list[Diagnostic] = []
        try:
            with deadline(options.tree_timeout):
                tree = build()
                found.extend(tree.problems)
                indexes, problems = detect_indexes(tree, rules, settings.max_file_size, reader)
                found.extend(problems)
                found.extend(unreadable_front_matter(tree))
                ctx = SkillContext(tree, indexes, lexicon, options)
                for rule in skill_rules:
                    found.extend(run_rule(rule, ctx, tree_files[0].display))
        except TimeLimitExceeded:
            # what was found before the bound depends on the machine's speed: none of it is kept
            found = [timed_out(tree_files[0].display, options.tree_timeout)]
        out.extend(found)
    return sorted(out, key=Diagnostic.sort_key)


def run_rule(rule: "SkillRule", ctx: "SkillContext", display: str) -> "list[Diagnostic]":
    """One rule on one tree: its findings, or the CL003 of its exception at ``display`` (the
    tree's first given file), the other rules still reporting. The tree's time bound is not the
    rule's to catch: it stops every rule of the tree."""
    from cachelint.rules import rule_failed

    try:
        return list(rule.check(ctx))
    except TimeLimitExceeded:
        raise
    except Exception as exc:  # noqa: BLE001 - any rule bug
        return [rule_failed(rule.code, display, exc)]


TIMEOUT_MESSAGE = (
    "skill checks of this file's tree took longer than {seconds:g} s and were stopped ([skills] tree-timeout)"
)


def timed_out(display: str, seconds: float) -> Diagnostic:
    """The CL001 of a tree whose checks hit ``tree-timeout``, on the first of its given files."""
    from cachelint.diagnostics import unreadable

    return unreadable(display, TIMEOUT_MESSAGE.format(seconds=seconds), details={"timeout": "tree-timeout"})


def is_timeout(diagnostic: Diagnostic) -> bool:
    """A finding that depends on the machine's load: never cached."""
    return diagnostic.code == "CL001" and diagnostic.details.get("timeout") == "tree-timeout"
