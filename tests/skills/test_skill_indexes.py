"""Index detection, CL203 / CL204, marketplaces, partial (pre-commit) runs and hostile paths."""

from __future__ import annotations

import json
import os

import pytest

from conftest import check_tree, write_tree
from skilltrees import COMISSAO, CONCILIACAO, DOCX, EMISSAO, LOGISTICA, PDF, XLSX, codes, findings, skill

BACK_OFFICE = {
    "skills/conciliacao-cartao/SKILL.md": skill("conciliacao-cartao", CONCILIACAO),
    "skills/emissao-nf/SKILL.md": skill("emissao-nf", EMISSAO),
    "skills/comissao/SKILL.md": skill("comissao", COMISSAO),
}


def agents(*lines: str) -> str:
    return "# Agente de back-office\n\nHabilidades (carregue com load_skill antes de executar):\n" + "".join(
        f"{l}\n" for l in lines
    )


def test_no_index_file_means_nothing_to_check(tmp_path):
    write_tree(tmp_path, {**BACK_OFFICE, "README.md": "# Skills\n\nWe build the index in code.\n"})
    assert codes(check_tree(tmp_path)) == []


def test_cl203_skill_missing_from_agents_md(tmp_path):
    write_tree(
        tmp_path,
        {
            **BACK_OFFICE,
            "AGENTS.md": agents(f"- conciliacao-cartao: {CONCILIACAO}", f"- emissao-nf: {EMISSAO}"),
        },
    )
    assert findings(check_tree(tmp_path)) == [
        (
            "skills/comissao/SKILL.md",
            2,
            "CL203",
            'skill "comissao" is not listed in AGENTS.md (read into the prompt by Codex), which lists its sibling skills: the model never sees it',
        )
    ]


def test_cl204_entry_for_a_deleted_skill_points_at_the_index_line(tmp_path):
    write_tree(
        tmp_path,
        {
            **BACK_OFFICE,
            "AGENTS.md": agents(
                f"- comissao: {COMISSAO}",
                f"- conciliacao-cartao: {CONCILIACAO}",
                f"- emissao-nf: {EMISSAO}",
                f"- logistica: {LOGISTICA}",
            ),
        },
    )
    assert findings(check_tree(tmp_path)) == [
        (
            "AGENTS.md",
            7,
            "CL204",
            'index lists skill "logistica", but no skill has that name or folder (read into the prompt by Codex)',
        )
    ]


def test_table_and_link_entries(tmp_path):
    index = (
        "| Skill | When |\n|---|---|\n"
        f"| **comissao** | {COMISSAO} |\n"
        f"| [emissao-nf](skills/emissao-nf/) | {EMISSAO} |\n"
        f"| [logistica](skills/logistica/SKILL.md) | {LOGISTICA} |\n"
    )
    write_tree(tmp_path, {**BACK_OFFICE, "docs/skills.md": index})
    result = check_tree(tmp_path)
    assert [(p, line, code) for p, line, code, _ in findings(result)] == [
        ("docs/skills.md", 5, "CL204"),
        ("skills/conciliacao-cartao/SKILL.md", 2, "CL203"),
    ]
    assert "skills/logistica/SKILL.md does not lead to a skill" in findings(result)[0][3]


def test_readme_sentence_mentioning_skills_is_not_an_index(tmp_path):
    readme = (
        "# Back office\n\nThe conciliacao-cartao skill shares its matching technique with emissao-nf, "
        "see [the docs](docs/matching.md).\n"
    )
    write_tree(tmp_path, {**BACK_OFFICE, "README.md": readme})
    assert codes(check_tree(tmp_path)) == []


def test_unrelated_list_in_an_index_file_is_not_an_entry(tmp_path):
    text = agents(f"- comissao: {COMISSAO}", f"- conciliacao-cartao: {CONCILIACAO}", f"- emissao-nf: {EMISSAO}")
    text += "\n## Rules\n\n- always: answer in Portuguese\n- never: delete a title\n"
    write_tree(tmp_path, {**BACK_OFFICE, "AGENTS.md": text})
    assert codes(check_tree(tmp_path)) == []


def test_changelog_naming_skills_is_not_an_index(tmp_path):
    write_tree(
        tmp_path,
        {
            **BACK_OFFICE,
            "CHANGELOG.md": "## 1.2\n\n- **comissao** — rounding fixed\n- **emissao-nf** — new CFOP codes\n",
        },
    )
    assert codes(check_tree(tmp_path)) == []


