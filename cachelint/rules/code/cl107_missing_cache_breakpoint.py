"""CL107 missing-cache-breakpoint: a request made again and again to a provider that caches only at
an explicit marker (Anthropic's ``cache_control``, Bedrock's ``cachePoint``) sends a static system
prompt (and tools) long enough to be cached, with no marker anywhere in view.

Nothing is invalidated: nothing is cached at all. Every request reads the same text at the full
input price where, with one breakpoint after it, the requests within the cache's lifetime would
read it at a tenth of that. Reported only for text of a known length at or above the model's
minimum cacheable length (payloads-limits), in a module that writes no marker anywhere (one set by
a helper or a key written elsewhere in the module counts). A request made once per process (at
module level, outside loops: a script) is information: a cache write pays back only when the
script runs again within the cache's lifetime.

The prompt renders tools, then system, then messages, and a marker may sit on a user message's
content block (Anthropic's prompt caching documentation). So in a loop that sends the same first
user message on every request (a list built before it, only added to), the static prefix goes on
into that message's leading static text: an agent with its instructions there and no system
prompt pays for them in full on every pass. Reported with its own wording, at the request, only
where tools and system alone are too short."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Iterable

from cachelint.code.facts import CodeFacts
from cachelint.code.flow.facts import StaticFirstMessage, UncachedPrefix
from cachelint.diagnostics import Diagnostic, Severity
from cachelint.rules.declarations import CodeRule

if TYPE_CHECKING:
    from cachelint.payloads.limits import Limits

CODE = "CL107"


@functools.lru_cache(maxsize=1)
def _limits() -> "Limits":
    # the built-in minimums and token estimate: imported only when a candidate is found
    from cachelint.catalog import load_packs
    from cachelint.payloads.limits import Limits

    return Limits.from_packs(load_packs("payloads-limits"))


def check(facts: CodeFacts) -> Iterable[Diagnostic]:
    for u in facts.uncached:
        limits = _limits()
        found = limits.min_cacheable_tokens(u.provider, u.model)
        provider = limits.provider(u.provider)
        minimum = found[0] if found is not None else (provider.common_min_cacheable_tokens if provider else None)
        if minimum is None:
            continue
        model = f" ({u.model}: {minimum:,} at least)" if u.model else f" ({minimum:,} at least)"
        tokens = limits.estimate_tokens(u.chars)
        if u.chars and tokens >= minimum:
            yield _tools_and_system(facts, u, tokens, model)
            continue
        first = u.first_message
        if first is None:
            continue
        tokens = limits.estimate_tokens(u.chars + first.chars)
        if tokens >= minimum:
            yield _into_first_message(facts, u, first, tokens, model)
        # below the minimum a breakpoint caches nothing either


def _tools_and_system(facts: CodeFacts, u: UncachedPrefix, tokens: int, model: str) -> Diagnostic:
    where = (
        "a cache_control breakpoint on its last block"
        if u.marker == "cache_control"
        else f"a {u.marker} block after it"
    )
    message = (
        f"about {tokens:,} tokens of static prompt{model} go to {u.label} at {facts.where(u.line)} with no"
        f" {u.marker} anywhere: this provider caches only at one, so every request reads them at the full"
        f" input price; with {where}, the requests within the cache's lifetime read them at 0.1x"
        " (the first writes them at 1.25x)"
    )
    if u.once:
        # a script's request: a cache write pays back only if the script runs again within
        # the cache's lifetime
        message += "; made once per process, it pays back only when the process runs again within that lifetime"
        return facts.diagnostic(CODE, message, u.site, severity=Severity.INFO, related=[u.line])
    return facts.diagnostic(CODE, message, u.site, related=[u.line])


def _into_first_message(
    facts: CodeFacts, u: UncachedPrefix, first: StaticFirstMessage, tokens: int, model: str
) -> Diagnostic:
    """The static prefix reaches the minimum only with the first user message's leading text: the
    prompt renders tools, system, then messages, and a marker may sit on a user message's content
    block (Anthropic's prompt caching documentation), so that is where it goes."""
    where = (
        "a cache_control breakpoint on that message's static content block"
        if u.marker == "cache_control"
        else f"a {u.marker} block after that message's static text"
    )
    message = (
        f"about {tokens:,} tokens of static prompt{model} go to {first.label} at {facts.where(u.line)}, on every"
        f" pass of its loop, with no {u.marker} anywhere: the static prefix includes the first user message's"
        f" leading text ({facts.where(first.line)}), which every request of the loop sends unchanged; this"
        " provider caches only at a marker, so every request reads it at the full input price; with"
        f" {where} (or the instructions moved to system= and marked there), the requests within the cache's"
        " lifetime read it at 0.1x (the first writes it at 1.25x)"
    )
    return facts.diagnostic(CODE, message, first.request, related=[first.line])


RULE = CodeRule(CODE, check, requires=("sink-call",))
