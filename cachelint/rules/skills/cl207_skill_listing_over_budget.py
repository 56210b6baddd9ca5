"""CL207 skill-listing-over-budget: a loader's listing of skill names and descriptions is larger
than the budget its documentation gives it, so the loader cuts or drops descriptions, and which
ones depends on what else is installed or on what was used: the listing, held in the cached
prefix, changes with them.

One finding per view that overflows (``cachelint.skills.listing``), at its manifest when the
manifest was given, else at the first given skill's description; one per entry a loader cuts at
its per-entry cap (Claude Code: 1,536 characters of description and when_to_use), unless CL201
already reports the description as too long.
"""

from __future__ import annotations

from typing import Any, Iterable

from cachelint.diagnostics import Diagnostic
from cachelint.skills.context import SkillContext
from cachelint.skills.listing import ListingMeasure, entry_name, listed_by, measure_all
from cachelint.rules.declarations import SkillRule

CODE = "CL207"
LISTED_NAMES = 8
MAX_DESCRIPTION = 1024  # the Agent Skills limit: a longer description is CL201's


def _count(n: int, word: str) -> str:
    return f"{n:,} {word}" + ("" if n == 1 else "s")


def _names(skills) -> str:
    names = [entry_name(s) for s in skills]
    shown = ", ".join(names[:LISTED_NAMES])
    return shown + (f" and {len(names) - LISTED_NAMES} more" if len(names) > LISTED_NAMES else "")


def _message(m: ListingMeasure) -> str:
    view, listing = m.view, m.view.loader.listing
    assert listing is not None
    head = (
        f"{view.loader.name}'s skill listing of {view.what}: {_count(len(view.skills), 'skill')}, "
        f"{m.used:,} characters, {m.share:.0%} of its {m.budget:,}-character budget ({listing.basis()})"
    )
    if listing.overflow == "drop-least-invoked":
        if m.names_only > m.budget:
            return (
                f"{head}; even the names alone take {m.names_only:,} characters: every description is dropped "
                f"and the model chooses by names only, in {listing.place}"
            )
        fewest, most = m.dropped
        count = f"{fewest}" if fewest == most else f"{fewest} to {most}"
        return (
            f"{head}; it drops the descriptions of the least-invoked skills until the listing fits "
            f"({count} of {len(view.skills)} here), so the listing in {listing.place} changes as use changes, "
            "and the cached prefix with it"
        )
    if m.omitted:
        return (
            f"{head}; even without descriptions the entries exceed it: every description is removed and "
            f"{_count(len(m.omitted), 'skill')} left out ({_names(m.omitted)}), and each skill added or removed "
            f"changes which, in {listing.place}"
        )
    return (
        f"{head}; it shortens every description to {m.shortened_to} characters "
        f"({len(m.shortened)} of {len(view.skills)} cut), and each skill added or removed shortens them all "
        f"again, in {listing.place}"
    )


def _details(m: ListingMeasure) -> dict[str, Any]:
    details: dict[str, Any] = {
        "loader": m.view.loader.key,
        "view": m.view.what,
        "skills": len(m.view.skills),
        "characters": m.used,
        "budget": m.budget,
        "share": round(m.share, 3),
    }
    if m.dropped != (0, 0):
        details["dropped"] = list(m.dropped)
    if m.shortened_to is not None:
        details["shortened_to"] = m.shortened_to
        details["shortened"] = [entry_name(s) for s in m.shortened]
    if m.omitted:
        details["omitted"] = [entry_name(s) for s in m.omitted]
    return details


def check(ctx: SkillContext) -> Iterable[Diagnostic]:
    tree = ctx.tree
    out = []
    for m in measure_all(tree, ctx.indexes, ctx.loaders):
        if not m.over or not m.view.unit:
            continue  # (a collection copied at once is measured by `cachelint index --listing`)
        anchor = m.view.anchor
        if anchor is not None and tree.is_given(anchor[0]):
            at, line = anchor[1], m.view.line
        else:
            given = [s for s in m.view.skills if tree.is_given(s.path)]
            if not given:
                continue
            first = min(given, key=lambda s: s.display)
            at, line = first.display, first.description_line
        out.append(Diagnostic(CODE, _message(m), at, line, 1, details=_details(m)))
    out.extend(_cut_entries(ctx))
    return out


def _cut_entries(ctx: SkillContext) -> list[Diagnostic]:
    """Entries a loader cuts at its per-entry cap, once per skill and loader."""
    tree = ctx.tree
    out = []
    for loader in ctx.loaders:
        listing = loader.listing
        if listing is None or listing.entry_cap is None:
            continue
        for skill in tree.skills:
            if not tree.is_given(skill.path) or not listed_by(skill, loader):
                continue
            text = skill.listing_text()
            if len(text) <= listing.entry_cap or len(skill.description or "") > MAX_DESCRIPTION:
                continue
            lost = len(text) - listing.entry_cap
            out.append(
                Diagnostic(
                    CODE,
                    f"{loader.name} cuts this skill's listing entry at {listing.entry_cap:,} characters: "
                    f"its description and when_to_use hold {len(text):,}, so the last {lost:,} never reach the model; "
                    "put the key use case first and shorten the rest",
                    skill.display,
                    skill.description_line,
                    1,
                    details={"loader": loader.key, "characters": len(text), "cap": listing.entry_cap},
                )
            )
    return out


RULE = SkillRule(CODE, check)
