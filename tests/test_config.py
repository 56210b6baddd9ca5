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
