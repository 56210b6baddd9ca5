"""Skill findings are the same bytes under any PYTHONHASHSEED (sets never leak their order)."""
from __future__ import annotations

import os
import subprocess
import sys

from conftest import write_tree
from skilltrees import CONCILIACAO, EMISSAO, skill


def test_same_output_under_any_hash_seed(tmp_path):
    tmpl = "Automate {} tasks via Composio toolkit connections for the sales team"
    tree = {f"skills/{a}/SKILL.md": skill(a, tmpl.format(p)) for a, p in (("mail", "Gmail"), ("cal", "Google Calendar"), ("crm", "HubSpot CRM"))}
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
            cwd=tmp_path, env=env, capture_output=True, text=True,
        )
        assert run.returncode == 1, run.stderr
        outputs.add(run.stdout)
    assert len(outputs) == 1
    (output,) = outputs
    assert all(code in output for code in ("CL202", "CL203", "CL204", "CL206"))
