"""The cases of the static peers' test suites (pcdlint 0.3.0, cachedrift 0.1.0, llmdoctor 0.2.5)
that we agree with, rewritten as agent code of our own, class by class: each positive reported,
each negative quiet. Where we disagree with a peer, and why, is in docs/code-checks.md (*Compared
with the peers' own tests*)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from codecheck_helpers import run
from rule_cases import check_positive, params


def handler(setup: str, expr: str) -> str:
    """A value made in a request handler and put first in the system prompt."""
    return f"""
{setup}

def handle(messages):
    stamp = {expr}  # here
    return client.messages.create(model="m", max_tokens=100, system=f"[{{stamp}}] " + BASE, messages=messages)
"""


# What makes a value differ between requests (or processes), each with a real sink.
SOURCES = {
    "clock": ("", "datetime.now()"),
    "clock-utc": ("", "datetime.utcnow()"),
    "clock-today": ("", "datetime.today()"),
    "clock-with-tz-none": ("", "datetime.now(tz=None)"),
    "date-today": ("", "date.today()"),
    "epoch-seconds": ("", "time.time()"),
    "epoch-nanoseconds": ("", "time.time_ns()"),
    "monotonic-counter": ("", "time.monotonic()"),
    "performance-counter": ("", "time.perf_counter()"),
    "process-cpu-time": ("", "time.process_time()"),
    "thread-cpu-time": ("", "time.thread_time()"),
    "local-time": ("", "time.localtime()"),
    "utc-time": ("", "time.gmtime()"),
    "ctime-now": ("", "time.ctime()"),
    "strftime-of-now": ("", 'time.strftime("%Y-%m-%d")'),
    "django-now": ("from django.utils import timezone", "timezone.now()"),
    "django-now-dotted": ("import django.utils.timezone", "django.utils.timezone.now()"),
    "pandas-now": ("import pandas as pd", "pd.Timestamp.now()"),
    "uuid1": ("", "uuid.uuid1()"),
    "uuid4": ("", "uuid.uuid4()"),
    "uuid6": ("", "uuid.uuid6()"),
    "uuid7": ("", "uuid.uuid7()"),
    "uuid4-as-str": ("", "str(uuid.uuid4())"),
    "random-float": ("", "random.random()"),
    "random-int": ("", "random.randint(1, 6)"),
    "random-range": ("", "random.randrange(100)"),
    "random-choice": ("", 'random.choice(["ask", "tell"])'),
    "random-choices": ("", 'random.choices(["ask", "tell"], k=3)'),
    "random-sample": ("", 'random.sample(["ask", "tell", "show"], k=2)'),
    "random-uniform": ("", "random.uniform(0.5, 1.5)"),
    "random-bits": ("", "random.getrandbits(16)"),
    "random-bytes": ("", "random.randbytes(4)"),
    "random-gauss": ("", "random.gauss(0.0, 2.0)"),
    "secrets-hex": ("", "secrets.token_hex(8)"),
    "secrets-urlsafe": ("", "secrets.token_urlsafe(8)"),
    "secrets-bytes": ("", "secrets.token_bytes(8)"),
    "secrets-choice": ("", 'secrets.choice(["red", "blue"])'),
    "secrets-below": ("", "secrets.randbelow(50)"),
    "os-urandom": ("", "os.urandom(8)"),
    "clock-through-an-alias": ("from datetime import datetime as clock", "clock.now()"),
    "random-module-alias": ("import random as rng", 'rng.choice(["a", "b"])'),
    "uuid4-imported-as-a-name": ("from uuid import uuid4 as new_id", "new_id()"),
    "choice-imported-by-name": ("from random import choice", 'choice(["a", "b"])'),
    "uuid4-imported-by-name": ("from uuid import uuid4", "uuid4()"),
    "clock-to-milliseconds": ("", "int(time.time() * 1000)"),
    "negated-clock": ("", "-int(time.time())"),
    "clock-isoformat": ("", "datetime.now().isoformat()"),
}

# Fixed for a process, different in the next one (information).
PER_PROCESS = {
    "process-id": ("", "os.getpid()"),
    "host-name": ("import socket", "socket.gethostname()"),
    "node-name": ("import platform", "platform.node()"),
    "login-name": ("import getpass", "getpass.getuser()"),
    "hash-of-a-literal": ("", 'hash("planner")'),
    "hash-of-a-str-name": ('ROLE = "planner"', "hash(ROLE)"),
    "hash-of-an-fstring": ('ROLE = "planner"', 'hash(f"{ROLE}-v2")'),
}

# Look-alikes of those that are the same on every request.
FIXED = {
    "ctime-of-epoch": ("", "time.ctime(0)"),
    "localtime-of-epoch": ("", "time.localtime(0)"),
    "gmtime-of-epoch": ("", "time.gmtime(0)"),
    "strftime-of-a-given-tuple": ("", 'time.strftime("%Y", (2025, 6, 1, 0, 0, 0, 6, 152, 0))'),
    "hash-of-a-number": ("", "hash(1024)"),
    "hash-of-an-int-name": ("LIMIT = 7", "hash(LIMIT)"),
    "a-method-named-time": ("", "event.time()"),
    "choice-never-imported": ("", "choice(candidates)"),
}


@pytest.mark.parametrize("case", params({k: handler(*v) for k, v in SOURCES.items()}))
def test_volatile_source_reported(case):
    check_positive("CL105", case)


@pytest.mark.parametrize("case", params({k: handler(*v) for k, v in PER_PROCESS.items()}))
def test_per_process_source_is_information(case):
    check_positive("CL105", case)
    assert all(d.severity is not None and d.severity.value == "info" for d in run(case))


@pytest.mark.parametrize("case", params({k: handler(*v) for k, v in FIXED.items()}))
def test_fixed_value_quiet(case):
    assert run(case) == [], [d.message for d in run(case)]


# The calls that send a request (Anthropic's shapes; OpenAI's instructions=), and look-alikes.
SINK_SHAPES = {
    "messages-create": 'client.messages.create(model="m", max_tokens=100, system=PROMPT, messages=[])',
    "messages-stream": 'client.messages.stream(model="m", max_tokens=100, system=PROMPT, messages=[])',
    "beta-messages": 'client.beta.messages.create(model="m", max_tokens=100, system=PROMPT, messages=[])',
    "nested-client": 'gateway.aio.messages.create(model="m", max_tokens=100, system=PROMPT, messages=[])',
    "client-made-inline": 'anthropic.AsyncAnthropic().messages.create(model="m", max_tokens=100, system=PROMPT, messages=[])',
    "responses-instructions": 'oai.responses.create(model="gpt-5", instructions=PROMPT, input="hi")',
    "system-message-first": 'oai.chat.completions.create(model="gpt-5", messages=[{"role": "system", "content": PROMPT}])',
    "positional-messages": 'client.messages.create("m", [{"role": "system", "content": PROMPT}])',
    "no-model-keyword": 'client.messages.create(messages=[{"role": "system", "content": PROMPT}])',
}
NOT_SINKS = {
    "a-repository-method": 'self_repo.messages_repo.create_user(model="m", system=PROMPT)',
    "an-index-of-a-database": 'db.messages.create_index(model="m", system=PROMPT)',
    "another-verb": 'stats.completions.recreate(model="m", system=PROMPT)',
    "a-text-message": "sms.messages.create(body=PROMPT, from_='+1', to='+2')",
}


def _sent(call: str) -> str:
    return f"""