def test_page_naming_few_of_many_skills_is_documentation(tmp_path):
    tasks = [
        "exporting ledgers to SAP",
        "filing VAT returns",
        "paying suppliers by SEPA",
        "closing the month",
        "chasing overdue invoices",
        "booking payroll journals",
        "auditing expense claims",
        "forecasting cash flow",
    ]
    tree = {
        f"skills/s{i}/SKILL.md": skill(f"s{i}", f"Use when {task} for the finance team") for i, task in enumerate(tasks)
    }
    tree["docs/howto.md"] = "- s0: see its steps\n- s1: see its steps\n"
    write_tree(tmp_path, tree)
    assert "CL203" not in codes(check_tree(tmp_path))
    configured = check_tree(tmp_path, config={"skills": {"index": ["docs/howto.md"]}})
    assert codes(configured).count("CL203") == 6


def test_external_links_name_local_skills_but_are_never_stale(tmp_path):
    readme = (
        "## Skills\n\n"
        "- [comissao](https://example.com/skills/comissao) - commissions\n"
        "- [emissao-nf](./skills/emissao-nf/) - invoices\n"
        "- [conciliacao-cartao](./skills/conciliacao-cartao/) - card receipts\n"
        "- [someone-elses-skill](https://github.com/x/y) - not ours\n"
    )
    write_tree(tmp_path, {**BACK_OFFICE, "README.md": readme})
    assert codes(check_tree(tmp_path)) == []


def test_an_external_link_named_like_a_skill_of_another_collection_is_not_stale(tmp_path):
    """A catalogue linking a skill of another repository by its name, in a tree that happens to
    hold another collection with a skill of that name (awesome-claude-skills beside superpowers):
    the link is not an entry of this index, so not a CL204 either."""
    readme = (
        "## Skills\n\n"
        "- [emissao-nf](./emissao-nf/) - invoices\n"
        "- [conciliacao-cartao](./conciliacao-cartao/) - card receipts\n"
        "- [brainstorming](https://github.com/x/superpowers/tree/main/skills/brainstorming) - not ours\n"
    )
    write_tree(
        tmp_path,
        {
            "catalogue/README.md": readme,
            "catalogue/emissao-nf/SKILL.md": skill("emissao-nf", EMISSAO),
            "catalogue/conciliacao-cartao/SKILL.md": skill("conciliacao-cartao", CONCILIACAO),
            "other/skills/brainstorming/SKILL.md": skill(
                "brainstorming", "Turn a rough idea into a design by asking one question at a time."
            ),
        },
    )
    assert "CL204" not in codes(check_tree(tmp_path))


def test_collection_link_covers_the_skills_below(tmp_path):
    tree = {**BACK_OFFICE, "vendor/x/SKILL.md": skill("x", PDF), "vendor/y/SKILL.md": skill("y", DOCX)}
    tree["README.md"] = (
        f"- [comissao](skills/comissao/): {COMISSAO}\n- [emissao-nf](skills/emissao-nf/): {EMISSAO}\n"
        "- [vendor skills](vendor/): third-party skills\n"
    )
    write_tree(tmp_path, tree)
    assert findings(check_tree(tmp_path)) == [
        (
            "skills/conciliacao-cartao/SKILL.md",
            2,
            "CL203",
            'skill "conciliacao-cartao" is not listed in README.md, the catalog that lists its sibling skills: '
            "the documentation has drifted from the skills (a catalog is for readers; it is not what the model loads)",
        )
    ]


# --- marketplaces ------------------------------------------------------------------------------


DOCS = {
    "skills/pdf/SKILL.md": skill("pdf", PDF),
    "skills/docx/SKILL.md": skill("docx", DOCX),
    "skills/xlsx/SKILL.md": skill("xlsx", XLSX),
}


def marketplace(*skills: str, source: str = "./") -> str:
    body = {"name": "docs", "plugins": [{"name": "documents", "source": source, "skills": list(skills)}]}
    return json.dumps(body, indent=2) + "\n"


def test_marketplace_paths_resolve_against_the_repository_root(tmp_path):
    write_tree(
        tmp_path,
        {**DOCS, ".claude-plugin/marketplace.json": marketplace("./skills/pdf", "./skills/docx", "./skills/xlsx")},
    )
    assert codes(check_tree(tmp_path)) == []


