"""CL105 volatile-prefix: a clock, random value, uuid, pid or per-request id reaches the tools or
the system prompt.

A date changes once a day: reported as a warning. A value computed once when the module loads (at
module level, outside any function or loop) is the same for every request of a process: the
prefix differs from one process to the next, which costs a write per run, not per request:
reported as information, saying so. A per-user or per-session value is information too: one
cached prefix per user. So is a clock or id given to an agent (or bound model) that the function
building it keeps for more than one use (returns it, stores it, calls it or gives it to a runner
twice, uses it in a loop): the agent sends every request with the prefix it was built with.

In the messages, a value counts ahead of a ``cache_control`` breakpoint (the entry the breakpoint
writes is keyed on it), and, in a request without a system prompt, ahead of the static text of the
first message (the prompt starts there).

Where no sink is in view, a value whose name says it is the system prompt (``SYSTEM_PROMPT``, the
return of ``build_system_prompt``) stands for one: a clock in it is reported the same way, saying
the prompt differs each time it is built (how often that is, the code out of view decides)."""

from __future__ import annotations

import ast
from typing import Iterable

from cachelint.code.facts import CodeFacts
from cachelint.code.flow.facts import Reach
from cachelint.code.flow.sinks import CACHED, NAMED_SYSTEM, OPENING
from cachelint.code.program import Program
from cachelint.code.values import VOLATILE
from cachelint.diagnostics import Diagnostic, Severity
from cachelint.rules.declarations import CodeRule

CODE = "CL105"


class _OnceLines:
    """Which lines of a module run once per process: those outside every function, lambda and
    loop (a class body runs once too, its methods do not)."""

    def __init__(self, program: Program) -> None:
        self.repeated: list[tuple[int, int]] = []
        stack: list[ast.AST] = [program.tree]
        while stack:
            node = stack.pop()
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.For, ast.AsyncFor, ast.While)):
                self.repeated.append((node.lineno, node.end_lineno or node.lineno))
                continue  # everything inside repeats
            stack.extend(ast.iter_child_nodes(node))

    def evaluated_once(self, line: int) -> bool:
        return not any(start <= line <= end for start, end in self.repeated)


def _reaches(facts: CodeFacts) -> list[Reach]:
    """One reach per construction site: into a sink's tools or system prompt, else into a value
    whose name says it is the system prompt (the call that sends it out of view)."""
    sent = facts.first_reach_per_origin(VOLATILE, ("tools", "system", CACHED, OPENING))
    seen = {r.origin.site for r in sent}
    named = [r for r in facts.first_reach_per_origin(VOLATILE, (NAMED_SYSTEM,)) if r.origin.site not in seen]
    return sorted(sent + named, key=lambda r: r.origin.site)


def check(facts: CodeFacts) -> Iterable[Diagnostic]:
    once_lines: _OnceLines | None = None
    severity: Severity | None
    for r in _reaches(facts):
        daily = r.origin.granularity == "date"
        if once_lines is None:
            once_lines = _OnceLines(facts.program)
        if r.origin.granularity == "session":
            if r.origin.external is not None:
                # a user id formatted in another module (a file name, a log line) and carried
                # out coarsely through its function's result is no evidence of a per-user prompt
                continue
            effect = (
                "one cached prefix per user or session, never shared between them: every new session writes"
                " the prompt again; put per-user data after the cached part (a user message)"
            )
            severity = Severity.INFO
        elif r.origin.granularity == "process":
            # a process id, the machine's name, a str hash (salted per process): fixed while the
            # process runs, different in the next one
            effect = (
                "the same for every request of a process and different in another process or on another machine:"
                " each process writes the cached prefix again instead of reading the one before it"
            )
            severity = Severity.INFO
        elif (r.origin.external is None and once_lines.evaluated_once(r.origin.site[0])) or (
            r.sink.tier == NAMED_SYSTEM and once_lines.evaluated_once(r.sink.line)
        ):  # made at module level, or (a named prompt) bound there: SYSTEM_PROMPT = build()
            effect = (
                "computed once when the module loads, so the cached prefix differs between processes started on"
                " different days: a run on another day writes it again instead of reading the previous run's"
                if daily
                else "computed once when the module loads, so the cached prefix differs in every process:"
                " each run writes it again instead of reading the previous run's"
            )
            severity = Severity.INFO
        elif r.sink.renewed == "agent" and not daily:
            # the agent keeps the prefix it was built with for every request it makes
            effect = (
                "it is fixed when the agent (or bound model, or configuration) is built, and the function keeps"
                " that object for more than one use: the requests made with one object share the cached prefix,"
                " but every object built writes it again (on every request, where one is built for each request)"
            )
            severity = Severity.INFO
        elif r.sink.renewed == "conversation":
            # the list is the start of a conversation that the caller (or a loop it is given to)
            # carries on: the requests of that conversation share the first message
            effect = (
                "it is made once per conversation, so the requests of one conversation share it but every new"
                " conversation writes the cached prefix again"
            )
            severity = Severity.INFO
        elif r.sink.renewed == "call":
            # read before the loop, whose requests carry on a conversation given to the function
            effect = (
                "it is read once per call of the function, before the loop that repeats the request, so the"
                " requests of one call share it but each call (each turn of the conversation it carries on)"
                " writes the cached prefix again"
            )
            severity = Severity.WARNING if daily else None
        elif daily:
            effect, severity = "the cached prefix changes every day", Severity.WARNING
        elif r.sink.tier == CACHED:
            effect, severity = (
                "the breakpoint's cache entry is keyed on it, so it is written on every request and never read",
                None,
            )
        elif r.sink.tier == OPENING:
            effect, severity = (
                "the static text after it is never read from the cache, since the prefix differs from that value"
                " on; put the value after the text",
                None,
            )
        elif r.sink.renewed == "run":
            effect, severity = "the cached prefix changes on every run of the agent (each user turn)", None
        elif r.sink.tier == NAMED_SYSTEM:
            # how often the prompt is built (each request, each run) is out of view
            effect, severity = (
                "the system prompt differs each time it is built, and with it every cached prefix that includes it",
                None,
            )
        else:
            effect, severity = "the cached prefix changes on every request", None
        msg = f"{r.origin.what} reaches {facts.reached(r.sink)}: {effect}"
        yield facts.diagnostic(CODE, msg, r.origin.site, severity=severity, related=facts.reach_lines(r))


RULE = CodeRule(CODE, check, requires=("sink-call", "system-prompt-name"))
