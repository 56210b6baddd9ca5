"""Same input, same bytes out: whatever PYTHONHASHSEED, whatever order the file system lists
directories in, whatever the number of worker processes, with or without the cache — for check
and audit, in every output format (html included for audits).

tests/test_determinism.py checks the examples under three seeds; this one widens the input (the
bad-input corpus, the examples, a tree large enough for the process pool, logs of every format)
and the sources of variation (directory order forced by determinism_driver.py).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .helpers import CORPUS
from conftest import HANG_GUARD

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
DRIVER = HERE / "determinism_driver.py"

# (PYTHONHASHSEED, directory order): "random" is a fresh salt every process.
RUNS = [("0", "sorted"), ("1", "reversed"), ("random", "shuffled")]


def build_tree(root: Path) -> Path:
    shutil.copytree(REPO / "examples", root / "examples", ignore=shutil.ignore_patterns(".cachelint_cache"))
    shutil.copytree(CORPUS / "check", root / "corpus")
    skills = root / "skills"
    for name in ("alpha", "beta", "gamma"):  # CL206-style clusters and CL203 sort by name
        (skills / name).mkdir(parents=True)
        (skills / name / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: Automate {name} tasks via the API.\n---\n"
        )
    # a finding whose details are not in key order ({"name", "folder"}): a cache that sorted keys
    # printed them in another order on warm runs
    (skills / "delta").mkdir()
    (skills / "delta" / "SKILL.md").write_text(
        "---\nname: delta-skill\ndescription: Automate delta tasks via the API.\n---\n"
    )
    # enough source for the process pool (engine.scheduler.POOL_MIN_BYTES), findings in many files
    pool = root / "pool"
    pool.mkdir()
    agent = (CORPUS / "check" / "good_flagged.py").read_text()
    filler = "".join(f"CONSTANT_{k} = '{'x' * 60}'\n" for k in range(160))
    for i in range(48):
        (pool / f"agent_{i:02d}.py").write_text(agent.replace('"search"', f'"search_{i}"') + filler)
    logs = root / "logs"
    shutil.copytree(CORPUS / "audit", logs)
    shutil.copy(REPO / "examples" / "logs" / "backoffice-session.jsonl", logs / "backoffice-session.jsonl")
    return root


def run_driver(cwd: Path, seed: str, order: str, *args: str) -> dict:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    env.pop("CACHELINT_OUTPUT_FORMAT", None)
    proc = subprocess.run(
        [sys.executable, str(DRIVER), order, *args], cwd=cwd, capture_output=True, env=env, timeout=HANG_GUARD
    )
    assert proc.returncode == 0, proc.stderr.decode()[-2000:]
    return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    return build_tree(tmp_path_factory.mktemp("determinism"))


def assert_identical(results: list[dict], what: str) -> None:
    first = results[0]
    assert first["exit"] == 1
    for other, (seed, order) in zip(results[1:], RUNS[1:]):
        for fmt, text in first["outputs"].items():
            assert other["outputs"][fmt] == text, (
                f"{what} --output-format {fmt} differs under PYTHONHASHSEED={seed}, {order} order"
            )


def test_check_output_is_byte_identical(tree):
    results = [
        run_driver(tree, seed, order, "check", "--isolated", "--no-cache", "-j", "2", ".") for seed, order in RUNS
    ]
    assert_identical(results, "check")
    findings = json.loads(results[0]["outputs"]["json"])
    paths = {d["path"].split("/")[0] for d in findings}
    assert {"corpus", "examples", "pool", "skills"} <= paths  # every part of the tree produced findings


def test_check_output_is_the_same_with_one_worker_and_with_the_cache(tree, tmp_path):
    baseline = run_driver(tree, "0", "sorted", "check", "--isolated", "--no-cache", "-j", "2", ".")
    work = shutil.copytree(tree, tmp_path / "t")
    (work / "cachelint.toml").write_text("")  # a config file: the cache goes into the tree
    one_worker = run_driver(work, "1", "reversed", "check", "--no-cache", "-j", "1", ".")
    cold = run_driver(work, "random", "shuffled", "check", "-j", "2", ".")
    warm = run_driver(work, "random", "reversed", "check", "-j", "2", ".")
    assert (work / ".cachelint_cache").is_dir()
    for name, result in (("one worker", one_worker), ("cold cache", cold), ("warm cache", warm)):
        for fmt, text in baseline["outputs"].items():
            assert result["outputs"][fmt] == text, f"check --output-format {fmt} differs with {name}"


def test_audit_output_is_byte_identical(tree):
    results = [run_driver(tree, seed, order, "audit", "--isolated", "logs") for seed, order in RUNS]
    assert_identical(results, "audit")
    findings = json.loads(results[0]["outputs"]["json"])["findings"]
    assert {d["code"] for d in findings} >= {"CL001", "CL301"}
    assert len({d["path"] for d in findings}) >= 8
