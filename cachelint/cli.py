"""Command line: a thin layer over ``cachelint.api``. It parses options, formats and exits.

Exit codes: 0 clean, 1 findings, 2 usage / configuration / internal error.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Iterable, NoReturn, Sequence

import click

from cachelint import __version__
from cachelint.payloads.formats import NAMES as LOG_FORMAT_NAMES

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def _masked(message: str) -> str:
    """A message for stderr with its key-shaped strings masked (a path or a value it quotes)."""
    from cachelint.masking import masker

    return masker().mask(message)


def _fail(message: str) -> NoReturn:
    click.echo(f"cachelint: error: {_masked(message)}", err=True)
    sys.exit(EXIT_ERROR)


def _split_codes(values: Sequence[str]) -> list[str]:
    out: list[str] = []
    for value in values:
        out.extend(v.strip() for v in value.split(",") if v.strip())
    return out


def _resolver(config: Sequence[str], isolated: bool, overrides: dict | None = None):
    """The configuration of each input (the closest file to it), with the command line's options
    over it; one line and exit 2 on a configuration problem."""
    from cachelint.catalog import CatalogError
    from cachelint.config import ConfigError, ConfigResolver

    try:
        resolver = ConfigResolver(Path.cwd(), config=config, isolated=isolated, overrides=overrides)
        resolver.default()  # the working directory's file is read and validated up front
        return resolver
    except (ConfigError, CatalogError) as exc:
        _fail(str(exc))


def _load_settings(config: Sequence[str], isolated: bool, overrides: dict | None = None):
    return _resolver(config, isolated, overrides).default()


class _Output:
    """Where and how the command writes: the report on stdout (or ``-o FILE``), with its totals
    on the same stream as the findings (as Ruff does); warnings and errors on stderr. ``-q``
    keeps the findings only, ``-s`` prints nothing (the exit code still tells), ``-v`` adds what
    was read and with which configuration (stderr)."""

    def __init__(self, output_file: str | None, quiet: bool, silent: bool, verbose: bool, color: str) -> None:
        self.output_file = output_file
        self.quiet = quiet or silent
        self.silent = silent
        self.verbose = verbose and not self.quiet
        self.color = _use_color(color, output_file)
        self.to_stderr = False  # the report goes to stderr (stdout carries a fixed buffer)
        self._parts: list[str | Iterable[str]] = []

    def report(self, text: str | Iterable[str]) -> None:
        """``text``: the report's text, or its pieces as a reporter makes them (written as they
        come, never joined: the JSON of a million sessions)."""
        if not self.silent and text:
            self._parts.append(text)

    def totals(self, text: str) -> None:
        if not self.quiet:
            self.report(text)

    def warn(self, message: str) -> None:
        if not self.quiet:
            click.echo(f"cachelint: warning: {_masked(message)}", err=True)

    def info(self, message: str) -> None:
        if self.verbose:
            click.echo(f"cachelint: {_masked(message)}", err=True)

    def flush(self) -> None:
        parts, self._parts = self._parts, []
        if self.silent:
            return
        pieces = (piece for part in parts for piece in ((part,) if isinstance(part, str) else part) if piece)
        if self.output_file:
            from cachelint.fileutil import atomic_write

            try:
                atomic_write(Path(self.output_file), (piece.encode("utf-8") for piece in pieces))
            except OSError as exc:
                _fail(f"cannot write {self.output_file}: {exc.strerror or exc}")
        else:
            for piece in pieces:
                click.echo(piece, nl=False, color=self.color, err=self.to_stderr)


def _check_window(since: str | None, until: str | None) -> None:
    """--since / --until are ISO dates or times (a usage error otherwise)."""
    if since is None and until is None:
        return
    from cachelint.payloads.readers.storage import TimeWindow

    try:
        TimeWindow.parse(since, until)
    except ValueError:
        _fail(f"--since / --until: not an ISO date or time: {since if since else until!r}")


def _use_color(choice: str, output_file: str | None) -> bool:
    """``--color always|never`` decide; ``auto`` (the default) colours a terminal only, and not a
    file: ``FORCE_COLOR`` (non-empty) turns colour on anywhere, ``NO_COLOR`` (non-empty) off."""
    if choice == "always":
        return True
    if choice == "never" or output_file:
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    if os.environ.get("NO_COLOR"):
        return False
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


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


def _is_configuration_error(exc: Exception) -> bool:
    from cachelint.catalog import CatalogError
    from cachelint.config import ConfigError

    return isinstance(exc, (ConfigError, CatalogError))


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
            if _is_configuration_error(exc):
                # a configuration (or a pack it names) met below the working directory while
                # the run walks the tree: the user's file, said as such, like the one at the top
                _fail(str(exc))
            if os.environ.get("CACHELINT_DEBUG"):
                raise
            click.echo(f"cachelint: internal error: {type(exc).__name__}: {exc}", err=True)
            sys.exit(EXIT_ERROR)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="cachelint")
def main() -> None:
    """Find what breaks the LLM prompt cache: in agent code, skill folders and request logs."""


def _common_report_options(func):
    func = click.option(
        "--color",
        type=click.Choice(["auto", "always", "never"]),
        default="auto",
        help="Colour the text output: auto (a terminal only; FORCE_COLOR / NO_COLOR respected), always, never.",
    )(func)
    func = click.option(
        "-v", "--verbose", is_flag=True, help="Also say what was read, with which configuration (stderr)."
    )(func)
    func = click.option(
        "-s", "--silent", is_flag=True, help="Print nothing; the exit code still says whether there are findings."
    )(func)
    func = click.option("-q", "--quiet", is_flag=True, help="Print the findings only: no totals, hints or warnings.")(
        func
    )
    func = click.option(
        "--baseline",
        type=click.Path(dir_okay=False),
        help="A JSON output of an earlier run: its findings are accepted and left out of the report.",
    )(func)
    func = click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings.")(func)
    func = click.option(
        "--fail-on",
        type=click.Choice(["info", "warning", "error"]),
        default="warning",
        show_default=True,
        envvar="CACHELINT_FAIL_ON",
        help="The least severity of a finding that makes the run exit 1: info (any finding), warning, error. Findings below it are still reported.",
    )(func)
    func = click.option(
        "--statistics",
        is_flag=True,
        help="Count findings per rule instead of listing them (JSON with --output-format json).",
    )(func)
    func = click.option(
        "-o",
        "--output-file",
        type=click.Path(dir_okay=False),
        envvar="CACHELINT_OUTPUT_FILE",
        help="Write the report to FILE.",
    )(func)
    func = click.option(
        "--config",
        "config",
        multiple=True,
        help="A config file for every input, or inline TOML such as 'select = [\"CL1\"]' over each input's own (repeatable).",
    )(func)
    func = click.option("--isolated", is_flag=True, help="Ignore configuration files.")(func)
    func = click.option(
        "--extend-select", multiple=True, help="Codes, prefixes or rule names to add to the selection."
    )(func)
    func = click.option("--ignore", multiple=True, help="Codes, prefixes or rule names to ignore (comma-separated).")(
        func
    )
    func = click.option(
        "--select",
        multiple=True,
        help="Codes, prefixes or rule names to enable (comma-separated), e.g. CL1,unordered-tools.",
    )(func)
    return func


def _selection_overrides(select, ignore, extend_select) -> dict:
    from cachelint.catalog import unknown_selectors

    overrides: dict = {}
    for key, values in (("select", select), ("ignore", ignore), ("extend-select", extend_select)):
        codes = _split_codes(values)
        if codes:
            bad = unknown_selectors(codes)
            if bad:
                _fail(
                    f"--{key}: unknown rule selector {bad[0]!r} (a code such as CL101, a prefix such as CL1, or a rule name; see 'cachelint rules')"
                )
            overrides[key] = codes
    return overrides


def _report_options(unsafe_fixes: bool, out: _Output):
    from cachelint.report import RenderOptions

    return RenderOptions(unsafe_fixes=unsafe_fixes, color=out.color)


def _read_stdin(stdin_filename: str | None, cwd: Path):
    from cachelint.engine import StdinInput

    display = stdin_filename or "-"
    # Without a name, stdin is Python (as in Ruff): it stands for a file of the working directory.
    path = cwd / stdin_filename if stdin_filename else cwd / "-.py"
    data = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read().encode("utf-8")
    return StdinInput(data=data, path=Path(os.path.abspath(path)), display=display)


@main.command()
@click.argument("paths", nargs=-1, type=click.Path())
@_common_report_options
@click.option(
    "--output-format",
    type=click.Choice(["concise", "full", "json", "json-lines", "sarif", "github", "gitlab", "junit"]),
    default=None,
    envvar="CACHELINT_OUTPUT_FORMAT",
    help="Output format (default concise; 'full' adds the source line, details and help). See docs/outputs.md.",
)
@click.option("--fix", is_flag=True, help="Apply safe fixes.")
@click.option(
    "--unsafe-fixes", is_flag=True, help="Also apply unsafe fixes (with --fix or --diff), and mark them fixable."
)
@click.option("--diff", "show_diff", is_flag=True, help="Print the fixes as a diff; write nothing.")
@click.option("--show-fixes", is_flag=True, help="With --fix: list what was fixed, per file and rule.")
@click.option(
    "--exit-non-zero-on-fix", is_flag=True, help="Exit 1 when --fix changed a file, even if nothing is left to report."
)
@click.option(
    "--extend-exclude",
    multiple=True,
    help="Patterns (gitignore syntax) to exclude as well as the configured ones (comma-separated).",
)
@click.option(
    "--stdin-filename",
    help="The name of the file read from stdin ('-'): its kind, configuration and the name findings carry.",
)
@click.option(
    "--add-noqa",
    is_flag=True,
    help="Add a suppression comment for every finding (files are rewritten only where they still read the same).",
)
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
    fail_on,
    baseline,
    quiet,
    silent,
    verbose,
    color,
    output_format,
    fix,
    unsafe_fixes,
    show_diff,
    show_fixes,
    exit_non_zero_on_fix,
    extend_exclude,
    stdin_filename,
    add_noqa,
    no_cache,
    force_exclude,
    jobs,
):
    """Check agent code (Python, notebooks) and skill folders under PATHS (default: .; '-' reads stdin)."""
    import time

    from cachelint.baseline import BaselineError
    from cachelint.engine import CheckOptions, run_check
    from cachelint.report import TEXT_FORMATS, render, render_statistics
    from cachelint.report.text import render_fixes, render_totals, totals_of

    started = time.monotonic()
    out = _Output(output_file, quiet, silent, verbose, color)
    cwd = Path.cwd().resolve()
    use_stdin = list(paths) == ["-"] or (not paths and stdin_filename is not None)
    if "-" in paths and not use_stdin:
        _fail("'-' (stdin) cannot be combined with other paths")
    if add_noqa and (fix or show_diff or use_stdin):
        _fail("--add-noqa writes suppressions into files: not with --fix, --diff or stdin")
    if use_stdin and fix and output_file:
        _fail("--fix with stdin prints the fixed text on stdout; -o is for the report of files")
    overrides = _selection_overrides(select, ignore, extend_select)
    if extend_exclude:
        overrides["extend-exclude"] = _split_codes(extend_exclude)
    resolver = _resolver(config, isolated, overrides)
    settings = resolver.default()
    options = CheckOptions(
        fix=fix,
        unsafe_fixes=unsafe_fixes,
        diff=show_diff,
        no_cache=no_cache,
        force_exclude=force_exclude,
        jobs=jobs,
        stdin=_read_stdin(stdin_filename, cwd) if use_stdin else None,
        baseline=baseline,
    )
    try:
        result = run_check(list(paths) or ["."], settings, options, cwd, resolver=resolver)
    except BaselineError as exc:
        _fail(str(exc))
    for warning in result.warnings:
        out.warn(warning)
    for where, count in sorted(result.configurations.items(), key=lambda kv: (kv[0] is not None, kv[0] or "")):
        out.info(
            f"{count} file{'s' if count != 1 else ''} checked with {where or 'the default settings (no configuration file)'}"
        )
    out.info(
        f"{result.files_checked} file{'s' if result.files_checked != 1 else ''} checked in {time.monotonic() - started:.2f} s"
    )
    if add_noqa:
        from cachelint.noqa import write_suppressions

        written = write_suppressions(result.diagnostics, cwd, settings.max_file_size)
        for warning in written.warnings:
            out.warn(warning)
        out.totals(
            f"Added {written.added} suppression{'s' if written.added != 1 else ''}"
            f" to {written.files} file{'s' if written.files != 1 else ''}.\n"
        )
        out.flush()
        _exit_on_internal_errors(result.diagnostics)
        sys.exit(EXIT_CLEAN)
    if use_stdin and fix:
        # As Ruff: the buffer, fixed, on stdout (what an editor's format-on-save replaces the
        # buffer with); what remains to report on stderr.
        assert options.stdin is not None
        sys.stdout.buffer.write(result.stdin_fixed if result.stdin_fixed is not None else options.stdin.data)
        sys.stdout.flush()
        out.to_stderr = True
    if show_diff:
        out.report("".join(result.diffs))
        out.flush()
        if not exit_zero and result.diffs:
            sys.exit(EXIT_FINDINGS)
        sys.exit(EXIT_CLEAN)
    fmt = output_format or "concise"
    report_options = _report_options(unsafe_fixes, out)
    totals = totals_of(
        result.diagnostics,
        result.files_checked,
        report_options,
        fixed=result.fixed if fix else None,
        baselined=result.baselined,
    )
    if statistics:
        out.report(render_statistics(fmt, result.diagnostics, report_options))
    else:
        out.report(render(fmt, result.diagnostics, options=report_options))
        if fmt in TEXT_FORMATS:
            if fix and show_fixes:
                out.totals(("\n" if result.diagnostics else "") + render_fixes(totals))
            out.totals(
                ("\n" if result.diagnostics and fmt == "full" else "")
                + render_totals(totals, report_options, rule_help=fmt == "concise")
            )
    out.flush()
    _exit_on_internal_errors(result.diagnostics)
    if exit_non_zero_on_fix and fix and result.fixed:
        sys.exit(EXIT_FINDINGS)
    if not exit_zero and _fails(result.diagnostics, fail_on):
        sys.exit(EXIT_FINDINGS)
    sys.exit(EXIT_CLEAN)


def _fails(diagnostics, fail_on: str) -> bool:
    """Whether a finding is at least as severe as ``--fail-on`` (its own severity, else its rule's):
    by default a run whose findings are all information (a break that lost nothing cached) passes."""
    from cachelint.diagnostics import Severity
    from cachelint.report.common import severity_of

    least = Severity(fail_on).rank
    return any(severity_of(d).rank >= least for d in diagnostics)


def _exit_on_internal_errors(diagnostics) -> None:
    """Exit 2 after the report when cachelint failed on an input (CL003): its result is not
    complete, whatever ``--exit-zero`` says about findings."""
    from cachelint.diagnostics import INTERNAL_ERROR

    if any(d.code == INTERNAL_ERROR for d in diagnostics):
        click.echo("cachelint: internal error on some inputs (CL003 above): the result is not complete", err=True)
        sys.exit(EXIT_ERROR)


def _audit_output_format(help_text: str):
    """``--output-format`` of the commands that end with an audit report (``audit``, ``run``)."""
    return click.option(
        "--output-format",
        type=click.Choice(["concise", "full", "json", "json-lines", "sarif", "github", "gitlab", "junit", "html"]),
        default=None,
        envvar="CACHELINT_OUTPUT_FORMAT",
        help=help_text,
    )


@main.command()
@click.argument("logs", nargs=-1, required=False, type=click.Path())
@_common_report_options
@_audit_output_format(
    "Output format (default full: each session, then its breaks with the byte diff and their cost). See docs/outputs.md."
)
@click.option(
    "--input-format",
    type=click.Choice(["auto", *LOG_FORMAT_NAMES]),
    default="auto",
    help="Force the log format instead of detecting it (docs/audit.md lists the formats).",
)
@click.option(
    "--time-field",
    metavar="FIELD",
    default=None,
    help="The record field that holds each request's time, when it is none of those read by default (a dotted path: meta.sent_at). Config: [audit] time-field.",
)
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes that read and decode JSONL logs (default: the CPUs; 1: one process). Same findings whatever the number. Config: [audit] jobs. See docs/scale.md.",
)
@click.option(
    "--chunk-size",
    type=click.IntRange(min=1),
    default=None,
    metavar="BYTES",
    help="Bytes of a JSONL log each worker reads at a time (default 32 MiB); less JSONL than this in all is audited in one process. Config: [audit] chunk-size.",
)
@click.option(
    "--engine",
    type=click.Choice(["local", "dask"]),
    default=None,
    help="Where the workers run: local processes (default) or a Dask cluster (pip install 'prefix-cache-lint[dask]'; a LocalCluster of --jobs workers without --scheduler).",
)
@click.option(
    "--scheduler",
    metavar="ADDRESS",
    default=None,
    help="The Dask scheduler to run the workers on (tcp://host:8786); implies --engine dask. The workers must read the logs at the same paths.",
)
@click.option(
    "--since",
    metavar="TIME",
    default=None,
    help="Audit only the requests sent at or after this ISO date or time (UTC when no zone; requests without a time are kept and counted); in object storage (s3://, gs://, az://), time partitions (year=/month=/day=/hour=) that end before it are not read.",
)
@click.option(
    "--until",
    metavar="TIME",
    default=None,
    help="Audit only the requests sent at or before this ISO date or time (a date alone: its whole day); in object storage, time partitions that start after it are not read.",
)
@click.option(
    "--coding-agent",
    type=click.Choice(["claude", "codex", "gemini", "opencode"]),
    default=None,
    help="Read a coding agent's session files: those named, or its own folder when none is (~/.claude/projects, ~/.codex/sessions, ~/.gemini/tmp, OpenCode's opencode.db and storage/session in ~/.local/share/opencode; CLAUDE_CONFIG_DIR / CODEX_HOME / GEMINI_CLI_HOME / XDG_DATA_HOME move them). See docs/coding-agents.md.",
)
@click.option(
    "--follow",
    is_flag=True,
    help="Tail the session files and print each prefix rebuild as it happens, one line each (Ctrl-C stops).",
)
def audit(
    logs,
    select,
    ignore,
    extend_select,
    isolated,
    config,
    output_file,
    statistics,
    exit_zero,
    fail_on,
    baseline,
    quiet,
    silent,
    verbose,
    color,
    output_format,
    input_format,
    time_field,
    jobs,
    chunk_size,
    engine,
    scheduler,
    since,
    until,
    coding_agent,
    follow,
):
    """Audit captured request logs (JSONL, JSON, HAR, VCR cassettes, .gz, folders) and coding-agent
    session files (Claude Code, Codex CLI) for cache breaks.

    Exit 1 when there are findings, 2 when no LLM request was read from any input."""
    from cachelint.api import BaselineError, audit_logs
    from cachelint.payloads import AuditOptions
    from cachelint.report import TEXT_FORMATS, render, render_parts, render_statistics
    from cachelint.report.text import render_totals, totals_of

    out = _Output(output_file, quiet, silent, verbose, color)
    fmt = output_format or "full"
    if fmt == "html" and not output_file:
        _fail("--output-format html needs -o FILE")
    logs, input_format = _agent_inputs(logs, input_format, coding_agent)
    resolver = _resolver(config, isolated, _selection_overrides(select, ignore, extend_select))
    if follow:
        _follow(logs, input_format, resolver)
    options = AuditOptions(
        input_format=input_format,
        time_field=time_field,
        baseline=baseline,
        progress=sys.stderr.isatty() and not os.environ.get("CI") and not out.quiet,
        timeline=fmt == "html",  # only the HTML report draws one bar per request
        jobs=jobs,
        chunk_size=chunk_size,
        engine=engine or ("dask" if scheduler else "local"),
        scheduler=scheduler,
        since=since,
        until=until,
    )
    _check_window(since, until)
    if options.engine != "dask" and scheduler:
        _fail("--scheduler needs --engine dask")
    from cachelint.payloads import EngineError

    try:
        result = audit_logs(list(logs), None, options, Path.cwd().resolve(), resolver=resolver)
    except (BaselineError, EngineError) as exc:
        _fail(str(exc))
    for warning in result.warnings:
        out.warn(warning)
    summary = result.summary
    out.info(
        f"{summary.files} files read ({', '.join(f'{k}: {v}' for k, v in summary.formats.items()) or 'no format'}),"
        f" {summary.records} records, {summary.requests} LLM requests"
    )
    report_options = _report_options(False, out)
    nothing_read = summary.requests == 0 and summary.failed == 0
    if statistics:
        out.report(render_statistics(fmt, result.diagnostics, report_options))
    elif nothing_read and fmt in TEXT_FORMATS:
        out.report(render("concise", result.diagnostics, options=report_options))  # what each file is
    else:
        out.report(render_parts(fmt, result.diagnostics, summary=summary, options=report_options))
        if fmt in TEXT_FORMATS:
            totals = totals_of(
                result.diagnostics, summary.files, report_options, verb="read", baselined=summary.baselined
            )
            out.totals(render_totals(totals, report_options, rule_help=fmt == "concise"))
    out.flush()
    if nothing_read:
        from cachelint.report.audit_text import nothing_read_message

        _fail(nothing_read_message(summary))
    _exit_on_internal_errors(result.diagnostics)
    if not exit_zero and _fails(result.diagnostics, fail_on):
        sys.exit(EXIT_FINDINGS)
    sys.exit(EXIT_CLEAN)


def _agent_inputs(logs: tuple[str, ...], input_format: str, coding_agent: str | None) -> tuple[tuple[str, ...], str]:
    """The logs to read and their format: with ``--coding-agent``, the agent's session format, and
    its own folder when no path is named (nothing else is read)."""
    if coding_agent is None:
        if not logs:
            _fail(
                "name the logs to audit (LOG...), or --coding-agent claude|codex|gemini|opencode to read a coding agent's session files"
            )
        return logs, input_format
    from cachelint.transcripts.locations import AGENT_FORMATS, default_folder, session_paths

    if input_format == "auto":
        input_format = AGENT_FORMATS[coding_agent]
    if logs:
        return logs, input_format
    found = session_paths(coding_agent)
    if not found:
        folder = default_folder(coding_agent)
        what = "is not a folder" if not folder.is_dir() else "holds no session store"
        _fail(f"no {coding_agent} session files: {folder} {what} (name the files or folder to read)")
    return tuple(str(path) for path in found), input_format


def _follow(logs: tuple[str, ...], input_format: str, resolver) -> NoReturn:
    """``--follow``: tail the session files, one line a rebuild on stdout, until interrupted."""
    from cachelint.masking import masker
    from cachelint.transcripts.audit import new_run
    from cachelint.transcripts.follow import Follower, follow_roots

    cwd = Path.cwd().resolve()
    settings = resolver.for_path(cwd / logs[0])
    from cachelint.transcripts.locations import AGENT_FORMATS

    agent = input_format if input_format in AGENT_FORMATS.values() else None
    if agent == "opencode":
        # its stores change in place (a database, files rewritten whole): there are no lines to tail
        _fail("--follow does not read OpenCode's session stores: audit them again instead (docs/coding-agents.md)")
    follower = Follower(new_run(settings), follow_roots(logs, cwd), agent)
    count = follower.start()
    mask = masker(settings.pack_paths()).mask
    click.echo(
        f"cachelint: following {count} session file(s) in {', '.join(logs)}; one line a prefix rebuild (Ctrl-C stops)",
        err=True,
    )
    try:
        follower.follow(lambda line: click.echo(mask(line)))
    except KeyboardInterrupt:
        pass
    sys.exit(EXIT_CLEAN)


def _proxy_options(func):
    """The options ``proxy`` and ``run`` share: where requests go, and the scripted model."""
    func = click.option(
        "--no-live", is_flag=True, help="Do not print each cache break as it happens (the capture is written alike)."
    )(func)
    func = click.option(
        "--fake-model",
        "fake_model",
        is_flag=False,
        flag_value="",
        default=None,
        metavar="[SCRIPT]",
        help="Answer locally in each provider's wire format instead of forwarding (no key, no network): call each "
        "offered tool once, then answer with text; SCRIPT (YAML/JSON) says which tools each answer calls. "
        "Write --fake-model=SCRIPT, or put -- before the command. See docs/capture.md.",
    )(func)
    func = click.option(
        "--upstream",
        "upstreams",
        multiple=True,
        metavar="NAME=URL",
        help="Send route NAME (anthropic, openai, gemini, or a new one) to URL: a gateway or an OpenAI-compatible "
        "server (repeatable).",
    )(func)
    return func


def _proxy_setup(capture, upstreams, fake_model, no_live, config, isolated, host="127.0.0.1", port=0, **more):
    from cachelint.proxy.launch import ProxyError, ProxyOptions, parse_upstreams

    try:
        parsed = parse_upstreams(upstreams)
    except ProxyError as exc:
        _fail(str(exc))
    return ProxyOptions(
        capture=Path(capture),
        settings=_load_settings(config, isolated),
        host=host,
        port=port,
        upstreams=parsed,
        fake_model=fake_model,
        live=not no_live,
        environ=dict(os.environ),
        **more,
    )


def _started_proxy(options):
    from cachelint.proxy.launch import ProxyError, build_proxy, stderr_report

    try:
        server = build_proxy(options, stderr_report)
        return server.start()
    except ProxyError as exc:
        _fail(str(exc))
    except OSError as exc:
        _fail(f"cannot listen on {options.host}:{options.port}: {exc.strerror or exc}")


@main.command()
@click.option(
    "--listen",
    default="127.0.0.1:8787",
    show_default=True,
    metavar="HOST:PORT",
    help="Where to listen (port 0: any free port). Loopback only unless --allow-remote.",
)
@click.option(
    "-o",
    "--output",
    "capture",
    default="capture.jsonl",
    show_default=True,
    type=click.Path(dir_okay=False),
    help="The capture file (JSONL, appended to): what 'cachelint audit' reads.",
)
@_proxy_options
@click.option(
    "--allow-remote",
    is_flag=True,
    help="Allow listening on an address other than loopback. Risky: whoever reaches it can spend the keys the "
    "requests carry and read the prompts it records.",
)
@click.option("--session", help="Tag every record with this session id (the audit groups by it).")
@click.option("--config", "config", multiple=True)
@click.option("--isolated", is_flag=True)
def proxy(listen, capture, upstreams, fake_model, no_live, allow_remote, session, config, isolated):
    """Record the requests any agent sends (in any language): a local reverse proxy for the Anthropic,
    OpenAI (Chat Completions, Responses), Gemini and OpenAI-compatible APIs. Point the agent's base URL at
    it; each cache break is printed as it happens; Ctrl-C stops. Then: cachelint audit CAPTURE."""
    import threading

    from cachelint.proxy.launch import banner, stderr_report
    from cachelint.proxy.routes import parse_listen

    try:
        host, port = parse_listen(listen)
    except ValueError as exc:
        _fail(f"--listen: {exc}")
    options = _proxy_setup(
        capture,
        upstreams,
        fake_model,
        no_live,
        config,
        isolated,
        host,
        port,
        allow_remote=allow_remote,
        session=session,
    )
    server = _started_proxy(options)
    for line in banner(server, options):  # the export lines bare, to be copied
        click.echo(line if line.startswith(" ") else f"cachelint: {line}", err=True)
    try:
        threading.Event().wait()  # until Ctrl-C or SIGTERM: both the ordinary way to stop a server
    except (KeyboardInterrupt, _Terminated):
        pass
    finally:
        server.stop()
        stderr_report(
            f"{server.recorder.written} exchange{'s' if server.recorder.written != 1 else ''} captured in "
            f"{options.capture}; audit them: cachelint audit {options.capture}"
        )
    sys.exit(EXIT_CLEAN)


@main.command(context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
@_common_report_options
@_audit_output_format("Output format of the audit (default full). See docs/outputs.md.")
@click.option(
    "--capture",
    type=click.Path(dir_okay=False),
    default=None,
    help="Keep the capture of this run in FILE (replaced); by default it goes to a temporary file, removed after the audit.",
)
@_proxy_options
@click.pass_context
def run(ctx, /, command, capture, upstreams, fake_model, no_live, output_format, **report_options):
    """Run COMMAND through the recording proxy, then audit what it sent: the usual report and exit code.

    The proxy takes a free port on 127.0.0.1; the command gets ANTHROPIC_BASE_URL, OPENAI_BASE_URL and the
    other base-URL variables SDKs and coding agents read (docs/capture.md). Exit 2 also when the command
    failed or sent nothing through the proxy."""
    import shutil
    import tempfile

    from cachelint.proxy.launch import ProxyError, child_environment, describe_exit, run_command, stderr_report

    temporary = None
    if capture is None:
        temporary = tempfile.mkdtemp(prefix="cachelint-run-")
        capture = os.path.join(temporary, "capture.jsonl")
    else:
        try:  # the capture of this run, not of the runs before it
            Path(capture).parent.mkdir(parents=True, exist_ok=True)
            Path(capture).write_bytes(b"")
        except OSError as exc:
            _fail(f"cannot write {capture}: {exc.strerror or exc}")
    try:
        quiet = no_live or report_options["silent"]  # -s prints nothing, live lines included
        options = _proxy_setup(
            capture, upstreams, fake_model, quiet, report_options["config"], report_options["isolated"]
        )
        server = _started_proxy(options)
        try:
            if not report_options["quiet"] and not report_options["silent"]:
                mode = " (scripted model)" if fake_model is not None else ""
                stderr_report(f"running {' '.join(command)} through {server.base_url}{mode}")
            status = run_command(command, child_environment(server, options))
        except ProxyError as exc:
            _fail(str(exc))
        finally:
            server.stop()
        if server.recorder.written == 0:
            names = ", ".join(v.name for v in server.routes.variables)
            _fail(
                f"the command {describe_exit(status)} and sent no request through the proxy: does it read its base "
                f"URL from {names}, or set one in its code?"
            )
        code = EXIT_CLEAN
        try:
            ctx.invoke(
                audit,
                logs=(capture,),
                output_format=output_format,
                input_format="jsonl",
                time_field=None,
                jobs=1,
                chunk_size=None,
                engine=None,
                scheduler=None,
                **report_options,
            )
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else EXIT_ERROR
        if status != 0:
            click.echo(f"cachelint: error: the command {describe_exit(status)}", err=True)
            code = EXIT_ERROR
        sys.exit(code)
    finally:
        if temporary is not None:
            shutil.rmtree(temporary, ignore_errors=True)


@main.command()
@click.argument("directory", type=click.Path(exists=True, file_okay=False), default=".")
@click.option(
    "--write", "write_file", type=click.Path(dir_okay=False), help="Write the index into FILE between markers."
)
@click.option("--check", "check_file", type=click.Path(dir_okay=False), help="Exit 1 when FILE's index block is stale.")
@click.option("--diff", "show_diff", is_flag=True, help="With --write: print the change as a diff; write nothing.")
@click.option(
    "--listing",
    is_flag=True,
    help="Print each loader's listing of skill names and descriptions against its budget (CL207), over it or not.",
)
@click.option(
    "--output-format",
    "listing_format",
    type=click.Choice(["text", "json", "markdown"]),
    default="text",
    help="With --listing (markdown: tables with a bar per listing, for a CI job's summary).",
)
@click.option("--config", "config", multiple=True)
@click.option("--isolated", is_flag=True)
def index(directory, write_file, check_file, show_diff, listing, listing_format, config, isolated):
    """Print the skill index rendered from the SKILL.md files under DIRECTORY (sorted by name)."""
    from cachelint.skills.indexer import IndexFileError, check_index, render_index, write_index

    root = Path(directory)
    # the configuration closest to DIRECTORY, as `check` reads the files under it (a bad one there
    # is the user's error, said in one line)
    settings = _resolver(config, isolated).for_path(root)
    if listing:
        if write_file or check_file:
            _fail("--listing prints the listings; it takes neither --write nor --check")
        from cachelint.skills.listing import (
            listing_json,
            listing_report,
            render_listing_markdown,
            render_listing_text,
        )

        measures = listing_report(root, settings)
        if listing_format == "json":
            _emit(json.dumps(listing_json(measures), indent=2, ensure_ascii=False) + "\n", None)
        elif listing_format == "markdown":
            _emit(render_listing_markdown(measures), None)
        else:
            _emit(render_listing_text(measures), None)
        sys.exit(EXIT_CLEAN)
    if write_file and check_file:
        _fail("--write and --check exclude each other")
    if show_diff and not write_file:
        _fail("--diff previews --write FILE")
    try:
        if check_file:
            ok, message = check_index(root, Path(check_file), settings)
            click.echo(message, err=True)
            sys.exit(EXIT_CLEAN if ok else EXIT_FINDINGS)
        if write_file:
            changed, message, complete = write_index(root, Path(write_file), settings, diff=show_diff)
            if show_diff and changed:
                click.echo(message, nl=False)
            else:
                click.echo(message, err=True)
            # as --fix: exit 1 while something is left to fix by hand (a skill the index cannot list)
            sys.exit(EXIT_CLEAN if complete else EXIT_FINDINGS)
    except (IndexFileError, OSError) as exc:  # markers out of order, unreadable or unwritable file
        _fail(str(exc))
    _emit(render_index(root, settings), None)
    sys.exit(EXIT_CLEAN)


@main.command("server")
def server_cmd():
    """Run the language server on stdin/stdout (for editors; see docs/editors.md)."""
    import importlib.util

    if importlib.util.find_spec("pygls") is None:
        _fail("cachelint server needs pygls: pip install 'prefix-cache-lint[lsp]' (see docs/editors.md)")
    from cachelint.server import serve_stdio

    serve_stdio()


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
    lines = [
        f"{r.code}  {r.name:<{width}}  {r.status:<7}  {r.severity.value:<7}  {r.summary}" for r in catalog.values()
    ]
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
@click.argument("path", required=False, type=click.Path())
@click.option("--config", "config", multiple=True)
def config_validate(path, config):
    """Validate the configuration in force (for PATH: the one closest to it); exit 2 with the first problem."""
    resolver = _resolver(config, False)
    settings = resolver.for_path(Path(path)) if path else resolver.default()
    where = settings.config_path or "no configuration file (defaults)"
    click.echo(f"{where}: ok")


@config_group.command("show")
@click.argument("path", required=False, type=click.Path())
@click.option("--config", "config", multiple=True)
def config_show(path, config):
    """Print the resolved settings as JSON (for PATH: those of the configuration closest to it)."""
    from cachelint.catalog import CatalogError
    from cachelint.config import ConfigError

    resolver = _resolver(config, False)
    try:
        settings = resolver.for_path(Path(path)) if path else resolver.default()
    except (ConfigError, CatalogError) as exc:
        _fail(str(exc))
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
