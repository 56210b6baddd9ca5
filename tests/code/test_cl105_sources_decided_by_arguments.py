"""CL105: values whose volatility depends on how they are made: a clock given a fixed time, a
generator built with a seed, ``hash()`` of text (salted per process) or of a number, a list put in
a random order in place, values fixed for a process (its id, the machine's name), CPU-time
counters; and a value rebound by every case of a ``match``."""

from __future__ import annotations

import pytest

from codecheck_helpers import run
from cachelint.diagnostics import Severity
from rule_cases import check_negative, check_positive, params

EVERY_REQUEST = {
    "shuffled-tool-list": """
def ask(messages):
    tools = [TOOLS["search"], TOOLS["fetch"]]
    random.shuffle(tools)  # here
    return client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
""",
    "shuffled-parts-joined-into-the-system-prompt": """
def ask(messages):
    rules = ["Cite sources.", "Be brief.", "Ask when unsure."]
    random.shuffle(rules)  # here
    return client.messages.create(model="m", max_tokens=10, system=BASE + " ".join(rules), messages=messages)
""",
    "generator-without-a-seed-shuffles": """
def ask(messages):
    rng = random.Random()
    order = list(TOOLS.values())
    rng.shuffle(order)  # here
    return client.messages.create(model="m", max_tokens=10, tools=order, messages=messages)
""",
    "cpu-time-of-the-process": """
def ask(messages):
    return client.messages.create(model="m", max_tokens=10, system=f"cpu {time.process_time():.3f}s. {BASE}", messages=messages)  # here
""",
    "cpu-time-of-the-thread": """
def ask(messages):
    spent = time.thread_time_ns()  # here
    return client.messages.create(model="m", max_tokens=10, system=f"{spent} {BASE}", messages=messages)
""",
    "localtime-of-the-clock": """
def ask(messages):
    stamp = time.strftime("%H:%M", time.localtime())  # here
    return client.messages.create(model="m", max_tokens=10, system=f"{stamp} {BASE}", messages=messages)
""",
    "a-case-that-may-not-run": """
def ask(messages, mode):
    note = f"at {datetime.now()}"  # here
    match mode:
        case "plain":
            note = ""
    return client.messages.create(model="m", max_tokens=10, system=BASE + note, messages=messages)
""",
    "a-guarded-catch-all": """
def ask(messages, mode):
    note = f"at {datetime.now()}"  # here
    match mode:
        case _ if mode:
            note = ""
    return client.messages.create(model="m", max_tokens=10, system=BASE + note, messages=messages)
""",
}

PER_PROCESS = {
    "hash-of-a-literal": """
def ask(messages):
    return client.messages.create(model="m", max_tokens=10, system=f"bucket {hash('agents') % 8}. {BASE}", messages=messages)  # here
""",
    "hash-of-a-name-holding-text": """
TEAM = "search-team"

def ask(messages):
    tag = hash(TEAM)  # here
    return client.messages.create(model="m", max_tokens=10, system=f"{tag} {BASE}", messages=messages)
""",
    "hash-of-an-fstring": """
def ask(messages, team: str):
    tag = hash(f"team-{team}")  # here
    return client.messages.create(model="m", max_tokens=10, system=f"{tag} {BASE}", messages=messages)
""",
    "process-id": """
def ask(messages):
    return client.messages.create(model="m", max_tokens=10, system=f"worker {os.getpid()}", messages=messages)  # here
""",
    "host-name": """
import socket

def ask(messages):
    return client.messages.create(model="m", max_tokens=10, system=f"Host: {socket.gethostname()}. {BASE}", messages=messages)  # here
""",
    "user-running-the-process": """
import getpass

def ask(messages):
    who = getpass.getuser()  # here
    return client.messages.create(model="m", max_tokens=10, system=f"{BASE} Working for {who}.", messages=messages)
""",
}

