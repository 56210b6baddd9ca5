"""Changed cache-affecting settings of two requests, and the tiers each invalidates by the dated
table of the ``payloads-invalidation`` packs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from cachelint.payloads.model import TIERS, Request, SettingChange


@dataclass(frozen=True)
class InvalidationTable:
    """provider -> setting -> {invalidates, derived-from, default, confirmed, reported-by, source}
    (merged packs)."""

    providers: Mapping[str, Mapping[str, Mapping[str, Any]]]
    _sorted: dict[str, tuple[tuple[str, Mapping[str, Any]], ...]] = field(
        default_factory=dict, compare=False, repr=False
    )

    @classmethod
    def from_packs(cls, packs: Iterable[Mapping[str, Any]]) -> "InvalidationTable":
        merged: dict[str, dict[str, Mapping[str, Any]]] = {}
        for pack in packs:
            for provider, table in pack.get("providers", {}).items():
                merged.setdefault(provider, {}).update(table)
        return cls(merged)

    def settings_for(self, provider: str) -> Mapping[str, Mapping[str, Any]]:
        return self.providers.get(provider, {})

    def sorted_settings(self, provider: str) -> tuple[tuple[str, Mapping[str, Any]], ...]:
        """(name, row) of a provider's settings in name order, sorted once per run."""
        if provider not in self._sorted:
            self._sorted[provider] = tuple(sorted(self.settings_for(provider).items()))
        return self._sorted[provider]


def changed_settings(
    prev: Request, cur: Request, table: InvalidationTable, broken_tiers: set[str]
) -> list[SettingChange]:
    if prev.settings == cur.settings and prev.provider == cur.provider:
        return []  # the common case, one C-level comparison: nothing can differ once normalised
    out: list[SettingChange] = []
    for name, row in table.sorted_settings(cur.provider):
        before = _normalise_setting(prev.settings.get(name), row)
        after = _normalise_setting(cur.settings.get(name), row)
        if before == after:
            continue
        derived = row.get("derived-from")
        if derived and derived in broken_tiers:
            continue  # the tier diff already says it (e.g. a web_search tool added)
        tiers = tuple(t for t in TIERS if t in row["invalidates"])
        out.append(SettingChange(name, before, after, tiers, row.get("confirmed", True) is not False))
    return out


def _normalise_setting(value: Any, row: Mapping[str, Any]) -> Any:
    if value is None or value is False and "default" not in row:
        return None
    if "default" in row and value == row["default"]:
        return None
    return value
