"""Skill indexes as loaders see them: marketplaces of source-only plugins, prompt indexes apart
from catalogs, one-entry and stale indexes, slash commands, files that are no index, nested
SKILL.md files. English and Portuguese trees."""

from __future__ import annotations

import json

import pytest

from conftest import check_tree, write_tree
from skilltrees import COMISSAO, CONCILIACAO, DOCX, EMISSAO, PDF, XLSX, codes, findings, skill

PAY = "Use when charging a card, issuing a refund or checking a payment's status."
SHIP = "Use when booking a carrier pickup, printing a label or tracking a parcel."
BOLETO = "use para emitir, registrar ou cancelar boletos bancários de clientes"


def _marketplace(*plugins: dict, folder: str = ".claude-plugin") -> dict[str, str]:
    body = {"name": "market", "owner": {"name": "x"}, "plugins": list(plugins)}
    return {f"{folder}/marketplace.json": json.dumps(body, indent=2) + "\n"}


def _by_code(result, code):
    return [d for d in result.diagnostics if d.code == code]


# --- marketplaces ------------------------------------------------------------------------------


@pytest.mark.parametrize("folder", [".claude-plugin", ".cursor-plugin", ".agents/plugins"])
def test_source_only_plugin_lists_every_skill_below_it(tmp_path, folder):
    tree = {
        "plugins/financeiro/skills/comissao/SKILL.md": skill("comissao", COMISSAO),
        "plugins/financeiro/skills/emissao-nf/SKILL.md": skill("emissao-nf", EMISSAO),
        "plugins/financeiro/skills/conciliacao-cartao/SKILL.md": skill("conciliacao-cartao", CONCILIACAO),
        **_marketplace({"name": "financeiro", "source": "./plugins/financeiro"}, folder=folder),
    }
    write_tree(tmp_path, tree)
    assert codes(check_tree(tmp_path)) == []


def test_source_resolves_from_the_marketplace_root_not_the_repository_root(tmp_path):
    # composio-like: the marketplace lives in a sub-folder, its sources exist only at the root
    tree = {
        "pay/SKILL.md": skill("pay", PAY),
        "ship/SKILL.md": skill("ship", SHIP),
        "bundle/brand/SKILL.md": skill("brand", PDF),
        **{
            f"bundle/{k}": v
            for k, v in _marketplace(
                {"name": "brand", "source": "./brand"},
                {"name": "pay", "source": "./pay"},
                {"name": "ship", "source": "./ship"},
            ).items()
        },
    }
    write_tree(tmp_path, tree)
    result = findings(check_tree(tmp_path))
    assert [(p, c) for p, _, c, _ in result] == [
        ("bundle/.claude-plugin/marketplace.json", "CL204"),
        ("bundle/.claude-plugin/marketplace.json", "CL204"),
    ]
    assert (
        result[0][3]
        == "plugin source ./pay names no folder (resolved from the marketplace root bundle/): the plugin cannot be installed (Claude Code's plugin marketplace)"
    )


def test_a_source_folder_of_commands_only_is_no_dangling_entry(tmp_path):
    tree = {
        "plugins/docs/skills/pdf/SKILL.md": skill("pdf", PDF),
        "plugins/docs/skills/docx/SKILL.md": skill("docx", DOCX),
        "plugins/review/commands/review.md": "# /review\n",
        **_marketplace(
            {"name": "docs", "source": "./plugins/docs"},
            {"name": "review", "source": "./plugins/review"},
            {"name": "gone", "source": "./plugins/removido"},
        ),
    }
    write_tree(tmp_path, tree)
    result = findings(check_tree(tmp_path))
    assert [(p, line, c) for p, line, c, _ in result] == [(".claude-plugin/marketplace.json", 17, "CL204")]
    assert "./plugins/removido" in result[0][3]


def test_skills_paths_of_a_remote_plugin_are_not_read(tmp_path):
    tree = {
        "skills/pdf/SKILL.md": skill("pdf", PDF),
        **_marketplace(
            {"name": "far", "source": {"source": "github", "repo": "o/r"}, "skills": ["./skills/elsewhere"]}
        ),
    }
    write_tree(tmp_path, tree)
    assert codes(check_tree(tmp_path)) == []


