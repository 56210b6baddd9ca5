"""Every provider cachelint reads, each declared in its own module (``PROVIDER``: a ``Provider``),
and the questions asked of all of them together: which provider a body that came without its URL
calls, which provider's usage fields a usage object has, which provider's shape a content-level
prompt is rebuilt in. Each question asks them in an order of its own, given here with its reason."""

from __future__ import annotations

from typing import Any, Mapping

from cachelint.payloads.cache_usage import UsageFields
from cachelint.payloads.providers import anthropic, bedrock_converse, gemini, openai_chat, openai_responses
from cachelint.payloads.providers.provider import ContentShape, Provider

# Every provider, in the order detection asks each to claim a body that came without its URL: the
# narrower shape first — Gemini's ``contents``; Converse's content parts, whose ``messages``
# Anthropic's and OpenAI's checks would take too; Anthropic's own fields; then OpenAI's.
PROVIDERS: tuple[Provider, ...] = (
    gemini.PROVIDER,
    bedrock_converse.PROVIDER,
    anthropic.PROVIDER,
    openai_chat.PROVIDER,
    openai_responses.PROVIDER,
)
_BY_NAME = {p.name: p for p in PROVIDERS}
# asked of every record that came without its URL: the predicates bound once
_CLAIMS = tuple((p.claims_body, p.name) for p in PROVIDERS)
_HINTS = tuple((p.hints_body, p.name) for p in PROVIDERS if p.hints_body is not None)
_RESPONSES = tuple(p.is_response for p in PROVIDERS if p.is_response is not None)

# The usage objects, in the order their fields tell them apart: Anthropic's cache fields first
# (LiteLLM adds them to an OpenAI-shaped usage, and they are the ones that count the cache), then
# OpenAI's, Bedrock's and Gemini's. A usage with none of these fields is read as its request's
# provider's.
USAGE_SHAPES: tuple[UsageFields, ...] = (
    anthropic.USAGE,
    openai_chat.PROVIDER.usage,
    bedrock_converse.USAGE,
    gemini.USAGE,
)
_USAGE_BY_KEY = {**{p.family: p.usage for p in PROVIDERS}, **{p.name: p.usage for p in PROVIDERS}}

# The providers a content-level prompt is rebuilt for, in the order an observability tool's label
# is matched: Claude first (a Claude model on Vertex or Bedrock takes Anthropic's shape whatever
# the platform is called). A label none of them names is rebuilt in OpenAI Chat's shape, the one
# most tools copy.
CONTENT_PROVIDERS: tuple[Provider, ...] = (anthropic.PROVIDER, gemini.PROVIDER)
DEFAULT_CONTENT_PROVIDER = openai_chat.PROVIDER


def provider(name: str | None) -> Provider | None:
    """The provider of that name (``Request.provider``), or None."""
    return _BY_NAME.get(name) if name is not None else None


def family_of(name: str | None) -> str:
    """The family a provider belongs to (``anthropic`` | ``openai`` | ``bedrock`` | ``gemini``),
    the name itself when no provider has it, ``unknown`` for none."""
    if not name:
        return "unknown"
    found = _BY_NAME.get(name)
    return found.family if found is not None else name


def body_provider(body: Mapping[str, Any]) -> str | None:
    """The provider a request body's shape alone says (a log of bare bodies has no URL), or None:
    the first that claims it, else the first it hints at."""
    for claims, name in _CLAIMS:
        if claims(body):
            return name
    for hints, name in _HINTS:
        if hints(body):
            return name
    return None


def usage_fields(usage: Mapping[str, Any], provider_name: str | None) -> UsageFields | None:
    """The fields a usage object has: told by its own fields, else its request's provider's (or
    family's); None when neither is known."""
    for shape in USAGE_SHAPES:
        for tell in shape.tells:
            if tell in usage:
                return shape
    return _USAGE_BY_KEY.get(provider_name) if provider_name is not None else None


def content_provider(label: Any, model: Any) -> str:
    """The provider whose request shape a content-level prompt is rebuilt in, from the name an
    observability tool gives the system (gen_ai.provider.name / gen_ai.system, ls_provider…) and
    the model's name."""
    name = str(label or "").lower()
    model_name = str(model or "").lower()
    for p in CONTENT_PROVIDERS:
        if p.names_it is not None and p.names_it(name, model_name):
            return p.name
    return DEFAULT_CONTENT_PROVIDER.name


def content_shape(name: str) -> ContentShape:
    """How a content-level prompt is rebuilt for that provider: its own shape, else OpenAI Chat's."""
    found = _BY_NAME.get(name)
    if found is not None and found.content is not None:
        return found.content
    assert DEFAULT_CONTENT_PROVIDER.content is not None
    return DEFAULT_CONTENT_PROVIDER.content


def endpoint(name: str) -> str | None:
    """The URL a record of that provider that names none is given (a content-level log), or None."""
    found = _BY_NAME.get(name)
    return found.endpoint if found is not None else None


def is_response(value: Mapping[str, Any]) -> bool:
    """Whether a value is a response body of one of the providers (a log of responses alone)."""
    for is_one in _RESPONSES:
        if is_one(value):
            return True
    return False
