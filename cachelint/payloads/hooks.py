"""The hooks of the payload rules (CL3xx): which rule modules there are, and which of their checks
the pipeline calls where.

A rule is a module ``cachelint/rules/payloads/cl<code>_<name>.py`` (e.g. ``cl301_tools_changed.py``)
that defines any of::

    def check_request(req: Request, ctx: CheckContext) -> Iterable[Diagnostic]        # every request
    def check_pair(prev: Request, cur: Request, ctx: CheckContext) -> Iterable[Diagnostic]
                                                 # every consecutive pair of a session; ctx.diff is set
    def check_session(session: Session, ctx: CheckContext) -> Iterable[Diagnostic]   # once, at its end
    def check_run_end(ctx: CheckContext) -> Iterable[Diagnostic]    # once, after every session closed

Adding a check = creating the file: modules are discovered and run in name order (= code order).
Checks are pure functions of their arguments: no module state, no I/O beyond ``ctx.packs``; the
few that judge across calls keep what they need in the run's state (``ctx.state(key, make)``).
Their context (``CheckContext``, immutable) and ``at_request(...)``, which builds a Diagnostic
located at a request, are in ``cachelint.payloads.context``.

Two optional module flags let the pipeline skip a check where it cannot find anything (most pairs
of a long log only append to the history; calling a dozen checks that return nothing is most of a
quiet pair's cost):

- ``PAIR_NEEDS_CHANGE = True``: ``check_pair`` reports only when ``ctx.diff`` shows a changed tier
  (not a history that only grew) or a changed setting, or when the two requests' ``settings``
  differ. It is not called for a pair whose prefix held byte for byte with equal settings.
- ``REQUEST_FIRST_ONLY = True``: ``check_request`` reports only on the first request of a
  session (``index_in_session == 0``); it is not called for the others.

A request the provider rejected (HTTP 4xx/5xx) is in no session and cost nothing: only the request
checks of modules flagged ``REJECTED_REQUESTS = True`` run on it, those that can say why it was
rejected (CL305: the cache markers the API refuses); ``req.failed`` holds the provider's answer.

``FIDELITY`` says what a check needs of a request (``cachelint.payloads.model.FIDELITIES``):
``"wire"`` (the default: bytes, key order, cache markers as sent), ``"content"`` (the prompt's
content, as observability exports re-encode it) or ``"usage"`` (the usage of each call, as Claude
Code transcripts keep it). A request read from a log of lower fidelity is not given to the check
(``checks_for``), and the audit's summary names the checks that did not run.
"""

from __future__ import annotations

import functools
from types import ModuleType
from typing import Any, Callable, Iterable

from cachelint.diagnostics import Diagnostic
from cachelint.payloads.context import CheckContext
from cachelint.payloads.model import Request

CheckPair = Callable[[Request, Request, CheckContext], Iterable[Diagnostic]]


@functools.lru_cache(maxsize=1)
def check_modules() -> tuple[ModuleType, ...]:
    """Every payload rule module (``cachelint/rules/payloads/cl3NN_*.py``), in code order."""
    from cachelint.rules import modules

    return modules("payloads")


@functools.lru_cache(maxsize=1)
def request_checks() -> tuple[Callable[..., Iterable[Diagnostic]], ...]:
    return tuple(m.check_request for m in check_modules() if hasattr(m, "check_request"))


@functools.lru_cache(maxsize=1)
def pair_checks() -> tuple[CheckPair, ...]:
    return tuple(m.check_pair for m in check_modules() if hasattr(m, "check_pair"))


@functools.lru_cache(maxsize=1)
def change_only_pair_checks() -> tuple[CheckPair, ...]:
    """The pair checks of modules flagged ``PAIR_NEEDS_CHANGE``: nothing to say on a quiet pair."""
    return tuple(
        m.check_pair for m in check_modules() if hasattr(m, "check_pair") and getattr(m, "PAIR_NEEDS_CHANGE", False)
    )


@functools.lru_cache(maxsize=1)
def first_only_request_checks() -> tuple[Callable[..., Iterable[Diagnostic]], ...]:
    """The request checks of modules flagged ``REQUEST_FIRST_ONLY``: nothing to say after the
    first request of a session."""
    return tuple(
        m.check_request
        for m in check_modules()
        if hasattr(m, "check_request") and getattr(m, "REQUEST_FIRST_ONLY", False)
    )


@functools.lru_cache(maxsize=1)
def rejected_request_checks() -> tuple[Callable[..., Iterable[Diagnostic]], ...]:
    """The request checks of modules flagged ``REJECTED_REQUESTS``: run on a request the provider
    rejected, to say why."""
    return tuple(
        m.check_request
        for m in check_modules()
        if hasattr(m, "check_request") and getattr(m, "REJECTED_REQUESTS", False)
    )


@functools.lru_cache(maxsize=1)
def session_checks() -> tuple[Callable[..., Iterable[Diagnostic]], ...]:
    return tuple(m.check_session for m in check_modules() if hasattr(m, "check_session"))


def needs(module: ModuleType) -> str:
    """The fidelity a check module needs (``FIDELITY``, default ``wire``)."""
    return str(getattr(module, "FIDELITY", "wire"))


@functools.lru_cache(maxsize=8)
def skipped_at(fidelity: str) -> tuple[str, ...]:
    """The codes of the checks that do not run on requests of ``fidelity``."""
    from cachelint.payloads.model import FIDELITIES

    level = FIDELITIES.index(fidelity)
    return tuple(
        sorted(
            {m.__name__.rsplit(".", 1)[-1][:5].upper() for m in check_modules() if FIDELITIES.index(needs(m)) < level}
        )
    )


def checks_for(fidelity: str, checks: tuple[Callable[..., Any], ...]) -> tuple[Callable[..., Any], ...]:
    """The checks of ``checks`` that can judge a request of ``fidelity``."""
    skipped = set(skipped_at(fidelity))
    return tuple(c for c in checks if c.__module__.rsplit(".", 1)[-1][:5].upper() not in skipped)


@functools.lru_cache(maxsize=1)
def run_end_checks() -> tuple[Callable[..., Iterable[Diagnostic]], ...]:
    """Checks that judge the whole run (what several sessions share), called once at its end."""
    return tuple(m.check_run_end for m in check_modules() if hasattr(m, "check_run_end"))