def test_marketplace_paths_resolve_against_the_marketplace_folder(tmp_path):
    tree = {f"plugins/docs/{k}": v for k, v in DOCS.items()}
    tree["plugins/docs/marketplace.json"] = marketplace("./skills/pdf", "./skills/docx", "./skills/xlsx")
    write_tree(tmp_path, tree)
    assert codes(check_tree(tmp_path)) == []


def test_marketplace_missing_skill_and_unlisted_skill(tmp_path):
    write_tree(
        tmp_path,
        {**DOCS, ".claude-plugin/marketplace.json": marketplace("./skills/pdf", "./skills/docx", "./skills/pptx")},
    )
    result = findings(check_tree(tmp_path))
    assert result == [
        (
            ".claude-plugin/marketplace.json",
            10,
            "CL204",
            "index entry ./skills/pptx does not lead to a skill "
            "(tried against: the plugin source ./ from the marketplace root; the marketplace's folder)"
            " (Claude Code's plugin marketplace)",
        ),
        (
            "skills/xlsx/SKILL.md",
            2,
            "CL203",
            'skill "xlsx" is not listed in .claude-plugin/marketplace.json (Claude Code\'s plugin marketplace), which lists its sibling skills: the model never sees it',
        ),
    ]


@pytest.mark.parametrize("hostile", ["../../etc/passwd", "/etc/passwd", "../outside-skill"])
def test_entries_outside_the_repository_are_reported_never_read(tmp_path, hostile):
    repo = tmp_path / "repo"
    (tmp_path / "outside-skill").mkdir()
    (tmp_path / "outside-skill" / "SKILL.md").write_text(skill("outside-skill", PDF))
    write_tree(
        repo,
        {
            **DOCS,
            ".claude-plugin/marketplace.json": marketplace("./skills/pdf", "./skills/docx", "./skills/xlsx", hostile),
        },
    )
    (repo / ".git").mkdir()
    result = findings(check_tree(repo))
    assert [(p, c) for p, _, c, _ in result] == [(".claude-plugin/marketplace.json", "CL204")]
    assert result[0][3].startswith(f"index entry {hostile} points outside the repository; not read")


def test_markdown_link_to_a_skill_outside_the_repository(tmp_path):
    write_tree(
        tmp_path,
        {
            **DOCS,
            "AGENTS.md": f"- [pdf](skills/pdf/): {PDF}\n- [docx](skills/docx): {DOCX}\n- [xlsx](skills/xlsx): {XLSX}\n"
            "- [pptx](../../vendor/skills/pptx/SKILL.md): slides\n- [secrets](../../etc/passwd): x\n",
        },
    )
    (tmp_path / ".git").mkdir()
    # a link to an ordinary file is no index entry, wherever it points: only the skill is CL204's
    assert findings(check_tree(tmp_path)) == [
        (
            "AGENTS.md",
            4,
            "CL204",
            "index entry ../../vendor/skills/pptx/SKILL.md points outside the repository; not read"
            " (read into the prompt by Codex)",
        )
    ]


SUBPROJECT = {
    "docs/spec.md": "# spec\n",
    "python/SETUP.md": "# setup\n",
    "python/.github/skills/aa-dev/SKILL.md": skill(
        "aa-dev", "Use when writing and testing Python code in this monorepo."
    ),
    "python/.github/skills/bb-test/SKILL.md": skill(
        "bb-test", "Use when running the Python test suite and reading its coverage."
    ),
}


def test_dotdot_links_that_stay_in_the_repository_are_not_outside(tmp_path):
    """agent-framework python/AGENTS.md: `..` leads from the index's folder back into the repository."""
    index = (
        "# AGENTS.md\n\n- [SETUP.md](SETUP.md) - setup\n- [loop spec](../docs/spec.md) - required\n"
        "- [old notes](../docs/gone.md) - removed\n\n**Agent Skills** (`.github/skills/`):\n"
        "- `aa-dev` — coding\n- `bb-test` — testing\n\nChanges must follow\n"
        "[the spec](../docs/spec.md). This area requires care.\n- [setup again](../python/SETUP.md) - same folder via ..\n"
    )
    write_tree(tmp_path, {**SUBPROJECT, "python/AGENTS.md": index})
    (tmp_path / ".git").mkdir()
    assert findings(check_tree(tmp_path)) == []
    # a `..` link to a skill folder that is gone is stale like any other, not "outside"
    write_tree(
        tmp_path, {"python/AGENTS.md": index + "- [cc-lint](../python/.github/skills/cc-lint/SKILL.md) - lint\n"}
    )
    assert [(p, line, c) for p, line, c, _ in findings(check_tree(tmp_path))] == [("python/AGENTS.md", 14, "CL204")]
    assert "does not lead to a skill" in findings(check_tree(tmp_path))[0][3]


