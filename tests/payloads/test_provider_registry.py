"""What cachelint knows about a provider is declared once, in its module (``PROVIDER``), and the
packs name only declared providers: adding a provider is its module, its place in the registry and
its pack entries, with nothing left to find elsewhere."""

from __future__ import annotations

import importlib
import pkgutil

from cachelint.catalog import load_packs
from cachelint.payloads import providers
from cachelint.payloads.providers import registry
from cachelint.payloads.providers.provider import Provider


def _declaring_modules() -> dict[str, Provider]:
    found = {}
    for info in pkgutil.iter_modules(providers.__path__):
        declared = getattr(importlib.import_module(f"{providers.__name__}.{info.name}"), "PROVIDER", None)
        if isinstance(declared, Provider):
            found[info.name] = declared
    return found


def test_every_declared_provider_is_in_the_registry_once_under_its_module_name() -> None:
    declared = _declaring_modules()
    assert sorted(p.name for p in declared.values()) == sorted(p.name for p in registry.PROVIDERS)
    assert len({p.name for p in registry.PROVIDERS}) == len(registry.PROVIDERS)
    for module, p in declared.items():
        assert module == p.name.replace("-", "_")
        assert registry.provider(p.name) is p


def test_the_packs_name_only_declared_providers_and_families() -> None:
    names = {p.name for p in registry.PROVIDERS}
    families = {p.family for p in registry.PROVIDERS}
    for pack in load_packs("payloads-providers"):
        used = {e["provider"] for e in pack["providers"]} - {"body", "invoke"}
        used |= {n for e in pack["providers"] for n in e.get("not", ())}
        used |= {e["provider"] for e in pack.get("invoke-models", ()) if e["provider"] is not None}
        used |= set(pack.get("own-hosts") or {})
        assert used <= names, used - names
    for pack in load_packs("payloads-invalidation"):
        assert set(pack["providers"]) <= names
    for pack in load_packs("payloads-limits"):
        assert set(pack["providers"]) == families
        assert {m["provider"] for m in pack.get("models", ())} <= families


def test_the_usage_shapes_are_every_family_s_and_read_each_usage_as_its_family() -> None:
    assert {u.family for u in registry.USAGE_SHAPES} == {p.family for p in registry.PROVIDERS}
    for p in registry.PROVIDERS:
        assert p.usage.family == p.family
        assert registry.usage_fields({}, p.name) is p.usage
        assert registry.usage_fields({}, p.family) is p.usage
        assert registry.usage_fields({p.usage.tells[0]: 10}, None) is p.usage
    # LiteLLM answers in OpenAI's shape with Anthropic's cache fields added: Anthropic's count them
    litellm = {"prompt_tokens": 100, "cache_read_input_tokens": 80, "cache_creation_input_tokens": 0}
    assert registry.usage_fields(litellm, "openai-chat") is registry.provider("anthropic").usage  # type: ignore[union-attr]


def test_a_content_level_prompt_is_rebuilt_in_the_shape_its_label_names() -> None:
    assert registry.content_provider("vertex_ai", "claude-sonnet-4-5") == "anthropic"  # Claude first
    assert registry.content_provider("aws.bedrock", "anthropic.claude-3-haiku") == "anthropic"
    assert registry.content_provider("gcp.vertex_ai", "gemini-2.5-pro") == "gemini"
    assert registry.content_provider("groq", "llama-3.3-70b") == "openai-chat"
    assert registry.content_shape("openai-responses") is registry.content_shape("openai-chat")
    assert registry.endpoint("gemini") is None  # its URL names the model: a record without one has none
