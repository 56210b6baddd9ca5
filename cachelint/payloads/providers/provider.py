"""What cachelint knows about one provider API, declared once: ``PROVIDER = Provider(...)`` at the
end of the provider's module (``anthropic``, ``openai_chat``, ``openai_responses``,
``bedrock_converse``, ``gemini``). The dated facts about it are in the packs, keyed by its
``name`` (``payloads-providers``: URL patterns and own hosts; ``payloads-invalidation``: which
settings invalidate which tiers) and its ``family`` (``payloads-limits``, ``payloads-prices``).
A new provider is a module with its declaration, named in the registry (``providers.registry``),
and its pack entries."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Callable, Mapping

from cachelint.payloads.cache_usage import UsageFields
from cachelint.payloads.content import Part

if TYPE_CHECKING:
    from cachelint.payloads.providers.builder import Builder

Body = Mapping[str, Any]


@dataclass(frozen=True)
class ContentShape:
    """How a prompt's content (as observability tools log it: system texts, messages of
    ``Part``s, tool definitions with their ``parameters``) is rebuilt in the provider's request
    shape, and its usage in the provider's response shape (``cachelint.payloads.formats``:
    content-level logs). ``tools(definitions)``: the tools list; ``messages(role, parts)``: one
    message (or several: OpenAI gives tool results messages of their own); ``prompt(system,
    messages)``: the body's members after the model and the tools, in order; ``usage(prompt,
    uncached, read, written, output)``: a response carrying only that usage (``output`` None when
    unknown)."""

    tools: Callable[[list[dict[str, Any]]], list[Any]]
    messages: Callable[[str, list[Part]], list[dict[str, Any]]]
    prompt: Callable[[list[str], list[dict[str, Any]]], dict[str, Any]]
    usage: Callable[[int, int, int, int, int | None], dict[str, Any]]


@dataclass(frozen=True)
class Provider:
    """One provider API.

    ``name``: ``Request.provider`` and the packs' key. ``family``: the cache and billing it shares
    with others (OpenAI's two APIs are ``openai``). ``usage``: how its usage counts the prompt.
    ``adapt(body, builder)``: the request body as tiers of blocks, returning its cache-key
    settings. ``claims_body(body)``: the body's shape says this provider (a log of bare bodies has
    no URL); ``hints_body(body)``: a weaker sign, asked when no provider claims the body.
    ``header_settings(headers, body)``: cache-key settings sent outside the body, or None.
    ``response_usage(response)``: where the response holds its usage. ``server_steps(response)``:
    the steps the provider executed inside the response, each an internal call whose tokens the
    usage adds up. ``response_marks(response)``: (ids, texts) of the response that the next
    request of the conversation repeats. ``is_response(value)``: the value is one of its response
    bodies (a log of responses without their requests). ``endpoint``: the URL a record that
    names no URL is given (a content-level log), None when the provider's URL names the model.
    ``names_it(label, model)``: an observability tool's name for the system and the model name
    (lower case) say this provider. ``content``: how a content-level prompt is rebuilt in its
    shape, None when none is. ``thinking_blocks``: its history carries Claude's thinking blocks.
    """

    name: str
    title: str
    family: str
    usage: UsageFields
    adapt: Callable[[Body, "Builder"], dict[str, Any]]
    claims_body: Callable[[Body], bool]
    response_usage: Callable[[Body], Any]
    hints_body: Callable[[Body], bool] | None = None
    header_settings: Callable[[Mapping[str, str], Body], dict[str, Any] | None] | None = None
    server_steps: Callable[[Body], int] | None = None
    response_marks: Callable[[Body], tuple[list[str], list[str]]] | None = None
    is_response: Callable[[Body], bool] | None = None
    endpoint: str | None = None
    names_it: Callable[[str, str], bool] | None = None
    content: ContentShape | None = None
    thinking_blocks: bool = False
    # when the provider says it created the response (OpenAI's ``created``, Unix seconds): the
    # request's time where the log keeps none (a cassette without Date headers)
    response_time: Callable[[Body], "datetime | None"] | None = None


def unix_time_field(name: str) -> Callable[[Body], datetime | None]:
    """A reader of a response's creation time held as Unix seconds under ``name`` (None when it
    is absent, not a number, or not a plausible time)."""

    def read(response: Body) -> datetime | None:
        value = response.get(name)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1e11:
            return None
        return datetime.fromtimestamp(value, tz=timezone.utc)

    return read
