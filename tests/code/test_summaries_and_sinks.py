"""Across modules of one run (summaries), and sinks declared by users (config and packs)."""

from __future__ import annotations

import json

from conftest import check_tree, write_tree

from cachelint.code import check_module, summarize_module
from cachelint.config import load_settings
from cachelint.diagnostics import Severity

REGISTRY = """\
import os


def tool_names():
    return set(os.environ.get("TOOLS", "search,fetch").split(","))


def sorted_names():
    return sorted(tool_names())


def stamp():
    import time
    return time.strftime("%H:%M")


ENABLED = frozenset({"search", "fetch"})
"""

LLM = """\
import anthropic

client = anthropic.Anthropic()


def ask(system, tools, messages):
    return client.messages.create(model="m", max_tokens=10, system=system, tools=tools, messages=messages)
"""

AGENT = """\
from pkg.registry import ENABLED, sorted_names, stamp, tool_names
from pkg import llm

TOOLS = {"search": {"name": "search"}, "fetch": {"name": "fetch"}}


def run(messages):
    tools = [TOOLS[n] for n in tool_names()]
    ok = [TOOLS[n] for n in sorted_names()]
    llm.ask("Base. " + stamp(), tools + ok, messages)
    llm.ask("Base.", [TOOLS[n] for n in ENABLED], messages)
"""

RELATIVE = """\
from .registry import tool_names
from .llm import ask


def run(messages):
    ask("Base.", [{"name": n} for n in tool_names()], messages)
"""


def _summaries() -> dict:
    return {
        "pkg.registry": summarize_module("pkg/registry.py", REGISTRY),
        "pkg.llm": summarize_module("pkg/llm.py", LLM),
    }


def test_summary_is_json_and_says_what_flows():
    summaries = _summaries()
    assert json.loads(json.dumps(summaries)) == summaries
    registry = summaries["pkg.registry"]
    assert registry["functions"]["tool_names"]["returns"]["own"][0]["kind"] == "unordered"
    assert "sorted_names" not in registry["functions"]
    assert registry["functions"]["stamp"]["returns"]["own"][0]["kind"] == "volatile"
    assert registry["names"]["ENABLED"]["elements"] == "str"  # the value holds str, whatever its origins
    sinks = summaries["pkg.llm"]["functions"]["ask"]["param_sinks"]
    assert sorted(sinks) == ["system", "tools"]
    assert sinks["tools"][0]["label"] == "tools= of client.messages.create"


def test_flows_across_modules():
    found = check_module("pkg/agent.py", AGENT, None, project_summaries=_summaries())
    assert [(d.code, d.line) for d in found] == [("CL101", 8), ("CL105", 10), ("CL101", 11)]
    assert found[0].message.startswith(
        "tools built from set() (made in pkg.registry.tool_names(), line 5) (unordered) reach tools= of client.messages.create in pkg.llm.ask (line 7), called at line 10"
    )


def test_without_summaries_the_same_module_is_quiet():
    assert check_module("pkg/agent.py", AGENT, None) == []


def test_relative_imports_resolve_against_the_file():
    found = check_module("src/pkg/agent.py", RELATIVE, None, project_summaries=_summaries())
    assert [(d.code, d.line) for d in found] == [("CL101", 6)]


def test_configured_wrapper_is_a_sink(tmp_path):
    source = """\
from myapp.llm import ask


def run(question, names):
    return ask(question, tools=[{"name": n} for n in set(names)], system="Base.")
"""
    write_tree(tmp_path, {"agent.py": source})
    assert check_tree(tmp_path).diagnostics == []
    config = {"code": {"sinks": [{"call": "myapp.llm.ask", "tools": "tools", "system": ["system", 2]}]}}
    result = check_tree(tmp_path, config=config)
    (d,) = result.diagnostics
    assert d.code == "CL101" and "tools= of ask" in d.message


def test_configured_positional_sink_and_star_pattern(tmp_path):
    source = """\
import time


def run(bot, question):
    return bot.llm.chat(f"now {time.time()}", question)
"""
    write_tree(tmp_path, {"agent.py": source})
    config = {"code": {"sinks": [{"call": "*.llm.chat", "system": 0}]}}
    (d,) = check_tree(tmp_path, config=config).diagnostics
    assert d.code == "CL105" and "argument 1 of bot.llm.chat" in d.message