def test_symlinked_skill_outside_the_tree_is_not_followed(tmp_path):
    outside = tmp_path / "outside"
    write_tree(outside, {"evil/SKILL.md": "---\nname: Evil\n---\n"})
    repo = tmp_path / "repo"
    write_tree(repo, DOCS)
    (repo / ".git").mkdir()
    os.symlink(outside / "evil", repo / "skills" / "evil")
    assert codes(check_tree(repo)) == []


# --- partial runs (pre-commit passes the changed files) -----------------------------------------


def test_partial_run_reports_only_on_given_files_but_sees_the_whole_tree(tmp_path):
    write_tree(
        tmp_path,
        {
            **BACK_OFFICE,
            "skills/logistica/SKILL.md": skill("logistica", "útil no back-office"),
            "AGENTS.md": agents(
                f"- conciliacao-cartao: {CONCILIACAO}", f"- emissao-nf: {EMISSAO}", f"- logistica: {LOGISTICA}"
            ),
        },
    )
    (tmp_path / ".git").mkdir()
    # the whole tree: comissao is unindexed, logistica is generic
    assert sorted(c for c in codes(check_tree(tmp_path))) == ["CL202", "CL203"]
    # only emissao-nf changed: it is fine, and nothing about the other files is reported
    assert codes(check_tree(tmp_path, paths=("skills/emissao-nf/SKILL.md",))) == []
    # only comissao changed: its missing index line is reported, though AGENTS.md was not given
    assert findings(check_tree(tmp_path, paths=("skills/comissao/SKILL.md",)))[0][:3] == (
        "skills/comissao/SKILL.md",
        2,
        "CL203",
    )
    # only the index changed: the skill it misses is reported
    assert codes(check_tree(tmp_path, paths=("AGENTS.md",))) == ["CL203"]


def test_partial_run_reports_a_stale_entry_left_by_a_rename(tmp_path):
    write_tree(
        tmp_path,
        {
            "skills/conciliacao-cartao/SKILL.md": skill("conciliacao-cartao", CONCILIACAO),
            "skills/emissao-nfe/SKILL.md": skill("emissao-nfe", EMISSAO),
            "AGENTS.md": agents(
                f"- conciliacao-cartao: {CONCILIACAO}", f"- emissao-nf: {EMISSAO}", f"- emissao-nfe: {EMISSAO}"
            ),
        },
    )
    (tmp_path / ".git").mkdir()
    assert findings(check_tree(tmp_path, paths=("skills/emissao-nfe/SKILL.md",))) == [
        (
            "AGENTS.md",
            5,
            "CL204",
            'index lists skill "emissao-nf", but no skill has that name or folder (read into the prompt by Codex)',
        )
    ]


def test_partial_run_from_a_subfolder_uses_the_repository_root(tmp_path):
    write_tree(
        tmp_path,
        {**BACK_OFFICE, "AGENTS.md": agents(f"- conciliacao-cartao: {CONCILIACAO}", f"- emissao-nf: {EMISSAO}")},
    )
    (tmp_path / ".git").mkdir()
    assert codes(check_tree(tmp_path, paths=("skills",))) == ["CL203"]


def test_cl206_partial_run_reports_the_cluster_at_a_given_member(tmp_path):
    tmpl = "Automate {} tasks via Rube MCP (Composio). Always search tools first for current schemas."
    write_tree(
        tmp_path,
        {
            f"skills/{a}-automation/SKILL.md": skill(f"{a}-automation", tmpl.format(a.title()))
            for a in ("slack", "gmail", "notion")
        },
    )
    (tmp_path / ".git").mkdir()
    ((path, _, code, message),) = findings(check_tree(tmp_path, paths=("skills/slack-automation/SKILL.md",)))
    assert (path, code) == ("skills/slack-automation/SKILL.md", "CL206")
    assert message.endswith("gmail-automation, notion-automation, slack-automation")


