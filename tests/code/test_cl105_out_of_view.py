"""CL105 where the call that sends the prompt is out of view, or the framework renders it: a value
bound to a name that says it is the system prompt, an ADK instruction filled from the state a
callback writes, an ADK instruction provider, the agent specs of create_deep_agent(subagents=...),
agno's description=, and the raw-response wrappers of the SDK calls."""

from __future__ import annotations

import pytest

from codecheck_helpers import run
from conftest import check_with_cache, write_tree
from cachelint.diagnostics import Severity
from rule_cases import check_negative, check_positive, params

EACH_BUILD = {
    "function-named-for-the-system-prompt": """
def build_system_prompt(task):
    return f"{BASE}\\nIt is {datetime.now().isoformat()} now. Task: {task}"  # here
""",
    "attribute-named-for-the-system-message": """
class Planner:
    def start(self):
        self.system_message = f"{BASE} run {uuid.uuid4()}"  # here
""",
    "extended-in-place": """
def compose(flags):
    system_message_content = BASE
    if flags:
        system_message_content += f"\\nThe time is {datetime.now()}"  # here
    return system_message_content
""",
    "extended-by-a-helper-call": """
def trailer(lines):
    return "\\n".join(lines)

def compose_system_prompt():
    notes = [f"The time is {datetime.now()}"]  # here
    system_prompt = BASE
    system_prompt += trailer(notes)
    return system_prompt
""",
    "keyword-of-a-project-class": """
class Worker:
    def __init__(self, system_prompt):
        self.prompt = system_prompt

def make():
    return Worker(system_prompt=f"{BASE} started {time.time()}")  # here
""",
    "dict-key-of-a-config": """
def config():
    return {"name": "helper", "system_prompt": f"{BASE} {datetime.now():%H:%M}"}  # here
""",
    "a-template-rendered-with-the-clock": """
def page_system_prompt(engine):
    system_prompt = engine.render("page", now=datetime.now().isoformat())  # here
    return system_prompt
""",
    "a-local-helper-formats-the-clock": """
def clock_line():
    return f"Time: {datetime.now():%Y-%m-%d %H:%M}"  # here

def judge_system_prompt():
    return BASE + clock_line()
""",
}

DAILY_BUILD = {
    "date-in-a-builder": """
def get_system_prompt():
    return f"{BASE} Today is {date.today()}."  # here
""",
    "date-by-strftime-in-a-variable": """
def prompt_for(agent):
    system_prompt = f"{agent} {datetime.now().strftime('%Y-%m-%d')}"  # here
    return system_prompt
""",
}

ONCE = {
    "module-constant": '''
REVIEWER_SYSTEM_PROMPT = f"""{BASE}
Today is {datetime.now():%Y-%m-%d}."""  # here
''',
    "module-constant-through-a-local-helper": """
def stamp():
    return datetime.now().isoformat()  # here

AGENT_SYSTEM_PROMPT_2 = f"{BASE} Time: {stamp()}"
""",
}

QUIET = {
    "a-flag-about-the-prompt": """
def refresh(state):
    has_system_prompt = time.time() > state.deadline
    return has_system_prompt
""",
    "a-timestamp-about-the-prompt": """
def save(prompt):
    system_prompt_updated_at = datetime.now()
    system_prompt_path = f"/tmp/prompt-{uuid.uuid4()}.txt"
    return system_prompt_updated_at, system_prompt_path
""",
    "a-per-user-name": """
def build_system_prompt(user_id):
    return f"{BASE} You are helping {user_id}."
""",
    "a-parameter-given-by-the-caller": """
def build_system_prompt(now):
    return f"{BASE} Time: {now}"
""",
    "the-clock-in-a-user-prompt": """
def build_user_prompt(question):
    return f"({datetime.now().isoformat()}) {question}"
""",
    "a-clock-carried-through-objects": """
def respond(hooks, prompt):
    event = {"prompt": prompt, "stamp": time.time()}
    result = hooks.fire(event)
    system_prompt = result.prompt
    return Worker(system_prompt=system_prompt, name="w")
""",
    "a-clock-beside-the-prompt-in-a-record": """
def log_entry(system_prompt):
    return {"system_prompt": system_prompt, "logged_at": time.time()}
""",
}


@pytest.mark.parametrize("source", params(EACH_BUILD))
def test_clock_in_a_named_system_prompt_is_an_error(source):
    check_positive("CL105", source)
    found = [d for d in run(source) if d.code == "CL105"]
    assert all(d.severity is None and "a system prompt, by its name" in d.message for d in found)
    assert all("differs each time it is built" in d.message for d in found)


@pytest.mark.parametrize("source", params(DAILY_BUILD))
def test_date_in_a_named_system_prompt_is_a_warning(source):
    check_positive("CL105", source)
    assert all(d.severity == Severity.WARNING for d in run(source) if d.code == "CL105")


@pytest.mark.parametrize("source", params(ONCE))
def test_named_system_prompt_bound_at_import_is_information(source):
    check_positive("CL105", source)
    found = [d for d in run(source) if d.code == "CL105"]
    assert all(d.severity == Severity.INFO and "computed once when the module loads" in d.message for d in found)


@pytest.mark.parametrize("source", params(QUIET))
def test_names_that_are_not_the_prompt_are_quiet(source):
    check_negative("CL105", source)


def test_a_sink_in_view_is_named_rather_than_the_prompt_name():
    source = """
def ask(messages):
    system_prompt = f"{BASE} {datetime.now()}"
    return client.messages.create(model="m", max_tokens=10, system=system_prompt, messages=messages)
"""
    found = [d for d in run(source) if d.code == "CL105"]
    assert len(found) == 1 and "system= of client.messages.create" in found[0].message, found