def handle():
    PROMPT = f"Now {{datetime.now()}}. " + BASE  # here
    return {call}
"""


@pytest.mark.parametrize("case", params({k: _sent(v) for k, v in SINK_SHAPES.items()}))
def test_sink_shapes_reported(case):
    check_positive("CL105", case)


@pytest.mark.parametrize("case", params({k: _sent(v) for k, v in NOT_SINKS.items()}))
def test_look_alike_calls_quiet(case):
    assert run(case) == [], [d.message for d in run(case)]


def test_helper_taking_messages_and_model_is_no_sink():
    source = """
def render(messages, model):
    return messages[0]

def handle():
    return render(messages=[{"role": "user", "content": f"At {datetime.now()}"}], model="m")
"""
    assert run(source) == []


# How the value travels into the system prompt: each must be followed.
PROPAGATION = {
    "module-constant-sent-at-module-level": """
SYSTEM_PROMPT = f"Clock: {datetime.now()}. " + BASE  # here
client.messages.create(model="m", max_tokens=100, system=SYSTEM_PROMPT, messages=[])
""",
    "repeated-literal-after-the-clock": """
SYSTEM_PROMPT = f"{datetime.now()} " + "Follow the rules. " * 20  # here
client.messages.create(model="m", max_tokens=100, system=SYSTEM_PROMPT, messages=[])
""",
    "clock-bound-to-a-capitalised-name": """
