"""The scripted model (``--fake-model [SCRIPT]``): the proxy answers in each provider's wire format
instead of forwarding, so that an agent loop runs for several turns with no key and no network.

Stateless by design: the next answer is read off the request itself (how many answers the
history holds, which tools they called), so any number of agents and subagents can share one
proxy. OpenAI Responses requests chained with ``previous_response_id`` carry no history; the model
keeps what it answered under each response id it gave.

Without a script: call each offered tool once, one per answer, in the order offered, with the
smallest arguments its JSON Schema accepts (``schema_values``), then answer with text and end.
A script (YAML or JSON, ``rules/schema/fake-model-script.schema.json``) says which tools each
answer calls, in order, and the text that ends the conversation.
"""

from __future__ import annotations

import json
import re
from collections import OrderedDict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Mapping

from cachelint.proxy.fake_wire import (
    AnthropicMessages,
    Conversation,
    GeminiGenerateContent,
    Ids,
    OpenAIChat,
    OpenAIResponses,
    Reply,
    ToolCall,
    Turn,
)
from cachelint.proxy.schema_values import minimal_arguments

DEFAULT_TEXT = "Done."
SCRIPT_SCHEMA = "fake-model-script.schema.json"
# Responses chains remembered (the id of each answer -> the conversation it ended); the oldest go
# first, so a proxy left running does not grow without bound.
MAX_CHAINS = 10_000

_ANTHROPIC_COUNT = re.compile(r"/messages/count_tokens$")
_ANTHROPIC = re.compile(r"/messages$")
_CHAT = re.compile(r"/chat/completions$")
_RESPONSES = re.compile(r"/responses$")
_GEMINI = re.compile(r"/models/(?P<model>[^/:]+):(?P<verb>generateContent|streamGenerateContent|countTokens)$")


class ScriptError(ValueError):
    """A script that cannot be read or does not follow the schema: the message names the file
    and the place in it."""


@dataclass(frozen=True)
class ScriptedCall:
    name: str
    arguments: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class ScriptTurn:
    """One answer: these tools called (``every``: each offered tool not called yet), or text."""

    calls: tuple[ScriptedCall, ...] = ()
    every: bool = False
    text: str | None = None


@dataclass(frozen=True)
class Script:
    turns: tuple[ScriptTurn, ...] = ()
    final_text: str = DEFAULT_TEXT

    @classmethod
    def load(cls, path: str | Path) -> "Script":
        import yaml

        try:
            data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
        except OSError as exc:
            raise ScriptError(f"{path}: cannot read the fake model script: {exc.strerror or exc}") from None
        except yaml.YAMLError as exc:
            raise ScriptError(f"{path}: not YAML or JSON: {exc}") from None
        problem = _schema_problem(data)
        if problem is not None:
            raise ScriptError(f"{path}: {problem}")
        return cls.from_value(data)

    @classmethod
    def from_value(cls, data: Mapping[str, Any]) -> "Script":
        turns = []
        for turn in data.get("turns") or ():
            if "text" in turn:
                turns.append(ScriptTurn(text=turn["text"]))
            elif turn["call"] == "*":
                turns.append(ScriptTurn(every=True))
            else:
                calls = tuple(
                    ScriptedCall(c) if isinstance(c, str) else ScriptedCall(c["name"], c.get("arguments"))
                    for c in turn["call"]
                )
                turns.append(ScriptTurn(calls=calls))
        return cls(tuple(turns), data.get("final-text", DEFAULT_TEXT))


def _schema_problem(data: Any) -> str | None:
    import jsonschema

    from cachelint.catalog import rules_dir

    schema = json.loads((rules_dir() / "schema" / SCRIPT_SCHEMA).read_text(encoding="utf-8"))
    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(schema).iter_errors(data))
    if error is None:
        return None
    where = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path).lstrip(".")
    return f"{where or 'the script'}: {error.message}"


def next_turn(conv: Conversation, script: Script | None, ids: Ids) -> Turn | str:
    """The answer to give, or why none can be given (a tool the request does not offer)."""
    offered = {tool.name: tool for tool in conv.tools}
    final = script.final_text if script is not None else DEFAULT_TEXT
    if conv.tools_off or not offered:
        return Turn(text=final)
    if conv.forced:  # tool_choice names the tool to call
        if conv.forced not in offered:
            return f"tool_choice names {conv.forced!r}, which the request does not offer"
        return Turn(calls=(_call(offered[conv.forced], None, ids),))
    turn = _scripted_turn(conv, script, offered, ids) if script is not None else _default_turn(conv, ids)
    if isinstance(turn, Turn) and not turn.calls and conv.forced == "":  # tool_choice demands a call
        return Turn(calls=(_call(conv.tools[0], None, ids),))
    return turn


def _default_turn(conv: Conversation, ids: Ids) -> Turn:
    called = set(conv.called)
    for tool in conv.tools:
        if tool.name not in called:
            return Turn(calls=(_call(tool, None, ids),))
    return Turn(text=DEFAULT_TEXT)