# --- bad inputs ----------------------------------------------------------------------------------


def test_skill_md_that_is_a_directory(tmp_path):
    write_tree(tmp_path, {**DOCS, "skills/odd/SKILL.md/notes.txt": "hello\n"})
    assert findings(check_tree(tmp_path)) == [
        ("skills/odd/SKILL.md", 1, "CL001", "SKILL.md is a directory, expected a file")
    ]


def test_invalid_utf8_and_binary_skill_files(tmp_path):
    write_tree(
        tmp_path,
        {
            **DOCS,
            "skills/latin/SKILL.md": b"---\nname: latin\ndescription: concilia\xe7\xe3o\n---\n",
            "skills/bin/SKILL.md": b"---\x00\n",
        },
    )
    assert [(p, c) for p, _, c, _ in findings(check_tree(tmp_path))] == [
        ("skills/bin/SKILL.md", "CL001"),
        ("skills/latin/SKILL.md", "CL001"),
    ]


def test_bom_and_crlf_skill_is_fine(tmp_path):
    write_tree(tmp_path, {"skills/pdf/SKILL.md": ("\ufeff" + skill("pdf", PDF)).replace("\n", "\r\n").encode("utf-8")})
    assert codes(check_tree(tmp_path)) == []


def test_oversized_skill_file(tmp_path):
    write_tree(tmp_path, {"skills/pdf/SKILL.md": skill("pdf", PDF) + "x" * 5000})
    result = check_tree(tmp_path, config={"max-file-size": 1000})
    assert [(p, c) for p, _, c, _ in findings(result)] == [("skills/pdf/SKILL.md", "CL001")]


def test_broken_index_files_never_crash(tmp_path):
    write_tree(
        tmp_path,
        {
            **DOCS,
            "skills.json": "[" * 20000,
            "skills.yaml": "a: &a [1,1,1,1,1,1,1,1,1,1]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\n"
            "d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]\n# pdf docx\n",
            ".claude-plugin/marketplace.json": '{"plugins": [{"source": 3, "skills": [null, 5, "./skills/pdf", "./skills/docx"]}, "x"]}',
            "broken.md": b"- pdf: \xff\n",
        },
    )
    assert codes(check_tree(tmp_path)) == ["CL203"]


def test_data_file_index(tmp_path):
    data = {
        "skills": [
            {"name": "pdf", "description": PDF},
            {"name": "docx", "description": DOCX},
            {"name": "pptx", "description": "x"},
        ]
    }
    write_tree(tmp_path, {**DOCS, "agent/skills.json": json.dumps(data, indent=1)})
    assert sorted((p, c) for p, _, c, _ in findings(check_tree(tmp_path))) == [
        ("agent/skills.json", "CL204"),
        ("skills/xlsx/SKILL.md", "CL203"),
    ]


def test_table_with_a_number_column_uses_the_name_column(tmp_path):
    index = (
        "| # | Skill | When |\n|---|---|---|\n"
        f"| 1 | `comissao` | {COMISSAO} |\n"
        f"| 2 | `conciliacao-cartao` | {CONCILIACAO} |\n"
        f"| 3 | `emissao-nf` | {EMISSAO} |\n"
        f"| 4 | `logistica` | {LOGISTICA} |\n"
    )
    write_tree(tmp_path, {**BACK_OFFICE, "AGENTS.md": index})
    assert findings(check_tree(tmp_path)) == [
        (
            "AGENTS.md",
            6,
            "CL204",
            'index lists skill "logistica", but no skill has that name or folder (read into the prompt by Codex)',
        )
    ]


def test_link_targets_are_url_decoded(tmp_path):
    tree = {"skills/my skill/SKILL.md": skill("my-skill", PDF), "skills/docx/SKILL.md": skill("docx", DOCX)}
    tree["AGENTS.md"] = f"- [my-skill](skills/my%20skill/): {PDF}\n- [docx](skills/docx/): {DOCX}\n"
    write_tree(tmp_path, tree)
    assert codes(check_tree(tmp_path)) == ["CL205"]


