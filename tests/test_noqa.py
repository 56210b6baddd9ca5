"""`check --add-noqa` writes a suppression for every finding, in each kind of file, without changing
what any file means; `--fix` removes the suppressions that suppress nothing (CL004)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from cachelint.cli import main
from cachelint.noqa import add_to_python, add_to_text, python_reads_the_same
from conftest import REPO, write_tree

AGENT = (REPO / "examples" / "agent" / "backoffice_agent.py").read_text(encoding="utf-8")
# a line continued by a backslash, and a finding inside a call whose string runs over two lines
TRICKY = (
    "import anthropic, time\n"
    "client = anthropic.Anthropic()\n"
    'x = client.messages.create(model="m", max_tokens=1, \\\n'
    '    system=f"now {time.time()}", messages=[])\n'
    'y = client.messages.create(model="m", max_tokens=1, system="""a\n'
    '{}""".format(time.time()), messages=[])\n'
)
NOTEBOOK = {
    "cells": [
        {
            "cell_type": "code",
            "execution_count": None,
            "id": "a1",
            "metadata": {},
            "outputs": [],
            "source": [
                "%pip install anthropic\n",
                "import anthropic, time\n",
                "client = anthropic.Anthropic()\n",
                "client.messages.create(model='m', max_tokens=1, system=f'{time.time()}', tools=list({'a','b'}), messages=[])",
            ],
        }
    ],
    "metadata": {},
    "nbformat": 4,
    "nbformat_minor": 5,
}
TREE = {
    "agent.py": AGENT,
    "tricky.py": TRICKY,
    "nb.ipynb": json.dumps(NOTEBOOK, indent=1, sort_keys=True, ensure_ascii=False) + "\n",
    "skills/helper/SKILL.md": "---\nname: helper\ndescription: Helps with tasks.\n---\nbody\n",
    "skills/other/SKILL.md": "no front matter\n",
}


def _check(root, *args):
    return CliRunner().invoke(main, ["check", "--no-cache", "--isolated", *args, str(root)])


def test_add_noqa_suppresses_every_finding_and_changes_no_code(tmp_path, monkeypatch):
    write_tree(tmp_path, TREE)
    monkeypatch.chdir(tmp_path)
    before = _check(".")
    assert before.exit_code == 1 and before.stdout.count("\n") > 10
    added = _check(".", "--add-noqa")
    assert added.exit_code == 0
    assert added.stdout == "Added 10 suppressions to 5 files.\n", added.output
    after = _check(".")
    assert (after.exit_code, after.stdout) == (0, "All checks passed! (5 files checked)\n")
    for name in ("agent.py", "tricky.py"):
        assert python_reads_the_same(TREE[name], (tmp_path / name).read_text(encoding="utf-8"))
    assert (
        (tmp_path / "tricky.py")
        .read_text(encoding="utf-8")
        .splitlines()[3]
        .endswith("messages=[])  # cachelint: ignore[CL105]")
    )
    cell = "".join(json.loads((tmp_path / "nb.ipynb").read_text(encoding="utf-8"))["cells"][0]["source"])
    assert cell.startswith("%pip install anthropic\n") and cell.endswith("# cachelint: ignore[CL101, CL105]")
    assert (tmp_path / "skills/helper/SKILL.md").read_text(encoding="utf-8") == (
        "---\nname: helper\n# cachelint: ignore[CL202]\ndescription: Helps with tasks.\n---\nbody\n"
    )
    assert (tmp_path / "skills/other/SKILL.md").read_text(encoding="utf-8") == (
        "no front matter <!-- cachelint: ignore[CL201] -->\n"
    )
    again = _check(".", "--add-noqa")
    assert again.stdout == "Added 0 suppressions to 0 files.\n"


def test_unused_suppressions_are_reported_and_fix_removes_them(tmp_path, monkeypatch):
    write_tree(
        tmp_path,
        {"own.py": "x = 1\n# cachelint: ignore[CL105] -- the clock is coarse\ny = 2  # noqa: E501, CL101  # keep\n"},
    )
    monkeypatch.chdir(tmp_path)
    found = _check(".")
    assert found.exit_code == 1
    assert found.stdout.splitlines()[:2] == [
        "own.py:2:3: CL004 [*] unused suppression of CL105: no such finding on this line or the next",
        "own.py:3:8: CL004 [*] unused suppression of CL101: no such finding on this line or the next",
    ]
    fixed = _check(".", "--fix")
    assert fixed.exit_code == 0, fixed.output
    assert (tmp_path / "own.py").read_text(encoding="utf-8") == "x = 1\ny = 2  # noqa: E501  # keep\n"


