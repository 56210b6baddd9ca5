"""CL104/CL103 with no loop in view: a request that carries a conversation on (its messages send a
list the function is given) whose system prompt or tools are built from that conversation, or from
this turn's input that the same request sends (what memory or retrieval found for it). The caller,
or the framework, makes one such request per turn. And the system message written over the first
message of a conversation the function is given: what is written reaches it (CL105 for a clock),
and built from the conversation itself it changes as the conversation grows (CL104)."""

from __future__ import annotations

import pytest

from codecheck_helpers import run
from rule_cases import check_negative, check_positive, params

REBUILT = {
    "memory-of-this-turn-in-system": """
class Bot:
    def __init__(self, memory):
        self.memory = memory
        self.history = []

    def chat(self, user_input):
        memories = self.memory.search(user_input)  # here
        system = f"{BASE}\\nWhat you remember:\\n{memories}"
        self.history.append({"role": "user", "content": user_input})
        return client.messages.create(model="m", max_tokens=10, system=system, messages=self.history)
""",
    "retrieved-documents-in-instructions": """
def answer(history, question, retriever):
    docs = retriever.invoke(question)  # here
    return oai.responses.create(model="gpt-5", instructions=f"{BASE} Use: {docs}", input=[*history, {"role": "user", "content": question}])
""",
    "count-of-the-conversation-in-the-first-message": """
def reply(history):
    return litellm.completion(model="m", messages=[{"role": "system", "content": f"{BASE} {len(history)} turns so far"}, *history])  # here
""",
    "graph-node-last-message-in-system": """
from langchain_core.messages import SystemMessage

def node(state, model):
    return model.invoke([SystemMessage(content=f"Summarize {state['messages'][-1].content}")] + state["messages"])  # here
""",
}

QUIET = {
    "static-system-with-history": """
class Bot:
    def __init__(self):
        self.history = []

    def chat(self, user_input):
        self.history.append({"role": "user", "content": user_input})
        return client.messages.create(model="m", max_tokens=10, system=BASE, messages=self.history)
""",
    "one-shot-request-with-retrieval": """
def answer(question, retriever):
    docs = retriever.invoke(question)
    return client.messages.create(model="m", max_tokens=10, system=f"Docs: {docs}", messages=[{"role": "user", "content": question}])
""",
    "system-given-by-the-caller": """
def ask(messages, system):
    return client.messages.create(model="m", max_tokens=10, system=system, messages=messages)
""",
    "system-from-another-part-of-the-state": """
def respond(state):
    return client.messages.create(model="m", max_tokens=10, system=state.system_prompt, messages=state.messages)
""",
    "system-built-by-a-method-of-self": """
class Bot:
    def __init__(self, persona):
        self.persona = persona
        self.history = []

    def system(self):
        return f"{BASE} as {self.persona}"

    def chat(self, user_input):
        self.history.append({"role": "user", "content": user_input})
        return client.messages.create(model="m", max_tokens=10, system=self.system(), messages=self.history)
""",
    "system-taken-out-of-the-messages-by-one-conversion": """
class Model:
    def convert(self, messages):
        return messages[0]["content"], messages[1:]

    def request(self, messages):
        system_prompt, provider_messages = self.convert(messages)
        return client.messages.create(model="m", max_tokens=10, system=system_prompt, messages=provider_messages)
""",
    "system-taken-out-of-the-messages-by-its-role": """
def request(messages):
    system = ""
    chat_messages = []
    for message in messages:
        if message["role"] == "system":
            system = message["content"]
        else:
            chat_messages.append(message)
    return client.messages.create(model="m", max_tokens=10, system=system, messages=chat_messages)
""",
    "system-found-by-role-and-the-rest-filtered": """
def request(messages):
    system = next(m["content"] for m in messages if m["role"] == "system")
    return client.messages.create(model="m", max_tokens=10, system=system, messages=[m for m in messages if m["role"] != "system"])
""",
    "system-message-given-with-the-history": """
def get_response(msg, system_message, msg_history):
    return oai.chat.completions.create(model="gpt-5", messages=[{"role": "system", "content": system_message}, *msg_history, {"role": "user", "content": msg}])
""",
    "task-fixed-for-the-loop": """
def run(task):
    messages = [{"role": "user", "content": task}]
    system = f"{BASE} Task: {task}"
    while True:
        reply = client.messages.create(model="m", max_tokens=10, system=system, messages=messages)
        if reply.stop_reason != "tool_use":
            return reply
        messages.append({"role": "assistant", "content": reply.content})
""",
}