PROJECT = {
    "app/__init__.py": "",
    "app/clock.py": 'from datetime import datetime\n\n\ndef now_line():\n    return f"Now: {datetime.now()}"\n',
    "app/runs.py": (
        "import uuid\n\n\nclass Result:\n    def __init__(self, text, run_id):\n        self.text = text\n        self.run_id = run_id\n\n\n"
        "def run_model(prompt):\n    return Result(prompt.upper(), uuid.uuid4())\n"
    ),
    "app/prompts.py": (
        "from app.clock import now_line\nfrom app.runs import run_model\n\n"
        'PLANNER_SYSTEM_PROMPT = f"You plan.\\n{now_line()}"\n\n\n'
        "def summary_system_prompt(notes):\n    return run_model(notes)\n\n\n"
        'def judge_system_prompt():\n    return f"Judge.\\n{now_line()}"\n'
    ),
}


def test_text_from_another_module_in_a_named_prompt(tmp_path):
    """A function of another module that returns text (the clock formatted in it) called in the
    prompt's expression is followed at module level (once per process); another module's
    function returning an object (a model run with its id) is not: what it carries reaches the
    prompt only coarsely; nor is text from another module in a function, which may be that
    module's constant (once per process) or made on each call: how often is out of view."""
    write_tree(tmp_path, PROJECT)
    found = [
        (d.code, d.path.replace("\\", "/"), d.line, d.severity)
        for d in check_with_cache(tmp_path, no_cache=True).diagnostics
    ]
    assert found == [("CL105", "app/prompts.py", 4, Severity.INFO)], found


ADK_STATE = """
from google.adk import Agent


def stamp(callback_context):
    callback_context.state["now"] = datetime.now().isoformat()  # here


root_agent = Agent(
    model="gemini-flash",
    name="helper",
    instruction="You help. Current time: {now}",
    before_agent_callback=stamp,
)
"""


def test_adk_state_written_by_a_callback_into_the_instruction():
    check_positive("CL105", ADK_STATE)
    (d,) = [d for d in run(ADK_STATE) if d.code == "CL105"]
    assert "through {now}" in d.message and "every run of the agent (each user turn)" in d.message, d.message


def test_adk_state_written_before_each_model_call_changes_every_request():
    source = ADK_STATE.replace("before_agent_callback", "before_model_callback")
    check_positive("CL105", source)
    (d,) = [d for d in run(source) if d.code == "CL105"]
    assert "on every request" in d.message and d.severity is None, d.message


@pytest.mark.parametrize(
    "source",
    [
        pytest.param(
            ADK_STATE.replace("Current time: {now}", "Answer briefly.").replace("  # here", ""), id="no-placeholder"
        ),
        pytest.param(ADK_STATE.replace('state["now"]', 'state["started"]').replace("  # here", ""), id="another-key"),
        pytest.param(
            ADK_STATE.replace("datetime.now().isoformat()", '"morning"').replace("  # here", ""), id="a-fixed-value"
        ),
        pytest.param(
            ADK_STATE.replace("before_agent_callback", "after_agent_callback").replace("  # here", ""),
            id="after-the-run",
        ),
    ],
)
def test_adk_state_look_alikes_are_quiet(source):
    check_negative("CL105", source)


ADK_PROVIDER = """
from google.adk.agents.readonly_context import ReadonlyContext


def instructions_for(context: ReadonlyContext) -> str:
    return f"You help. Today is {datetime.now():%Y-%m-%d}."  # here
"""


def test_adk_instruction_provider_returns_the_instruction():
    check_positive("CL105", ADK_PROVIDER)
    assert all(d.severity == Severity.WARNING for d in run(ADK_PROVIDER) if d.code == "CL105")


@pytest.mark.parametrize(
    "source",
    [
        pytest.param(
            ADK_PROVIDER.replace(
                "ReadonlyContext\n\n\n",
                "ReadonlyContext\nfrom google.adk.agents.callback_context import CallbackContext\n\n\n",
            )
            .replace("context: ReadonlyContext", "context: CallbackContext")
            .replace("  # here", ""),
            id="a-callback-context",
        ),
        pytest.param(
            """
from google.adk.agents.readonly_context import ReadonlyContext


class Toolset:
    def get_tools(self, readonly_context: ReadonlyContext):
        return [f"tool-{uuid.uuid4()}"]
""",
            id="a-toolset-method",
        ),
    ],
)
def test_adk_provider_look_alikes_are_quiet(source):
    check_negative("CL105", source)


def test_deep_agent_subagent_spec_system_prompt():
    source = """
from deepagents import create_deep_agent

TODAY = datetime.now().strftime("%Y-%m-%d")  # here
researcher = {"name": "researcher", "description": "Looks things up.", "system_prompt": f"Research. Today is {TODAY}."}
agent = create_deep_agent(model="m", tools=[], system_prompt=BASE, subagents=[researcher])
"""
    check_positive("CL105", source)
    (d,) = [d for d in run(source) if d.code == "CL105"]
    assert (
        '"system_prompt" of an agent spec in subagents= of create_deep_agent' in d.message
        and d.severity == Severity.INFO
    )


def test_agno_description_is_system_prompt():
    source = """
from agno.agent import Agent


def make():
    return Agent(description=f"{BASE} Today: {date.today()}", instructions=["Be brief."])  # here
"""
    check_positive("CL105", source)


def test_raw_response_wrapper_is_the_same_call():
    source = """
def ask(messages):
    return client.beta.messages.with_raw_response.create(model="m", max_tokens=10, system=f"{BASE} {time.time()}", messages=messages)  # here
"""
    check_positive("CL105", source)
    (d,) = [d for d in run(source) if d.code == "CL105"]
    assert "system= of client.beta.messages.with_raw_response.create" in d.message and "every request" in d.message
