"""`cachelint index --write` changes only what it owns and writes as `--fix` does: lists that mix
skills with the author's rules, lines put between its markers, markers quoted in code blocks,
symlinks, hard links and read-only files; a skill it cannot list is named, and `--check` fails
while `check` still reports it."""

from __future__ import annotations

import os
import stat

import pytest
from click.testing import CliRunner

from cachelint.cli import main
from conftest import write_tree
from skilltrees import CONCILIACAO, EMISSAO, skill

START = "<!-- cachelint:index:start -->"
END = "<!-- cachelint:index:end -->"

TREE = {
    "skills/emissao-nf/SKILL.md": skill("emissao-nf", EMISSAO),
    "skills/conciliacao-cartao/SKILL.md": skill("conciliacao-cartao", CONCILIACAO),
}
BLOCK = f"{START}\n- conciliacao-cartao: {CONCILIACAO}\n- emissao-nf: {EMISSAO}\n{END}\n"


@pytest.fixture
def repo(tmp_path, monkeypatch):
    write_tree(tmp_path, TREE)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(*args: str):
    return CliRunner().invoke(main, ["index", *args, "--isolated"])


def refused(result, *fragments: str) -> None:
    assert result.exit_code == 2, result.output
    assert result.output.startswith("cachelint: error: "), result.output
    for fragment in fragments:
        assert fragment in result.output, result.output


def test_a_list_mixing_skills_with_rules_is_refused_and_kept(repo):
    text = (
        "# Agent\n\nRules and skills:\n"
        f"- emissao-nf: {EMISSAO}\n- Never print secrets in logs.\n- conciliacao-cartao: {CONCILIACAO}\n"
    )
    (repo / "AGENTS.md").write_text(text, encoding="utf-8")
    result = run(".", "--write", "AGENTS.md")
    refused(result, "AGENTS.md: the list at lines 4-6 names skills, but line 5 is not an entry of one")
    assert (repo / "AGENTS.md").read_text(encoding="utf-8") == text
    assert "Never print" not in result.output  # the user's text is not quoted back


def test_a_rule_after_the_skills_is_outside_the_list_it_replaces(repo):
    """The look-alike: the author's rules in their own list after a blank line stay, the skill
    list is replaced."""
    text = f"Skills:\n- emissao-nf: {EMISSAO}\n- old-skill: gone\n\nRules:\n\n- Never print secrets in logs.\n"
    (repo / "AGENTS.md").write_text(text, encoding="utf-8")
    assert run(".", "--write", "AGENTS.md").exit_code == 0
    assert (repo / "AGENTS.md").read_text(encoding="utf-8") == (
        f"Skills:\n{BLOCK}\nRules:\n\n- Never print secrets in logs.\n"
    )


def test_a_nested_item_under_a_skill_entry_is_the_authors(repo):
    text = f"Skills:\n- emissao-nf: {EMISSAO}\n  - never cancel an invoice after 24 hours\n- conciliacao-cartao: x\n"
    (repo / "AGENTS.md").write_text(text, encoding="utf-8")
    refused(run(".", "--write", "AGENTS.md"), "line 3 is not an entry of one")
    assert (repo / "AGENTS.md").read_text(encoding="utf-8") == text


def test_a_continuation_line_of_an_entry_is_replaced_with_it(repo):
    text = f"Skills:\n- conciliacao-cartao: {CONCILIACAO}\n- emissao-nf: use para emitir\n  NF-e e NFC-e\n\nEnd.\n"
    (repo / "AGENTS.md").write_text(text, encoding="utf-8")
    assert run(".", "--write", "AGENTS.md").exit_code == 0
    assert (repo / "AGENTS.md").read_text(encoding="utf-8") == f"Skills:\n{BLOCK}\nEnd.\n"


def test_a_line_put_between_the_markers_is_refused_and_kept(repo):
    text = f"{START}\n- emissao-nf: {EMISSAO}\nNever print secrets in logs.\n{END}\n"
    (repo / "AGENTS.md").write_text(text, encoding="utf-8")
    refused(run(".", "--write", "AGENTS.md"), "AGENTS.md: line 3, between the index markers, is not an entry")
    assert (repo / "AGENTS.md").read_text(encoding="utf-8") == text
    refused(run(".", "--check", "AGENTS.md"), "line 3, between the index markers")


