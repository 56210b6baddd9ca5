"""CL101 unordered-tools: positives (reported at the construction site) and look-alikes."""

from __future__ import annotations

import pytest

from rule_cases import check_negative, check_positive, params

POSITIVE = {
    "set-display-comprehension": """
def ask(messages):
    names = {"search", "fetch"}  # here
    return client.messages.create(model="m", max_tokens=10, tools=[TOOLS[n] for n in names], messages=messages)
""",
    "set-call-loop-append": """
def ask(messages, wanted):
    tools = []
    for name in set(wanted):  # here
        tools.append(TOOLS[name])
    return client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
""",
    "listdir": """
def load(folder):
    return [json.loads(Path(folder, f).read_text()) for f in os.listdir(folder)]  # here

def ask(messages):
    return client.messages.create(model="m", max_tokens=10, tools=load("tools"), messages=messages)
""",
    "glob-glob": """
def ask(messages):
    tools = [json.load(open(p)) for p in glob.glob("tools/*.json")]  # here
    return client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
""",
    "path-glob": """
def ask(messages):
    specs = Path("tools").glob("*.json")  # here
    tools = [json.loads(p.read_text()) for p in specs]
    return client.beta.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
""",
    "entry-points": """
from importlib.metadata import entry_points

def ask(messages):
    tools = [ep.load()() for ep in entry_points(group="agent.tools")]  # here
    return client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
""",
    "as-completed": """
def ask(messages, loaders):
    tools = []
    with ThreadPoolExecutor() as pool:
        futures = [pool.submit(f) for f in loaders]
        for fut in as_completed(futures):  # here
            tools.append(fut.result())
    return client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
""",
    "dict-built-from-set-values": """
def ask(messages, enabled):
    by_name = {n: TOOLS[n] for n in frozenset(enabled)}  # here
    return client.messages.create(model="m", max_tokens=10, tools=list(by_name.values()), messages=messages)
""",
    "set-algebra-on-keys": """
def ask(messages, disabled):
    names = TOOLS.keys() - disabled  # here
    return client.messages.create(model="m", max_tokens=10, tools=[TOOLS[n] for n in names], messages=messages)
""",
    "annotated-parameter": """
def ask(messages, names: set[str]):  # here
    return client.messages.create(model="m", max_tokens=10, tools=[TOOLS[n] for n in names], messages=messages)
""",
    "function-return": """
def tool_names():
    return {"search", "write"}  # here

def ask(messages):
    return client.messages.create(model="m", max_tokens=10, tools=[TOOLS[n] for n in tool_names()], messages=messages)
""",
    "instance-attribute": """
class Agent:
    def __init__(self, names):
        self.names = set(names)  # here

    def ask(self, messages):
        return client.messages.create(model="m", max_tokens=10, tools=[TOOLS[n] for n in self.names], messages=messages)
""",
    "openai-chat": """
def ask(messages, cfg):
    enabled = set(cfg["tools"])  # here
    tools = [{"type": "function", "function": TOOLS[n]} for n in enabled]
    return oai.chat.completions.create(model="gpt-5", tools=tools, messages=messages)
""",
    "litellm": """
def ask(messages, cfg):
    return litellm.completion(model="m", messages=messages, tools=[TOOLS[n] for n in frozenset(cfg)])  # here
""",
    "langchain-bind-tools": """
def build(llm, names):
    chosen = {n for n in names if n in TOOLS}  # here
    return llm.bind_tools([TOOLS[n] for n in chosen])
""",
    "openai-agents": """
from agents import Agent

def build(functions):
    return Agent(name="a", tools=list(set(functions)))  # here
""",
    "pydantic-ai": """
from pydantic_ai import Agent

def build(functions):
    unique = set(functions)  # here
    return Agent("openai:gpt-5", tools=[*unique])
""",
    "pydantic-ai-capabilities-in-glob-order": """
from pydantic_ai import Agent
from pydantic_ai.capabilities import Capability

def build():
    return Agent("openai:gpt-5", capabilities=[Capability(id=p.stem, description=p.read_text()) for p in Path("skills").glob("*.md")])  # here
""",
    "pydantic-ai-toolsets-from-a-set": """
from pydantic_ai import Agent

def build(servers):
    return Agent("openai:gpt-5", toolsets=list({s for s in servers}))  # here
""",
    "httpx-json-body": """
def ask(messages):
    tools = [TOOLS[n] for n in {"search", "fetch"}]  # here
    return httpx.post("https://api.anthropic.com/v1/messages", json={"model": "m", "tools": tools, "messages": messages})
""",
    "requests-body-variable": """
def ask(messages):
    body = {"model": "m", "messages": messages}
    body["tools"] = [json.load(open(f)) for f in os.listdir("tools")]  # here
    return requests.post("https://api.openai.com/v1/chat/completions", json=body)
""",
    "kwargs-dict": """
def ask(messages, names):
    params = {"model": "m", "max_tokens": 10, "tools": [TOOLS[n] for n in set(names)], "messages": messages}  # here
    return client.messages.create(**params)
""",
    "os-walk": """
def ask(messages):
    tools = []
    for root, _dirs, files in os.walk("tools"):  # here
        for f in files:
            tools.append(json.load(open(os.path.join(root, f))))
    return client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
""",
    "asyncio-wait": """
async def ask(messages, loaders):
    done, _pending = await asyncio.wait([asyncio.create_task(f()) for f in loaders])  # here
    tools = [t.result() for t in done]
    return await client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
""",
    "set-union-of-groups": """
GROUPS = {"billing": ["search"], "stock": ["fetch"]}

def ask(messages, a, b):
    names = set(GROUPS[a]) | set(GROUPS[b])  # here
    return client.messages.create(model="m", max_tokens=10, tools=[TOOLS[n] for n in names], messages=messages)
""",
    "wrapper-in-module": """
def call_model(tools, messages):
    return client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)

def ask(messages):
    return call_model([TOOLS[n] for n in {"search", "fetch"}], messages)  # here
""",
    "dataclass-field-annotation": """
from dataclasses import dataclass, field

@dataclass
class Config:
    tools: frozenset = frozenset()  # here

    def ask(self, messages):
        return client.messages.create(model="m", max_tokens=10, tools=[TOOLS[n] for n in self.tools], messages=messages)
""",
    "dataclass-built-by-position": """
from dataclasses import dataclass

@dataclass(frozen=True)
class Setup:
    extra_tool: dict
    names: frozenset

def build():
    return Setup({"name": "extra"}, frozenset({"search", "fetch"}))  # here

def ask(messages):
    setup = build()
    return client.messages.create(model="m", max_tokens=10, tools=[TOOLS[n] for n in setup.names], messages=messages)
""",
    "namedtuple-built-by-position": """
from typing import NamedTuple

class Setup(NamedTuple):
    extra_tool: dict
    names: list

def ask(messages, wanted):
    setup = Setup({"name": "extra"}, list(set(wanted)))  # here
    return client.messages.create(model="m", max_tokens=10, tools=[TOOLS[n] for n in setup.names], messages=messages)
""",
    "dataclass-with-its-own-init-stays-coarse": """
from dataclasses import dataclass

@dataclass
class Setup:
    extra_tool: dict
    names: frozenset

    def __init__(self, names, extra_tool):
        self.names = names
        self.extra_tool = extra_tool

def ask(messages):
    setup = Setup(frozenset({"search", "fetch"}), {"name": "extra"})  # here
    return client.messages.create(model="m", max_tokens=10, tools=[setup.extra_tool], messages=messages)
""",
    "dataclass-with-an-unknown-base-stays-coarse": """
from dataclasses import dataclass
from elsewhere import BaseSetup

@dataclass
class Setup(BaseSetup):
    extra_tool: dict

def ask(messages):
    setup = Setup(frozenset({"search", "fetch"}), {"name": "extra"})  # here
    return client.messages.create(model="m", max_tokens=10, tools=[setup.extra_tool], messages=messages)
""",
    "empty-set-filled-by-add": """
def ask(messages, wanted):
    found = set()  # here
    for name in wanted:
        found.add(name)
    return client.messages.create(model="m", max_tokens=10, tools=[TOOLS[n] for n in found], messages=messages)
""",
    "empty-set-filled-by-update": """
def ask(messages, wanted):
    names = set()  # here
    names.update(wanted)
    return client.messages.create(model="m", max_tokens=10, tools=[TOOLS[n] for n in names], messages=messages)
""",
    "empty-set-filled-by-or-assign": """
def ask(messages, extra):
    names = set()  # here
    names |= extra.keys()
    return client.messages.create(model="m", max_tokens=10, tools=[TOOLS[n] for n in names], messages=messages)
""",
    "empty-set-filled-in-a-dict": """
def ask(messages, wanted):
    groups = {}
    for name in wanted:
        groups.setdefault(name[0], set()).add(name)  # here
    return client.messages.create(model="m", max_tokens=10, tools=[TOOLS[n] for g in groups.values() for n in g], messages=messages)
""",
    "empty-set-filled-in-a-dict-comprehension": """
def ask(messages, wanted):
    by_letter = {letter: set() for letter in "sfw"}  # here
    for name in wanted:
        by_letter[name[0]].add(name)
    return client.messages.create(model="m", max_tokens=10, tools=[TOOLS[n] for n in by_letter["s"]], messages=messages)
""",
    "set-under-a-dict-key-added-to": """
def ask(messages, wanted):
    cfg = {"names": set(wanted), "model": "m"}  # here
    cfg["names"].add("search")
    return client.messages.create(model="m", max_tokens=10, tools=[TOOLS[n] for n in cfg["names"]], messages=messages)
""",
    "empty-set-under-a-dict-key-filled": """
def ask(messages, wanted):
    cfg = {"names": set(), "model": "m"}  # here
    for name in wanted:
        cfg["names"].add(name)
    return client.messages.create(model="m", max_tokens=10, tools=[TOOLS[n] for n in cfg["names"]], messages=messages)
""",
    "empty-set-filled-by-a-function": """
def ask(messages, registry):
    found = set()  # here
    registry.collect_into(found)
    return client.messages.create(model="m", max_tokens=10, tools=[TOOLS[n] for n in found], messages=messages)
""",
}

