"""CL201-CL206 on small trees, in English and Portuguese, through the public check API."""

from __future__ import annotations

import json

from conftest import check_tree, write_tree
from skilltrees import (
    COMISSAO,
    CONCILIACAO,
    DOCX,
    EMISSAO,
    LOGISTICA,
    PDF,
    XLSX,
    codes,
    findings,
    skill,
)


def test_clean_portuguese_tree_has_no_findings(tmp_path):
    write_tree(
        tmp_path,
        {
            "skills/conciliacao-cartao/SKILL.md": skill("conciliacao-cartao", CONCILIACAO),
            "skills/emissao-nf/SKILL.md": skill("emissao-nf", EMISSAO),
            "skills/comissao/SKILL.md": skill("comissao", COMISSAO),
            "skills/logistica/SKILL.md": skill("logistica", LOGISTICA),
        },
    )
    assert findings(check_tree(tmp_path)) == []


def test_clean_english_tree_in_dot_folder_has_no_findings(tmp_path):
    write_tree(
        tmp_path,
        {
            ".claude/skills/pdf/SKILL.md": skill("pdf", PDF),
            ".claude/skills/docx/SKILL.md": skill("docx", DOCX),
            "skills/.curated/xlsx/SKILL.md": skill("xlsx", XLSX),
        },
    )
    assert findings(check_tree(tmp_path)) == []


# --- CL201 -------------------------------------------------------------------------------------


def test_cl201_found_in_dot_folders_with_lines(tmp_path):
    write_tree(
        tmp_path,
        {
            ".claude/skills/pdf/SKILL.md": "# no front matter\n",
            "skills/.curated/xlsx/SKILL.md": "---\nname: xlsx\ndescription: " + "x" * 1030 + "\n---\n",
            "skills/bad/SKILL.md": "---\nname: bad\ndescription: Use when: reconciling\n---\n",
        },
    )
    result = check_tree(tmp_path)
    assert [(p, line, code) for p, line, code, _ in findings(result)] == [
        (".claude/skills/pdf/SKILL.md", 1, "CL201"),
        ("skills/.curated/xlsx/SKILL.md", 3, "CL201"),
        ("skills/bad/SKILL.md", 3, "CL201"),
    ]


def test_cl201_portuguese_name_with_accent(tmp_path):
    write_tree(tmp_path, {"skills/emissão/SKILL.md": skill("emissão", EMISSAO)})
    assert findings(check_tree(tmp_path)) == [
        (
            "skills/emissão/SKILL.md",
            2,
            "CL201",
            'name "emissão" must use only lowercase letters, digits and hyphens, without a leading or trailing hyphen',
        )
    ]


# --- CL202 -------------------------------------------------------------------------------------


def test_cl202_names_the_signals_portuguese(tmp_path):
    write_tree(
        tmp_path,
        {
            "skills/conciliacao-cartao/SKILL.md": skill("conciliacao-cartao", "útil no back-office"),
            "skills/comissao/SKILL.md": skill("comissao", "ajuda com diversas tarefas"),
        },
    )
    assert findings(check_tree(tmp_path)) == [
        (
            "skills/comissao/SKILL.md",
            3,
            "CL202",
            'description does not say, in task terms, when to use the skill: generic phrase "ajuda com diversas tarefas"; no task verb or trigger',
        ),
        (
            "skills/conciliacao-cartao/SKILL.md",
            3,
            "CL202",
            'description does not say, in task terms, when to use the skill: generic phrase "útil no back-office"; only 2 content words; no task verb or trigger',
        ),
    ]


