"""Shared wording and details of the prefix-break findings (CL301–CL304, CL309)."""
from __future__ import annotations

from typing import Any

from cachelint.payloads.jsonio import dumps
from cachelint.payloads.model import PrefixDiff, TierDiff


def tier_details(diff: PrefixDiff, td: TierDiff) -> dict[str, Any]:
    """The details of a finding about one tier: where the bytes part, both excerpts (when this is
    the first broken tier), the structural explanation, and every tier the pair loses."""
    details: dict[str, Any] = {"tier": td.tier, "byte_offset": td.offset, "first_tier": diff.first_tier}
    if diff.first_tier == td.tier and diff.offset is not None:
        details["before"] = diff.excerpt_before
        details["after"] = diff.excerpt_after
    details["explanation"] = list(td.explanation)
    if td.changes:
        details["changes"] = [dict(c) for c in td.changes]
    details["invalidated"] = list(diff.invalidated)
    return details


def lost_text(tiers: tuple[str, ...] | list[str]) -> str:
    return ", ".join(tiers) if tiers else "nothing"


def show(value: Any, limit: int = 80) -> str:
    if value is None:
        return "(absent)"
    text = dumps(value).decode("utf-8", "replace")
    return text if len(text) <= limit else text[: limit - 1] + "…"
