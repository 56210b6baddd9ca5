"""Index shapes seen in skill repositories: folder-form names, bundle pages, tables headed
"Skill", a plugin's own README, links to a category folder, catalogs by plugin, labelled lists."""

from __future__ import annotations

import pytest

from conftest import check_tree, write_tree
from skilltrees import COMISSAO, CONCILIACAO, DOCX, EMISSAO, LOGISTICA, PDF, XLSX, skill


def _codes_at(result, code):
    return sorted((d.path, d.line) for d in result.diagnostics if d.code == code)


def test_names_written_as_folders_in_claude_md(tmp_path):
    write_tree(
        tmp_path,
        {
            "skills/conciliacao-cartao/SKILL.md": skill("conciliacao-cartao", CONCILIACAO),
            "skills/emissao-nf/SKILL.md": skill("emissao-nf", EMISSAO),
            "skills/comissao/SKILL.md": skill("comissao", COMISSAO),
            "CLAUDE.md": "# Back-office\n\n1. **conciliacao-cartao/** - conciliação\n2. **emissao-nf/** - notas fiscais\n\n- `skills/`\n- `agents/`\n",
        },
    )
    result = check_tree(tmp_path)
    assert _codes_at(result, "CL203") == [("skills/comissao/SKILL.md", 2)]
    assert _codes_at(result, "CL204") == []  # the layout's folders are no entries


def test_bundle_page_checks_every_pack(tmp_path):
    tree = {f"skills/s{i}-tool/SKILL.md": skill(f"s{i}-tool", PDF.replace("PDF", f"PDF{i}")) for i in range(30)}
    packs = "".join(
        f"## Pack {p}\n\n" + "".join(f"- `s{p * 3 + k}-tool`: part\n" for k in range(3)) + "\n" for p in range(3)
    )
    packs += "## Old pack\n\n- `s9-tool`: kept\n- `gone-one`: renamed\n- `gone-two`: renamed\n"
    write_tree(tmp_path, {**tree, "docs/BUNDLES.md": "# Bundles\n\n" + packs})
    result = check_tree(tmp_path)
    assert [line for path, line in _codes_at(result, "CL204")] == [24, 25]
    assert _codes_at(result, "CL203") == []  # a page of bundles is no index of them all


def test_table_headed_skill_in_a_plugin_readme(tmp_path):
    manifest = '{"name": "sales"}'
    write_tree(
        tmp_path,
        {
            "sales/.claude-plugin/plugin.json": manifest,
            "sales/skills/pdf/SKILL.md": skill("pdf", PDF),
            "sales/skills/docx/SKILL.md": skill("docx", DOCX),
            "legal/.claude-plugin/plugin.json": '{"name": "legal"}',
            "legal/skills/xlsx/SKILL.md": skill("xlsx", XLSX),
            "sales/README.md": "# Sales\n\n| Skill | Covers |\n|---|---|\n| `pdf` | PDFs |\n| `docx` | Word |\n"
            "| `old-forms` | forms |\n| `xlsx` | sheets |\n",
        },
    )
    # xlsx is a skill of another plugin: the sales plugin, installed on its own, has none
    assert [line for _p, line in _codes_at(check_tree(tmp_path), "CL204")] == [7, 8]


def test_link_to_a_category_folder_named_after_one_skill(tmp_path):
    write_tree(
        tmp_path,
        {
            "20-writing/paper-writing/SKILL.md": skill("paper-writing", DOCX),
            "20-writing/plotting/SKILL.md": skill("plotting", XLSX),
            "20-writing/talks/SKILL.md": skill("talks", PDF),
            "README.md": "# Skills\n\n- **[Paper Writing](20-writing/)** - papers\n- **[Plotting](20-writing/plotting/)** - figures\n",
        },
    )
    assert _codes_at(check_tree(tmp_path), "CL203") == [("20-writing/talks/SKILL.md", 2)]


def test_catalog_that_claims_every_skill_covers_the_plugins_it_leaves_out(tmp_path):
    # "7 skills across 7 plugins", naming the skills of six: the page says it is the catalog
    descriptions = [PDF, DOCX, XLSX, CONCILIACAO, EMISSAO, COMISSAO, LOGISTICA]
    tree = {f"plugins/p{i}/skills/k{i}/SKILL.md": skill(f"k{i}", d) for i, d in enumerate(descriptions)}
    rows = "".join(f"| **k{i}** | skill {i} |\n" for i in range(6))
    page = "# Skills by plugin\n\nThis marketplace holds 7 skills across 7 plugins.\n\n| Skill | What |\n|---|---|\n"
    write_tree(tmp_path, {**tree, "docs/skills.md": page + rows})
    assert _codes_at(check_tree(tmp_path), "CL203") == [("plugins/p6/skills/k6/SKILL.md", 2)]


