"""`cachelint index DIR [--write FILE | --check FILE]` through the command line."""

from __future__ import annotations

import os
import stat

import pytest
from click.testing import CliRunner

from cachelint.cli import main
from conftest import write_tree
from skilltrees import COMISSAO, CONCILIACAO, EMISSAO, skill

START = "<!-- cachelint:index:start -->"
END = "<!-- cachelint:index:end -->"

TREE = {
    "skills/emissao-nf/SKILL.md": skill("emissao-nf", "use para emitir,\n  cancelar ou consultar NF-e", extra=""),
    "skills/conciliacao-cartao/SKILL.md": skill("conciliacao-cartao", CONCILIACAO),
    ".claude/skills/comissao/SKILL.md": "---\nname: comissao\ndescription: >\n  use para calcular e exportar\n  comissão de vendedores\n---\n",
}

EXPECTED = f"- comissao: {COMISSAO}\n- conciliacao-cartao: {CONCILIACAO}\n- emissao-nf: {EMISSAO}\n"


@pytest.fixture
def repo(tmp_path, monkeypatch):
    write_tree(tmp_path, TREE)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(*args: str):
    return CliRunner().invoke(main, ["index", *args, "--isolated"], catch_exceptions=False)


def test_prints_the_index_sorted_by_name_with_whitespace_collapsed(repo):
    result = run(".")
    assert result.exit_code == 0
    assert result.output == EXPECTED


def test_write_creates_the_block_at_the_end_then_check_passes(repo):
    (repo / "AGENTS.md").write_text("# Agente\n\nHabilidades:\n", encoding="utf-8")
    result = run(".", "--write", "AGENTS.md")
    assert result.exit_code == 0
    assert (repo / "AGENTS.md").read_text(encoding="utf-8") == f"# Agente\n\nHabilidades:\n\n{START}\n{EXPECTED}{END}\n"
    check = run(".", "--check", "AGENTS.md")
    assert check.exit_code == 0
    assert "AGENTS.md: index block is up to date" in check.output


def test_write_replaces_only_the_block_and_keeps_crlf_and_mode(repo):
    text = f"intro\r\n{START}\r\n- old: stale\r\n{END}\r\noutro\r\n"
    (repo / "AGENTS.md").write_bytes(text.encode())
    os.chmod(repo / "AGENTS.md", 0o640)
    assert run(".", "--write", "AGENTS.md").exit_code == 0
    expected = f"intro\r\n{START}\r\n" + EXPECTED.replace("\n", "\r\n") + f"{END}\r\noutro\r\n"
    assert (repo / "AGENTS.md").read_bytes() == expected.encode()
    assert stat.S_IMODE(os.stat(repo / "AGENTS.md").st_mode) == 0o640
    assert run(".", "--check", "AGENTS.md").exit_code == 0


def test_write_creates_a_missing_file(repo):
    assert run("skills", "--write", "INDEX.md").exit_code == 0
    assert (repo / "INDEX.md").read_text(encoding="utf-8") == (
        f"{START}\n- conciliacao-cartao: {CONCILIACAO}\n- emissao-nf: {EMISSAO}\n{END}\n"
    )


def test_write_twice_changes_nothing(repo):
    run(".", "--write", "AGENTS.md")
    before = (repo / "AGENTS.md").read_bytes()
    result = run(".", "--write", "AGENTS.md")
    assert result.exit_code == 0 and "up to date" in result.output
    assert (repo / "AGENTS.md").read_bytes() == before


def test_check_fails_when_stale(repo):
    run(".", "--write", "AGENTS.md")
    write_tree(repo, {"skills/logistica/SKILL.md": skill("logistica", "use para abrir chamado em transportadora")})
    result = run(".", "--check", "AGENTS.md")
    assert result.exit_code == 1
    assert result.output.strip() == "AGENTS.md: index block is stale; run cachelint index . --write AGENTS.md"


def test_check_fails_without_a_block_or_a_file(repo):
    (repo / "AGENTS.md").write_text("# no block\n", encoding="utf-8")
    result = run(".", "--check", "AGENTS.md")
    assert result.exit_code == 1 and "has no index block" in result.output
    missing = run(".", "--check", "NOPE.md")
    assert missing.exit_code == 1 and "NOPE.md: no such file" in missing.output


def test_markers_out_of_order_are_an_error_not_a_rewrite(repo):
    (repo / "AGENTS.md").write_text(f"{END}\nkeep me\n{START}\n", encoding="utf-8")
    result = run(".", "--write", "AGENTS.md")
    assert result.exit_code == 2
    assert result.output.startswith("cachelint: error: AGENTS.md: the index markers are incomplete or out of order")
    assert (repo / "AGENTS.md").read_text(encoding="utf-8") == f"{END}\nkeep me\n{START}\n"


def test_written_index_is_a_clean_index_for_check(repo):
    run(".", "--write", "AGENTS.md")
    result = CliRunner().invoke(main, ["check", ".", "--isolated", "--no-cache", "--select", "CL203,CL204"])
    assert result.exit_code == 0, result.output


