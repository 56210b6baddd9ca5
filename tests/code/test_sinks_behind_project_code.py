"""Sinks behind the project's own code: a name bound to a sink, a class whose constructor stores
what one of its methods sends, methods inherited from a base class (in the module and across
modules of the run), and what a loop over a parameter or a sorted os.walk puts in order."""

from __future__ import annotations

import pytest
from conftest import check_tree, write_tree

from rule_cases import check_negative, check_positive, params

POSITIVE_TOOLS = {
    "module-alias-of-sink": """
send = oai.chat.completions.create

def ask(messages, wanted):
    tools = [TOOLS[n] for n in set(wanted)]  # here
    return send(model="m", messages=messages, tools=tools)
""",
    "attribute-alias-of-sink": """
class Bot:
    def __init__(self):
        self.create = client.messages.create

    def ask(self, messages, wanted):
        tools = [TOOLS[n] for n in set(wanted)]  # here
        return self.create(model="m", max_tokens=5, messages=messages, tools=tools)
""",
    "constructor-stores-method-sends": """
class Bot:
    def __init__(self, tools):
        self.tools = tools

    def ask(self, messages):
        return self._send(messages)

    def _send(self, messages):
        specs = [t for t in self.tools]
        return client.messages.create(model="m", max_tokens=5, messages=messages, tools=specs)

def main(wanted):
    return Bot([TOOLS[n] for n in set(wanted)])  # here
""",
    "constructor-of-subclass-base-sends": """
class Base:
    def __init__(self, tools):
        self.tools = tools

    def ask(self, messages):
        return client.messages.create(model="m", max_tokens=5, messages=messages, tools=self.tools)

class Child(Base):
    pass

def main(wanted):
    return Child(list(set(wanted)))  # here
""",
    "loop-over-parameter-keeps-its-order": """
def schemas(tools):
    out = []
    for t in tools:
        out.append({"name": t})
    return out

def ask(messages, wanted):
    return client.messages.create(model="m", max_tokens=5, messages=messages, tools=schemas(set(wanted)))  # here
""",
    "inherited-method-on-constructed-instance": """
class Base:
    def ask(self, messages, tools):
        return client.messages.create(model="m", max_tokens=5, messages=messages, tools=tools)

class Child(Base):
    pass

def main(messages, wanted):
    return Child().ask(messages, list(set(wanted)))  # here
""",
}

NEGATIVE_TOOLS = {
    "name-bound-to-a-call-result": """
def ask(wanted):
    send = make_sender()
    return send(tools=[TOOLS[n] for n in set(wanted)])
""",
    "attribute-rebound-to-a-call-result": """
class Bot:
    def __init__(self):
        self.create = client.messages.create
        self.create = wrap(self.create)

    def ask(self, messages, wanted):
        return self.create(model="m", max_tokens=5, messages=messages, tools=[TOOLS[n] for n in set(wanted)])
""",
    "constructor-sorts-what-it-stores": """
class Bot:
    def __init__(self, tools):
        self.tools = sorted(tools)

    def ask(self, messages):
        return client.messages.create(model="m", max_tokens=5, messages=messages, tools=self.tools)

def main(wanted):
    return Bot(list(set(wanted)))
""",
    "constructor-stores-what-no-method-sends": """
class Bot:
    def __init__(self, tools, names):
        self.tools = tools
        self.names = names

    def ask(self, messages):
        return client.messages.create(model="m", max_tokens=5, messages=messages, tools=self.tools)

def main(wanted):
    return Bot([], list(set(wanted)))
""",
    "method-sorts-the-attribute": """
class Bot:
    def __init__(self, tools):
        self.tools = tools

    def ask(self, messages):
        return client.messages.create(model="m", max_tokens=5, messages=messages, tools=sorted(self.tools))

def main(wanted):
    return Bot(list(set(wanted)))
""",
    "loop-over-parameter-into-a-set-then-sorted": """
def names(tools):
    out = set()
    for t in tools:
        out.add(t)
    return sorted(out)

def ask(messages, wanted):
    return client.messages.create(model="m", max_tokens=5, messages=messages, tools=names(set(wanted)))
""",
}