STAMP = f"Time {datetime.now()}"  # here
SYSTEM_PROMPT = STAMP + BASE
client.messages.create(model="m", max_tokens=100, system=SYSTEM_PROMPT, messages=[])
""",
    "local-of-a-function": """
def handle(messages):
    prompt = f"Time {datetime.now()}. {BASE}"  # here
    return client.messages.create(model="m", max_tokens=100, system=prompt, messages=messages)

def other(messages):
    prompt = "Static. " * 40
    return client.messages.create(model="m", max_tokens=100, system=prompt, messages=messages)
""",
    "local-of-a-method": """
class Agent:
    def step(self, messages):
        prompt = f"Time {datetime.now()}. {BASE}"  # here
        return client.messages.create(model="m", max_tokens=100, system=prompt, messages=messages)

    def quiet_step(self, messages):
        return client.messages.create(model="m", max_tokens=100, system="Static. " * 40, messages=messages)
""",
    "joined-list-of-fstrings": """
PROMPT = "Notes: " + ", ".join([f"{datetime.now()}"])  # here
client.messages.create(model="m", max_tokens=100, system=PROMPT, messages=[])
""",
    "helper-return-bound-first": """
def header():
    return f"Time {datetime.now()}"  # here

PROMPT = header()
client.messages.create(model="m", max_tokens=100, system=PROMPT, messages=[])
""",
    "helper-called-in-the-argument": """
def header():
    return f"Time {datetime.now()}"  # here

client.messages.create(model="m", max_tokens=100, system=header(), messages=[])
""",
    "str-of-a-clock-inline": """
started = datetime.now()  # here
client.messages.create(model="m", max_tokens=100, system=str(started), messages=[])
""",
    "blocks-list-bound-to-a-name": """
BLOCKS = [{"type": "text", "text": f"Time {datetime.now()}"}]  # here
client.messages.create(model="m", max_tokens=100, system=BLOCKS, messages=[{"role": "user", "content": "hi"}])
""",
    "block-list-written-at-the-call": """
started = datetime.now()  # here
client.messages.create(model="m", max_tokens=100, system=[{"type": "text", "text": f"{started} " + BASE}], messages=[])
""",
    "instructions-starting-with-the-clock": """
oai.responses.create(model="gpt-5", instructions=f"{datetime.now()} " + BASE * 3, input="hi")  # here
""",
    "conditional-expression": """
PROMPT = f"{datetime.now()} " + BASE if verbose else BASE  # here
client.messages.create(model="m", max_tokens=100, system=PROMPT, messages=[])
""",
    "try-body": """
try:
    PROMPT = f"{datetime.now()} " + BASE  # here
except KeyError:
    PROMPT = BASE
client.messages.create(model="m", max_tokens=100, system=PROMPT, messages=[])
""",
    "else-branch": """
if terse:
    PROMPT = BASE
else:
    PROMPT = f"{datetime.now()} " + BASE  # here
client.messages.create(model="m", max_tokens=100, system=PROMPT, messages=[])
""",
    "helpers-defined-after-their-callers": """
def outer():
    return middle()

def middle():
    return inner()

def inner():
    return datetime.now()  # here

PROMPT = f"{outer()} " + BASE
client.messages.create(model="m", max_tokens=100, system=PROMPT, messages=[])
""",
    "plus-equals-onto-a-static-head": """
PROMPT = "Head. "
PROMPT += f"{datetime.now()}"  # here
client.messages.create(model="m", max_tokens=100, system=PROMPT, messages=[])
""",
    "a-case-of-a-match": """
match mode:
    case "stamped":
        note = f"{datetime.now()}"  # here
    case _:
        note = ""
client.messages.create(model="m", max_tokens=100, system=note + BASE, messages=[])
""",
    "a-match-with-no-catch-all": """
note = f"{datetime.now()}"  # here
match mode:
    case "plain":
        note = ""
client.messages.create(model="m", max_tokens=100, system=note + BASE, messages=[])
""",
    "an-except-star-handler": """
note = ""
try:
    load()
except* OSError:
    note = f"{datetime.now()}"  # here
client.messages.create(model="m", max_tokens=100, system=note + BASE, messages=[])
""",
    "a-with-block": """
with open("notes.txt") as notes:
    note = f"{datetime.now()}"  # here
client.messages.create(model="m", max_tokens=100, system=note + BASE, messages=[])
""",
    "value-the-call-used-before-a-rebinding": """