def test_a_line_no_comment_can_end_is_suppressed_from_the_line_above():
    text = 'if True:\n    x = f("""a\n{1}""")\n'
    done = add_to_python(text, {2: ["CL105"]})
    assert done.text == 'if True:\n    # cachelint: ignore[CL105]\n    x = f("""a\n{1}""")\n'
    closing = add_to_python(text, {3: ["CL105"]})
    assert closing.text == 'if True:\n    x = f("""a\n{1}""")  # cachelint: ignore[CL105]\n'
    inside = add_to_python('x = """a\nb\nc"""\n', {2: ["CL105"]})
    assert inside.skipped == [(2, "the line ends inside a string or a continued line")]


def test_yaml_comment_goes_above_the_key_unless_that_changes_the_data():
    skill = "---\nname: x\ndescription: |\n  line one\n  line two\n---\n"
    inside = add_to_text(skill, {4: ["CL202"]}, yaml_file=False)  # a comment there would be text
    assert (inside.text, inside.skipped) == (skill, [(4, "no comment there leaves the YAML as it is")])
    above = add_to_text(skill, {3: ["CL202"]}, yaml_file=False)
    assert above.text == "---\nname: x\n# cachelint: ignore[CL202]\ndescription: |\n  line one\n  line two\n---\n"
    head = add_to_text("---\nname: x\n---\n", {1: ["CL201"]}, yaml_file=False)
    assert head.text == "---\n# cachelint: ignore-file[CL201]\nname: x\n---\n"


def test_json_takes_no_suppression(tmp_path, monkeypatch):
    from cachelint.noqa import add_suppressions

    done = add_suppressions(".claude-plugin/marketplace.json", "{}", {(None, 1): {"CL204"}})
    assert done.added == 0 and done.skipped == [(1, "JSON takes no comments: use per-file-ignores or a baseline")]


def test_fix_removes_unused_suppressions_in_markdown_and_front_matter(tmp_path, monkeypatch):
    skill = (
        "---\nname: helper\n# cachelint: ignore[CL202]\n"
        "description: Use when the user asks to convert CSV files into Parquet tables with a schema.\n---\n"
        "body <!-- cachelint: ignore[CL204] -- why -->\n"
    )
    write_tree(tmp_path, {"skills/helper/SKILL.md": skill})
    monkeypatch.chdir(tmp_path)
    found = _check(".")
    assert [line.split(" ", 2)[:2] for line in found.stdout.splitlines()[:2]] == [
        ["skills/helper/SKILL.md:3:3:", "CL004"],
        ["skills/helper/SKILL.md:6:11:", "CL004"],
    ]
    diff = _check(".", "--diff")
    assert diff.exit_code == 1 and "-# cachelint: ignore[CL202]\n" in diff.stdout and "+body\n" in diff.stdout
    fixed = _check(".", "--fix")
    assert fixed.exit_code == 0, fixed.output
    assert (tmp_path / "skills/helper/SKILL.md").read_text(encoding="utf-8") == (
        "---\nname: helper\n"
        "description: Use when the user asks to convert CSV files into Parquet tables with a schema.\n---\nbody\n"
    )


def test_a_removal_that_would_change_the_yaml_is_not_made():
    from cachelint.noqa import text_reads_the_same
    from cachelint.suppressions import apply_comment_fixes
    from cachelint.suppressions import _code_or_name, find_suppressions

    text = "---\ndescription: |\n  keep # cachelint: ignore[CL202]\n---\n"
    [s] = find_suppressions(text)
    from cachelint.diagnostics import Fix
    from cachelint.suppressions import lines_of, removal_edit

    edit = removal_edit(s, {"CL202"}, lines_of(text)[2], _code_or_name)
    _kept, _emptied, applied, failed = apply_comment_fixes(text, [Fix("x", (edit,))], text_reads_the_same("SKILL.md"))
    assert applied == [] and failed[0][1] == "removing it would change what the file says"
