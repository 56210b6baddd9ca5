"""CL106 setting-changed-in-loop: a cache-key setting (tool_choice, thinking, model, response
format, prompt_cache_key) of a call repeated in a loop changes inside it."""

from __future__ import annotations

import pytest

from codecheck_helpers import run
from cachelint.diagnostics import Severity
from rule_cases import check_negative, check_positive, params

POSITIVE = {
    "tool-choice-released-after-a-forced-first-turn": """
def run(messages, tools):
    tool_choice = {"type": "any"}
    while True:
        reply = client.messages.create(model="m", max_tokens=10, tools=tools, tool_choice=tool_choice, messages=messages)
        messages.append({"role": "assistant", "content": reply.content})
        tool_choice = {"type": "auto"}  # here
""",
    "tool-choice-none-once-a-budget-is-spent": """
def run(messages, tools, limit):
    tool_choice = "auto"
    spent = 0
    while True:
        if spent > limit:
            tool_choice = "none"  # here
        reply = oai.chat.completions.create(model="gpt-5", tools=tools, tool_choice=tool_choice, messages=messages)
        spent += reply.usage.total_tokens
""",
    "options-dict-item-assigned": """
def run(messages, tools):
    options = {"tool_choice": "required"}
    while True:
        reply = oai.chat.completions.create(model="gpt-5", tools=tools, messages=messages, **options)
        if reply.choices[0].finish_reason == "tool_calls":
            options["tool_choice"] = "none"  # here
""",
    "model-fallback-on-retry": """
def ask(messages):
    model = "claude-haiku-4-5"
    for attempt in range(3):
        try:
            return client.messages.create(model=model, max_tokens=10, messages=messages)
        except anthropic.APIError:
            model = "claude-sonnet-4-5"  # here
""",
    "thinking-turned-on-mid-conversation": """
def run(messages, hard):
    thinking = {"type": "disabled"}
    while True:
        reply = client.messages.create(model="m", max_tokens=2000, thinking=thinking, messages=messages)
        messages.append({"role": "assistant", "content": reply.content})
        if hard(reply):
            thinking = {"type": "enabled", "budget_tokens": 1024}  # here
""",
    "response-schema-switched": """
def run(messages, schemas):
    fmt = {"type": "json_object"}
    for turn in range(5):
        reply = oai.chat.completions.create(model="gpt-5", response_format=fmt, messages=messages)
        fmt = schemas[turn]  # here
""",
    "responses-text-format-from-the-turn": """
def run(question):
    for turn in range(3):
        text = {"format": {"type": "json_schema", "name": f"step{turn}", "schema": {}}}  # here
        oai.responses.create(model="gpt-5", input=question, text=text)
""",
}

NEGATIVE = {
    "fixed-for-the-session": """
def run(messages, tools):
    while True:
        reply = client.messages.create(model="m", max_tokens=10, tools=tools, tool_choice={"type": "auto"}, messages=messages)
        messages.append({"role": "assistant", "content": reply.content})
""",
    "set-before-the-loop-only": """
def run(messages, tools, forced):
    tool_choice = {"type": "any"} if forced else {"type": "auto"}
    while True:
        reply = client.messages.create(model="m", max_tokens=10, tools=tools, tool_choice=tool_choice, messages=messages)
        messages.append({"role": "assistant", "content": reply.content})
""",
    "one-request-per-model": """
def compare(question, models):
    for model in models:
        client.messages.create(model=model, max_tokens=10, messages=[{"role": "user", "content": question}])
""",
    "fresh-parameters-each-iteration": """
def run(messages):
    while True:
        params = {"model": "gpt-5", "tool_choice": "auto"}
        oai.chat.completions.create(messages=messages, **params)
""",
    "same-value-before-each-call": """
def run(messages, tools):
    while True:
        tool_choice = {"type": "auto"}
        reply = client.messages.create(model="m", max_tokens=10, tools=tools, tool_choice=tool_choice, messages=messages)
        messages.append({"role": "assistant", "content": reply.content})
""",
    "one-agent-per-configuration": """
from pydantic_ai import Agent

def sweep(configs):
    for config in configs:
        model = config.model
        Agent(model, instructions="Answer briefly.").run_sync("hi")
""",
    "per-item-model-of-a-batch": """
def label(items):
    out = []
    for item in items:
        model = item.model_name
        out.append(client.messages.create(model=model, max_tokens=10, messages=[{"role": "user", "content": item.text}]))
    return out
""",
}


@pytest.mark.parametrize("source", params(POSITIVE))
def test_reported_at_the_rules_severity(source):
    check_positive("CL106", source)
    found = [d for d in run(source) if d.code == "CL106"]
    assert found and all(d.severity is None for d in found)  # the catalog's: a warning


def test_the_rule_is_a_warning():
    from cachelint.catalog import load_catalog

    assert load_catalog()["CL106"].severity == Severity.WARNING.value


@pytest.mark.parametrize("source", params(NEGATIVE))
def test_quiet(source):
    check_negative("CL106", source)


def test_the_message_names_what_the_setting_loses():
    (found,) = [d for d in run(POSITIVE["model-fallback-on-retry"]) if d.code == "CL106"]
    assert "model is rebound inside the loop that repeats the call" in found.message
    assert found.message.endswith("each change of model loses the whole cached prefix (caches are per model)")