def test_extra_pack_of_sinks(tmp_path):
    pack = """\
kind: code-sinks
description: our gateway client
as_of: "2026-11-29"
sources: [internal]
sinks:
  - library: gateway
    calls: [gateway.Client.send, "*.gateway.send"]
    arguments:
      - {keyword: tool_specs, tier: tools}
"""
    source = """\
def run(app, names):
    return app.gateway.send(tool_specs=[{"name": n} for n in {"a", "b"}])
"""
    write_tree(tmp_path, {"packs/gateway.yaml": pack, "agent.py": source})
    (d,) = check_tree(tmp_path, config={"packs": ["packs/gateway.yaml"]}).diagnostics
    assert d.code == "CL101" and "tool_specs= of app.gateway.send" in d.message


def test_invalid_code_options_are_rejected(tmp_path):
    import pytest

    from cachelint.config import ConfigError

    with pytest.raises(ConfigError):
        load_settings(tmp_path, isolated=True, overrides={"code": {"sinks": [{"call": "x.y"}]}})
    with pytest.raises(ConfigError):
        load_settings(tmp_path, isolated=True, overrides={"code": {"unknown-option": 1}})


SKILLS_LOADER = """\
from pathlib import Path


class SkillsLoader:
    def __init__(self, root: Path, disabled=None):
        self.root = root
        self.disabled = set(disabled or ())

    def _entries(self):
        return [p.name for p in self.root.iterdir() if p.name not in self.disabled]

    def always_on(self):
        return [name for name in self._entries() if name.startswith("core-")]

    def summary(self):
        return "\\n".join(sorted(self._entries()))

    def label(self, text):
        return text.upper()
"""

CONTEXT = """\
from pkg.skills import SkillsLoader


class ContextBuilder:
    def __init__(self, root):
        self.skills = SkillsLoader(root, disabled={"legacy"})

    def system_prompt(self):
        parts = ["You are the agent."]
        parts.append(self.skills.summary())
        parts.extend(self.skills.always_on())
        parts.append(self.skills.label(", ".join({"a", "b"})))
        return "\\n\\n".join(parts)

    def build_messages(self, history):
        return [{"role": "system", "content": self.system_prompt()}, *history]
"""


def test_methods_of_imported_classes_and_message_lists():
    summaries = {"pkg.skills": summarize_module("pkg/skills.py", SKILLS_LOADER)}
    methods = summaries["pkg.skills"]["classes"]["SkillsLoader"]["methods"]
    assert "always_on" in methods and "summary" not in methods
    found = check_module("pkg/context.py", CONTEXT, None, project_summaries=summaries)
    assert [(d.code, d.line) for d in found] == [("CL102", 11), ("CL102", 12)]
    assert "made in pkg.skills.SkillsLoader.always_on()" in found[0].message
    assert found[1].message.startswith("system text built from a set (unordered)")  # label() passes it through
    assert "the system message that starts the message list" in found[0].message


def test_configured_volatile_names(tmp_path):
    source = """\
import anthropic

client = anthropic.Anthropic()


def ask(messages, tenant_token):
    return client.messages.create(model="m", max_tokens=1, system=f"Tenant {tenant_token}.", messages=messages)
"""
    write_tree(tmp_path, {"agent.py": source})
    assert check_tree(tmp_path).diagnostics == []
    (d,) = check_tree(tmp_path, config={"code": {"volatile-names": ["tenant_?token"]}}).diagnostics
    assert d.code == "CL105" and d.message.startswith("tenant_token (a per-request value) reaches system=")


def test_uses_replayed_through_nested_calls_do_not_multiply(tmp_path):
    """Each call of a function replays the places its sinks read into the caller; kept as a list
    with every repeat, they multiplied with each level of calls in loops (crewAI's 2,242-line
    bedrock/completion.py ran past any timeout). 14 levels of 4 calls: 4**14 repeats before."""
    from tests.conftest import check_tree, write_tree

    levels = [
        "import anthropic",
        "client = anthropic.Anthropic()",
        "",
        "class Agent:",
        "    system = 'You are terse.'",
        "",
        "    def level0(self):",
        "        return client.messages.create(model='m', max_tokens=1, system=self.system, messages=[])",
    ]
    for k in range(1, 15):
        levels += ["", f"    def level{k}(self):", "        for _ in range(2):"]
        levels += [f"            self.level{k - 1}()"] * 4
    write_tree(tmp_path, {"agent.py": "\n".join(levels) + "\n"})
    result = check_tree(tmp_path, config={"select": ["CL1"], "analysis-timeout": 20})
    assert [d for d in result.diagnostics] == []