@pytest.mark.parametrize("claim", ["", "It lists 6 skills.\n\n"])
def test_catalog_of_some_plugins_covers_those_it_lists(tmp_path, claim):
    # no claim, or a claim it meets: a page that lists plugins covers those, not those it omits
    descriptions = [PDF, DOCX, XLSX, CONCILIACAO, EMISSAO, COMISSAO, LOGISTICA]
    tree = {f"plugins/p{i}/skills/k{i}/SKILL.md": skill(f"k{i}", d) for i, d in enumerate(descriptions)}
    rows = "".join(f"| **k{i}** | skill {i} |\n" for i in range(6))
    page = "# Skills by plugin\n\n" + claim + "| Skill | What |\n|---|---|\n"
    write_tree(tmp_path, {**tree, "docs/skills.md": page + rows})
    assert _codes_at(check_tree(tmp_path), "CL203") == []


def test_labelled_lists_of_names(tmp_path):
    write_tree(
        tmp_path,
        {
            "skills/pdf/SKILL.md": skill("pdf", PDF),
            "skills/docx/SKILL.md": skill("docx", DOCX),
            "skills/xlsx/SKILL.md": skill("xlsx", XLSX),
            "AGENTS.md": "# Agent\n\n- **Documents**: pdf, docx (Word)\n- **3D**: xlsx\n",
        },
    )
    result = check_tree(tmp_path)
    assert _codes_at(result, "CL203") == [] and _codes_at(result, "CL204") == []


def _categorized(extra=None):
    """Six categories of two skills each under skills/, and what a test adds."""
    tree = {}
    for c in range(6):
        for k in range(2):
            name = f"c{c}-k{k}"
            tree[f"skills/cat{c}/{name}/SKILL.md"] = skill(name, f"Use when handling case {c}.{k} of the workflow.")
    return {**tree, **(extra or {})}


def _catalog_json(categories=range(6)):
    entries = ",".join(
        f'{{"name": "c{c}-k{k}", "path": "cat{c}/c{c}-k{k}", "category": "cat{c}"}}'
        for c in categories
        for k in range(2)
    )
    return "[" + entries + "]"


def test_catalog_by_category_covers_skills_filed_another_way(tmp_path):
    # a site catalog generated from skills/<category>/<skill> misses the skill filed directly in
    # skills/ and the ones grouped one level deeper inside a category
    extra = {
        "skills/loose/SKILL.md": skill("loose", "Use when a task fits no category of the collection."),
        "skills/cat2/group/g-one/SKILL.md": skill("g-one", "Use when running the first grouped step."),
        "skills/cat2/group/g-two/SKILL.md": skill("g-two", "Use when running the second grouped step."),
        "site/skills.json": _catalog_json(),
    }
    write_tree(tmp_path, _categorized(extra))
    result = check_tree(tmp_path)
    assert _codes_at(result, "CL203") == [
        ("skills/cat2/group/g-one/SKILL.md", 2),
        ("skills/cat2/group/g-two/SKILL.md", 2),
        ("skills/loose/SKILL.md", 2),
    ]
    assert all(d.severity.value == "warning" for d in result.diagnostics if d.code == "CL203")


def test_catalog_by_category_leaves_out_a_category_it_omits(tmp_path):
    # seven categories, six listed: the seventh is left out on purpose, as a plugin a page omits
    extra = {
        "skills/cat6/c6-k0/SKILL.md": skill("c6-k0", "Use when handling the seventh category."),
        "site/skills.json": _catalog_json(),
    }
    write_tree(tmp_path, _categorized(extra))
    assert _codes_at(check_tree(tmp_path), "CL203") == []


def test_catalog_of_a_few_categories_is_a_guide_to_those(tmp_path):
    extra = {
        "skills/loose/SKILL.md": skill("loose", "Use when a task fits no category of the collection."),
        "site/skills.json": _catalog_json(range(3)),
    }
    write_tree(tmp_path, _categorized(extra))
    assert _codes_at(check_tree(tmp_path), "CL203") == []


def test_prompt_index_by_category_keeps_its_loader_scope(tmp_path):
    # AGENTS.md is read into the prompt: what it must list is what its loader sees, not a
    # reader's catalog of the folder
    agents = "# Skills\n\n" + "".join(f"- c{c}-k{k}: case\n" for c in range(6) for k in range(2))
    extra = {
        "skills/loose/SKILL.md": skill("loose", "Use when a task fits no category of the collection."),
        "AGENTS.md": agents,
    }
    write_tree(tmp_path, _categorized(extra))
    assert _codes_at(check_tree(tmp_path), "CL203") == []


def test_catalog_by_category_skips_sub_documents(tmp_path):
    extra = {
        "skills/cat1/c1-k0/examples/demo/SKILL.md": skill("demo", "Use when showing the demo of c1-k0."),
        "site/skills.json": _catalog_json(),
    }
    write_tree(tmp_path, _categorized(extra))
    assert _codes_at(check_tree(tmp_path), "CL203") == []
