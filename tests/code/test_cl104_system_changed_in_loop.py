"""CL104 system-changed-in-loop: the system prompt of a call repeated in a loop changes inside it."""

from __future__ import annotations

import pytest

from rule_cases import check_negative, check_positive, params

POSITIVE = {
    "augmented": """
def run(messages, notes):
    system = BASE
    while True:
        client.messages.create(model="m", max_tokens=10, system=system, messages=messages)
        system += notes()  # here
""",
    "seed-replace-on-skill-load": """
class State:
    system = ""

def run(messages, skills):
    state = State()
    state.system = BASE
    while True:
        reply = client.messages.create(model="m", max_tokens=10, system=state.system, messages=messages)
        for call in reply.content:
            if call.name == "load_skill":
                state.system = BASE + skills[call.input["name"]]  # here
""",
    "parts-joined": """
def run(messages, more):
    parts = [BASE]
    while True:
        client.messages.create(model="m", max_tokens=10, system="\\n".join(parts), messages=messages)
        parts.append(more())  # here
""",
    "system-per-question-of-a-scripted-conversation": """
def run(questions):
    messages = []
    for question in questions:
        system = f"{BASE} Now answering: {question}"  # here
        messages.append({"role": "user", "content": question})
        reply = client.messages.create(model="m", max_tokens=10, system=system, messages=messages)
        messages.append({"role": "assistant", "content": reply.content})
""",
    "system-rebuilt-from-a-list-the-loop-grows": """
def run(messages):
    artifacts = []
    while True:
        system = BASE + "Artifacts: " + json.dumps(artifacts)  # here
        reply = client.messages.create(model="m", max_tokens=10, system=system, messages=messages)
        artifacts.append(reply.content[-1].input["name"])
""",
    "system-joined-from-parts-the-loop-grows": """
def run(messages, base):
    parts = [base]
    while True:
        system = "\\n".join(parts)  # here
        reply = client.messages.create(model="m", max_tokens=10, system=system, messages=messages)
        parts.append(reply.content[-1].text)
""",
    "instructions-rebound-from-turn": """
def run(question):
    for turn in range(3):
        instructions = f"{BASE} This is turn {turn}."  # here
        oai.responses.create(model="gpt-5", instructions=instructions, input=question)
""",
    "self-attribute": """
class Agent:
    def __init__(self):
        self.system_prompt = BASE

    def run(self, messages):
        while True:
            reply = client.messages.create(model="m", max_tokens=10, system=self.system_prompt, messages=messages)
            self.system_prompt = self.system_prompt + reply.content[0].text  # here
""",
    "replace-method": """
def run(messages, mode):
    system = BASE + " MODE"
    while True:
        client.messages.create(model="m", max_tokens=10, system=system, messages=messages)
        system = system.replace("MODE", mode())  # here
""",
    "system-blocks-appended": """
def run(messages, reminder):
    system = [{"type": "text", "text": BASE}]
    while True:
        client.messages.create(model="m", max_tokens=10, system=system, messages=messages)
        system.append({"type": "text", "text": reminder()})  # here
""",
    "rebind-from-reply": """
def run(messages):
    system = BASE
    while True:
        reply = client.messages.create(model="m", max_tokens=10, system=system, messages=messages)
        summary = reply.content[0].text
        system = BASE + summary  # here
""",
    "wrapper": """
def ask(system, messages):
    return client.messages.create(model="m", max_tokens=10, system=system, messages=messages)

def run(messages, facts):
    system = BASE
    for fact in facts:
        ask(system, messages)
        system += fact  # here
""",
    "dict-of-sections": """
def run(messages, updates):
    sections = {"intro": BASE}
    while True:
        client.messages.create(model="m", max_tokens=10, system="\\n".join(sections.values()), messages=messages)
        sections["memory"] = updates()  # here
""",
    "raw-body-system": """
def run(messages, more):
    system = BASE
    while True:
        requests.post("https://api.anthropic.com/v1/messages", json={"model": "m", "system": system, "messages": messages})
        system += more()  # here
""",
    "litellm-system": """
def run(messages, facts):
    system = BASE
    while facts:
        litellm.completion(model="m", messages=messages, system=system)
        system = system + facts.pop()  # here
""",
    "conditional-section": """
def run(messages, flags):
    system = BASE
    while True:
        reply = client.messages.create(model="m", max_tokens=10, system=system, messages=messages)
        if flags(reply):
            system += " Be brief."  # here
""",
    "nested-loop": """
def run(conversations):
    system = BASE
    for messages in conversations:
        for attempt in range(3):
            client.messages.create(model="m", max_tokens=10, system=system, messages=messages)
        system += " Again."  # here
""",
    "extend-parts": """
def run(messages, more):
    parts = [BASE]
    for _ in range(4):
        client.messages.create(model="m", max_tokens=10, system=" ".join(parts), messages=messages)
        parts.extend(more())  # here
""",
    "self-attribute-through-method": """
class Agent:
    def __init__(self):
        self.instructions = [BASE]

    def step(self, question):
        return oai.responses.create(model="gpt-5", instructions="\\n".join(self.instructions), input=question)

    def run(self, question, hints):
        while True:
            self.step(question)
            self.instructions.append(hints())  # here
""",
    "dict-pop-by-key-is-not-a-queue": """
def run(messages, overrides):
    system = BASE
    while True:
        client.messages.create(model="m", max_tokens=10, system=system, messages=messages)
        system = overrides.pop("next") + system  # here
""",
    "counter-read-by-the-prompt": """
class Agent:
    def run(self, messages):
        self.step = 0
        while True:
            client.messages.create(model="m", max_tokens=10, system=f"{BASE} Step {self.step}.", messages=messages)
            self.step += 1  # here
""",
    "outer-target-grown-in-an-inner-loop": """
def generate(paths, suffixes, messages):
    for path in paths:
        for suffix in suffixes:
            path = path + suffix  # here
            client.messages.create(model="m", max_tokens=10, system=f"Write {path}.", messages=messages)
""",
}