prompt = f"{datetime.now()} " + BASE  # here
client.messages.create(model="m", max_tokens=100, system=prompt, messages=[])
prompt = BASE
""",
    "plus-equals-after-a-module-prompt-and-a-function": """
def unrelated():
    return 1

prompt = BASE
prompt += f"{datetime.now()}"  # here
client.messages.create(model="m", max_tokens=100, system=prompt, messages=[])
""",
    "global-defined-after-the-function-that-sends-it": """
def handle(client):
    return client.messages.create(model="m", max_tokens=100, system=PROMPT, messages=[])

PROMPT = f"{datetime.now()} " + BASE  # here
""",
    "tuple-unpacking": """
prompt, question = f"T {datetime.now()} {BASE}", "hi"  # here
client.messages.create(model="m", max_tokens=100, system=prompt, messages=[{"role": "user", "content": question}])
""",
    "list-unpacking": """
[prompt, question] = [f"T {datetime.now()} {BASE}", "hi"]  # here
client.messages.create(model="m", max_tokens=100, system=prompt, messages=[{"role": "user", "content": question}])
""",
    "conditional-at-the-call": """
client.messages.create(model="m", max_tokens=100, system=(f"T {datetime.now()} {BASE}" if verbose else BASE), messages=[])  # here
""",
    "attribute-set-in-the-constructor": """
class Builder:
    def __init__(self):
        self.system = f"T {datetime.now()} {BASE}"  # here

    def go(self):
        return client.messages.create(model="m", max_tokens=100, system=self.system, messages=[])
""",
    "attributes-of-two-classes-kept-apart": """
class Plain:
    def __init__(self):
        self.system = BASE

    def go(self):
        return client.messages.create(model="m", max_tokens=100, system=self.system, messages=[])

class Stamped:
    def __init__(self):
        self.system = f"T {datetime.now()} {BASE}"  # here

    def go(self):
        return client.messages.create(model="m", max_tokens=100, system=self.system, messages=[])
""",
    "argument-of-a-helper": """
def with_time(ts):
    return f"Time {ts}. {BASE}"

PROMPT = with_time(datetime.now())  # here
client.messages.create(model="m", max_tokens=100, system=PROMPT, messages=[])
""",
    "keyword-argument-of-a-helper": """
def with_time(ts):
    return f"Time {ts}. {BASE}"

PROMPT = with_time(ts=datetime.now())  # here
client.messages.create(model="m", max_tokens=100, system=PROMPT, messages=[])
""",
    "method-returning-it": """
class Builder:
    def build(self):
        return f"Time {datetime.now()}. {BASE}"  # here

    def go(self):
        prompt = self.build()
        return client.messages.create(model="m", max_tokens=100, system=prompt, messages=[])
""",
    "method-given-it": """
class Builder:
    def build(self, ts):
        return f"Time {ts}. {BASE}"

    def go(self):
        prompt = self.build(datetime.now())  # here
        return client.messages.create(model="m", max_tokens=100, system=prompt, messages=[])
""",
    "methods-of-two-classes-kept-apart": """
class Plain:
    def build(self):
        return BASE

    def go(self):
        return client.messages.create(model="m", max_tokens=100, system=self.build(), messages=[])

class Stamped:
    def build(self):
        return f"Time {datetime.now()}. {BASE}"  # here

    def go(self):
        return client.messages.create(model="m", max_tokens=100, system=self.build(), messages=[])
""",
    "awaited-helper": """
async def header():
    return f"Time {datetime.now()}. {BASE}"  # here

async def handle():
    prompt = await header()
    return client.messages.create(model="m", max_tokens=100, system=prompt, messages=[])
""",
    "percent-formatting": """
PROMPT = "Time: %s\\n" % datetime.now() + BASE  # here
client.messages.create(model="m", max_tokens=100, system=PROMPT, messages=[])
""",
    "walrus-at-the-call": """
client.messages.create(model="m", max_tokens=100, system=(p := f"T {datetime.now()} {BASE}"), messages=[])  # here
""",
    "key-of-a-dict": """
ctx = {"t": datetime.now()}  # here
client.messages.create(model="m", max_tokens=100, system=f"Time: {ctx['t']} {BASE}", messages=[])
""",
    "annotated-assignments": """
stamp: str = datetime.now().isoformat()  # here
prompt: str = f"Time {stamp}. " + BASE
client.messages.create(model="m", max_tokens=100, system=prompt, messages=[])
""",
    "format-with-the-clock-first": """