def test_mapping_table_with_skills_in_a_later_column_is_not_an_index(tmp_path):
    table = (
        "| Product | Skill | Notes |\n|---|---|---|\n"
        "| Billing | `comissao` | |\n| Cards | `conciliacao-cartao` | |\n| Logistics | `logistica` | planned |\n"
    )
    write_tree(tmp_path, {**BACK_OFFICE, "docs/mapping.md": table})
    assert codes(check_tree(tmp_path)) == []


def test_worked_examples_naming_skills_again_and_again_are_not_an_index(tmp_path):
    examples = "".join(
        f"## Example {i}\n\nSkills used:\n- `comissao` - commissions\n- `emissao-nf` - invoices\n- `plotly` - charts\n\n"
        for i in range(4)
    )
    write_tree(tmp_path, {**BACK_OFFICE, "docs/examples.md": examples})
    assert codes(check_tree(tmp_path)) == []


def test_names_resolve_to_the_copies_nearest_the_index(tmp_path):
    tree = {}
    for agent in (".codex", ".gemini"):
        for name, description in (("pdf", PDF), ("docx", DOCX)):
            tree[f"{agent}/skills/{name}/SKILL.md"] = skill(name, description)
    tree[".codex/skills/codex-only/SKILL.md"] = skill("codex-only", XLSX)
    tree[".gemini/skills-index.json"] = json.dumps(
        {"skills": [{"name": "pdf", "description": PDF}, {"name": "docx", "description": DOCX}]}
    )
    write_tree(tmp_path, tree)
    assert [c for c in codes(check_tree(tmp_path)) if c in ("CL203", "CL204")] == []


# deepagents: a test snapshot of the prompt lists the built-in skills by bare name; examples/ holds
# other skills and a copy of one built-in skill under the same name
ARXIV = "Use when searching arXiv for papers on a topic and summarising abstracts."
LANGGRAPH = "Use when answering questions about LangGraph from its documentation."
WEB = "Use when researching a topic on the web with several sources."
TWO_COLLECTIONS = {
    "builtin/alpha/SKILL.md": skill("alpha", PDF),
    "builtin/beta/SKILL.md": skill("beta", DOCX),
    "builtin/gamma/SKILL.md": skill("gamma", XLSX),
    "examples/gamma/SKILL.md": skill("gamma", XLSX),
    "examples/delta/SKILL.md": skill("delta", ARXIV),
    "examples/epsilon/SKILL.md": skill("epsilon", LANGGRAPH),
    "examples/zeta/SKILL.md": skill("zeta", WEB),
}


def snapshot(folder: str | None) -> str:
    lines = ["**Available Skills:**", ""]
    for name, description in (("alpha", PDF), ("beta", DOCX), ("gamma", XLSX)):
        lines.append(f"- **{name}**: {description}")
        if folder is not None:
            lines.append(f"  -> Read `{folder}/{name}/SKILL.md` for full instructions")
    return "\n".join(lines) + "\n"


def test_a_name_two_collections_share_resolves_to_the_copy_its_path_hint_names(tmp_path):
    write_tree(tmp_path, {**TWO_COLLECTIONS, "tests/snapshot.md": snapshot("<built_in_skills_dir>")})
    assert findings(check_tree(tmp_path)) == []


def test_a_path_hint_can_name_the_other_collection(tmp_path):
    # the hint decides, not the order of the folders: gamma is examples' copy, so the (configured)
    # index draws from examples/ too and misses its other skills, and builtin's gamma
    hints = snapshot(None).replace(
        "- **gamma**: " + XLSX, "- **gamma**: " + XLSX + "\n  -> Read `<examples_dir>/gamma/SKILL.md`"
    )
    write_tree(tmp_path, {**TWO_COLLECTIONS, "tests/snapshot.md": hints})
    configured = {"skills": {"index": ["tests/snapshot.md"]}}
    assert [(p, c) for p, _, c, _ in findings(check_tree(tmp_path, config=configured))] == [
        ("builtin/gamma/SKILL.md", "CL203"),
        ("examples/delta/SKILL.md", "CL203"),
        ("examples/epsilon/SKILL.md", "CL203"),
        ("examples/zeta/SKILL.md", "CL203"),
    ]


