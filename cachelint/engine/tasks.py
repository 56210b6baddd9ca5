"""The per-file work of the Python run, as tasks a worker process runs: phase 1's facts and
summary of a module (``collect_facts``), phase 2's check of a file (``analyze_python_file``).
Each runs under the analysis deadline (``analysis-timeout``) and never raises."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from cachelint.config import Settings
from cachelint.deadline import TimeLimitExceeded, deadline
from cachelint.diagnostics import Diagnostic, internal_error, unreadable
from cachelint.engine.imports import import_candidates, informative, notebook_code, summary_digest

if TYPE_CHECKING:
    from cachelint.textio import FileReader


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
    reader: "FileReader | None" = None  # the bytes of stdin for the file it names (None: the disk)


def collect_facts(task: FactsTask) -> dict | None:
    """Phase 1 for one file: identity and imports, and with ``task.summarize`` its summary. None
    when the file cannot be read (phase 2 reports it as CL001). Never raises."""
    from cachelint.textio import DISK, decode

    reader = task.reader or DISK
    p = Path(task.path)
    stamp = reader.identity(p)
    if stamp is None:
        return None
    data = reader.read_bytes(p, task.display, task.settings.max_file_size)
    if isinstance(data, Diagnostic):
        return None
    from cachelint import fileutil

    facts: dict[str, Any] = {
        "sha256": fileutil.sha256(data),
        "mtime_ns": stamp[0],
        "size": stamp[1],
        "module": task.module,
    }
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
        from cachelint.code import summarize_module

        try:
            with deadline(task.settings.analysis_timeout):
                result = summarize_module(task.display, source.text, task.settings, task.project_summaries)
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
    path: str,
    display: str,
    settings: Settings,
    project_summaries: dict[str, dict] | None = None,
    reader: "FileReader | None" = None,
) -> tuple[list[dict], str | None, int, int]:
    """Analyse one Python file; returns (diagnostic dicts, sha256, mtime_ns, size).

    Never raises: an unreadable file, a syntax error, a crash in a check or a timeout become CL001.
    """
    from cachelint.textio import DISK, decode

    reader = reader or DISK
    p = Path(path)
    mtime, size = reader.identity(p) or (0, 0)
    data = reader.read_bytes(p, display, settings.max_file_size)
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
            diagnostics = check_module(display, source.text, settings, project_summaries)
    except TimeLimitExceeded:
        diagnostics = [
            unreadable(
                display, f"analysis took longer than {settings.analysis_timeout:g} s and was stopped (analysis-timeout)"
            )
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
    reader: "FileReader | None" = None  # the bytes of stdin for the file it names (None: the disk)


def _check_task(task: CheckTask) -> tuple[list[dict], str | None, int, int]:
    return analyze_python_file(task.path, task.display, task.settings, task.project_summaries, task.reader)


def _run_task(task: "FactsTask | CheckTask") -> Any:
    """One task of either phase: a round of the pool may carry both."""
    return collect_facts(task) if isinstance(task, FactsTask) else _check_task(task)


def run_batch(tasks: Sequence["FactsTask | CheckTask"]) -> list[Any]:
    return [_run_task(task) for task in tasks]
