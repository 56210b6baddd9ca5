"""CL103/CL104 on skill listings: a listing that keeps only the skills a test on state lets through
(the skills not loaded yet, those activated so far), where a function changes that state between
the requests of one conversation, lists other skills after each change. Loaders put every skill's
name and description in the prompt from start-up and load a body on demand: a listing built once,
sorted, or a selection sent in the user's message, keeps the prefix."""

from __future__ import annotations

import pytest

from rule_cases import check_negative, check_positive, params

SYSTEM_POSITIVE = {
    "skills-not-loaded-yet-in-a-method": """
class SkillAgent:
    def __init__(self, skills):
        self.skills = skills
        self.loaded = []
        self.messages = []

    def system_prompt(self):
        listing = "\\n".join(f"- {n}: {d}" for n, d in sorted(self.skills.items()) if n not in self.loaded)  # here
        return "You can load these skills with load_skill:\\n" + listing

    def load_skill(self, name):
        self.loaded.append(name)
        return self.skills[name]

    def step(self, user_input):
        self.messages.append({"role": "user", "content": user_input})
        return client.messages.create(model="m", max_tokens=10, system=self.system_prompt(), messages=self.messages)
""",
    "a-module-global-filled-by-the-load-tool": """
SKILLS = {"pdf": "Read PDF files", "xlsx": "Edit spreadsheets"}
LOADED = set()


def load_skill(name):
    LOADED.add(name)
    return SKILLS[name]


def listing():
    lines = []
    for name in sorted(SKILLS):
        if name in LOADED:  # here
            continue
        lines.append(f"- {name}: {SKILLS[name]}")
    return "\\n".join(lines)


def ask(messages):
    return client.messages.create(model="m", max_tokens=10, system="Skills:\\n" + listing(), messages=messages)
""",
    "loop-whose-tool-call-loads-through-a-method": """
class SkillAgent:
    def __init__(self, skills):
        self.skills = skills
        self.loaded = set()

    def listing(self):
        return "\\n".join(f"- {n}" for n in sorted(self.skills) if n not in self.loaded)  # here

    def load(self, name):
        self.loaded.add(name)
        return self.skills[name]

    def run(self, messages):
        while True:
            reply = client.messages.create(model="m", max_tokens=10, system=self.listing(), messages=messages)
            if reply.stop_reason != "tool_use":
                return reply
            body = self.load(reply.content[-1].input["name"])
            messages.append({"role": "user", "content": body})
""",
    "set-difference-in-a-property": """
class Agent:
    def __init__(self, skills):
        self.skills = skills
        self.active = set()
        self.history = []

    @property
    def prompt(self):
        return "Skills:\\n" + "\\n".join(sorted(set(self.skills).difference(self.active)))  # here

    def activate(self, name):
        self.active |= {name}

    def chat(self, text):
        self.history.append({"role": "user", "content": text})
        return client.messages.create(model="m", max_tokens=10, system=self.prompt, messages=self.history)
""",
    "first-system-message-of-a-chat-list": """
class Assistant:
    def __init__(self, skills):
        self.skills = skills
        self.enabled = set()
        self.history = []

    def enable(self, name):
        self.enabled.add(name)

    def send(self, text):
        listing = ", ".join(n for n in sorted(self.skills) if n in self.enabled)  # here
        system = {"role": "system", "content": "Enabled skills: " + listing}
        self.history.append({"role": "user", "content": text})
        return oai.chat.completions.create(model="gpt-5", messages=[system, *self.history])
""",
    "skills-retrieved-for-the-last-message-in-a-named-system-message": """
def chat(history, index):
    query = history[-1]["content"]  # here
    listing = "\\n".join(f"- {s.name}: {s.description}" for s in index.search(query, k=5))
    system = {"role": "system", "content": "Skills:\\n" + listing}
    return oai.chat.completions.create(model="gpt-5", messages=[system] + history)
""",
}

TOOLS_POSITIVE = {
    "tool-description-lists-inactive-skills": """
class Assistant:
    def __init__(self, skills):
        self.skills = skills
        self.active = []
        self.history = []

    def activate(self, name):
        self.active.append(name)

    def skill_tool(self):
        names = sorted(set(self.skills) - set(self.active))  # here
        return {"type": "function", "function": {"name": "load_skill", "description": "Load one of: " + ", ".join(names)}}

    def send(self, text):
        self.history.append({"role": "user", "content": text})
        return oai.chat.completions.create(model="gpt-5", messages=self.history, tools=[self.skill_tool()])
""",
    "one-tool-per-skill-not-loaded": """
class Agent:
    def __init__(self, skills):
        self.skills = skills
        self.loaded = set()
        self.history = []

    def on_tool_call(self, name):
        self.loaded.add(name)
        return self.skills[name]

    def chat(self, text):
        self.history.append({"role": "user", "content": text})
        tools = [{"name": n, "description": self.skills[n], "input_schema": {}} for n in sorted(self.skills) if n not in self.loaded]  # here
        return client.messages.create(model="m", max_tokens=10, tools=tools, messages=self.history)
""",
}

