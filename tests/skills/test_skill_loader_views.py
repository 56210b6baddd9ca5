"""Skills as each loader sees them: the classes of false findings and misses a model of the
loaders that was partly guessed gave, each with its real pattern and its look-alikes."""

from __future__ import annotations

import hashlib
import json

import pytest

from conftest import check_tree, write_tree
from skilltrees import COMISSAO, CONCILIACAO, DOCX, EMISSAO, PDF, XLSX, skill

PAY = "Use when charging a card, issuing a refund or checking a payment's status."


def _at(result, code):
    return [(d.path, d.line) for d in result.diagnostics if d.code == code]


def _severities(result, code=None):
    return [
        (d.code, d.severity.value if d.severity else "default") for d in result.diagnostics if code in (None, d.code)
    ]


def _messages(result, code):
    return [d.message for d in result.diagnostics if d.code == code]


# --- default excludes never hide a skill ------------------------------------------------------


def test_a_skill_folder_named_like_generated_output_is_a_skill(tmp_path):
    write_tree(
        tmp_path,
        {
            "skills/build/SKILL.md": "---\nname: Build\ndescription: Use when building the release artifacts.\n---\n",
            "skills/dist/SKILL.md": skill("dist", PDF),
        },
    )
    assert _at(check_tree(tmp_path), "CL201") == [("skills/build/SKILL.md", 2)]


def test_generated_output_that_copies_skills_stays_excluded(tmp_path):
    # dist/ holds skills below it but is no skill itself: the build copied them there
    write_tree(
        tmp_path,
        {
            "skills/pdf/SKILL.md": skill("pdf", PDF),
            "dist/skills/pdf/SKILL.md": "---\nname: PDF\ndescription: copy\n---\n",
            "build/SKILL.md/x.txt": "a folder named SKILL.md inside build/",
        },
    )
    assert [d.code for d in check_tree(tmp_path).diagnostics] == []


def test_a_configured_exclude_still_hides_a_skill(tmp_path):
    write_tree(tmp_path, {"skills/build/SKILL.md": "---\nname: Build\ndescription: x\n---\n"})
    assert check_tree(tmp_path, config={"exclude": ["build"]}).diagnostics == []


# --- plans, to-do items and code spans are no entries -----------------------------------------


def _two_skills() -> dict[str, str]:
    return {"skills/pdf/SKILL.md": skill("pdf", PDF), "skills/docx/SKILL.md": skill("docx", DOCX)}


@pytest.mark.parametrize(
    "plan",
    [
        "- [ ] slides: decks from outlines\n- [ ] charts: plots from CSV\n",
        "- [x] slides: decks from outlines\n",
        "## Roadmap\n\n- **slides**: decks from outlines\n- **charts**: plots from CSV\n",
        "### 🗺️ Coming soon:\n\n- slides\n- charts\n",
    ],
)
def test_roadmaps_and_to_do_items_are_no_entries(tmp_path, plan):
    agents = f"# Agent\n\n- **pdf**: {PDF}\n- **docx**: {DOCX}\n\n{plan}"
    write_tree(tmp_path, {**_two_skills(), "AGENTS.md": agents})
    assert _at(check_tree(tmp_path), "CL204") == []


def test_a_list_after_the_roadmap_section_is_read_again(tmp_path):
    agents = (
        f"# Agent\n\n## Roadmap\n\n- slides\n\n## Skills\n\n- **pdf**: {PDF}\n- **docx**: {DOCX}\n- **charts**: plots\n"
    )
    write_tree(tmp_path, {**_two_skills(), "AGENTS.md": agents})
    assert _at(check_tree(tmp_path), "CL204") == [("AGENTS.md", 11)]


def test_a_link_in_a_code_span_is_no_link(tmp_path):
    agents = f"# Agent\n\n- **pdf**: {PDF}\n- **docx**: {DOCX}\n\nLink a skill as `[name](skills/name/)`.\n`[old](skills/old/)` is how it was written.\n"
    write_tree(tmp_path, {**_two_skills(), "AGENTS.md": agents})
    assert _at(check_tree(tmp_path), "CL204") == []


def test_a_link_outside_the_code_span_is_still_read(tmp_path):
    agents = "# Agent\n\n- [pdf](skills/pdf/) `code`\n- [docx](skills/docx/)\n- [old](skills/old/) and `[x](y)`\n"
    write_tree(tmp_path, {**_two_skills(), "AGENTS.md": agents})
    assert _at(check_tree(tmp_path), "CL204") == [("AGENTS.md", 5)]


