"""The scheduler of the Python run: one flow of tasks over both phases, each summary or check
started once the summaries it needs are known, answered from the cache where it can be, in this
process or in the pool (decided once, from the bytes that may have to be analysed)."""

from __future__ import annotations

import collections
import heapq
from typing import TYPE_CHECKING, Any, Sequence

from cachelint.config import Settings
from cachelint.discovery import InputFile
from cachelint.engine.facts import PythonRun, answer_from_cache, check_task_for, record_checks, record_facts
from cachelint.engine.imports import ImportGraph, ModuleLocator, dependency_digest
from cachelint.engine.tasks import CheckTask, FactsTask, run_batch
from cachelint.engine.workers import Workers, prepare_checks

if TYPE_CHECKING:
    from cachelint.cache import ResultCache

# A pool pays for itself only when the work outweighs starting it. Measured here (2 cores,
# Python 3.11; docs/benchmarks.md): forking 2 workers, shipping 4 tiny tasks and joining costs
# ~10 ms of wall time; the code checks cost ~0.3 us of CPU per source byte on the SDK corpus on
# average (~1 us/byte on its largest modules). Two workers halve the work, so the pool wins from
# ~20 ms of work, ~70 KB of source; 100 KB leaves a margin (a typical 5-file commit, ~30 KB,
# stays in-process). Bytes predict the work better than a file count: one 4,000-line module
# outweighs fifty __init__.py files.
POOL_MIN_BYTES = 100_000


def run_tasks(
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
        workers.use_pool(prepare_checks(settings))

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
            if answer_from_cache(f, modules, locator, facts, cache, run):
                resolved(node)
                return None
            return check_task_for(f, run, settings)
        p = ref
        deps, digest = dependency_digest(facts[p].get("imports", ()), p, locator, facts, exclude=graph.cycle_of[p])
        run.summaries.deps_of_summary[p] = deps
        entry = facts[p]
        if "summary_digest" in entry and entry.get("summary_deps", "") == digest:
            resolved(node)  # the cached summary was made from this text and these summaries
            return None
        display, module, is_package = needed[p]
        pending_digest[p] = digest
        summaries = run.summaries.for_deps(deps) or None
        return FactsTask(
            p, display, module, is_package, settings, summarize=True, project_summaries=summaries, reader=run.reader
        )

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
                workers.submit(run_batch, tuple(node for node, _ in batch), [task for _, task in batch])
        if not workers.in_flight:
            continue
        nodes, results = workers.next_result()
        for node, result in zip(nodes, results):
            kind, ref = node
            if kind == "summary":
                if result is not None:
                    result["summary_deps"] = pending_digest[ref]
                record_facts(ref, result, facts, cache)
            else:
                record_checks([files[ref]], [result], modules, cache, run)
            resolved(node)
