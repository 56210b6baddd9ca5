"""CL104 on Chat-style calls: the system prompt is the first message of the list sent as the
messages, and the loop that repeats the call changes that first message (in one module)."""

from __future__ import annotations

import pytest

from rule_cases import check_negative, check_positive, params

POSITIVE = {
    "content-of-the-first-message-replaced": """
def react(task, tools):
    chat_context = [{"role": "system", "content": BASE}, {"role": "user", "content": task}]
    history = []
    while True:
        history_str = "\\n".join(history)
        chat_context[0]["content"] = BASE.replace("{{history}}", history_str)  # here
        reply = litellm.completion(model="m", messages=chat_context, tools=tools)
        history.append(reply.choices[0].message.content)
        chat_context.append({"role": "assistant", "content": reply.choices[0].message.content})
""",
    "first-message-replaced-by-a-new-dict": """
def run(task):
    messages = [{"role": "system", "content": BASE}, {"role": "user", "content": task}]
    notes = []
    for step in range(10):
        messages[0] = {"role": "system", "content": BASE + " Notes: " + "; ".join(notes)}  # here
        reply = oai.chat.completions.create(model="m", messages=messages)
        notes.append(reply.choices[0].message.content)
        messages.append({"role": "assistant", "content": reply.choices[0].message.content})
""",
    "attribute-of-the-first-message-object": """
def run(llm_messages, skills):
    while True:
        reply = oai.chat.completions.create(model="m", messages=llm_messages)
        skills.append(reply.choices[0].message.content)
        llm_messages[0].content = BASE + "\\n".join(skills)  # here
""",
    "langchain-system-message-replaced": """
from langchain_core.messages import SystemMessage, HumanMessage

def chat(model, turns):
    history = [SystemMessage(content=BASE)]
    for turn, question in enumerate(turns):
        history[0] = SystemMessage(content=f"{BASE} This is turn {turn}.")  # here
        history.append(HumanMessage(content=question))
        history.append(model.invoke(history))
""",
    "system-message-inserted-in-front": """
def run(messages):
    while True:
        messages.insert(0, {"role": "system", "content": BASE})  # here
        reply = oai.chat.completions.create(model="m", messages=messages)
        messages.append({"role": "assistant", "content": reply.choices[0].message.content})
""",
    "list-rebuilt-with-a-system-of-this-turn": """
def run(history):
    step = 0
    while True:
        system = {"role": "system", "content": f"{BASE} Step {step}."}  # here
        reply = oai.chat.completions.create(model="m", messages=[system, *history])
        history.append({"role": "assistant", "content": reply.choices[0].message.content})
        step += 1
""",
    "list-rebound-with-a-new-first-message": """
def run(history, memory):
    while True:
        messages = [{"role": "system", "content": BASE + memory.recall()}] + history  # here
        reply = oai.chat.completions.create(model="m", messages=messages)
        history.append({"role": "assistant", "content": reply.choices[0].message.content})
        memory.add(reply.choices[0].message.content)
""",
}

NEGATIVE = {
    "first-message-set-once-before-the-loop": """
def run(task, when):
    messages = [{"role": "system", "content": BASE}, {"role": "user", "content": task}]
    messages[0]["content"] = BASE + when
    while True:
        reply = oai.chat.completions.create(model="m", messages=messages)
        messages.append({"role": "assistant", "content": reply.choices[0].message.content})
""",
    "system-rebuilt-from-invariant-values-each-turn": """
def run(history, role):
    while True:
        system = {"role": "system", "content": f"{BASE} You are {role}."}
        reply = oai.chat.completions.create(model="m", messages=[system, *history])
        history.append({"role": "assistant", "content": reply.choices[0].message.content})
""",
    "first-message-reset-to-the-same-text-each-turn": """
def run(messages, role):
    while True:
        prompt = BASE + role
        messages[0]["content"] = prompt
        reply = oai.chat.completions.create(model="m", messages=messages)
        messages.append({"role": "assistant", "content": reply.choices[0].message.content})
""",
    "another-index-changed": """
def run(messages):
    while True:
        reply = oai.chat.completions.create(model="m", messages=messages)
        messages[1]["content"] = reply.choices[0].message.content
""",
    "last-message-edited": """
def run(messages):
    while True:
        reply = oai.chat.completions.create(model="m", messages=messages)
        messages[-1]["content"] += reply.choices[0].message.content
""",
    "history-appended": """
def run(messages):
    while True:
        reply = oai.chat.completions.create(model="m", messages=messages)
        messages.append({"role": "assistant", "content": reply.choices[0].message.content})
        messages.append({"role": "user", "content": input()})
""",
    "first-user-message-replaced": """
def run(messages, questions):
    for question in questions:
        messages[0] = {"role": "user", "content": question}
        reply = oai.chat.completions.create(model="m", messages=messages)
""",
    "list-rebuilt-with-the-same-system": """
def run(history):
    while True:
        messages = [{"role": "system", "content": BASE}] + history
        reply = oai.chat.completions.create(model="m", messages=messages)
        history.append({"role": "assistant", "content": reply.choices[0].message.content})
""",
    "first-message-changed-after-the-last-call": """
def run(messages, notes):
    while True:
        reply = oai.chat.completions.create(model="m", messages=messages)
        if reply.choices[0].finish_reason == "stop":
            messages[0]["content"] = BASE + notes()
            return reply
        messages.append({"role": "assistant", "content": reply.choices[0].message.content})
""",
}


@pytest.mark.parametrize("source", params(POSITIVE))
def test_reported(source):
    check_positive("CL104", source)


@pytest.mark.parametrize("source", params(NEGATIVE))
def test_quiet(source):
    check_negative("CL104", source, only_this_code=True)
