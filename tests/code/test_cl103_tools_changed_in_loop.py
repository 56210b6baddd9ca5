"""CL103 tools-changed-in-loop: the tools of a call repeated in a loop change inside the loop."""

from __future__ import annotations

import pytest

from rule_cases import check_negative, check_positive, params

POSITIVE = {
    "append-in-while": """
def run(messages):
    tools = [TOOLS["search"]]
    while True:
        reply = client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
        if reply.stop_reason == "end_turn":
            return reply
        tools.append(TOOLS["fetch"])  # here
""",
    "seed-load-skill": """
def run(messages, skills):
    tools = [TOOLS["search"]]
    for _ in range(8):
        reply = client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
        for call in reply.content:
            if call.name == "load_skill":
                skill = skills[call.input["name"]]
                tools += skill.tools  # here
""",
    "seed-request-group": """
class Groups:
    def tools_for(self, names):
        return [TOOLS[n] for n in names]

GROUPS = Groups()

def run(messages, first):
    tools = GROUPS.tools_for(first)
    while messages:
        reply = client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
        for call in reply.content:
            if call.name == "request_group":
                tools += GROUPS.tools_for([call.input["group"]])  # here
""",
    "extend-in-range-loop": """
def run(messages, extra):
    tools = []
    for turn in range(5):
        reply = oai.chat.completions.create(model="gpt-5", tools=tools, messages=messages)
        tools.extend(extra[turn])  # here
""",
    "insert-at-front": """
def run(messages, pending):
    tools = [TOOLS["search"]]
    while pending:
        client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
        tools.insert(0, pending.pop())  # here
""",
    "item-assignment": """
def run(messages, descriptions):
    tools = [dict(TOOLS["search"])]
    for d in descriptions:
        client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
        tools[0]["description"] = d  # here
""",
    "delete-item": """
def run(messages):
    tools = list(TOOLS.values())
    while len(tools) > 1:
        client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
        del tools[-1]  # here
""",
    "rebind-self-reference": """
def run(messages, found):
    tools = [TOOLS["search"]]
    while True:
        reply = client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
        tools = tools + [found(reply)]  # here
""",
    "rebind-from-loop-state": """
def run(messages):
    active = {"search"}
    tools = [TOOLS["search"]]
    while True:
        reply = client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
        active = active | {reply.content[0].name}
        tools = [TOOLS[n] for n in sorted(active)]  # here
""",
    "self-attribute-through-method": """
class Agent:
    def __init__(self):
        self.tools = [TOOLS["search"]]

    def step(self, messages):
        return client.messages.create(model="m", max_tokens=10, tools=self.tools, messages=messages)

    def run(self, messages):
        while True:
            reply = self.step(messages)
            if reply.stop_reason == "end_turn":
                return reply
            self.tools.append(TOOLS["write"])  # here
""",
    "wrapper-function-parameter": """
def call_model(tools, messages):
    return client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)

def run(messages):
    tools = [TOOLS["search"]]
    for _ in range(3):
        call_model(tools, messages)
        tools.append(TOOLS["fetch"])  # here
""",
    "remove-tool": """
def run(messages):
    tools = list(TOOLS.values())
    while tools:
        client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
        tools.remove(tools[0])  # here
""",
    "litellm-in-loop": """
def run(messages, more):
    tools = []
    while True:
        litellm.completion(model="m", messages=messages, tools=tools)
        tools += more()  # here
""",
    "tool-dict-values": """
def run(messages, new_tools):
    registry = {}
    while True:
        client.messages.create(model="m", max_tokens=10, tools=list(registry.values()), messages=messages)
        for t in new_tools():
            registry[t["name"]] = t  # here
""",
    "bind-tools-with-mutation": """
def run(llm, messages, more):
    tools = [TOOLS["search"]]
    while True:
        bound = llm.bind_tools(tools)
        reply = bound.invoke(messages)
        tools.append(more(reply))  # here
""",
    "raw-http-body": """
def run(messages, more):
    tools = []
    while True:
        httpx.post("https://api.anthropic.com/v1/messages", json={"model": "m", "tools": tools, "messages": messages})
        tools.append(more())  # here
""",
    "async-for-loop": """
async def run(messages, stream):
    tools = [TOOLS["search"]]
    async for event in stream:
        await client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
        tools.append(event.tool)  # here
""",
    "tools-dropped-on-the-last-step": """
def run(messages, max_steps):
    for step in range(max_steps):
        tools = [TOOLS["search"], TOOLS["fetch"]]
        if step == max_steps - 1:
            tools = []  # here
        reply = client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
        messages.append({"role": "assistant", "content": reply.content})
""",
    "tools-dropped-once-a-budget-is-spent": """
def run(messages, budget):
    spent = 0
    while True:
        offered = list(TOOLS.values())
        if spent >= budget:
            offered = None  # here
        reply = oai.chat.completions.create(model="m", messages=messages, tools=offered)
        messages.append(reply.choices[0].message)
        spent += reply.usage.total_tokens
""",
}