# --- titles, root skills, plugin roots ---------------------------------------------------------


def test_a_title_named_like_its_plugin_is_no_entry_for_all_its_skills(tmp_path):
    readme = f"# acme\n\nSkills:\n\n- **pdf**: {PDF}\n- **docx**: {DOCX}\n"
    write_tree(
        tmp_path,
        {
            "plugins/acme/.claude-plugin/plugin.json": '{"name": "acme"}',
            "plugins/acme/skills/pdf/SKILL.md": skill("pdf", PDF),
            "plugins/acme/skills/docx/SKILL.md": skill("docx", DOCX),
            "plugins/acme/skills/xlsx/SKILL.md": skill("xlsx", XLSX),
            "plugins/acme/README.md": readme,
        },
    )
    assert _at(check_tree(tmp_path), "CL203") == [("plugins/acme/skills/xlsx/SKILL.md", 2)]


def test_a_title_that_names_one_skill_still_lists_it(tmp_path):
    readme = f"# Skills\n\n## pdf\n\n{PDF}\n\n- **docx**: {DOCX}\n- **xlsx**: {XLSX}\n"
    write_tree(
        tmp_path,
        {
            "skills/pdf/SKILL.md": skill("pdf", PDF),
            "skills/docx/SKILL.md": skill("docx", DOCX),
            "skills/xlsx/SKILL.md": skill("xlsx", XLSX),
            "README.md": readme,
        },
    )
    assert _at(check_tree(tmp_path), "CL203") == []


@pytest.mark.parametrize("root", ["", "plugins/acme/"])
def test_a_root_skill_does_not_make_the_others_sub_documents(tmp_path, root):
    files = {
        f"{root}SKILL.md": skill("acme", PAY),
        f"{root}skills/pdf/SKILL.md": "---\nname: PDF Tools\ndescription: " + PDF + "\n---\n",
    }
    if root:
        files[f"{root}.claude-plugin/plugin.json"] = '{"name": "acme"}'
    write_tree(tmp_path, files)
    result = check_tree(tmp_path)
    assert _severities(result, "CL201") == [("CL201", "default")]


def test_a_skill_inside_another_skill_is_still_a_sub_document(tmp_path):
    write_tree(
        tmp_path,
        {
            "skills/pdf/SKILL.md": skill("pdf", PDF),
            "skills/pdf/forms/SKILL.md": "---\nname: PDF Forms\ndescription: " + PDF + "\n---\n",
        },
    )
    assert _severities(check_tree(tmp_path)) == [("CL201", "info")]


# --- data files that are no skill lists ---------------------------------------------------------


def test_a_test_registry_with_plugins_is_no_marketplace(tmp_path):
    registry = {"plugins": [{"name": "pdf", "source": "./gone"}, {"name": "docx", "source": "./also-gone"}]}
    write_tree(tmp_path, {**_two_skills(), "tests/fixtures/registry.json": json.dumps(registry)})
    assert check_tree(tmp_path).diagnostics == []


@pytest.mark.parametrize(
    "catalog",
    [
        [{"name": n, "path": f"agents/{n}.md", "description": "x"} for n in ("pdf", "docx", "slides", "charts")],
        [{"name": n, "type": "agent", "description": "x"} for n in ("pdf", "docx", "slides", "charts")],
        {"agents": [{"name": n, "description": "x"} for n in ("pdf", "docx", "slides", "charts")]},
    ],
)
def test_lists_of_agents_are_no_skill_indexes(tmp_path, catalog):
    write_tree(tmp_path, {**_two_skills(), "site/agents.json": json.dumps(catalog)})
    assert check_tree(tmp_path).diagnostics == []


def test_a_list_of_skills_is_a_catalog_whose_stale_entry_is_a_warning(tmp_path):
    catalog = [{"name": n, "type": "skill", "description": "x"} for n in ("pdf", "docx", "slides")]
    write_tree(tmp_path, {**_two_skills(), "site/skills.json": json.dumps(catalog)})
    result = check_tree(tmp_path)
    assert _severities(result) == [("CL204", "warning")]


# --- marketplaces as Claude Code reads them -------------------------------------------------------


