"""The OpenAI SDK before 1.0: module-level ``openai.ChatCompletion.create`` / ``acreate`` are sinks
(functions, tools, messages; function_call, tool_choice and model as cache-key settings). Only a
callee that resolves through the imports to the openai module counts."""

from __future__ import annotations

import pytest

from codecheck_helpers import marked_lines, run

FORCED_LAST_STEP = """
def solve(messages, functions, steps):
    function_call = None
    for step in range(steps):
        if step == steps - 1:
            function_call = {"name": "submit"}  # here
        reply = {CALLEE}(model="gpt-4", messages=messages, functions=functions, function_call=function_call)
        messages.append(reply["choices"][0]["message"])
"""

SET_OF_FUNCTIONS = """
def ask(messages, registry):
    chosen = list(set(f["name"] for f in registry))  # here
    return {CALLEE}(model="gpt-4", messages=messages, functions=[{"name": n} for n in chosen])
"""

VOLATILE_FUNCTION = """
def ask(messages):
    clock = {"name": "clock", "description": f"Tells the time; it is {datetime.now()}"}  # here
    return {CALLEE}(model="gpt-4", messages=messages, functions=[clock])
"""

OPENAI_IMPORTS = {
    "module": ("import openai\nfrom datetime import datetime\n", "openai.ChatCompletion.create"),
    "module-async": ("import openai\nfrom datetime import datetime\n", "await openai.ChatCompletion.acreate"),
    "module-alias": ("import openai as oa\nfrom datetime import datetime\n", "oa.ChatCompletion.create"),
    "class-imported": ("from openai import ChatCompletion\nfrom datetime import datetime\n", "ChatCompletion.create"),
    "class-alias-async": (
        "from openai import ChatCompletion as Chat\nfrom datetime import datetime\n",
        "await Chat.acreate",
    ),
}

LOOK_ALIKES = {
    "another-module": ("import mylib\nfrom datetime import datetime\n", "mylib.ChatCompletion.create"),
    "class-from-another-module": (
        "from mylib import ChatCompletion\nfrom datetime import datetime\n",
        "ChatCompletion.create",
    ),
    "own-class": (
        "from datetime import datetime\n\n\nclass ChatCompletion:\n    @staticmethod\n    def create(**kwargs):\n        return kwargs\n",
        "ChatCompletion.create",
    ),
    "openai-attribute-of-another-object": (
        "import mylib\nfrom datetime import datetime\n",
        "mylib.openai.ChatCompletion.create",
    ),
}


def _source(imports: str, callee: str, body: str) -> str:
    text = body.replace("{CALLEE}", callee)
    if callee.startswith("await "):
        text = text.replace("def ", "async def ", 1)
    return imports + text


@pytest.mark.parametrize(
    ("code", "body"), [("CL106", FORCED_LAST_STEP), ("CL101", SET_OF_FUNCTIONS), ("CL105", VOLATILE_FUNCTION)]
)
@pytest.mark.parametrize(("imports", "callee"), list(OPENAI_IMPORTS.values()), ids=list(OPENAI_IMPORTS))
def test_pre_1_0_chat_completion_is_a_sink(code, body, imports, callee):
    source = _source(imports, callee, body)
    found = sorted(d.line for d in run(source, header=False) if d.code == code)
    assert found == marked_lines(source, header=False), [
        f"{d.line} {d.code} {d.message}" for d in run(source, header=False)
    ]


@pytest.mark.parametrize(
    "body", [FORCED_LAST_STEP, SET_OF_FUNCTIONS, VOLATILE_FUNCTION], ids=["CL106", "CL101", "CL105"]
)
@pytest.mark.parametrize(("imports", "callee"), list(LOOK_ALIKES.values()), ids=list(LOOK_ALIKES))
def test_a_chat_completion_class_of_another_module_is_no_sink(body, imports, callee):
    source = _source(imports, callee, body)
    assert run(source, header=False) == []


def test_function_call_fixed_for_the_whole_loop_is_quiet():
    source = """import openai


def solve(messages, functions, steps):
    for step in range(steps):
        reply = openai.ChatCompletion.create(model="gpt-4", messages=messages, functions=functions, function_call={"name": "submit"})
        messages.append(reply["choices"][0]["message"])
"""
    assert run(source, header=False) == []


def test_function_call_of_the_current_sdk_is_a_setting_too():
    source = """import openai

client = openai.OpenAI()


def solve(messages, functions, steps):
    function_call = "auto"
    for step in range(steps):
        reply = client.chat.completions.create(model="gpt-4", messages=messages, functions=functions, function_call=function_call)
        messages.append(reply.choices[0].message)
        if step == steps - 2:
            function_call = {"name": "submit"}  # here
"""
    found = sorted(d.line for d in run(source, header=False) if d.code == "CL106")
    assert found == marked_lines(source, header=False)