def test_cl202_english_signals(tmp_path):
    write_tree(
        tmp_path,
        {
            "skills/a/SKILL.md": skill("a", "Replace with description of the skill and when Claude should use it."),
            "skills/b/SKILL.md": skill("b", "useful for back-office tasks"),
            "skills/c/SKILL.md": skill("c", "TODO"),
            "skills/d/SKILL.md": skill("d", "Spreadsheet magic"),
        },
    )
    messages = {p: m.split(": ", 1)[1] for p, _, _, m in findings(check_tree(tmp_path), "CL202")}
    assert messages == {
        "skills/a/SKILL.md": 'placeholder "Replace with description"; only 2 content words',
        "skills/b/SKILL.md": 'generic phrase "useful for back-office tasks"; no task verb or trigger',
        "skills/c/SKILL.md": 'placeholder "TODO"; only 0 content words; no task verb or trigger',
        "skills/d/SKILL.md": "only 2 content words; no task verb or trigger",
    }


def test_cl202_generic_phrase_beside_a_real_task_is_fine(tmp_path):
    write_tree(
        tmp_path,
        {
            "skills/a/SKILL.md": skill(
                "a", "Helps with various tasks when reconciling card receipts against the bank statement."
            )
        },
    )
    assert codes(check_tree(tmp_path)) == []


def test_cl202_spanish_todo_is_a_word_not_a_placeholder(tmp_path):
    write_tree(
        tmp_path,
        {"skills/a/SKILL.md": skill("a", "úsalo cuando necesites conciliar todo el extracto bancario con los pagos")},
    )
    assert codes(check_tree(tmp_path)) == []


def test_cl202_lexicon_extended_in_config(tmp_path):
    write_tree(tmp_path, {"skills/a/SKILL.md": skill("a", "Handles the quarterly frobnicate of ledgers")})
    assert codes(check_tree(tmp_path)) == []
    config = {"skills": {"lexicon": {"generic-phrases": ["handles the quarterly"]}, "min-content-words": 4}}
    assert [m.split(": ", 1)[1] for *_, m in findings(check_tree(tmp_path, config=config))] == [
        'generic phrase "Handles the quarterly"'
    ]


def test_cl202_when_to_use_is_checked(tmp_path):
    write_tree(tmp_path, {"skills/a/SKILL.md": "---\nname: a\nwhen_to_use: diversos\n---\n"})
    assert findings(check_tree(tmp_path))[0][:3] == ("skills/a/SKILL.md", 3, "CL202")


# --- CL205 -------------------------------------------------------------------------------------


def test_cl205_points_at_the_name_line(tmp_path):
    write_tree(tmp_path, {"skills/emissao-nf/SKILL.md": "---\ndescription: " + EMISSAO + "\nname: emissao-nfe\n---\n"})
    assert findings(check_tree(tmp_path)) == [
        ("skills/emissao-nf/SKILL.md", 3, "CL205", 'name "emissao-nfe" differs from the skill\'s folder "emissao-nf"')
    ]


def test_cl205_not_for_invalid_names_nor_the_checkout_folder(tmp_path):
    write_tree(tmp_path, {"skills/pdf/SKILL.md": skill("PDF Tools", PDF), "SKILL.md": skill("some-other-name", DOCX)})
    assert codes(check_tree(tmp_path)) == ["CL201"]


def test_cl205_not_for_a_skill_placed_in_a_hidden_tool_folder(tmp_path):
    """gpt-researcher's .claude/SKILL.md: a skills installer copies it under its name; the
    folder ".claude" can never be a skill's name, so "rename the folder" cannot be followed."""
    write_tree(tmp_path, {"proj/.claude/SKILL.md": skill("my-project", DOCX), "proj/src/app.py": "x = 1\n"})
    assert "CL205" not in codes(check_tree(tmp_path))


# --- CL206 -------------------------------------------------------------------------------------


def _automation(app: str, product: str) -> str:
    return skill(
        f"{app}-automation",
        f"Automate {product} tasks via Rube MCP (Composio). Always search tools first for current schemas.",
    )


