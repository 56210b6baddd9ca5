"""Runs the checks over discovered inputs: process pool, result cache, suppressions, selection,
fixes. Checks live in ``cachelint.code`` (per Python file) and ``cachelint.skills`` (per tree);
this module knows only their entry points and the Diagnostic type.

Python files go through two phases so that a check can see what the modules it imports return
(``cachelint.code.summarize_module``): phase 1 gathers each file's identity and imports (a read,
a hash and a regex) and the summaries of the project modules that the files import, directly or
through each other (each summary made with the summaries of the modules it imports, so a chain
of modules is followed); phase 2 checks each file with the summaries of exactly the modules it
imports, and the cache keys the result on their digest, and each summary on the digest of the
summaries it was made with. See docs/benchmarks.md for what each step costs.
"""
from __future__ import annotations

import collections
import functools
import hashlib
import heapq
import json
import os
import queue
import re
import signal
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence, cast

from cachelint.config import Settings
from cachelint.deadline import TimeLimitExceeded, deadline
from cachelint.diagnostics import INTERNAL_ERROR, Diagnostic, internal_error, unreadable
from cachelint.discovery import PYTHON_SUFFIXES, INDEX_SUFFIXES, InputFile, repository_root, root_fallbacks, walk

# cachelint.fileutil (tempfile, shutil, random) is imported where a file is read or written, not
# here: the all-hit path needs none of it.

if TYPE_CHECKING:
    from multiprocessing.pool import Pool

    from cachelint.cache import ResultCache
    from cachelint.config import ConfigResolver


@dataclass(frozen=True)
class StdinInput:
    """A file read from standard input (``cachelint check -``): its bytes and the path it stands
    for (``--stdin-filename``), which gives its kind (by suffix), its configuration and its place
    among the project's modules."""

    data: bytes
    path: Path  # absolute
    display: str  # the name findings carry: the given file name, or "-"


@dataclass
class CheckOptions:
    fix: bool = False
    unsafe_fixes: bool = False
    diff: bool = False
    no_cache: bool = False
    force_exclude: bool = False
    jobs: int | None = None
    stdin: StdinInput | None = None
    baseline: str | None = None  # a JSON file of accepted findings to leave out (cachelint.baseline)


@dataclass
class CheckResult:
    diagnostics: list[Diagnostic]
    files_checked: int = 0
    fixes_applied: int = 0
    diffs: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    # display path -> rule code -> findings whose fixes this run wrote (``--show-fixes``)
    fixed: dict[str, dict[str, int]] = field(default_factory=dict)
    # configuration file (None: defaults) -> files checked with it (``-v``)
    configurations: dict[str | None, int] = field(default_factory=dict)
    # request logs met on the way and left to ``cachelint audit`` (display paths, sorted)
    logs_seen: list[str] = field(default_factory=list)
    baselined: int = 0  # findings hidden by the baseline


def is_python(path: Path) -> bool:
    return path.suffix in PYTHON_SUFFIXES


def is_skill_related(path: Path) -> bool:
    return path.name == "SKILL.md" or path.suffix.lower() in INDEX_SUFFIXES


def _accept(path: Path, explicit: bool) -> bool:
    return is_python(path) or is_skill_related(path)


# --- modules and imports: what a file's cross-module summaries depend on ---------------------
#
# Phase 1 records, per Python file, the project modules it may import; phase 2 gives its check
# the summaries of exactly those modules and keys its cached result on their digest. The import
# scan is a regular expression over the text, not a parse: it runs on every changed file, must
# cost next to nothing, and may over-approximate (an import in a docstring only adds a
# dependency, i.e. an extra re-check); it never under-approximates a plain import statement.
# Linear on any text: the module name after the dots starts with a word character (``\.*`` then
# ``[\w.]*`` split a run of dots every possible way), and an unclosed ``(`` runs to the end of the
# text (trying ``\([^)]*\)`` from every ``from x import (`` was quadratic in a file of them).

_IMPORT = re.compile(
    r"^[ \t]*(?:from[ \t]+(\.*)[ \t]*((?:\w[\w.]*)?)[ \t]+import[ \t]*(\([^)]*(?:\)|\Z)|[^\n#;]*(?:\\\n[^\n#;]*)*)"
    r"|import[ \t]+([^\n#;]*(?:\\\n[^\n#;]*)*))",
    re.MULTILINE,
)
_DOTTED = re.compile(r"[^\W\d][\w]*(?:\.[^\W\d][\w]*)*")


def import_candidates(text: str, module: str, is_package: bool) -> list[str]:
    """Absolute dotted names that ``text`` (the module ``module``) may import: ``import a.b``
    gives ``a.b``; ``from a import b`` gives ``a`` and ``a.b`` (b may be a submodule); relative
    imports are resolved against the module's package. Sorted, without duplicates."""
    package = module if is_package else module.rpartition(".")[0]
    out: set[str] = set()
    for m in _IMPORT.finditer(text):
        dots, base, names, plain = m.groups()
        if plain is not None:
            for part in plain.replace("\\\n", " ").split(","):
                tokens = part.split()
                if tokens and _DOTTED.fullmatch(tokens[0]):
                    out.add(tokens[0])
            continue
        if dots:
            anchor = package.split(".") if package else []
            up = len(dots) - 1
            if up and up >= len(anchor):
                continue  # beyond the top-level package: an error at run time, nothing to follow
            parts = anchor[: len(anchor) - up] + ([base] if base else [])
            base_name = ".".join(parts)
        else:
            base_name = base
        if base_name:
            if not _DOTTED.fullmatch(base_name):
                continue
            out.add(base_name)
        prefix = f"{base_name}." if base_name else ""
        for part in names.strip().strip("()").replace("\\\n", " ").split(","):
            tokens = part.split()
            if tokens and tokens[0] != "*" and tokens[0].isidentifier():
                out.add(prefix + tokens[0])
    return sorted(out)


def notebook_code(text: str) -> str:
    """The code cells of a notebook, joined (for the import scan only)."""
    try:
        cells = json.loads(text).get("cells", [])
        chunks = []
        for cell in cells:
            if isinstance(cell, dict) and cell.get("cell_type") == "code":
                source = cell.get("source", "")
                chunks.append("".join(source) if isinstance(source, list) else str(source))
        return "\n".join(chunks)
    except (ValueError, AttributeError, TypeError, RecursionError):  # a notebook nested too deeply: CL001 from the check
        return ""