def test_stale_entries_between_the_markers_are_its_own(repo):
    (repo / "AGENTS.md").write_text(f"intro\n{START}\n- old-skill: gone\n\n- emissao-nf: x\n{END}\nend\n", "utf-8")
    assert run(".", "--write", "AGENTS.md").exit_code == 0
    assert (repo / "AGENTS.md").read_text(encoding="utf-8") == f"intro\n{BLOCK}end\n"


QUOTED = f"# How to keep an index\n\n```markdown\n{START}\n- example-skill: what it does\n{END}\n```\n"


def test_markers_quoted_in_a_fenced_code_block_are_no_block(repo):
    (repo / "README.md").write_text(QUOTED, encoding="utf-8")
    check = run(".", "--check", "README.md")
    assert check.exit_code == 1 and "has no index block" in check.output
    assert run(".", "--write", "README.md").exit_code == 0
    assert (repo / "README.md").read_text(encoding="utf-8") == f"{QUOTED}\n{BLOCK}"
    assert run(".", "--check", "README.md").exit_code == 0


def test_markers_quoted_in_prose_are_no_block(repo):
    text = f"Put `{START}` and `{END}` around the list.\n"
    (repo / "README.md").write_text(text, encoding="utf-8")
    assert run(".", "--write", "README.md").exit_code == 0
    assert (repo / "README.md").read_text(encoding="utf-8") == f"{text}\n{BLOCK}"


def test_the_real_block_after_a_quoted_one_is_replaced(repo):
    text = f"{QUOTED}\n{START}\n- old-skill: gone\n{END}\n"
    (repo / "README.md").write_text(text, encoding="utf-8")
    assert run(".", "--write", "README.md").exit_code == 0
    assert (repo / "README.md").read_text(encoding="utf-8") == f"{QUOTED}\n{BLOCK}"


def test_a_symlink_inside_the_tree_is_written_through_and_stays_a_link(repo):
    (repo / "CLAUDE.md").write_text("# Agent\n", encoding="utf-8")
    os.symlink("CLAUDE.md", repo / "AGENTS.md")
    assert run(".", "--write", "AGENTS.md").exit_code == 0
    assert os.readlink(repo / "AGENTS.md") == "CLAUDE.md"
    assert (repo / "CLAUDE.md").read_text(encoding="utf-8") == f"# Agent\n\n{BLOCK}"
    assert run(".", "--check", "AGENTS.md").exit_code == 0


def test_a_symlink_out_of_the_tree_is_left_alone(tmp_path, monkeypatch):
    repo, outside = tmp_path / "repo", tmp_path / "shared"
    write_tree(repo, TREE)
    write_tree(outside, {"AGENTS.md": "# Shared by every repository\n"})
    os.symlink(outside / "AGENTS.md", repo / "AGENTS.md")
    monkeypatch.chdir(repo)
    refused(run(".", "--write", "AGENTS.md"), "is a symlink to", "the index was not written")
    assert (outside / "AGENTS.md").read_text(encoding="utf-8") == "# Shared by every repository\n"
    assert (repo / "AGENTS.md").is_symlink()


def test_a_dangling_symlink_is_not_replaced_by_a_file(repo):
    os.symlink("MISSING.md", repo / "AGENTS.md")
    refused(run(".", "--write", "AGENTS.md"), "which does not exist")
    assert (repo / "AGENTS.md").is_symlink() and not (repo / "MISSING.md").exists()


def test_a_hard_linked_file_is_left_alone(repo):
    (repo / "AGENTS.md").write_text("# Agent\n", encoding="utf-8")
    os.link(repo / "AGENTS.md", repo / "CLAUDE.md")
    refused(run(".", "--write", "AGENTS.md"), "AGENTS.md: has 2 hard links", "the index was not written")
    assert os.stat(repo / "AGENTS.md").st_nlink == 2
    assert (repo / "CLAUDE.md").read_text(encoding="utf-8") == "# Agent\n"


def test_a_read_only_file_is_left_alone(repo):
    (repo / "AGENTS.md").write_text("# Agent\n", encoding="utf-8")
    os.chmod(repo / "AGENTS.md", 0o444)
    try:
        refused(run(".", "--write", "AGENTS.md"), "AGENTS.md: is read-only; the index was not written")
        assert (repo / "AGENTS.md").read_text(encoding="utf-8") == "# Agent\n"
        assert stat.S_IMODE(os.stat(repo / "AGENTS.md").st_mode) == 0o444
    finally:
        os.chmod(repo / "AGENTS.md", 0o644)


