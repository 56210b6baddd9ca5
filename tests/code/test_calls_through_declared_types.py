"""A request sent through the project's own model wrapper, reached by what the language says the
object is: an attribute declared of a class (a constructor parameter's annotation, a class-level
annotation, ``Optional[...]``), an abstract method whose override a subclass of the same module
defines, a name bound to one of two operands (``wrap(litellm) if traced else litellm``), and the
cache-key settings a wrapper passes on. Each with look-alikes that must stay quiet."""

from __future__ import annotations

import pytest
from conftest import check_tree, write_tree

from rule_cases import check_negative, check_positive, params

BACKEND = """
class Backend:
    def complete(self, messages, tools=None, tool_choice=None):
        return litellm.completion(model="m", messages=messages, tools=tools, tool_choice=tool_choice)

    def count(self, messages, tools=None):
        return len(messages) + len(tools or [])
"""

ABSTRACT = """
from abc import ABC, abstractmethod


class Model(ABC):
    @abstractmethod
    def complete(self, messages, tools=None):
        ...


class Hosted(Model):
    def complete(self, messages, tools=None):
        return litellm.completion(model="m", messages=messages, tools=tools)
"""

LAST_STEP = """
        step = 0
        while step < self.max_steps:
            step += 1
            tools = None if step == self.max_steps else tools  # here
            reply = self.llm.{method}(messages, tools=tools)
            messages.append(reply.message)
"""

AGENT = """
class Agent:
    def __init__(self, llm: {cls}, max_steps: int):
        self.llm = llm
        self.max_steps = max_steps

    def run(self, messages, tools):"""

SETTING_LOOP = """
class Agent:
    def __init__(self, llm: Backend):
        self.llm = llm

    def run(self, messages, tools):
        choice = {"type": "any"}
        while True:
            reply = self.llm.complete(messages, tools=tools, tool_choice=choice)
            if not reply.tool_calls:
                return reply
            messages.append(reply.message)
            choice = {"type": "auto"}"""

POSITIVE_TOOLS = {
    "constructor-parameter-annotation": BACKEND + AGENT.format(cls="Backend") + LAST_STEP.format(method="complete"),
    "class-level-annotation": BACKEND
    + """
class Agent:
    llm: Backend

    def __init__(self, llm, max_steps):
        self.llm = llm
        self.max_steps = max_steps

    def run(self, messages, tools):"""
    + LAST_STEP.format(method="complete"),
    "optional-annotation": BACKEND
    + """
from typing import Optional


class Agent:
    def __init__(self, llm: Optional[Backend] = None, max_steps: int = 5):
        self.llm = llm or Backend()
        self.max_steps = max_steps

    def run(self, messages, tools):"""
    + LAST_STEP.format(method="complete"),
    "annotated-attribute-assignment": BACKEND
    + """
class Agent:
    def __init__(self, factory, max_steps):
        self.llm: "Backend | None" = factory()
        self.max_steps = max_steps

    def run(self, messages, tools):"""
    + LAST_STEP.format(method="complete"),
    "abstract-method-overridden-in-the-module": ABSTRACT
    + AGENT.format(cls="Model")
    + LAST_STEP.format(method="complete"),
    "not-implemented-stub-overridden": """
class Model:
    def complete(self, messages, tools=None):
        \"\"\"Send one request.\"\"\"
        raise NotImplementedError


class Hosted(Model):
    def complete(self, messages, tools=None):
        return litellm.completion(model="m", messages=messages, tools=tools)


def run(llm: Model, messages, tools, max_steps):
    for step in range(max_steps):
        tools = None if step == max_steps - 1 else tools  # here
        reply = llm.complete(messages, tools=tools)
        messages.append(reply.message)
""",
    "module-or-its-wrapper": """
def run(messages, tools, tracer, max_steps):
    sdk = tracer.wrap(litellm) if tracer else litellm
    for step in range(max_steps):
        tools = None if step == max_steps - 1 else tools  # here
        reply = sdk.completion(model="m", messages=messages, tools=tools)
        messages.append(reply.message)
""",
    "client-or-default": """
def run(messages, tools, given, max_steps):
    api = given or oai
    for step in range(max_steps):
        tools = None if step == max_steps - 1 else tools  # here
        reply = api.chat.completions.create(model="m", messages=messages, tools=tools)
        messages.append(reply.choices[0].message)
""",
}