def test_a_shared_name_without_hint_resolves_beside_the_index_s_other_skills(tmp_path):
    write_tree(tmp_path, {**TWO_COLLECTIONS, "tests/snapshot.md": snapshot(None)})
    assert findings(check_tree(tmp_path)) == []
    # alpha and gamma are two of builtin's three skills: an index of builtin/ that misses beta
    write_tree(tmp_path, {"tests/snapshot.md": f"- **alpha**: {PDF}\n- **gamma**: {XLSX}\n"})
    assert [(p, c) for p, _, c, _ in findings(check_tree(tmp_path))] == [("builtin/beta/SKILL.md", "CL203")]
    # without the copy, nothing changes
    (tmp_path / "examples" / "gamma" / "SKILL.md").unlink()
    assert [(p, c) for p, _, c, _ in findings(check_tree(tmp_path))] == [("builtin/beta/SKILL.md", "CL203")]


def test_a_shared_name_resolves_to_the_copy_nearest_the_index(tmp_path):
    # app/docs/AGENTS.md lists vendor's skills and a gamma: the copy in app/ is nearer than the one
    # beside the other entries, so the index draws from app/builtin/ too
    tree = {f"app/{k}": v for k, v in TWO_COLLECTIONS.items() if k.startswith("builtin/")}
    tree.update({f"vendor/{k}": v for k, v in TWO_COLLECTIONS.items() if k.startswith("examples/")})
    tree["app/docs/AGENTS.md"] = f"- gamma: {XLSX}\n- delta: {ARXIV}\n- epsilon: {LANGGRAPH}\n- zeta: {WEB}\n"
    write_tree(tmp_path, tree)
    assert [(p, c) for p, _, c, _ in findings(check_tree(tmp_path))] == [
        ("app/builtin/alpha/SKILL.md", "CL203"),
        ("app/builtin/beta/SKILL.md", "CL203"),
        ("vendor/examples/gamma/SKILL.md", "CL203"),
    ]


THETA = "Use when drafting a changelog entry from a merged pull request."


def test_a_name_nothing_tells_apart_never_sets_the_index_s_scope(tmp_path):
    tree = {
        **TWO_COLLECTIONS,
        "builtin/theta/SKILL.md": skill("theta", THETA),
        "examples/theta/SKILL.md": skill("theta", THETA),
        "tests/snapshot.md": f"- **gamma**: {XLSX}\n- **theta**: {THETA}\n",
    }
    write_tree(tmp_path, tree)
    assert findings(check_tree(tmp_path)) == []
    # configured, it is an index whatever it holds, but its names still draw neither collection in
    assert findings(check_tree(tmp_path, config={"skills": {"index": ["tests/snapshot.md"]}})) == []


def test_a_name_nothing_tells_apart_never_joins_cl206_comparisons(tmp_path):
    # the copies drifted: builtin's gamma and examples' theta read alike, but no prompt shows both
    tree = {
        **TWO_COLLECTIONS,
        "examples/gamma/SKILL.md": skill("gamma", "Use when scaffolding a new skill folder with its front matter."),
        "builtin/theta/SKILL.md": skill("theta", THETA),
        "examples/theta/SKILL.md": skill("theta", XLSX.replace("CSV data", "CSV data files")),
        "tests/snapshot.md": f"- **gamma**: {XLSX}\n- **theta**: {THETA}\n",
    }
    write_tree(tmp_path, tree)
    assert findings(check_tree(tmp_path, config={"skills": {"index": ["tests/snapshot.md"]}})) == []


def test_entry_whose_skill_md_is_a_broken_symlink_is_left_to_cl001(tmp_path):
    write_tree(tmp_path, {**DOCS, "AGENTS.md": f"- pdf: {PDF}\n- docx: {DOCX}\n- xlsx: {XLSX}\n- pptx: slides\n"})
    (tmp_path / "skills" / "pptx").mkdir()
    os.symlink(tmp_path / "nowhere" / "SKILL.md", tmp_path / "skills" / "pptx" / "SKILL.md")
    assert [(p, c) for p, _, c, _ in findings(check_tree(tmp_path))] == [("skills/pptx/SKILL.md", "CL001")]


def test_empty_skill_md_directory_beside_other_skills(tmp_path):
    write_tree(tmp_path, DOCS)
    (tmp_path / "skills" / "odd" / "SKILL.md").mkdir(parents=True)
    assert findings(check_tree(tmp_path)) == [
        ("skills/odd/SKILL.md", 1, "CL001", "SKILL.md is a directory, expected a file")
    ]
