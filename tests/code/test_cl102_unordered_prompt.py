"""CL102 unordered-prompt: system/instructions text assembled in an unordered order."""

from __future__ import annotations

import pytest

from rule_cases import check_negative, check_positive, params

POSITIVE = {
    "join-set": """
RULES = {"be brief", "cite sources"}  # here

def ask(messages):
    return client.messages.create(model="m", max_tokens=10, system="Rules: " + "; ".join(RULES), messages=messages)
""",
    "skill-index-path-glob": """
def skill_index():
    lines = []
    for f in Path("skills").glob("*/SKILL.md"):  # here
        lines.append(f"- {f.parent.name}")
    return "\\n".join(lines)

SYSTEM = BASE + "\\n" + skill_index()

def ask(messages):
    return client.messages.create(model="m", max_tokens=10, system=SYSTEM, messages=messages)
""",
    "responses-instructions-listdir": """
def ask(question):
    docs = "\\n".join(open(f).read() for f in os.listdir("docs"))  # here
    return oai.responses.create(model="gpt-5", instructions=BASE + docs, input=question)
""",
    "first-system-message": """
def ask(question, topics):
    system = {"role": "system", "content": "Topics: " + ", ".join(set(topics))}  # here
    return oai.chat.completions.create(model="gpt-5", messages=[system, {"role": "user", "content": question}])
""",
    "first-system-message-inline": """
def ask(question, topics):
    return oai.chat.completions.create(model="gpt-5", messages=[{"role": "system", "content": f"{set(topics)}"}, {"role": "user", "content": question}])  # here
""",
    "f-string-of-set": """
def ask(messages, names):
    allowed = frozenset(names)  # here
    return client.messages.create(model="m", max_tokens=10, system=f"Allowed: {allowed}", messages=messages)
""",
    "pydantic-ai-system-prompt": """
from pydantic_ai import Agent

def build(rules):
    return Agent("openai:gpt-5", system_prompt="\\n".join({r.strip() for r in rules}))  # here
""",
    "openai-agents-instructions": """
from agents import Agent

def build():
    guides = glob.glob("guides/*.md")  # here
    return Agent(name="a", instructions="\\n\\n".join(open(g).read() for g in guides))
""",
    "litellm-system-message": """
def ask(question):
    notes = [open(p).read() for p in Path("notes").iterdir()]  # here
    messages = [{"role": "system", "content": "\\n".join(notes)}, {"role": "user", "content": question}]
    return litellm.completion(model="m", messages=messages)
""",
    "raw-body-system": """
def ask(messages, names):
    body = {"model": "m", "system": " ".join({n.upper() for n in names}), "messages": messages}  # here
    return httpx.post("https://api.anthropic.com/v1/messages", json=body)
""",
    "annotated-parameter": """
def ask(messages, skills: frozenset[str]):  # here
    return client.messages.create(model="m", max_tokens=10, system="Skills: " + ", ".join(skills), messages=messages)
""",
    "dict-built-from-set": """
def ask(messages, names):
    sections = {}
    for n in set(names):  # here
        sections[n] = f"## {n}"
    return client.messages.create(model="m", max_tokens=10, system="\\n".join(sections.values()), messages=messages)
""",
    "keys-minus": """
SECTIONS = {"intro": "Hi.", "rules": "Be brief.", "tools": "Use tools."}

def ask(messages, skip):
    keep = SECTIONS.keys() - skip  # here
    return client.messages.create(model="m", max_tokens=10, system="\\n".join(SECTIONS[k] for k in keep), messages=messages)
""",
    "method-return-through-self": """
class Prompter:
    def __init__(self, folder):
        self.folder = folder

    def index(self):
        return "\\n".join(p.name for p in Path(self.folder).rglob("SKILL.md"))  # here

    def ask(self, messages):
        return client.messages.create(model="m", max_tokens=10, system=BASE + self.index(), messages=messages)
""",
    "json-dumps-of-set-built-list": """
def ask(messages, names):
    catalog = json.dumps([n for n in set(names)])  # here
    return client.messages.create(model="m", max_tokens=10, system=BASE + catalog, messages=messages)
""",
    "string-built-in-loop": """
def ask(messages, names):
    text = BASE
    for n in set(names):  # here
        text += f"\\n- {n}"
    return client.messages.create(model="m", max_tokens=10, system=text, messages=messages)
""",
}