def test_crewai_sinks(tmp_path):
    """crewAI: Agent(role, goal, backstory, tools) and LLM.call(messages, tools=...) render the
    prefix; a ``.call(`` without those keywords is not a sink (subprocess.call)."""
    from tests.conftest import check_tree, write_tree

    write_tree(
        tmp_path,
        {
            "crew.py": """import subprocess
from crewai import LLM, Agent

placeholders = {"topic", "audience", "tone"}
fields = [{"name": p, "description": p} for p in placeholders]
researcher = Agent(role="Researcher", goal=f"Cover {', '.join(placeholders)}", backstory="Curious.", tools=[])
llm = LLM(model="gpt-4o")
llm.call(messages=[{"role": "user", "content": "hi"}], tools=[{"type": "function", "function": {"name": "run", "parameters": {"properties": {f["name"]: {} for f in fields}}}}])
subprocess.call(list({"ls", "-l"}))
"""
        },
    )
    result = check_tree(tmp_path, config={"select": ["CL1"]})
    found = sorted((d.code, d.line, d.message.split(" reach")[1]) for d in result.diagnostics)  # at the set
    assert found == [("CL101", 4, " tools= of llm.call at line 8"), ("CL102", 4, "es goal= of Agent at line 6")]


def test_strands_agno_and_adk_agents_are_sinks(tmp_path):
    """Agent constructors of strands-agents, agno and google-adk render tools and the system
    prompt: a set reaching them is reported at the set."""
    from tests.conftest import check_tree, write_tree

    write_tree(
        tmp_path,
        {
            "strands_agent.py": "from strands import Agent\nnames = {'a', 'b'}\nagent = Agent(tools=[lookup(n) for n in names], system_prompt='Be terse.')\n",
            "agno_agent.py": "from agno.agent import Agent\nrules = {'cite sources', 'be terse'}\nagent = Agent(instructions=list(rules))\n",
            "adk_agent.py": "from google.adk.agents import LlmAgent\nskills = {'pdf', 'docx'}\nagent = LlmAgent(name='a', model='gemini-2.5-flash', instruction='Skills: ' + ', '.join(skills))\n",
            "fine.py": "from strands import Agent\nagent = Agent(tools=sorted({'a', 'b'}), system_prompt='Be terse.')\n",
        },
    )
    result = check_tree(tmp_path, config={"select": ["CL1"]})
    found = sorted((d.path, d.code, d.line) for d in result.diagnostics)
    assert found == [("adk_agent.py", "CL102", 2), ("agno_agent.py", "CL102", 2), ("strands_agent.py", "CL101", 2)], [
        d.message for d in result.diagnostics
    ]


COUNTER_TREE = {
    "app/__init__.py": "",
    "app/repo.py": """BASE = "Write a commit message."


class GitRepo:
    def commit(self, fnames=None, coder=None):
        language = coder.get_user_language() if coder else None
        return self.get_commit_message(fnames, language)

    def get_commit_message(self, diffs, language):
        messages = [dict(role="system", content=BASE + (language or "")), dict(role="user", content=diffs)]
        return send(messages)
""",
    "app/coder.py": """from app.repo import GitRepo


class Coder:
    def __init__(self):
        self.repo = GitRepo()
        self.num_reflections = 0

    def run(self, message):
        while message:
            self.repo.commit(fnames=[message], coder=self)
            self.num_reflections += 1
            message = self.reflected_message
""",
}


def test_a_counter_of_an_object_read_whole_in_another_module_is_no_prompt_change(tmp_path):
    """aider's pattern: the loop counts its reflections on ``self`` and passes ``self`` to a
    commit helper whose prompt reads one method's result of it. Nothing says the count is in the
    prompt: no CL104. The same counter read by the prompt itself is (test_cl104)."""
    write_tree(tmp_path, COUNTER_TREE)
    assert check_tree(tmp_path).diagnostics == []
    changed = dict(COUNTER_TREE)
    changed["app/coder.py"] = COUNTER_TREE["app/coder.py"].replace(
        "self.num_reflections += 1", "self.num_reflections.append(message)"
    )
    write_tree(tmp_path, changed)
    assert [d.code for d in check_tree(tmp_path).diagnostics] == ["CL104"]  # any other change still is