QUIET = {
    "ctime-of-a-fixed-timestamp": """
def ask(messages):
    epoch = time.ctime(0)
    return client.messages.create(model="m", max_tokens=10, system=f"{epoch} {BASE}", messages=messages)
""",
    "strftime-of-a-fixed-time-tuple": """
RELEASE = (2024, 5, 1, 0, 0, 0, 2, 122, 0)

def ask(messages):
    year = time.strftime("%Y", RELEASE)
    return client.messages.create(model="m", max_tokens=10, system=f"Since {year}. {BASE}", messages=messages)
""",
    "gmtime-of-a-constant": """
def ask(messages):
    start = time.gmtime(1700000000)
    return client.messages.create(model="m", max_tokens=10, system=f"{start.tm_year} {BASE}", messages=messages)
""",
    "seeded-generator-choice": """
class Picker:
    def __init__(self):
        self.rng = random.Random(7)

    def ask(self, messages):
        persona = self.rng.choice(["a guide", "a tutor"])
        return client.messages.create(model="m", max_tokens=10, system=f"You are {persona}.", messages=messages)
""",
    "seeded-numpy-generator": """
import numpy as np

def ask(messages):
    rng = np.random.default_rng(42)
    k = int(rng.integers(3))
    return client.messages.create(model="m", max_tokens=10, system=f"{BASE} Use {k} tools.", messages=messages)
""",
    "seeded-module-shuffle": """
random.seed(3)

def ask(messages):
    tools = [TOOLS["search"], TOOLS["fetch"]]
    random.shuffle(tools)
    return client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
""",
    "shuffle-of-a-list-not-sent": """
def ask(messages, examples):
    pool = list(examples)
    random.shuffle(pool)
    print(pool)
    return client.messages.create(model="m", max_tokens=10, system=BASE, messages=messages)
""",
    "hash-of-a-number": """
def ask(messages):
    return client.messages.create(model="m", max_tokens=10, system=f"{hash(42)} {BASE}", messages=messages)
""",
    "hash-of-an-int-name": """
SHARDS = 16

def ask(messages):
    return client.messages.create(model="m", max_tokens=10, system=f"{hash(SHARDS)} {BASE}", messages=messages)
""",
    "hash-of-an-unknown-value": """
def ask(messages, key):
    return client.messages.create(model="m", max_tokens=10, system=f"{hash(key)} {BASE}", messages=messages)
""",
    "a-catch-all-case-rebinds-it": """
def ask(messages, mode):
    note = f"at {datetime.now()}"
    match mode:
        case "terse":
            note = "Be terse."
        case _:
            note = ""
    return client.messages.create(model="m", max_tokens=10, system=BASE + note, messages=messages)
""",
    "a-capture-pattern-rebinds-it": """
def ask(messages, mode):
    note = f"at {datetime.now()}"
    match mode:
        case "terse" | other:
            note = "fixed"
    return client.messages.create(model="m", max_tokens=10, system=BASE + note, messages=messages)
""",
}


@pytest.mark.parametrize("source", params(EVERY_REQUEST))
def test_changes_on_every_request(source):
    check_positive("CL105", source)
    found = [d for d in run(source) if d.code == "CL105"]
    assert all(d.severity is None and "every request" in d.message for d in found), [d.message for d in found]


@pytest.mark.parametrize("source", params(PER_PROCESS))
def test_fixed_for_a_process_is_information(source):
    check_positive("CL105", source)
    found = [d for d in run(source) if d.code == "CL105"]
    assert all(d.severity == Severity.INFO and "every request of a process" in d.message for d in found), [
        d.message for d in found
    ]


@pytest.mark.parametrize("source", params(QUIET))
def test_quiet(source):
    check_negative("CL105", source)


def test_shuffle_names_the_random_order():
    (d,) = [d for d in run(EVERY_REQUEST["shuffled-tool-list"]) if d.code == "CL105"]
    assert d.message.startswith("random.shuffle() (a random order) reaches tools= of client.messages.create")
