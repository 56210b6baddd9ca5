"""Inspect eval logs (the UK AI Security Institute's evaluation framework): the ``.json`` log, one
``EvalLog`` document (``version``, ``status``, ``eval``…, ``samples``); the ``.eval`` archive holds
the same samples, one zip member each (``inspect_archive``). A sample's
``events`` hold a ``model`` event per call of a model; with ``log_model_api`` its ``call`` is the
provider's own request and response (``ModelCall.request``/``.response``): those are read, as sent.
What Inspect condenses is restored first, as its ``resolve`` does: the request's message list
moved into the sample's ``events_data.calls`` pool (``call.call_refs``: ``[start, end)`` ranges,
``call.call_key``: the list's name), and long strings moved into ``attachments``
(``attachment://<hash>``). A call Inspect answered from its own cache (``cache: "read"``) never
reached the provider and is left out. Time: the event's ``timestamp``; session: the sample, its
epoch and the model role, grouped weakly (a sample may hold several conversations, a scorer's
among them), within its file (a log is one evaluation run; every run numbers its samples anew). Source: inspect_ai's ``log/_log.py`` (EvalLog, EvalSample, EventsData),
``event/_model.py`` (ModelEvent), ``model/_model_call.py`` (ModelCall), ``event/_pool.py`` and
``log/_condense.py`` (https://github.com/UKGovernmentBEIS/inspect_ai).
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from cachelint.diagnostics import unreadable
from cachelint.payloads.formats import registry
from cachelint.payloads.formats.common import make_record
from cachelint.payloads.model import Origin

NAME = "inspect"
ATTACHMENT = "attachment://"
# Where a sample's events may nest (older logs: a subtask's own events).
_NESTED_EVENTS = "events"


def matches(value: Any) -> bool:
    """A sample: its ``id``, ``epoch`` and ``events``."""
    return "epoch" in value and "events" in value and "id" in value and isinstance(value.get("events"), list)


def _resolved(value: Any, attachments: Mapping[str, Any], depth: int = 0) -> Any:
    """``value`` with every ``attachment://<hash>`` string replaced by the attachment's text."""
    if isinstance(value, str):
        if value.startswith(ATTACHMENT):
            found = attachments.get(value[len(ATTACHMENT) :])
            return found if isinstance(found, str) else value
        return value
    if depth > 200:
        raise RecursionError("attachment references nested too deeply")
    if isinstance(value, dict):
        return {k: _resolved(v, attachments, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolved(v, attachments, depth + 1) for v in value]
    return value


def _expanded(refs: Any, pool: list) -> list | None:
    """The pool's items at the ``[start, end)`` ranges of ``refs`` (Inspect's ``_expand_refs``);
    None when the refs are not ranges."""
    out: list = []
    if not isinstance(refs, list):
        return None
    for pair in refs:
        if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(i, int) for i in pair)):
            return None
        out.extend(pool[max(pair[0], 0) : max(pair[1], 0)])
    return out


def _model_events(events: list, depth: int = 0) -> Iterator[dict]:
    for event in events:
        if not isinstance(event, dict):
            continue
        if event.get("event") == "model":
            yield event
        nested = event.get(_NESTED_EVENTS)
        if isinstance(nested, list) and depth < 20:
            yield from _model_events(nested, depth + 1)


def records(sample: dict, origin: Origin, ctx: registry.ReadContext, context: tuple) -> Iterator[registry.Item]:
    found = sample.get("attachments")
    attachments: Mapping[str, Any] = found if isinstance(found, dict) else {}
    data = sample.get("events_data")
    calls = data.get("calls") if isinstance(data, dict) else None
    # each pooled message resolved once for the sample, not again in every call that repeats it
    # (a call's messages are the whole conversation so far)
    pool: list = [_resolved(m, attachments) for m in calls] if isinstance(calls, list) else []
    key = f"{sample.get('id')}#{sample.get('epoch')}"
    index = ctx.state.get("inspect_calls", 0)
    for event in _model_events(sample["events"]):
        call = event.get("call")
        if not isinstance(call, dict) or not isinstance(call.get("request"), dict):
            ctx.unread.add(
                "are Inspect model events without the provider's request (the eval ran without"
                " log_model_api): not audited",
                origin,
            )
            continue
        if event.get("cache") == "read":
            continue  # answered from Inspect's own cache: never sent to the provider
        request = _resolved(call["request"], attachments)
        if call.get("call_refs") is not None:
            messages = _expanded(call.get("call_refs"), pool)
            if messages is None:
                yield unreadable(
                    origin.path,
                    "Inspect model call: call_refs are not [start, end) ranges; not read",
                    line=origin.line,
                    record=origin.record,
                )
                continue
            request[call.get("call_key") or "messages"] = messages
        role = event.get("role")
        record = make_record(
            Origin(origin.path, origin.line, index, origin.entry),
            request,
            ctx.redactor,
            fmt=NAME,
            response=_resolved(call.get("response"), attachments),
            time=event.get("timestamp"),
            session=f"{key}/{role}" if isinstance(role, str) and role else key,
        )
        record.session_field = "sample"
        index += 1
        yield record
    ctx.state["inspect_calls"] = index


FORMAT = registry.LogFormat(
    name=NAME,
    title="Inspect eval log",
    fidelity="wire",
    keeps={
        "wire bytes": "the provider's request as Inspect logged it (with log_model_api), its message list restored",
        "key order": "yes, but for the message list Inspect pools (restored last)",
        "cache markers": "yes",
        "usage": "yes (the provider's response)",
        "time": "the model event's timestamp",
        "session key": "the sample, its epoch and the model role (weak)",
    },
    matches=matches,
    records=records,
    # each log is one evaluation run (one task's: https://inspect.aisi.org.uk/eval-logs.html), and
    # every run numbers its samples from 1 again: a sample never continues another file's
    recording=True,
    # the JSON log: a document whose first member is ``version``, its samples under ``samples``
    document_paths={"version": ("samples", "*")},
    source="https://github.com/UKGovernmentBEIS/inspect_ai",
)
