"""Prompt-cache limits per provider and model, from the dated ``payloads-limits`` packs.

Nothing here knows a number: breakpoint limits, lookback, TTLs, minimum cacheable lengths and the
per-key request rate all come from ``rules/packs/payloads-limits.yaml`` (and the user's packs,
which are searched first so that they can override a built-in fact).
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Mapping

from cachelint.payloads.usage import provider_family

if TYPE_CHECKING:
    from cachelint.payloads.context import CheckContext


@dataclass(frozen=True)
class ProviderLimits:
    family: str
    max_breakpoints: int | None = None
    lookback_blocks: int | None = None
    default_ttl: str = "5m"
    ttls: Mapping[str, int] = field(default_factory=dict)
    longest_ttl: int | None = None
    common_min_cacheable_tokens: int | None = None
    caching: str = "automatic"  # explicit: only at markers; automatic: the provider caches by itself
    automatic_breakpoint: bool = False
    requests_per_minute_per_key: float | None = None
    read_step_tokens: int | None = None
    # False where the provider documents its automatic caching as best effort (Gemini's implicit
    # caching): a miss with nothing to explain it may be the provider's
    hits_guaranteed: bool = True
    models_from: str | None = None
    # per cache mode, how many of a request's explicit breakpoints (the latest first) it writes:
    # OpenAI's GPT-5.6+ prompt_cache_breakpoint markers
    explicit_writes: Mapping[str, int] = field(default_factory=dict)
    source: str = ""

    def ttl_seconds(self, ttl: str | None) -> int | None:
        """Seconds of a TTL name (``5m``, ``1h``, ``24h``, ``in_memory``…); the default when None."""
        name = ttl or self.default_ttl
        if name in self.ttls:
            return int(self.ttls[name])
        return _parse_duration(name)


def _parse_duration(text: str) -> int | None:
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    if len(text) >= 2 and text[-1] in units and text[:-1].isdigit():
        return int(text[:-1]) * units[text[-1]]
    return None


@dataclass(frozen=True)
class Limits:
    """The merged limits packs. ``chars_per_token`` turns bytes into an estimated token count."""

    providers: Mapping[str, ProviderLimits]
    models: tuple[Mapping[str, Any], ...]
    chars_per_token: float = 4.0
    as_of: str = ""
    thinking_blocks: tuple[Mapping[str, Any], ...] = ()
    # (provider, model) -> min_cacheable_tokens answer: every request asks, few models exist
    _minimums: dict[tuple[str | None, str | None], tuple[int, str] | None] = field(
        default_factory=dict, compare=False, hash=False, repr=False
    )
    _by_provider: dict[str | None, ProviderLimits | None] = field(
        default_factory=dict, compare=False, hash=False, repr=False
    )
    _caches: dict[tuple[str | None, str | None], bool] = field(
        default_factory=dict, compare=False, hash=False, repr=False
    )

    @classmethod
    def from_packs(cls, packs: Iterable[Mapping[str, Any]]) -> "Limits":
        providers: dict[str, ProviderLimits] = {}
        models: list[Mapping[str, Any]] = []
        thinking: list[Mapping[str, Any]] = []
        chars = 4.0
        as_of = ""
        for pack in packs:  # built-in first, the user's later: later ones override / go first
            chars = float(pack.get("chars_per_token", chars))
            as_of = str(pack.get("as_of", as_of))
            for name, data in sorted((pack.get("providers") or {}).items()):
                providers[name] = ProviderLimits(family=name, **dict(data))
            models[:0] = list(pack.get("models") or ())
            thinking[:0] = list(pack.get("thinking_blocks") or ())
        return cls(
            providers=providers,
            models=tuple(models),
            chars_per_token=chars,
            as_of=as_of,
            thinking_blocks=tuple(thinking),
        )

    def provider(self, provider: str | None) -> ProviderLimits | None:
        # asked several times per request by the checks and the ledger: one dict lookup
        try:
            return self._by_provider[provider]
        except KeyError:
            found = self._by_provider[provider] = self.providers.get(provider_family(provider))
            return found

    def min_cacheable_tokens(self, provider: str | None, model: str | None) -> tuple[int, str] | None:
        """(minimum tokens, source) for a model, or None when no entry matches."""
        key = (provider, model)
        if key not in self._minimums:
            self._minimums[key] = self._min_cacheable_tokens(provider, model)
        return self._minimums[key]

    def _min_cacheable_tokens(self, provider: str | None, model: str | None) -> tuple[int, str] | None:
        entry = self._model_entry(self.models, provider, model)
        return (int(entry["min_cacheable_tokens"]), str(entry.get("source", ""))) if entry is not None else None

    def caches(self, provider: str | None, model: str | None) -> bool:
        """Whether anything can be cached for the model: False for a provider that caches by
        itself but not for this model (``implicit: false``: OpenAI before gpt-4o, Gemini before
        2.5). Marker-caching providers cache at their markers: True."""
        found = self.provider(provider)
        if found is None or found.caching == "explicit":
            return True
        key = (provider, model)
        if key not in self._caches:
            entry = self._model_entry(self.models, provider, model)
            self._caches[key] = entry is None or entry.get("implicit") is not False
        return self._caches[key]

    def keeps_thinking(self, provider: str | None, model: str | None) -> tuple[bool, str] | None:
        """(whether the model keeps earlier turns' thinking blocks when a user turn other than tool
        results arrives, source), or None when no entry names the model."""
        entry = self._model_entry(self.thinking_blocks, provider, model)
        return (bool(entry["kept"]), str(entry.get("source", ""))) if entry is not None else None

    def _model_entry(
        self, entries: tuple[Mapping[str, Any], ...], provider: str | None, model: str | None
    ) -> Mapping[str, Any] | None:
        """The first entry whose provider and glob match the model (a provider's own entries, then
        those of the provider it takes its models from: Claude on Bedrock)."""
        family = provider_family(provider)
        name = (model or "").lower()
        families = [family]
        inherited = self.providers.get(family)
        if inherited is not None and inherited.models_from:
            families.append(inherited.models_from)
        for fam in families:
            for entry in entries:
                if entry.get("provider") != fam:
                    continue
                if any(fnmatch.fnmatchcase(name, pattern.lower()) for pattern in entry.get("match", ())):
                    return entry
        return None

    def estimate_tokens(self, byte_count: int) -> int:
        return int(round(byte_count / self.chars_per_token))


def limits_for(ctx: CheckContext) -> Limits:
    """The run's Limits from a CheckContext, built once per run: every check asks for it on
    every request."""
    return ctx.built("payloads-limits", Limits.from_packs)


def tokens_up_to(req: Any, end_byte: int, limits: Limits) -> tuple[int, bool]:
    """Prompt tokens up to ``end_byte`` of the rendered prefix: scaled from the response's usage
    when there is one (exact total, proportional split), else estimated from the bytes.
    Returns (tokens, from_usage)."""
    from cachelint.payloads.usage import usage_of

    usage = usage_of(req)
    total_bytes = getattr(req, "prefix_length", 0)
    if usage is not None and usage.prompt and total_bytes and usage.one_prompt:
        return int(usage.prompt * min(end_byte, total_bytes) / total_bytes), True
    return limits.estimate_tokens(end_byte), False
