"""What a captured URL says about a request, before its body is looked at.

The URL path is the strongest evidence of what a request is: a body shaped like an Anthropic
request sent to Bedrock's InvokeModel for a Titan model is not Anthropic, and an Assistants run
(``/v1/threads/{id}/runs``) with ``instructions`` in its body is not a Responses call. So the
endpoint is classified first (dated patterns in ``rules/packs/payloads-providers.yaml``), and the
body's shape decides only what the URL leaves open (a log of bare bodies has no URL at all).

An endpoint says one of:

- the provider (and where the model id sits in the URL): ``/v1/messages`` is Anthropic;
- that the request is no LLM generation call (``not-llm``): embeddings, the Assistants API,
  audio, file and vector stores, uploads, Gemini's Interactions API; skipped and counted;
- for Bedrock's InvokeModel, whose body follows the model, the model family (``invoke-models``):
  Claude bodies are Anthropic Messages, Nova bodies have the Converse message shape, and the
  other families (Titan, Llama, Cohere, AI21, Mistral…) are neither and are skipped;
- that the body's shape decides but must not be read as some provider (``not``): a SageMaker
  endpoint serves whatever model was deployed behind it, never Anthropic's API;
- a side call (``side-call``): an LLM call beside the conversation (``/v1/responses/compact``
  summarises a conversation), which is its own session.

The URL's host is kept as a label for requests that do not go to the provider's own API (Groq,
Ollama, a gateway): they are read as the provider whose API they copy, and reported with it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable, Literal, Mapping
from urllib.parse import unquote, urlsplit

# Upload endpoints carry file bytes, whatever content type a client declares (a Google resumable
# upload of a text file is sent as "application/json"): a body that is not JSON there is not a
# truncated request. Protocol paths, not provider facts: Google's upload protocol prefixes every
# upload URL with /upload/, OpenAI and Anthropic take files at /v1/files and /v1/uploads.
_UPLOAD_PATHS = re.compile(r"(^|/)upload/|/v1/(files|uploads)(/|\?|$)")


def is_upload(url: str | None) -> bool:
    """Whether the URL is a file upload endpoint (its body is the file, not a request)."""
    if not url:
        return False
    return bool(_UPLOAD_PATHS.search(urlsplit(url).path or url))


@dataclass(frozen=True)
class Endpoint:
    """What the URL of one record says.

    ``known``: a pattern matched. ``llm``: False for an endpoint that is not an LLM generation
    call (the record is skipped). ``provider``: the provider the URL names, or None when the body
    decides; ``model``: the model id the URL carries. ``excluded``: providers the body must not be
    read as. ``side_call``: the kind of a call beside the conversation (``compaction``), or None.
    ``host``: the URL's host when it is not one of the provider's own (a compatible API, a
    gateway, a local server), else None.
    """

    known: bool = False
    llm: bool = True
    provider: str | None = None
    model: str | None = None
    excluded: frozenset[str] = frozenset()
    side_call: str | None = None
    host: str | None = None

    @property
    def known_not_llm(self) -> bool:
        """The URL names an endpoint that is no LLM generation call."""
        return self.known and not self.llm


UNKNOWN = Endpoint()


@dataclass(frozen=True)
class _Pattern:
    regex: re.Pattern[str]
    provider: str | None  # None: the body decides (with ``excluded`` ruled out)
    invoke: bool = False  # Bedrock InvokeModel: the provider follows the model family
    excluded: frozenset[str] = frozenset()
    side_call: str | None = None


# The URL patterns come from packs (the user's too) and are searched, not anchored: a pattern such
# as ``bedrock-runtime[^/]*/`` reads ahead from every occurrence of its literal, quadratic in a long
# crafted URL. Real endpoints are a few hundred bytes; a longer URL is classified by its body alone.
MAX_URL_LENGTH = 8192


@dataclass(frozen=True)
class EndpointRules:
    """The merged ``payloads-providers`` packs: endpoint patterns in order (the first match wins),
    endpoints that are not LLM calls, InvokeModel model families and the providers' own hosts."""

    patterns: tuple[_Pattern, ...]
    not_llm: tuple[re.Pattern[str], ...]
    invoke_models: tuple[tuple[re.Pattern[str], str | None], ...] = ()
    own_hosts: Mapping[str, tuple[re.Pattern[str], ...]] = None  # type: ignore[assignment]

    @classmethod
    def from_packs(cls, packs: Iterable[Mapping[str, Any]]) -> "EndpointRules":
        patterns: list[_Pattern] = []
        not_llm: list[re.Pattern[str]] = []
        invoke: list[tuple[re.Pattern[str], str | None]] = []
        hosts: dict[str, list[re.Pattern[str]]] = {}
        for pack in packs:
            for entry in pack.get("providers", ()):
                patterns.append(
                    _Pattern(
                        regex=re.compile(entry["url"]),
                        provider=entry.get("provider")
                        if entry.get("provider") not in (None, "body", "invoke")
                        else None,
                        invoke=entry.get("provider") == "invoke",
                        excluded=frozenset(entry.get("not", ())),
                        side_call=entry.get("side-call"),
                    )
                )
            not_llm += [re.compile(p) for p in pack.get("not-llm", ())]
            invoke += [
                (re.compile(e["model"], re.IGNORECASE), e.get("provider")) for e in pack.get("invoke-models", ())
            ]
            for provider, names in (pack.get("own-hosts") or {}).items():
                hosts.setdefault(provider, []).extend(re.compile(n, re.IGNORECASE) for n in names)
        return cls(tuple(patterns), tuple(not_llm), tuple(invoke), {k: tuple(v) for k, v in hosts.items()})

    def classify(self, url: str | None) -> Endpoint:
        """The endpoint of a URL (UNKNOWN when there is none or no pattern matches)."""
        if not url or len(url) > MAX_URL_LENGTH:
            return UNKNOWN
        if any(p.search(url) for p in self.not_llm):
            return Endpoint(known=True, llm=False)
        for pattern in self.patterns:
            match = pattern.regex.search(url)
            if match is None:
                continue
            model = match.groupdict().get("model")
            model = unquote(model) if model else None
            provider = pattern.provider
            if pattern.invoke:
                family = self._invoke_family(model)
                if family is False:
                    return Endpoint(known=True, llm=False, model=model)
                provider = family or None  # None: a model id that names no family (an ARN)
            return Endpoint(
                known=True,
                provider=provider,
                model=model,
                excluded=pattern.excluded,
                side_call=pattern.side_call,
                host=self._foreign_host(url, provider),
            )
        return Endpoint(host=self._foreign_host(url, None))

    def _invoke_family(self, model: str | None) -> str | Literal[False] | None:
        """The provider whose body shape a Bedrock InvokeModel model takes: a provider name,
        False for a family that is read as no provider (skipped), None when none matches."""
        if not model:
            return None
        for regex, provider in self.invoke_models:
            if regex.search(model):
                return provider if provider else False
        return None

    def _foreign_host(self, url: str, provider: str | None) -> str | None:
        """The URL's host, unless it is one of the provider's own (or no host is known)."""
        try:
            host = urlsplit(url).netloc.rsplit("@", 1)[-1].lower()
        except ValueError:
            return None
        if not host:
            return None
        candidates = [provider] if provider else list(self.own_hosts or {})
        for name in candidates:
            if any(p.fullmatch(host) for p in (self.own_hosts or {}).get(name or "", ())):
                return None
        return host
