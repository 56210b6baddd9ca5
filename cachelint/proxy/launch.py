"""Putting the proxy together (routes, capture, live report, scripted model) and running a command
through it: what ``cachelint proxy`` and ``cachelint run`` call; the CLI only parses and exits."""

from __future__ import annotations

import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Mapping, Sequence

from cachelint.config import Settings
from cachelint.proxy.routes import RouteTable, is_loopback

if TYPE_CHECKING:
    from cachelint.proxy.server import ProxyServer

# `cachelint run --fake-model` without a script: the default behaviour.
DEFAULT_SCRIPT = ""
# How long a command is given to end after SIGTERM before it is killed, when cachelint itself is
# stopped.
TERMINATE_GRACE = 5.0


class ProxyError(Exception):
    """A problem the user can fix (the extra missing, a refused address, a bad script): one line."""


@dataclass(frozen=True)
class ProxyOptions:
    """``upstreams``: NAME -> URL from ``--upstream``; ``fake_model``: None to forward, ``""`` for
    the default scripted model, else a script's path; ``environ``: where base URLs already set are
    read (they become the upstreams, below ``--upstream``)."""

    capture: Path
    settings: Settings
    host: str = "127.0.0.1"
    port: int = 0
    upstreams: Mapping[str, str] = field(default_factory=dict)
    fake_model: str | None = None
    allow_remote: bool = False
    session: str | None = None
    live: bool = True
    environ: Mapping[str, str] = field(default_factory=dict)


def require_extra() -> None:
    try:
        import aiohttp  # noqa: F401
    except ImportError:
        raise ProxyError(
            "the proxy needs aiohttp, which the linter's own install leaves out: pip install 'cachelint[proxy]'"
        ) from None


def route_table(options: ProxyOptions) -> RouteTable:
    from cachelint.catalog import load_packs

    routes = RouteTable.from_packs(load_packs("proxy-upstreams", options.settings.pack_paths()))
    urls = {**routes.urls_from_environment(options.environ), **options.upstreams}
    return routes.with_urls(urls) if urls else routes


def parse_upstreams(values: Sequence[str]) -> dict[str, str]:
    """``NAME=URL`` pairs; ProxyError on anything else."""
    out = {}
    for value in values:
        name, sep, url = value.partition("=")
        name = name.strip().lower()
        if not sep or not name.replace("-", "").isalnum() or not url.startswith(("http://", "https://")):
            raise ProxyError(f"--upstream expects NAME=URL (openai=https://gateway.example/v1), got {value!r}")
        out[name] = url.strip()
    return out


def build_proxy(options: ProxyOptions, report: Callable[[str], None]) -> ProxyServer:
    """The proxy, not started yet. ProxyError when it must not or cannot run."""
    require_extra()
    if not is_loopback(options.host) and not options.allow_remote:
        raise ProxyError(
            f"refusing to listen on {options.host}: the proxy forwards every request with the API key it "
            "carries and records every prompt, so anyone who can reach that address could spend your keys "
            "and read your captures; listen on 127.0.0.1, or pass --allow-remote if you accept that"
        )
    from cachelint.proxy.fake_model import FakeModel, Script, ScriptError
    from cachelint.proxy.recorder import CaptureRecorder
    from cachelint.proxy.server import ProxyServer

    fake = None
    if options.fake_model is not None:
        try:
            script = Script.load(options.fake_model) if options.fake_model != DEFAULT_SCRIPT else None
        except ScriptError as exc:
            raise ProxyError(str(exc)) from None
        fake = FakeModel(script, report)
    observe = None
    if options.live:
        from cachelint.proxy.live import LiveBreaks

        observe = LiveBreaks(str(options.capture), options.settings).observe
    recorder = CaptureRecorder(options.capture, options.session, observe, report)
    return ProxyServer(route_table(options), recorder, host=options.host, port=options.port, fake=fake, report=report)


def run_command(argv: Sequence[str], environ: Mapping[str, str]) -> int:
    """Run ``argv`` with ``environ``, its standard streams the terminal's, and return its exit
    status (negative: the signal that ended it). Ctrl-C goes to the command (it shares the
    terminal's process group) and cachelint waits for it to finish: an interactive agent decides
    for itself what Ctrl-C means. When cachelint is stopped (SIGTERM), the command is too."""
    try:
        child = subprocess.Popen(list(argv), env=dict(environ))
    except OSError as exc:
        raise ProxyError(f"cannot start {argv[0]!r}: {exc.strerror or exc}") from None
    previous = signal.getsignal(signal.SIGINT)
    main_thread = _in_main_thread()
    if main_thread:
        # A handler that does nothing (not SIG_IGN, which the command would inherit).
        signal.signal(signal.SIGINT, _ignore)
    try:
        return child.wait()
    finally:
        if main_thread:
            signal.signal(signal.SIGINT, previous)
        if child.poll() is None:
            child.terminate()
            try:
                child.wait(TERMINATE_GRACE)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()


def child_environment(server: ProxyServer, options: ProxyOptions) -> dict[str, str]:
    env = dict(options.environ)
    env.update(server.routes.child_environment(server.base_url))
    if options.fake_model is not None:
        env.update(server.routes.placeholder_keys(env))
    return env


def describe_exit(status: int) -> str:
    if status < 0:
        try:
            name = signal.Signals(-status).name
        except ValueError:
            name = f"signal {-status}"
        return f"was ended by {name}"
    return f"exited with status {status}"


def _ignore(signum: int, frame: object) -> None:
    return None


def _in_main_thread() -> bool:
    import threading

    return threading.current_thread() is threading.main_thread()


def banner(server: ProxyServer, options: ProxyOptions) -> list[str]:
    """What ``cachelint proxy`` prints when it starts: where it listens, what to export, where
    each route goes."""
    mode = "answering with the scripted model" if options.fake_model is not None else "forwarding"
    lines = [f"proxy on {server.base_url}, {mode}, capturing to {options.capture} (Ctrl-C stops)"]
    if not is_loopback(options.host):
        lines.append(
            f"warning: listening on {options.host}: anyone who can reach it can send requests with your keys "
            "through it and read what it records"
        )
    lines.append("point an agent at it:")
    env = server.routes.child_environment(server.base_url)
    lines.extend(f"  export {name}={value}" for name, value in env.items())
    lines.append("routes: " + ", ".join(f"{server.base_url}/{u.name} -> {u.url}" for u in server.routes.upstreams))
    return lines


def stderr_report(message: str) -> None:
    print(f"cachelint: {message}", file=sys.stderr, flush=True)