PROMPT = "Time {}: {}".format(datetime.now(), BASE)  # here
client.messages.create(model="m", max_tokens=100, system=PROMPT, messages=[])
""",
    "cached-system-block": """
client.messages.create(
    model="m", max_tokens=100,
    system=[{"type": "text", "text": BASE * 20 + f"{datetime.now()}", "cache_control": {"type": "ephemeral"}}],  # here
    messages=[{"role": "user", "content": "hi"}],
)
""",
    "request-level-cache-control": """
client.messages.create(
    model="m", max_tokens=100, cache_control={"type": "ephemeral"},
    system=f"{BASE} {datetime.now()}",  # here
    messages=[{"role": "user", "content": "hi"}],
)
""",
    "clock-at-the-end-of-the-system-prompt": """
PROMPT = BASE * 10 + f" {datetime.now()}"  # here
client.messages.create(model="m", max_tokens=100, system=PROMPT, messages=[])
""",
    "latin-1-source": """
# -*- coding: latin-1 -*-
PROMPT = f"{datetime.now()} " + BASE  # here
client.messages.create(model="m", max_tokens=100, system=PROMPT, messages=[])
""",
}

# The same shapes with nothing that changes.
STATIC = {
    "rebound-to-text-before-use": """
stamp = datetime.now()
stamp = "2020-01-01 static"
client.messages.create(model="m", max_tokens=100, system=f"{stamp} fixed", messages=[])
""",
    "both-branches-static": """
if terse:
    PROMPT = BASE
else:
    PROMPT = BASE + " More detail."
client.messages.create(model="m", max_tokens=100, system=PROMPT, messages=[])
""",
    "helper-returning-text": """
def header():
    return "Static header. " * 30

client.messages.create(model="m", max_tokens=100, system=header(), messages=[])
""",
    "helper-ignoring-its-argument": """
def with_time(ts):
    return f"Policy: {BASE}"

client.messages.create(model="m", max_tokens=100, system=with_time(datetime.now()), messages=[])
""",
    "static-attribute": """
class Builder:
    def __init__(self):
        self.system = BASE

    def go(self):
        return client.messages.create(model="m", max_tokens=100, system=self.system, messages=[])
""",
    "static-method-result": """
class Builder:
    def build(self):
        return BASE

    def go(self):
        return client.messages.create(model="m", max_tokens=100, system=self.build(), messages=[])
""",
    "static-unpacking": """
prompt, question = BASE, "hi"
client.messages.create(model="m", max_tokens=100, system=prompt, messages=[{"role": "user", "content": question}])
""",
    "static-key-of-a-mixed-dict": """
ctx = {"policy": BASE, "t": datetime.now()}
client.messages.create(model="m", max_tokens=100, system=f"Policy: {ctx['policy']}", messages=[])
""",
    "static-key-of-a-static-dict": """
ctx = {"policy": BASE}
client.messages.create(model="m", max_tokens=100, system=f"Policy: {ctx['policy']}", messages=[])
""",
    "percent-of-text": """
client.messages.create(model="m", max_tokens=100, system="Policy: %s" % BASE, messages=[])
""",
    "walrus-of-text": """
client.messages.create(model="m", max_tokens=100, system=(p := BASE), messages=[])
""",
    "long-concatenation": "X = "
    + " + ".join(['"a"'] * 400)
    + '\nclient.messages.create(model="m", max_tokens=100, system=X, messages=[])\n',
    "json-of-a-literal-dict": """
client.messages.create(model="m", max_tokens=100, system=BASE + json.dumps({"b": 1, "a": 2}), messages=[])
""",
    "json-of-a-literal-list": """
client.messages.create(model="m", max_tokens=100, system=BASE + json.dumps(["b", "a"]), messages=[])
""",
    "json-with-sorted-keys": """
settings_blob = json.dumps(config, sort_keys=True)
client.messages.create(model="m", max_tokens=100, system=BASE + settings_blob, messages=[])
""",
    "json-written-to-a-file": """
def save(cache):
    with open("cache.json", "w") as f:
        f.write(json.dumps(cache))
""",
    "json-that-no-prompt-reads": """
audit = json.dumps(records)
client.messages.create(model="m", max_tokens=100, system=BASE * 10, messages=[])
""",
    "set-joined-for-a-log-line": """
