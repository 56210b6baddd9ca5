"""What a rule declares about itself: one frozen dataclass per scope, the last statement of every
rule module (``RULE = PayloadRule("CL301", fidelity="content", pair_needs_change=True, ...)``).

The runners read these declarations and nothing else of a rule module: which hooks it has, when
they can be skipped, what a file must contain for it to find anything, whether its findings are
breaks of the cached prefix. A flag is a typed field, so a misspelled one fails when the module
is imported, not silently at run time. The registry (``cachelint.rules``) checks that each
declaration's code is its module's file name and its catalog entry.

This module imports nothing of the checks: a declaration is data, and the types of the hooks'
arguments are named for the type checker only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterable, Literal, Union, get_args

if TYPE_CHECKING:
    from cachelint.code.facts import CodeFacts
    from cachelint.diagnostics import Diagnostic
    from cachelint.payloads.context import CheckContext
    from cachelint.payloads.model import Request, Session
    from cachelint.skills.context import SkillContext
    from cachelint.transcripts.model import Rebuild

_CODE = re.compile(r"CL\d{3}")

# What a payload check needs of a request, from most to least (``cachelint.payloads.model.FIDELITIES``):
# ``wire``: bytes, key order, cache markers as sent; ``content``: the prompt's content, as
# observability exports re-encode it; ``usage``: the usage of each call, as Claude Code transcripts
# keep it. A request read from a log of lower fidelity than a rule needs is not given to it.
Fidelity = Literal["wire", "content", "usage"]

# What a Python file's text must show for a code rule to find anything in it. The prefilter
# (``cachelint.code.prefilter``, built from the packs) turns each into a cheap text test, and a
# run tests a file for the union of what its enabled rules require: a file that shows none of it
# is only checked for syntax.
# - ``sink-call``: an LLM call with a prefix argument (tools, system...), a system message, or a
#   call of another module's function that passes its parameters to one;
# - ``system-prompt-name``: a name that says it holds the system prompt (``SYSTEM_PROMPT``,
#   ``build_system_prompt``), whose value is the system prompt wherever it is sent.
Requirement = Literal["sink-call", "system-prompt-name"]


def _check_code(code: str) -> None:
    if not _CODE.fullmatch(code):
        raise ValueError(f"rule code {code!r}: expected CL and three digits")


@dataclass(frozen=True)
class CodeRule:
    """A rule of agent code (CL1xx): ``check(facts)`` with the order-flow facts of one module
    (``cachelint.code.facts.CodeFacts``). ``requires``: what the file's text must show for the
    rule to find anything (see ``Requirement``); at least one."""

    code: str
    check: Callable[[CodeFacts], Iterable[Diagnostic]]
    requires: tuple[Requirement, ...]

    def __post_init__(self) -> None:
        _check_code(self.code)
        known = get_args(Requirement)
        if not self.requires or any(r not in known for r in self.requires):
            raise ValueError(f"{self.code}: requires must name one or more of {known}, not {self.requires!r}")


@dataclass(frozen=True)
class SkillRule:
    """A rule of skill folders (CL2xx): ``check(ctx)`` with one skill tree and its indexes
    (``cachelint.skills.context.SkillContext``), reporting on the given files only."""

    code: str
    check: Callable[[SkillContext], Iterable[Diagnostic]]

    def __post_init__(self) -> None:
        _check_code(self.code)


CheckRequest = Callable[["Request", "CheckContext"], Iterable["Diagnostic"]]
CheckPair = Callable[["Request", "Request", "CheckContext"], Iterable["Diagnostic"]]
CheckSession = Callable[["Session", "CheckContext"], Iterable["Diagnostic"]]
CheckRunEnd = Callable[["CheckContext"], Iterable["Diagnostic"]]
CheckRebuild = Callable[["Rebuild"], Iterable["Diagnostic"]]


@dataclass(frozen=True)
class PayloadRule:
    """A rule of captured traffic (CL3xx), with any of four hooks, each a pure function of its
    arguments (what a rule keeps across calls lives in the run's state, ``ctx.state``):

    - ``check_request(req, ctx)``: every request;
    - ``check_pair(prev, cur, ctx)``: every consecutive pair of a session, ``ctx.diff`` set;
    - ``check_session(session, ctx)``: once, when the session closes;
    - ``check_run_end(ctx)``: once, after every session closed;
    - ``check_rebuild(rebuild)``: every rebuild of a coding agent's session files
      (``cachelint.transcripts.audit``: a call that paid again for the prefix its thread had cached).

    What lets the pipeline skip a call where it cannot find anything (most pairs of a long log
    only append to the history; calling a dozen checks that return nothing is most of a quiet
    pair's cost):

    - ``pair_needs_change``: ``check_pair`` reports only when ``ctx.diff`` shows a changed tier
      (not a history that only grew) or a changed setting, or when the two requests' settings
      differ; it is not called on a pair whose prefix held byte for byte with equal settings;
    - ``request_first_only``: ``check_request`` reports only on the first request of a session;
    - ``rejected_requests``: ``check_request`` also runs on a request the provider rejected (HTTP
      4xx/5xx; ``req.failed`` holds its answer), which is in no session: it can say why;
    - ``fidelity``: what the rule needs of a request (see ``Fidelity``).

    What its findings mean to the audit's summary:

    - ``reports_prefix_break``: a finding reports a break of the prefix the pair diff found; a
      break whose findings were all left out (deselected, baselined) is no break of its session;
    - ``reports_lost_cache``: a finding means the cache could not serve what the previous request
      left in it; the money summary prices it (``cachelint.payloads.spend``);
    - ``reports_provider_miss``: a finding is a miss with the prefix intact, on the provider's
      side (routing, eviction, a key's rate), not a defect of the code: the summary counts those
      misses apart.
    """

    code: str
    fidelity: Fidelity = "wire"
    pair_needs_change: bool = False
    request_first_only: bool = False
    rejected_requests: bool = False
    reports_prefix_break: bool = False
    reports_lost_cache: bool = False
    reports_provider_miss: bool = False
    check_request: CheckRequest | None = None
    check_pair: CheckPair | None = None
    check_session: CheckSession | None = None
    check_run_end: CheckRunEnd | None = None
    check_rebuild: CheckRebuild | None = None

    def __post_init__(self) -> None:
        _check_code(self.code)
        if self.fidelity not in get_args(Fidelity):
            raise ValueError(f"{self.code}: fidelity {self.fidelity!r} is none of {get_args(Fidelity)}")
        if not any((self.check_request, self.check_pair, self.check_session, self.check_run_end, self.check_rebuild)):
            raise ValueError(f"{self.code}: a payload rule has at least one of the five hooks")
        if self.pair_needs_change and self.check_pair is None:
            raise ValueError(f"{self.code}: pair_needs_change without check_pair")
        if (self.request_first_only or self.rejected_requests) and self.check_request is None:
            raise ValueError(f"{self.code}: request_first_only or rejected_requests without check_request")


@dataclass(frozen=True)
class InputRule:
    """A rule about the inputs themselves (CL0xx): raised where inputs are read or where a check
    fails (the module's docstring says where), never run as a check. ``triggered_by_input``:
    whether an input can raise it (an internal error cannot: its catalog entry has no examples)."""

    code: str
    triggered_by_input: bool = True

    def __post_init__(self) -> None:
        _check_code(self.code)


Rule = Union[CodeRule, SkillRule, PayloadRule, InputRule]

# The declaration type of each scope (the folder a rule module sits in, its catalog scope).
DECLARATION_OF_SCOPE: dict[str, type] = {
    "input": InputRule,
    "code": CodeRule,
    "skills": SkillRule,
    "payloads": PayloadRule,
}

__all__ = [
    "DECLARATION_OF_SCOPE",
    "CheckPair",
    "CheckRebuild",
    "CheckRequest",
    "CheckRunEnd",
    "CheckSession",
    "CodeRule",
    "Fidelity",
    "InputRule",
    "PayloadRule",
    "Requirement",
    "Rule",
    "SkillRule",
]