def test_plugin_manifest_path_to_a_symlinked_skill_resolves(tmp_path):
    tree = {
        ".claude/skills/pdf/SKILL.md": skill("pdf", PDF),
        ".claude/skills/docx/SKILL.md": skill("docx", DOCX),
        "plugins/docs/.claude-plugin/plugin.json": json.dumps(
            {"name": "docs", "skills": ["./skills/pdf", "./skills/docx"]}
        ),
    }
    write_tree(tmp_path, tree)
    (tmp_path / "plugins/docs/skills").mkdir()
    (tmp_path / "plugins/docs/skills/pdf").symlink_to("../../../.claude/skills/pdf")
    (tmp_path / "plugins/docs/skills/docx").symlink_to("../../../.claude/skills/docx")
    assert codes(check_tree(tmp_path)) == []


# --- prompt index vs catalog ---------------------------------------------------------------------


def test_missing_from_a_catalog_is_documentation_drift_with_a_lower_severity(tmp_path):
    tree = {
        "plugins/docs/skills/pdf/SKILL.md": skill("pdf", PDF),
        "plugins/docs/skills/docx/SKILL.md": skill("docx", DOCX),
        "plugins/docs/skills/xlsx/SKILL.md": skill("xlsx", XLSX),
        **_marketplace({"name": "docs", "source": "./plugins/docs"}),
        "docs/skills.md": f"# Skills\n\n- **pdf**: {PDF}\n- **docx**: {DOCX}\n",
    }
    write_tree(tmp_path, tree)
    [finding] = _by_code(check_tree(tmp_path), "CL203")
    assert finding.path == "plugins/docs/skills/xlsx/SKILL.md"
    assert "the model never sees it" not in finding.message
    assert "the catalog that lists its sibling skills: the documentation has drifted" in finding.message
    assert finding.severity is not None and finding.severity.value == "warning"


def test_missing_from_a_prompt_index_is_never_seen_by_the_model(tmp_path):
    tree = {
        "skills/comissao/SKILL.md": skill("comissao", COMISSAO),
        "skills/emissao-nf/SKILL.md": skill("emissao-nf", EMISSAO),
        "skills/conciliacao-cartao/SKILL.md": skill("conciliacao-cartao", CONCILIACAO),
        "CLAUDE.md": f"# Agente\n\nHabilidades:\n- comissao: {COMISSAO}\n- emissao-nf: {EMISSAO}\n",
        "README.md": f"# Habilidades\n\n- comissao: {COMISSAO}\n- emissao-nf: {EMISSAO}\n",
    }
    write_tree(tmp_path, tree)
    [finding] = _by_code(check_tree(tmp_path), "CL203")
    assert (
        finding.message
        == 'skill "conciliacao-cartao" is not listed in CLAUDE.md (read into the prompt by Claude Code), which lists its sibling skills: the model never sees it'
    )
    assert finding.severity is None  # the catalog's default: error


def test_stale_catalog_entry_is_a_warning_that_says_catalog(tmp_path):
    tree = {
        "skills/pdf/SKILL.md": skill("pdf", PDF),
        "skills/docx/SKILL.md": skill("docx", DOCX),
        "README.md": f"# Skills\n\n- pdf: {PDF}\n- docx: {DOCX}\n- pptx: slides\n",
    }
    write_tree(tmp_path, tree)
    [finding] = _by_code(check_tree(tmp_path), "CL204")
    assert (
        finding.message
        == 'index lists skill "pptx", but no skill has that name or folder (in a catalog for readers: the documentation has drifted)'
    )
    assert finding.severity.value == "warning"


# --- one entry is enough for a conventional index ---------------------------------------------


@pytest.mark.parametrize("index", ["AGENTS.md", "CLAUDE.md"])
def test_agents_md_listing_one_of_two_skills(tmp_path, index):
    tree = {
        "skills/pay/SKILL.md": skill("pay", PAY),
        "skills/ship/SKILL.md": skill("ship", SHIP),
        index: f"Skills:\n- pay: {PAY}\n",
    }
    write_tree(tmp_path, tree)
    assert [(p, c) for p, _, c, _ in findings(check_tree(tmp_path))] == [("skills/ship/SKILL.md", "CL203")]


