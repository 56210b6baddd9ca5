"""CL313 prefix-rebuilt: a call of a coding agent (Claude Code, Codex CLI, Gemini CLI) paid again for the prefix
the previous call of its thread had cached, with the cause its session file shows.

What a rebuild is, and how its cause is found, is the transcripts part's
(``cachelint.transcripts.rebuilds``): this rule says which rebuilds are findings and in what words.
A rebuild of fewer tokens than the model's minimum cacheable prompt is counted in the summary, not
reported. A compaction rebuilds by design (the history is replaced by its summary, which makes
every later call cheaper), and so does a rewind (the user took the conversation back): they are
information; so is a rebuild nothing explains on a provider whose caching promises no hit (Gemini's
implicit caching: "no cost saving guarantee", https://ai.google.dev/gemini-api/docs/caching), which
may be the provider's miss. The others are warnings.

The hook ``check_rebuild(rebuild)`` is called by ``cachelint.transcripts.audit`` for every rebuild
of every thread (fidelity ``usage``: a session file keeps the usage of each call, not the
requests; the request pipeline never calls it).
"""

from __future__ import annotations

from typing import Iterable

from cachelint.diagnostics import Diagnostic, Severity
from cachelint.rules.declarations import PayloadRule
from cachelint.transcripts.model import Rebuild

CODE = "CL313"


def check_rebuild(rebuild: Rebuild) -> Iterable[Diagnostic]:
    if rebuild.minor:
        return ()
    turn = rebuild.turn
    cost = "n/a (no price for the model)" if rebuild.money is None else f"${rebuild.money:,.4f}"
    message = (
        f"{turn.label} rebuilt its prefix: {rebuild.rewritten:,} cached tokens paid again"
        f" ({rebuild.cause}: {rebuild.because}); cost {cost}"
    )
    return (
        Diagnostic(
            code=CODE,
            message=message,
            path=turn.path,
            line=turn.line,
            column=1,
            record=turn.record,
            session=turn.thread,
            kind=rebuild.cause,
            severity=Severity.INFO if _by_design_or_provider(rebuild) else None,
            details={
                "agent": turn.agent,
                "session_id": turn.session,
                "subagent": turn.subagent,
                "model": turn.model,
                "previous_model": rebuild.previous.model,
                "previous_line": rebuild.previous.line,
                "time": turn.time.isoformat() if turn.time else None,
                "tokens_lost": rebuild.lost,
                "tokens_rewritten": rebuild.rewritten,
                "tokens_read": rebuild.kept,
                "gap_seconds": None if rebuild.gap is None else int(rebuild.gap),
                "ttl": rebuild.ttl,
                "because": rebuild.because,
                "evidence": list(rebuild.evidence),
                "money": None if rebuild.money is None else round(rebuild.money, 6),
                "currency": rebuild.currency,
            },
        ),
    )


def _by_design_or_provider(rebuild: Rebuild) -> bool:
    return rebuild.cause in ("compaction", "rewind") or (rebuild.cause == "unknown" and rebuild.provider_may_miss)


RULE = PayloadRule(CODE, fidelity="usage", check_rebuild=check_rebuild)
