"""Masking key-shaped strings in what cachelint prints.

The readers drop credentials from headers, URLs and known body fields (``payloads/secrets.py``),
but a key pasted into prompt *content* (a system prompt, a tool description, a message) is data
the audit compares, and its excerpts and explanations quoted it; a code or skill finding quoting a
source line could too. Every finding is masked on its way out (``engine.finalize``, which every
run and the API go through), and an excerpt is masked before it is cut from the request, so that
a key cut by the excerpt's edge is still recognised whole.

A mask keeps the pattern's ``keep`` first characters (``sk-ant-``, ``AKIA``: what kind of key it
was) and turns each later one into ``*``: the text keeps its length in characters and in bytes (the
keys are ASCII), so a byte offset, a column and the ``⟨`` divergence marker of an excerpt still
point at the same place. The shapes are data: rules/packs/payloads-secret-patterns.yaml.
"""

from __future__ import annotations

import dataclasses

import functools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from cachelint.diagnostics import Diagnostic

if TYPE_CHECKING:
    from cachelint.catalog import CatalogFolder

MASK = "*"


@dataclass(frozen=True)
class SecretPattern:
    name: str
    regex: re.Pattern[str]
    keep: int


@dataclass(frozen=True)
class SecretMasker:
    patterns: tuple[SecretPattern, ...]

    @classmethod
    def from_packs(cls, packs: Iterable[Mapping[str, Any]]) -> "SecretMasker":
        out = []
        for pack in packs:
            for p in pack.get("patterns", ()):
                # ASCII: a mask replaces ASCII with ASCII, so the bytes keep their length too
                out.append(SecretPattern(p["name"], re.compile(p["regex"], re.ASCII), int(p["keep"])))
        return cls(tuple(out))

    def mask(self, text: str) -> str:
        """``text`` with every key-shaped string masked (the same length)."""
        for pattern in self.patterns:
            if pattern.regex.search(text) is None:
                continue
            chars = list(text)
            for m in pattern.regex.finditer(text):
                start, end = m.span(1) if m.re.groups else m.span()
                for i in range(start + pattern.keep, end):
                    chars[i] = MASK
            text = "".join(chars)
        return text

    def mask_value(self, value: Any) -> Any:
        """Strings masked inside lists, tuples, mappings (keys too) and dataclass instances (the
        audit's typed summary); other values as they are."""
        if isinstance(value, str):
            return self.mask(value)
        if isinstance(value, dict):
            return {self.mask_value(k): self.mask_value(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(self.mask_value(v) for v in value)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            changes = {f.name: self.mask_value(getattr(value, f.name)) for f in dataclasses.fields(value) if f.init}
            return dataclasses.replace(value, **changes)
        return value

    def mask_diagnostic(self, d: Diagnostic) -> Diagnostic:
        message = self.mask(d.message)
        details = self.mask_value(dict(d.details)) if d.details else d.details
        if message == d.message and details == d.details:
            return d
        return d.with_changes(message=message, details=details)


def mask_bytes(data: bytes) -> bytes:
    """``data`` masked with the built-in patterns, byte for byte the same length."""
    return masker().mask(data.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")


@functools.lru_cache(maxsize=None)
def masker(pack_paths: Sequence[str] = (), folder: "CatalogFolder | None" = None) -> SecretMasker:
    """The masker of the built-in patterns and the user's packs of that kind (``folder``: where
    the catalog keeps them as JSON, ``cachelint.catalog.load_packs``)."""
    from cachelint.catalog import load_packs

    return SecretMasker.from_packs(load_packs("payloads-secret-patterns", tuple(pack_paths), folder))
