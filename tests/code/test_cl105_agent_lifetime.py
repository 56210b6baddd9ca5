"""CL105: a clock or id given to an agent (or bound model, or configuration) that the function
building it keeps for more than one use is fixed for every request that object makes: the
requests of one agent share it, each agent built writes it again (information). Built in a loop,
used once and dropped, or given as a callable the SDK calls per request, it is per request."""

from __future__ import annotations

import pytest

from codecheck_helpers import marked_lines, run
from cachelint.diagnostics import Severity
from rule_cases import params

_STRANDS = "from strands import Agent\n"

PER_AGENT = {
    "called-twice": """
def test_cache_write_then_read():
    unique = str(uuid.uuid4())  # here
    agent = Agent(system_prompt=f"Background for {unique}: " + BASE * 200)
    agent("What is 2+2?")
    agent("And 3+3?")
""",
    "returned-by-a-factory": """
def make_agent():
    return Agent(system_prompt=f"Started at {time.time()}. {BASE}")  # here
""",
    "bound-then-returned": """
def make_agent(tools):
    started = datetime.now().isoformat()  # here
    agent = Agent(system_prompt=f"Session started {started}. {BASE}", tools=tools)
    return agent
""",
    "stored-on-the-instance": """
class Assistant:
    def __init__(self):
        self.agent = Agent(system_prompt=f"Run {uuid.uuid4()}. {BASE}")  # here
""",
    "used-in-a-loop-after-it-is-built": """
def chat(lines):
    agent = Agent(system_prompt=f"Now {time.time()}. {BASE}")  # here
    for line in lines:
        print(agent(line))
""",
    "read-by-a-handler-the-function-defines": """
def serve(app):
    agent = Agent(system_prompt=f"Boot {uuid.uuid4().hex}. {BASE}")  # here

    @app.post("/chat")
    def chat(message: str):
        return str(agent(message))
    return app
""",
    "awaited-twice": """
async def main(a, b):
    agent = Agent(system_prompt=f"Now {time.time()}")  # here
    await agent.invoke_async(a)
    await agent.invoke_async(b)
""",
    "given-twice-to-a-runner": """
async def main(runner, first, second):
    agent = Agent(system_prompt=f"Now {time.time()}. {BASE}")  # here
    await runner.run(agent, first)
    await runner.run(agent, second)
""",
    "bound-by-a-with-statement-and-called-twice": """
def main(a, b):
    with Agent(system_prompt=f"Now {time.time()}") as agent:  # here
        agent(a)
        agent(b)
""",
}

PER_REQUEST = {
    "given-once-to-a-runner": """
async def handle(message, runner):
    agent = Agent(system_prompt=f"Now {time.time()}. {BASE}")  # here
    return await runner.run(agent, message)
""",
    "built-used-once-and-dropped": """
def handle(message):
    agent = Agent(system_prompt=f"Now {time.time()}. {BASE}")  # here
    return str(agent(message))
""",
    "built-in-the-loop-that-uses-it": """
def answer_all(questions):
    for q in questions:
        agent = Agent(system_prompt=f"Now {time.time()}. {BASE}")  # here
        agent(q)
        agent("Anything else?")
""",
    "given-as-an-argument-of-a-call": """
def handle(message, runner):
    return runner.run(Agent(system_prompt=f"Id {uuid.uuid4()}. {BASE}"), message)  # here
""",
    "bound-by-a-with-statement-and-called-once": """
def handle(message):
    with Agent(system_prompt=f"Now {time.time()}") as agent:  # here
        return str(agent(message))
""",
    "rebound-to-another-agent": """
def handle(message):
    agent = Agent(system_prompt=f"Now {time.time()}. {BASE}")  # here
    agent(message)
    agent = Agent(system_prompt=BASE)
    agent(message)
""",
}


def _cl105(source: str) -> list:
    return [d for d in run(_STRANDS + source) if d.code == "CL105"]


def _expected(source: str) -> list[int]:
    return [line + 1 for line in marked_lines(source)]


@pytest.mark.parametrize("source", params(PER_AGENT))
def test_a_value_an_agent_is_built_with_and_kept_is_per_agent(source: str) -> None:
    found = _cl105(source)
    assert [d.line for d in found] == _expected(source), [f"{d.line} {d.message}" for d in found]
    for d in found:
        assert d.severity == Severity.INFO, d.message
        assert "every object built writes it again" in d.message, d.message
        assert "changes on every request" not in d.message


