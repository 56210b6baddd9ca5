"""The import scan and the module graph of the Python run: which project modules a file may
import (a regular expression over its text), the files those names are (``ModuleLocator``), the
digest that keys a result on the summaries of its imports, and the import graph's strongly
connected components (``ImportGraph``: a cycle is summarised without its own members)."""

from __future__ import annotations

import hashlib
import json
import os
import re
from typing import Sequence, cast


# --- modules and imports: what a file's cross-module summaries depend on ---------------------
#
# Phase 1 records, per Python file, the project modules it may import; phase 2 gives its check
# the summaries of exactly those modules and keys its cached result on their digest. The import
# scan is a regular expression over the text, not a parse: it runs on every changed file, must
# cost next to nothing, and may over-approximate (an import in a docstring only adds a
# dependency, i.e. an extra re-check); it never under-approximates a plain import statement.
# Linear on any text: the module name after the dots starts with a word character (``\.*`` then
# ``[\w.]*`` split a run of dots every possible way), and an unclosed ``(`` runs to the end of the
# text (trying ``\([^)]*\)`` from every ``from x import (`` was quadratic in a file of them). No two
# runs of blanks are adjacent: the blanks before the module name are allowed only after a dot,
# and an empty name only after a dot (``from import`` is no statement), so ``from`` followed by
# thousands of tabs is split one way, not every way (7 KB of them took over 20 s of CPU).

_IMPORT = re.compile(
    r"^[ \t]*(?:from[ \t]+(\.*)(?:(?<=\.)[ \t]*)?(\w[\w.]*|(?<=\.))[ \t]+import[ \t]*(\([^)]*(?:\)|\Z)|[^\n#;]*(?:\\\n[^\n#;]*)*)"
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
    except (
        ValueError,
        AttributeError,
        TypeError,
        RecursionError,
    ):  # a notebook nested too deeply: CL001 from the check
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
    imports: Sequence[str],
    own_path: str,
    locator: ModuleLocator,
    facts: dict[str, dict],
    exclude: frozenset[str] = frozenset(),
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


class ImportGraph:
    """The project modules that need a summary (the import closure of the run's files, within the
    project) and which of them each one imports. An import cycle is summarised without the
    summaries of its own members: ``cycle_of`` holds each module's strongly connected component,
    ``before[m]`` the modules whose summaries ``m``'s summary waits for (those it imports, outside
    its cycle). Members of a cycle depend on the same modules whichever file of it a run starts
    from, so the summaries are the same in a full run and in a pre-commit run of a few files."""

    def __init__(
        self, needed: dict[str, tuple[str, str, bool]], facts: dict[str, dict], locator: ModuleLocator
    ) -> None:
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
