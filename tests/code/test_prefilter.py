"""The text prefilter skips the analysis only where the analysis finds nothing; the file is still
checked for syntax; a module summarised, then skipped by its check, is parsed once."""

from __future__ import annotations

import ast
import os
import re
import symtable
from pathlib import Path

import pytest
from codecheck_helpers import HEADER, settings
from test_cl101_unordered_tools import POSITIVE as CL101
from test_cl102_unordered_prompt import POSITIVE as CL102
from test_cl103_tools_changed_in_loop import POSITIVE as CL103
from test_cl104_system_changed_in_loop import POSITIVE as CL104
from test_cl105_volatile_prefix import POSITIVE as CL105

from cachelint.code import analysis, check_module, summarize_module
from cachelint.code.knowledge import knowledge_for
from cachelint.code.program import KnownToParse, parse_python, syntax_problems
from cachelint.config import load_settings
from cachelint.rules import codes

FIXTURES = Path(__file__).parent / "fixtures"


def passes(text: str, config_settings=None) -> bool:
    return knowledge_for(config_settings or settings()).prefilter.passes(text)


def unfiltered(path: str, text: str, config_settings=None, summaries=None) -> list:
    return analysis.check(path, text, config_settings or settings(), summaries, prefilter=False)


# --- what lets a file through ------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "r = client.messages.create(model=m, tools=tools, messages=msgs)",
        "r = client.messages.create (\n    model=m, system=prompt)",
        "r = (client.responses.create)(instructions=text)",
        "from litellm import completion as ask\nask(model='m', messages=msgs, tools=t)",
        "llm = model.bind_tools(registry)",  # positional tools: the call alone
        "agent = CodeAgent(registry, model=m)",
        "@agent.system_prompt\ndef prompt():\n    return now()",
        "@agent.instructions(dynamic=True)\ndef prompt():\n    return now()",
        'messages = [{"role": "system", "content": text}, *history]',
        "messages = [('developer', text)]",
        "messages = [SystemMessage(content=text)]",
        'httpx.post(url, json={"toolConfig": cfg})',
    ],
)
def test_sink_shapes_pass(text):
    assert passes(text)


@pytest.mark.parametrize(
    "text",
    [
        "def create(self, name): ...\nthing = factory.create(name)",  # a sink name, no prefix word
        "tools = registry.create_all(tools)",  # not the sink's name called
        "response = await client.post(url, json=payload)",  # a body without a prefix key
        "stream = open(path)\nfor chunk in parser.stream(data): pass",
        "system = platform.system()",  # the word without any sink
        "chain.invoke(messages)",  # a messages-only sink: needs a system message of this file
    ],
)
def test_sink_names_alone_do_not_pass(text):
    assert not passes(text)


def test_configured_sinks_join_the_prefilter(tmp_path):
    sinks = [{"call": "myapp.llm.ask", "tools": "tool_list"}, {"call": "myapp.llm.say", "system": 1}]
    configured = load_settings(tmp_path, isolated=True, overrides={"code": {"sinks": sinks}})
    assert passes("from myapp.llm import ask\nask(tool_list=names)", configured)
    assert not passes("from myapp.llm import ask\nask(names)", configured)  # tools only by keyword
    assert passes("from myapp.llm import say\nsay(history, prompt)", configured)  # system by position
    assert not passes("from myapp.llm import ask\nask(tool_list=names)")  # not configured: not a sink
    source = "from myapp.llm import ask\n\nask(tool_list=list({'a', 'b'}))\n"
    assert [d.code for d in check_module("a.py", source, configured)] == ["CL101"]


# --- what it skips, the analysis finds nothing in -------------------------------------------


def _sink_words() -> list[str]:
    filt = knowledge_for(settings()).prefilter
    return sorted(w.name for w in filt.words)