def _market(*plugins) -> str:
    return json.dumps({"name": "m", "owner": {"name": "o"}, "plugins": list(plugins)})


def test_a_source_that_is_a_folder_of_skills_loads_none_of_them(tmp_path):
    write_tree(
        tmp_path,
        {**_two_skills(), ".claude-plugin/marketplace.json": _market({"name": "docs", "source": "./skills"})},
    )
    result = check_tree(tmp_path)
    assert _at(result, "CL204") == [(".claude-plugin/marketplace.json", 1)]
    assert "holds 2 skills but is no plugin root" in _messages(result, "CL204")[0]


@pytest.mark.parametrize(
    "plugin",
    [
        {"name": "pdf", "source": "./skills/pdf"},  # a SKILL.md at the source: one skill
        {"name": "docs", "source": "./"},  # the marketplace root, whose skills/ holds them
        {"name": "docs", "source": "./", "skills": ["./skills/pdf", "./skills/docx"]},
    ],
)
def test_sources_claude_code_loads(tmp_path, plugin):
    write_tree(tmp_path, {**_two_skills(), ".claude-plugin/marketplace.json": _market(plugin)})
    assert _at(check_tree(tmp_path), "CL204") == []


def test_a_plugin_manifest_declares_skills_the_default_scan_misses(tmp_path):
    # mattpocock-like: skills two levels down, declared one by one in .claude-plugin/plugin.json
    write_tree(
        tmp_path,
        {
            "skills/docs/pdf/SKILL.md": skill("pdf", PDF),
            "skills/docs/docx/SKILL.md": skill("docx", DOCX),
            ".claude-plugin/plugin.json": json.dumps(
                {"name": "p", "skills": ["./skills/docs/pdf", "./skills/docs/docx"]}
            ),
            ".claude-plugin/marketplace.json": _market({"name": "p", "source": "./"}),
        },
    )
    assert check_tree(tmp_path).diagnostics == []


def test_codex_marketplaces_load_skills_at_any_depth(tmp_path):
    write_tree(
        tmp_path,
        {
            "plugins/docs/skills/office/pdf/SKILL.md": skill("pdf", PDF),
            ".agents/plugins/marketplace.json": _market({"name": "docs", "source": "./plugins/docs"}),
        },
    )
    assert _at(check_tree(tmp_path), "CL204") == []


# --- discovery indexes ---------------------------------------------------------------------------


def _well_known(tmp_path, digest_of: bytes | None, url="/.well-known/agent-skills/pdf/SKILL.md"):
    body = skill("pdf", PDF)
    digest = "sha256:" + hashlib.sha256(digest_of if digest_of is not None else body.encode()).hexdigest()
    index = {
        "$schema": "https://schemas.agentskills.io/discovery/0.2.0/schema.json",
        "skills": [{"name": "pdf", "type": "skill-md", "description": PDF, "url": url, "digest": digest}],
    }
    write_tree(
        tmp_path,
        {
            "public/.well-known/agent-skills/pdf/SKILL.md": body,
            "public/.well-known/agent-skills/index.json": json.dumps(index, indent=2),
        },
    )


def test_a_discovery_index_whose_digests_match(tmp_path):
    _well_known(tmp_path, None)
    assert check_tree(tmp_path).diagnostics == []


def test_a_digest_that_does_not_match_the_file_is_a_finding(tmp_path):
    _well_known(tmp_path, b"an older SKILL.md")
    result = check_tree(tmp_path)
    assert _at(result, "CL204") == [("public/.well-known/agent-skills/index.json", 8)]
    assert "does not match the file" in _messages(result, "CL204")[0]


def test_a_discovery_entry_without_its_file(tmp_path):
    _well_known(tmp_path, None, url="/.well-known/agent-skills/gone/SKILL.md")
    assert _at(check_tree(tmp_path), "CL204") == [("public/.well-known/agent-skills/index.json", 8)]


def test_a_discovery_entry_served_elsewhere_is_not_checked(tmp_path):
    _well_known(tmp_path, b"x", url="https://cdn.example.com/pdf/SKILL.md")
    assert check_tree(tmp_path).diagnostics == []


# --- whose view a finding takes ------------------------------------------------------------------


