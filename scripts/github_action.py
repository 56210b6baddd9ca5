"""The run step of cachelint's GitHub Action (action.yml): `cachelint check`, optionally
`cachelint audit`, each written as SARIF (for code scanning) and as workflow annotations.

The action passes its inputs as environment variables; the runner provides the rest:

  INPUT_PATHS             paths to check, split like a shell command line (default ".")
  INPUT_ARGS              extra arguments for `cachelint check` (e.g. "--select CL1")
  INPUT_AUDIT_PATHS       request logs to audit; empty: no audit
  INPUT_AUDIT_ARGS        extra arguments for `cachelint audit`
  INPUT_FAIL_ON_FINDINGS  "true" (default): exit 1 when either command finds something
  GITHUB_WORKSPACE        where the commands run (paths in the output are relative to it)
  RUNNER_TEMP             where the SARIF files are written (cachelint-sarif/)
  GITHUB_OUTPUT           step outputs: check-sarif, audit-sarif, check-exit-code,
                          audit-exit-code, findings
  GITHUB_STEP_SUMMARY     a short Markdown table of what was found

Annotations go to standard output, where the runner reads workflow commands. Exit status: 2 when
a command fails with a usage, configuration or internal error (whatever fail-on-findings says),
1 when there are findings and fail-on-findings is true, else 0. The SARIF files are written in
every case, so that the upload step (run with `always()`) has something to upload.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

TRUE = {"true", "yes", "1", "on"}
FALSE = {"false", "no", "0", "off"}


class InputError(Exception):
    """An input the action cannot use (exit 2)."""


@dataclass(frozen=True)
class Outcome:
    command: str  # "check" or "audit"
    exit_code: int  # of the SARIF run: 0 clean, 1 findings, 2 error
    sarif: Path
    results: int  # results in the SARIF file (-1 when it could not be read)


def flag(env: Mapping[str, str], name: str, default: bool) -> bool:
    raw = env.get(name, "").strip().lower()
    if not raw:
        return default
    if raw in TRUE:
        return True
    if raw in FALSE:
        return False
    raise InputError(f"{name.removeprefix('INPUT_').lower().replace('_', '-')}: expected true or false, got {raw!r}")


def words(env: Mapping[str, str], name: str, default: str = "") -> list[str]:
    try:
        return shlex.split(env.get(name) or default)
    except ValueError as exc:
        raise InputError(f"{name.removeprefix('INPUT_').lower().replace('_', '-')}: {exc}") from exc


def sarif_results(path: Path) -> int:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        return sum(len(run.get("results", [])) for run in doc["runs"])
    except (OSError, ValueError, KeyError, TypeError):
        return -1


def cachelint_command() -> list[str]:
    """The console script installed beside this interpreter: unlike ``python -m cachelint`` it
    does not put the working directory (the user's workspace) first on the import path."""
    script = Path(sys.executable).with_name("cachelint")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "cachelint"]


def run_command(command: str, args: Sequence[str], sarif: Path, cwd: Path) -> Outcome:
    """One cachelint command twice: SARIF to a file, then annotations to stdout (the second run
    reads the result cache the first one wrote, for `check`)."""
    base = [*cachelint_command(), command, *args]
    sys.stdout.flush()
    done = subprocess.run([*base, "--output-format", "sarif", "-o", str(sarif)], cwd=cwd)
    if done.returncode in (0, 1):
        sys.stdout.flush()
        subprocess.run([*base, "--output-format", "github"], cwd=cwd)
    else:
        print(
            f"::error title=cachelint {command}::cachelint {command} exited {done.returncode} (usage, configuration or internal error; see the log above)"
        )
    return Outcome(command, done.returncode, sarif, sarif_results(sarif) if sarif.is_file() else -1)


def write_outputs(env: Mapping[str, str], outcomes: Sequence[Outcome]) -> None:
    by_name = {o.command: o for o in outcomes}
    lines = []
    for name in ("check", "audit"):
        outcome = by_name.get(name)
        usable = outcome is not None and outcome.exit_code in (0, 1) and outcome.sarif.is_file()
        lines.append(f"{name}-sarif={outcome.sarif if usable else ''}")
        lines.append(f"{name}-exit-code={outcome.exit_code if outcome else ''}")
    lines.append(f"findings={'true' if any(o.exit_code == 1 for o in outcomes) else 'false'}")
    if env.get("GITHUB_OUTPUT"):
        with open(env["GITHUB_OUTPUT"], "a", encoding="utf-8") as handle:
            handle.write("".join(line + "\n" for line in lines))
    if env.get("GITHUB_STEP_SUMMARY"):
        rows = ["| command | result | SARIF results |", "|---|---|---|"]
        for o in outcomes:
            result = {0: "clean", 1: "findings"}.get(o.exit_code, f"error (exit {o.exit_code})")
            rows.append(f"| `cachelint {o.command}` | {result} | {o.results if o.results >= 0 else '–'} |")
        with open(env["GITHUB_STEP_SUMMARY"], "a", encoding="utf-8") as handle:
            handle.write("### cachelint\n\n" + "\n".join(rows) + "\n")


def main(env: Mapping[str, str] = os.environ) -> int:
    try:
        fail_on_findings = flag(env, "INPUT_FAIL_ON_FINDINGS", True)
        check_args = words(env, "INPUT_PATHS", ".") + words(env, "INPUT_ARGS")
        audit_paths = words(env, "INPUT_AUDIT_PATHS")
        audit_args = audit_paths + words(env, "INPUT_AUDIT_ARGS")
    except InputError as exc:
        print(f"::error title=cachelint::{exc}")
        return 2
    workspace = Path(env.get("GITHUB_WORKSPACE") or os.getcwd())
    out_dir = Path(env.get("RUNNER_TEMP") or tempfile.mkdtemp()) / "cachelint-sarif"
    out_dir.mkdir(parents=True, exist_ok=True)
    outcomes = [run_command("check", check_args, out_dir / "check.sarif", workspace)]
    if audit_paths:
        outcomes.append(run_command("audit", audit_args, out_dir / "audit.sarif", workspace))
    write_outputs(env, outcomes)
    if any(o.exit_code not in (0, 1) for o in outcomes):
        return 2
    return 1 if fail_on_findings and any(o.exit_code == 1 for o in outcomes) else 0


if __name__ == "__main__":
    sys.exit(main())