@pytest.mark.parametrize("source", params(PER_REQUEST))
def test_an_agent_built_again_for_each_use_is_per_request(source: str) -> None:
    found = _cl105(source)
    assert [d.line for d in found] == _expected(source), [f"{d.line} {d.message}" for d in found]
    for d in found:
        assert d.severity != Severity.INFO, d.message
        assert "changes on every request" in d.message, d.message


def test_a_callable_the_sdk_calls_per_request_stays_per_request() -> None:
    source = """
def make_agent():
    agent = Agent(system_prompt=lambda: f"Now {time.time()}. {BASE}")  # here
    return agent
"""
    found = _cl105(source)
    assert [d.line for d in found] == _expected(source), [f"{d.line} {d.message}" for d in found]
    assert found[0].severity != Severity.INFO


def test_a_date_in_a_kept_agent_still_changes_every_day() -> None:
    source = """
def make_agent():
    return Agent(system_prompt=f"Today is {date.today()}. {BASE}")  # here
"""
    found = _cl105(source)
    assert [d.line for d in found] == _expected(source)
    assert found[0].severity == Severity.WARNING
    assert "every day" in found[0].message


_FACTORY_MODULES = {
    "pkg/__init__.py": "",
    "pkg/agents.py": (
        "from strands import Agent\n\n\n"
        "def make_agent(note):\n"
        '    agent = Agent(system_prompt=f"You are careful. {note}")\n'
        "    return agent\n\n\n"
        "def answer(note, question):\n"
        '    return str(Agent(system_prompt=f"You are careful. {note}")(question))\n'
    ),
    "pkg/app.py": (
        "import uuid\n\nfrom pkg.agents import answer, make_agent\n\n\n"
        "def build():\n"
        '    return make_agent(f"run {uuid.uuid4()}")\n\n\n'
        "def reply(question):\n"
        '    return answer(f"run {uuid.uuid4()}", question)\n'
    ),
}


@pytest.mark.usefixtures("frozen_code_stamp")
def test_the_agent_s_life_is_read_through_another_module(tmp_path) -> None:
    """A factory of another module that keeps the agent it builds (returns it) makes a value
    passed to it per agent; one that builds, uses once and drops makes it per request. The same
    cold, warm and when only the caller is checked."""
    from conftest import check_with_cache, write_tree

    write_tree(tmp_path, _FACTORY_MODULES)
    for options in ({"no_cache": True}, {}, {}, {"paths": ("pkg/app.py",), "no_cache": True}):
        result = check_with_cache(tmp_path, **options)
        found = {
            (d.line, d.severity == Severity.INFO)
            for d in result.diagnostics
            if d.code == "CL105" and d.path.endswith("app.py")
        }
        assert found == {(7, True), (11, False)}, [d.message for d in result.diagnostics]


REBOUND_NAMES = {
    "the-first-agent-used-once-then-the-name-rebound": (
        """
def handle(message):
    agent = Agent(system_prompt=f"Now {time.time()}. {BASE}")  # here
    agent(message)
    agent = Agent(system_prompt=BASE)
    agent(message)
    agent(message)
""",
        False,
    ),
    "a-parameter-rebound-to-the-agent-that-a-handler-reads": (
        """
def make(model, tools):
    if isinstance(model, str):
        model = load(model)
    model = Agent(model=model, tools=tools, system_prompt=f"Boot {uuid.uuid4()}. {BASE}")  # here

    def call(state):
        return model(state)
    return call
""",
        True,
    ),
    "rebound-inside-a-loop-after-it-is-built": (
        """
def chat(lines):
    agent = Agent(system_prompt=f"Now {time.time()}. {BASE}")  # here
    for line in lines:
        agent(line)
        agent = Agent(system_prompt=BASE)
""",
        False,
    ),
}


@pytest.mark.parametrize("source,kept", [pytest.param(*v, id=k) for k, v in REBOUND_NAMES.items()])
def test_a_name_bound_again_is_followed_up_to_its_next_binding(source: str, kept: bool) -> None:
    found = _cl105(source)
    assert [d.line for d in found] == _expected(source), [f"{d.line} {d.message}" for d in found]
    assert (found[0].severity == Severity.INFO) is kept, found[0].message