class ModuleLocator:
    """Dotted module names of files (by their ``__init__.py`` chain) and files of dotted names
    (among the files of this run, then on disk under the same source roots). Paths are plain
    strings here: this runs for every import of every file on the warm path, where pathlib's
    hashing and joining cost more than the rest of the look-up."""

    def __init__(self) -> None:
        self._package_dir: dict[str, bool] = {}
        self._by_name: dict[str, str] = {}
        self._roots: set[str] = set()
        self._sorted_roots: list[str] | None = None
        self._nearby_roots: list[str] | None = None
        self._listings: dict[str, frozenset[str]] = {}
        self._resolved: dict[str, str | None] = {}
        self._imports: dict[str, tuple[Sequence[str], list[tuple[str, str]]]] = {}

    def is_package_dir(self, directory: str) -> bool:
        known = self._package_dir.get(directory)
        if known is None:
            known = os.path.isfile(os.path.join(directory, "__init__.py")) or os.path.isfile(
                os.path.join(directory, "__init__.pyi")
            )
            self._package_dir[directory] = known
        return known

    def module_of(self, path: str) -> tuple[str, bool]:
        """(dotted name, is a package ``__init__``) of a source file; records its source root."""
        directory, file_name = os.path.split(path)
        stem = file_name.rpartition(".")[0] or file_name
        is_package = stem == "__init__"
        parts = [] if is_package else [stem]
        while self.is_package_dir(directory):
            parent, name = os.path.split(directory)
            if parent == directory:
                break
            parts.append(name)
            directory = parent
        if directory not in self._roots:
            self._roots.add(directory)
            self._sorted_roots = None
            self._nearby_roots = None
        return ".".join(reversed(parts)), is_package

    def add(self, name: str, path: str) -> None:
        # Two files with one name (two script folders each with a utils.py): the first in sorted
        # path order wins, so the choice does not depend on the file system.
        current = self._by_name.get(name)
        if current is None or path < current:
            self._by_name[name] = path
        self._resolved.clear()
        self._imports.clear()

    def resolve(self, name: str) -> str | None:
        try:
            return self._resolved[name]
        except KeyError:
            pass
        found = self._by_name.get(name)
        if found is None:
            parent = name.rpartition(".")[0]
            owner = self._by_name.get(parent) if parent else None
            if owner is None or os.path.basename(owner).startswith("__init__."):
                found = self._probe(name)
            # else: ``from pkg.module import Name``: an attribute of a plain module, not a module
        self._resolved[name] = found
        return found

    def resolve_imports(self, path: str, imports: Sequence[str]) -> list[tuple[str, str]]:
        """(name, file) of each of ``imports`` (the import scan of ``path``) that is a file of the
        project, the file itself left out. Memoised per file and list: a run asks up to four times
        per file (the import graph, the check's and the summary's waits, the digest), which was
        ~10 ms of the warm path on the SDK corpus (98K look-ups)."""
        known = self._imports.get(path)
        if known is not None and known[0] is imports:
            return known[1]
        out = []
        for name in imports:
            found = self.resolve(name)
            if found is not None and found != path:
                out.append((name, found))
        self._imports[path] = (imports, out)
        return out

    def _listing(self, directory: str) -> frozenset[str]:
        entries = self._listings.get(directory)
        if entries is None:
            try:
                entries = frozenset(os.listdir(directory))
            except OSError:
                entries = frozenset()
            self._listings[directory] = entries
        return entries

    def _probe(self, name: str) -> str | None:
        """A module of the project that this run did not list (pre-commit passes only the changed
        files): look under the source roots through memoised directory listings, so that the
        thousands of names a project imports (``os``, ``pydantic.BaseModel``) cost set look-ups,
        not stats."""
        if self._sorted_roots is None:
            self._sorted_roots = sorted(self._roots)
        found = self._probe_in(name, self._sorted_roots)
        if found is None:
            if self._nearby_roots is None:
                self._nearby_roots = self._roots_nearby()
            found = self._probe_in(name, self._nearby_roots)
        return found

    def _roots_nearby(self) -> list[str]:
        """Source roots of the projects beside the run's (a monorepo's ``libs/*``, ``src``
        layouts, the folder above a scripts folder): a run of one file (pre-commit) resolves its
        imports to the same files as a run of the whole repository, whose files these are."""
        known = set(self._roots)
        out: set[str] = set()
        # never outside the folder the run is made from (the repository), nor through symlinks
        top = os.path.abspath(os.getcwd())

        def inside(path: str) -> bool:
            path = os.path.abspath(path)
            return path == top or path.startswith(top.rstrip(os.sep) + os.sep)

        for root in self._roots:
            parent = os.path.dirname(root)
            bases = [parent]
            if os.path.basename(root) == "src":
                bases.append(os.path.dirname(parent))
            for base in bases:
                if base == root or not base or not inside(base):
                    continue
                out.add(base)
                for entry in sorted(self._listing(base)):
                    if entry.startswith("."):
                        continue
                    child = os.path.join(base, entry)
                    if os.path.islink(child):
                        continue
                    inner = self._listing(child)  # empty for a file
                    if inner:
                        out.add(child)
                        if "src" in inner:
                            out.add(os.path.join(child, "src"))
        return sorted(out - known)

    def _probe_in(self, name: str, roots: list[str]) -> str | None:
        parts = name.split(".")
        for root in roots:
            directory = root
            for part in parts[:-1]:
                if part not in self._listing(directory):
                    break
                directory = os.path.join(directory, part)
            else:
                last = parts[-1]
                entries = self._listing(directory)
                for file_name in (f"{last}.py", f"{last}.pyi"):
                    if file_name in entries:
                        return os.path.join(directory, file_name)
                if last in entries:
                    inner = self._listing(os.path.join(directory, last))
                    for file_name in ("__init__.py", "__init__.pyi"):
                        if file_name in inner:
                            return os.path.join(directory, last, file_name)
        return None


def summary_digest(summary: dict | None) -> str | None:
    if summary is None:
        return None
    return hashlib.sha256(json.dumps(summary, sort_keys=True, default=str).encode()).hexdigest()[:32]


def informative(summary: dict | None) -> bool:
    """A summary whose every table is empty ({"functions": {}, "names": {}}) tells the check
    nothing: leaving it out changes no result and keeps the importer's cache key stable."""
    return bool(summary) and any(bool(v) for v in cast(dict, summary).values())


def dependency_digest(
    imports: Sequence[str], own_path: str, locator: ModuleLocator, facts: dict[str, dict], exclude: frozenset[str] = frozenset()
) -> tuple[list[tuple[str, str]], str]:
    """The imported project modules that have something to say ((dotted name, path) pairs) and
    the digest that keys a result (or a summary) on their summaries ("" when there are none: it
    depends on the file alone). Modules in ``exclude`` (the other members of an import cycle, for
    a summary) are left out. Digests only: the all-hit path never loads a summary."""
    deps: list[tuple[str, str]] = []
    digests: list[str] = []
    for name, path in locator.resolve_imports(own_path, imports):
        if path in exclude:
            continue
        entry = facts.get(path)
        digest = entry.get("summary_digest") if entry else None
        if not digest:
            continue
        deps.append((name, path))
        digests.append(f"{name}={digest}")
    if not digests:
        return deps, ""
    return deps, hashlib.sha256("\n".join(digests).encode()).hexdigest()[:32]


# --- per-file work (runs in worker processes) ------------------------------------------------




def _summarizer() -> Callable[..., dict] | None:  # (display, text[, settings][, project_summaries=])
    """``cachelint.code.summarize_module`` where the code checks provide it."""
    import cachelint.code as code

    return getattr(code, "summarize_module", None)


@functools.lru_cache(maxsize=None)
def _takes_summaries(check: Callable) -> bool:
    import inspect

    try:
        return "project_summaries" in inspect.signature(check).parameters
    except (TypeError, ValueError):
        return False


@functools.lru_cache(maxsize=None)
def _takes_settings(summarize: Callable) -> bool:
    import inspect

    try:
        return "settings" in inspect.signature(summarize).parameters
    except (TypeError, ValueError):
        return False


