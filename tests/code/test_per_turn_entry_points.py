"""Functions a framework calls once per request with the conversation's state, declared in the
code-sinks pack (``per_turn``): an ADK InstructionProvider (its ReadonlyContext), a LangGraph node
(``add_node``), an AG2 system-message updater. What they build into a prefix from that state
changes from one request to the next (CL104), with no loop in view: the state read whole, the keys
that hold the conversation, and the keys the module writes. Other keys are the session's. A graph
node counts where its request carries the conversation on (a one-shot request per step loses no
conversation)."""

from __future__ import annotations

import pytest

from codecheck_helpers import run
from rule_cases import check_negative, check_positive, params

ADK = """
from google.adk.agents.readonly_context import ReadonlyContext
from google.adk.tools import ToolContext
"""

LANGGRAPH = """
from langgraph.graph import StateGraph
from langchain_core.messages import SystemMessage
"""

PER_TURN = {
    "adk-provider-formats-the-whole-state": ADK
    + """
def instruction_provider(context: ReadonlyContext) -> str:  # here
    return f"{BASE} Current dashboard state: {context.state}"
""",
    "adk-provider-reads-a-key-a-tool-writes": ADK
    + """
def pin(metric: str, tool_context: ToolContext):
    tool_context.state["pinned"] = metric

def instruction_provider(context: ReadonlyContext) -> str:  # here
    return f"{BASE} Pinned: {context.state.get('pinned')}"
""",
    "langgraph-node-formats-the-notes-it-returns": LANGGRAPH
    + """
def research(state, model):
    notes = "\\n".join(state["notes"])  # here
    reply = model.invoke([SystemMessage(content=f"{BASE} Notes so far: {notes}")] + state["messages"])
    return {"notes": [reply.content], "messages": [reply]}

builder = StateGraph(dict)
builder.add_node("research", research)
""",
    "ag2-updater-formats-the-context-variables": """
from autogen import UPDATE_SYSTEM_MESSAGE

def update_system_message(agent, messages):  # here
    prompt = BASE
    for key, value in agent._context_variables.items():
        prompt += f"\\n{key}: {value}"
    return prompt

state_update = UPDATE_SYSTEM_MESSAGE(update_system_message)
""",
}

SESSION = {
    "adk-provider-reads-a-key-nothing-writes": ADK
    + """
def instruction_provider(context: ReadonlyContext) -> str:
    return f"{BASE} The user is {context.state['user_name']}."
""",
    "langgraph-node-reads-a-key-no-node-writes": LANGGRAPH
    + """
def answer(state, model):
    return {"answer": model.invoke([SystemMessage(content=f"{BASE} Topic: {state['topic']}")])}

builder = StateGraph(dict)
builder.add_node("answer", answer)
""",
    "langgraph-node-making-a-one-shot-request": LANGGRAPH
    + """
def research(state, model):
    notes = "\\n".join(state["notes"])
    reply = model.invoke([SystemMessage(content=f"{BASE} Notes so far: {notes}")])
    return {"notes": [reply.content]}

builder = StateGraph(dict)
builder.add_node("research", research)
""",
    "a-function-not-registered-as-a-node": LANGGRAPH
    + """
def research(state, model):
    notes = "\\n".join(state["notes"])
    reply = model.invoke([SystemMessage(content=f"{BASE} Notes so far: {notes}")])
    return {"notes": [reply.content]}
""",
    "adk-provider-with-a-static-instruction": ADK
    + """
def instruction_provider(context: ReadonlyContext) -> str:
    return BASE
""",
}


@pytest.mark.parametrize("source", params(PER_TURN))
def test_a_prefix_a_per_turn_function_builds_from_its_state_is_reported(source: str) -> None:
    check_positive("CL104", source)


@pytest.mark.parametrize("source", params(SESSION))
def test_what_stays_for_the_session_is_quiet(source: str) -> None:
    check_negative("CL104", source, only_this_code=True)


def test_a_clock_in_an_ag2_updater_is_reported_once_per_request() -> None:
    source = """
from autogen import UPDATE_SYSTEM_MESSAGE

def update_system_message(agent, messages):
    return f"{BASE} It is {datetime.now()}."  # here

state_update = UPDATE_SYSTEM_MESSAGE(update_system_message)
"""
    check_positive("CL105", source)


def test_the_message_names_the_state_and_the_framework() -> None:
    found = [d for d in run(PER_TURN["adk-provider-formats-the-whole-state"]) if d.code == "CL104"]
    assert len(found) == 1
    assert "context" in found[0].message and "google-adk" in found[0].message
