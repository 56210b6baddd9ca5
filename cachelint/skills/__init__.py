"""Skill folders: the analyses the skill rules read, their runner, and index rendering.

Entry point used by the engine: ``check_skills(files, settings, cwd) -> list[Diagnostic]`` where
``files`` are the discovered non-Python inputs (SKILL.md files and candidate index files).

Flow: tree (discover the repository's skills and index candidates, parse front matter) ->
indexes (detect and parse index files) -> ``SkillContext`` -> the skill rules of the registry
(``cachelint/rules/skills/cl2NN_*.py``, each ``check(ctx)``, in code order) -> Diagnostics about
the given files only.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from cachelint.deadline import TimeLimitExceeded, deadline
from cachelint.diagnostics import Diagnostic

if TYPE_CHECKING:
    from cachelint.config import Settings
    from cachelint.discovery import InputFile


def check_skills(
    files: "Sequence[InputFile]", settings: "Settings", cwd: Path, checked: "Sequence[Path]" = ()
) -> "list[Diagnostic]":
    """``checked``: the folders named on the command line, resolved (see ``discovery.repository_root``)."""
    from cachelint.rules import modules
    from cachelint.skills.context import SkillContext
    from cachelint.skills.indexes import IndexRules, detect_indexes
    from cachelint.skills.lexicon import load_lexicon
    from cachelint.skills.loaders import Loaders
    from cachelint.skills.options import SkillOptions
    from cachelint.skills.tree import tree_builders, unreadable_front_matter

    options = SkillOptions.from_settings(settings)
    lexicon = load_lexicon(settings.pack_paths(), options.lexicon)
    loaders = Loaders.load(settings.pack_paths(), options.listing)
    rules = IndexRules.load(
        settings.pack_paths(), options.index, options.not_index, options.index_min_coverage, loaders
    )
    checks = [rule.check for rule in modules("skills")]
    out: list[Diagnostic] = []
    for tree_files, build in tree_builders(files, settings, cwd, checked):
        found: list[Diagnostic] = []
        try:
            with deadline(options.tree_timeout):
                tree = build()
                found.extend(tree.problems)
                indexes, problems = detect_indexes(tree, rules, settings.max_file_size)
                found.extend(problems)
                found.extend(unreadable_front_matter(tree))
                ctx = SkillContext(tree, indexes, lexicon, options, loaders)
                for check in checks:
                    found.extend(check(ctx))
        except TimeLimitExceeded:
            # what was found before the bound depends on the machine's speed: none of it is kept
            found = [timed_out(tree_files[0].display, options.tree_timeout)]
        out.extend(found)
    return sorted(out, key=Diagnostic.sort_key)


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