def test_empty_directory_renders_nothing(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert run(".").output == ""


HAND_WRITTEN = (
    "# Agente de back-office\n\nHabilidades:\n"
    f"- conciliacao-cartao: {CONCILIACAO}\n- emissao-nf: {EMISSAO}\n- logistica: use para rastrear entregas\n"
    "  (chamado na transportadora)\n\nRegras: nunca apague títulos.\n"
)


def test_write_replaces_the_hand_written_list_stale_entry_included(repo):
    (repo / "AGENTS.md").write_text(HAND_WRITTEN, encoding="utf-8")
    result = run(".", "--write", "AGENTS.md")
    assert result.exit_code == 0
    assert "replacing the list at lines 4-7" in result.output
    assert (repo / "AGENTS.md").read_text(encoding="utf-8") == (
        f"# Agente de back-office\n\nHabilidades:\n{START}\n{EXPECTED}{END}\n\nRegras: nunca apague títulos.\n"
    )
    assert run(".", "--check", "AGENTS.md").exit_code == 0


def test_write_diff_previews_the_replacement_and_writes_nothing(repo):
    (repo / "AGENTS.md").write_text(HAND_WRITTEN, encoding="utf-8")
    result = run(".", "--write", "AGENTS.md", "--diff")
    assert result.exit_code == 0
    assert (repo / "AGENTS.md").read_text(encoding="utf-8") == HAND_WRITTEN
    assert "-- logistica: use para rastrear entregas\n" in result.output
    assert f"+{START}\n" in result.output and "+- comissao: " in result.output


def test_write_replaces_a_table_with_its_header(repo):
    table = f"Skills:\n\n| Skill | When |\n|---|---|\n| emissao-nf | {EMISSAO} |\n| old-skill | gone |\n\nEnd.\n"
    (repo / "CLAUDE.md").write_text(table, encoding="utf-8")
    assert run(".", "--write", "CLAUDE.md").exit_code == 0
    assert (repo / "CLAUDE.md").read_text(encoding="utf-8") == f"Skills:\n\n{START}\n{EXPECTED}{END}\n\nEnd.\n"


def test_write_refuses_when_two_lists_name_skills(repo):
    text = f"Skills:\n- emissao-nf: {EMISSAO}\n\nMore:\n\n| Skill | When |\n|---|---|\n| comissao | {COMISSAO} |\n"
    (repo / "AGENTS.md").write_text(text, encoding="utf-8")
    result = CliRunner().invoke(main, ["index", ".", "--write", "AGENTS.md", "--isolated"])
    assert result.exit_code == 2
    assert (
        "AGENTS.md: 2 lists name skills (lines 2-2, lines 8-8); put <!-- cachelint:index:start --> and" in result.output
    )
    assert (repo / "AGENTS.md").read_text(encoding="utf-8") == text


def test_diff_without_write_is_a_usage_error(repo):
    result = CliRunner().invoke(main, ["index", ".", "--diff", "--isolated"])
    assert result.exit_code == 2


def test_listing_prints_every_listing_against_its_budget(repo):
    result = run(".", "--listing")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    # comissao is Claude Code's project skill; the two under skills/ are a collection
    assert lines[0] == "Claude Code: 8,000 characters (1% of a 200,000-token context window at 4 characters a token)"
    claude = f"{len('comissao') + len(COMISSAO):,}"
    assert lines[1].endswith(f"{claude} chars     1 skill   the project skills in .claude/skills")
    assert lines[1].startswith("  [▏")
    assert "skills under skills/, installed together" in lines[2] and "Codex" in result.output


def test_listing_as_json(repo):
    import json

    result = run(".", "--listing", "--output-format", "json")
    records = json.loads(result.output)
    first = records[0]
    assert (first["loader"], first["view"], first["budget"], first["over"]) == (
        "claude-code",
        "the project skills in .claude/skills",
        8000,
        False,
    )
    assert first["characters"] == len("comissao") + len(COMISSAO)
    assert first["skills"] == [".claude/skills/comissao/SKILL.md"]


def test_listing_takes_no_write(repo):
    result = run(".", "--listing", "--write", "AGENTS.md")
    assert result.exit_code == 2


def test_listing_as_markdown_has_a_table_and_a_bar_per_listing(repo):
    result = run(".", "--listing", "--output-format", "markdown")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0] == "## Skill listings against their budgets"
    assert "### Claude Code: 8,000 characters (1% of a 200,000-token context window at 4 characters a token)" in lines
    claude = f"{len('comissao') + len(COMISSAO):,}"
    row = next(line for line in lines if line.startswith("| the project skills in .claude/skills |"))
    assert f"| 1 | {claude} | 1% | `[▏" in row and row.endswith("]` |  |")
    assert any(line.startswith("### Codex:") for line in lines)


def test_listing_over_budget_fills_the_bar_and_says_what_is_dropped(repo):
    many = {
        f".claude/skills/s{i:02d}/SKILL.md": skill(f"s{i:02d}", f"use para a tarefa {i} " + "detalhe " * 40)
        for i in range(40)
    }
    write_tree(repo, many)
    result = run(".", "--listing", "--output-format", "markdown")
    row = next(line for line in result.output.splitlines() if line.startswith("| the project skills in .claude/skills"))
    assert "`[████████████████████]▶`" in row
    assert "descriptions dropped, the least-invoked skills' first" in row
