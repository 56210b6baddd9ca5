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
    from cachelint.skills.tree import build_trees

    options = SkillOptions.from_settings(settings)
    lexicon = load_lexicon(settings.pack_paths(), options.lexicon)
    rules = IndexRules.load(settings.pack_paths(), options.index, options.not_index, options.index_min_coverage)
    out: list[Diagnostic] = []
    for tree in build_trees(files, settings, cwd, checked):
        out.extend(tree.problems)
        indexes, problems = detect_indexes(tree, rules, settings.max_file_size)
        out.extend(problems)
        out.extend(check_invalid_metadata(tree))
        out.extend(check_name_mismatch(tree))
        out.extend(check_generic_descriptions(tree, lexicon, options.min_content_words))
        out.extend(check_not_indexed(tree, indexes))
        out.extend(check_entries_without_skill(tree, indexes))
        out.extend(check_indistinct(tree, indexes, lexicon, options.similarity_threshold, options.template_min_shared_words))
    return sorted(out, key=Diagnostic.sort_key)