def run_check_module(check: Callable, display: str, text: str, settings: Settings, project_summaries: dict[str, dict] | None) -> list[Diagnostic]:
    if project_summaries and _takes_summaries(check):
        return check(display, text, settings, project_summaries=project_summaries)
    return check(display, text, settings)


@dataclass(frozen=True)
class FactsTask:
    path: str
    display: str
    module: str
    is_package: bool
    settings: Settings
    summarize: bool
    # the summaries of the project modules it imports (by dotted name), made before this one
    project_summaries: dict[str, dict] | None = None


def collect_facts(task: FactsTask) -> dict | None:
    """Phase 1 for one file: identity and imports, and with ``task.summarize`` its summary. None
    when the file cannot be read (phase 2 reports it as CL001). Never raises."""
    from cachelint.textio import decode, read_bytes

    from cachelint.textio import identity

    p = Path(task.path)
    stamp = identity(p)
    if stamp is None:
        return None
    data = read_bytes(p, task.display, task.settings.max_file_size)
    if isinstance(data, Diagnostic):
        return None
    from cachelint import fileutil

    facts: dict[str, Any] = {"sha256": fileutil.sha256(data), "mtime_ns": stamp[0], "size": stamp[1], "module": task.module}
    source = decode(data, task.display)
    if isinstance(source, Diagnostic):
        return {**facts, "imports": [], "summary": None, "summary_digest": None}  # nothing to import
    text = notebook_code(source.text) if task.path.endswith(".ipynb") else source.text
    facts["imports"] = import_candidates(text, task.module, task.is_package)
    if not task.summarize:
        return facts
    from cachelint.code.program import too_many_nodes

    if too_many_nodes(task.display, source.text, task.settings.max_syntax_nodes) is not None:
        return {**facts, "summary": None, "summary_digest": None}  # its check says why
    summary = None
    if not task.path.endswith(".ipynb"):  # a notebook is not importable: nothing to summarise
        summarize = _summarizer()
        try:
            with deadline(task.settings.analysis_timeout):
                if summarize is None:
                    result = None
                elif task.project_summaries and _takes_summaries(summarize):
                    result = summarize(task.display, source.text, task.settings, project_summaries=task.project_summaries)
                elif _takes_settings(summarize):
                    result = summarize(task.display, source.text, task.settings)
                else:
                    result = summarize(task.display, source.text)
            json.dumps(result, sort_keys=True)  # must be JSON-serialisable to be cached
            summary = result if isinstance(result, dict) else None
        except TimeLimitExceeded:
            # Not "nothing to say": a slow machine must not pin that answer in the cache. The
            # summary stays unknown and is tried again next run.
            return facts
        except Exception:  # a summary is an optimisation of precision: without one, go on
            summary = None
    # Only a summary that says something is kept: the importers' keys and the cache stay small.
    facts["summary"] = summary if informative(summary) else None
    facts["summary_digest"] = summary_digest(facts["summary"])
    return facts


def analyze_python_file(
    path: str, display: str, settings: Settings, project_summaries: dict[str, dict] | None = None
) -> tuple[list[dict], str | None, int, int]:
    """Analyse one Python file; returns (diagnostic dicts, sha256, mtime_ns, size).

    Never raises: an unreadable file, a syntax error, a crash in a check or a timeout become CL001.
    """
    from cachelint.textio import decode, identity, read_bytes

    p = Path(path)
    mtime, size = identity(p) or (0, 0)
    data = read_bytes(p, display, settings.max_file_size)
    if isinstance(data, Diagnostic):
        return [data.to_dict()], None, mtime, size
    from cachelint import fileutil

    digest: str | None = fileutil.sha256(data)
    source = decode(data, display)
    if isinstance(source, Diagnostic):
        return [source.to_dict()], digest, mtime, size
    # Imported before the deadline starts: loading the checks and their packs is start-up, not
    # the analysis of this file (with a tiny analysis-timeout the first file would time out).
    from cachelint.code import check_module
    from cachelint.code.program import too_many_nodes

    oversized = too_many_nodes(display, source.text, settings.max_syntax_nodes)
    if oversized is not None:
        return [oversized.to_dict()], digest, mtime, size

    try:
        with deadline(settings.analysis_timeout):
            diagnostics = run_check_module(check_module, display, source.text, settings, project_summaries)
    except TimeLimitExceeded:
        diagnostics = [
            unreadable(display, f"analysis took longer than {settings.analysis_timeout:g} s and was stopped (analysis-timeout)")
        ]
        digest = None  # a timeout depends on the machine's load: reported, never cached
    except RecursionError:
        diagnostics = [unreadable(display, "too deeply nested to analyse")]
    except Exception as exc:  # a bug in a check must not kill the run
        diagnostics = [internal_error(display, "while analysing this file", exc)]
        digest = None  # a fixed cachelint must look again
    from cachelint.catalog import rule_index
    from cachelint.suppressions import apply_suppressions

    diagnostics = apply_suppressions(diagnostics, source.text, display, rule_index())
    return [d.to_dict() for d in diagnostics], digest, mtime, size


@dataclass(frozen=True)
class CheckTask:
    path: str
    display: str
    settings: Settings
    project_summaries: dict[str, dict] | None


def _check_task(task: CheckTask) -> tuple[list[dict], str | None, int, int]:
    return analyze_python_file(task.path, task.display, task.settings, task.project_summaries)


def _run_task(task: "FactsTask | CheckTask") -> Any:
    """One task of either phase: a round of the pool may carry both."""
    return collect_facts(task) if isinstance(task, FactsTask) else _check_task(task)


def _run_batch(tasks: Sequence["FactsTask | CheckTask"]) -> list[Any]:
    return [_run_task(task) for task in tasks]


# --- the worker pool -------------------------------------------------------------------------

# A pool pays for itself only when the work outweighs starting it. Measured here (2 cores,
# Python 3.11; docs/benchmarks.md): forking 2 workers, shipping 4 tiny tasks and joining costs
# ~10 ms of wall time; the code checks cost ~0.3 us of CPU per source byte on the SDK corpus on
# average (~1 us/byte on its largest modules). Two workers halve the work, so the pool wins from
# ~20 ms of work, ~70 KB of source; 100 KB leaves a margin (a typical 5-file commit, ~30 KB,
# stays in-process). Bytes predict the work better than a file count: one 4,000-line module
# outweighs fifty __init__.py files.
POOL_MIN_BYTES = 100_000


def _worker_signals() -> None:
    """Pool workers take SIGTERM's default action: the pool stops them with it (``abort``), and
    a forked worker would otherwise inherit the command line's handler, which turns the signal
    into an exception meant for the main process."""
    if hasattr(signal, "SIGTERM"):
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def start_method() -> str:
    """fork: workers inherit the imported checks and loaded knowledge (no re-import, pages shared
    copy-on-write). Not from a process with other threads running (the API called inside a threaded
    host: a lock another thread holds stays locked in the child forever; Python 3.12+ warns):
    forkserver then, and spawn where fork is unavailable or unsafe (macOS, Windows)."""
    if not sys.platform.startswith("linux"):
        return "spawn"
    return "fork" if _threads() == 1 else "forkserver"