def test_qwen_md_is_a_context_file_read_into_the_prompt(tmp_path):
    write_tree(
        tmp_path,
        {
            "skills/conciliacao-cartao/SKILL.md": skill("conciliacao-cartao", CONCILIACAO),
            "skills/emissao-nf/SKILL.md": skill("emissao-nf", EMISSAO),
            "skills/comissao/SKILL.md": skill("comissao", COMISSAO),
            "QWEN.md": f"# Agente\n\n- conciliacao-cartao: {CONCILIACAO}\n- emissao-nf: {EMISSAO}\n",
        },
    )
    result = check_tree(tmp_path)
    assert _severities(result) == [("CL203", "default")]
    assert "read into the prompt by Qwen Code" in result.diagnostics[0].message


# --- user-only skills -----------------------------------------------------------------------------


USER_ONLY = "disable-model-invocation: true\n"


@pytest.mark.parametrize("openai", [None, "policy:\n  allow_implicit_invocation: false\n"])
def test_a_user_only_description_is_not_judged_for_the_model(tmp_path, openai):
    files = {"skills/teach/SKILL.md": skill("teach", "Teach the user a concept.", USER_ONLY)}
    if openai is not None:
        files["skills/teach/agents/openai.yaml"] = openai
    write_tree(tmp_path, files)
    assert check_tree(tmp_path).diagnostics == []


@pytest.mark.parametrize(
    "extra, openai",
    [
        ("", None),  # both loaders list it
        (USER_ONLY, "interface:\n  display_name: Teach\n"),  # Codex lists it: its metadata leaves it implicit
        (USER_ONLY, "policy:\n  allow_implicit_invocation: yes\n"),
        ("disable-model-invocation: false\n", None),
    ],
)
def test_a_description_some_model_lists_is_judged(tmp_path, extra, openai):
    files = {"skills/teach/SKILL.md": skill("teach", "Teach the user a concept.", extra)}
    if openai is not None:
        files["skills/teach/agents/openai.yaml"] = openai
    write_tree(tmp_path, files)
    assert [d.code for d in check_tree(tmp_path).diagnostics] == ["CL202"]


def test_a_user_only_skill_is_not_missing_from_the_prompt(tmp_path):
    write_tree(
        tmp_path,
        {
            **_two_skills(),
            "skills/deploy/SKILL.md": skill("deploy", "Deploy the application to production.", USER_ONLY),
            "AGENTS.md": f"# Agent\n\n- **pdf**: {PDF}\n- **docx**: {DOCX}\n",
            "README.md": f"# Skills\n\n- **pdf**: {PDF}\n- **docx**: {DOCX}\n",
        },
    )
    # the prompt is for the model; the catalog for readers still lists the user's commands
    result = check_tree(tmp_path)
    assert [(d.code, d.message.split(" is not listed in ")[1][:9]) for d in result.diagnostics] == [
        ("CL203", "README.md")
    ]


def test_user_only_skills_are_no_choice_for_the_model(tmp_path):
    template = "Automate {} tasks via the Composio toolkit and its search tools."
    write_tree(
        tmp_path,
        {
            "skills/slack-automation/SKILL.md": skill("slack-automation", template.format("Slack"), USER_ONLY),
            "skills/gmail-automation/SKILL.md": skill("gmail-automation", template.format("Gmail"), USER_ONLY),
            "skills/notion-automation/SKILL.md": skill("notion-automation", template.format("Notion")),
        },
    )
    assert check_tree(tmp_path).diagnostics == []


def test_a_progress_tracker_of_to_do_items_is_no_index(tmp_path):
    tracker = (
        "# Status\n\n- [x] pdf (done)\n- [x] docx (done)\n- [ ] slides\n- [ ] charts\n\n"
        "## Currently\n\n1. **pdf** - checking\n2. **tables** - next\n"
    )
    write_tree(tmp_path, {**_two_skills(), "dev/STATUS.md": tracker})
    assert check_tree(tmp_path).diagnostics == []


def test_templated_descriptions_whose_slot_is_the_name_are_still_alike(tmp_path):
    template = "Automate {} tasks via Rube MCP (Composio). Always search tools first for current schemas."
    write_tree(
        tmp_path,
        {
            f"skills/{app}-automation/SKILL.md": skill(f"{app}-automation", template.format(app.title()))
            for app in ("slack", "gmail", "notion")
        },
    )
    assert [d.code for d in check_tree(tmp_path).diagnostics] == ["CL206"]


