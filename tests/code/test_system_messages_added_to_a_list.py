"""System messages added to a message list before it is sent (``append``, ``extend``, ``+=``) are
the system prompt when nothing of another role comes before them; added after the call, or after
the conversation, they are not what that call sent first."""

from __future__ import annotations

import pytest

from rule_cases import check_negative, check_positive, params

POSITIVE = {
    "appended-to-an-empty-list": """
def ask(question):
    messages = []
    messages.append({"role": "system", "content": f"{BASE} Time: {datetime.now()}"})  # here
    messages.append({"role": "user", "content": question})
    return oai.chat.completions.create(model="gpt-5", messages=messages)
""",
    "added-with-plus-equals": """
def ask(question):
    messages = []
    messages += [{"role": "system", "content": f"Run {uuid.uuid4()}. {BASE}"}]  # here
    messages += [{"role": "user", "content": question}]
    return oai.chat.completions.create(model="gpt-5", messages=messages)
""",
    "extended-onto-an-empty-list": """
def ask(question):
    messages = []
    messages.extend([{"role": "system", "content": f"{datetime.now():%H:%M} {BASE}"}, {"role": "user", "content": question}])  # here
    return oai.chat.completions.create(model="gpt-5", messages=messages)
""",
    "a-second-system-message-before-the-user": """
def ask(question):
    messages = [{"role": "system", "content": BASE}]
    messages.append({"role": "system", "content": f"Now: {datetime.now()}"})  # here
    messages.append({"role": "user", "content": question})
    return oai.chat.completions.create(model="gpt-5", messages=messages)
""",
}

NEGATIVE = {
    "appended-after-the-call": """
def ask(question):
    messages = [{"role": "system", "content": BASE}, {"role": "user", "content": question}]
    reply = oai.chat.completions.create(model="gpt-5", messages=messages)
    messages.append({"role": "system", "content": f"Answered at {datetime.now()}"})
    return reply
""",
    "extended-after-the-call": """
def ask(question):
    messages = [{"role": "system", "content": BASE}, {"role": "user", "content": question}]
    reply = oai.chat.completions.create(model="gpt-5", messages=messages)
    messages.extend([{"role": "system", "content": f"Answered at {datetime.now()}"}])
    return reply
""",
    "appended-after-a-user-message": """
def ask(question):
    messages = [{"role": "system", "content": BASE}]
    messages.append({"role": "user", "content": question})
    messages.append({"role": "system", "content": f"Reminder sent at {datetime.now()}"})
    return oai.chat.completions.create(model="gpt-5", messages=messages)
""",
    "appended-in-a-loop-after-the-history": """
def ask(history):
    messages = [{"role": "system", "content": BASE}]
    for turn in history:
        messages.append(turn)
    messages.append({"role": "system", "content": f"Now: {datetime.now()}"})
    return oai.chat.completions.create(model="gpt-5", messages=messages)
""",
}


@pytest.mark.parametrize("source", params(POSITIVE))
def test_reported(source):
    check_positive("CL105", source)


@pytest.mark.parametrize("source", params(NEGATIVE))
def test_quiet(source):
    check_negative("CL105", source)
