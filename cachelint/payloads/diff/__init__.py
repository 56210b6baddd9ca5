"""The prefix diff of two consecutive requests of a session.

Bytes first: tiers are compared as tuples of canonical block bytes (cheap: identical blocks of
consecutive requests are usually the very same bytes object). Only a tier that differs is decoded and
explained structurally (deepdiff), so the work is proportional to what changed.

The first differing tier and the byte offset of the first differing byte in the rendered prefix
(tools, then system, then messages; offset 0 = first byte of the first tool) locate the break; a
changed cache-affecting setting invalidates tiers per the dated table in
rules/packs/payloads-invalidation.yaml.

The modules: ``prefix`` (``prefix_diff``: tier by tier, offsets, excerpts), ``explain`` (what
changed inside a block), ``volatile`` (changed spans that are values that tick, CL309),
``setting_changes`` (the invalidation table and the settings that changed), ``common`` (common
prefixes of strings, bytes and tiers).
"""

from __future__ import annotations

from cachelint.payloads.diff.common import common_prefix_blocks, common_prefix_len, common_suffix_len, oldest_dropped
from cachelint.payloads.diff.explain import (
    DROPPED_THINKING_HINT,
    MAX_EXPLANATIONS,
    deepdiff_lines,
    explain_block_change,
    flat_text_changes,
    list_item_changes,
    readable_path,
)
from cachelint.payloads.diff.prefix import EXCERPT_AFTER, EXCERPT_BEFORE, chain_view, prefix_diff
from cachelint.payloads.diff.setting_changes import InvalidationTable, changed_settings
from cachelint.payloads.diff.volatile import MAX_VOLATILE_TOKEN, VolatilePatterns, volatile_spans

__all__ = [
    "oldest_dropped",
    "DROPPED_THINKING_HINT",
    "EXCERPT_AFTER",
    "EXCERPT_BEFORE",
    "MAX_EXPLANATIONS",
    "MAX_VOLATILE_TOKEN",
    "InvalidationTable",
    "VolatilePatterns",
    "chain_view",
    "changed_settings",
    "common_prefix_blocks",
    "common_prefix_len",
    "common_suffix_len",
    "deepdiff_lines",
    "explain_block_change",
    "flat_text_changes",
    "list_item_changes",
    "prefix_diff",
    "readable_path",
    "volatile_spans",
]
