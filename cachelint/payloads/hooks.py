"""The payload rules (CL3xx) as the audit calls them: their declarations
(``cachelint.rules.declarations.PayloadRule``, one per module of ``cachelint/rules/payloads/``),
grouped by hook and by what lets the pipeline skip a call, and the one place where a rule's
exception becomes a finding (``run_checks``).

Which rules run (``payload_rules``): those the selection enables, and every rule whose findings
report prefix breaks (``reports_prefix_break``) whatever the selection: the summary leaves out a
break whose findings were all left out, so it needs them to know which breaks those are.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from cachelint.diagnostics import Diagnostic, unreadable
from cachelint.rules import rule_failed
from cachelint.rules.declarations import PayloadRule


@dataclass(frozen=True)
class RuleCheck:
    """One hook of one rule: what the pipeline calls, and the rule it reports a crash of."""

    rule: PayloadRule
    call: Callable[..., Iterable[Diagnostic]]


@functools.lru_cache(maxsize=1)
def declared_rules() -> tuple[PayloadRule, ...]:
    """Every payload rule, in code order."""
    from cachelint.rules import declared

    return declared("payloads")


@functools.lru_cache(maxsize=8)
def payload_rules(enabled: frozenset[str] | None = None) -> tuple[PayloadRule, ...]:
    """The rules an audit runs: all of them (``enabled`` None), or those whose code is in
    ``enabled`` and those that report prefix breaks (see the module's docstring)."""
    rules = declared_rules()
    if enabled is None:
        return rules
    return tuple(r for r in rules if r.code in enabled or r.reports_prefix_break)


@functools.lru_cache(maxsize=1)
def prefix_break_codes() -> frozenset[str]:
    """The codes whose findings report a break of the prefix the pair diff found."""
    return frozenset(r.code for r in declared_rules() if r.reports_prefix_break)


@functools.lru_cache(maxsize=1)
def lost_cache_codes() -> frozenset[str]:
    """The codes whose findings mean the cache could not serve what the previous request left."""
    return frozenset(r.code for r in declared_rules() if r.reports_lost_cache)


@functools.lru_cache(maxsize=1)
def provider_miss_codes() -> frozenset[str]:
    """The codes whose findings are misses with the prefix intact: the provider's side."""
    return frozenset(r.code for r in declared_rules() if r.reports_provider_miss)


def _hooks(rules: Iterable[PayloadRule], hook: str, flag: str | None = None) -> tuple[RuleCheck, ...]:
    out = []
    for rule in rules:
        call = getattr(rule, hook)
        if call is not None and (flag is None or getattr(rule, flag)):
            out.append(RuleCheck(rule, call))
    return tuple(out)


@functools.lru_cache(maxsize=8)
def request_checks(enabled: frozenset[str] | None = None) -> tuple[RuleCheck, ...]:
    return _hooks(payload_rules(enabled), "check_request")


@functools.lru_cache(maxsize=8)
def pair_checks(enabled: frozenset[str] | None = None) -> tuple[RuleCheck, ...]:
    return _hooks(payload_rules(enabled), "check_pair")


@functools.lru_cache(maxsize=8)
def change_only_pair_checks(enabled: frozenset[str] | None = None) -> tuple[RuleCheck, ...]:
    """The pair checks of rules declared ``pair_needs_change``: nothing to say on a quiet pair."""
    return _hooks(payload_rules(enabled), "check_pair", "pair_needs_change")


@functools.lru_cache(maxsize=8)
def first_only_request_checks(enabled: frozenset[str] | None = None) -> tuple[RuleCheck, ...]:
    """The request checks of rules declared ``request_first_only``: nothing to say after the first
    request of a session."""
    return _hooks(payload_rules(enabled), "check_request", "request_first_only")


@functools.lru_cache(maxsize=8)
def rejected_request_checks(enabled: frozenset[str] | None = None) -> tuple[RuleCheck, ...]:
    """The request checks of rules declared ``rejected_requests``: run on a request the provider
    rejected, to say why."""
    return _hooks(payload_rules(enabled), "check_request", "rejected_requests")


@functools.lru_cache(maxsize=8)
def session_checks(enabled: frozenset[str] | None = None) -> tuple[RuleCheck, ...]:
    return _hooks(payload_rules(enabled), "check_session")


@functools.lru_cache(maxsize=8)
def run_end_checks(enabled: frozenset[str] | None = None) -> tuple[RuleCheck, ...]:
    """Checks that judge the whole run (what several sessions share), called once at its end."""
    return _hooks(payload_rules(enabled), "check_run_end")


@functools.lru_cache(maxsize=8)
def rebuild_checks(enabled: frozenset[str] | None = None) -> tuple[RuleCheck, ...]:
    """Checks of a coding agent's rebuilds (``cachelint.transcripts.audit``), one per rebuild."""
    return _hooks(payload_rules(enabled), "check_rebuild")


@functools.lru_cache(maxsize=8)
def skipped_at(fidelity: str) -> tuple[str, ...]:
    """The codes of the rules that do not run on requests of ``fidelity``."""
    from cachelint.payloads.model import FIDELITIES

    level = FIDELITIES.index(fidelity)
    return tuple(sorted(r.code for r in declared_rules() if FIDELITIES.index(r.fidelity) < level))


def checks_for(fidelity: str, checks: tuple[RuleCheck, ...]) -> tuple[RuleCheck, ...]:
    """The checks of ``checks`` that can judge a request of ``fidelity``."""
    skipped = set(skipped_at(fidelity))
    return tuple(c for c in checks if c.rule.code not in skipped)


def run_checks(out: list[Diagnostic], checks: tuple[RuleCheck, ...], origin: Any, args: tuple[Any, ...]) -> None:
    """Run each check; a bug in one becomes a CL003 at the request naming the rule, instead of
    ending the audit (a request nested past the interpreter's limit stays the input's CL001).
    Most checks return an empty tuple or list: nothing is copied then."""
    for check in checks:
        try:
            found = check.call(*args)
            if found:
                out.extend(found if type(found) in (list, tuple) else list(found))
        except RecursionError:
            if origin is not None:
                out.append(
                    unreadable(origin.path, "too deeply nested to check", line=origin.line, record=origin.record)
                )
        except Exception as exc:  # noqa: BLE001 - any check bug
            if origin is not None:
                out.append(rule_failed(check.rule.code, origin.path, exc, line=origin.line, record=origin.record))