def test_an_empty_set_from_another_module_is_unordered_only_once_filled():
    """``set()`` returned by another module's function is empty (no finding) until the caller
    puts something in it; an empty ``frozenset()`` never has an order (deer-flow's
    ``DeferredToolSetup(None, frozenset(), None)``)."""
    registry = """\
def no_names():
    return set()


def no_tools():
    return frozenset()
"""
    agent = """\
import anthropic

from pkg.registry import no_names, no_tools

client = anthropic.Anthropic()


def ask(messages, wanted):
    empty = [{"name": n} for n in no_names()] + list(no_tools())
    client.messages.create(model="m", max_tokens=10, tools=empty, messages=messages)
    names = no_names()
    names.update(wanted)
    return client.messages.create(model="m", max_tokens=10, tools=[{"name": n} for n in names], messages=messages)
"""
    summaries = {"pkg.registry": summarize_module("pkg/registry.py", registry)}
    assert summaries["pkg.registry"]["functions"]["no_names"]["returns"]["own"][0]["empty"] is True
    assert "no_tools" not in summaries["pkg.registry"]["functions"]
    found = check_module("pkg/agent.py", agent, None, project_summaries=summaries)
    assert [(d.code, d.line) for d in found] == [("CL101", 11)], [d.message for d in found]
    assert found[0].message.startswith("tools built from set() (made in pkg.registry.no_names(), line 2)")


SETUP = """\
from dataclasses import dataclass


@dataclass(frozen=True)
class Setup:
    extra_tool: object
    names: frozenset


def build_setup(tools):
    return Setup({"name": "extra"}, frozenset(t["name"] for t in tools))


def assemble(tools):
    setup = build_setup(tools)
    final = list(tools)
    final.append(setup.extra_tool)
    return final, setup
"""

SETUP_USER = """\
from langchain.agents import create_agent

from pkg.setup import assemble, build_setup


def build(model, tools):
    final, setup = assemble(tools)
    create_agent(model=model, tools=final)
    one = build_setup(tools)
    create_agent(model=model, tools=[*tools, one.extra_tool])
    create_agent(model=model, tools=list(one.names))
    return create_agent(model=model, tools=list(setup.names))
"""


def test_items_of_a_tuple_and_fields_of_a_dataclass_from_another_module_stay_apart():
    """deer-flow's ``final_tools, deferred_setup = assemble_deferred_tools(...)``: the tools item
    does not carry the frozenset of names that the setup item holds, in another module as in
    the same one; nor does the tool field of a setup built there by position."""
    summaries = {"pkg.setup": summarize_module("pkg/setup.py", SETUP)}
    functions = summaries["pkg.setup"]["functions"]
    assert len(functions["assemble"]["tuple_returns"]) == 2 and sorted(functions["build_setup"]["field_returns"]) == [
        "extra_tool",
        "names",
    ]
    found = check_module("pkg/agent.py", SETUP_USER, None, project_summaries=summaries)
    assert [(d.code, d.line) for d in found] == [("CL101", 7), ("CL101", 9)], [d.message for d in found]
    assert found[0].message.endswith(
        "(made in pkg.setup.assemble(), line 11) (unordered) reach tools= of create_agent at line 12"
    )
    assert found[1].message.endswith(
        "(made in pkg.setup.build_setup(), line 11) (unordered) reach tools= of create_agent at line 11"
    )
    # the same code in one module: one finding, at the frozenset (line 11)
    one_module = SETUP + "\n\n" + SETUP_USER.replace("from pkg.setup import assemble, build_setup\n", "")
    assert [(d.code, d.line) for d in check_module("agent.py", one_module, None)] == [("CL101", 11)]