def test_cl206_templated_descriptions_cluster_once(tmp_path):
    write_tree(
        tmp_path,
        {
            "skills/slack-automation/SKILL.md": _automation("slack", "Slack"),
            "skills/gmail-automation/SKILL.md": _automation("gmail", "Gmail"),
            "skills/notion-automation/SKILL.md": _automation("notion", "Notion"),
            "skills/pdf/SKILL.md": skill("pdf", PDF),
        },
    )
    ((path, line, code, message),) = findings(check_tree(tmp_path))
    assert (path, line, code) == ("skills/gmail-automation/SKILL.md", 3, "CL206")
    assert message.startswith("3 skills have descriptions too alike to choose between")
    assert message.endswith(": gmail-automation, notion-automation, slack-automation")


def test_cl206_template_slot_that_is_not_the_skill_name(tmp_path):
    write_tree(
        tmp_path,
        {
            "skills/mail/SKILL.md": skill("mail", "Automate Gmail tasks via Composio toolkit connections"),
            "skills/calendar/SKILL.md": skill(
                "calendar", "Automate Google Calendar tasks via Composio toolkit connections"
            ),
        },
    )
    ((path, _, code, message),) = findings(check_tree(tmp_path))
    assert code == "CL206" and "same template" in message and message.endswith(": calendar, mail")


def test_cl206_portuguese_near_duplicates(tmp_path):
    write_tree(
        tmp_path,
        {
            "skills/conciliacao-cartao/SKILL.md": skill("conciliacao-cartao", CONCILIACAO),
            "skills/conciliacao-cartoes/SKILL.md": skill(
                "conciliacao-cartoes", "use para bater os recebimentos de cartão com o extrato e dar a baixa no título"
            ),
        },
    )
    assert codes(check_tree(tmp_path)) == ["CL206"]


def test_cl206_distinct_verbs_do_not_cluster(tmp_path):
    write_tree(
        tmp_path,
        {
            "skills/pdf-fill/SKILL.md": skill("pdf-fill", "Use when filling PDF forms for customer onboarding packets"),
            "skills/pdf-merge/SKILL.md": skill(
                "pdf-merge", "Use when merging PDF files for customer onboarding packets"
            ),
            "skills/pdf-redact/SKILL.md": skill(
                "pdf-redact", "Use when redacting PDF files for customer onboarding packets"
            ),
        },
    )
    assert codes(check_tree(tmp_path)) == []


def test_cl206_only_compares_skills_seen_together(tmp_path):
    same = "Automate invoice follow-up emails for overdue customer accounts"
    write_tree(
        tmp_path,
        {
            "agent-a/skills/dunning/SKILL.md": skill("dunning", same),
            "agent-b/skills/dunning/SKILL.md": skill("dunning", same),
        },
    )
    assert codes(check_tree(tmp_path)) == []


def test_cl206_never_compares_a_name_with_itself(tmp_path):
    same = "Automate invoice follow-up emails for overdue customer accounts"
    tree = {"skills/dunning/SKILL.md": skill("dunning", same), "skills/dunning-v2/SKILL.md": skill("dunning", same)}
    write_tree(tmp_path, tree)
    assert codes(check_tree(tmp_path)) == ["CL205"]  # dunning-v2 is named dunning: that is all
    # a third skill alike to both is still reported, with both of them
    write_tree(tmp_path, {"skills/reminders/SKILL.md": skill("reminders", same)})
    ((path, _, code, message),) = findings(check_tree(tmp_path), "CL206")
    assert message.endswith(": dunning, dunning, reminders")


def test_cl206_threshold_is_configurable(tmp_path):
    write_tree(
        tmp_path,
        {
            "skills/a/SKILL.md": skill("a", "Reconcile card receipts against the bank statement and settle invoices"),
            "skills/b/SKILL.md": skill("b", "Reconcile card receipts against the bank statement and archive invoices"),
        },
    )
    assert codes(check_tree(tmp_path)) == []
    assert codes(check_tree(tmp_path, config={"skills": {"similarity-threshold": 0.7}})) == ["CL206"]