def _mutations(source: str) -> list[str]:
    """Variants of a source that has findings, each hiding one thing the prefilter looks for (a
    prefix word, a role string, a sink's call, a decorator), and one hiding all of them."""
    k = knowledge_for(settings())
    sink_names = sorted(
        {name for name, _, _ in k.sinks.tokens()} | {name for name, _, _ in k.system_message_classes.tokens()}
    )
    edits = [(rf"\b{re.escape(w)}\b", f"{w}_x") for w in _sink_words()]
    edits += [(rf"(['\"]){re.escape(r)}(['\"])", rf"\1{r}_x\2") for r in sorted(k.first_message_roles)]
    edits += [(rf"\b{re.escape(n)}(\s*\()", rf"{n}_x\1") for n in sink_names]
    edits += [(r"@", "# @")]
    out = []
    everything = source
    for pattern, replacement in edits:
        variant = re.sub(pattern, replacement, source)
        everything = re.sub(pattern, replacement, everything)
        if variant != source:
            out.append(variant)
    out.append(everything)
    return out


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
        return True
    except SyntaxError:
        return False


POSITIVES = {
    **{f"CL101 {k}": v for k, v in CL101.items()},
    **{f"CL102 {k}": v for k, v in CL102.items()},
    **{f"CL103 {k}": v for k, v in CL103.items()},
    **{f"CL104 {k}": v for k, v in CL104.items()},
    **{f"CL105 {k}": v for k, v in CL105.items()},
}


def test_every_rule_case_with_a_finding_passes():
    for name, source in POSITIVES.items():
        text = HEADER + source
        assert unfiltered("agent.py", text), name
        assert passes(text), name


def test_generated_variants_that_are_skipped_have_no_finding():
    skipped = 0
    for name, source in POSITIVES.items():
        for variant in _mutations(HEADER + source):
            if not _parses(variant) or passes(variant):
                continue
            skipped += 1
            assert unfiltered("agent.py", variant) == [], (name, variant)
    # The sample really exercises the skipping (hundreds of variants hide every sink).
    assert skipped >= 100


def _files_under(roots: list[Path]) -> list[Path]:
    out = []
    for root in roots:
        out.extend(p for p in sorted(root.rglob("*.py")) if ".cachelint_cache" not in p.parts)
    return out


def _assert_skipped_files_have_no_finding(files: list[Path]) -> int:
    skipped = 0
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if passes(text):
            continue
        skipped += 1
        found = [d for d in unfiltered(str(path), text) if d.code != "CL001"]
        assert found == [], (str(path), [(d.code, d.line, d.message) for d in found])
    return skipped


def test_fixtures_and_sources_skipped_have_no_finding():
    repo = Path(__file__).resolve().parents[2]
    files = _files_under([FIXTURES, repo / "cachelint", repo / "benchmarks", repo / "tests"])
    assert _assert_skipped_files_have_no_finding(files) >= 50


@pytest.mark.skipif(
    not os.environ.get("CACHELINT_CODE_CORPUS"), reason="set CACHELINT_CODE_CORPUS=dir[:dir...] to run on real code"
)
def test_real_corpus_skipped_files_have_no_finding():
    roots = [Path(p) for p in os.environ["CACHELINT_CODE_CORPUS"].split(os.pathsep) if p]
    assert _assert_skipped_files_have_no_finding(_files_under(roots)) > 0


# --- wrappers of other modules -----------------------------------------------------------------

LLM = """\
import anthropic


class Llm:
    def __init__(self):
        self.client = anthropic.Anthropic()

    def ask(self, catalogue, messages):
        return self.client.messages.create(model="m", max_tokens=1, tools=catalogue, messages=messages)
"""

AGENT = """\
from pkg.llm import Llm


class Agent2:
    def __init__(self):
        self.llm = Llm()

    def run(self, messages, names):
        return self.llm.ask([{"name": n} for n in set(names)], messages)
"""


def test_a_method_of_another_module_that_reaches_a_sink_lets_its_caller_through():
    summaries = {"pkg.llm": summarize_module("pkg/llm.py", LLM)}
    assert "ask" in summaries["pkg.llm"]["classes"]["Llm"]["methods"]
    assert not passes(AGENT)  # no sink of its own
    found = check_module("pkg/agent.py", AGENT, None, project_summaries=summaries)
    assert [d.code for d in found] == ["CL101"]
    assert found == unfiltered("pkg/agent.py", AGENT, summaries=summaries)


