"""CL207: each loader's listing of skill names and descriptions against its documented budget,
checked by hand: Claude Code 1% of a 200,000-token window at 4 characters a token (8,000
characters), entries cut at 1,536; Codex 2% of a 272,000-token window (21,760 characters), lines
``- <name>: <description> (file: <path>)``."""

from __future__ import annotations

import json

import pytest

from conftest import check_tree, write_tree
from skilltrees import skill

WORDS = "reconcile invoices receipts ledgers statements payouts refunds chargebacks fees taxes".split()


def _description(i: int, length: int) -> str:
    """A distinct description of exactly ``length`` characters."""
    text = f"Use when handling case {i:02d} to " + " ".join(WORDS[(i + k) % len(WORDS)] for k in range(200))
    text = text[:length]
    return text[:-1] + "s" if text.endswith(" ") else text


def _collection(count: int, length: int, folder: str = "skills", extra: str = "") -> dict[str, str]:
    return {
        f"{folder}/skill-{i:02d}/SKILL.md": skill(f"skill-{i:02d}", _description(i, length), extra)
        for i in range(count)
    }


def _cl207(tmp_path, config=None):
    result = check_tree(tmp_path, config={"select": ["CL207"], **(config or {})})
    return [d for d in result.diagnostics if d.code == "CL207"]


def test_a_project_folder_over_claude_codes_budget(tmp_path):
    # 20 entries of an 8-character name and a 400-character description: 8,160 > 8,000 by 160, so
    # one description goes, whichever is invoked least
    write_tree(tmp_path, _collection(20, 400, folder=".claude/skills"))
    [finding] = _cl207(tmp_path)
    assert finding.path == ".claude/skills/skill-00/SKILL.md" and finding.line == 3
    assert finding.details == {
        "loader": "claude-code",
        "view": "the project skills in .claude/skills",
        "skills": 20,
        "characters": 8160,
        "budget": 8000,
        "share": 1.02,
        "dropped": [1, 1],
    }
    assert finding.message.startswith(
        "Claude Code's skill listing of the project skills in .claude/skills: 20 skills, 8,160 characters, "
        "102% of its 8,000-character budget (1% of a 200,000-token context window at 4 characters a token); "
        "it drops the descriptions of the least-invoked skills until the listing fits (1 of 20 here)"
    )


def test_a_collection_copied_at_once_is_measured_but_not_reported(tmp_path):
    from cachelint.config import load_settings
    from cachelint.skills.listing import listing_report

    write_tree(tmp_path, _collection(20, 400))
    assert _cl207(tmp_path) == []
    [claude, codex] = listing_report(tmp_path, load_settings(tmp_path, isolated=True))
    assert (claude.view.what, claude.used, claude.over, claude.view.unit) == (
        "the 20 skills under skills/, installed together",
        8160,
        True,
        False,
    )
    assert codex.view.loader.key == "codex" and not codex.over


def test_a_project_folder_within_budget(tmp_path):
    write_tree(tmp_path, _collection(19, 400, folder=".claude/skills"))  # 19 x 408 = 7,752
    assert _cl207(tmp_path) == []


def test_user_only_skills_are_in_no_listing(tmp_path):
    files = _collection(20, 400, folder=".claude/skills")
    files[".claude/skills/skill-00/SKILL.md"] = skill(
        "skill-00", _description(0, 400), "disable-model-invocation: true\n"
    )
    write_tree(tmp_path, files)
    assert _cl207(tmp_path) == []


def test_the_users_model_sets_the_budget(tmp_path):
    write_tree(tmp_path, _collection(20, 400, folder=".claude/skills"))
    config = {"skills": {"listing": {"claude-code": {"context-window": 1_000_000}}}}
    assert _cl207(tmp_path, config) == []


def test_codex_shortens_every_description_alike(tmp_path):
    # 10 lines "- skill-NN: (file: .agents/skills/skill-NN/SKILL.md)" and a newline, 53 characters
    # each: 530; a 50,000-token window gives 2% x 50,000 x 4 = 4,000 characters, so 3,470 remain
    # for the descriptions, a space and the text each: 10 x (346 + 1) = 3,470, every one cut at 346
    write_tree(tmp_path, _collection(10, 400, folder=".agents/skills"))
    config = {"skills": {"listing": {"codex": {"context-window": 50_000}}}}
    [finding] = _cl207(tmp_path, config)
    assert finding.details["loader"] == "codex"
    assert finding.details["characters"] == 530 + 10 * 401
    assert finding.details["budget"] == 4000
    assert finding.details["shortened_to"] == 346
    assert "it shortens every description to 346 characters (10 of 10 cut)" in finding.message