def _threads() -> int:
    """Threads of this process as the system counts them: also those started below ``threading``
    (``_thread.start_new_thread``, C libraries), which ``threading.active_count()`` misses."""
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return threading.active_count()


class Workers:
    """Runs per-file work in this process or in a pool of workers (started at most once per run,
    see ``start_method``), task by task as tasks become ready (``submit``, ``next_result``)."""

    def __init__(self, jobs: int | None) -> None:
        self.jobs = jobs or os.cpu_count() or 1
        self._pool: Pool | None = None
        self._pooled = False  # submit() sends tasks to the pool
        self._in_flight = 0
        self._finished: "collections.deque[tuple[Any, Any]]" = collections.deque()
        self._arrived: "queue.SimpleQueue[tuple[Any, Any, BaseException | None]]" = queue.SimpleQueue()

    # Tasks one at a time, for work whose tasks become known as earlier ones finish (a summary
    # waits for the summaries of the modules it imports): ``use_pool`` once, then ``submit`` and
    # ``next_result``. In this process, ``submit`` runs the task at once.

    def use_pool(self, prepare: Callable[[], None] | None = None) -> None:
        if self.jobs <= 1:
            return
        if self._pool is None and prepare is not None:
            prepare()
        self._start()
        self._pooled = True

    @property
    def in_flight(self) -> int:
        return self._in_flight

    @property
    def window(self) -> int:
        """Batches to keep sent to the pool: enough that no worker waits for the next one, few
        enough that a task that becomes ready (a summary others wait for) goes out soon."""
        return 2 * self.jobs + 2 if self._pooled else 1

    def batch_size(self, ready: int) -> int:
        """Tasks per message to the pool: up to 8 while many are ready, one at a time near the
        end so that the workers finish together. One message per task cost the parent process
        ~0.3 s more CPU on a cold run of the SDK corpus (1,187 tasks: 0.75-0.85 s against
        0.5 s with batches of 8, which is what the two rounds of ``map`` cost before)."""
        if not self._pooled:
            return 1
        return max(1, min(8, ready // (self.jobs * 4)))

    def submit(self, func: Callable, key: Any, task: Any) -> None:
        self._in_flight += 1
        if not self._pooled:
            self._finished.append((key, func(task)))
            return
        arrived = self._arrived
        self._start().apply_async(
            func, (task,), callback=lambda value: arrived.put((key, value, None)), error_callback=lambda exc: arrived.put((key, None, exc))
        )

    def next_result(self) -> tuple[Any, Any]:
        """(key, result) of a finished task; waits for one when none has finished yet."""
        if self._finished:
            self._in_flight -= 1
            return self._finished.popleft()
        while True:
            try:  # with a timeout: a plain wait would not let Ctrl-C through on every platform
                key, value, exc = self._arrived.get(timeout=0.5)
                break
            except queue.Empty:
                continue
        self._in_flight -= 1
        if exc is not None:
            raise exc
        return key, value

    def _start(self):
        if self._pool is None:
            import multiprocessing

            self._pool = multiprocessing.get_context(start_method()).Pool(self.jobs, initializer=_worker_signals)
        return self._pool

    def close(self) -> None:
        if self._pool is not None:
            self._pool.close()
            self._pool.join()
            self._pool = None

    def abort(self) -> None:
        """Stop the workers now (Ctrl-C, an error): joining busy workers could wait forever."""
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None


def _prepare_checks(settings: Settings) -> Callable[[], None]:
    """Runs in this process before the pool forks: import the checks and let them load their
    knowledge (packs: YAML, schemas) on an empty module, so that the forked workers inherit both
    instead of each paying for them (~0.3 s a worker here)."""

    def prepare() -> None:
        from cachelint.code import check_module

        try:
            with deadline(settings.analysis_timeout):
                check_module("__cachelint_prepare__.py", "", settings)
        except Exception:
            pass  # any real problem shows again, per file, as CL001

    return prepare


def _file_size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0


# --- the Python part of a run: two phases over the cache -------------------------------------


@dataclass
class PythonRun:
    """What ``check_python`` found: per file diagnostics, and for the fixer (which re-checks
    edited files) the modules each file depends on and where their summaries are."""

    per_file: dict[str, list[Diagnostic]]
    deps_of: dict[str, list[tuple[str, str]]]
    summaries: "SummaryStore"
    deps_digest: dict[str, str] = field(default_factory=dict)
    # display -> SHA-256 of the bytes the file's diagnostics were computed from (their fixes'
    # edits are valid for those bytes only)
    digests: dict[str, str | None] = field(default_factory=dict)
    facts: dict[str, dict] = field(default_factory=dict)
    locator: "ModuleLocator | None" = None

    def summaries_of(self, display: str) -> dict[str, dict]:
        return self.summaries.for_deps(self.deps_of.get(display, ()))

    def fact_digest(self, path: str) -> str | None:
        """SHA-256 of the bytes the summary of the module at ``path`` was made from."""
        entry = self.facts.get(path)
        return entry.get("sha256") if entry else None

    def locate_module(self, module: str) -> str | None:
        """The file of a dotted module name of the project."""
        return self.locator.resolve(module) if self.locator is not None else None


def check_python(
    files: Sequence[InputFile], settings: Settings, cache: "ResultCache | None", jobs: int | None
) -> PythonRun:
    """Both phases as one flow of tasks: a summary is made once the summaries of the modules it
    imports are known (or found in the cache, when its text and theirs are unchanged); a check
    runs once the summaries of the modules it imports are known (or is answered from the cache).
    Summaries go to the workers before checks, the largest first."""
    locator = ModuleLocator()
    modules: dict[str, tuple[str, bool]] = {}
    for f in files:
        key = str(f.path)
        modules[key] = locator.module_of(key)
        locator.add(modules[key][0], key)
    workers = Workers(jobs)
    try:
        facts, needed = _phase_one(files, modules, locator, settings, cache)
        run = PythonRun(per_file={}, deps_of={}, summaries=SummaryStore(facts, cache, settings), facts=facts, locator=locator)
        graph = ImportGraph(needed, facts, locator)
        _run_tasks(files, modules, locator, facts, needed, graph, settings, cache, run, workers)
    except BaseException:
        workers.abort()
        raise
    workers.close()
    return run


class ImportGraph:
    """The project modules that need a summary (the import closure of the run's files, within the
    project) and which of them each one imports. An import cycle is summarised without the
    summaries of its own members: ``cycle_of`` holds each module's strongly connected component,
    ``before[m]`` the modules whose summaries ``m``'s summary waits for (those it imports, outside
    its cycle). Members of a cycle depend on the same modules whichever file of it a run starts
    from, so the summaries are the same in a full run and in a pre-commit run of a few files."""

    def __init__(self, needed: dict[str, tuple[str, str, bool]], facts: dict[str, dict], locator: ModuleLocator) -> None:
        self.nodes = sorted(p for p in needed if p in facts)
        present = set(self.nodes)
        self.imports: dict[str, list[str]] = {}
        for p in self.nodes:
            found = {d for _, d in locator.resolve_imports(p, facts[p].get("imports", ()))}
            self.imports[p] = sorted(d for d in found if d in present)
        self.order: list[list[str]] = self._components()  # each cycle after the modules it imports
        self.cycle_of: dict[str, frozenset[str]] = {}
        for component in self.order:
            members = frozenset(component)
            for p in component:
                self.cycle_of[p] = members
        self.before = {p: [d for d in self.imports[p] if d not in self.cycle_of[p]] for p in self.nodes}

    def _components(self) -> list[list[str]]:
        """Tarjan's strongly connected components, iteratively (an import chain can be deeper than
        the recursion limit); each component comes after every component it imports."""
        index: dict[str, int] = {}
        low: dict[str, int] = {}
        stack: list[str] = []
        on_stack: set[str] = set()
        out: list[list[str]] = []
        for root in self.nodes:
            if root in index:
                continue
            work = [(root, 0)]
            while work:
                v, i = work.pop()
                if i == 0:
                    index[v] = low[v] = len(index)
                    stack.append(v)
                    on_stack.add(v)
                targets = self.imports[v]
                descended = False
                while i < len(targets):
                    w = targets[i]
                    i += 1
                    if w not in index:
                        work.append((v, i))
                        work.append((w, 0))
                        descended = True
                        break
                    if w in on_stack:
                        low[v] = min(low[v], index[w])
                if descended:
                    continue
                if low[v] == index[v]:
                    component = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        component.append(w)
                        if w == v:
                            break
                    out.append(sorted(component))
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[v])
        return out


def _run_tasks(
    files: Sequence[InputFile],
    modules: dict[str, tuple[str, bool]],
    locator: ModuleLocator,
    facts: dict[str, dict],
    needed: dict[str, tuple[str, str, bool]],
    graph: ImportGraph,
    settings: Settings,
    cache: "ResultCache | None",
    run: PythonRun,
    workers: Workers,
) -> None:
    """The flow: nodes ("summary", path) and ("check", index of the file); each waits for the
    summaries of the modules it imports. A node whose inputs are known is answered from the cache
    when it can be, else becomes a task. Results do not depend on the order tasks finish in: each
    task is a function of its file and the summaries it is given."""
    check_deps: list[list[str]] = []
    for f in files:
        key = str(f.path)
        found = {d for _, d in locator.resolve_imports(key, facts.get(key, {}).get("imports", ()))}
        check_deps.append(sorted(d for d in found if d in graph.cycle_of))
    # The summaries the checks read, and those these are made with: a module of the closure
    # imported only from inside its own cycle has no reader (a pre-commit run of a file in a
    # cycle of 155 modules would otherwise summarise it for nobody).
    wanted: set[str] = set()
    stack = [d for deps in check_deps for d in deps]
    while stack:
        p = stack.pop()
        if p not in wanted:
            wanted.add(p)
            stack.extend(graph.before[p])

    waiting_on: dict[tuple[str, Any], int] = {}
    dependents: dict[str, list[tuple[str, Any]]] = collections.defaultdict(list)
    for p in graph.nodes:
        if p not in wanted:
            continue
        node = ("summary", p)
        waiting_on[node] = len(graph.before[p])
        for d in graph.before[p]:
            dependents[d].append(node)
    for i, deps in enumerate(check_deps):
        waiting_on[("check", i)] = len(deps)
        for d in deps:
            dependents[d].append(("check", i))

    # In this process or in the pool: decided once, from what may have to run (a summary whose
    # text or whose imports' summaries may have changed; a check without a stored result, or
    # whose imports' summaries may have changed), so the warm path never starts a pool.
    maybe_new: set[str] = set()
    for component in graph.order:
        for p in component:
            if p in wanted and ("summary_digest" not in facts[p] or any(d in maybe_new for d in graph.before[p])):
                maybe_new.add(p)
    weight = sum(facts[p].get("size", 0) for p in maybe_new)
    for i, f in enumerate(files):
        entry = facts.get(str(f.path))
        stored = cache.valid_entry(str(f.path)) if cache is not None else None
        if entry is None or stored is None or "diagnostics" not in stored or any(d in maybe_new for d in check_deps[i]):
            weight += entry.get("size", 0) if entry else 0
    if weight >= POOL_MIN_BYTES:
        workers.use_pool(_prepare_checks(settings))

    ready: list[tuple[int, int, int, tuple[str, Any]]] = []  # (checks after summaries, -bytes, order, node)
    order = 0

    def push(node: tuple[str, Any]) -> None:
        nonlocal order
        kind, ref = node
        size = facts.get(ref if kind == "summary" else str(files[ref].path), {}).get("size", 0)
        heapq.heappush(ready, (0 if kind == "summary" else 1, -size, order, node))
        order += 1

    def resolved(node: tuple[str, Any]) -> None:
        kind, ref = node
        if kind != "summary":
            return
        for other in dependents.get(ref, ()):
            waiting_on[other] -= 1
            if waiting_on[other] == 0:
                push(other)

    def start(node: tuple[str, Any]) -> "FactsTask | CheckTask | None":
        """Answer ``node`` from what is known, or give the task that computes it."""
        kind, ref = node
        if kind == "check":
            f = files[ref]
            if _answer_from_cache(f, modules, locator, facts, cache, run):
                resolved(node)
                return None
            return _check_task_for(f, run, settings)
        p = ref
        deps, digest = dependency_digest(facts[p].get("imports", ()), p, locator, facts, exclude=graph.cycle_of[p])
        run.summaries.deps_of_summary[p] = deps
        entry = facts[p]
        if "summary_digest" in entry and entry.get("summary_deps", "") == digest:
            resolved(node)  # the cached summary was made from this text and these summaries
            return None
        if _summarizer() is None:  # nothing to compute (imported only here: the warm path never is)
            _record_facts(p, {**entry, "summary": None, "summary_digest": None, "summary_deps": digest}, facts, cache)
            resolved(node)
            return None
        display, module, is_package = needed[p]
        pending_digest[p] = digest
        summaries = run.summaries.for_deps(deps) or None
        return FactsTask(p, display, module, is_package, settings, summarize=True, project_summaries=summaries)

    pending_digest: dict[str, str] = {}
    for node in sorted(waiting_on, key=lambda n: (n[0] != "summary", str(n[1]) if n[0] == "summary" else n[1])):
        if waiting_on[node] == 0:
            push(node)
    while ready or workers.in_flight:
        while ready and workers.in_flight < workers.window:
            size = workers.batch_size(len(ready))
            first = ready[0][0]  # summaries and checks go in separate batches
            batch: list[tuple[tuple[str, Any], Any]] = []
            while ready and len(batch) < size and ready[0][0] == first:
                node = heapq.heappop(ready)[3]
                task = start(node)
                if task is not None:
                    batch.append((node, task))
            if batch:
                workers.submit(_run_batch, tuple(node for node, _ in batch), [task for _, task in batch])
        if not workers.in_flight:
            continue
        nodes, results = workers.next_result()
        for node, result in zip(nodes, results):
            kind, ref = node
            if kind == "summary":
                if result is not None:
                    result["summary_deps"] = pending_digest[ref]
                _record_facts(ref, result, facts, cache)
            else:
                _record_checks([files[ref]], [result], modules, cache, run)
            resolved(node)


_FACT_KEYS = ("sha256", "mtime_ns", "size", "module", "imports", "summary", "summary_digest", "summary_deps")


def _phase_one(
    files: Sequence[InputFile],
    modules: dict[str, tuple[str, bool]],
    locator: ModuleLocator,
    settings: Settings,
    cache: "ResultCache | None",
) -> tuple[dict[str, dict], dict[str, tuple[str, str, bool]]]:
    """Facts of every file of the run (identity, imports; from the cache where the file is
    unchanged) and the project modules whose summaries the run needs, with (display, dotted name,
    is a package): those a file of the run imports, and those they import, and so on (a summary
    is made with the summaries of the modules its module imports). Summaries are made only where
    an importer needs them: a pre-commit run of 5 files summarises none of them unless one
    imports another (directly or through other modules), and a full run skips scripts and tests
    nobody imports."""
    facts: dict[str, dict] = {}

    def cached(path: str, module: str) -> dict | None:
        entry = cache.valid_entry(path) if cache is not None else None
        if entry is None or entry.get("module") != module or "imports" not in entry:
            return None
        return entry

    def identify(items: list[tuple[str, str, str, bool]]) -> None:
        # A read, a hash and a regex: cheaper here than shipping the file to a worker.
        for p, display, module, is_package in items:
            _record_facts(p, collect_facts(FactsTask(p, display, module, is_package, settings, summarize=False)), facts, cache)

    stale = []
    for f in files:
        key = str(f.path)
        module, is_package = modules[key]
        entry = cached(key, module)
        if entry is None:
            stale.append((key, f.display, module, is_package))
        else:
            facts[key] = entry
    identify(stale)

    # The project modules the run imports, including modules the run did not list (pre-commit
    # names only the changed files), and the modules those import: their summaries count too.
    displays = {str(f.path): f.display for f in files}
    needed: dict[str, tuple[str, str, bool]] = {}
    names = sorted({name for path in facts for name in facts[path].get("imports", ())})
    while names:
        found = []
        for name in names:
            dep = locator.resolve(name)
            if dep is None or dep in needed:
                continue
            if dep in modules:
                needed[dep] = (displays[dep], *modules[dep])
            else:
                needed[dep] = (dep, *locator.module_of(dep))
            found.append(dep)
        stale = []
        for dep in sorted(found):
            display, module, is_package = needed[dep]
            if dep not in facts:
                entry = cached(dep, module)
                if entry is None:
                    stale.append((dep, display, module, is_package))
                else:
                    facts[dep] = entry
        identify(stale)
        names = sorted({name for dep in found if dep in facts for name in facts[dep].get("imports", ())})
    return facts, needed


def _record_facts(path: str, result: dict | None, facts: dict[str, dict], cache: "ResultCache | None") -> None:
    if result is None:  # unreadable: no facts, no summary; its check reports CL001
        facts.pop(path, None)
        return
    facts[path] = result
    if cache is not None:
        cache.store_facts(path, **cast("dict[str, Any]", {k: result.get(k) for k in _FACT_KEYS}), summarized="summary_digest" in result)


def _answer_from_cache(
    f: InputFile,
    modules: dict[str, tuple[str, bool]],
    locator: ModuleLocator,
    facts: dict[str, dict],
    cache: "ResultCache | None",
    run: PythonRun,
) -> bool:
    """Work out the file's dependencies (for its check, and for its cache key) and answer from
    the cache when a result for this content and these summaries is there."""
    key = str(f.path)
    deps, digest = dependency_digest(facts.get(key, {}).get("imports", ()), key, locator, facts)
    run.deps_of[f.display] = deps
    run.deps_digest[f.display] = digest
    hit = cache.result(key, f.display, modules[key][0], digest) if cache is not None else None
    if hit is None:
        return False
    try:
        run.per_file[f.display] = [Diagnostic.from_dict(d) for d in hit]
        run.digests[f.display] = facts.get(key, {}).get("sha256")  # the cached result's content
        return True
    except (KeyError, TypeError, ValueError):
        return False  # a damaged entry is a miss


def _check_task_for(f: InputFile, run: PythonRun, settings: Settings) -> "CheckTask":
    return CheckTask(str(f.path), f.display, settings, run.summaries.for_deps(run.deps_of[f.display]) or None)


def _record_checks(
    files: Sequence[InputFile], results: Sequence[Any], modules: dict[str, tuple[str, bool]], cache: "ResultCache | None", run: PythonRun
) -> None:
    for f, (diags, sha, mtime, size) in zip(files, results):
        run.per_file[f.display] = [Diagnostic.from_dict(d) for d in diags]
        run.digests[f.display] = sha
        if cache is not None and sha is not None:
            key = str(f.path)
            cache.store_result(
                key,
                sha256=sha,
                mtime_ns=mtime,
                size=size,
                display=f.display,
                module=modules[key][0],
                deps=run.deps_digest[f.display],
                diagnostics=diags,
            )


class SummaryStore:
    """The summaries a check needs: made in this run (phase 1), else read from the cache's side
    file, else made again here (the side file lost them)."""

    def __init__(self, facts: dict[str, dict], cache: "ResultCache | None", settings: Settings) -> None:
        self.facts = facts
        self.cache = cache
        self.settings = settings
        self._loaded: dict[str, dict | None] = {}
        # module path -> the (dotted name, path) of the modules whose summaries its summary used
        self.deps_of_summary: dict[str, list[tuple[str, str]]] = {}

    def get(self, path: str) -> dict | None:
        entry = self.facts.get(path) or {}
        if "summary" in entry:
            return entry["summary"]
        if path in self._loaded:
            return self._loaded[path]
        digest = entry.get("summary_digest")
        found = self.cache.summary(path, digest) if (self.cache is not None and digest) else None
        if found is None and digest:
            module = entry.get("module", "")
            is_package = os.path.basename(path).startswith("__init__.")
            summaries = self.for_deps(self.deps_of_summary.get(path, ())) or None
            made = collect_facts(FactsTask(path, path, module, is_package, self.settings, summarize=True, project_summaries=summaries))
            found = made.get("summary") if made else None
            if made is not None and self.cache is not None:
                made["summary_deps"] = entry.get("summary_deps", "")
                self.cache.store_facts(path, **cast("dict[str, Any]", {k: made.get(k) for k in _FACT_KEYS}), summarized=True)
        self._loaded[path] = found
        return found

    def for_deps(self, deps: Sequence[tuple[str, str]]) -> dict[str, dict]:
        out = {}
        for name, path in deps:
            summary = self.get(path)
            if summary:
                out[name] = summary
        return out


# --- the run ---------------------------------------------------------------------------------


def run_check(
    paths: Sequence[str],
    settings: Settings,
    options: CheckOptions,
    cwd: Path,
    progress: Callable[[str], None] | None = None,
    resolver: "ConfigResolver | None" = None,
) -> CheckResult:
    """Check ``paths``. With a ``resolver``, each file is checked with the settings of the
    configuration closest to it (``settings`` is then the working directory's, which discovery
    starts from); without one, every file with ``settings``."""
    from cachelint.payloads import is_request_log_name

    accepted = None
    if options.baseline:
        from cachelint.baseline import load_baseline

        accepted = load_baseline(Path(options.baseline))  # before any work: a bad file is exit 2 at once
    left_out: list[tuple[Path, bool]] = []  # files discovery met and no part checks

    def accept(path: Path, explicit: bool) -> bool:
        if _accept(path, explicit):
            return True
        if explicit or is_request_log_name(path.name):
            left_out.append((path, explicit))
        return False

    if options.stdin is not None:
        from cachelint.textio import provide

        provide(options.stdin.path, options.stdin.data)
        files = [InputFile(options.stdin.path, options.stdin.display, explicit=True)]
        problems: list[tuple[str, str]] = []
    else:
        discovery = walk(
            paths,
            cwd=cwd,
            root=settings.project_root,
            exclude=tuple(settings.exclude) + tuple(settings.extend_exclude),
            respect_gitignore=settings.respect_gitignore,
            force_exclude=options.force_exclude,
            accept=accept,
        )
        files, problems = discovery.files, discovery.problems
    try:
        result = _run_check(files, problems, left_out, paths, settings, options, cwd, resolver)
        if accepted is not None:
            result.diagnostics, hidden = accepted.split(result.diagnostics)
            result.baselined = len(hidden)
        return result
    finally:
        if options.stdin is not None:
            from cachelint.textio import provide

            provide(options.stdin.path, None)


def _run_check(
    files: Sequence[InputFile],
    problems: Sequence[tuple[str, str]],
    left_out: Sequence[tuple[Path, bool]],
    paths: Sequence[str],
    settings: Settings,
    options: CheckOptions,
    cwd: Path,
    resolver: "ConfigResolver | None",
) -> CheckResult:
    diagnostics: list[Diagnostic] = [unreadable(shown, msg) for shown, msg in problems]
    result = CheckResult(diagnostics=diagnostics)
    groups = _group_by_settings(files, settings, resolver)
    result.files_checked = sum(len(group) for _, group in groups)
    result.warnings.extend(_left_out_warnings(left_out, files, problems, cwd, result))
    stdin = options.stdin is not None
    from cachelint.catalog import use_index_folder

    for group_settings, group in groups:
        result.configurations[str(group_settings.config_path) if group_settings.config_path else None] = len(group)
        python_files = [f for f in group if is_python(f.path)]
        other_files = [f for f in group if not is_python(f.path)]
        cache = None
        use_index_folder(None)  # --no-cache writes nothing, not even the compact rule index
        # a file read from stdin is not the file on disk: no result of it is read or kept
        if not options.no_cache and not stdin:
            from cachelint.cache import ResultCache

            cache = ResultCache.open(group_settings, cwd)
            use_index_folder(cache.folder)
            from cachelint.catalog import rule_index

            rule_index()  # read (or rebuilt) here, before any worker can rebuild it unseen
        # the provided bytes of stdin live in this process only: no worker may read the file instead
        jobs = 1 if stdin else options.jobs
        python = check_python(python_files, group_settings, cache, jobs)
        per_file = python.per_file
        if any(d.fix is not None for diags in per_file.values() for d in diags):
            from cachelint.fixer import apply_fixes, resolve_fix_targets

            per_file = resolve_fix_targets(per_file, python, cwd)
            if options.fix or options.diff:
                touched = apply_fixes(python_files, per_file, python, group_settings, options, paths, cwd, result)
                if touched:
                    if cache is not None:
                        cache.forget_validation(f.path for f in touched)
                    # What remains: the files written (or found changed) and those that import them
                    # (their summaries changed).
                    again = check_python(_affected(python_files, touched, python), group_settings, cache, jobs)
                    per_file.update(resolve_fix_targets(again.per_file, again, cwd))

        for display in sorted(per_file):
            diagnostics.extend(per_file[display])

        # Skills: one pass over the tree (indexes need to see every skill)
        if other_files:
            found = _check_skills_cached(other_files, paths, group_settings, cwd, cache)
            diagnostics.extend(_apply_skill_suppressions(found, group_settings, cwd))
        if cache is not None:
            cache.save()
            if cache.warning:  # a corrupt cache file, found when opened or when its summaries were read
                result.warnings.append(cache.warning)

    result.diagnostics = finalize(diagnostics, settings, cwd, resolver)
    from cachelint import cachefile

    result.warnings.extend(w for w in cachefile.take_warnings() if w not in result.warnings)  # the catalog's files
    return result


def _group_by_settings(
    files: Sequence[InputFile], settings: Settings, resolver: "ConfigResolver | None"
) -> list[tuple[Settings, list[InputFile]]]:
    """The files of a run by the settings that apply to them, in the order of their first file.
    A file under a configuration other than the one discovery used is held to that
    configuration's excludes too (unless it was named on the command line)."""
    if resolver is None:
        return [(settings, list(files))] if files else []
    groups: dict[str | None, tuple[Settings, list[InputFile]]] = {}
    matchers: dict[str | None, Any] = {}
    for f in files:
        own = resolver.for_path(f.path)
        key = str(own.config_path) if own.config_path else None
        if own.config_path != settings.config_path and not f.explicit:
            if key not in matchers:
                from cachelint.discovery import IgnoreMatcher

                matchers[key] = IgnoreMatcher(own.root.resolve(), tuple(own.exclude) + tuple(own.extend_exclude), False)
            if _excluded_below(f.path, matchers[key]):
                continue
        groups.setdefault(key, (own, []))[1].append(f)
    return list(groups.values())


def _excluded_below(path: Path, matcher: Any) -> bool:
    """Is ``path``, or a folder between it and the matcher's root, excluded by its patterns?"""
    from cachelint.discovery import is_relative_to

    if not is_relative_to(path, matcher.root):
        return False
    chain = [path]
    for parent in path.parents:
        if parent == matcher.root or not is_relative_to(parent, matcher.root):
            break
        chain.append(parent)
    return any(matcher.ignored(candidate, candidate != path, []) for candidate in reversed(chain))


def _left_out_warnings(
    left_out: Sequence[tuple[Path, bool]],
    files: Sequence[InputFile],
    problems: Sequence[tuple[str, str]],
    cwd: Path,
    result: CheckResult,
) -> list[str]:
    """What to tell a user whose paths gave ``check`` nothing it reads: request logs belong to
    ``cachelint audit``; a file named on the command line that no part reads is said to be skipped;
    a run that found nothing to check says so (Ruff: "No Python files found")."""
    from cachelint.discovery import display_path

    warnings = []
    logs = sorted(display_path(p, cwd) for p, _ in left_out if _is_log_file(p))
    logs += sorted(f.display for f in files if f.explicit and f.path.suffix.lower() in (".json", ".yaml", ".yml") and _is_log_file(f.path))
    result.logs_seen = sorted(set(logs))
    explicit_logs = [display_path(p, cwd) for p, explicit in left_out if explicit and _is_log_file(p)]
    explicit_logs += [f.display for f in files if f.explicit and f.display in result.logs_seen]
    for shown in sorted(set(explicit_logs)):
        warnings.append(f"{shown} is a request log: `cachelint check` reads agent code and skill folders; audit logs with `cachelint audit {shown}`")
    for path, explicit in left_out:
        if explicit and not _is_log_file(path):
            warnings.append(f"{display_path(path, cwd)}: not a Python file, notebook or skill file; skipped")
    others = [shown for shown in result.logs_seen if shown not in explicit_logs]
    if not files and not problems and (others or not explicit_logs):
        found = "No Python files, notebooks or skill files found under the given paths"
        if others:
            example = others[0]
            folder = example.rsplit("/", 1)[0] if "/" in example else "."
            what = f"{len(others)} request logs found (e.g. {example}): audit them" if len(others) > 1 else f"1 request log found ({example}): audit it"
            found += f"; {what} with `cachelint audit {folder}`"
        warnings.append(found)
    return warnings


def _is_log_file(path: Path) -> bool:
    """A request log by its name, or (a JSON or YAML file) by what its first bytes hold: a
    cassette's interactions, a HAR's entries, or a request body's messages next to a model."""
    from cachelint.payloads import is_request_log_name

    if is_request_log_name(path.name):
        return True
    if path.suffix.lower() not in (".json", ".yaml", ".yml"):
        return False
    try:
        with open(path, "rb") as handle:
            head = handle.read(65536)
    except OSError:
        return False
    if b"interactions" in head and (b"request" in head):
        return True
    if b'"log"' in head and b'"entries"' in head:
        return True
    return b'"model"' in head and any(marker in head for marker in (b'"messages"', b'"contents"', b'"input"'))


# --- skills, cached as one result per tree ---------------------------------------------------


def checked_folders(paths: Sequence[str], cwd: Path) -> list[Path]:
    """The folders named on the command line, resolved (a file named there is no folder)."""
    return [candidate for candidate in ((cwd / p).resolve() for p in paths) if candidate.is_dir()]


def skills_cache_key(files: Sequence[InputFile], walked: Sequence[Path], settings: Settings) -> str | None:
    """Signature of every input the skill checks can read in this run, or None when it cannot be
    known cheaply. The skill checks walk each repository root in full (indexes must see every
    skill); when this run walked those roots itself, the skill-related files it discovered are
    exactly that set, and their (path, mtime, size) key the result. Otherwise (a pre-commit run
    naming a few files) there is no key and the checks run. ``walked``: the folders named on the
    command line (``checked_folders``)."""
    memo: dict[Path, Path | None] = {}
    fallbacks = root_fallbacks(settings.project_root, walked)
    for f in files:
        root = repository_root(f.path, fallbacks, memo)
        if not any(root == d or d in root.parents for d in walked):
            return None
    h = hashlib.sha256()
    for f in sorted(files, key=lambda f: str(f.path)):
        try:
            st = os.stat(f.path)
            stamp = f"{st.st_mtime_ns}:{st.st_size}"
        except OSError:
            stamp = "missing"
        h.update(f"{f.path}\0{f.display}\0{int(f.explicit)}\0{stamp}\n".encode())
    return h.hexdigest()[:32]


def _apply_skill_suppressions(found: Sequence[Diagnostic], settings: Settings, cwd: Path) -> list[Diagnostic]:
    """The inline suppressions of the Markdown and YAML files the skill findings are about."""
    if not found:
        return []
    from cachelint.catalog import rule_index
    from cachelint.suppressions import apply_text_file_suppressions
    from cachelint.textio import read_text

    def text_of(display: str) -> str | None:
        source = read_text(cwd / display, display, settings.max_file_size)
        return None if isinstance(source, Diagnostic) else source.text

    return apply_text_file_suppressions(found, text_of, rule_index())


def _check_skills_cached(
    files: Sequence[InputFile], paths: Sequence[str], settings: Settings, cwd: Path, cache: "ResultCache | None"
) -> list[Diagnostic]:
    checked = checked_folders(paths, cwd)
    key = skills_cache_key(files, checked, settings) if cache is not None else None
    if key is not None and cache is not None:
        hit = cache.skills_result(key)
        if hit is not None:
            try:
                return [Diagnostic.from_dict(d) for d in hit]
            except (KeyError, TypeError, ValueError):
                pass  # a damaged entry is a miss
    from cachelint.skills import check_skills, is_timeout

    try:
        found = check_skills(files, settings, cwd, checked)
    except Exception as exc:  # pragma: no cover - defensive: a check bug must not kill the run
        return [internal_error(files[0].display, "in the skill checks", exc)]
    if key is not None and cache is not None and not any(is_timeout(d) for d in found):
        cache.store_skills(key, [d.to_dict() for d in found])
    return found


def finalize(
    diagnostics: Sequence[Diagnostic], settings: Settings, cwd: Path, resolver: "ConfigResolver | None" = None
) -> list[Diagnostic]:
    """Selection (select / ignore / per-file-ignores), key-shaped strings masked
    (``cachelint.masking``), de-duplication and a stable order. With a
    ``resolver``, each finding is selected by the settings of the configuration closest to its
    file; per-file-ignores patterns match the path relative to that configuration's folder."""
    memo: dict[str, tuple[set[str], list[tuple[str, set[str]]], Path]] = {}

    def selection(path: str) -> tuple[set[str], list[tuple[str, set[str]]], Path]:
        known = memo.get(path)
        if known is None:
            own = resolver.for_path(cwd / path) if resolver is not None else settings
            known = memo[path] = (own.enabled_codes(), _per_file_ignores(own), own.root)
        return known

    from cachelint.masking import masker

    mask = masker(settings.pack_paths()).mask_diagnostic
    seen = set()
    out = []
    for d in diagnostics:
        enabled, pfi, root = selection(d.path)
        if d.code == INTERNAL_ERROR:
            pass  # cachelint's own fault: no selection or ignore hides it
        elif d.code not in enabled:
            continue
        elif pfi:
            relative = _relative_to_root(d.path, cwd, root)
            if any(d.code in codes and _glob_match(relative, pattern) for pattern, codes in pfi):
                continue
        d = mask(d)
        key = (d.sort_key(), d.end_line, d.end_column, d.session, d.kind)
        if key in seen:
            continue
        seen.add(key)
        out.append(d)
    out.sort(key=Diagnostic.sort_key)
    return out


def _relative_to_root(display: str, cwd: Path, root: Path) -> str:
    """A finding's path relative to its configuration's folder (what per-file-ignores match), so
    that the same pattern selects the same files from whatever folder the command runs."""
    absolute = Path(os.path.abspath(cwd / display))
    try:
        return absolute.relative_to(Path(os.path.abspath(root))).as_posix()
    except ValueError:
        return display


def _per_file_ignores(settings: Settings) -> list[tuple[str, set[str]]]:
    from cachelint.catalog import expand_selectors

    return [(pattern, expand_selectors(codes)) for pattern, codes in sorted(settings.per_file_ignores.items())]


def _glob_match(path: str, pattern: str) -> bool:
    from cachelint.discovery import compile_patterns

    return any(rule.matches(path) for rule in compile_patterns([pattern]))


def _affected(files: Sequence[InputFile], touched: Sequence[InputFile], run: PythonRun) -> list[InputFile]:
    """``touched`` and the files of the run that import one of them, directly or through other
    modules (whose summaries, made from those files, change too)."""
    changed = {str(f.path) for f in touched}
    grew = True
    while grew:
        grew = False
        for path, deps in run.summaries.deps_of_summary.items():
            if path not in changed and any(d in changed for _, d in deps):
                changed.add(path)
                grew = True
    return [f for f in files if str(f.path) in changed or any(path in changed for _, path in run.deps_of.get(f.display, ()))]