NEGATIVE = {
    "sorted-join": """
RULES = {"be brief", "cite sources"}

def ask(messages):
    return client.messages.create(model="m", max_tokens=10, system="Rules: " + "; ".join(sorted(RULES)), messages=messages)
""",
    "seed-index-sorted": """
def skill_index():
    lines = []
    for f in sorted(Path("skills").glob("*/SKILL.md")):
        lines.append(f"- {f.parent.name}")
    return "\\n".join(lines)

SYSTEM = BASE + "\\n" + skill_index()

def ask(messages):
    return client.messages.create(model="m", max_tokens=10, system=SYSTEM, messages=messages)
""",
    "set-for-membership": """
SECTIONS = [("intro", "Hi."), ("rules", "Be brief.")]

def ask(messages, skip):
    skip = set(skip)
    text = "\\n".join(body for name, body in SECTIONS if name not in skip)
    return client.messages.create(model="m", max_tokens=10, system=text, messages=messages)
""",
    "list-literal": """
PARTS = ["You are careful.", "Cite sources."]

def ask(messages):
    return client.messages.create(model="m", max_tokens=10, system="\\n".join(PARTS), messages=messages)
""",
    "dict-literal": """
PARTS = {"intro": "You are careful.", "rules": "Cite sources."}

def ask(messages):
    return client.messages.create(model="m", max_tokens=10, system="\\n".join(PARTS.values()), messages=messages)
""",
    "json-dumps-literal-dict": """
def ask(messages):
    return client.messages.create(model="m", max_tokens=10, system=BASE + json.dumps({"lang": "pt", "tone": "formal"}), messages=messages)
""",
    "len-of-set": """
def ask(messages, names):
    return client.messages.create(model="m", max_tokens=10, system=f"You have {len(set(names))} tools.", messages=messages)
""",
    "set-in-user-message": """
def ask(question, topics):
    return oai.chat.completions.create(model="gpt-5", messages=[{"role": "system", "content": BASE}, {"role": "user", "content": ", ".join(set(topics))}])
""",
    "set-in-last-message": """
def ask(messages, topics):
    tail = {"role": "user", "content": "Topics: " + ", ".join(set(topics))}
    return client.messages.create(model="m", max_tokens=10, system=BASE, messages=messages + [tail])
""",
    "sorted-listdir": """
def ask(question):
    docs = "\\n".join(open(f).read() for f in sorted(os.listdir("docs")))
    return oai.responses.create(model="gpt-5", instructions=BASE + docs, input=question)
""",
    "sorted-glob-then-sort": """
def ask(messages):
    guides = glob.glob("guides/*.md")
    guides.sort()
    return client.messages.create(model="m", max_tokens=10, system="\\n".join(guides), messages=messages)
""",
    "json-dumps-sort-keys": """
def ask(messages, names):
    config = {n: True for n in set(names)}
    return client.messages.create(model="m", max_tokens=10, system=BASE + json.dumps(config, sort_keys=True), messages=messages)
""",
    "set-used-only-for-any": """
def ask(messages, names):
    urgent = any(n.startswith("urgent") for n in set(names))
    return client.messages.create(model="m", max_tokens=10, system=BASE + (" Be quick." if urgent else ""), messages=messages)
""",
    "developer-message-is-later": """
def ask(question, topics):
    msgs = [{"role": "user", "content": question}, {"role": "developer", "content": ", ".join(set(topics))}]
    return oai.chat.completions.create(model="gpt-5", messages=msgs)
""",
    "heapq-nsmallest": """
import heapq

def ask(messages, names):
    first = heapq.nsmallest(3, set(names))
    return client.messages.create(model="m", max_tokens=10, system=BASE + ", ".join(first), messages=messages)
""",
    "skill-appended-as-message": """
def ask(messages, skills):
    body = "\\n".join(sorted(skills))
    return client.messages.create(model="m", max_tokens=10, system=BASE, messages=messages + [{"role": "user", "content": body}])
""",
    "set-passed-for-membership": """
from skills import SkillsLoader

def ask(messages, active, disabled):
    loader = SkillsLoader("skills", disabled_skills=set(disabled))
    summary = loader.render(exclude=set(active))
    return client.messages.create(model="m", max_tokens=10, system=BASE + summary, messages=messages)
""",
}


@pytest.mark.parametrize("source", params(POSITIVE))
def test_reported(source):
    check_positive("CL102", source)


@pytest.mark.parametrize("source", params(NEGATIVE))
def test_quiet(source):
    check_negative("CL102", source)


def test_counts():
    assert len(POSITIVE) >= 15 and len(NEGATIVE) >= 15


WALK = """
def tree(top):
    lines = []
    for base, subdirs, files in os.walk(top):  # here
        SORT_DIRS
        for name in FILES:
            lines.append(os.path.join(base, name))
    return "\\n".join(lines)


def ask(messages):
    return client.messages.create(model="m", max_tokens=10, system=tree("skills"), messages=messages)
"""


@pytest.mark.parametrize("sort_dirs", ["subdirs.sort()", "subdirs[:] = sorted(subdirs)"])
def test_a_walk_whose_directories_are_sorted_in_place_is_ordered(sort_dirs):
    """os.walk descends in the order of the directory list after the body has run: sorted in place,
    the walk is in a fixed order, and sorted(files) fixes the rest."""
    check_negative("CL102", WALK.replace("SORT_DIRS", sort_dirs).replace("FILES", "sorted(files)"), only_this_code=True)


@pytest.mark.parametrize(
    "sort_dirs, files",
    [("pass", "sorted(files)"), ("subdirs.sort()", "files"), ("ordered = sorted(subdirs)", "sorted(files)")],
)
def test_a_walk_left_in_listing_order_is_reported(sort_dirs, files):
    check_positive("CL102", WALK.replace("SORT_DIRS", sort_dirs).replace("FILES", files))
