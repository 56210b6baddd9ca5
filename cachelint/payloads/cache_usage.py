"""The usage of one request as cachelint counts it (``CacheUsage``: the prompt in three disjoint
parts, whatever the provider counts), and what each provider declares of its own usage object
(``UsageFields``: how to tell it, read it, and whether it reports cache reads). Each provider's
fields and how they count the prompt are in its module (``cachelint.payloads.providers``);
``cachelint.payloads.usage`` reads a request's usage through them.

Tracing tools got the difference between counts that include the cache and counts that exclude
it wrong more than once (traceloop/openllmetry#2175, Arize-ai/openinference#1429): ``CacheUsage``
always stores the three disjoint parts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping


@dataclass(frozen=True, slots=True)  # one per request, kept for the summary
class CacheUsage:
    """The prompt of one request, in three disjoint parts plus the write's TTL split.

    ``uncached``: prompt tokens neither read from nor written to the cache (billed as input).
    ``read``: tokens read from the cache. ``written``: tokens written to it
    (``written_5m + written_1h`` when the split is known; OpenAI's 30-minute writes count as 5m).
    ``output``: generated tokens (0 when unknown). ``provider``: the family that reported it.
    ``server_steps``: server-side tool calls (Anthropic's web search and web fetch,
    ``usage.server_tool_use``; OpenAI Responses ``tool_usage``, or the server-executed items of the
    response's output, ``Request.server_steps``) that ran inside the request: each re-sent the
    growing prompt, and the usage adds them all up — it is what the request was billed, not the size
    of the prompt sent (its cached part may even be read from its own earlier steps).
    """

    provider: str
    uncached: int = 0
    read: int = 0
    written: int = 0
    written_5m: int = 0
    written_1h: int = 0
    output: int = 0
    server_steps: int = 0

    @property
    def one_prompt(self) -> bool:
        """Whether the parts describe the single prompt that was sent (no server-side steps):
        only then do they measure the prefix (what a later request can read, how large it is)."""
        return not self.server_steps

    @property
    def prompt(self) -> int:
        return self.uncached + self.read + self.written

    @property
    def cached(self) -> int:
        """Tokens that ended in the cache: read or written."""
        return self.read + self.written

    def to_dict(self) -> dict[str, int]:
        return {
            "uncached": self.uncached,
            "read": self.read,
            "written": self.written,
            "written_5m": self.written_5m,
            "written_1h": self.written_1h,
            "output": self.output,
            "prompt": self.prompt,
        }


@dataclass(frozen=True)
class UsageFields:
    """How one provider's usage object counts the prompt. ``family``: the cache and billing it
    belongs to (``CacheUsage.provider``). ``tells``: fields only its usage has, so that a usage of
    its shape is read as such whatever the request's provider (a gateway may answer in another's
    shape). ``read``: the usage as a ``CacheUsage``. ``reports_reads``: whether the usage says how
    many tokens were read from the cache, so that a read of 0 is observed rather than unknown."""

    family: str
    tells: tuple[str, ...]
    read: Callable[[Mapping[str, Any]], CacheUsage]
    reports_reads: Callable[[Mapping[str, Any]], bool]


# JSON objects are dicts: checking dict first skips the slow ABC check of typing.Mapping (this
# runs for every request)
MAPPING = (dict, Mapping)


def token_count(value: Any) -> int:
    """A token count of a usage object: 0 for anything but a number, never negative."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return max(0, value)
    if isinstance(value, float) and value == value:  # not NaN
        return max(0, int(value))
    return 0


def ttl_split(written: int, w5: int, w1: int) -> tuple[int, int]:
    """The tokens written at 5 minutes and at 1 hour, summing to ``written``: with no split (older
    responses) or an inconsistent one, what is not known to be 1 h is 5 min, the default TTL (Anthropic's prompt caching docs)."""
    if w5 + w1 == written:
        return w5, w1
    w1 = min(w1, written)
    return written - w1, w1
