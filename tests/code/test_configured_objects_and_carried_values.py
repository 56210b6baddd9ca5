"""CL104 on agents and configurations built once and changed in the loop that uses them
(``agent.instructions = ...``), and on values rebuilt, through other names, from their own value
of the iteration before (``result = run(history)``; ``history = result.messages``)."""

from __future__ import annotations

import pytest

from rule_cases import check_negative, check_positive, params

HEADER = """
from google import genai
from google.genai import types
from pydantic_ai import Agent
from agents import Agent as SdkAgent, Runner

gemini = genai.Client()
"""

REPORTED = {
    "instructions-of-an-agent-built-before-the-loop-rewritten-in-it": HEADER
    + """
def chat(task):
    agent = Agent("openai:gpt-5", instructions=BASE)
    history = []
    while True:
        result = agent.run_sync(task, message_history=history)
        history = result.all_messages()
        agent.instructions = BASE + " Last answer: " + result.output  # here
""",
    "system-instruction-of-a-config-built-before-the-loop-rewritten-in-it": HEADER
    + """
def chat(contents):
    config = types.GenerateContentConfig(system_instruction=BASE)
    while True:
        reply = gemini.models.generate_content(model="gemini-3", contents=contents, config=config)
        contents.append(reply.candidates[0].content)
        config.system_instruction = BASE + reply.text  # here
""",
    "instructions-of-an-agent-given-to-a-runner-rewritten-in-the-loop": HEADER
    + """
def chat(task):
    agent = SdkAgent(name="helper", instructions=BASE)
    items = [{"role": "user", "content": task}]
    while True:
        result = Runner.run_sync(agent, items)
        items = result.to_input_list()
        agent.instructions = f"{BASE} Turn summary: {result.final_output}"  # here
""",
    "system-from-a-result-that-reads-the-history-of-the-turn-before": """
def run(task, step):
    history = [{"role": "user", "content": task}]
    while True:
        outcome = step(history)
        history = outcome.messages
        system = BASE + outcome.summary  # here
        client.messages.create(model="m", max_tokens=10, system=system, messages=history)
""",
}

QUIET = {
    "instructions-of-the-agent-set-to-a-fixed-value": HEADER
    + """
def chat(task):
    agent = Agent("openai:gpt-5", instructions=BASE)
    history = []
    while True:
        result = agent.run_sync(task, message_history=history)
        history = result.all_messages()
        agent.instructions = BASE
""",
    "another-attribute-of-the-agent-rewritten": HEADER
    + """
def chat(task):
    agent = Agent("openai:gpt-5", instructions=BASE)
    history = []
    while True:
        result = agent.run_sync(task, message_history=history)
        history = result.all_messages()
        agent.name = result.output
""",
    "an-agent-built-in-each-iteration": HEADER
    + """
def chat(tasks):
    for task in tasks:
        agent = SdkAgent(name="helper", instructions=BASE + task)
        Runner.run_sync(agent, task)
""",
    "instructions-rewritten-after-the-last-use-of-the-agent": HEADER
    + """
def chat(task, notes):
    agent = Agent("openai:gpt-5", instructions=BASE)
    while True:
        agent.run_sync(task)
        agent.instructions = BASE + notes.pop()
        break
""",
    "names-rebuilt-from-each-other-within-one-iteration": """
def run(messages, more):
    while True:
        head = BASE
        full = head + " Stay brief."
        head = full
        reply = client.messages.create(model="m", max_tokens=10, system=head, messages=messages)
        messages.append({"role": "assistant", "content": reply.content})
""",
}


@pytest.mark.parametrize("source", params(REPORTED))
def test_reported(source):
    check_positive("CL104", source)


@pytest.mark.parametrize("source", params(QUIET))
def test_quiet(source):
    check_negative("CL104", source)
