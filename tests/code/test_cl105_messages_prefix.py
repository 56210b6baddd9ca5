"""CL105 in the messages: a clock or an id ahead of a ``cache_control`` breakpoint (the entry the
breakpoint writes is keyed on it and never read), and, in a request without a system prompt, ahead
of the static text of the first message (a one-shot prompt: the prompt starts there)."""

from __future__ import annotations

import pytest

from codecheck_helpers import run
from cachelint.diagnostics import Severity
from rule_cases import check_negative, check_positive, params

POSITIVE = {
    "clock-in-a-message-before-the-breakpoint": """
MANUAL = "The whole product manual. " * 400

def ask(question):
    return client.messages.create(model="m", max_tokens=10, system=BASE, messages=[
        {"role": "user", "content": [
            {"type": "text", "text": f"Asked at {datetime.now().isoformat()}"},  # here
            {"type": "text", "text": MANUAL, "cache_control": {"type": "ephemeral"}},
            {"type": "text", "text": question},
        ]},
    ])
""",
    "id-in-the-block-that-carries-the-only-breakpoint": """
def ask():
    messages = [{"role": "user", "content": [
        {"type": "text", "text": f"Ticket {uuid.uuid4()}: summarise the policy below.\\n{BASE}", "cache_control": {"type": "ephemeral"}},  # here
    ]}]
    return client.messages.create(model="m", max_tokens=10, messages=messages)
""",
    "request-level-cache-control-marks-the-last-block": """
def ask():
    return client.messages.create(
        model="m", max_tokens=10, cache_control={"type": "ephemeral"},
        messages=[{"role": "user", "content": f"Run {uuid.uuid4().hex}. Review the diff with these rules: {BASE}"}],  # here
    )
""",
    "clock-ahead-of-the-instructions-of-a-one-shot-prompt": """
INSTRUCTIONS = "Classify the ticket into one of forty queues, following the rules below. " * 30

def classify(ticket):
    prompt = f"Current time: {datetime.now()}\\n" + INSTRUCTIONS + ticket  # here
    return oai.chat.completions.create(model="gpt-5", messages=[{"role": "user", "content": prompt}])
""",
    "format-template-with-the-clock-first": """
RULES = "Answer in the house style. " * 50

def ask(question):
    text = "Now: {}\\n{}\\n\\nQuestion: {}".format(time.time(), RULES, question)  # here
    return oai.chat.completions.create(model="gpt-5", messages=[{"role": "user", "content": text}])
""",
    "responses-input-starting-with-the-clock": """
def ask():
    return oai.responses.create(model="gpt-5", input=f"{datetime.now():%H:%M} Read the guide and list its steps. {BASE}")  # here
""",
}

NEGATIVE = {
    "clock-after-the-breakpoint": """
MANUAL = "The whole product manual. " * 400

def ask(question):
    return client.messages.create(model="m", max_tokens=10, system=BASE, messages=[
        {"role": "user", "content": [
            {"type": "text", "text": MANUAL, "cache_control": {"type": "ephemeral"}},
            {"type": "text", "text": f"Asked at {datetime.now().isoformat()}: {question}"},
        ]},
    ])
""",
    "newest-message-of-a-conversation-carries-the-breakpoint": """
def turn(history, question):
    new = {"role": "user", "content": [{"type": "text", "text": f"[{datetime.now():%H:%M}] {question}", "cache_control": {"type": "ephemeral"}}]}
    return client.messages.create(model="m", max_tokens=10, system=BASE, messages=[*history, new])
""",
    "no-breakpoint-clock-in-a-later-message": """
def ask(question):
    return client.messages.create(model="m", max_tokens=10, system=BASE, messages=[
        {"role": "user", "content": question},
        {"role": "user", "content": f"Sent at {datetime.now()}"},
    ])
""",
    "one-shot-prompt-with-a-system-prompt": """
def ask(question):
    return oai.chat.completions.create(model="gpt-5", messages=[
        {"role": "system", "content": BASE},
        {"role": "user", "content": f"Now: {datetime.now()}. {question}"},
    ])
""",
    "one-shot-prompt-clock-at-the-end": """
def ask():
    return oai.chat.completions.create(model="gpt-5", messages=[{"role": "user", "content": BASE + f" Time: {datetime.now()}"}])
""",
    "one-shot-prompt-clock-before-the-question-only": """
def ask(question):
    return oai.chat.completions.create(model="gpt-5", messages=[{"role": "user", "content": f"{datetime.now()}: {question}"}])
""",
    "system-argument-given": """
def ask():
    return client.messages.create(model="m", max_tokens=10, system=BASE, messages=[{"role": "user", "content": f"{datetime.now()} Hello"}])
""",
}


@pytest.mark.parametrize("source", params(POSITIVE))
def test_reported(source):
    check_positive("CL105", source)


@pytest.mark.parametrize("source", params(NEGATIVE))
def test_quiet(source):
    check_negative("CL105", source)


def test_breakpoint_wording():
    (d,) = [d for d in run(POSITIVE["clock-in-a-message-before-the-breakpoint"]) if d.code == "CL105"]
    assert "up to the cache_control breakpoint" in d.message and "never read" in d.message, d.message
    assert d.severity is None


def test_one_shot_wording():
    (d,) = [d for d in run(POSITIVE["clock-ahead-of-the-instructions-of-a-one-shot-prompt"]) if d.code == "CL105"]
    assert "no system prompt" in d.message and "static text after it" in d.message, d.message


def test_a_date_first_is_daily():
    source = """
def ask():
    return oai.chat.completions.create(model="gpt-5", messages=[{"role": "user", "content": f"Today is {date.today()}. {BASE}"}])
"""
    (d,) = [d for d in run(source) if d.code == "CL105"]
    assert d.severity == Severity.WARNING
