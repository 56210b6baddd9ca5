"""CL107 missing-cache-breakpoint: a long static prompt sent again and again, with no breakpoint, to
a provider that caches only at one."""

from __future__ import annotations

import pytest

from codecheck_helpers import run
from cachelint.diagnostics import Severity
from rule_cases import check_negative, check_positive, params

GUIDE = 'GUIDE = "Review the change against every rule of the team guide, one by one. " * 70\n'

POSITIVE = {
    "constant-system-prompt-in-a-handler": GUIDE
    + """
def review(diff):
    return client.messages.create(model="claude-sonnet-4-5", max_tokens=10, system=GUIDE, messages=[{"role": "user", "content": diff}])  # here
""",
    "text-blocks-without-a-marker": GUIDE
    + """
def review(diff):
    return client.messages.create(
        model="claude-opus-4-1",
        max_tokens=10,
        system=[{"type": "text", "text": GUIDE}, {"type": "text", "text": "Answer in English."}],  # here
        messages=[{"role": "user", "content": diff}],
    )
""",
    "dedented-literal-in-a-loop": """
import textwrap

ROLE = \"\"\"
    You are the release reviewer.
\"\"\"

for path in glob.glob("*.diff"):
    client.messages.create(
        model="claude-sonnet-4-5",
        max_tokens=10,
        system=textwrap.dedent(ROLE * 200),  # here
        messages=[{"role": "user", "content": open(path).read()}],
    )
""",
    "system-prompt-formatted-from-constants": GUIDE
    + """
TEAM = "platform"

def review(diff):
    system = f"You review for the {TEAM} team. {GUIDE}"
    return client.messages.create(model="claude-sonnet-4-5", max_tokens=10, system=system, messages=[{"role": "user", "content": diff}])  # here
""",
    "bedrock-converse-without-a-cache-point": GUIDE
    + """
import boto3

bedrock = boto3.client("bedrock-runtime")

def review(diff):
    return bedrock.converse(modelId="anthropic.claude-sonnet-4-5", system=[{"text": GUIDE}], messages=[{"role": "user", "content": [{"text": diff}]}])  # here
""",
}

NEGATIVE = {
    "system-prompt-formatted-with-the-request-s-value": GUIDE
    + """
def review(diff, author):
    system = f"You review {author}'s change. {GUIDE}"
    return client.messages.create(model="claude-sonnet-4-5", max_tokens=10, system=system, messages=[{"role": "user", "content": diff}])
""",
    "a-short-text-dedented-from-a-long-indented-literal": """
import textwrap

ROLE = \"\"\"
                                                                                      You review.
\"\"\"

def review(diff):
    return client.messages.create(model="claude-sonnet-4-5", max_tokens=10, system=textwrap.dedent(ROLE * 60), messages=[{"role": "user", "content": diff}])
""",
    "a-breakpoint-on-the-system-block": GUIDE
    + """
def review(diff):
    return client.messages.create(
        model="claude-sonnet-4-5", max_tokens=10,
        system=[{"type": "text", "text": GUIDE, "cache_control": {"type": "ephemeral"}}],
        messages=[{"role": "user", "content": diff}],
    )
""",
    "automatic-caching-on-the-request": GUIDE
    + """
def review(diff):
    return client.messages.create(model="claude-sonnet-4-5", max_tokens=10, cache_control={"type": "ephemeral"}, system=GUIDE, messages=[{"role": "user", "content": diff}])
""",
    "a-helper-of-the-module-adds-the-marker": GUIDE
    + """
def cached(messages):
    messages[-1]["content"][-1]["cache_control"] = {"type": "ephemeral"}
    return messages

def review(diff):
    return client.messages.create(model="claude-sonnet-4-5", max_tokens=10, system=GUIDE, messages=cached([{"role": "user", "content": [{"type": "text", "text": diff}]}]))
""",
    "short-system-prompt": """
def review(diff):
    return client.messages.create(model="claude-sonnet-4-5", max_tokens=10, system=BASE, messages=[{"role": "user", "content": diff}])
""",
    "below-the-model-minimum": GUIDE
    + """
def review(diff):
    return client.messages.create(model="claude-haiku-4-5", max_tokens=10, system=GUIDE, messages=[{"role": "user", "content": diff}])
""",
    "system-built-per-request": GUIDE
    + """
def review(diff, team):
    return client.messages.create(model="claude-sonnet-4-5", max_tokens=10, system=GUIDE + team, messages=[{"role": "user", "content": diff}])
""",
    "provider-that-caches-by-itself": GUIDE
    + """
def review(diff):
    return oai.chat.completions.create(model="gpt-5", messages=[{"role": "system", "content": GUIDE}, {"role": "user", "content": diff}])
""",
    "options-out-of-view": GUIDE
    + """
def review(diff, **options):
    return client.messages.create(model="claude-sonnet-4-5", max_tokens=10, system=GUIDE, messages=[{"role": "user", "content": diff}], **options)
""",
}


@pytest.mark.parametrize("source", params(POSITIVE))
def test_reported(source):
    check_positive("CL107", source)
    found = [d for d in run(source) if d.code == "CL107"]
    assert all(d.severity is None and "0.1x" in d.message for d in found)


@pytest.mark.parametrize("source", params(NEGATIVE))
def test_quiet(source):
    check_negative("CL107", source)


def test_a_scripts_one_request_is_information():
    source = GUIDE + 'client.messages.create(model="claude-sonnet-4-5", max_tokens=10, system=GUIDE, messages=[])\n'
    (d,) = [d for d in run(source) if d.code == "CL107"]
    assert d.severity == Severity.INFO and "once per process" in d.message


def test_message_names_tokens_and_minimum():
    (d,) = [d for d in run(POSITIVE["constant-system-prompt-in-a-handler"]) if d.code == "CL107"]
    assert "tokens of static prompt (claude-sonnet-4-5: 1,024 at least)" in d.message, d.message
