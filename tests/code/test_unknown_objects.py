"""Objects that a call the analysis does not know returns (a toolkit, a store, an ORM row): their
own unknown methods answer from the object's class and state, so what the object was made from
does not reach the prefix through them. What they are given, and the methods known to build their
result from the receiver (str methods, views, copies, a template rendered), still carry."""

from __future__ import annotations

import pytest

from rule_cases import check_negative, check_positive, params

QUIET = {
    "a-run-folder-given-to-a-toolkit": """
from textkit import Toolkit

ROOT = f"runs/{uuid.uuid4().hex}"
kit = Toolkit(root=ROOT)


def ask(messages):
    return client.messages.create(model="m", max_tokens=10, tools=kit.schemas(), system=kit.guide(), messages=messages)
""",
    "a-session-id-given-to-a-browser-toolkit": """
from browserkit import Browser


def ask(messages):
    browser = Browser(session=str(uuid.uuid4())[:8])
    return client.messages.create(model="m", max_tokens=10, tools=[*browser.tool_list()], system=BASE, messages=messages)
""",
    "a-set-given-to-a-row-then-read-back": """
from store import Row


def ask(messages, wanted):
    names = set(wanted)
    row = Row(rules=[n for n in names])
    state = row.load_state()
    return client.messages.create(model="m", max_tokens=10, system=f"{BASE} {state.summary}", messages=messages)
""",
    "two-unknown-steps": """
from store import Database


def ask(messages):
    db = Database(path=f"/tmp/{time.time()}.db")
    view = db.open().snapshot()
    return client.messages.create(model="m", max_tokens=10, system=view.text, messages=messages)
""",
}

STILL_CARRIED = {
    "a-str-method-of-an-unknown-result": '''
from textwrap import dedent


def ask(messages):
    stamp = datetime.now()  # here
    system = dedent(f"""
        Now: {stamp}
    """).strip()
    return client.messages.create(model="m", max_tokens=10, system=system, messages=messages)
''',
    "a-template-rendered": """
from jinja2 import Template


def ask(messages):
    page = Template(f"Run {uuid.uuid4()}")  # here
    return client.messages.create(model="m", max_tokens=10, system=page.render(), messages=messages)
""",
    "the-arguments-of-an-unknown-method": """
from textkit import Toolkit

kit = Toolkit()


def ask(messages):
    return client.messages.create(model="m", max_tokens=10, system=kit.guide(stamp=time.time()), messages=messages)  # here
""",
    "an-unknown-constructor-in-the-tools": """
from toolkit import Tool


def ask(messages):
    tool = Tool(name="clock", description=f"Time is {datetime.now()}")  # here
    return client.messages.create(model="m", max_tokens=10, tools=[tool], system=BASE, messages=messages)
""",
    "the-values-of-an-unknown-mapping": """
from store import load


def ask(messages, seen):
    table = load(set(seen))  # here
    return client.messages.create(model="m", max_tokens=10, system=" ".join(table.values()), messages=messages)
""",
}


@pytest.mark.parametrize("source", params(QUIET))
def test_an_unknown_method_does_not_return_what_its_object_was_made_from(source):
    check_negative("CL105", source, only_this_code=True)
    check_negative("CL102", source, only_this_code=True)


@pytest.mark.parametrize("source", params(STILL_CARRIED))
def test_arguments_and_receiver_methods_still_carry(source):
    code = "CL102" if "set(" in source else "CL105"
    check_positive(code, source)
