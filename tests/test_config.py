from __future__ import annotations

from pathlib import Path

import pytest

from cachelint.config import ConfigError, load_settings
from conftest import check_tree, write_tree


def test_defaults_without_a_config_file(tmp_path):
    s = load_settings(tmp_path, isolated=True)
    assert s.config_path is None and s.select == ("ALL",)
    assert "CL001" in s.enabled_codes()


def test_pyproject_table_is_found_from_a_subfolder(tmp_path):
    write_tree(tmp_path, {"pyproject.toml": "[tool.cachelint]\nignore = ['CL2']\n", "sub/x.py": ""})
    s = load_settings(tmp_path / "sub")
    assert s.config_path == tmp_path / "pyproject.toml"
    assert not any(c.startswith("CL2") for c in s.enabled_codes())


def test_pyproject_without_our_table_is_skipped(tmp_path):
    write_tree(tmp_path, {"pyproject.toml": "[tool.black]\nline-length = 100\n"})
    assert load_settings(tmp_path).config_path is None


def test_cachelint_toml_wins_over_pyproject(tmp_path):
    write_tree(
        tmp_path,
        {"pyproject.toml": "[tool.cachelint]\nignore = ['CL1']\n", "cachelint.toml": "ignore = ['CL3']\n"},
    )
    assert load_settings(tmp_path).config_path == tmp_path / "cachelint.toml"


@pytest.mark.parametrize(
    "text,needle",
    [
        ("unknown-key = 1\n", "unknown-key"),
        ("select = 'CL1'\n", "select"),
        ("max-file-size = -3\n", "max-file-size"),
        ("[per-file-ignores]\n'tests/*' = ['CL77']\n", "CL77"),
        ("select = ['XX1']\n", "XX1"),
        ("[code]\nno-such-option = true\n", "no-such-option"),
        ("this is not toml\n", "cannot read configuration"),
    ],
)
def test_invalid_config_names_the_problem(tmp_path, text, needle):
    write_tree(tmp_path, {"cachelint.toml": text})
    with pytest.raises(ConfigError) as info:
        load_settings(tmp_path)
    assert needle in str(info.value)
    assert "\n" not in str(info.value)


def test_inline_override(tmp_path):
    s = load_settings(tmp_path, config=["ignore = ['CL1']"], isolated=True)
    assert s.ignore == ("CL1",)


def test_per_file_ignores_apply(tmp_path):
    write_tree(tmp_path, {"gen/bad.py": b"\xff", "src/bad.py": b"\xff"})
    result = check_tree(tmp_path, config={"per-file-ignores": {"gen/*": ["CL001"]}})
    assert [d.path for d in result.diagnostics] == ["src/bad.py"]


def test_fingerprint_changes_with_settings(tmp_path):
    a = load_settings(tmp_path, isolated=True)
    b = load_settings(tmp_path, config=["ignore = ['CL1']"], isolated=True)
    assert a.fingerprint() != b.fingerprint()
    assert a.fingerprint() == load_settings(tmp_path, isolated=True).fingerprint()


# --- the closest configuration to each file wins --------------------------------------------------

AGENT = (
    "import anthropic\nfrom datetime import datetime\nclient = anthropic.Anthropic()\nTOOLS = {'a': {'name': 'a'}}\n"
    "tools = [TOOLS[n] for n in {'a'}]\n"
    "client.messages.create(model='m', max_tokens=1, tools=tools, system=f'now {datetime.now()}', messages=[])\n"
)


def _found(root: Path, cwd: Path, *args: str) -> list[tuple[str, str]]:
    """(code, path relative to ``root``) of ``cachelint check`` run in ``cwd``."""
    import json
    import os

    from click.testing import CliRunner

    from cachelint.cli import main

    old = os.getcwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(
            main, ["check", "--no-cache", "--output-format", "json", *args], catch_exceptions=False
        )
    finally:
        os.chdir(old)
    assert result.exit_code in (0, 1), result.output
    return sorted(
        (d["code"], Path(os.path.normpath(cwd / d["path"])).relative_to(root).as_posix())
        for d in json.loads(result.stdout)
    )


def test_each_file_is_checked_with_its_closest_configuration(tmp_path):
    write_tree(
        tmp_path,
        {
            "pyproject.toml": "[tool.cachelint]\nselect = ['CL105']\n",
            "a.py": AGENT,
            "sub/cachelint.toml": "select = ['CL101']\n[per-file-ignores]\n'tests/*' = ['unordered-tools']\n",
            "sub/b.py": AGENT,
            "sub/tests/c.py": AGENT,
        },
    )
    expected = [("CL101", "sub/b.py"), ("CL105", "a.py")]
    assert _found(tmp_path, tmp_path, ".") == expected
    # the same findings whatever folder the command runs from
    assert _found(tmp_path, tmp_path / "sub", ".", "../a.py") == expected
    assert _found(tmp_path, tmp_path / "sub" / "tests", "..", "../../a.py") == expected


