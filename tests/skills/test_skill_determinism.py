"""Skill findings are the same bytes under any PYTHONHASHSEED (sets never leak their order)."""

from __future__ import annotations

import os
import subprocess
import sys

from conftest import write_tree
from skilltrees import CONCILIACAO, EMISSAO, skill


def test_same_output_under_any_hash_seed(tmp_path):
    tmpl = "Automate {} tasks via Composio toolkit connections for the sales team"
    tree = {
        f"skills/{a}/SKILL.md": skill(a, tmpl.format(p))
        for a, p in (("mail", "Gmail"), ("cal", "Google Calendar"), ("crm", "HubSpot CRM"))
    }
    tree.update(
        {
            "skills/conciliacao-cartao/SKILL.md": skill("conciliacao-cartao", CONCILIACAO),
            "skills/emissao-nf/SKILL.md": skill("emissao-nf", EMISSAO),
            "skills/generic/SKILL.md": skill("generic", "útil no back-office"),
            "AGENTS.md": f"- conciliacao-cartao: {CONCILIACAO}\n- emissao-nf: {EMISSAO}\n- mail: x\n- cal: x\n- gone: x\n",
        }
    )
    write_tree(tmp_path, tree)
    outputs = set()
    for seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        run = subprocess.run(
            [sys.executable, "-m", "cachelint", "check", ".", "--isolated", "--no-cache", "--output-format", "json"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
        )
        assert run.returncode == 1, run.stderr
        outputs.add(run.stdout)
    assert len(outputs) == 1
    (output,) = outputs
    assert all(code in output for code in ("CL202", "CL203", "CL204", "CL206"))


def test_a_tree_outside_the_working_directory_gives_the_same_findings(tmp_path):
    """A skill tree outside any git repository, checked by path from another working directory,
    is one tree rooted at the folder named on the command line — as when it is checked from
    inside: it fell apart into one tree per skill folder (deer-flow's 7 CL205 vanished when
    cachelint ran from another repository)."""
    from cachelint.api import check_paths
    from cachelint.config import load_settings
    from cachelint.engine import CheckOptions

    tree = tmp_path / "tree"
    for folder, name in (("alpha", "alpha"), ("beta", "beta-skill"), ("gamma", "gamma")):
        (tree / "skills" / folder).mkdir(parents=True)
        (tree / "skills" / folder / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: Automate {folder} tasks via the API.\n---\n"
        )
    (tree / "AGENTS.md").write_text("# Skills\n\n- alpha: Automate alpha tasks via the API.\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    def findings(cwd, path):
        settings = load_settings(cwd, isolated=True)
        result = check_paths([path], settings=settings, options=CheckOptions(no_cache=True), cwd=cwd)
        return sorted((d.code, d.path.split("skills/")[-1], d.message) for d in result.diagnostics)

    inside = findings(tree, ".")
    assert "CL205" in {code for code, _, _ in inside}  # beta's name is not its folder's
    assert findings(elsewhere, str(tree)) == inside
