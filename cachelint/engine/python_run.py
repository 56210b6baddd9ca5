"""The Python part of a run (``check_python``): phase 1 (the facts of every file, from the cache
where unchanged, and the import closure whose summaries the run needs), then the scheduler's
flow of summaries and checks."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from cachelint.config import Settings
from cachelint.discovery import InputFile
from cachelint.engine.facts import PythonRun, SummaryStore, record_facts
from cachelint.engine.imports import ImportGraph, ModuleLocator
from cachelint.engine.scheduler import run_tasks
from cachelint.engine.tasks import FactsTask, collect_facts
from cachelint.engine.workers import Workers

if TYPE_CHECKING:
    from cachelint.textio import FileReader
    from cachelint.cache import ResultCache


def check_python(
    files: Sequence[InputFile],
    settings: Settings,
    cache: "ResultCache | None",
    jobs: int | None,
    reader: "FileReader | None" = None,
) -> PythonRun:
    """Both phases as one flow of tasks: a summary is made once the summaries of the modules it
    imports are known (or found in the cache, when its text and theirs are unchanged); a check
    runs once the summaries of the modules it imports are known (or is answered from the cache).
    Summaries go to the workers before checks, the largest first. ``reader``: how the run reads
    its files (the bytes of stdin for the file it names)."""
    locator = ModuleLocator()
    modules: dict[str, tuple[str, bool]] = {}
    for f in files:
        key = str(f.path)
        modules[key] = locator.module_of(key)
        locator.add(modules[key][0], key)
    workers = Workers(jobs)
    try:
        facts, needed = phase_one(files, modules, locator, settings, cache, reader)
        run = PythonRun(
            per_file={},
            deps_of={},
            summaries=SummaryStore(facts, cache, settings, reader),
            facts=facts,
            locator=locator,
            reader=reader,
        )
        graph = ImportGraph(needed, facts, locator)
        run_tasks(files, modules, locator, facts, needed, graph, settings, cache, run, workers)
    except BaseException:
        workers.abort()
        raise
    workers.close()
    return run


def phase_one(
    files: Sequence[InputFile],
    modules: dict[str, tuple[str, bool]],
    locator: ModuleLocator,
    settings: Settings,
    cache: "ResultCache | None",
    reader: "FileReader | None" = None,
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
            record_facts(
                p,
                collect_facts(FactsTask(p, display, module, is_package, settings, summarize=False, reader=reader)),
                facts,
                cache,
            )

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