def test_a_prompt_file_linking_into_a_skill_folder_is_an_index_with_one_entry(tmp_path):
    tree = {
        "skills/emissao-nf/SKILL.md": skill("emissao-nf", EMISSAO),
        "skills/boleto/SKILL.md": skill("boleto", BOLETO),
        "CLAUDE.md": f"# Habilidades\n\n- [emissao-nf](skills/emissao-nf/): {EMISSAO}\n",
    }
    write_tree(tmp_path, tree)
    assert [(p, c) for p, _, c, _ in findings(check_tree(tmp_path))] == [("skills/boleto/SKILL.md", "CL203")]


def test_one_name_in_a_plain_readme_is_no_index(tmp_path):
    tree = {
        "skills/pay/SKILL.md": skill("pay", PAY),
        "skills/ship/SKILL.md": skill("ship", SHIP),
        "README.md": f"- pay: {PAY}\n",
    }
    write_tree(tmp_path, tree)
    assert codes(check_tree(tmp_path)) == []


# --- links that lead nowhere, stale tables ------------------------------------------------------


def test_links_to_removed_skill_folders_are_dangling_entries(tmp_path):
    tree = {
        "pay/SKILL.md": skill("pay", PAY),
        "ship/SKILL.md": skill("ship", SHIP),
        "docs/guide.md": "# guide\n",
        "README.md": (
            "# Skills\n\n"
            f"- [Pay](./pay/): {PAY}\n- [Ship](./ship/): {SHIP}\n"
            "- [Close Automation](./close-automation/): automate Close CRM\n"
            "- [Guide](./docs/guide.md): how to write a skill\n"
            "- [Docs](./docs/): more\n"
        ),
    }
    write_tree(tmp_path, tree)
    result = findings(check_tree(tmp_path))
    assert [(p, line, c) for p, line, c, _ in result] == [("README.md", 5, "CL204")]
    assert "./close-automation/" in result[0][3]


def test_a_stale_table_stays_an_index(tmp_path):
    # 2 of 6 rows still resolve: the table is still checked, however stale it gets
    rows = "".join(f"| `{n}` | antiga habilidade |\n" for n in ("fechamento", "folha", "ponto", "ferias"))
    tree = {
        "financeiro/skills/comissao/SKILL.md": skill("comissao", COMISSAO),
        "financeiro/skills/emissao-nf/SKILL.md": skill("emissao-nf", EMISSAO),
        "financeiro/skills/boleto/SKILL.md": skill("boleto", BOLETO),
        "financeiro/skills/conciliacao-cartao/SKILL.md": skill("conciliacao-cartao", CONCILIACAO),
        "financeiro/skills/d/SKILL.md": skill("d", PDF),
        "financeiro/skills/e/SKILL.md": skill("e", DOCX),
        "financeiro/skills/f/SKILL.md": skill("f", XLSX),
        "financeiro/skills/g/SKILL.md": skill("g", PAY),
        "financeiro/skills/h/SKILL.md": skill("h", SHIP),
        "financeiro/README.md": "## Habilidades\n\n| Habilidade | O que faz |\n|---|---|\n"
        f"| `comissao` | {COMISSAO} |\n| `emissao-nf` | {EMISSAO} |\n" + rows,
    }
    write_tree(tmp_path, tree)
    stale = [(p, line) for p, line, c, _ in findings(check_tree(tmp_path)) if c == "CL204"]
    assert stale == [("financeiro/README.md", n) for n in (7, 8, 9, 10)]


# --- slash commands and tables ------------------------------------------------------------------