def test_command_line_options_apply_over_every_configuration(tmp_path):
    write_tree(
        tmp_path,
        {
            "pyproject.toml": "[tool.cachelint]\nselect = ['CL105']\n",
            "a.py": AGENT,
            "sub/cachelint.toml": "select = ['CL101']\n",
            "sub/b.py": AGENT,
        },
    )
    assert _found(tmp_path, tmp_path, "--select", "CL101,CL105", ".") == [
        ("CL101", "a.py"),
        ("CL101", "sub/b.py"),
        ("CL105", "a.py"),
        ("CL105", "sub/b.py"),
    ]
    # --config FILE: one configuration for every file; --isolated: none
    assert _found(tmp_path, tmp_path, "--config", "sub/cachelint.toml", ".") == [
        ("CL101", "a.py"),
        ("CL101", "sub/b.py"),
    ]
    assert len(_found(tmp_path, tmp_path, "--isolated", ".")) == 4


def test_a_nested_configuration_excludes_its_own_files(tmp_path):
    write_tree(
        tmp_path,
        {
            "a.py": AGENT,
            "sub/cachelint.toml": "extend-exclude = ['generated']\n",
            "sub/generated/g.py": AGENT,
            "sub/b.py": AGENT,
        },
    )
    found = _found(tmp_path, tmp_path, "--select", "CL101", ".")
    assert found == [("CL101", "a.py"), ("CL101", "sub/b.py")]
    # named on the command line, a file is checked (as Ruff does without --force-exclude)
    assert _found(tmp_path, tmp_path, "--select", "CL101", "sub/generated/g.py") == [("CL101", "sub/generated/g.py")]


def test_per_file_ignores_are_relative_to_the_configuration_not_the_working_directory(tmp_path):
    write_tree(
        tmp_path, {"cachelint.toml": "[per-file-ignores]\n'gen/*' = ['CL1']\n", "gen/x.py": AGENT, "src/y.py": AGENT}
    )
    from_root = _found(tmp_path, tmp_path, "--select", "CL101", ".")
    from_gen = _found(tmp_path, tmp_path / "gen", "--select", "CL101", ".", "../src")
    assert from_root == from_gen == [("CL101", "src/y.py")]


def test_tool_prefix_in_cachelint_toml_says_to_drop_it(tmp_path):
    write_tree(tmp_path, {"cachelint.toml": "[tool.cachelint]\nselect = ['CL1']\n"})
    with pytest.raises(ConfigError) as info:
        load_settings(tmp_path)
    message = str(info.value)
    assert "[tool.cachelint] is the pyproject.toml spelling; in cachelint.toml drop the prefix" in message
    assert "'tool' was unexpected" not in message


def test_config_show_for_a_path_gives_that_path_s_settings(tmp_path):
    import json
    import os

    from click.testing import CliRunner

    from cachelint.cli import main

    write_tree(
        tmp_path,
        {
            "pyproject.toml": "[tool.cachelint]\nselect = ['CL105']\n",
            "sub/cachelint.toml": "select = ['CL101']\n",
            "sub/b.py": "",
        },
    )
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        shown = json.loads(CliRunner().invoke(main, ["config", "show", "sub/b.py"]).stdout)
        here = json.loads(CliRunner().invoke(main, ["config", "show"]).stdout)
    finally:
        os.chdir(old)
    assert shown["select"] == ["CL101"] and shown["config_path"].endswith("sub/cachelint.toml")
    assert here["select"] == ["CL105"]


def test_audit_selects_each_log_s_findings_by_its_closest_configuration(tmp_path):
    import json

    from cachelint.api import audit_logs
    from cachelint.config import ConfigResolver

    log = (Path(__file__).parent.parent / "examples" / "logs" / "backoffice-session.jsonl").read_text(encoding="utf-8")
    write_tree(tmp_path, {"a.jsonl": log, "team/b.jsonl": log, "team/cachelint.toml": "ignore = ['tools-changed']\n"})
    result = audit_logs(["a.jsonl", "team/b.jsonl"], cwd=tmp_path, resolver=ConfigResolver(tmp_path))
    found = sorted((d.path, d.code) for d in result.diagnostics)
    assert ("a.jsonl", "CL301") in found and ("team/b.jsonl", "CL301") not in found
    assert ("team/b.jsonl", "CL309") in found
    json.dumps(result.summary.to_dict())
