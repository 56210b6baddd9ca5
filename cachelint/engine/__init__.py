"""Runs the checks over discovered inputs: process pool, result cache, suppressions, selection,
fixes. Checks live in ``cachelint.code`` (per Python file) and ``cachelint.skills`` (per tree);
this package knows only their entry points and the Diagnostic type.

Python files go through two phases so that a check can see what the modules it imports return
(``cachelint.code.summarize_module``): phase 1 gathers each file's identity and imports (a read,
a hash and a regex) and the summaries of the project modules that the files import, directly or
through each other (each summary made with the summaries of the modules it imports, so a chain
of modules is followed); phase 2 checks each file with the summaries of exactly the modules it
imports, and the cache keys the result on their digest, and each summary on the digest of the
summaries it was made with. See docs/benchmarks.md for what each step costs.

One module per responsibility, from the user inwards:

- ``run``: ``run_check`` (discovery, configurations, the parts below, finalise, baseline);
- ``python_run``: ``check_python``, phase 1 and the import closure;
- ``scheduler``: the flow of summaries and checks, in this process or the pool;
- ``facts``: what is known of each file and kept in the cache (``PythonRun``, ``SummaryStore``);
- ``tasks``: the per-file work a worker runs, under the analysis deadline;
- ``workers``: the process pool;
- ``imports``: the import scan, module resolution, the import graph and its cycles;
- ``fixes``: fixes applied and the files they touched checked again;
- ``skills_run``: the skill checks, cached per run, and their suppressions;
- ``selection``: ``finalize`` (selection, masking, de-duplication, order).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cachelint.engine.facts import PythonRun, SummaryStore
    from cachelint.engine.imports import (
        ImportGraph,
        ModuleLocator,
        dependency_digest,
        import_candidates,
        notebook_code,
    )
    from cachelint.engine.python_run import check_python
    from cachelint.engine.run import is_python, is_skill_related, run_check
    from cachelint.engine.selection import finalize
    from cachelint.engine.skills_run import checked_folders, skills_cache_key
    from cachelint.engine.tasks import CheckTask, FactsTask, analyze_python_file, collect_facts
    from cachelint.engine.workers import Workers, start_method
    from cachelint.engine_types import CheckOptions, CheckResult, StdinInput

# Each name, imported from its module on first use (PEP 562): an audit selects its findings with
# ``finalize`` and must not pay for importing the check run (discovery, the import scan, the
# scheduler, the pool) that it never starts.
_HOME = {
    "PythonRun": "cachelint.engine.facts",
    "SummaryStore": "cachelint.engine.facts",
    "ImportGraph": "cachelint.engine.imports",
    "ModuleLocator": "cachelint.engine.imports",
    "dependency_digest": "cachelint.engine.imports",
    "import_candidates": "cachelint.engine.imports",
    "notebook_code": "cachelint.engine.imports",
    "check_python": "cachelint.engine.python_run",
    "is_python": "cachelint.engine.run",
    "is_skill_related": "cachelint.engine.run",
    "run_check": "cachelint.engine.run",
    "finalize": "cachelint.engine.selection",
    "checked_folders": "cachelint.engine.skills_run",
    "skills_cache_key": "cachelint.engine.skills_run",
    "CheckTask": "cachelint.engine.tasks",
    "FactsTask": "cachelint.engine.tasks",
    "analyze_python_file": "cachelint.engine.tasks",
    "collect_facts": "cachelint.engine.tasks",
    "Workers": "cachelint.engine.workers",
    "start_method": "cachelint.engine.workers",
    "CheckOptions": "cachelint.engine_types",
    "CheckResult": "cachelint.engine_types",
    "StdinInput": "cachelint.engine_types",
}


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


__all__ = [
    "CheckOptions",
    "CheckResult",
    "CheckTask",
    "FactsTask",
    "ImportGraph",
    "ModuleLocator",
    "PythonRun",
    "StdinInput",
    "SummaryStore",
    "Workers",
    "analyze_python_file",
    "check_python",
    "checked_folders",
    "collect_facts",
    "dependency_digest",
    "finalize",
    "import_candidates",
    "is_python",
    "is_skill_related",
    "notebook_code",
    "run_check",
    "skills_cache_key",
    "start_method",
]
