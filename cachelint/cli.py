"""Command line: a thin layer over ``cachelint.api``. It parses options, formats and exits.

Exit codes: 0 clean, 1 findings, 2 usage / configuration / internal error.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import NoReturn, Sequence

import click

from cachelint import __version__
from cachelint.payloads.formats import NAMES as LOG_FORMAT_NAMES

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def _fail(message: str) -> NoReturn:
    click.echo(f"cachelint: error: {message}", err=True)
    sys.exit(EXIT_ERROR)


def _split_codes(values: Sequence[str]) -> list[str]:
    out: list[str] = []
    for value in values:
        out.extend(v.strip() for v in value.split(",") if v.strip())
    return out


def _load_settings(config: Sequence[str], isolated: bool, overrides: dict | None = None):
    from cachelint.catalog import CatalogError
    from cachelint.config import ConfigError, load_settings

    try:
        return load_settings(Path.cwd(), config=config, isolated=isolated, overrides=overrides)
    except (ConfigError, CatalogError) as exc:
        _fail(str(exc))


def _emit(text: str, output_file: str | None) -> None:
    if output_file:
        from cachelint.fileutil import atomic_write

        target = Path(output_file)
        try:
            atomic_write(target, text.encode("utf-8"))
        except OSError as exc:
            _fail(f"cannot write {output_file}: {exc.strerror or exc}")
    else:
        click.echo(text, nl=False)


def _statistics(diagnostics) -> str:
    from cachelint.catalog import rule_name

    counts: dict[str, int] = {}
    for d in diagnostics:
        counts[d.code] = counts.get(d.code, 0) + 1
    rows = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return "".join(f"{n:>5}\t{code}\t{rule_name(code)}\n" for code, n in rows)


class _Terminated(BaseException):
    """SIGTERM (a cancelled CI job, a killed pre-commit) raised where the run is, so that every
    ``finally`` and cleanup runs as for Ctrl-C: an atomic write removes its temporary file, the
    worker pool is stopped. The default action would end the process with the file left behind."""


def _on_sigterm(signum, frame) -> NoReturn:
    raise _Terminated()


def _catch_sigterm() -> None:
    import signal
    import threading

    if hasattr(signal, "SIGTERM") and threading.current_thread() is threading.main_thread():
        try:
            if signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None):
                signal.signal(signal.SIGTERM, _on_sigterm)
        except (ValueError, OSError):
            pass


class _Group(click.Group):
    def invoke(self, ctx):
        _catch_sigterm()
        try:
            return super().invoke(ctx)
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException, SystemExit):
            raise
        except KeyboardInterrupt:
            click.echo("cachelint: interrupted", err=True)
            sys.exit(130)
        except _Terminated:
            click.echo("cachelint: terminated", err=True)
            sys.exit(143)
        except Exception as exc:  # an internal error is exit 2 with one line, not a traceback
            if os.environ.get("CACHELINT_DEBUG"):
                raise
            click.echo(f"cachelint: internal error: {type(exc).__name__}: {exc}", err=True)
            sys.exit(EXIT_ERROR)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="cachelint")
def main() -> None:
    """Find what breaks the LLM prompt cache: in agent code, skill folders and request logs."""


def _common_report_options(func):
    func = click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings.")(func)
    func = click.option("--statistics", is_flag=True, help="Count findings per rule instead of listing them.")(func)
    func = click.option("-o", "--output-file", type=click.Path(dir_okay=False), envvar="CACHELINT_OUTPUT_FILE")(func)
    func = click.option(
        "--config",
        "config",
        multiple=True,
        help="A config file, or inline TOML such as 'select = [\"CL1\"]' (repeatable).",
    )(func)
    func = click.option("--isolated", is_flag=True, help="Ignore configuration files.")(func)
    func = click.option("--extend-select", multiple=True, help="Codes or prefixes to add to the selection.")(func)
    func = click.option("--ignore", multiple=True, help="Codes or prefixes to ignore (comma-separated).")(func)
    func = click.option("--select", multiple=True, help="Codes or prefixes to enable (comma-separated).")(func)
    return func


def _selection_overrides(select, ignore, extend_select) -> dict:
    from cachelint.catalog import unknown_selectors

    overrides: dict = {}
    for key, values in (("select", select), ("ignore", ignore), ("extend-select", extend_select)):
        codes = _split_codes(values)
        if codes:
            bad = unknown_selectors(codes)
            if bad:
                _fail(f"--{key}: unknown rule selector {bad[0]!r}")
            overrides[key] = codes
    return overrides


@main.command()
@click.argument("paths", nargs=-1, type=click.Path())
@_common_report_options
@click.option(
    "--output-format",
    type=click.Choice(["concise", "full", "json", "sarif", "github"]),
    default=None,
    envvar="CACHELINT_OUTPUT_FORMAT",
    help="Output format (default concise; 'full' adds context).",
)
@click.option("--fix", is_flag=True, help="Apply safe fixes.")
@click.option("--unsafe-fixes", is_flag=True, help="Also apply unsafe fixes (with --fix or --diff).")
@click.option("--diff", "show_diff", is_flag=True, help="Print the fixes as a diff; write nothing.")
@click.option("--no-cache", is_flag=True, envvar="CACHELINT_NO_CACHE", help="Do not read or write .cachelint_cache.")
@click.option("--force-exclude", is_flag=True, help="Apply excludes to paths named on the command line too.")
@click.option("-j", "--jobs", type=click.IntRange(1, 256), default=None, help="Worker processes (default: all cores).")
def check(
    paths,
    select,
    ignore,
    extend_select,
    isolated,
    config,
    output_file,
    statistics,
    exit_zero,
    output_format,
    fix,
    unsafe_fixes,
    show_diff,
    no_cache,
    force_exclude,
    jobs,
):
    """Check agent code (Python, notebooks) and skill folders under PATHS (default: .)."""
    from cachelint.engine import CheckOptions, run_check
    from cachelint.report import render

    settings = _load_settings(config, isolated, _selection_overrides(select, ignore, extend_select))
    options = CheckOptions(
        fix=fix, unsafe_fixes=unsafe_fixes, diff=show_diff, no_cache=no_cache, force_exclude=force_exclude, jobs=jobs
    )
    result = run_check(list(paths) or ["."], settings, options, Path.cwd().resolve())
    for warning in result.warnings:
        click.echo(f"cachelint: warning: {warning}", err=True)
    if show_diff:
        _emit("".join(result.diffs), output_file)
        if not exit_zero and result.diffs:
            sys.exit(EXIT_FINDINGS)
        sys.exit(EXIT_CLEAN)
    fmt = output_format or "concise"
    if statistics:
        text = _statistics(result.diagnostics)
    else:
        text = render(fmt, result.diagnostics)
    _emit(text, output_file)
    if fmt in ("concise", "full") and not output_file:
        n = len(result.diagnostics)
        fixed = f", {result.fixes_applied} fixed" if fix else ""
        click.echo(
            f"Found {n} finding{'s' if n != 1 else ''} in {result.files_checked} file{'s' if result.files_checked != 1 else ''}{fixed}.",
            err=True,
        )
    if result.diagnostics and not exit_zero:
        sys.exit(EXIT_FINDINGS)
    sys.exit(EXIT_CLEAN)


@main.command()
@click.argument("logs", nargs=-1, required=True, type=click.Path())
@_common_report_options
@click.option(
    "--output-format",
    type=click.Choice(["concise", "full", "json", "sarif", "github", "html"]),
    default=None,
    envvar="CACHELINT_OUTPUT_FORMAT",
    help="Output format (default full: per-session report with the byte diff at each break).",
)
@click.option(
    "--input-format",
    type=click.Choice(["auto", "jsonl", "json", "har", "vcr", *LOG_FORMAT_NAMES]),
    default="auto",
    help="Force the log format instead of detecting it (docs/audit.md lists the formats).",
)
@click.option("--baseline", type=click.Path(dir_okay=False), help="A JSON file of accepted findings to hide.")
def audit(
    logs, select, ignore, extend_select, isolated, config, output_file, statistics, exit_zero, output_format, input_format, baseline
):
    """Audit captured request logs (JSONL, JSON, HAR, VCR cassettes, .gz, folders) for cache breaks."""
    from cachelint.api import audit_logs
    from cachelint.payloads import AuditOptions
    from cachelint.report import render

    settings = _load_settings(config, isolated, _selection_overrides(select, ignore, extend_select))
    options = AuditOptions(
        input_format=input_format,
        baseline=baseline,
        progress=sys.stderr.isatty() and not os.environ.get("CI"),
        timeline=output_format == "html",  # only the HTML report draws one bar per request
    )
    from cachelint.api import BaselineError

    try:
        result = audit_logs(list(logs), settings, options, Path.cwd().resolve())
    except BaselineError as exc:
        _fail(str(exc))
    for warning in result.warnings:
        click.echo(f"cachelint: warning: {warning}", err=True)
    fmt = output_format or "full"
    if fmt == "html" and not output_file:
        _fail("--output-format html needs -o FILE")
    if statistics:
        text = _statistics(result.diagnostics)
    else:
        text = render(fmt, result.diagnostics, summary=result.summary)
    _emit(text, output_file)
    if result.diagnostics and not exit_zero:
        sys.exit(EXIT_FINDINGS)
    sys.exit(EXIT_CLEAN)


@main.command()
@click.argument("directory", type=click.Path(exists=True, file_okay=False), default=".")
@click.option("--write", "write_file", type=click.Path(dir_okay=False), help="Write the index into FILE between markers.")
@click.option("--check", "check_file", type=click.Path(dir_okay=False), help="Exit 1 when FILE's index block is stale.")
@click.option("--config", "config", multiple=True)
@click.option("--isolated", is_flag=True)
def index(directory, write_file, check_file, config, isolated):
    """Print the skill index rendered from the SKILL.md files under DIRECTORY (sorted by name)."""
    from cachelint.skills.indexer import IndexFileError, check_index, render_index, write_index

    settings = _load_settings(config, isolated)
    root = Path(directory)
    if write_file and check_file:
        _fail("--write and --check exclude each other")
    try:
        if check_file:
            ok, message = check_index(root, Path(check_file), settings)
            click.echo(message, err=True)
            sys.exit(EXIT_CLEAN if ok else EXIT_FINDINGS)
        if write_file:
            changed, message = write_index(root, Path(write_file), settings)
            click.echo(message, err=True)
            sys.exit(EXIT_CLEAN)
    except (IndexFileError, OSError) as exc:  # markers out of order, unreadable or unwritable file
        _fail(str(exc))
    _emit(render_index(root, settings), None)
    sys.exit(EXIT_CLEAN)


@main.command("rules")
@click.option("--output-format", type=click.Choice(["text", "json"]), default="text")
def rules_cmd(output_format):
    """List every rule with its status."""
    from cachelint.catalog import load_catalog

    catalog = load_catalog()
    if output_format == "json":
        data = [
            {
                "code": r.code,
                "name": r.name,
                "scope": r.scope,
                "severity": r.severity.value,
                "status": r.status,
                "summary": r.summary,
                "fix_safety": r.fix_safety,
            }
            for r in catalog.values()
        ]
        _emit(json.dumps(data, indent=2, ensure_ascii=False) + "\n", None)
        return
    width = max(len(r.name) for r in catalog.values())
    lines = [f"{r.code}  {r.name:<{width}}  {r.status:<7}  {r.severity.value:<7}  {r.summary}" for r in catalog.values()]
    _emit("\n".join(lines) + "\n", None)


@main.command("rule")
@click.argument("code")
@click.option("--output-format", type=click.Choice(["text", "json"]), default="text")
def rule_cmd(code, output_format):
    """Print the documentation of one rule (by code or name)."""
    from cachelint.catalog import load_catalog
    from cachelint.docs import render_rule_markdown

    catalog = load_catalog()
    wanted = code.strip()
    doc = catalog.get(wanted.upper()) or next((r for r in catalog.values() if r.name == wanted), None)
    if doc is None:
        _fail(f"unknown rule {code!r} (see 'cachelint rules')")
    if output_format == "json":
        _emit(json.dumps([doc.to_dict()], indent=2, ensure_ascii=False) + "\n", None)
    else:
        _emit(render_rule_markdown(doc), None)


@main.group("config")
def config_group():
    """Show or validate the configuration."""


@config_group.command("validate")
@click.option("--config", "config", multiple=True)
def config_validate(config):
    """Validate the configuration in force; exit 2 with the first problem."""
    settings = _load_settings(config, False)
    where = settings.config_path or "no configuration file (defaults)"
    click.echo(f"{where}: ok")


@config_group.command("show")
@click.option("--config", "config", multiple=True)
def config_show(config):
    """Print the resolved settings as JSON."""
    settings = _load_settings(config, False)
    data = {
        "config_path": str(settings.config_path) if settings.config_path else None,
        "select": list(settings.select),
        "ignore": list(settings.ignore),
        "extend-select": list(settings.extend_select),
        "exclude": list(settings.exclude),
        "extend-exclude": list(settings.extend_exclude),
        "per-file-ignores": {k: list(v) for k, v in sorted(settings.per_file_ignores.items())},
        "respect-gitignore": settings.respect_gitignore,
        "packs": list(settings.packs),
        "max-file-size": settings.max_file_size,
        "analysis-timeout": settings.analysis_timeout,
        "cache-dir": settings.cache_dir,
        **{k: v for k, v in settings.sections.items()},
    }
    _emit(json.dumps(data, indent=2, sort_keys=True) + "\n", None)


if __name__ == "__main__":  # pragma: no cover
    main()