# --- a skipped file is still checked for syntax --------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "x = (1,\n",
        "def f(:\n    pass\n",
        "print 'python 2'\n",
        "x = 1\n\tif x:\n",
        "nonlocal x\n",  # symtable rejects it, ast.parse does not: not CL001 (as before)
        "def f():\n    x = 1\n    global x\n",
        "x = '\0'\n",
        "f(" * 300 + ")" * 300 + "\n",
    ],
)
def test_syntax_of_skipped_files_matches_a_full_parse(text):
    parsed = parse_python("a.py", text)
    expected = [parsed] if not hasattr(parsed, "tree") else []
    assert syntax_problems("a.py", text) == expected
    assert check_module("a.py", text, None) == expected


# --- one parse for a module summarised, then checked ---------------------------------------

REGISTRY = """\
import os


def tool_names(root):
    return {name.removesuffix(".py") for name in os.listdir(root)}
"""


def test_a_module_summarised_then_skipped_by_its_check_is_parsed_once(monkeypatch):
    monkeypatch.setattr(analysis, "_KNOWN_TO_PARSE", KnownToParse())
    parses = []
    real_parse = ast.parse
    monkeypatch.setattr(ast, "parse", lambda *a, **kw: (parses.append(1), real_parse(*a, **kw))[1])
    real_symtable = symtable.symtable
    monkeypatch.setattr(symtable, "symtable", lambda *a: (parses.append(1), real_symtable(*a))[1])
    assert summarize_module("pkg/registry.py", REGISTRY, settings())["functions"]["tool_names"]
    assert check_module("pkg/registry.py", REGISTRY, settings()) == []
    assert len(parses) == 1
    assert check_module("pkg/other.py", REGISTRY, settings()) == []  # another file: its own parse
    assert check_module("pkg/registry.py", REGISTRY + "x = (\n", settings())[0].code == "CL001"
    assert len(parses) == 4  # symtable finds the error, ast.parse words it


def test_known_to_parse_keys_on_path_and_text_and_starts_over_when_full():
    known = KnownToParse(max_entries=3)
    texts = [f"x = {i}\n" for i in range(4)]
    for text in texts[:3]:
        known.add("a.py", text)
    assert [("a.py", t) in known for t in texts] == [True, True, True, False]
    assert ("b.py", texts[0]) not in known
    known.add("a.py", texts[3])
    assert [("a.py", t) in known for t in texts] == [False, False, False, True]


# --- the prefilter of a selection ---------------------------------------------------------------


def _passes_for(rule_code: str, text: str) -> bool:
    """Whether a run that enables ``rule_code`` alone analyses ``text`` (its prefilter is built
    from that rule's requirements only)."""
    from cachelint.rules import declared

    (rule,) = [r for r in declared("code") if r.code == rule_code]
    return analysis._passes_prefilter(text, knowledge_for(settings()), None, analysis.required((rule,)))


@pytest.mark.parametrize("code", codes("code"))
def test_a_file_the_prefilter_of_one_rule_skips_has_no_finding_of_that_rule(code):
    """The prefilter of a selection is the union of what its rules require: each rule's own
    requirement lets through every file where the analysis finds that rule."""
    repo = Path(__file__).resolve().parents[2]
    texts = [HEADER + source for source in POSITIVES.values()]
    texts += [variant for source in POSITIVES.values() for variant in _mutations(HEADER + source)]
    for path in _files_under([FIXTURES, repo / "examples"]):
        try:
            texts.append(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            continue
    skipped = 0
    for text in texts:
        if not _parses(text) or _passes_for(code, text):
            continue
        skipped += 1
        assert [d for d in unfiltered("agent.py", text) if d.code == code] == [], text
    assert skipped >= 50


def test_a_name_of_the_system_prompt_lets_a_file_through_only_for_the_rule_that_reads_it():
    text = "import datetime\nSYSTEM_PROMPT = f'Today is {datetime.datetime.now()}'\n"
    assert [d.code for d in unfiltered("agent.py", text)] == ["CL105"]
    assert _passes_for("CL105", text)
    assert not any(_passes_for(code, text) for code in codes("code") if code != "CL105")