NEGATIVE = {
    "messages-appended": """
def run(messages):
    tools = [TOOLS["search"]]
    while True:
        reply = client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
        messages.append({"role": "assistant", "content": reply.content})
""",
    "tools-built-before-loop": """
def run(messages, extra):
    tools = [TOOLS["search"]]
    tools.extend(extra)
    tools.append(TOOLS["fetch"])
    while True:
        reply = client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
        messages.append(reply)
""",
    "deferred-tool-appended": """
def run(messages, found):
    tools = [TOOLS["search"]]
    while True:
        reply = client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
        tools.append({**found(reply), "defer_loading": True})
""",
    "deferred-tools-extended": """
def run(messages, found):
    tools = [TOOLS["search"]]
    while True:
        reply = client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
        tools.extend({**t, "defer_loading": True} for t in found(reply))
""",
    "deferred-variable": """
def run(messages, found):
    tools = [TOOLS["search"]]
    while True:
        reply = client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
        extra = {"name": found(reply), "defer_loading": True}
        tools += [extra]
""",
    "build-loop-separate": """
def run(messages, names):
    tools = []
    for n in names:
        tools.append(TOOLS[n])
    for _ in range(5):
        client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
""",
    "invariant-rebuild": """
def build_tools():
    return [TOOLS["search"]]

def run(messages):
    while True:
        tools = build_tools()
        reply = client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
        messages.append(reply)
""",
    "agent-per-scenario": """
from agents import Agent

def run(scenarios):
    for name, tool in scenarios:
        agent = Agent(name=name, tools=[tool])
        agent.run()
""",
    "other-list-mutated": """
def run(messages):
    tools = [TOOLS["search"]]
    seen = []
    while True:
        reply = client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
        seen.append(reply.id)
""",
    "mutation-after-loop": """
def run(messages):
    tools = [TOOLS["search"]]
    for _ in range(3):
        client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
    tools.append(TOOLS["fetch"])
""",
    "sort-in-loop": """
def run(messages):
    tools = [TOOLS["search"], TOOLS["fetch"]]
    while True:
        tools.sort(key=lambda t: t["name"])
        client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
""",
    "copy-used-mutated-original-before": """
def run(messages, extra):
    base = [TOOLS["search"]]
    base.append(extra)
    tools = list(base)
    while True:
        client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
        messages.append("x")
""",
    "rebind-same-constant": """
ALL = [TOOLS["search"]]

def run(messages):
    while True:
        tools = ALL
        client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
""",
    "loop-without-call": """
def run(messages, names):
    tools = []
    while names:
        tools.append(TOOLS[names.pop()])
    return client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
""",
    "tool-results-appended": """
def run(messages, execute):
    tools = [TOOLS["search"]]
    while True:
        reply = client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
        results = [execute(c) for c in reply.content]
        messages.append({"role": "user", "content": results})
""",
    "tools-chosen-by-a-condition-the-loop-does-not-change": """
def run(messages, read_only):
    while True:
        tools = list(TOOLS.values())
        if read_only:
            tools = [TOOLS["search"]]
        reply = client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
        messages.append({"role": "assistant", "content": reply.content})
""",
    "tools-chosen-per-item-of-a-batch": """
def classify(docs):
    out = []
    for doc in docs:
        tools = [TOOLS["search"]]
        if doc.offline:
            tools = []
        reply = client.messages.create(
            model="m", max_tokens=10, tools=tools, messages=[{"role": "user", "content": doc.text}]
        )
        out.append(reply)
    return out
""",
}


@pytest.mark.parametrize("source", params(POSITIVE))
def test_reported(source):
    check_positive("CL103", source)


@pytest.mark.parametrize("source", params(NEGATIVE))
def test_quiet(source):
    check_negative("CL103", source)


def test_counts():
    assert len(POSITIVE) >= 15 and len(NEGATIVE) >= 15
