"""CL103, CL104 and CL106 through the functions a loop calls: a module function (or a method of
``self``) that the loop calls writes a global (or an attribute of the instance) that the prefix is
built from, so the next request of the conversation sends another prefix. Not reported: what a
function empties (a reset starts over) or gives back the value it saved (a temporary override), and
a part of an object the request reads only as a whole."""

from __future__ import annotations

import pytest

from rule_cases import check_negative, check_positive, params

REPORTED_CL104 = {
    "global-grown-by-a-tool-function-rebuilds-the-first-user-message": """
RELEVANT = []
PROMPT = "Find the files for the request. Relevant so far: {files}"

def add_relevant(paths):
    for p in paths:
        if p not in RELEVANT:
            RELEVANT.append(p)
    return "added"

def run(request):
    messages = [{"role": "user", "content": ""}]
    while True:
        messages[0]["content"] = PROMPT.format(files="\\n".join(RELEVANT))  # here
        reply = client.messages.create(model="m", max_tokens=10, messages=messages)
        messages.append({"role": "assistant", "content": reply.content})
        result = add_relevant(reply.content[-1].input["paths"])
        messages.append({"role": "user", "content": result})
""",
    "global-grown-by-a-function-read-by-the-system-prompt": """
NOTES = []

def remember(text):
    NOTES.append(text)

def run(messages):
    while True:
        system = BASE + "\\n".join(NOTES)  # here
        reply = client.messages.create(model="m", max_tokens=10, system=system, messages=messages)
        messages.append({"role": "assistant", "content": reply.content})
        remember(reply.content[0].text)
""",
    "attribute-grown-by-a-method-through-another-method": """
class Agent:
    def __init__(self):
        self.facts = []

    def _store(self, fact):
        self.facts.append(fact)

    def observe(self, reply):
        self._store(reply.content[0].text)

    def run(self, messages):
        while True:
            system = BASE + "\\n".join(self.facts)  # here
            reply = client.messages.create(model="m", max_tokens=10, system=system, messages=messages)
            messages.append({"role": "assistant", "content": reply.content})
            self.observe(reply)
""",
}

QUIET_CL104 = {
    "a-reset-function-empties-the-state": """
FILES = {}

def reset():
    global FILES
    FILES = {}

def run(messages):
    while True:
        system = BASE + "\\n".join(FILES)
        reply = client.messages.create(model="m", max_tokens=10, system=system, messages=messages)
        messages.append({"role": "assistant", "content": reply.content})
        if reply.stop_reason == "end_turn":
            reset()
""",
    "a-function-clears-the-state": """
NOTES = []

def forget():
    NOTES.clear()

def run(messages):
    while True:
        system = BASE + "\\n".join(NOTES)
        reply = client.messages.create(model="m", max_tokens=10, system=system, messages=messages)
        messages.append({"role": "assistant", "content": reply.content})
        forget()
""",
    "the-function-writes-a-global-the-prompt-does-not-read": """
SEEN = []
NOTES = ["a", "b"]

def log(reply):
    SEEN.append(reply.id)

def run(messages):
    while True:
        system = BASE + "\\n".join(NOTES)
        reply = client.messages.create(model="m", max_tokens=10, system=system, messages=messages)
        messages.append({"role": "assistant", "content": reply.content})
        log(reply)
""",
    "a-local-of-the-same-name-in-the-function": """
NOTES = ["a", "b"]

def summarize(reply):
    NOTES = []
    NOTES.append(reply.id)
    return NOTES

def run(messages):
    while True:
        system = BASE + "\\n".join(NOTES)
        reply = client.messages.create(model="m", max_tokens=10, system=system, messages=messages)
        messages.append({"role": "assistant", "content": reply.content})
        summarize(reply)
""",
}

REPORTED_CL106 = {
    "a-method-switches-the-model-for-good": """
class Agent:
    def __init__(self, model):
        self.model = model

    def fall_back(self):
        self.model = "m-small"

    def run(self, messages):
        while True:
            reply = client.messages.create(model=self.model, max_tokens=10, system=BASE, messages=messages)
            messages.append({"role": "assistant", "content": reply.content})
            if reply.stop_reason == "max_tokens":
                self.fall_back()  # here
""",
}

QUIET_CL106 = {
    "a-model-overridden-for-one-call-and-restored": """
class Agent:
    def __init__(self, model):
        self.model = model

    def retry_with(self, other, messages):
        saved = self.model
        try:
            self.model = other
            return self.ask(messages)
        finally:
            self.model = saved

    def ask(self, messages):
        return client.messages.create(model=self.model, max_tokens=10, system=BASE, messages=messages)

    def run(self, messages):
        while True:
            reply = self.ask(messages)
            messages.append({"role": "assistant", "content": reply.content})
            if reply.stop_reason == "max_tokens":
                self.retry_with("m-small", messages)
""",
}


@pytest.mark.parametrize("source", params(REPORTED_CL104))
def test_cl104_reported(source):
    check_positive("CL104", source)


@pytest.mark.parametrize("source", params(QUIET_CL104))
def test_cl104_quiet(source):
    check_negative("CL104", source, only_this_code=True)


@pytest.mark.parametrize("source", params(REPORTED_CL106))
def test_cl106_reported(source):
    check_positive("CL106", source)


@pytest.mark.parametrize("source", params(QUIET_CL106))
def test_cl106_quiet(source):
    check_negative("CL106", source, only_this_code=True)


def test_the_first_user_message_is_not_called_the_system_prompt():
    from codecheck_helpers import run

    diagnostics = [
        d
        for d in run(REPORTED_CL104["global-grown-by-a-tool-function-rebuilds-the-first-user-message"])
        if d.code == "CL104"
    ]
    assert len(diagnostics) == 1
    message = diagnostics[0].message
    assert "the first message of messages= of client.messages.create" in message
    assert "from that message on" in message and "(system)" not in message