NEGATIVE = {
    "system-per-item-of-a-batch": """
def summarize_all(titles):
    out = []
    for title in titles:
        system = f"Summarize the document titled {title!r}."
        out.append(client.messages.create(model="m", max_tokens=200, system=system, messages=[{"role": "user", "content": "go"}]))
    return out
""",
    "system-per-item-attribute-of-a-batch": """
def summarize_all(docs):
    out = []
    for i, doc in enumerate(docs):
        system = f"Summarize document {i}, titled {doc.title!r}, in one line."
        out.append(client.messages.create(model="m", max_tokens=200, system=system, messages=[{"role": "user", "content": doc.text}]))
    return out
""",
    "built-once-before-loop": """
def run(messages, notes):
    system = BASE + notes
    while True:
        reply = client.messages.create(model="m", max_tokens=10, system=system, messages=messages)
        messages.append(reply)
""",
    "skill-appended-as-message": """
def run(messages, skills):
    while True:
        reply = client.messages.create(model="m", max_tokens=10, system=BASE, messages=messages)
        for call in reply.content:
            if call.name == "load_skill":
                messages.append({"role": "user", "content": skills[call.input["name"]]})
""",
    "system-message-appended-at-end": """
def run(messages, reminder):
    while True:
        client.messages.create(model="m", max_tokens=10, system=BASE, messages=messages)
        messages.append({"role": "system", "content": reminder()})
""",
    "rebound-to-constant": """
def run(messages):
    while True:
        system = BASE
        client.messages.create(model="m", max_tokens=10, system=system, messages=messages)
""",
    "rebound-from-invariant": """
def load_prompt():
    return open("prompt.md").read()

def run(messages):
    while True:
        system = load_prompt()
        client.messages.create(model="m", max_tokens=10, system=system, messages=messages)
""",
    "printed-only": """
def run(messages, more):
    system = BASE
    while True:
        client.messages.create(model="m", max_tokens=10, system=system, messages=messages)
        print(system + more())
""",
    "different-variable": """
def run(messages, more):
    system = BASE
    log = ""
    while True:
        client.messages.create(model="m", max_tokens=10, system=system, messages=messages)
        log += more()
""",
    "change-after-loop": """
def run(messages):
    system = BASE
    for _ in range(3):
        client.messages.create(model="m", max_tokens=10, system=system, messages=messages)
    system += " done"
""",
    "parts-built-before": """
def run(messages, extra):
    parts = [BASE]
    parts.extend(extra)
    while True:
        client.messages.create(model="m", max_tokens=10, system="\\n".join(parts), messages=messages)
        messages.append("x")
""",
    "agent-per-task": """
from pydantic_ai import Agent

def run(tasks):
    for task in tasks:
        agent = Agent("openai:gpt-5", instructions=f"Solve: {task.kind}")
        agent.run_sync(task.text)
""",
    "loop-without-call": """
def run(messages, notes):
    system = BASE
    for n in notes:
        system += n
    return client.messages.create(model="m", max_tokens=10, system=system, messages=messages)
""",
    "per-turn-text-in-user-message": """
def run(messages):
    for turn in range(3):
        note = f"Turn {turn}"
        client.messages.create(model="m", max_tokens=10, system=BASE, messages=messages + [{"role": "user", "content": note}])
""",
    "local-copy-in-loop": """
def run(messages, extra):
    while True:
        system = BASE
        client.messages.create(model="m", max_tokens=10, system=system, messages=messages)
        messages.append(extra)
""",
    "tools-mutated-not-system": """
def run(messages, more):
    tools = []
    while True:
        client.messages.create(model="m", max_tokens=10, system=BASE, tools=tools, messages=messages)
        tools.append({**more(), "defer_loading": True})
""",
    "reply-text-appended": """
def run(messages):
    system = BASE
    while True:
        reply = client.messages.create(model="m", max_tokens=10, system=system, messages=messages)
        messages.append({"role": "assistant", "content": reply.content[0].text})
""",
    "work-queue-item-per-request": """
def summarize_all(pending):
    out = []
    while pending:
        item = pending.pop(0)
        if len(item) > 10_000:
            pending = [item[:5_000], item[5_000:]] + pending  # split: the halves come next
            continue
        out.append(client.messages.create(model="m", max_tokens=10, system=item, messages=[{"role": "user", "content": "Summarize."}]))
    return out
""",
    "count-tokens-is-no-request": """
def fits(items, limit):
    for item in items:
        draft = BASE
        while client.messages.count_tokens(model="m", system=draft, messages=[]).input_tokens < limit:
            draft += item
""",
    "loop-target-rebound-from-itself": """
def generate(paths, root):
    for path in paths:
        path = f"{root}/{path}"  # still this item's path: one request per file
        client.messages.create(model="m", max_tokens=10, system=f"Write the file {path}.", messages=[])
""",
}


@pytest.mark.parametrize("source", params(POSITIVE))
def test_reported(source):
    check_positive("CL104", source)


@pytest.mark.parametrize("source", params(NEGATIVE))
def test_quiet(source):
    check_negative("CL104", source)


def test_counts():
    assert len(POSITIVE) >= 15 and len(NEGATIVE) >= 15