def test_codex_leaves_skills_out_when_even_the_names_do_not_fit(tmp_path):
    write_tree(tmp_path, _collection(10, 100, folder=".agents/skills"))
    config = {"skills": {"listing": {"codex": {"context-window": 5000}}}}  # 400 characters: 7 lines of 53
    [finding] = _cl207(tmp_path, config)
    assert finding.details["omitted"] == ["skill-07", "skill-08", "skill-09"]
    assert "every description is removed and 3 skills left out (skill-07, skill-08, skill-09)" in finding.message


def test_an_entry_cut_at_1536_characters(tmp_path):
    description = _description(1, 1000)
    when = "Trigger on " + _description(2, 600)
    write_tree(tmp_path, {"skills/long/SKILL.md": skill("long", description, f"when_to_use: {when}\n")})
    [finding] = _cl207(tmp_path)
    assert finding.line == 3
    assert finding.message.startswith(
        "Claude Code cuts this skill's listing entry at 1,536 characters: its description and when_to_use hold "
        f"{1000 + 1 + len(when):,}"
    )


def test_a_description_over_1024_characters_is_cl201s_business(tmp_path):
    write_tree(tmp_path, {"skills/long/SKILL.md": skill("long", _description(1, 1600))})
    assert _cl207(tmp_path) == []


def _marketplace(*plugins):
    return json.dumps({"name": "m", "owner": {"name": "o"}, "plugins": list(plugins)}, indent=2)


def test_a_plugin_is_measured_as_it_is_installed(tmp_path):
    # the plugin's namespace prefixes each name ("books:skill-00"): 20 x (6 + 8 + 390) = 8,080
    files = _collection(20, 390, folder="plugins/books/skills")
    files[".claude-plugin/marketplace.json"] = _marketplace(
        {"name": "books", "source": "./plugins/books"}, {"name": "other", "source": "./plugins/other"}
    )
    files["plugins/other/skills/pdf/SKILL.md"] = skill("pdf", "Use when filling PDF forms.")
    write_tree(tmp_path, files)
    [finding] = _cl207(tmp_path)
    assert (finding.path, finding.line) == (".claude-plugin/marketplace.json", 9)  # the plugin's source
    assert finding.details["view"] == "the plugin books of .claude-plugin/marketplace.json"
    assert finding.details["characters"] == 8080


def test_plugins_installed_one_by_one_within_budget(tmp_path):
    files = {**_collection(12, 390, folder="plugins/a/skills"), **_collection(12, 390, folder="plugins/b/skills")}
    files = {k.replace("skill-", "a-skill-") if "/a/" in k else k: v for k, v in files.items()}
    files[".claude-plugin/marketplace.json"] = _marketplace(
        {"name": "a", "source": "./plugins/a"}, {"name": "b", "source": "./plugins/b"}
    )
    write_tree(tmp_path, files)
    assert _cl207(tmp_path) == []


def test_the_project_folder_of_a_loader(tmp_path):
    write_tree(tmp_path, _collection(20, 400, folder=".claude/skills"))
    [finding] = _cl207(tmp_path)
    assert finding.details["view"] == "the project skills in .claude/skills"
    assert finding.details["loader"] == "claude-code"


def test_another_loaders_plugin_is_not_a_collection(tmp_path):
    files = _collection(20, 400, folder="plugins/books/skills")
    files["plugins/books/.codex-plugin/plugin.json"] = json.dumps({"name": "books", "skills": "./skills/"})
    write_tree(tmp_path, files)
    # Codex measures its plugin (20 x 401 + the lines: within 21,760); Claude Code does not load it
    assert _cl207(tmp_path) == []


@pytest.mark.parametrize("fraction, expected", [(0.02, []), (0.01, ["claude-code"])])
def test_a_raised_budget_fraction(tmp_path, fraction, expected):
    write_tree(tmp_path, _collection(20, 400, folder=".claude/skills"))
    config = {"skills": {"listing": {"claude-code": {"budget-fraction": fraction}}}}
    assert [d.details["loader"] for d in _cl207(tmp_path, config)] == expected


def test_a_plugins_skills_are_named_by_its_manifests_name(tmp_path):
    # "azure:skill-NN": 20 x (6 + 8 + 395) = 8,180 (the folder's name would make it 20 x 13 more)
    files = _collection(20, 395, folder="plugins/azure-skills/skills")
    files["plugins/azure-skills/.claude-plugin/plugin.json"] = json.dumps({"name": "azure"})
    write_tree(tmp_path, files)
    [finding] = _cl207(tmp_path)
    assert (finding.path, finding.details["characters"]) == ("plugins/azure-skills/.claude-plugin/plugin.json", 8180)