def test_diff_previews_even_a_file_it_may_not_write(repo):
    """--diff writes nothing, so a read-only file can be previewed."""
    (repo / "AGENTS.md").write_text("# Agent\n", encoding="utf-8")
    os.chmod(repo / "AGENTS.md", 0o444)
    try:
        result = run(".", "--write", "AGENTS.md", "--diff")
        assert result.exit_code == 0 and f"+{START}\n" in result.output
    finally:
        os.chmod(repo / "AGENTS.md", 0o644)


BROKEN = {
    "skills/quebrado/SKILL.md": "---\nname: Quebrado Demais\ndescription: use para nada\n---\n",
    "skills/sem-fim/SKILL.md": "---\nname: sem-fim\n",
}


def test_write_lists_every_skill_it_can_and_names_the_others(repo):
    write_tree(repo, BROKEN)
    result = run(".", "--write", "AGENTS.md")
    assert result.exit_code == 1
    assert (repo / "AGENTS.md").read_text(encoding="utf-8") == BLOCK
    assert result.output.strip() == (
        "AGENTS.md: index block written (2 skills); 2 skills cannot be listed until the front matter is fixed "
        '(CL201): skills/quebrado/SKILL.md (name "Quebrado Demais" must use only lowercase letters, digits and '
        "hyphens, without a leading or trailing hyphen); skills/sem-fim/SKILL.md (front matter has no closing "
        "'---' line)"
    )
    again = run(".", "--write", "AGENTS.md")
    assert again.exit_code == 1 and "index block is up to date; 2 skills cannot be listed" in again.output


def test_check_fails_while_a_skill_cannot_be_listed_as_check_keeps_reporting_it(repo):
    write_tree(repo, BROKEN)
    run(".", "--write", "AGENTS.md")
    check = run(".", "--check", "AGENTS.md")
    assert check.exit_code == 1
    assert check.output.startswith("AGENTS.md: index block is current but incomplete; 2 skills cannot be listed")
    lint = CliRunner().invoke(main, ["check", ".", "--isolated", "--no-cache", "--select", "CL201,CL203,CL204"])
    assert lint.exit_code == 1 and "skills/quebrado/SKILL.md" in lint.output
    write_tree(repo, {"skills/quebrado/SKILL.md": skill("quebrado", "use para testar a reconciliação de caixa")})
    write_tree(repo, {"skills/sem-fim/SKILL.md": skill("sem-fim", "use para fechar o mês contábil")})
    assert run(".", "--write", "AGENTS.md").exit_code == 0
    assert run(".", "--check", "AGENTS.md").exit_code == 0
    lint = CliRunner().invoke(main, ["check", ".", "--isolated", "--no-cache", "--select", "CL201,CL203,CL204"])
    assert lint.exit_code == 0, lint.output


@pytest.mark.parametrize(
    "change",
    [
        {},
        {"skills/logistica/SKILL.md": skill("logistica", "use para abrir chamado em transportadora")},
    ],
    ids=["fresh", "a skill added"],
)
def test_check_agrees_with_cl203(repo, change):
    run(".", "--write", "AGENTS.md")
    write_tree(repo, change)
    check = run(".", "--check", "AGENTS.md")
    lint = CliRunner().invoke(main, ["check", ".", "--isolated", "--no-cache", "--select", "CL203"])
    assert (check.exit_code == 0) == (lint.exit_code == 0), (check.output, lint.output)
    assert lint.exit_code in (0, 1)


def test_a_date_that_is_no_date_leaves_the_rest_of_the_front_matter_read(repo):
    """``updated: 2024-02-30`` has a date's shape; YAML's timestamp of it raises. The skill is
    read (its name and description listed) and no rule fails on the others."""
    write_tree(
        repo,
        {"skills/datas/SKILL.md": "---\nname: datas\ndescription: use para datas\nupdated: 2024-02-30\n---\n"},
    )
    printed = run(".")
    assert printed.exit_code == 0 and "- datas: use para datas\n" in printed.output
    lint = CliRunner().invoke(main, ["check", ".", "--isolated", "--no-cache", "--select", "CL2", "--exit-zero"])
    assert "CL003" not in lint.output and "internal error" not in lint.output