def test_a_link_to_the_skills_folder_in_a_sentence_lists_none_of_them(tmp_path):
    readme = (
        "# Tool\n\n- **Agent-native** — 2 structured [Skills](./skills/) out of the box\n\n"
        f"## Skills\n\n| Skill | What |\n|---|---|\n| `pdf` | {PDF} |\n| `docx` | {DOCX} |\n"
    )
    write_tree(tmp_path, {**_two_skills(), "skills/xlsx/SKILL.md": skill("xlsx", XLSX), "README.md": readme})
    assert _at(check_tree(tmp_path), "CL203") == [("skills/xlsx/SKILL.md", 2)]


def test_a_link_to_a_folder_of_skills_that_leads_its_entry_lists_them(tmp_path):
    readme = f"# Tool\n\n- [All skills](./skills/) — every one\n- **pdf**: {PDF}\n- **docx**: {DOCX}\n"
    write_tree(tmp_path, {**_two_skills(), "skills/xlsx/SKILL.md": skill("xlsx", XLSX), "README.md": readme})
    assert _at(check_tree(tmp_path), "CL203") == []


def test_a_section_that_says_it_is_a_selection_misses_nothing(tmp_path):
    readme = f"# Tool\n\n## Primary workflows\n\n| Skill | What |\n|---|---|\n| `pdf` | {PDF} |\n| `docx` | {DOCX} |\n| `slides` | decks |\n"
    write_tree(tmp_path, {**_two_skills(), "skills/xlsx/SKILL.md": skill("xlsx", XLSX), "README.md": readme})
    # xlsx is not missing; the stale entry of the selection is still reported
    result = check_tree(tmp_path)
    assert _at(result, "CL203") == [] and _at(result, "CL204") == [("README.md", 9)]


def test_the_very_same_short_description_under_two_names_is_one_choice(tmp_path):
    same = "Development skill from the toolkit."
    write_tree(
        tmp_path,
        {
            "skills/continuous-learning/SKILL.md": skill("continuous-learning", same),
            "skills/strategic-compact/SKILL.md": skill("strategic-compact", same),
        },
    )
    assert sorted(d.code for d in check_tree(tmp_path).diagnostics) == ["CL202", "CL202", "CL206"]


# CL206 compares what one loader lists together: GitHub Copilot and OpenCode read the project
# skills of .claude/skills and .agents/skills both (docs.github.com, about agent skills;
# opencode.ai/docs/skills), so a renamed copy in each is two entries of one description there.
RECONCILE = "Use when reconciling card receipts against the bank statement and settling the receivables."


def test_a_renamed_copy_in_two_folders_one_loader_reads_is_cl206(tmp_path):
    write_tree(
        tmp_path,
        {
            ".claude/skills/conciliacao/SKILL.md": skill("conciliacao", RECONCILE),
            ".agents/skills/conciliacao-cartao/SKILL.md": skill("conciliacao-cartao", RECONCILE),
        },
    )
    found = [d for d in check_tree(tmp_path).diagnostics if d.code == "CL206"]
    assert [(d.path, d.line) for d in found] == [(".agents/skills/conciliacao-cartao/SKILL.md", 3)]
    assert (
        "conciliacao, conciliacao-cartao" in found[0].message or "conciliacao-cartao, conciliacao" in found[0].message
    )


def test_copies_in_folders_no_single_loader_reads_are_not_compared(tmp_path):
    """.claude/skills (Claude Code, Copilot, OpenCode) and .gemini/skills (Gemini CLI): no loader
    lists both, so no model chooses between the two."""
    write_tree(
        tmp_path,
        {
            ".claude/skills/conciliacao/SKILL.md": skill("conciliacao", RECONCILE),
            ".gemini/skills/conciliacao-cartao/SKILL.md": skill("conciliacao-cartao", RECONCILE),
        },
    )
    assert _at(check_tree(tmp_path), "CL206") == []


def test_one_skill_copied_under_its_name_into_two_folders_is_one_choice(tmp_path):
    write_tree(
        tmp_path,
        {
            ".claude/skills/conciliacao/SKILL.md": skill("conciliacao", RECONCILE),
            ".agents/skills/conciliacao/SKILL.md": skill("conciliacao", RECONCILE),
        },
    )
    assert _at(check_tree(tmp_path), "CL206") == []