labels = {"a", "b"}
print(", ".join(labels))
""",
    "set-joined-into-names-no-call-reads": """
labels = {"a", "b"}
context = ", ".join(labels)
system_info = ", ".join(labels)
print(context, system_info)
""",
    "sorted-set-joined": """
labels = {"a", "b"}
client.messages.create(model="m", max_tokens=100, system=BASE + ", ".join(sorted(labels)), messages=[])
""",
    "list-joined": """
labels = ["a", "b"]
client.messages.create(model="m", max_tokens=100, system=BASE + ", ".join(labels), messages=[])
""",
    "str-of-a-sorted-set": """
labels = {"a", "b"}
oai.chat.completions.create(model="gpt-5", messages=[{"role": "user", "content": str(sorted(labels))}])
""",
    "set-rebound-to-a-list": """
labels = {"b", "a"}
labels = ["b", "a"]
client.messages.create(model="m", max_tokens=100, system=", ".join(labels), messages=[])
""",
    "clock-in-the-user-message-after-a-static-system": """
client.messages.create(model="m", max_tokens=100, system=BASE, messages=[{"role": "user", "content": f"Now: {datetime.now()}. Question?"}])
""",
    "user-message-bound-first": """
question = f"Now: {datetime.now()}. Question?"
client.messages.create(model="m", max_tokens=100, system=BASE, messages=[{"role": "user", "content": question}])
""",
    "clock-in-the-last-message-without-a-breakpoint": """
client.messages.create(model="m", max_tokens=100, messages=[
    {"role": "user", "content": BASE * 20},
    {"role": "user", "content": f"Time: {datetime.now()}"},
])
""",
    "clock-after-the-breakpoint": """
client.messages.create(
    model="m", max_tokens=100,
    system=[{"type": "text", "text": BASE * 20, "cache_control": {"type": "ephemeral"}}],
    messages=[{"role": "user", "content": f"{datetime.now()}"}],
)
""",
    "request-level-cache-control-static": """
client.messages.create(model="m", max_tokens=100, cache_control={"type": "ephemeral"}, system=BASE, messages=[{"role": "user", "content": "hi"}])
""",
    "system-message-added-after-the-call": """
messages = [{"role": "system", "content": BASE}]
oai.chat.completions.create(model="gpt-5", messages=messages)
messages.append({"role": "system", "content": f"{datetime.now()} {BASE}"})
messages.extend([{"role": "system", "content": f"{datetime.now()} {BASE}"}])
""",
    "seeded-generator-of-an-instance": """
class Persona:
    def __init__(self):
        self.rng = random.Random(0)

    def pick(self):
        chosen = self.rng.choice(["guide"])
        return client.messages.create(model="m", max_tokens=100, system=f"{chosen}\\n{BASE}", messages=[])
""",
    "catch-all-case-rebinds-it": """
note = f"{datetime.now()}"
match mode:
    case _:
        note = "static"
client.messages.create(model="m", max_tokens=100, system=note + BASE, messages=[])
""",
}


@pytest.mark.parametrize("case", params(PROPAGATION))
def test_followed_into_the_system_prompt(case):
    check_positive("CL105", case)


@pytest.mark.parametrize("case", params(STATIC))
def test_nothing_that_changes_quiet(case):
    assert run(case) == [], [d.message for d in run(case)]


# Order: sets, shuffles, system messages added to a list, one-shot prompts, breakpoints.
ORDER_AND_MESSAGES = {
    "set-of-a-helper-joined": (
        "CL102",
        """
def labels():
    return {"a", "b"}  # here

client.messages.create(model="m", max_tokens=100, system=BASE + ", ".join(labels()), messages=[])
""",
    ),
    "set-algebra": (
        "CL102",
        """
left = {"a", "b"}  # here
right = {"c"}  # here
client.messages.create(model="m", max_tokens=100, system=BASE + ", ".join(left | right), messages=[])
""",
    ),
    "frozenset": (
        "CL102",
        """
client.messages.create(model="m", max_tokens=100, system=BASE + ", ".join(frozenset({"a", "b"})), messages=[])  # here
""",
    ),
    "list-of-a-set": (
        "CL102",
        """
labels = {"a", "b"}  # here
client.messages.create(model="m", max_tokens=100, system=BASE + ", ".join(list(labels)), messages=[])
""",
    ),
    "generator-over-a-set": (
        "CL102",
        """
