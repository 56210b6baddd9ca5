"""CL103/CL104/CL106 count only values that differ between two requests of one conversation: a
value written on a branch that continues with the next iteration, or after the call, is written
over at the top of the next iteration before any call reads it; a ``match`` on a subject the loop
does not change runs the same case on every pass, and one ending in ``case _:`` always runs a case."""

from __future__ import annotations

import pytest

from rule_cases import check_negative, check_positive, params

QUIET = {
    "continue-branch-overwritten-at-the-top": """
def run(messages, tools, budget):
    while True:
        tool_choice = {"type": "auto"}
        if budget.spent():
            tool_choice = {"type": "none"}
            continue
        reply = client.messages.create(model="m", max_tokens=10, tools=tools, tool_choice=tool_choice, messages=messages)
        messages.append(reply)
""",
    "set-after-the-call-and-reset-before-the-next": """
def run(messages, tools):
    while True:
        tool_choice = {"type": "auto"}
        reply = client.messages.create(model="m", max_tokens=10, tools=tools, tool_choice=tool_choice, messages=messages)
        tool_choice = {"type": "any"}
        messages.append(reply)
""",
    "match-on-a-subject-the-loop-keeps": """
def run(messages, tools, kind):
    while True:
        match kind:
            case "strict":
                choice = {"type": "any"}
            case _:
                choice = {"type": "auto"}
        reply = client.messages.create(model="m", max_tokens=10, tools=tools, tool_choice=choice, messages=messages)
        messages.append(reply)
""",
    "system-reset-then-continue": """
def run(messages, skills, state):
    while True:
        system = BASE
        if state.loading:
            system = BASE + skills[state.loading]
            continue
        reply = client.messages.create(model="m", max_tokens=10, system=system, messages=messages)
        messages.append(reply)
""",
}

REPORTED = {
    "set-under-a-condition-before-the-call": """
def run(messages, tools, budget):
    tool_choice = {"type": "auto"}
    while True:
        if budget.spent():
            tool_choice = {"type": "none"}  # here
        reply = client.messages.create(model="m", max_tokens=10, tools=tools, tool_choice=tool_choice, messages=messages)
        messages.append(reply)
""",
    "continue-branch-without-a-reset": """
def run(messages, tools, budget):
    tool_choice = {"type": "auto"}
    while True:
        if budget.spent():
            tool_choice = {"type": "none"}  # here
            continue
        reply = client.messages.create(model="m", max_tokens=10, tools=tools, tool_choice=tool_choice, messages=messages)
        messages.append(reply)
""",
    "match-on-the-reply": """
def run(messages, tools):
    choice = {"type": "auto"}
    while True:
        reply = client.messages.create(model="m", max_tokens=10, tools=tools, tool_choice=choice, messages=messages)
        match reply.stop_reason:
            case "max_tokens":
                choice = {"type": "none"}  # here
            case _:
                pass
        messages.append(reply)
""",
}


@pytest.mark.parametrize("source", params(QUIET))
def test_a_value_no_call_reads_is_no_change(source: str) -> None:
    check_negative("CL106", source, only_this_code=True)
    check_negative("CL104", source, only_this_code=True)


@pytest.mark.parametrize("source", params(REPORTED))
def test_a_value_the_next_call_reads_is_a_change(source: str) -> None:
    check_positive("CL106", source)