POSITIVE_SYSTEM = {
    "walk-unsorted": """
def ask(root, messages):
    found = []
    for base, dirs, files in os.walk(root):  # here
        for name in files:
            found.append(os.path.join(base, name))
    return client.messages.create(model="m", max_tokens=5, messages=messages, system="\\n".join(found))
""",
    "walk-files-sorted-folders-not": """
def ask(root, messages):
    found = []
    for base, dirs, files in os.walk(root):  # here
        for name in sorted(files):
            found.append(os.path.join(base, name))
    return client.messages.create(model="m", max_tokens=5, messages=messages, system="\\n".join(found))
""",
    "walk-folders-sorted-files-not": """
def ask(root, messages):
    found = []
    for base, dirs, files in os.walk(root):  # here
        dirs.sort()
        for name in files:
            found.append(os.path.join(base, name))
    return client.messages.create(model="m", max_tokens=5, messages=messages, system="\\n".join(found))
""",
    "constructor-system-text": """
class Helper:
    def __init__(self, system):
        self.system = system

    def ask(self, messages):
        return client.messages.create(model="m", max_tokens=5, messages=messages, system=self.system)

def main(folder):
    return Helper("\\n".join(os.listdir(folder)))  # here
""",
}

NEGATIVE_SYSTEM = {
    "walk-sorted-in-place": """
def ask(root, messages):
    found = []
    for base, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            found.append(os.path.join(base, name))
    return client.messages.create(model="m", max_tokens=5, messages=messages, system="\\n".join(found))
""",
    "walk-sorted-by-slice-assignment": """
def ask(root, messages):
    found = []
    for base, dirs, files in os.walk(root):
        dirs[:] = sorted(dirs)
        found.extend(os.path.join(base, name) for name in sorted(files))
    return client.messages.create(model="m", max_tokens=5, messages=messages, system="\\n".join(found))
""",
    "listing-sorted-in-place": """
def ask(folder, messages):
    names = os.listdir(folder)
    names.sort()
    return client.messages.create(model="m", max_tokens=5, messages=messages, system="\\n".join(names))
""",
}


@pytest.mark.parametrize("source", params(POSITIVE_TOOLS))
def test_tools_reach_a_sink_behind_project_code(source):
    check_positive("CL101", source)


@pytest.mark.parametrize("source", params(NEGATIVE_TOOLS))
def test_tools_look_alikes_stay_quiet(source):
    check_negative("CL101", source)


@pytest.mark.parametrize("source", params(POSITIVE_SYSTEM))
def test_system_text_reaches_a_sink_behind_project_code(source):
    check_positive("CL102", source)


@pytest.mark.parametrize("source", params(NEGATIVE_SYSTEM))
def test_system_look_alikes_stay_quiet(source):
    check_negative("CL102", source)


LLM = """\
import openai

client = openai.OpenAI()
complete = client.chat.completions.create


class Handler:
    def __init__(self, role):
        self.role = role

    def reply(self, messages, functions):
        return complete(model="m", messages=messages, tools=functions)


class Agent:
    def __init__(self, tools):
        self.tools = tools

    def run(self, messages):
        return complete(model="m", messages=messages, tools=[t for t in self.tools])
"""

HANDLERS = """\
from app.llm import Agent, Handler


class PlainHandler(Handler):
    pass


class Assistant(Agent):
    def greet(self):
        return "hi"
"""

MAIN = """\
from pathlib import Path

from app.handlers import Assistant, PlainHandler
from app.llm import Agent

FOLDER = Path("functions")


def schemas():
    return [{"name": p.stem} for p in FOLDER.glob("*.py")]


def main(messages, names):
    PlainHandler("r").reply(messages, schemas())
    Agent(list(set(names)))
    Assistant(list(set(names)))
    Agent(sorted(set(names)))
"""


def test_inherited_methods_and_constructors_across_modules(tmp_path):
    write_tree(tmp_path, {"app/__init__.py": "", "app/llm.py": LLM, "app/handlers.py": HANDLERS, "app/main.py": MAIN})
    found = sorted((d.path, d.line, d.code) for d in check_tree(tmp_path).diagnostics)
    # the glob (line 10) through an inherited method; two constructors (line 15, 16); not the sorted one
    assert found == [("app/main.py", 10, "CL101"), ("app/main.py", 15, "CL101"), ("app/main.py", 16, "CL101")], found
    by_line = {d.line: d for d in check_tree(tmp_path).diagnostics}
    # the inherited method's sink is told where it is defined
    assert "app.llm.Handler.reply" in by_line[10].message, by_line[10].message
    assert "Path.glob()" in by_line[10].message


def test_sorted_fix_of_a_glob_goes_to_the_module_that_lists(tmp_path):
    write_tree(tmp_path, {"app/__init__.py": "", "app/llm.py": LLM, "app/handlers.py": HANDLERS, "app/main.py": MAIN})
    result = check_tree(tmp_path, fix=True)
    assert 'for p in sorted(FOLDER.glob("*.py"))' in (tmp_path / "app/main.py").read_text()
    assert result is not None
