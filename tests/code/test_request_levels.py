"""How often a prefix value changes, and what CL105 says of it: a generator made with a seed is the
same in every process; a clock read once reaching a prompt both whole and reduced to its date is
reported as the clock."""

from __future__ import annotations

from codecheck_helpers import run
from cachelint.diagnostics import Severity


def _cl105(source: str) -> list:
    return [d for d in run(source) if d.code == "CL105"]


def test_a_seeded_generator_is_the_same_in_every_process() -> None:
    source = """
EXAMPLES = ["a", "b", "c"]

def ask(messages):
    shots = random.Random(42).sample(EXAMPLES, 2)
    rng = numpy.random.default_rng(seed=7)
    order = rng.permutation(3)
    return client.messages.create(model="m", max_tokens=10, system="Examples: " + "\\n".join(shots) + str(order), messages=messages)
"""
    assert _cl105("import numpy\n" + source) == []


def test_an_unseeded_generator_is_still_volatile() -> None:
    source = """
EXAMPLES = ["a", "b", "c"]

def ask(messages):
    rng = random.Random()
    shots = rng.sample(EXAMPLES, 2)
    return client.messages.create(model="m", max_tokens=10, system="Examples: " + "\\n".join(shots), messages=messages)
"""
    found = _cl105(source)
    assert len(found) == 1 and "random value" in found[0].message


def test_a_generator_seeded_by_the_clock_is_volatile() -> None:
    source = """
def ask(messages):
    rng = random.Random(time.time())
    return client.messages.create(model="m", max_tokens=10, system=f"Pick {rng.random()}", messages=messages)
"""
    assert len(_cl105(source)) == 1


def test_a_clock_reaching_whole_and_as_its_date_is_reported_as_the_clock() -> None:
    source = """
def render(template, context):
    now = datetime.now()
    context.update({"year": now.year, "now": f"{now}"})
    return template.format(**context)

def ask(messages):
    return client.messages.create(model="m", max_tokens=10, system=render("{now}", {}), messages=messages)
"""
    found = _cl105(source)
    assert len(found) == 1
    assert "(the clock)" in found[0].message and found[0].severity in (None, Severity.ERROR), found[0].message
