"""The result cache as a user meets it: a second run answers from .cachelint_cache, edits are seen,
a damaged cache is discarded with a warning, --no-cache leaves no trace, and the warm run stays
light (no parser, schema validator or check modules imported)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import cachelint.code
import cachelint.skills
from cachelint import cachefile
from cachelint.diagnostics import Diagnostic
from conftest import check_with_cache, REPO, write_tree


pytestmark = pytest.mark.usefixtures("frozen_code_stamp")
run = check_with_cache


@pytest.fixture
def calls(monkeypatch):
    """Counts the files the code checks actually analyse; reports CL101 on files saying FLAG."""
    seen: list[str] = []

    def fake_check(path, text, settings, project_summaries=None):
        seen.append(path)
        if "FLAG" in text:
            return [Diagnostic(code="CL101", message="flagged for the test", path=path, line=1, column=1)]
        return []

    monkeypatch.setattr(cachelint.code, "check_module", fake_check)
    monkeypatch.setattr(cachelint.code, "summarize_module", lambda path, text, settings=None: {"functions": {}})
    return seen


def results_files(root: Path) -> list[Path]:
    return sorted((root / ".cachelint_cache").glob("results-*.json"))


def test_second_run_answers_from_the_cache(tmp_path, calls):
    write_tree(tmp_path, {"a.py": "x = 1\n", "b.py": "y = 2\n"})
    run(tmp_path)
    assert sorted(calls) == ["a.py", "b.py"]
    calls.clear()
    run(tmp_path)
    assert calls == []


def test_files_with_findings_are_cached_too(tmp_path, calls):
    write_tree(tmp_path, {"agent.py": "# FLAG\n"})
    first = run(tmp_path)
    calls.clear()
    second = run(tmp_path)
    assert calls == []
    assert [d.code for d in second.diagnostics] == ["CL101"]
    assert second.diagnostics == first.diagnostics


def test_a_content_change_is_a_miss_for_that_file_only(tmp_path, calls):
    write_tree(tmp_path, {"a.py": "x = 1\n", "b.py": "y = 2\n"})
    run(tmp_path)
    calls.clear()
    (tmp_path / "a.py").write_text("x = 1  # FLAG\n")
    result = run(tmp_path)
    assert calls == ["a.py"]
    assert [(d.code, d.path) for d in result.diagnostics] == [("CL101", "a.py")]


def test_an_mtime_only_change_is_a_hit(tmp_path, calls):
    write_tree(tmp_path, {"a.py": "x = 1\n"})
    run(tmp_path)
    calls.clear()
    st = os.stat(tmp_path / "a.py")
    os.utime(tmp_path / "a.py", ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    run(tmp_path)
    assert calls == []
    # the new mtime was recorded: the next run does not even hash the file
    entry = cachefile.body_of(results_files(tmp_path)[0])["files"][str(tmp_path / "a.py")]
    assert entry["mtime_ns"] == st.st_mtime_ns + 5_000_000_000


def test_same_size_new_content_with_new_mtime_is_a_miss(tmp_path, calls):
    write_tree(tmp_path, {"a.py": "x = 1\n"})
    run(tmp_path)
    calls.clear()
    st = os.stat(tmp_path / "a.py")
    (tmp_path / "a.py").write_text("x = 2\n")  # same size
    os.utime(tmp_path / "a.py", ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    run(tmp_path)
    assert calls == ["a.py"]


def test_same_size_new_content_with_the_same_mtime_is_found_by_size_and_mtime_only(tmp_path, calls):
    """(mtime, size) is the contract: a tool that restores the mtime after editing in place is
    trusted, as with ruff's cache. Documented, not accidental."""
    write_tree(tmp_path, {"a.py": "x = 1\n"})
    run(tmp_path)
    calls.clear()
    st = os.stat(tmp_path / "a.py")
    (tmp_path / "a.py").write_text("x = 2\n")
    os.utime(tmp_path / "a.py", ns=(st.st_atime_ns, st.st_mtime_ns))
    run(tmp_path)
    assert calls == []


def test_a_corrupt_cache_is_discarded_with_a_warning(tmp_path, calls):
    write_tree(tmp_path, {"agent.py": "# FLAG\n"})
    run(tmp_path)
    (path,) = results_files(tmp_path)
    path.write_bytes(b"{not json")
    calls.clear()
    result = run(tmp_path)
    assert calls == ["agent.py"]
    assert len(result.warnings) == 1 and "corrupt" in result.warnings[0] and "discarded" in result.warnings[0]
    assert [d.code for d in result.diagnostics] == ["CL101"]
    # rewritten whole: the next run is warm and quiet
    calls.clear()
    again = run(tmp_path)
    assert calls == [] and again.warnings == []


def test_a_damaged_entry_is_a_miss_not_a_crash(tmp_path, calls):
    write_tree(tmp_path, {"a.py": "x = 1\n"})
    run(tmp_path)
    (path,) = results_files(tmp_path)
    data = cachefile.body_of(path)
    data["files"][str(tmp_path / "a.py")]["diagnostics"] = [{"code": "CL101"}]  # missing keys
    cachefile.rewrite_body(path, data)
    calls.clear()
    result = run(tmp_path)
    assert calls == ["a.py"] and result.diagnostics == []