NEGATIVE = {
    "pydantic-ai-capabilities-in-sorted-glob-order": """
from pydantic_ai import Agent
from pydantic_ai.capabilities import Capability

def build():
    return Agent("openai:gpt-5", capabilities=[Capability(id=p.stem) for p in sorted(Path("skills").glob("*.md"))])
""",
    "one-argument-insert-is-a-database-call": """
def ask(db, requested, messages):
    db.insert([{"tool_id": i} for i in set(requested)])
    row = db.load(BASE)
    return client.messages.create(model="m", max_tokens=10, tools=row.tools, messages=messages)
""",
    "sorted-set": """
def ask(messages, wanted):
    return client.messages.create(model="m", max_tokens=10, tools=[TOOLS[n] for n in sorted(set(wanted))], messages=messages)
""",
    "sort-before-use": """
def ask(messages, wanted):
    names = list(set(wanted))
    names.sort()
    return client.messages.create(model="m", max_tokens=10, tools=[TOOLS[n] for n in names], messages=messages)
""",
    "list-literal": """
SEARCH = {"name": "search"}
FETCH = {"name": "fetch"}

def ask(messages):
    return client.messages.create(model="m", max_tokens=10, tools=[SEARCH, FETCH], messages=messages)
""",
    "dict-literal-values": """
def ask(messages):
    return client.messages.create(model="m", max_tokens=10, tools=list(TOOLS.values()), messages=messages)
""",
    "set-for-membership": """
def ask(messages, disabled):
    blocked = set(disabled) | {"write"}
    tools = [t for name, t in TOOLS.items() if name not in blocked]
    return client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
""",
    "set-for-len-and-logging": """
import logging

def ask(messages, wanted):
    unique = set(wanted)
    logging.info("asked for %d tools: %s", len(unique), unique)
    return client.messages.create(model="m", max_tokens=10, tools=[TOOLS["search"]], messages=messages)
""",
    "asyncio-gather": """
async def ask(messages, loaders):
    tools = list(await asyncio.gather(*(f() for f in loaders)))
    return await client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
""",
    "sorted-listdir": """
def ask(messages):
    tools = [json.load(open(f)) for f in sorted(os.listdir("tools"))]
    return client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
""",
    "sorted-path-glob": """
def ask(messages):
    tools = [json.loads(p.read_text()) for p in sorted(Path("tools").glob("*.json"))]
    return client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
""",
    "function-returns-sorted": """
def tool_names():
    return sorted({"search", "write"})

def ask(messages):
    return client.messages.create(model="m", max_tokens=10, tools=[TOOLS[n] for n in tool_names()], messages=messages)
""",
    "sorted-by-name-at-call": """
def ask(messages, loaders):
    tools = []
    for fut in as_completed([ThreadPoolExecutor().submit(f) for f in loaders]):
        tools.append(fut.result())
    return client.messages.create(model="m", max_tokens=10, tools=sorted(tools, key=lambda t: t["name"]), messages=messages)
""",
    "dict-comprehension-over-list": """
TOOL_LIST = [{"name": "search"}, {"name": "fetch"}]

def ask(messages):
    by_name = {t["name"]: t for t in TOOL_LIST}
    return client.messages.create(model="m", max_tokens=10, tools=list(by_name.values()), messages=messages)
""",
    "set-iterated-but-not-sent": """
def ask(messages, wanted):
    for name in set(wanted):
        print(name)
    return client.messages.create(model="m", max_tokens=10, tools=[TOOLS["search"]], messages=messages)
""",
    "set-in-user-message-only": """
def ask(messages, wanted):
    note = ", ".join(set(wanted))
    return client.messages.create(model="m", max_tokens=10, tools=[TOOLS["fetch"]], messages=messages + [{"role": "user", "content": note}])
""",
    "order-free-reductions": """
def ask(messages, wanted):
    s = set(wanted)
    limit = max(len(s), 1)
    has_write = any(n == "write" for n in s)
    tools = [TOOLS["search"]] * limit if has_write else []
    return client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
""",
    "tuple-return-keeps-items-apart": """
def split(wanted):
    tools = [TOOLS[n] for n in wanted]
    seen = set(wanted)
    return tools, seen

def ask(messages, wanted):
    tools, seen = split(wanted)
    assert "search" in seen
    return client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
""",
    "shadowed-set-name": """
def set(items):
    return list(items)

def ask(messages, wanted):
    return client.messages.create(model="m", max_tokens=10, tools=[TOOLS[n] for n in set(wanted)], messages=messages)
""",
    "set-algebra-on-dicts": """
EXTRA = {"write": {"name": "write"}}

def ask(messages):
    merged = TOOLS | EXTRA
    return client.messages.create(model="m", max_tokens=10, tools=list(merged.values()), messages=messages)
""",
    "dataclass-built-by-position-other-field": """
from dataclasses import dataclass

@dataclass(frozen=True)
class Setup:
    extra_tool: dict
    names: frozenset

def build():
    return Setup({"name": "extra"}, frozenset({"search", "fetch"}))

def ask(messages):
    setup = build()
    return client.messages.create(model="m", max_tokens=10, tools=[TOOLS["search"], setup.extra_tool], messages=messages)
""",
    "dataclass-returned-empty-by-position-or-filled-by-keyword": """
from dataclasses import dataclass

@dataclass(frozen=True)
class Setup:
    extra_tool: dict | None
    names: frozenset

def build(enabled, wanted):
    if not enabled:
        return Setup(None, frozenset())
    return Setup(extra_tool={"name": "extra"}, names=frozenset(wanted))

def ask(messages, wanted):
    setup = build(True, wanted)
    return client.messages.create(model="m", max_tokens=10, tools=[TOOLS["search"], setup.extra_tool], messages=messages)
""",
    "namedtuple-built-by-position-other-field": """
import typing

class Setup(typing.NamedTuple):
    extra_tool: dict
    names: frozenset = frozenset()

def ask(messages, wanted):
    setup = Setup({"name": "extra"}, frozenset(wanted))
    return client.messages.create(model="m", max_tokens=10, tools=[setup.extra_tool], messages=messages)
""",
    "dataclass-subclass-built-by-position": """
from dataclasses import KW_ONLY, dataclass, field
from typing import ClassVar

@dataclass
class Base:
    names: frozenset
    label: ClassVar[str] = "setup"
    cache: dict = field(init=False, default_factory=dict)

@dataclass
class Setup(Base):
    extra_tool: dict
    _: KW_ONLY
    debug: bool = False

def ask(messages, wanted):
    setup = Setup(frozenset(wanted), {"name": "extra"}, debug=True)
    return client.messages.create(model="m", max_tokens=10, tools=[setup.extra_tool], messages=messages)
""",
    "empty-frozenset": """
def ask(messages, wanted):
    disabled = frozenset()
    final = [TOOLS[n] for n in wanted if n not in disabled] + list(frozenset())
    return client.messages.create(model="m", max_tokens=10, tools=final, messages=messages)
""",
    "empty-set-under-a-dict-key-never-filled": """
def ask(messages, wanted):
    cfg = {"names": set(), "tools": [TOOLS["search"]]}
    cfg["tools"].append(TOOLS["fetch"])
    return client.messages.create(model="m", max_tokens=10, tools=cfg["tools"] + [TOOLS[n] for n in cfg["names"]], messages=messages)
""",
    "empty-set-never-filled": """
def ask(messages, wanted):
    extra = set()
    tools = [TOOLS[n] for n in wanted] + [TOOLS[n] for n in extra] + list(set([]))
    return client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
""",
}


@pytest.mark.parametrize("source", params(POSITIVE))
def test_reported(source):
    check_positive("CL101", source)


@pytest.mark.parametrize("source", params(NEGATIVE))
def test_quiet(source):
    check_negative("CL101", source)


def test_counts():
    assert len(POSITIVE) >= 15 and len(NEGATIVE) >= 15


def test_message_names_the_sink():
    from codecheck_helpers import run

    (d,) = run("""
def ask(messages):
    names = {"search", "fetch"}
    return client.messages.create(model="m", max_tokens=10, tools=[TOOLS[n] for n in names], messages=messages)
""")
    assert d.message == "tools built from a set (unordered) reach tools= of client.messages.create at line 26"
    assert (d.line, d.column, d.end_line, d.end_column) == (25, 13, 25, 32)