@pytest.mark.parametrize("source", params(REBUILT))
def test_a_prefix_built_from_the_conversation_it_carries_on_is_reported(source: str) -> None:
    check_positive("CL104", source)


@pytest.mark.parametrize("source", params(QUIET))
def test_a_prefix_the_conversation_does_not_feed_is_quiet(source: str) -> None:
    check_negative("CL104", source, only_this_code=True)


def test_tools_built_from_the_conversation_are_cl103() -> None:
    source = """
def step(history, registry):
    wanted = [m["tool"] for m in history if m.get("tool")]  # here
    tools = [registry[name] for name in wanted]
    return client.messages.create(model="m", max_tokens=10, tools=tools, messages=history)
"""
    check_positive("CL103", source)


def test_the_message_names_the_value_where_it_is_read_and_the_call() -> None:
    found = [d for d in run(REBUILT["memory-of-this-turn-in-system"]) if d.code == "CL104"]
    assert len(found) == 1
    message = found[0].message
    assert "user_input" in message and "system= of client.messages.create at line" in message
    assert "every request" in message


REWRITTEN = """
def render(template, context):
    now = datetime.now()
    context["now"] = f"{now}"
    return template.format(**context)

def count(ai, msgs, n):
    return ai.count_tokens(msgs) // n

def build(request, ai):
    history = request.conversation_history
    history.append({"role": "user", "content": request.ask})
    without = [m for m in history if m.get("role") != "tool"]
    size = count(ai, without, 3)
    outputs = [t.output[:size] for t in request.tools]
    system_prompt_with_tools = render("{tools}", {"tools": outputs})
    history[0]["content"] = system_prompt_with_tools
    return history
"""


def test_a_system_message_written_over_the_first_message_is_reported() -> None:
    found = run(REWRITTEN)
    codes = sorted(d.code for d in found)
    assert codes == ["CL104", "CL105"], [d.message for d in found]
    clock = next(d for d in found if d.code == "CL105")
    assert "written over the first message of history" in clock.message
    assert "every request" in clock.message
    rebuilt = next(d for d in found if d.code == "CL104")
    assert "history" in rebuilt.message and "the conversation whose first message it rewrites" in rebuilt.message


def test_a_first_message_write_without_evidence_of_a_system_message_is_quiet() -> None:
    source = """
def stamp(messages):
    messages[0]["content"] = f"Task received at {datetime.now()}"
    return messages

def replace_user(messages, text):
    messages[0] = {"role": "user", "content": f"{text} {time.time()}"}
    return messages
"""
    assert [d for d in run(source) if d.code in ("CL104", "CL105")] == []


def test_a_static_system_message_written_over_the_first_is_quiet() -> None:
    source = """
def reset(history):
    system_prompt = BASE
    history[0]["content"] = system_prompt
    history[0] = {"role": "system", "content": BASE}
    return history
"""
    assert run(source) == []


def test_a_system_message_written_into_a_copy_only_counted_is_no_request() -> None:
    source = """
def render(template):
    return template.format(now=datetime.now())

def size(ai, msgs):
    return ai.count_tokens(msgs)

def build(request, ai):
    history = request.conversation_history
    without_tools = [m for m in history if m.get("role") != "tool"]
    system_prompt_without_tools = render("{now}")
    without_tools[0]["content"] = system_prompt_without_tools
    return size(ai, without_tools)
"""
    assert [d for d in run(source) if d.code in ("CL104", "CL105")] == []
