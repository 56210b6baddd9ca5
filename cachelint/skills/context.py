"""What a skill rule reads (``cachelint.rules.skills``): one skill tree, its index files, the
description lexicon and the ``[skills]`` options, built once per tree by ``check_skills``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from cachelint.skills.indexes import IndexFile
from cachelint.skills.lexicon import Lexicon
from cachelint.skills.loaders import Loaders, builtin_loaders
from cachelint.skills.options import SkillOptions
from cachelint.skills.tree import SkillTree


@dataclass(frozen=True)
class SkillContext:
    tree: SkillTree  # every skill and index candidate of the repository; findings only on given files
    indexes: Sequence[IndexFile]  # the index files detected in the tree (detect_indexes)
    lexicon: Lexicon  # the words the description rules read (rules/packs/skills-lexicon-*.yaml)
    options: SkillOptions
    loaders: Loaders = field(default_factory=builtin_loaders)  # rules/packs/skills-loaders.yaml
