"""Where each request the proxy receives goes, and what a child process is told to send there.

Provider facts are data (rules/packs/proxy-upstreams.yaml): the upstreams, the headers and paths
that tell them apart, and the base-URL variables SDKs and coding agents read. The proxy serves
each upstream under its own path prefix (``/anthropic``, ``/openai``, ``/gemini``), so that the
base URL a child is given names its upstream without doubt; a request without such a prefix (a
user who pointed ``ANTHROPIC_BASE_URL`` at the bare proxy) is routed by its headers and path.

Pure functions and frozen data: nothing here does I/O.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Mapping

# What a child is handed as an API key when the scripted model answers and none is set: SDKs
# refuse to start without one, and no provider ever sees it.
PLACEHOLDER_KEY = "cachelint-fake-model-key"


@dataclass(frozen=True)
class Upstream:
    """One API the proxy forwards to. ``url``: its base URL (no trailing slash). ``version``: the
    API's version segment (``/v1``) when clients disagree on whether the base URL holds it."""

    name: str
    url: str
    version: str = ""
    headers: tuple[str, ...] = ()
    paths: tuple[re.Pattern[str], ...] = ()
    placeholder_keys: tuple[str, ...] = ()

    def join(self, rest: str) -> str:
        """The upstream URL of ``rest`` (a path after the route, query excluded), with the version
        segment once whether the base URL, the path, both or neither carried it."""
        base = self.url.rstrip("/")
        version = self.version
        if version:
            base_has = base.endswith(version)
            rest_has = rest == version or rest.startswith(version + "/")
            if base_has and rest_has:
                rest = rest[len(version) :]
            elif not base_has and not rest_has:
                rest = version + rest
        return base + rest

    def matches(self, path: str, headers: Mapping[str, str]) -> bool:
        return any(name in headers for name in self.headers) or any(p.search(path) for p in self.paths)


@dataclass(frozen=True)
class BaseUrlVariable:
    """An environment variable a client reads its base URL from. ``form``: ``origin`` (the client
    appends the version and path) or ``version`` (it appends only the path)."""

    name: str
    upstream: str
    form: str
    honoured_by: str = ""


@dataclass(frozen=True)
class Target:
    upstream: Upstream
    url: str


@dataclass(frozen=True)
class RouteTable:
    upstreams: tuple[Upstream, ...]
    variables: tuple[BaseUrlVariable, ...] = ()
    # names whose URL came from the command line or the environment, for the start-up message
    configured: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def from_packs(cls, packs: Iterable[Mapping[str, Any]]) -> "RouteTable":
        upstreams: dict[str, Upstream] = {}
        variables: dict[str, BaseUrlVariable] = {}
        for pack in packs:  # a later pack (the user's) replaces an entry of the same name
            for entry in pack.get("upstreams", ()):
                upstreams[entry["name"]] = Upstream(
                    name=entry["name"],
                    url=entry["url"].rstrip("/"),
                    version=entry.get("version", ""),
                    headers=tuple(h.lower() for h in entry.get("headers", ())),
                    paths=tuple(re.compile(p) for p in entry.get("paths", ())),
                    placeholder_keys=tuple(entry.get("placeholder-keys", ())),
                )
            for entry in pack.get("variables", ()):
                variables[entry["name"]] = BaseUrlVariable(
                    entry["name"], entry["upstream"], entry["form"], entry.get("honoured-by", "")
                )
        return cls(
            tuple(upstreams.values()),
            tuple(v for v in variables.values() if v.upstream in upstreams),
        )

    def upstream(self, name: str) -> Upstream | None:
        for upstream in self.upstreams:
            if upstream.name == name:
                return upstream
        return None

    def with_urls(self, urls: Mapping[str, str]) -> "RouteTable":
        """The table with these upstreams sent elsewhere (a gateway, a compatible API); a name
        the table does not have becomes a route of its own (``/NAME/...``), found by prefix only."""
        known = {u.name: u for u in self.upstreams}
        out = []
        for upstream in self.upstreams:
            url = urls.get(upstream.name)
            out.append(replace(upstream, url=url.rstrip("/")) if url else upstream)
        for name in sorted(set(urls) - set(known)):
            out.append(Upstream(name=name, url=urls[name].rstrip("/")))
        return replace(self, upstreams=tuple(out), configured={**self.configured, **urls})

    def urls_from_environment(self, environ: Mapping[str, str]) -> dict[str, str]:
        """The upstream each base-URL variable already set names (the first set one per
        upstream): a command that goes through a gateway keeps going there, through the proxy."""
        found: dict[str, str] = {}
        for variable in self.variables:
            value = (environ.get(variable.name) or "").strip()
            if value and variable.upstream not in found:
                found[variable.upstream] = value
        return found

    def target(self, path: str, headers: Mapping[str, str]) -> Target | None:
        """Where a request for ``path`` (query excluded; ``headers`` with lower-case names) goes:
        by its route prefix, else by the first upstream its headers or path point to."""
        first, _, rest = path.lstrip("/").partition("/")
        upstream = self.upstream(first)
        if upstream is not None:
            return Target(upstream, upstream.join("/" + rest if rest or path.endswith("/") else ""))
        for upstream in self.upstreams:
            if upstream.matches(path, headers):
                return Target(upstream, upstream.join(path))
        return None

    def child_environment(self, local_base: str) -> dict[str, str]:
        """The base-URL variables that send a client's requests to the proxy at ``local_base``."""
        out = {}
        for variable in self.variables:
            upstream = self.upstream(variable.upstream)
            suffix = upstream.version if upstream is not None and variable.form == "version" else ""
            out[variable.name] = f"{local_base}/{variable.upstream}{suffix}"
        return out

    def placeholder_keys(self, environ: Mapping[str, str]) -> dict[str, str]:
        """Placeholder API keys for the variables not set (the scripted model needs no key)."""
        return {name: PLACEHOLDER_KEY for u in self.upstreams for name in u.placeholder_keys if not environ.get(name)}


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a name or an address) is this machine only."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def parse_listen(value: str) -> tuple[str, int]:
    """``HOST:PORT``, ``:PORT``, ``PORT`` or ``[::1]:PORT`` -> (host, port); ValueError otherwise."""
    text = value.strip()
    if text.isdigit():
        host, port_text = "127.0.0.1", text
    elif text.startswith("["):
        host, _, port_text = text[1:].partition("]:")
    else:
        host, _, port_text = text.rpartition(":")
        host = host or "127.0.0.1"
    if not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise ValueError(f"expected HOST:PORT, got {value!r}")
    return host, int(port_text)


def base_url(host: str, port: int) -> str:
    """The URL a client on this machine reaches ``host:port`` at."""
    if host in ("0.0.0.0", "::", ""):
        host = "127.0.0.1"
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"