def test_a_slash_command_names_its_skill(tmp_path):
    tree = {
        "eng/skills/standup/SKILL.md": skill("standup", "Use when writing the daily standup from yesterday's commits."),
        "eng/skills/debug/SKILL.md": skill("debug", "Use when reproducing and bisecting a failing test."),
        "eng/skills/deploy/SKILL.md": skill("deploy", "Use when rolling a release out to production."),
        "eng/commands/incident.md": "# /incident\n",
        "eng/README.md": "## Commands\n\n| Command | What |\n|---|---|\n| `/standup` | daily notes |\n| `/debug` | bisect\n"
        "| `/deploy` | ship |\n| `/incident` | a command, not a skill |\n| `/review` | gone |\n",
    }
    write_tree(tmp_path, tree)
    result = findings(check_tree(tmp_path))
    assert [(p, line, c) for p, line, c, _ in result] == [("eng/README.md", 9, "CL204")]
    assert 'index lists command "/review", but no skill or command has that name' in result[0][3]


def test_table_rows_without_a_closing_pipe_are_rows(tmp_path):
    tree = {**{f"skills/{n}/SKILL.md": skill(n, d) for n, d in (("pdf", PDF), ("docx", DOCX), ("xlsx", XLSX))}}
    tree["AGENTS.md"] = f"| Skill | When\n|---|---\n| pdf | {PDF}\n| docx | {DOCX}\n"
    write_tree(tmp_path, tree)
    assert [(p, c) for p, _, c, _ in findings(check_tree(tmp_path))] == [("skills/xlsx/SKILL.md", "CL203")]


def test_headings_and_comma_lists_list_skills(tmp_path):
    tree = {
        **{f"skills/{n}/SKILL.md": skill(n, d) for n, d in (("pdf", PDF), ("docx", DOCX), ("xlsx", XLSX), ("pay", PAY))}
    }
    tree["README.md"] = f"# Skills\n\n- pdf, docx\n\n### 3. **xlsx** ⭐ - spreadsheets\n\n- **pay**: {PAY}\n"
    write_tree(tmp_path, tree)
    assert codes(check_tree(tmp_path)) == []


def test_a_mapping_table_keyed_by_packages_is_no_index(tmp_path):
    tree = {**{f"skills/{n}/SKILL.md": skill(n, d) for n, d in (("pdf", PDF), ("docx", DOCX), ("xlsx", XLSX))}}
    tree["notes.md"] = (
        "| Package | Skill |\n|---|---|\n| pypdf | pdf |\n| python-docx | docx |\n| openpyxl | xlsx |\n| pdf | pdf |\n"
    )
    write_tree(tmp_path, tree)
    assert codes(check_tree(tmp_path)) == []


# --- files that are no index --------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "docs/brainstorms/2026-06-19-reduzir-plugins-requirements.md",
        "plans/reports/research-251229.md",
        "MARKETING-EXPANSION-PLAN.md",
        "CHANGELOG.md",
        "RELEASE-NOTES.md",
        "docs/EXAMPLES.md",
        "docs/archive/lost-info.md",
    ],
)
def test_plans_changelogs_and_examples_are_no_index(tmp_path, path):
    tree = {**{f"skills/{n}/SKILL.md": skill(n, d) for n, d in (("pdf", PDF), ("docx", DOCX), ("xlsx", XLSX))}}
    tree[path] = (
        f"| Keep | Why |\n|---|---|\n| pdf | {PDF} |\n| docx | {DOCX} |\n| ce-demo-reel | dropped |\n| ce-work-beta | dropped |\n"
    )
    write_tree(tmp_path, tree)
    assert codes(check_tree(tmp_path)) == []