NEGATIVE = {
    "listing-built-once-sorted": """
class SkillAgent:
    def __init__(self, skills):
        self.skills = skills
        self.loaded = set()
        self.messages = []
        self.system = "Skills:\\n" + "\\n".join(f"- {n}" for n in sorted(skills))

    def load_skill(self, name):
        self.loaded.add(name)
        return self.skills[name]

    def chat(self, text):
        self.messages.append({"role": "user", "content": text})
        return client.messages.create(model="m", max_tokens=10, system=self.system, messages=self.messages)
""",
    "selection-sent-in-the-user-message": """
class Agent:
    def __init__(self, skills):
        self.skills = skills
        self.loaded = set()
        self.history = []

    def load(self, name):
        self.loaded.add(name)
        return self.skills[name]

    def chat(self, text):
        remaining = ", ".join(n for n in sorted(self.skills) if n not in self.loaded)
        self.history.append({"role": "user", "content": f"{text}\\n\\n(Skills not loaded yet: {remaining})"})
        return client.messages.create(model="m", max_tokens=10, system=BASE, messages=self.history)
""",
    "filter-set-filled-while-the-object-is-built": """
class Agent:
    def __init__(self, skills, disabled):
        self.skills = skills
        self.disabled = set()
        self._read_disabled(disabled)
        self.history = []

    def _read_disabled(self, names):
        for name in names:
            self.disabled.add(name)

    def system_prompt(self):
        return "Skills:\\n" + "\\n".join(f"- {n}" for n in sorted(self.skills) if n not in self.disabled)

    def chat(self, text):
        self.history.append({"role": "user", "content": text})
        return client.messages.create(model="m", max_tokens=10, system=self.system_prompt(), messages=self.history)
""",
    "registry-iterated-not-selected": """
class Agent:
    def __init__(self):
        self.skills = {}
        self.history = []

    def register(self, name, description):
        self.skills[name] = description

    def system_prompt(self):
        return "Skills:\\n" + "\\n".join(f"- {n}: {self.skills[n]}" for n in sorted(self.skills))

    def chat(self, text):
        self.history.append({"role": "user", "content": text})
        return client.messages.create(model="m", max_tokens=10, system=self.system_prompt(), messages=self.history)
""",
    "a-local-of-the-global-name": """
LOADED = set()


def reset(names):
    LOADED = set(names)
    LOADED.add("base")
    return LOADED


def ask(messages, skills):
    listing = "\\n".join(n for n in sorted(skills) if n not in LOADED)
    return client.messages.create(model="m", max_tokens=10, system=listing, messages=messages)
""",
    "named-system-message-of-fixed-text": """
def chat(history, skills):
    system = {"role": "system", "content": "Skills:\\n" + "\\n".join(sorted(skills))}
    return oai.chat.completions.create(model="gpt-5", messages=[system, *history])
""",
    "one-shot-request-of-new-messages": """
class Agent:
    def __init__(self, skills):
        self.skills = skills
        self.loaded = set()

    def load(self, name):
        self.loaded.add(name)

    def summarize(self, text):
        listing = ", ".join(n for n in sorted(self.skills) if n not in self.loaded)
        return client.messages.create(model="m", max_tokens=10, system=listing, messages=[{"role": "user", "content": text}])
""",
}


@pytest.mark.parametrize("source", params(SYSTEM_POSITIVE))
def test_system_listing_reported(source):
    check_positive("CL104", source)


@pytest.mark.parametrize("source", params(TOOLS_POSITIVE))
def test_tools_listing_reported(source):
    check_positive("CL103", source)


@pytest.mark.parametrize("source", params(NEGATIVE))
def test_quiet(source):
    check_negative("CL104", source, only_this_code=True)
    check_negative("CL103", source, only_this_code=True)


def test_the_change_in_the_loop_is_the_one_finding():
    """A loop that changes the tested set itself: the change is reported, not the test again."""
    source = """
class SkillAgent:
    def __init__(self, skills):
        self.skills = skills
        self.loaded = set()

    def listing(self):
        return "\\n".join(f"- {n}" for n in sorted(self.skills) if n not in self.loaded)

    def run(self, messages):
        while True:
            reply = client.messages.create(model="m", max_tokens=10, system=self.listing(), messages=messages)
            if reply.stop_reason != "tool_use":
                return reply
            self.loaded.add(reply.content[-1].input["name"])  # here
            messages.append({"role": "assistant", "content": reply.content})
"""
    check_positive("CL104", source)


def test_the_message_names_what_changes_the_state():
    from codecheck_helpers import run

    (finding,) = [d for d in run(SYSTEM_POSITIVE["skills-not-loaded-yet-in-a-method"]) if d.code == "CL104"]
    assert "a test on self.loaded (changed by load_skill() at line " in finding.message