NEGATIVE_TOOLS = {
    "declared-class-method-that-only-counts": BACKEND
    + AGENT.format(cls="Backend")
    + LAST_STEP.format(method="count").replace("  # here", ""),
    "abstract-method-whose-override-sends-no-tools": """
from abc import ABC, abstractmethod


class Model(ABC):
    @abstractmethod
    def complete(self, messages, tools=None):
        ...


class Plain(Model):
    def complete(self, messages, tools=None):
        return litellm.completion(model="m", messages=messages)


class Agent:
    def __init__(self, llm: Model, max_steps: int):
        self.llm = llm
        self.max_steps = max_steps

    def run(self, messages, tools):"""
    + LAST_STEP.format(method="complete").replace("  # here", ""),
    "operands-that-are-no-sdk": """
def run(messages, tools, fast, slow, max_steps):
    engine = fast if max_steps < 3 else slow
    for step in range(max_steps):
        tools = None if step == max_steps - 1 else tools
        reply = engine.completion(model="m", messages=messages, tools=tools)
        messages.append(reply.message)
""",
    "module-or-wrapper-with-fixed-tools": """
def run(messages, tools, tracer, max_steps):
    sdk = tracer.wrap(litellm) if tracer else litellm
    for step in range(max_steps):
        reply = sdk.completion(model="m", messages=messages, tools=tools)
        messages.append(reply.message)
""",
}

POSITIVE_SETTINGS = {
    "setting-passed-through-a-wrapper": BACKEND + SETTING_LOOP + "  # here\n",
}

NEGATIVE_SETTINGS = {
    "wrapper-that-fixes-the-setting": """
class Backend:
    def complete(self, messages, tools=None, tool_choice=None):
        return litellm.completion(model="m", messages=messages, tools=tools, tool_choice="auto")
"""
    + SETTING_LOOP
    + "\n",
    "one-request-per-setting": BACKEND
    + """
def compare(llm: Backend, messages, tools, choices):
    return [llm.complete(messages, tools=tools, tool_choice=choice) for choice in choices]
""",
}


@pytest.mark.parametrize("source", params(POSITIVE_TOOLS))
def test_tools_changed_through_a_declared_wrapper(source):
    check_positive("CL103", source)


@pytest.mark.parametrize("source", params(NEGATIVE_TOOLS))
def test_tools_look_alikes_stay_quiet(source):
    check_negative("CL103", source, only_this_code=True)


@pytest.mark.parametrize("source", params(POSITIVE_SETTINGS))
def test_setting_changed_through_a_declared_wrapper(source):
    check_positive("CL106", source)


@pytest.mark.parametrize("source", params(NEGATIVE_SETTINGS))
def test_setting_look_alikes_stay_quiet(source):
    check_negative("CL106", source, only_this_code=True)


LLM_MODULE = """\
from abc import abstractmethod

import litellm


class LLM:
    @abstractmethod
    def completion(self, messages, tools=None, tool_choice=None, response_format=None):
        pass


class HostedLLM(LLM):
    def __init__(self, model, tracer=None):
        self.model = model
        self.tracer = tracer

    def completion(self, messages, tools=None, tool_choice=None, response_format=None):
        extra = {}
        if tools:
            extra["tools"] = tools
            extra["tool_choice"] = tool_choice
        sdk = self.tracer.wrap(litellm) if self.tracer else litellm
        return sdk.completion(model=self.model, messages=messages, response_format=response_format, **extra)
"""

AGENT_MODULE = """\
from app.llm import LLM


class Agent:
    llm: LLM

    def __init__(self, llm, max_steps):
        self.llm = llm
        self.max_steps = max_steps

    def run(self, messages, tools, schema):
        step = 0
        while step < self.max_steps:
            step += 1
            tools = None if step == self.max_steps else tools
            reply = self.llm.completion(messages, tools=tools, tool_choice="auto", response_format=schema)
            if reply.malformed:
                schema = None
                continue
            messages.append(reply.message)
"""


def test_declared_interface_in_another_module(tmp_path):
    write_tree(tmp_path, {"app/__init__.py": "", "app/llm.py": LLM_MODULE, "app/agent.py": AGENT_MODULE})
    found = {(d.path, d.line, d.code): d.message for d in check_tree(tmp_path).diagnostics}
    assert sorted(found) == [("app/agent.py", 15, "CL103"), ("app/agent.py", 18, "CL106")], found
    # the message names the method that runs: the override, where the request is sent
    assert "app.llm.HostedLLM.completion (line 23)" in found[("app/agent.py", 15, "CL103")]
    assert "response_format" in found[("app/agent.py", 18, "CL106")]
