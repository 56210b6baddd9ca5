"""``--fix`` repeats until a round changes nothing (one set feeding two calls is fixed in one
run), and a fix never makes a program raise where it did not: the examples, fixed with every fix
offered (unsafe ones too), are run against a stub SDK before and after."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml

from conftest import check_tree, write_tree

REPO = Path(__file__).resolve().parents[2]

ONE_SET_TWO_CALLS = """\
import anthropic

client = anthropic.Anthropic()
TOOLS = {"search": {"name": "search"}, "fetch": {"name": "fetch"}}
NAMES = {"search", "fetch"}


def plan(messages):
    return client.messages.create(model="m", max_tokens=10, tools=[TOOLS[n] for n in NAMES], messages=messages)


def act(messages):
    return client.messages.create(model="m", max_tokens=10, tools=[TOOLS[n] for n in NAMES], messages=messages)
"""


def test_one_set_feeding_two_calls_is_fixed_in_one_run(tmp_path):
    write_tree(tmp_path, {"agent.py": ONE_SET_TWO_CALLS})
    result = check_tree(tmp_path, fix=True)
    text = (tmp_path / "agent.py").read_text(encoding="utf-8")
    assert text.count("for n in sorted(NAMES)]") == 2, text
    assert result.diagnostics == [] and result.fixes_applied == 2
    again = check_tree(tmp_path, fix=True)
    assert again.fixes_applied == 0 and again.diagnostics == []


def test_diff_shows_the_first_round_and_writes_nothing(tmp_path):
    write_tree(tmp_path, {"agent.py": ONE_SET_TWO_CALLS})
    result = check_tree(tmp_path, diff=True)
    assert (tmp_path / "agent.py").read_text(encoding="utf-8") == ONE_SET_TWO_CALLS
    (diff,) = result.diffs
    assert diff.count("+    return") == 1


# A stub of the SDKs the examples call: every request answers "end_turn" with one text block.
STUBS = {
    "anthropic.py": """
from types import SimpleNamespace

class _Messages:
    def create(self, **kwargs):
        tools = kwargs.get("tools") or []
        assert all(isinstance(t, dict) for t in tools), tools
        return SimpleNamespace(stop_reason="end_turn", content=[SimpleNamespace(type="text", text="ok")])

class Anthropic:
    def __init__(self, *args, **kwargs):
        self.messages = _Messages()
        self.beta = self
""",
    "openai.py": """
from types import SimpleNamespace

class _Completions:
    def create(self, **kwargs):
        return SimpleNamespace(choices=[SimpleNamespace(message=SimpleNamespace(content="ok"))])

class OpenAI:
    def __init__(self, *args, **kwargs):
        self.chat = SimpleNamespace(completions=_Completions())
        self.responses = SimpleNamespace(create=lambda **kwargs: SimpleNamespace(output_text="ok"))
""",
}

# Calls each example's functions with arguments of the kinds their names say.
RUNNER = """
import importlib, inspect, json, sys
sys.path.insert(0, sys.argv[1])
ARGS = {"messages": [], "task": "t", "question": "q", "skills": {}, "loaded": ["b", "a"], "folder": ".", "futures": []}
outcome = {}
try:
    module = importlib.import_module(sys.argv[2])
except Exception as exc:
    print(json.dumps({"<import>": type(exc).__name__}))
    raise SystemExit
for name, fn in sorted(vars(module).items()):
    if inspect.isfunction(fn) and fn.__module__ == module.__name__:
        try:
            fn(**{p: ARGS.get(p, None) for p in inspect.signature(fn).parameters})
            outcome[name] = None
        except Exception as exc:
            outcome[name] = type(exc).__name__
print(json.dumps(outcome, sort_keys=True))
"""


def _examples() -> dict[str, str]:
    out = {"backoffice_agent": (REPO / "examples" / "agent" / "backoffice_agent.py").read_text(encoding="utf-8")}
    for code in ("CL101", "CL102"):
        entry = yaml.safe_load((REPO / "rules" / "catalog" / f"{code}.yaml").read_text(encoding="utf-8"))
        for i, example in enumerate(entry["examples"]["bad"]):
            out[f"{code.lower()}_bad_{i}"] = example["input"]
    out["unknown_elements"] = textwrap.dedent(
        """\
        import anthropic

        client = anthropic.Anthropic()


        def ask(messages, loaded):
            tools = [{"name": t} for t in set(loaded)]
            return client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
        """
    )
    return out


def _run(folder: Path, module: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", RUNNER, str(folder), module], capture_output=True, text=True, cwd=folder, timeout=60
    )
    return done.stdout.strip()


@pytest.mark.parametrize("name", sorted(_examples()))
def test_fixed_examples_run_as_before(tmp_path, name):
    source = _examples()[name]
    original, fixed = tmp_path / "original", tmp_path / "fixed"
    for folder in (original, fixed):
        write_tree(folder, {**STUBS, f"{name}.py": source})
    result = check_tree(fixed, fix=True, unsafe_fixes=True)
    assert result.fixes_applied >= 1, [d.message for d in result.diagnostics]
    assert (fixed / f"{name}.py").read_text(encoding="utf-8") != source
    before, after = _run(original, name), _run(fixed, name)
    assert before and after == before, (before, after)
