"""Skill-folder checks (CL201-CL206) and index rendering.

Entry point used by the engine: ``check_skills(files, settings, cwd) -> list[Diagnostic]`` where
``files`` are the discovered non-Python inputs (SKILL.md files and candidate index files).

Flow: tree (discover the repository's skills and index candidates, parse front matter) ->
indexes (detect and parse index files) -> checks (one module per rule) -> Diagnostics about the
given files only.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from cachelint.deadline import TimeLimitExceeded, deadline
from cachelint.diagnostics import Diagnostic

if TYPE_CHECKING:
    from cachelint.config import Settings
    from cachelint.discovery import InputFile


def check_skills(files: "Sequence[InputFile]", settings: "Settings", cwd: Path, checked: "Sequence[Path]" = ()) -> "list[Diagnostic]":
    """``checked``: the folders named on the command line, resolved (see ``discovery.repository_root``)."""
    from cachelint.skills.checks.generic_description import check_generic_descriptions
    from cachelint.skills.checks.index_coverage import check_entries_without_skill, check_not_indexed
    from cachelint.skills.checks.indistinct import check_indistinct
    from cachelint.skills.checks.invalid_metadata import check_invalid_metadata
    from cachelint.skills.checks.name_mismatch import check_name_mismatch
    from cachelint.skills.indexes import IndexRules, detect_indexes
    from cachelint.skills.lexicon import load_lexicon
    from cachelint.skills.options import SkillOptions
    from cachelint.skills.tree import tree_builders

    options = SkillOptions.from_settings(settings)
    lexicon = load_lexicon(settings.pack_paths(), options.lexicon)
    rules = IndexRules.load(settings.pack_paths(), options.index, options.not_index, options.index_min_coverage)
    out: list[Diagnostic] = []
    for tree_files, build in tree_builders(files, settings, cwd, checked):
        found: list[Diagnostic] = []
        try:
            with deadline(options.tree_timeout):
                tree = build()
                found.extend(tree.problems)
                indexes, problems = detect_indexes(tree, rules, settings.max_file_size)
                found.extend(problems)
                found.extend(check_invalid_metadata(tree))
                found.extend(check_name_mismatch(tree))
                found.extend(check_generic_descriptions(tree, lexicon, options.min_content_words))
                found.extend(check_not_indexed(tree, indexes))
                found.extend(check_entries_without_skill(tree, indexes))
                found.extend(check_indistinct(tree, indexes, lexicon, options.similarity_threshold, options.template_min_shared_words))
        except TimeLimitExceeded:
            # what was found before the bound depends on the machine's speed: none of it is kept
            found = [timed_out(tree_files[0].display, options.tree_timeout)]
        out.extend(found)
    return sorted(out, key=Diagnostic.sort_key)


TIMEOUT_MESSAGE = "skill checks of this file's tree took longer than {seconds:g} s and were stopped ([skills] tree-timeout)"


def timed_out(display: str, seconds: float) -> Diagnostic:
    """The CL001 of a tree whose checks hit ``tree-timeout``, on the first of its given files."""
    from cachelint.diagnostics import unreadable

    return unreadable(display, TIMEOUT_MESSAGE.format(seconds=seconds), details={"timeout": "tree-timeout"})


def is_timeout(diagnostic: Diagnostic) -> bool:
    """A finding that depends on the machine's load: never cached."""
    return diagnostic.code == "CL001" and diagnostic.details.get("timeout") == "tree-timeout"
