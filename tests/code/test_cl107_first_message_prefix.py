"""CL107 where there is no system prompt to cache: an agent loop that sends its long instructions
as the first user message, built once before the loop, and only adds to the conversation after
it. Tools, system, then messages make the prompt, so that message's leading static text is part
of the static prefix every request of the loop pays for in full."""

from __future__ import annotations

import pytest

from codecheck_helpers import marked_lines, run
from rule_cases import check_negative, check_positive, params

# about 1,100 tokens of instructions, with the request filled in at the very end
PLAYBOOK = (
    'PLAYBOOK = "Read the task, plan the steps, then call one tool at a time and check its output. " * 55'
    ' + "\\n<task>{{task}}</task>\\n"\n'
)
SHORT = 'PLAYBOOK = "Do the task with the tools. <task>{{task}}</task>"\n'

AGENT_LOOP = """
def work(task, budget):
    opening = PLAYBOOK.replace("{{task}}", task)
    messages = [{"role": "user", "content": opening}]
    turns = 0
    while turns < budget:
        turns += 1
        reply = client.messages.create(model="claude-sonnet-4-5", max_tokens=800, tools=[{"name": "shell", "description": "Run a shell command"}], messages=messages)  # here
        messages.append({"role": "assistant", "content": reply.content})
        messages.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t", "content": "done"}]})
"""

POSITIVE = {
    "instructions-dedented-with-the-module-s-function": PLAYBOOK
    + """
import textwrap

def work(task):
    messages = [{"role": "user", "content": textwrap.dedent(PLAYBOOK).replace("{{task}}", task)}]
    for _step in range(8):
        reply = client.messages.create(model="claude-sonnet-4-5", max_tokens=800, messages=messages)  # here
        messages.append({"role": "assistant", "content": reply.content})
""",
    "template-filled-at-its-end-then-an-agent-loop": PLAYBOOK + AGENT_LOOP,
    "f-string-opening-with-the-instructions": PLAYBOOK
    + """
def work(task):
    messages = [{"role": "user", "content": f"{PLAYBOOK}Now: {task}"}]
    for _step in range(8):
        reply = client.messages.create(model="claude-sonnet-4-5", max_tokens=800, messages=messages)  # here
        messages.append({"role": "assistant", "content": reply.content})
""",
    "text-blocks-and-a-format-field": PLAYBOOK
    + """
TEMPLATE = PLAYBOOK + "Repository: {repo}"

def work(repo):
    messages = [{"role": "user", "content": [{"type": "text", "text": TEMPLATE.format(repo=repo)}]}]
    while True:
        reply = client.messages.create(model="claude-sonnet-4-5", max_tokens=800, messages=messages)  # here
        if reply.stop_reason == "end_turn":
            break
        messages += [{"role": "assistant", "content": reply.content}]
""",
    "a-short-static-system-prompt-before-it": PLAYBOOK
    + """
def work(task):
    messages = [{"role": "user", "content": PLAYBOOK.replace("{{task}}", task)}]
    for _step in range(8):
        print(len(messages))
        reply = client.messages.create(model="claude-sonnet-4-5", max_tokens=800, system=BASE, messages=messages)  # here
        messages.append({"role": "assistant", "content": reply.content})
""",
    "bedrock-converse-loop": PLAYBOOK
    + """
import boto3

bedrock = boto3.client("bedrock-runtime")

def work(task):
    messages = [{"role": "user", "content": [{"text": PLAYBOOK.replace("{{task}}", task)}]}]
    for _step in range(8):
        reply = bedrock.converse(modelId="anthropic.claude-sonnet-4-5", messages=messages)  # here
        messages.append(reply["output"]["message"])
""",
    "a-scripts-loop-at-module-level": PLAYBOOK
    + """
def log_turn(messages, reply):
    messages.append({"role": "assistant", "content": reply.content})

messages = [{"role": "user", "content": PLAYBOOK.replace("{{task}}", os.environ["TASK"])}]
for _step in range(8):
    reply = client.messages.create(model="claude-sonnet-4-5", max_tokens=800, messages=messages)  # here
    messages.append({"role": "assistant", "content": reply.content})
""",
}

