"""What the Python run knows of each file and keeps in the result cache: its facts (identity,
imports, summary), its check's result, the summaries its check is given (``SummaryStore``), and
the run's answer (``PythonRun``) that the fixer reads."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Sequence, cast

from cachelint.config import Settings
from cachelint.diagnostics import Diagnostic
from cachelint.discovery import InputFile
from cachelint.engine.imports import ModuleLocator, dependency_digest
from cachelint.engine.tasks import CheckTask, FactsTask, collect_facts

if TYPE_CHECKING:
    from cachelint.textio import FileReader
    from cachelint.cache import ResultCache

FACT_KEYS = ("sha256", "mtime_ns", "size", "module", "imports", "summary", "summary_digest", "summary_deps")


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
    reader: "FileReader | None" = None  # the bytes of stdin for the file it names (None: the disk)

    def summaries_of(self, display: str) -> dict[str, dict]:
        return self.summaries.for_deps(self.deps_of.get(display, ()))

    def fact_digest(self, path: str) -> str | None:
        """SHA-256 of the bytes the summary of the module at ``path`` was made from."""
        entry = self.facts.get(path)
        return entry.get("sha256") if entry else None

    def locate_module(self, module: str) -> str | None:
        """The file of a dotted module name of the project."""
        return self.locator.resolve(module) if self.locator is not None else None


def record_facts(path: str, result: dict | None, facts: dict[str, dict], cache: "ResultCache | None") -> None:
    if result is None:  # unreadable: no facts, no summary; its check reports CL001
        facts.pop(path, None)
        return
    facts[path] = result
    if cache is not None:
        cache.store_facts(
            path, **cast("dict[str, Any]", {k: result.get(k) for k in FACT_KEYS}), summarized="summary_digest" in result
        )


def answer_from_cache(
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


def check_task_for(f: InputFile, run: PythonRun, settings: Settings) -> "CheckTask":
    summaries = run.summaries.for_deps(run.deps_of[f.display]) or None
    return CheckTask(str(f.path), f.display, settings, summaries, run.reader)


def record_checks(
    files: Sequence[InputFile],
    results: Sequence[Any],
    modules: dict[str, tuple[str, bool]],
    cache: "ResultCache | None",
    run: PythonRun,
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

    def __init__(
        self,
        facts: dict[str, dict],
        cache: "ResultCache | None",
        settings: Settings,
        reader: "FileReader | None" = None,
    ) -> None:
        self.facts = facts
        self.cache = cache
        self.settings = settings
        self.reader = reader
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
            made = collect_facts(
                FactsTask(
                    path,
                    path,
                    module,
                    is_package,
                    self.settings,
                    summarize=True,
                    project_summaries=summaries,
                    reader=self.reader,
                )
            )
            found = made.get("summary") if made else None
            if made is not None and self.cache is not None:
                made["summary_deps"] = entry.get("summary_deps", "")
                self.cache.store_facts(
                    path, **cast("dict[str, Any]", {k: made.get(k) for k in FACT_KEYS}), summarized=True
                )
        self._loaded[path] = found
        return found

    def for_deps(self, deps: Sequence[tuple[str, str]]) -> dict[str, dict]:
        out = {}
        for name, path in deps:
            summary = self.get(path)
            if summary:
                out[name] = summary
        return out
