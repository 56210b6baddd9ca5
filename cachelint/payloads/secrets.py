"""Dropping credentials and personal ids at read time, so that they never reach any output.

What to drop is data (rules/packs/payloads-secrets.yaml): header names, URL query parameters and
request body fields. Personal ids that identify a session (Claude Code's ``metadata.user_id``) are
replaced by a short hash: stable enough to group requests, useless to anyone reading a report.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any, Iterable, Mapping
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit


def hash_id(value: Any) -> str:
    """A short, non-reversible stand-in for a personal id (sha256, 12 hex digits)."""
    text = value if isinstance(value, str) else repr(value)
    return "h:" + hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()[:12]


@dataclass(frozen=True)
class Redactor:
    headers: frozenset[str]
    query_params: frozenset[str]
    body_fields: tuple[tuple[str, ...], ...]
    hashed_body_fields: tuple[tuple[str, ...], ...]

    @classmethod
    def from_packs(cls, packs: Iterable[Mapping[str, Any]]) -> "Redactor":
        headers: set[str] = set()
        params: set[str] = set()
        fields: set[tuple[str, ...]] = set()
        hashed: set[tuple[str, ...]] = set()
        for pack in packs:
            headers.update(h.lower() for h in pack.get("headers", ()))
            params.update(p.lower() for p in pack.get("query-params", ()))
            fields.update(tuple(f.split(".")) for f in pack.get("body-fields", ()))
            hashed.update(tuple(f.split(".")) for f in pack.get("hashed-body-fields", ()))
        return cls(frozenset(headers), frozenset(params), tuple(sorted(fields)), tuple(sorted(hashed)))

    def header_dict(self, raw: Any) -> dict[str, str]:
        """Headers from a mapping (value or list of values) or a HAR list of {name, value}, with
        lower-cased names and the secret ones dropped."""
        out: dict[str, str] = {}
        items: Iterable[Any]
        if raw is None:  # most records carry no headers: skip the slow ABC check below
            return out
        if isinstance(raw, (dict, Mapping)):
            items = raw.items()
        elif isinstance(raw, list):
            items = [(h.get("name"), h.get("value")) for h in raw if isinstance(h, (dict, Mapping))]
        else:
            return out
        for name, value in items:
            if not isinstance(name, str):
                continue
            key = name.strip().lower()  # "Authorization " is the same header to a server
            if key in self.headers:
                continue
            if isinstance(value, list):
                value = ", ".join(str(v) for v in value)
            if value is None:
                continue
            out[key] = str(value)
        return dict(sorted(out.items()))

    def url(self, url: Any) -> str | None:
        """The URL without secret query parameters and without user:password. Parameters are
        split at ``;`` as well as ``&`` (servers that accept either read ``?a=1;key=…`` as two
        parameters), and a fragment of parameters (``#access_token=…``, the OAuth implicit flow)
        is cleaned the same way."""
        if not isinstance(url, str):
            return None
        try:
            parts = urlsplit(url)
            netloc = parts.netloc.rsplit("@", 1)[-1]
            return urlunsplit(
                (parts.scheme, netloc, parts.path, self._params(parts.query), self._params(parts.fragment))
            )
        except ValueError:
            return None  # an unparseable URL could hide anything: drop it

    def _params(self, text: str) -> str:
        if "=" not in text:
            return text
        kept = []
        for piece in re.split(r"[&;]", text):
            pairs = parse_qsl(piece, keep_blank_values=True)
            if not pairs:
                continue
            name = pairs[0][0].strip().lower()
            if name not in self.query_params:
                kept.extend(pairs)
        return urlencode(kept)

    def body(self, body: Any) -> tuple[Any, dict[str, str]]:
        """Drop secret fields from a request body in place; return it and the hashed ids found
        (dotted path -> hash)."""
        hashed: dict[str, str] = {}
        if not isinstance(body, dict) or not body:
            return body, hashed
        for path in self.hashed_body_fields:
            value = _pop_path(body, path)
            if value is not None:
                hashed[".".join(path)] = hash_id(value)
        for path in self.body_fields:
            _pop_path(body, path)
        return body, hashed


def _pop_path(body: dict, path: tuple[str, ...]) -> Any:
    node: Any = body
    for key in path[:-1]:
        if not isinstance(node, dict):
            return None
        node = node.get(key)
    if isinstance(node, dict):
        return node.pop(path[-1], None)
    return None