def test_a_bundle_page_is_checked_for_stale_entries_but_not_for_completeness(tmp_path):
    descriptions = {
        "invoices": "Use when issuing an invoice or crediting one back.",
        "payroll": "Use when running monthly payroll and withholding taxes.",
        "parcels": "Use when booking a courier pickup for outgoing boxes.",
        "refunds": "Use when a customer asks for their money back.",
        "tickets": "Use when triaging support requests by urgency.",
        "leads": "Use when scoring inbound sales prospects.",
        "contracts": "Use when redlining a supplier agreement.",
        "vendors": "Use when onboarding a new supplier with bank details.",
        "budgets": "Use when planning department spending for next quarter.",
        "audits": "Use when preparing evidence for a SOC 2 review.",
        "forecasts": "Use when projecting cash flow twelve weeks ahead.",
        "shifts": "Use when rostering warehouse staff across weekends.",
    }
    tree = {f"skills/{t}/SKILL.md": skill(t, d) for t, d in descriptions.items()}
    tree["docs/BUNDLES.md"] = (
        "## Pacote de segurança\n\n- `audits`: um\n- `contracts`: dois\n- `owasp-top-10`: não existe mais\n"
    )
    write_tree(tmp_path, tree)
    assert [(p, line, c) for p, line, c, _ in findings(check_tree(tmp_path))] == [("docs/BUNDLES.md", 5, "CL204")]


# --- nested SKILL.md ------------------------------------------------------------------------------


def test_a_skill_md_inside_another_skill_is_a_sub_document(tmp_path):
    tree = {
        "skills/debugging/SKILL.md": skill("debugging", "Use when a test fails and the cause is unknown."),
        "skills/debugging/defense-in-depth/SKILL.md": skill("defense-in-depth", "Validate at every layer."),
        "skills/pdf/SKILL.md": skill("pdf", PDF),
        "AGENTS.md": f"- debugging: Use when a test fails and the cause is unknown.\n- pdf: {PDF}\n",
    }
    write_tree(tmp_path, tree)
    assert codes(check_tree(tmp_path)) == []


def test_template_skill_is_not_required_in_the_index(tmp_path):
    tree = {
        "skills/pdf/SKILL.md": skill("pdf", PDF),
        "skills/docx/SKILL.md": skill("docx", DOCX),
        "skills/template/SKILL.md": skill("template", "Replace with a description of the skill and when to use it."),
        "AGENTS.md": f"- pdf: {PDF}\n- docx: {DOCX}\n",
    }
    write_tree(tmp_path, tree)
    assert "CL203" not in codes(check_tree(tmp_path))


def test_sub_document_front_matter_is_judged_as_a_sub_document(tmp_path):
    tree = {
        "skills/meeting-sdk/SKILL.md": skill("meeting-sdk", "Use when embedding Zoom meetings in an app."),
        "skills/meeting-sdk/android/SKILL.md": skill("meeting-sdk/android", "Android specifics for the meeting SDK."),
        "skills/meeting-sdk/ios/SKILL.md": skill("ios-guia", "Detalhes do SDK de reuniões no iOS."),
    }
    write_tree(tmp_path, tree)
    found = [(d.path, d.code, d.severity.value if d.severity else None) for d in check_tree(tmp_path).diagnostics]
    assert found == [
        ("skills/meeting-sdk/android/SKILL.md", "CL201", "info"),
        ("skills/meeting-sdk/ios/SKILL.md", "CL205", "info"),
    ]
    assert all("a sub-document inside another skill's folder" in d.message for d in check_tree(tmp_path).diagnostics)


def test_a_reference_of_an_apps_own_commands_has_no_stale_entries(tmp_path):
    """``/help``, ``/clear``, ``/model``: an application's commands, implemented in its code.
    Most of them name no skill and no command file, so none is a stale skill entry; a skill run
    as a command there (``/inspect``) is still an entry."""
    tree = {
        "app/skills/inspect/SKILL.md": skill(
            "inspect", "Use when inspecting a saved conversation thread and its tool calls."
        ),
        "app/skills/remember/SKILL.md": skill(
            "remember", "Use when saving a fact the user asks to keep for later sessions."
        ),
        "app/COMMANDS.md": "# Commands\n\n| Command | What |\n|---|---|\n| `/help` | help |\n| `/clear` | clear |\n"
        "| `/model` | switch model |\n| `/quit` | leave |\n| `/theme` | colours |\n| `/copy` | copy |\n| `/tokens` | count |\n"
        "| `/version` | version |\n| `/inspect` | inspect a thread |\n"
        "| `/remember` | keep a fact |\n",
    }
    write_tree(tmp_path, tree)
    assert [(p, c) for p, _, c, _ in findings(check_tree(tmp_path)) if c == "CL204"] == []
