"""What every payload check reads: the run's settings and options, the pair's prefix diff, the
session, the packs; and ``at_request``, which locates a Diagnostic at a request.

A ``CheckContext`` is immutable: the pipeline makes one per run and, from it, one per session and
one per pair (``for_session``, ``with_diff``), which share the run's ``RunState``: the packs read
once, what is built from them once (the limits), and the state of the few rules that judge across
calls (a session's digests, the first requests of sessions not yet closed), kept under the rule's
code so that nothing of a rule's state lives in module globals and a run never sees another's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, TypeVar

from cachelint.config import Settings
from cachelint.diagnostics import Diagnostic, Severity
from cachelint.payloads.model import PrefixDiff, Request, Session

T = TypeVar("T")


class RunState:
    """What the checks of one run keep between calls (see the module's docstring)."""

    __slots__ = ("packs", "built", "rules")

    def __init__(self) -> None:
        self.packs: dict[str, list[dict[str, Any]]] = {}  # kind -> merged built-in + user packs
        self.built: dict[str, Any] = {}  # kind -> the object built from its packs
        self.rules: dict[str, Any] = {}  # key (the rule's code first) -> that rule's state


@dataclass(frozen=True)
class CheckContext:
    """What every check may read.

    ``settings``: the run's Settings; ``options``: ``[tool.cachelint.audit]`` (validated, kebab-case).
    ``diff``: the PrefixDiff of the pair being checked (``check_pair`` only; computed once by the
    pipeline so that checks do not recompute it). ``session``: the session of the request or pair.
    ``packs(kind)``: the merged built-in + user packs of a kind (read once per run).
    """

    settings: Settings
    options: Mapping[str, Any] = field(default_factory=dict)
    diff: PrefixDiff | None = None
    session: Session | None = None
    run: RunState = field(default_factory=RunState, repr=False, compare=False)

    def for_session(self, session: Session | None) -> CheckContext:
        """This run's context for one session (no pair). A constructor call rather than
        ``dataclasses.replace``, which walks the fields: the pipeline makes one per pair."""
        return CheckContext(self.settings, self.options, None, session, self.run)

    def with_diff(self, diff: PrefixDiff | None) -> CheckContext:
        """This context for one pair of its session, with the pair's prefix diff."""
        return CheckContext(self.settings, self.options, diff, self.session, self.run)

    def packs(self, kind: str) -> list[dict[str, Any]]:
        cache = self.run.packs
        if kind not in cache:
            from cachelint.catalog import load_packs

            cache[kind] = load_packs(kind, self.settings.pack_paths())
        return cache[kind]

    def built(self, kind: str, build: Callable[[list[dict[str, Any]]], T]) -> T:
        """``build(self.packs(kind))``, built once per run (every check asks for the limits on
        every request). One builder per kind."""
        built = self.run.built
        found = built.get(kind)
        if found is None:
            found = built[kind] = build(self.packs(kind))
        return found

    def state(self, key: str, make: Callable[[], T]) -> T:
        """The run's state of one rule under ``key`` (its code first: ``"CL307 seen"``), made by
        ``make()`` on first use."""
        rules = self.run.rules
        found = rules.get(key)
        if found is None:
            found = rules[key] = make()
        return found

    def option(self, name: str, default: Any = None) -> Any:
        return self.options.get(name, default)

    def setting_rows(self, provider: str) -> dict[str, Mapping[str, Any]]:
        """The invalidation table's rows of one provider (setting -> row), packs merged in order."""
        rows: dict[str, Mapping[str, Any]] = {}
        for pack in self.packs("payloads-invalidation"):
            rows.update(pack.get("providers", {}).get(provider, {}))
        return rows

    def unconfirmed_settings(self, provider: str) -> frozenset[str]:
        """Settings of a provider whose effect on the cache is undocumented (``confirmed: false``)."""
        return frozenset(name for name, row in self.setting_rows(provider).items() if row.get("confirmed") is False)


def at_request(
    code: str,
    message: str,
    req: Request,
    *,
    kind: str | None = None,
    details: Mapping[str, Any] | None = None,
    severity: Severity | None = None,
) -> Diagnostic:
    """A Diagnostic located at a request: its file, line, record index and session."""
    return Diagnostic(
        code=code,
        message=message,
        path=req.origin.path,
        line=req.origin.line,
        column=1,
        record=req.origin.record,
        session=req.session,
        kind=kind,
        severity=severity,
        details=dict(details or {}),
    )
