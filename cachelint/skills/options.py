"""``[tool.cachelint.skills]`` options (validated by rules/schema/config-skills.schema.json)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Mapping

if TYPE_CHECKING:
    from cachelint.config import Settings

DEFAULT_MIN_CONTENT_WORDS = 3
DEFAULT_SIMILARITY_THRESHOLD = 0.8
DEFAULT_TEMPLATE_MIN_SHARED_WORDS = 3
DEFAULT_INDEX_MIN_COVERAGE = 0.5
DEFAULT_TREE_TIMEOUT = 120.0


@dataclass(frozen=True)
class SkillOptions:
    index: tuple[str, ...] = ()  # globs of files that are indexes, relative to the repository root
    not_index: tuple[str, ...] = ()  # globs of files never treated as indexes
    min_content_words: int = DEFAULT_MIN_CONTENT_WORDS
    similarity_threshold: float = DEFAULT_SIMILARITY_THRESHOLD
    template_min_shared_words: int = DEFAULT_TEMPLATE_MIN_SHARED_WORDS
    index_min_coverage: float = DEFAULT_INDEX_MIN_COVERAGE
    lexicon: Mapping[str, Any] = field(default_factory=dict)
    tree_timeout: float = DEFAULT_TREE_TIMEOUT  # seconds for all skill checks of one tree
    # [tool.cachelint.skills.listing.<loader>]: context-window, budget-fraction, max-description-chars
    listing: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_settings(cls, settings: "Settings") -> "SkillOptions":
        raw = settings.section("skills")
        return cls(
            index=tuple(raw.get("index", ())),
            not_index=tuple(raw.get("not-index", ())),
            min_content_words=int(raw.get("min-content-words", DEFAULT_MIN_CONTENT_WORDS)),
            similarity_threshold=float(raw.get("similarity-threshold", DEFAULT_SIMILARITY_THRESHOLD)),
            template_min_shared_words=int(raw.get("template-min-shared-words", DEFAULT_TEMPLATE_MIN_SHARED_WORDS)),
            index_min_coverage=float(raw.get("index-min-coverage", DEFAULT_INDEX_MIN_COVERAGE)),
            lexicon=dict(raw.get("lexicon", {})),
            tree_timeout=float(raw.get("tree-timeout", DEFAULT_TREE_TIMEOUT)),
            listing={key: dict(value) for key, value in raw.get("listing", {}).items()},
        )
