"""The agents that load skills, as their documentation describes them
(``rules/packs/skills-loaders.yaml``): the folders each reads skills from, the context files it
reads into the prompt, its plugin, marketplace and extension manifests, what keeps a skill out of
the model's listing, and the budget of that listing.

The index rules name the loader whose view a finding takes (``Loaders.readers_of``); the listing
rule (CL207) measures each loader's listing against its budget (``cachelint.skills.listing``).
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import Any, Mapping, Sequence

PACK_KIND = "skills-loaders"

# What a boolean front matter field accepts, in any letter case (Claude Code skills docs: "Boolean
# fields accept yes, no, on, off, 1, and 0 in any letter case, in addition to true and false").
_TRUE = frozenset({"true", "yes", "on", "1"})


def truthy(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value == 1
    return isinstance(value, str) and value.strip().lower() in _TRUE


@dataclass(frozen=True)
class ListingBudget:
    """How much of the prompt a loader gives the listing of skill names and descriptions."""

    budget_fraction: float
    chars_per_token: int
    fallback_chars: int
    entry: str  # name-description | name-description-path
    overflow: str  # drop-least-invoked | shorten-evenly
    context_window: int | None = None  # tokens; None: unknown, the fallback applies
    entry_cap: int | None = None  # characters of description (and when_to_use) an entry keeps
    place: str = "the prompt"

    @property
    def chars(self) -> int:
        """The budget in characters."""
        if self.context_window is None:
            return self.fallback_chars
        return max(1, int(self.context_window * self.budget_fraction * self.chars_per_token))

    def basis(self) -> str:
        """Where the budget comes from, for messages: "1% of a 200,000-token context window"."""
        share = f"{self.budget_fraction * 100:g}%"
        if self.context_window is None:
            return f"{share} of the context window, {self.fallback_chars:,} characters when the window is unknown"
        return f"{share} of a {self.context_window:,}-token context window at {self.chars_per_token} characters a token"


@dataclass(frozen=True)
class Loader:
    key: str
    name: str
    skill_folders: tuple[str, ...] = ()
    prompt_files: tuple[str, ...] = ()
    plugin_manifest: str | None = None
    marketplace: str | None = None
    extension_manifest: str | None = None
    well_known_index: str | None = None
    user_only_field: str | None = None
    user_only_policy: str | None = None
    listing: ListingBudget | None = None

    def reads_prompt_file(self, path: Path) -> bool:
        """Whether ``path`` is one of the context files this loader reads into the prompt (a
        file name, or a path ending such as ``.github/copilot-instructions.md``)."""
        posix = path.as_posix().lower()
        return any(posix == p.lower() or posix.endswith("/" + p.lower()) for p in self.prompt_files)


def _listing(raw: Mapping[str, Any] | None, override: Mapping[str, Any]) -> ListingBudget | None:
    if raw is None:
        return None
    budget = ListingBudget(
        budget_fraction=float(raw["budget_fraction"]),
        chars_per_token=int(raw["chars_per_token"]),
        fallback_chars=int(raw["fallback_chars"]),
        entry=str(raw["entry"]),
        overflow=str(raw["overflow"]),
        context_window=int(raw["context_window"]) if raw.get("context_window") else None,
        entry_cap=int(raw["entry_cap"]) if raw.get("entry_cap") else None,
        place=str(raw.get("place", "the prompt")),
    )
    # [tool.cachelint.skills.listing.<loader>]: the user's model and settings
    if "context-window" in override:
        budget = replace(budget, context_window=int(override["context-window"]))
    if "budget-fraction" in override:
        budget = replace(budget, budget_fraction=float(override["budget-fraction"]))
    if "max-description-chars" in override:
        budget = replace(budget, entry_cap=int(override["max-description-chars"]))
    return budget


@dataclass(frozen=True)
class Loaders:
    """Every loader of the packs (a later pack's loader of the same key replaces an earlier one)."""

    loaders: tuple[Loader, ...] = ()

    @classmethod
    def load(
        cls, pack_paths: Sequence[str], overrides: Mapping[str, Any] | None = None, folder: Any = None
    ) -> "Loaders":
        """``folder``: where the catalog keeps the user's packs as JSON (``cachelint.catalog.load_packs``)."""
        return _cached_loaders(tuple(pack_paths), json.dumps(dict(overrides or {}), sort_keys=True), folder)

    def __iter__(self):
        return iter(self.loaders)

    def get(self, key: str) -> Loader | None:
        return next((loader for loader in self.loaders if loader.key == key), None)

    def readers_of(self, path: Path) -> tuple[Loader, ...]:
        """The loaders that read ``path`` into the prompt as a context file."""
        return tuple(loader for loader in self.loaders if loader.reads_prompt_file(path))

    @functools.cached_property
    def marketplace_folders(self) -> tuple[str, ...]:
        """The folders a marketplace file sits in (``.claude-plugin``, ``.agents/plugins``)."""
        return tuple(sorted({str(PurePosixPath(m).parent) for m in self._values("marketplace")}))

    @functools.cached_property
    def plugin_manifests(self) -> tuple[str, ...]:
        return tuple(sorted(set(self._values("plugin_manifest"))))

    @functools.cached_property
    def package_manifests(self) -> tuple[str, ...]:
        """The manifests that make a folder a plugin or an extension."""
        return tuple(sorted(set(self._values("plugin_manifest")) | set(self._values("extension_manifest"))))

    def _values(self, attribute: str) -> list[str]:
        return [value for loader in self.loaders if (value := getattr(loader, attribute)) is not None]

    def marketplace_loader(self, path: Path) -> Loader | None:
        """The loader whose marketplace file ``path`` is (by its folder and name)."""
        return self._by_path_ending(path, "marketplace")

    def marketplace_owner(self, path: Path) -> Loader | None:
        """The loader whose marketplace folder holds the marketplace file ``path``: its
        marketplace file, or another beside it (``.claude-plugin/marketplace.extended.json``, a
        marketplace its users add by path)."""
        found = self.marketplace_loader(path)
        if found is not None:
            return found
        folder = path.parent.as_posix()
        for loader in self.loaders:
            if loader.marketplace is None:
                continue
            home = str(PurePosixPath(loader.marketplace).parent)
            if folder == home or folder.endswith("/" + home):
                return loader
        return None

    def plugin_loader(self, path: Path) -> Loader | None:
        """The loader whose plugin manifest ``path`` is."""
        return self._by_path_ending(path, "plugin_manifest")

    def well_known_loader(self, path: Path) -> Loader | None:
        return self._by_path_ending(path, "well_known_index")

    def _by_path_ending(self, path: Path, attribute: str) -> Loader | None:
        posix = path.as_posix()
        for loader in self.loaders:
            ending = getattr(loader, attribute)
            if ending is not None and (posix == ending or posix.endswith("/" + ending)):
                return loader
        return None

    def manifest_root(self, path: Path, attribute: str) -> Path:
        """The folder a manifest's relative paths resolve from: the one holding the manifest's
        documented location (``.claude-plugin/`` for ``.claude-plugin/marketplace.json``: "the
        marketplace root, which is the directory containing .claude-plugin/")."""
        loader = self._by_path_ending(path, attribute)
        if loader is None:
            return path.parent
        depth = len(PurePosixPath(getattr(loader, attribute)).parts)
        root = path
        for _ in range(depth):
            root = root.parent
        return root


def _merge(packs: Sequence[Mapping[str, Any]], overrides: Mapping[str, Any]) -> Loaders:
    by_key: dict[str, Loader] = {}
    for pack in packs:
        for raw in pack.get("loaders", ()):
            key = raw["key"]
            by_key[key] = Loader(
                key=key,
                name=raw["name"],
                skill_folders=tuple(raw.get("skill_folders", ())),
                prompt_files=tuple(raw.get("prompt_files", ())),
                plugin_manifest=raw.get("plugin_manifest"),
                marketplace=raw.get("marketplace"),
                extension_manifest=raw.get("extension_manifest"),
                well_known_index=raw.get("well_known_index"),
                user_only_field=raw.get("user_only_field"),
                user_only_policy=raw.get("user_only_policy"),
                listing=_listing(raw.get("listing"), overrides.get(key, {})),
            )
    return Loaders(tuple(by_key[key] for key in sorted(by_key)))


@functools.lru_cache(maxsize=8)
def _cached_loaders(pack_paths: tuple[str, ...], overrides_key: str, folder: Any = None) -> Loaders:
    from cachelint.catalog import load_packs

    return _merge(load_packs(PACK_KIND, pack_paths, folder), json.loads(overrides_key))


@functools.lru_cache(maxsize=1)
def builtin_loaders() -> Loaders:
    """The built-in loaders alone (for callers without settings: ``index`` rendering, tests)."""
    return Loaders.load(())