labels = {"a", "b"}  # here
client.messages.create(model="m", max_tokens=100, system=BASE + ", ".join(t for t in labels), messages=[])
""",
    ),
    "set-formatted-into-the-system-prompt": (
        "CL102",
        """
labels = {"a", "b"}  # here
client.messages.create(model="m", max_tokens=100, system=f"Labels: {labels}", messages=[])
""",
    ),
    "joined-set-under-another-name": (
        "CL102",
        """
labels = {"a", "b"}  # here
context = ", ".join(labels)
client.messages.create(model="m", max_tokens=100, system=context, messages=[])
""",
    ),
    "set-display-as-the-tools": (
        "CL101",
        """
client.messages.create(model="m", max_tokens=100, tools={"search", "fetch"}, messages=[])  # here
""",
    ),
    "list-of-a-set-as-the-tools": (
        "CL101",
        """
names = {"search", "fetch"}  # here
client.messages.create(model="m", max_tokens=100, tools=list(names), messages=[])
""",
    ),
    "tools-collected-from-a-set": (
        "CL101",
        """
spec = {tool_a, tool_b}  # here
tools = []
for t in spec:
    tools.append(t)
client.messages.create(model="m", max_tokens=100, tools=tools, messages=[])
""",
    ),
    "tools-of-a-helper-returning-a-set": (
        "CL101",
        """
def toolset():
    return {tool_a, tool_b}  # here

tools = list(toolset())
client.messages.create(model="m", max_tokens=100, tools=tools, messages=[])
""",
    ),
    "helper-set-sent-as-is": (
        "CL101",
        """
def toolset():
    return {tool_a, tool_b}  # here

tools = toolset()
client.messages.create(model="m", max_tokens=100, tools=tools, messages=[])
""",
    ),
    "tools-shuffled": (
        "CL105",
        """
tools = [{"name": "a"}, {"name": "b"}]
random.shuffle(tools)  # here
client.messages.create(model="m", max_tokens=100, tools=tools, messages=[{"role": "user", "content": "hello"}])
""",
    ),
    "prompt-parts-shuffled": (
        "CL105",
        """
parts = ["Be brief.", "Cite."]
random.shuffle(parts)  # here
client.messages.create(model="m", max_tokens=100, system=", ".join(parts) + BASE, messages=[])
""",
    ),
    "system-message-added-with-plus-equals": (
        "CL105",
        """
messages = []
messages += [{"role": "system", "content": f"Time: {datetime.now()}"}]  # here
client.messages.create(model="m", messages=messages)
""",
    ),
    "system-message-appended": (
        "CL105",
        """
messages = []
messages.append({"role": "system", "content": f"Time: {datetime.now()}\\n" + BASE})  # here
oai.chat.completions.create(model="gpt-5", messages=messages)
""",
    ),
    "second-system-message-appended": (
        "CL105",
        """
messages = [{"role": "system", "content": BASE}]
messages.append({"role": "system", "content": f"{datetime.now()} {BASE}"})  # here
oai.chat.completions.create(model="gpt-5", messages=messages)
""",
    ),
    "clock-ahead-of-the-rules-of-a-one-shot-prompt": (
        "CL105",
        """
oai.chat.completions.create(model="gpt-5", messages=[{"role": "user", "content": f"{datetime.now()} " + RULES}])  # here
""",
    ),
    "clock-message-before-the-breakpoint": (
        "CL105",
        """
messages = [
    {"role": "user", "content": BASE * 20},
    {"role": "user", "content": f"Time: {datetime.now()}"},  # here
    {"role": "user", "content": "tail", "cache_control": {"type": "ephemeral"}},
]
client.messages.create(model="m", messages=messages)
""",
    ),
    "clock-in-the-only-marked-message": (
        "CL105",
        """
client.messages.create(model="m", max_tokens=100, system=BASE, messages=[
    {"role": "user", "cache_control": {"type": "ephemeral"}, "content": f"{datetime.now()} "}])  # here
""",
    ),
    "configured-source-and-sink": ("CL105", None),
}

ORDER_QUIET = {
    "tools-rebound-to-a-fixed-list": """
tools = [{"name": "a"}]
if extra:
    tools.append({"name": "b"})
tools = [{"name": "a"}, {"name": "b"}]
client.messages.create(model="m", max_tokens=100, tools=tools, messages=[])
""",
    "tools-same-in-both-branches": """
if flag:
    tools = [tool_a, tool_b]
else:
    tools = [tool_a, tool_b]