NEGATIVE = {
    "a-function-of-the-module-rewrites-the-list": PLAYBOOK
    + """
def refresh(notes):
    messages[0] = {"role": "user", "content": PLAYBOOK + notes}

messages = [{"role": "user", "content": PLAYBOOK.replace("{{task}}", os.environ["TASK"])}]
for _step in range(8):
    reply = client.messages.create(model="claude-sonnet-4-5", max_tokens=800, messages=messages)
    messages.append({"role": "assistant", "content": reply.content})
    refresh(str(reply.content))
""",
    "first-message-rewritten-in-the-loop": PLAYBOOK
    + """
def work(task, notes):
    messages = [{"role": "user", "content": PLAYBOOK.replace("{{task}}", task)}]
    for _step in range(8):
        reply = client.messages.create(model="claude-sonnet-4-5", max_tokens=800, messages=messages)
        messages.append({"role": "assistant", "content": reply.content})
        messages[0] = {"role": "user", "content": PLAYBOOK.replace("{{task}}", task) + str(notes)}
""",
    "first-message-content-rewritten-in-the-loop": PLAYBOOK
    + """
def work(task, notes):
    messages = [{"role": "user", "content": PLAYBOOK.replace("{{task}}", task)}]
    for _step in range(8):
        reply = client.messages.create(model="claude-sonnet-4-5", max_tokens=800, messages=messages)
        messages.append({"role": "assistant", "content": reply.content})
        messages[0]["content"] += str(notes)
""",
    "conversation-handed-to-a-helper-in-the-loop": PLAYBOOK
    + """
def work(task, trim):
    messages = [{"role": "user", "content": PLAYBOOK.replace("{{task}}", task)}]
    for _step in range(8):
        reply = client.messages.create(model="claude-sonnet-4-5", max_tokens=800, messages=messages)
        messages.append({"role": "assistant", "content": reply.content})
        trim(messages)
""",
    "a-sliding-window-rebinds-the-list": PLAYBOOK
    + """
def work(task):
    messages = [{"role": "user", "content": PLAYBOOK.replace("{{task}}", task)}]
    for _step in range(8):
        reply = client.messages.create(model="claude-sonnet-4-5", max_tokens=800, messages=messages)
        messages.append({"role": "assistant", "content": reply.content})
        messages = messages[-6:]
""",
    "short-first-message": SHORT + AGENT_LOOP.replace("  # here", ""),
    "marker-on-the-first-message": PLAYBOOK
    + """
def work(task):
    messages = [{"role": "user", "content": [
        {"type": "text", "text": PLAYBOOK, "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": task},
    ]}]
    for _step in range(8):
        reply = client.messages.create(model="claude-sonnet-4-5", max_tokens=800, messages=messages)
        messages.append({"role": "assistant", "content": reply.content})
""",
    "automatic-caching-on-the-request": PLAYBOOK
    + """
def work(task):
    messages = [{"role": "user", "content": PLAYBOOK.replace("{{task}}", task)}]
    for _step in range(8):
        reply = client.messages.create(model="claude-sonnet-4-5", max_tokens=800, cache_control={"type": "ephemeral"}, messages=messages)
        messages.append({"role": "assistant", "content": reply.content})
""",
    "provider-that-caches-by-itself": PLAYBOOK
    + """
def work(task):
    messages = [{"role": "user", "content": PLAYBOOK.replace("{{task}}", task)}]
    for _step in range(8):
        reply = oai.chat.completions.create(model="gpt-5", messages=messages)
        messages.append({"role": "assistant", "content": reply.choices[0].message.content})
""",
    "first-message-opens-with-the-users-text": PLAYBOOK
    + """
def work(task):
    messages = [{"role": "user", "content": f"{task}\\n\\n{PLAYBOOK}"}]
    for _step in range(8):
        reply = client.messages.create(model="claude-sonnet-4-5", max_tokens=800, messages=messages)
        messages.append({"role": "assistant", "content": reply.content})
""",
    "one-request-no-loop": PLAYBOOK
    + """
def work(task):
    messages = [{"role": "user", "content": PLAYBOOK.replace("{{task}}", task)}]
    reply = client.messages.create(model="claude-sonnet-4-5", max_tokens=800, messages=messages)
    return reply.content
""",
    "system-prompt-made-per-request-ends-the-static-prefix": PLAYBOOK
    + """
def work(task, user):
    messages = [{"role": "user", "content": PLAYBOOK.replace("{{task}}", task)}]
    for _step in range(8):
        reply = client.messages.create(model="claude-sonnet-4-5", max_tokens=800, system=f"You work for {user}.", messages=messages)
        messages.append({"role": "assistant", "content": reply.content})
""",
}


@pytest.mark.parametrize("source", params(POSITIVE))
def test_reported(source):
    check_positive("CL107", source)


@pytest.mark.parametrize("source", params(NEGATIVE))
def test_quiet(source):
    check_negative("CL107", source, only_this_code=True)


def test_message_points_at_the_first_message_and_its_fix():
    source = PLAYBOOK + AGENT_LOOP
    (d,) = [d for d in run(source) if d.code == "CL107"]
    opening = marked_lines(source)[0] - 4  # the line that builds the message list
    assert "the static prefix includes the first user message's leading text" in d.message, d.message
    assert f"(line {opening})" in d.message, d.message
    assert "a cache_control breakpoint on that message's static content block" in d.message, d.message
    assert "moved to system= and marked there" in d.message, d.message


def test_bedrock_names_its_own_marker():
    (d,) = [d for d in run(POSITIVE["bedrock-converse-loop"]) if d.code == "CL107"]
    assert "a cachePoint block after that message's static text" in d.message, d.message


def test_tools_and_system_long_enough_keep_their_own_wording():
    source = (
        PLAYBOOK
        + 'GUIDE = "Review the change against every rule of the team guide, one by one. " * 70\n'
        + """
def work(task):
    messages = [{"role": "user", "content": PLAYBOOK.replace("{{task}}", task)}]
    for _step in range(8):
        reply = client.messages.create(model="claude-sonnet-4-5", max_tokens=800, system=GUIDE, messages=messages)  # here
        messages.append({"role": "assistant", "content": reply.content})
"""
    )
    check_positive("CL107", source)
    (d,) = [d for d in run(source) if d.code == "CL107"]
    assert "go to system= of client.messages.create" in d.message, d.message
    assert "first user message" not in d.message, d.message