def test_cl206_one_cluster_for_a_thousand_templated_skills(tmp_path):
    tree = {
        f"skills/app{i}-automation/SKILL.md": skill(
            f"app{i}-automation",
            f"Automate App{i} tasks via Rube MCP (Composio). Always search tools first for current schemas.",
        )
        for i in range(1000)
    }
    write_tree(tmp_path, tree)
    ((path, _, code, message),) = findings(check_tree(tmp_path), "CL206")  # (and CL207: the listing overflows)
    assert (path, code) == ("skills/app0-automation/SKILL.md", "CL206")
    assert message.startswith("1000 skills have descriptions too alike") and message.endswith("and 990 more")


def _marketplace(*plugins: str) -> str:
    entries = [{"name": p, "source": f"./plugins/{p}"} for p in plugins]
    return json.dumps({"name": "m", "owner": {"name": "o"}, "plugins": entries})


def _triage(plugin: str, product: str) -> dict[str, str]:
    name = f"{plugin}-inbox-triage"
    text = f"Use when sorting the {product} inbox into urgent, waiting and archive by sender and subject"
    return {f"plugins/{plugin}/skills/{name}/SKILL.md": skill(name, text)}


def test_cl206_a_marketplace_compares_skills_plugin_by_plugin(tmp_path):
    # installed one by one: two plugins' skills meet in a listing only where both are installed
    write_tree(
        tmp_path,
        {
            ".claude-plugin/marketplace.json": _marketplace("gmail", "outlook"),
            **_triage("gmail", "Gmail"),
            **_triage("outlook", "Outlook"),
        },
    )
    result = check_tree(tmp_path)
    ((path, _, code, message),) = findings(result, "CL206")
    assert (path, code) == ("plugins/gmail/skills/gmail-inbox-triage/SKILL.md", "CL206")
    assert message.startswith("2 skills of 2 plugins of .claude-plugin/marketplace.json have descriptions too alike")
    assert "where a user installs those plugins together" in message
    (finding,) = [d for d in result.diagnostics if d.code == "CL206"]
    assert finding.severity.value == "info" and finding.details["plugins"] == ["gmail", "outlook"]


def test_cl206_skills_of_one_marketplace_plugin_are_a_listing(tmp_path):
    plugin = "plugins/mail/skills"
    write_tree(
        tmp_path,
        {
            ".claude-plugin/marketplace.json": _marketplace("mail"),
            f"{plugin}/gmail-triage/SKILL.md": skill("gmail-triage", "Sort the Gmail inbox by sender and subject"),
            f"{plugin}/outlook-triage/SKILL.md": skill(
                "outlook-triage", "Sort the Outlook inbox by sender and subject"
            ),
        },
    )
    result = check_tree(tmp_path)
    ((_, _, code, message),) = findings(result, "CL206")
    assert message.startswith("2 skills have descriptions too alike")
    assert [d.severity for d in result.diagnostics if d.code == "CL206"] == [None]  # the rule's own: warning


def test_cl206_two_marketplaces_of_the_same_plugins_report_a_cluster_once(tmp_path):
    write_tree(
        tmp_path,
        {
            ".claude-plugin/marketplace.json": _marketplace("gmail", "outlook"),
            ".agents/plugins/marketplace.json": _marketplace("gmail", "outlook"),
            **_triage("gmail", "Gmail"),
            **_triage("outlook", "Outlook"),
        },
    )
    assert codes(check_tree(tmp_path)).count("CL206") == 1


def test_files_inside_a_skill_folder_are_not_indexes(tmp_path):
    write_tree(
        tmp_path,
        {
            "skills/pdf/SKILL.md": skill("pdf", PDF),
            "skills/docx/SKILL.md": skill("docx", DOCX),
            "skills/xlsx/SKILL.md": skill("xlsx", XLSX),
            "skills/pdf/reference.md": "- pdf: see forms\n- docx: convert first\n- pptx: not ours\n",
        },
    )
    assert codes(check_tree(tmp_path)) == []