client.messages.create(model="m", max_tokens=100, tools=tools, messages=[])
""",
    "tools-collected-from-a-list": """
spec = [tool_a, tool_b]
tools = []
for t in spec:
    tools.append(t)
client.messages.create(model="m", max_tokens=100, tools=tools, messages=[])
""",
    "tools-of-fixed-parts": """
base = [{"name": "a"}]
tools = base + [{"name": "c"}]
client.messages.create(model="m", max_tokens=100, tools=tools, messages=[])
""",
    "tools-sorted": """
names = {"search", "fetch"}
tools = sorted(names)
client.messages.create(model="m", max_tokens=100, tools=tools, messages=[{"role": "user", "content": "hello"}])
""",
}


def _configured_case(tmp_path) -> list[str]:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.cachelint]\npacks = ["sources.yaml"]\n'
        '[tool.cachelint.code]\nsinks = [{call = "gateway.ask", system = "system"}]\n'
    )
    (tmp_path / "sources.yaml").write_text(
        "kind: code-volatile\ndescription: the project's own sources\n"
        'volatile_calls:\n  - {call: ops.jitter, what: "ops.jitter()", granularity: time}\n'
    )
    (tmp_path / "agent.py").write_text('system = f"{ops.jitter()} {RULES}"\ngateway.ask(model="m", system=system)\n')
    out = subprocess.run(
        [sys.executable, "-m", "cachelint", "check", "--no-cache", "--output-format", "concise", "agent.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    return [line for line in out.stdout.splitlines() if line.startswith("agent.py:")]


@pytest.mark.parametrize("name", list(ORDER_AND_MESSAGES))
def test_order_and_messages_reported(name, tmp_path):
    code, source = ORDER_AND_MESSAGES[name]
    if source is None:
        assert [line.split()[1] for line in _configured_case(tmp_path)] == [code]
        return
    check_positive(code, source)


@pytest.mark.parametrize("source", params(ORDER_QUIET))
def test_fixed_order_quiet(source):
    assert run(source) == [], [d.message for d in run(source)]


# llmdoctor's cache fixtures, rewritten: a long static system prompt with no breakpoint (CL107),
# the same with its breakpoint, and its look-alikes that must stay quiet.
LONG = 'LONG_POLICY = "You are an expert in distributed systems. " * 100\n'
ANTHROPIC_CACHE = {
    "long-static-system-without-a-breakpoint": (
        "CL107",
        LONG
        + 'client.messages.create(model="claude-sonnet-4-6", max_tokens=100, system=LONG_POLICY, messages=[{"role": "user", "content": "Explain Raft."}])\n',
    ),
    "long-static-system-with-its-breakpoint": (
        None,
        LONG
        + 'client.messages.create(model="claude-opus-4-7", max_tokens=100, system=[{"type": "text", "text": LONG_POLICY, "cache_control": {"type": "ephemeral"}}], messages=[{"role": "user", "content": question}])\n',
    ),
    "edge-shapes": (
        None,
        """
SHARED = OTHER = "shared string"
ANNOTATED: str = "You are a careful expert. " * 200
PROMPT = "start "
PROMPT += "more text"

async def cached_async():
    return await async_client.messages.create(model="claude-haiku-4-5", max_tokens=10, system=[{"type": "text", "text": "You are helpful. " * 200, "cache_control": {"type": "ephemeral"}}], messages=[{"role": "user", "content": "hi"}])

def with_options(**config):
    return client.messages.create(**config)

def chosen_model(premium: bool):
    model = "claude-opus-4-7" if premium else "claude-haiku-4-5"
    return client.messages.create(model=model, max_tokens=256, system="hi", messages=[{"role": "user", "content": "x"}])

def bound_method():
    create = client.messages.create
    return create(model="claude-haiku-4-5", max_tokens=10, messages=[{"role": "user", "content": "hi"}])

def empty_system():
    return client.messages.create(model="claude-haiku-4-5", max_tokens=10, system=[], messages=[{"role": "user", "content": "x"}])
""",
    ),
}


@pytest.mark.parametrize("name", list(ANTHROPIC_CACHE))
def test_anthropic_cache_fixtures(name):
    code, source = ANTHROPIC_CACHE[name]
    assert [d.code for d in run(source)] == ([code] if code else []), [d.message for d in run(source)]


def test_counts():
    assert len(SOURCES) >= 40 and len(PROPAGATION) >= 40 and len(STATIC) >= 30 and len(ORDER_AND_MESSAGES) >= 20