def _scripted_turn(conv: Conversation, script: Script, offered: Mapping[str, Any], ids: Ids) -> Turn | str:
    if conv.turns >= len(script.turns):
        return Turn(text=script.final_text)
    step = script.turns[conv.turns]
    if step.text is not None:
        return Turn(text=step.text)
    if step.every:
        remaining = [t for t in conv.tools if t.name not in conv.called] or list(conv.tools)
        return Turn(calls=tuple(_call(t, None, ids) for t in _unique(remaining)))
    missing = sorted({c.name for c in step.calls} - set(offered))
    if missing:
        return (
            f"answer {conv.turns + 1} of the script calls {', '.join(map(repr, missing))}, which the request "
            f"does not offer (it offers {', '.join(map(repr, offered))})"
        )
    return Turn(calls=tuple(_call(offered[c.name], c.arguments, ids) for c in step.calls))


def _unique(tools: list[Any]) -> list[Any]:
    seen: dict[str, Any] = {}
    for tool in tools:
        seen.setdefault(tool.name, tool)
    return list(seen.values())


def _call(tool: Any, arguments: Mapping[str, Any] | None, ids: Ids) -> ToolCall:
    if arguments is None:
        arguments, _ = minimal_arguments(tool.schema)
    return ToolCall(tool.name, arguments, ids.new("call_"))


class FakeModel:
    """Answers requests in the wire format of the API their path names. ``report`` is told about
    what an agent's author should know (a schema no value satisfies, a script that does not fit)."""

    def __init__(self, script: Script | None = None, report: Callable[[str], None] | None = None) -> None:
        self.script = script
        self.ids = Ids()
        self._report = report or (lambda message: None)
        self._chains: OrderedDict[str, Conversation] = OrderedDict()
        self._checked: set[str] = set()

    def respond(self, upstream: str, method: str, path: str, query: Mapping[str, str], body: bytes) -> Reply:
        api: Any = _error_family(upstream)
        if method != "POST":
            return api.error(
                404, f"the fake model answers POST requests to generate or count tokens, not {method} {path}"
            )
        try:
            parsed = json.loads(body) if body else None
        except ValueError as exc:
            return api.error(400, f"the request body is not JSON ({exc})")
        if not isinstance(parsed, dict):
            return api.error(400, "the request body is not a JSON object")
        size = len(body)
        if _ANTHROPIC_COUNT.search(path):
            return AnthropicMessages().count_tokens(size)
        if _ANTHROPIC.search(path):
            anthropic = AnthropicMessages()
            return self._answer(anthropic, anthropic.read(parsed), lambda t, c: anthropic.reply(t, c, self.ids, size))
        if _CHAT.search(path):
            chat = OpenAIChat()
            return self._answer(chat, chat.read(parsed), lambda t, c: chat.reply(t, c, self.ids, size, parsed))
        if _RESPONSES.search(path):
            responses = OpenAIResponses()
            return self._answer_chained(responses, responses.read(parsed), parsed, size)
        found = _GEMINI.search(path)
        if found:
            gemini = GeminiGenerateContent()
            if found["verb"] == "countTokens":
                return gemini.count_tokens(size)
            conv = gemini.read(parsed, found["model"], found["verb"] == "streamGenerateContent")
            sse = query.get("alt") == "sse"
            return self._answer(gemini, conv, lambda t, c: gemini.reply(t, c, self.ids, sse))
        return api.error(
            404,
            f"the fake model answers Messages (/v1/messages), Chat Completions (/v1/chat/completions), "
            f"Responses (/v1/responses) and Gemini (:generateContent) requests, not {path}",
        )

    def _answer(self, api: Any, conv: Conversation, encode: Callable[[Turn, Conversation], Reply]) -> Reply:
        turn = next_turn(conv, self.script, self.ids)
        if isinstance(turn, str):
            self._report(f"fake model: {turn}")
            return api.error(400, f"cachelint fake model: {turn}")
        for call in turn.calls:
            self._check_schema(conv, call.name)
        reply = encode(turn, conv)
        if reply.response_id is not None:  # a Responses answer: a later request may chain on it
            done = replace(conv, turns=conv.turns + 1, called=conv.called + tuple(c.name for c in turn.calls))
            self._chains[reply.response_id] = done
            while len(self._chains) > MAX_CHAINS:
                self._chains.popitem(last=False)
        return reply

    def _answer_chained(self, api: OpenAIResponses, conv: Conversation, body: Mapping[str, Any], size: int) -> Reply:
        before = self._chains.get(conv.continues) if conv.continues else None
        if before is not None:
            conv = replace(conv, turns=before.turns + conv.turns, called=before.called + conv.called)
        return self._answer(api, conv, lambda t, c: api.reply(t, c, self.ids, size, body))

    def _check_schema(self, conv: Conversation, name: str) -> None:
        """Say once per tool when its schema asks for what the smallest value cannot give."""
        if name in self._checked:
            return
        self._checked.add(name)
        schema = next((tool.schema for tool in conv.tools if tool.name == name), {})
        _, problem = minimal_arguments(schema)
        if problem:
            self._report(f"fake model: no arguments found that the schema of {name!r} accepts ({problem})")


def _error_family(upstream: str) -> Any:
    if upstream == "anthropic":
        return AnthropicMessages()
    if upstream == "gemini":
        return GeminiGenerateContent()
    return OpenAIChat()