def test_deepagents_claude_sdk_agentscope_camel_and_agent_framework_agents_are_sinks(tmp_path):
    """Agent constructors of deepagents, claude-agent-sdk, agentscope, camel and Microsoft's
    agent-framework render tools and the system prompt (found on real repositories, round 6).
    A class of the same generic name imported from elsewhere (``ChatAgent``, ``Agent``) is not."""
    from tests.conftest import check_tree, write_tree

    write_tree(
        tmp_path,
        {
            "deep.py": "from deepagents import create_deep_agent\nnames = {'ls', 'grep'}\nagent = create_deep_agent(tools=[lookup(n) for n in names], system_prompt='Be terse.')\n",
            "claude_sdk.py": "import time\nfrom claude_agent_sdk import ClaudeAgentOptions\noptions = ClaudeAgentOptions(system_prompt=f'Now: {time.time()}', allowed_tools=list({'Read', 'Bash'}))\n",
            "scope.py": "from agentscope.agent import ReActAgent\nrules = {'cite', 'be terse'}\nagent = ReActAgent('Friday', ' '.join(rules), model=None, formatter=None)\n",
            "scope2.py": "import uuid\nfrom agentscope.agent import Agent\nagent = Agent(name='a', system_prompt=f'Session {uuid.uuid4()}', model=None)\n",
            "camel_agent.py": "from camel.agents import ChatAgent\nskills = {'pdf', 'docx'}\nagent = ChatAgent('Skills: ' + ', '.join(skills), tools=[lookup(s) for s in skills])\n",
            "maf.py": "from agent_framework import ChatAgent\ntools = {'search', 'fetch'}\nagent = ChatAgent(client, tools=list(tools), instructions='Be terse.')\n",
            "lookalikes.py": (
                "import time\nfrom mylib.agents import ChatAgent, ReActAgent\nfrom crew import Agent\n"
                "names = {'a', 'b'}\n"
                "ChatAgent(' '.join(names), tools=list(names))\n"
                "ReActAgent('x', f'{time.time()}')\n"
                "Agent(name='a', system_prompt=' '.join(names), instructions=' '.join(names))\n"
            ),
        },
    )
    result = check_tree(tmp_path, config={"select": ["CL1"]})
    found = sorted((d.path, d.code, d.line) for d in result.diagnostics)
    assert found == [
        ("camel_agent.py", "CL101", 2),
        ("camel_agent.py", "CL102", 2),
        ("claude_sdk.py", "CL105", 3),
        ("deep.py", "CL101", 2),
        ("maf.py", "CL101", 2),
        ("scope.py", "CL102", 2),
        ("scope2.py", "CL105", 3),
    ], [d.message for d in result.diagnostics]


def test_a_function_given_as_the_tools_is_a_tool_not_a_producer_of_tools(tmp_path):
    """agent-framework's samples pass one function as the tools (``tools=get_weather``): its
    random result is a tool result, not part of the tool definitions (28 false CL105 in its
    samples). A function given as the instructions is called for every request: still reported."""
    from tests.conftest import check_tree, write_tree

    write_tree(
        tmp_path,
        {
            "weather.py": """from datetime import datetime
from random import randint

from agent_framework import Agent


def get_weather(location: str) -> str:
    return f"The weather in {location} is {randint(10, 30)} degrees."


def instructions() -> str:
    return f"You are a weather agent. It is {datetime.now()}."


agent = Agent(client, instructions="You are a weather agent.", tools=get_weather)
timed = Agent(client, instructions=instructions, tools=[get_weather])
"""
        },
    )
    result = check_tree(tmp_path, config={"select": ["CL1"]})
    assert [(d.code, d.line) for d in result.diagnostics] == [("CL105", 12)], [d.message for d in result.diagnostics]


def test_a_user_id_formatted_in_another_module_is_no_per_user_prompt(tmp_path):
    """OpenHands: a user id formatted into a file name inside another module's function, whose
    result (the events read from that file) is carried out coarsely into a system message: no
    evidence of a per-user prompt. Formatted into the prompt in the module itself, it is one."""
    store = "def read_events(user_id):\n    return open(f'/data/{user_id}/events.json').read()\n"
    agent = (
        "import anthropic\nfrom store import read_events\n\nclient = anthropic.Anthropic()\n\n"
        "def remember(user_id):\n"
        "    events = read_events(user_id)\n"
        "    return client.messages.create(model='m', max_tokens=10, system=f'Events: {events}', messages=[])\n"
    )
    write_tree(tmp_path, {"store.py": store, "agent.py": agent})
    assert [d.code for d in check_tree(tmp_path).diagnostics] == []
    write_tree(tmp_path, {"agent.py": agent.replace("f'Events: {events}'", "f'Events of {user_id}: {events}'")})
    (found,) = check_tree(tmp_path).diagnostics
    assert (found.code, found.severity) == ("CL105", Severity.INFO) and "per-user or per-session" in found.message
