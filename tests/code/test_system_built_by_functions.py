"""CL104 through the functions of the module: a system prompt built by a function called at the
request from a global or an attribute of ``self`` that the loop changes, and a parameter passed as
an expression (``step + 1``) of the loop's counter."""

from __future__ import annotations

import pytest

from rule_cases import check_negative, check_positive, params

REPORTED = {
    "global-filled-by-the-loop-formatted-by-a-function": """
OPEN_FILES = {}

def render_system():
    listing = ""
    for name, text in OPEN_FILES.items():
        listing += f"== {name} ==\\n{text}\\n"
    return BASE + listing

def run(messages):
    while True:
        reply = client.messages.create(model="m", max_tokens=10, system=render_system(), messages=messages)
        for block in reply.content:
            OPEN_FILES[block.input["path"]] = block.input["text"]  # here
        messages.append({"role": "assistant", "content": reply.content})
""",
    "global-appended-to-read-through-a-helper-of-the-function": """
NOTES = []

def notes_section():
    return "\\n".join(NOTES)

def render_system(goal):
    return f"{BASE} Goal: {goal}\\n{notes_section()}"

def run(messages, goal):
    while True:
        reply = client.messages.create(model="m", max_tokens=10, system=render_system(goal), messages=messages)
        NOTES.append(reply.content[0].text)  # here
        messages.append({"role": "assistant", "content": reply.content})
""",
    "attribute-of-self-grown-and-read-by-a-method": """
class Agent:
    def __init__(self):
        self.facts = []

    def system_prompt(self):
        lines = [BASE]
        lines.extend(self.facts)
        return "\\n".join(lines)

    def run(self, messages):
        while True:
            reply = client.messages.create(model="m", max_tokens=10, system=self.system_prompt(), messages=messages)
            self.facts.append(reply.content[0].text)  # here
            messages.append({"role": "assistant", "content": reply.content})
""",
    "system-named-before-the-request-from-a-function-of-a-global": """
SKILLS = []

def render_system():
    return BASE + "\\n".join(SKILLS)

def run(messages, catalog):
    while True:
        system = render_system()  # here
        reply = client.messages.create(model="m", max_tokens=10, system=system, messages=messages)
        SKILLS.append(catalog[reply.content[-1].input["name"]])
        messages.append({"role": "assistant", "content": reply.content})
""",
    "first-message-built-by-a-function-of-a-global": """
MEMORY = []

def system_message():
    return {"role": "system", "content": BASE + " ".join(MEMORY)}

def run(history):
    while True:
        reply = oai.chat.completions.create(model="m", messages=[system_message(), *history])
        MEMORY.append(reply.choices[0].message.content)  # here
        history.append({"role": "assistant", "content": reply.choices[0].message.content})
""",
    "attribute-of-self-read-by-the-base-class-method-through-super": """
class Base:
    def __init__(self):
        self.facts = []

    def system_prompt(self):
        return "\\n".join(self.facts)

class Agent(Base):
    def system_prompt(self):
        return BASE + super().system_prompt()

    def run(self, messages):
        while True:
            reply = client.messages.create(model="m", max_tokens=10, system=self.system_prompt(), messages=messages)
            self.facts.append(reply.content[0].text)  # here
            messages.append({"role": "assistant", "content": reply.content})
""",
    "counter-passed-as-an-expression-to-a-function-that-sends-it": """
def ask(messages, turn):
    return client.messages.create(model="m", max_tokens=10, system=f"{BASE} This is turn {turn}.", messages=messages)

def run(messages):
    turns = 0
    while turns < 10:
        reply = ask(messages, turns + 1)
        messages.append({"role": "assistant", "content": reply.content})
        turns += 1  # here
""",
}

QUIET = {
    "the-loop-changes-another-global-than-the-function-reads": """
OPEN_FILES = {}
SEEN = []

def render_system():
    return BASE + "\\n".join(OPEN_FILES)

def run(messages):
    while True:
        reply = client.messages.create(model="m", max_tokens=10, system=render_system(), messages=messages)
        SEEN.append(reply.id)
        messages.append({"role": "assistant", "content": reply.content})
""",
    "a-local-of-the-same-name-as-the-global-the-function-reads": """
NOTES = ["Be brief."]

def render_system():
    return BASE + "\\n".join(NOTES)

def run(messages):
    NOTES = []
    while True:
        reply = client.messages.create(model="m", max_tokens=10, system=render_system(), messages=messages)
        NOTES.append(reply.content[0].text)
        messages.append({"role": "assistant", "content": reply.content})
""",
    "the-function-reads-the-global-but-does-not-return-it": """
LOG = []

def render_system():
    print(len(LOG), "turns so far")
    return BASE

def run(messages):
    while True:
        reply = client.messages.create(model="m", max_tokens=10, system=render_system(), messages=messages)
        LOG.append(reply.id)
        messages.append({"role": "assistant", "content": reply.content})
""",
    "the-function-of-the-global-is-called-outside-the-request": """
NOTES = []

def summary():
    return "\\n".join(NOTES)

def run(messages):
    while True:
        reply = client.messages.create(model="m", max_tokens=10, system=BASE, messages=messages)
        NOTES.append(reply.content[0].text)
        print(summary())
        messages.append({"role": "assistant", "content": reply.content})
""",
    "system-named-before-the-request-from-a-function-of-an-unchanged-global": """
SKILLS = ["Be brief."]
SEEN = []

def render_system():
    return BASE + "\\n".join(SKILLS)

def run(messages):
    while True:
        system = render_system()
        reply = client.messages.create(model="m", max_tokens=10, system=system, messages=messages)
        SEEN.append(reply.id)
        messages.append({"role": "assistant", "content": reply.content})
""",
    "the-global-is-filled-before-the-loop-only": """
OPEN_FILES = {}

def render_system():
    return BASE + "\\n".join(OPEN_FILES.values())

def run(messages, files):
    for path in sorted(files):
        OPEN_FILES[path] = files[path]
    while True:
        reply = client.messages.create(model="m", max_tokens=10, system=render_system(), messages=messages)
        messages.append({"role": "assistant", "content": reply.content})
""",
    "counter-passed-as-an-expression-to-a-user-message-only": """
def ask(messages, turn):
    messages.append({"role": "user", "content": f"Turn {turn}: go on."})
    return client.messages.create(model="m", max_tokens=10, system=BASE, messages=messages)

def run(messages):
    turns = 0
    while turns < 10:
        reply = ask(messages, turns + 1)
        messages.append({"role": "assistant", "content": reply.content})
        turns += 1
""",
    "attribute-of-another-object-than-self-read-by-its-method": """
class Notes:
    def __init__(self):
        self.items = []

    def render(self):
        return "\\n".join(self.items)

class Agent:
    def __init__(self):
        self.notes = Notes()
        self.seen = []

    def system_prompt(self):
        return BASE

    def run(self, messages):
        while True:
            reply = client.messages.create(model="m", max_tokens=10, system=self.system_prompt(), messages=messages)
            self.seen.append(reply.id)
            messages.append({"role": "assistant", "content": reply.content})
""",
}


@pytest.mark.parametrize("source", params(REPORTED))
def test_reported(source):
    check_positive("CL104", source)


@pytest.mark.parametrize("source", params(QUIET))
def test_quiet(source):
    check_negative("CL104", source)