def test_cli_prints_the_corrupt_cache_warning(tmp_path):
    from click.testing import CliRunner

    from cachelint.cli import main

    write_tree(tmp_path, {"a.py": "x = 1\n"})
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        runner = CliRunner(mix_stderr=False) if "mix_stderr" in CliRunner.__init__.__code__.co_varnames else CliRunner()
        assert runner.invoke(main, ["check", "--isolated", "."]).exit_code == 0
        (path,) = results_files(tmp_path)
        path.write_text("[]")
        result = runner.invoke(main, ["check", "--isolated", "."])
    finally:
        os.chdir(old)
    assert result.exit_code == 0
    assert "cachelint: warning: cache" in result.stderr and "corrupt" in result.stderr


def test_no_cache_writes_nothing(tmp_path, calls):
    write_tree(tmp_path, {"a.py": "x = 1\n"})
    run(tmp_path, no_cache=True)
    run(tmp_path, no_cache=True)
    assert not (tmp_path / ".cachelint_cache").exists()
    assert calls == ["a.py", "a.py"]


def test_the_cache_folder_ignores_itself(tmp_path, calls):
    write_tree(tmp_path, {"a.py": "x = 1\n"})
    run(tmp_path)
    folder = tmp_path / ".cachelint_cache"
    lines = [line for line in (folder / ".gitignore").read_text().splitlines() if not line.startswith("#")]
    assert lines == ["*"]
    assert (folder / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")


def test_the_cache_is_keyed_by_configuration(tmp_path, calls):
    write_tree(tmp_path, {"a.py": "x = 1\n"})
    run(tmp_path)
    calls.clear()
    run(tmp_path, config={"ignore": ["CL2"]})
    assert calls == ["a.py"]
    assert len(results_files(tmp_path)) == 2
    calls.clear()
    run(tmp_path)
    assert calls == []


def test_deleted_files_leave_the_cache(tmp_path, calls):
    write_tree(tmp_path, {"a.py": "x = 1\n", "b.py": "y = 1\n"})
    run(tmp_path)
    (tmp_path / "b.py").unlink()
    (tmp_path / "a.py").write_text("x = 2\n")  # something to save
    run(tmp_path)
    (path,) = results_files(tmp_path)
    assert sorted(cachefile.body_of(path)["files"]) == [str(tmp_path / "a.py")]


def test_skill_results_are_cached_and_see_edits(tmp_path, monkeypatch):
    seen: list[list[str]] = []

    def fake_check_skills(files, settings, cwd, checked=(), reader=None):
        seen.append(sorted(f.display for f in files))
        return [
            Diagnostic(code="CL202", message="generic", path=f.display, line=1, column=1)
            for f in files
            if "generic" in f.path.read_text()
        ]

    monkeypatch.setattr(cachelint.skills, "check_skills", fake_check_skills)
    write_tree(tmp_path, {"skills/a/SKILL.md": "---\nname: a\ndescription: generic\n---\n"})
    first = run(tmp_path)
    second = run(tmp_path)
    assert len(seen) == 1
    assert [d.code for d in second.diagnostics] == ["CL202"] == [d.code for d in first.diagnostics]
    (tmp_path / "skills/a/SKILL.md").write_text("---\nname: a\ndescription: Use when deploying.\n---\n")
    third = run(tmp_path)
    assert len(seen) == 2 and third.diagnostics == []
    write_tree(tmp_path, {"skills/b/SKILL.md": "---\nname: b\ndescription: generic\n---\n"})
    fourth = run(tmp_path)
    assert len(seen) == 3 and [d.path for d in fourth.diagnostics] == ["skills/b/SKILL.md"]


def test_skill_checks_run_when_only_some_files_are_named(tmp_path, monkeypatch):
    """Named files (pre-commit) do not cover the whole skill tree the checks read: no caching."""
    seen = []
    monkeypatch.setattr(
        cachelint.skills, "check_skills", lambda files, settings, cwd, checked=(), reader=None: seen.append(1) or []
    )
    write_tree(tmp_path, {"skills/a/SKILL.md": "---\nname: a\ndescription: x\n---\n"})
    run(tmp_path, paths=("skills/a/SKILL.md",))
    run(tmp_path, paths=("skills/a/SKILL.md",))
    assert len(seen) == 2


WARM_PROBE = """
import sys
from cachelint.cli import main
try:
    main(["check", "--isolated", "--exit-zero", "."])
except SystemExit:
    pass
heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("libcst", "yaml", "jsonschema", "multiprocessing")
               or m.startswith("cachelint.code") or m.startswith("cachelint.skills"))
print("HEAVY=" + ",".join(heavy), file=sys.stderr)
"""


def test_the_warm_run_imports_no_parser_schema_validator_or_checks(tmp_path):
    write_tree(
        tmp_path,
        {
            "agent.py": "import os\nfrom tools import names\nTOOLS = sorted(names())\n",
            "tools.py": "def names():\n    return ['a', 'b']\n",
            "skills/a/SKILL.md": "---\nname: a\ndescription: Use when deploying the service.\n---\n",
            "AGENTS.md": "Skills: a\n",
        },
    )
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop("CACHELINT_NO_CACHE", None)
    cmd = [sys.executable, "-c", WARM_PROBE]
    first = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert "HEAVY=" in first.stderr, first.stderr
    second = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    heavy = second.stderr.split("HEAVY=")[1].strip()
    assert heavy == "", f"imported on the all-hit path: {heavy}"
    assert second.stdout == first.stdout


def test_rule_names_come_from_a_compact_index_that_is_rebuilt_when_damaged(tmp_path, calls):
    from cachelint import catalog

    write_tree(tmp_path, {"agent.py": "# FLAG\n"})
    run(tmp_path)
    (index,) = (tmp_path / ".cachelint_cache").glob("rules-*.json")
    rows = cachefile.body_of(index)
    assert ["CL101", catalog.load_catalog()["CL101"].name] == rows[[r[0] for r in rows].index("CL101")][:2]
    index.write_text("not json")
    catalog._RULE_TABLES.clear()
    result = run(tmp_path)
    assert [d.code for d in result.diagnostics] == ["CL101"]
    assert catalog.rule_name("CL101") == catalog.load_catalog()["CL101"].name
    assert cachefile.body_of(index) == rows  # rebuilt from the YAML


def test_a_pack_is_validated_again_when_its_verdict_is_lost(tmp_path, monkeypatch):
    from cachelint import catalog

    folder = catalog.CatalogFolder(tmp_path)
    try:
        # a user's pack (built-in packs are validated by the test suite, never at run time)
        builtin = sorted((catalog.rules_dir() / "packs").glob("*.yaml"))[0]
        pack = tmp_path / "user" / builtin.name
        pack.parent.mkdir()
        pack.write_bytes(builtin.read_bytes())
        catalog._load_pack_file.cache_clear()
        catalog._known_valid_packs_in.cache_clear()
        validated: list[str] = []
        real = catalog.validation_errors
        monkeypatch.setattr(
            catalog, "validation_errors", lambda data, schema: validated.append(schema) or real(data, schema)
        )
        catalog._load_pack_file(pack, folder)
        assert validated  # first time: validated, verdict remembered
        (verdicts,) = tmp_path.glob("packs-valid-*.json")
        validated.clear()
        catalog._load_pack_file.cache_clear()
        catalog._load_pack_file(builtin, folder)
        assert validated == []  # built-in: never validated at run time
        validated.clear()
        catalog._load_pack_file.cache_clear()
        catalog._known_valid_packs_in.cache_clear()
        catalog._load_pack_file(pack, folder)
        assert validated == []  # same bytes, same schemas: not validated again
        verdicts.write_text("{broken")
        catalog._load_pack_file.cache_clear()
        catalog._known_valid_packs_in.cache_clear()
        catalog._load_pack_file(pack, folder)
        assert validated  # verdict lost: validated again
        assert any("packs-valid-" in w and "discarded and rebuilt" in w for w in folder.warnings)
    finally:
        catalog._load_pack_file.cache_clear()
        catalog._known_valid_packs_in.cache_clear()


def test_packs_read_from_their_json_copies_equal_the_yaml(tmp_path):
    """Every pack a user adds (here: copies of the built-in ones, dates included) comes back from
    the cache folder as YAML gave it. (Built-in packs come from rules/packs/bundle.json instead.)"""
    import shutil

    from cachelint import catalog

    user_packs = tmp_path / "user-packs"
    user_packs.mkdir()
    for pack in sorted((catalog.rules_dir() / "packs").glob("*.yaml")):
        shutil.copy(pack, user_packs / pack.name)
    cache = tmp_path / "cache"

    def load_all(folder):
        catalog._load_pack_file.cache_clear()
        catalog._known_valid_packs_in.cache_clear()
        return [catalog._load_pack_file(p, folder) for p in sorted(user_packs.glob("*.yaml"))]

    from_yaml = load_all(None)
    try:
        load_all(catalog.CatalogFolder(cache))  # validates, remembers the verdicts, writes the copies
        assert len(list(cache.glob("pack-*.json"))) == len(from_yaml)
        from_copies = load_all(catalog.CatalogFolder(cache))
    finally:
        catalog._load_pack_file.cache_clear()
        catalog._known_valid_packs_in.cache_clear()
    assert from_copies == from_yaml


def test_a_pack_copy_keeps_yaml_dates(tmp_path):
    import datetime

    from cachelint import catalog

    data = {"kind": "x", "as_of": datetime.date(2025, 6, 1), "seen": [datetime.datetime(2025, 6, 1, 12, 30)]}
    folder = catalog.CatalogFolder(tmp_path)
    catalog._write_pack_copy(folder, "d1", data)
    assert catalog._read_pack_copy(folder, "d1") == data
    catalog._write_pack_copy(folder, "d2", {"kind": "x", "odd": {"$date": "not a date"}})  # ambiguous: not copied
    assert catalog._read_pack_copy(folder, "d2") is None
