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
    "skills/broken/SKILL.md": "---\nname: broken\n",
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
    assert result.stdout == EXPECTED
    assert result.stderr == (
        "cachelint: warning: skills/broken/SKILL.md: not listed: its front matter cannot be read (CL201)\n"
    )


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
    assert result.stderr.splitlines()[-1] == "AGENTS.md: index block is stale; run cachelint index . --write AGENTS.md"


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


# The skills an index cannot list: `index --write` writes every other one and says which it left
# out and why; `index --check` and CL203 agree about the block it wrote.

INVALID = {
    "skills/beta/SKILL.md": "---\nname: Beta Skill\ndescription: use para redimensionar imagens PNG\n---\n",
    "skills/gamma/SKILL.md": "---\ndescription: use para traduzir YAML em TOML\n---\n",
}


def test_write_lists_every_valid_skill_and_says_which_it_left_out(repo):
    write_tree(repo, INVALID)
    result = run(".", "--write", "AGENTS.md")
    assert result.exit_code == 0
    assert result.stderr.splitlines() == [
        "cachelint: warning: skills/beta/SKILL.md: not listed in AGENTS.md: its name 'Beta Skill' is not a valid skill name (CL201)",
        "cachelint: warning: skills/broken/SKILL.md: not listed in AGENTS.md: its front matter cannot be read (CL201)",
        "cachelint: warning: skills/gamma/SKILL.md: not listed in AGENTS.md: its front matter has no name (CL201)",
        "AGENTS.md: index block written (3 skills; 3 left out, see above)",
    ]
    assert (repo / "AGENTS.md").read_text(encoding="utf-8") == f"{START}\n{EXPECTED}{END}\n"
    check = run(".", "--check", "AGENTS.md")
    assert check.exit_code == 0
    assert check.stderr.splitlines()[-1] == "AGENTS.md: index block is up to date"
    assert "skills/beta/SKILL.md: not listed in AGENTS.md" in check.stderr


def _check_codes(*codes: str):
    return CliRunner().invoke(main, ["check", ".", "--isolated", "--no-cache", "--select", ",".join(codes)])


def test_check_and_cl203_agree_on_the_written_block(repo):
    """The skills left out have their CL201 and no CL203; once the block is stale, both say so."""
    write_tree(repo, INVALID)
    run(".", "--write", "AGENTS.md")
    clean = _check_codes("CL203")
    assert clean.exit_code == 0, clean.output
    assert "CL201" in _check_codes("CL201").output
    write_tree(repo, {"skills/logistica/SKILL.md": skill("logistica", "use para abrir chamado em transportadora")})
    stale = run(".", "--check", "AGENTS.md")
    assert stale.exit_code == 1 and "index block is stale" in stale.stderr
    reported = _check_codes("CL203")
    assert reported.exit_code == 1
    assert reported.stdout.startswith(
        'skills/logistica/SKILL.md:2:1: CL203 skill "logistica" is not listed in AGENTS.md, which lists its sibling skills'
    )
    run(".", "--write", "AGENTS.md")
    assert run(".", "--check", "AGENTS.md").exit_code == 0
    assert _check_codes("CL203").exit_code == 0


def test_a_written_block_is_an_index_whatever_share_of_the_skills_it_lists(repo):
    """Detection asks a hand-written list to name half of its folders' skills; a block the
    command wrote is declared, so a skill added beside a block of one is still CL203."""
    write_tree(repo, {"skills/logistica/SKILL.md": skill("logistica", "use para abrir chamado em transportadora")})
    (repo / "skills" / "AGENTS.md").write_text(f"{START}\n- emissao-nf: {EMISSAO}\n{END}\n", encoding="utf-8")
    assert run("skills", "--check", "skills/AGENTS.md").exit_code == 1
    reported = _check_codes("CL203")
    assert reported.exit_code == 1
    assert sorted(line.split(":")[0] for line in reported.stdout.splitlines() if " CL203 " in line) == [
        "skills/conciliacao-cartao/SKILL.md",
        "skills/logistica/SKILL.md",
    ]


def test_a_page_that_shows_the_markers_declares_no_index(repo):
    """Only a block (the start marker alone on a line, outside a code fence) declares an index."""
    from cachelint.skills.indexer import declares_index

    assert declares_index(f"intro\n{START}\n- a: b\n{END}\n")
    assert not declares_index(f"`--write` replaces the block between `{START}` and `{END}`\n")
    assert not declares_index(f"```markdown\n{START}\n- a: b\n{END}\n```\n")
    (repo / "docs.md").write_text(f"Run `--write`: it fills `{START}` … `{END}` with [vendor skills](vendor/).\n")
    assert _check_codes("CL204").exit_code == 0
