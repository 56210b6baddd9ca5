"""CL105 volatile-prefix: clocks, random values, uuids, pids, per-request ids in tools or system."""

from __future__ import annotations

import pytest

from codecheck_helpers import run
from cachelint.diagnostics import Severity
from rule_cases import check_negative, check_positive, params

POSITIVE = {
    "system-message-first-then-the-history": """
from langchain_core.messages import SystemMessage

def node(state):
    return [SystemMessage(content=f"Now: {datetime.now()}")] + state["messages"]  # here
""",
    "system-message-after-an-empty-list": """
from langchain_core.messages import SystemMessage

def node():
    return [] + [SystemMessage(content=f"Now: {datetime.now()}")]  # here
""",
    "autogen-core-system-message": """
from autogen_core.models import SystemMessage

class Agent:
    def __init__(self, client):
        self._client = client
        self._system = [SystemMessage(content=f"Session {uuid.uuid4()}")]  # here
""",
    "datetime-now-fstring": """
def ask(messages):
    return client.messages.create(model="m", max_tokens=10, system=f"{BASE} Now: {datetime.now()}", messages=messages)  # here
""",
    "time-time": """
def ask(messages):
    stamp = time.time()  # here
    return client.messages.create(model="m", max_tokens=10, system=BASE + str(stamp), messages=messages)
""",
    "uuid4": """
def ask(question):
    return oai.responses.create(model="gpt-5", instructions=f"Session {uuid.uuid4()}", input=question)  # here
""",
    "random-choice": """
GREETINGS = ["Hi", "Hello"]

def ask(messages):
    return client.messages.create(model="m", max_tokens=10, system=random.choice(GREETINGS) + BASE, messages=messages)  # here
""",
    "object-id": """
def ask(messages, state):
    return client.messages.create(model="m", max_tokens=10, system=f"state {id(state)}", messages=messages)  # here
""",
    "request-id-formatted": """
def ask(messages, request_id):
    system = f"{BASE} (request {request_id})"  # here
    return client.messages.create(model="m", max_tokens=10, system=system, messages=messages)
""",
    "uuid-in-tool-description": """
def ask(messages):
    tool = {"name": "search", "description": "Search. Build " + uuid.uuid4().hex}  # here
    return client.messages.create(model="m", max_tokens=10, tools=[tool], messages=messages)
""",
    "isoformat-time": """
def ask(messages):
    now = datetime.utcnow().isoformat()  # here
    return client.messages.create(model="m", max_tokens=10, system=BASE + now, messages=messages)
""",
    "strftime-with-time": """
def ask(messages):
    return client.messages.create(model="m", max_tokens=10, system=datetime.now().strftime("%Y-%m-%d %H:%M"), messages=messages)  # here
""",
    "secrets-token": """
def ask(messages):
    nonce = secrets.token_hex(8)  # here
    return client.messages.create(model="m", max_tokens=10, system=f"{BASE} nonce={nonce}", messages=messages)
""",
    "first-system-message": """
def ask(question):
    msgs = [{"role": "system", "content": f"Time: {time.ctime()}"}, {"role": "user", "content": question}]  # here
    return oai.chat.completions.create(model="gpt-5", messages=msgs)
""",
    "pydantic-ai-dynamic-system-prompt": """
from pydantic_ai import Agent

agent = Agent("openai:gpt-5")

@agent.system_prompt
def current_time() -> str:
    return f"The time is {datetime.now()}."  # here
""",
    "raw-body-system": """
def ask(messages):
    return requests.post("https://api.anthropic.com/v1/messages", json={"model": "m", "system": f"t={time.time_ns()}", "messages": messages})  # here
""",
    "helper-returns-clock": """
def header():
    return "Generated " + time.strftime("%H:%M:%S")  # here

def ask(messages):
    return client.messages.create(model="m", max_tokens=10, system=header() + BASE, messages=messages)
""",
    "dict-parameter-key": """
def build(data):
    return [{"role": "system", "content": data["system"]}, {"role": "user", "content": data["text"]}]

def ask(question):
    msgs = build({"system": f"{BASE} {time.time()}", "text": question})  # here
    return oai.chat.completions.create(model="gpt-5", messages=msgs)
""",
    "callable-instructions": """
from agents import Agent

def instructions(ctx, agent):
    return f"{BASE} It is {datetime.now():%H:%M}."  # here

assistant = Agent(name="a", instructions=instructions)
""",
    "lambda-instructions": """
from agents import Agent

assistant = Agent(name="a", instructions=lambda ctx, agent: BASE + str(uuid.uuid4()))  # here
""",
    "dict-display-key-that-holds-it": """
def ask(messages, user_name):
    cfg = {"thread_key": str(uuid.uuid4()), "user_name": user_name}  # here
    return client.messages.create(model="m", max_tokens=10, system=f"Thread {cfg['thread_key']}", messages=messages)
""",
    "dict-display-changed-under-an-unknown-key": """
def ask(messages, user_name, key):
    cfg = {"thread_key": "main", "user_name": user_name}
    cfg[key] = str(uuid.uuid4())  # here
    return client.messages.create(model="m", max_tokens=10, system=f"User {cfg['user_name']}", messages=messages)
""",
    "dict-display-key-reassigned": """
def ask(messages, user_name):
    cfg = {"thread_key": "main", "user_name": user_name}
    cfg["user_name"] = f"{user_name}-{time.time()}"  # here
    return client.messages.create(model="m", max_tokens=10, system=f"User {cfg.get('user_name')}", messages=messages)
""",
    "dict-display-updated": """
def ask(messages, user_name):
    cfg = {"thread_key": "main", "user_name": user_name}
    cfg.update({"thread_key": str(uuid.uuid4())})  # here
    return client.messages.create(model="m", max_tokens=10, system=f"User {cfg['user_name']}", messages=messages)
""",
    "dict-display-dumped-whole": """
def ask(messages, user_name):
    cfg = {"thread_key": str(uuid.uuid4()), "user_name": user_name}  # here
    return client.messages.create(model="m", max_tokens=10, system="Config: " + json.dumps(cfg), messages=messages)
""",
    "dict-display-values": """
def ask(messages, user_name):
    cfg = {"thread_key": str(uuid.uuid4()), "user_name": user_name}  # here
    return client.messages.create(model="m", max_tokens=10, system=" ".join(cfg.values()), messages=messages)
""",
    "dict-display-nested-key-that-holds-it": """
def ask(messages, user_name):
    config = {"configurable": {"thread_key": str(uuid.uuid4()), "user_name": user_name}}  # here
    return client.messages.create(model="m", max_tokens=10, system=f"Thread {config['configurable']['thread_key']}", messages=messages)
""",
    "dict-display-nested-changed-under-a-key": """
def ask(messages, user_name):
    config = {"configurable": {"thread_key": "main", "user_name": user_name}}
    config["configurable"]["user_name"] = str(uuid.uuid4())  # here
    return client.messages.create(model="m", max_tokens=10, system=f"User {config['configurable']['user_name']}", messages=messages)
""",
    "dict-display-with-a-computed-key": """
def ask(messages, user_name, field):
    cfg = {field: str(uuid.uuid4()), "user_name": user_name}  # here
    return client.messages.create(model="m", max_tokens=10, system=f"User {cfg['user_name']}", messages=messages)
""",
}

DAILY = {
    "date-today": """
def ask(messages):
    return client.messages.create(model="m", max_tokens=10, system=f"Today is {date.today()}.", messages=messages)  # here
""",
    "strftime-date-only": """
def ask(messages):
    today = datetime.now().strftime("%Y-%m-%d")  # here
    return client.messages.create(model="m", max_tokens=10, system=BASE + today, messages=messages)
""",
    "format-spec-date-only": """
def ask(messages):
    return client.messages.create(model="m", max_tokens=10, system=f"Today is {datetime.now():%d/%m/%Y}.", messages=messages)  # here
""",
    "time-strftime-date": """
def ask(messages):
    return client.messages.create(model="m", max_tokens=10, system=time.strftime("%Y-%m-%d"), messages=messages)  # here
""",
    "date-method": """
def ask(messages):
    d = datetime.now().date()  # here
    return client.messages.create(model="m", max_tokens=10, system=f"Date: {d}", messages=messages)
""",
    "dict-call-system-message": """
def platform_info():
    return f"Current date: {datetime.now().strftime('%Y-%m-%d')}"  # here

def chunks():
    return [dict(role="system", content="You are a coder. " + platform_info())]
""",
}

NEGATIVE = {
    "timestamp-in-last-user-message": """
def ask(messages):
    last = {"role": "user", "content": f"(sent {datetime.now().isoformat()})"}
    return client.messages.create(model="m", max_tokens=10, system=BASE, messages=messages + [last])
""",
    "json-dumps-literal-dict": """
def ask(messages):
    return client.messages.create(model="m", max_tokens=10, system=json.dumps({"role": "agent", "lang": "pt"}), messages=messages)
""",
    "clock-for-logging": """
import logging

def ask(messages):
    started = time.time()
    reply = client.messages.create(model="m", max_tokens=10, system=BASE, messages=messages)
    logging.info("took %.2fs", time.time() - started)
    return reply
""",
    "uuid-for-message-id": """
def ask(messages):
    messages.append({"role": "user", "content": f"id {uuid.uuid4()}"})
    return client.messages.create(model="m", max_tokens=10, system=BASE, messages=messages)
""",
    "random-temperature": """
def ask(messages):
    return client.messages.create(model="m", max_tokens=10, system=BASE, temperature=random.random(), messages=messages)
""",
    "date-unused": """
def ask(messages):
    today = date.today()
    print(today)
    return client.messages.create(model="m", max_tokens=10, system=BASE, messages=messages)
""",
    "timezone-name": """
def ask(messages):
    tz = datetime.now().astimezone().tzinfo
    return client.messages.create(model="m", max_tokens=10, system=f"{BASE} Time zone: {tz}", messages=messages)
""",
    "request-id-in-metadata": """
def ask(messages, request_id):
    return client.messages.create(model="m", max_tokens=10, system=BASE, metadata={"user_id": request_id}, messages=messages)
""",
    "request-id-in-headers": """
def ask(messages, request_id):
    return client.messages.create(model="m", max_tokens=10, system=BASE, messages=messages, extra_headers={"x-request-id": request_id})
""",
    "fixed-date-string": """
CUTOFF = "2026-01-01"

def ask(messages):
    return client.messages.create(model="m", max_tokens=10, system=f"Knowledge cutoff {CUTOFF}.", messages=messages)
""",
    "uuid-in-user-content-of-body": """
def ask(messages):
    body = {"model": "m", "system": BASE, "messages": messages + [{"role": "user", "content": str(uuid.uuid4())}]}
    return httpx.post("https://api.anthropic.com/v1/messages", json=body)
""",
    "random-sample-sorted-not-enough": """
def ask(messages):
    seed = random.randint(0, 10)
    return client.messages.create(model="m", max_tokens=10, system=BASE, messages=messages, metadata={"seed": seed})
""",
    "time-in-tool-result": """
def ask(messages, call_id):
    result = {"type": "tool_result", "tool_use_id": call_id, "content": f"now {datetime.now()}"}
    return client.messages.create(model="m", max_tokens=10, system=BASE, messages=messages + [{"role": "user", "content": [result]}])
""",
    "pid-in-log": """
def ask(messages):
    print("pid", os.getpid())
    return client.messages.create(model="m", max_tokens=10, system=BASE, messages=messages)
""",
    "call-id-in-messages-mapping": """
def to_messages(history):
    out = []
    for item in history:
        out.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": item.call_id, "content": item.text}]})
    return out

def ask(history):
    return client.messages.create(model="m", max_tokens=10, system=BASE, messages=to_messages(history))
""",
    "dict-call-user-message": """
def chunks(question):
    return [dict(role="user", content=f"{question} at {datetime.now()}")]
""",
    "dict-shadowed": """
def chunks(dict):
    return [dict(role="system", content=f"at {datetime.now()}")]
""",
    "dict-parameter-other-key": """
def build(data):
    return [{"role": "system", "content": data["system"]}, {"role": "user", "content": data.get("text", "")}]

def ask(question):
    msgs = build({"system": BASE, "text": f"{question} at {time.time()}"})
    return oai.chat.completions.create(model="gpt-5", messages=msgs)
""",
    "dict-display-other-key": """
def ask(messages, user_name):
    cfg = {"thread_key": str(uuid.uuid4()), "user_name": user_name}
    return client.messages.create(model="m", max_tokens=10, system=f"User {cfg['user_name']}", messages=messages)
""",
    "dict-display-other-key-get": """
def ask(messages, user_name):
    cfg = {"thread_key": str(uuid.uuid4()), "user_name": user_name}
    cfg["user_name"] = user_name.strip()
    return client.messages.create(model="m", max_tokens=10, system=f"User {cfg.get('user_name', 'anonymous')}", messages=messages)
""",
    "dict-display-nested-other-key": """
def ask(messages, user_name):
    config = {"configurable": {"thread_key": str(uuid.uuid4()), "user_name": user_name}}
    cfg = config["configurable"]
    return client.messages.create(model="m", max_tokens=10, system=f"User {cfg['user_name']} {config['configurable']['user_name']}", messages=messages)
""",
    "system-message-appended-after-the-history": """
from langchain_core.messages import SystemMessage

def node(state):
    note = random.choice(["storm", "flood"])
    return {"messages": state["messages"] + [SystemMessage(content=f"Alert: {note}")]}
""",
    "system-message-extended-onto-the-history": """
from langchain_core.messages import SystemMessage

def node(history):
    messages = list(history)
    messages += [SystemMessage(content=f"Checked at {datetime.now()}")]
    return messages
""",
}


@pytest.mark.parametrize("source", params(POSITIVE))
def test_reported_as_error(source):
    check_positive("CL105", source)
    assert all(d.severity is None for d in run(source) if d.code == "CL105")


@pytest.mark.parametrize("source", params(DAILY))
def test_date_is_a_warning(source):
    check_positive("CL105", source)
    found = [d for d in run(source) if d.code == "CL105"]
    assert found and all(d.severity == Severity.WARNING for d in found)
    assert all("every day" in d.message for d in found)


@pytest.mark.parametrize("source", params(NEGATIVE))
def test_quiet(source):
    check_negative("CL105", source)


def test_counts():
    assert len(POSITIVE) + len(DAILY) >= 15 and len(NEGATIVE) >= 15


# Computed once when the module loads: the same for every request of a process, different in the
# next process (a write per run, not per request): information, saying so.
ONCE = {
    "module-constant": """
STARTED = datetime.now()  # here
SYSTEM = f"{BASE} Up since {STARTED}."

def ask(messages):
    return client.messages.create(model="m", max_tokens=10, system=SYSTEM, messages=messages)
""",
    "date-at-import": """
SYSTEM = f"{BASE} Today is {datetime.today().strftime('%A, %B %d, %Y')}."  # here

def ask(messages):
    return client.messages.create(model="m", max_tokens=10, system=SYSTEM, messages=messages)
""",
    "run-id-in-a-class-body": """
class Bot:
    RUN = uuid.uuid4().hex  # here

    def ask(self, messages):
        return client.messages.create(model="m", max_tokens=10, system=f"{BASE} run {self.RUN}", messages=messages)
""",
}


@pytest.mark.parametrize("source", params(ONCE))
def test_computed_once_per_process_is_information(source):
    check_positive("CL105", source)
    found = [d for d in run(source) if d.code == "CL105"]
    assert found and all(
        d.severity == Severity.INFO and "computed once when the module loads" in d.message for d in found
    )
    daily = "datetime.today()" in source
    # a date computed at import changes between days, not between every two processes
    assert all(("processes started on different days" in d.message) == daily for d in found)


def test_module_level_loop_repeats_per_request():
    """Module-level code inside a loop runs once per iteration: that is per request."""
    source = """
while True:
    now = time.time()  # here
    client.messages.create(model="m", max_tokens=10, system=f"{BASE} {now}", messages=[])
"""
    check_positive("CL105", source)
    assert all(d.severity is None for d in run(source) if d.code == "CL105")


PER_SESSION = {
    "user-id-in-an-fstring": """
def ask(messages, user_id):
    return client.messages.create(model="m", max_tokens=10, system=f"{BASE} You are helping user {user_id}.", messages=messages)  # here
""",
    "session-id-attribute": """
def ask(messages, ctx):
    system = BASE + f" Session: {ctx.session_id}"  # here
    return client.messages.create(model="m", max_tokens=10, system=system, messages=messages)
""",
    "thread-id-key": """
def ask(messages, config):
    return oai.responses.create(model="gpt-5", instructions=f"Thread {config['thread_id']}", input=messages)  # here
""",
}

NOT_PER_SESSION = {
    "user-id-in-the-messages": """
def ask(question, user_id):
    return client.messages.create(model="m", max_tokens=10, system=BASE, messages=[{"role": "user", "content": f"I am {user_id}. {question}"}])
""",
    "user-id-in-metadata": """
def ask(messages, user_id):
    return client.messages.create(model="m", max_tokens=10, system=BASE, metadata={"user_id": user_id}, messages=messages)
""",
    "a-name-that-only-contains-the-word": """
def ask(messages, user_identity_doc):
    return client.messages.create(model="m", max_tokens=10, system=f"{BASE} {user_identity_doc}", messages=messages)
""",
}


@pytest.mark.parametrize("source", params(PER_SESSION))
def test_per_user_or_session_id_is_information(source):
    """docs/background/prefix-and-invalidation.md#silent-invalidators: a user or session id in an f-string of the system prompt makes one prefix
    per user: never shared, written again by every new session (not on every request)."""
    check_positive("CL105", source)
    found = [d for d in run(source) if d.code == "CL105"]
    assert found and all(d.severity == Severity.INFO for d in found)
    assert all("one cached prefix per user or session" in d.message for d in found)


@pytest.mark.parametrize("source", params(NOT_PER_SESSION))
def test_per_session_names_outside_the_prefix_are_quiet(source):
    check_negative("CL105", source)


def test_a_uuid_held_as_a_user_id_is_one_per_user_finding():
    """The uuid and the per-user name it is stored in are one defect: reported once, where the uuid
    is made, worded by what the name says it is (one prefix per user, not a change per request)."""
    source = """
def ask(messages):
    user_id = f"user_{uuid.uuid4().hex[:8]}"  # here
    return client.messages.create(model="m", max_tokens=10, system=f"{BASE} You help {user_id}.", messages=messages)
"""
    check_positive("CL105", source)
    (found,) = [d for d in run(source) if d.code == "CL105"]
    assert found.severity == Severity.INFO and "uuid4() as user_id (a per-user or per-session value)" in found.message


def test_a_uuid_held_as_a_request_id_is_one_finding():
    source = """
def ask(messages):
    request_id = str(uuid.uuid4())  # here
    return client.messages.create(model="m", max_tokens=10, system=f"{BASE} Request {request_id}.", messages=messages)
"""
    check_positive("CL105", source)
    (found,) = [d for d in run(source) if d.code == "CL105"]
    assert found.severity is None and found.message.startswith("uuid4() reaches")


SEEDED = """
random.seed(SEED)
STYLES = ["terse", "chatty"]


def ask(messages):
    style = random.choice(STYLES)
    return client.messages.create(model="m", max_tokens=10, system=f"{BASE} Be {style}.", messages=messages)
"""


@pytest.mark.parametrize("seed", ["42", "seed=7", "SETTINGS.seed"])
def test_a_seeded_random_module_is_reproducible(seed):
    """random.seed(42): the module's random values are the same, in the same order, in every
    process; the prefixes they make are the same from one run to the next."""
    check_negative("CL105", SEEDED.replace("SEED", seed), only_this_code=True)


@pytest.mark.parametrize("seed", ["", "None"])
def test_random_seeded_with_nothing_is_still_random(seed):
    source = SEEDED.replace("SEED", seed).replace(
        "style = random.choice(STYLES)", "style = random.choice(STYLES)  # here"
    )
    check_positive("CL105", source)


def test_a_system_random_ignores_the_seed():
    source = SEEDED.replace("SEED", "42").replace(
        "random.choice(STYLES)", "random.SystemRandom().choice(STYLES)  # here"
    )
    check_positive("CL105", source)


LOOKUP = """
from memorystore import Memory

memory = Memory()


def ask(question):
    uid = str(uuid.uuid4())  # here
    found = CALL
    return client.messages.create(model="m", max_tokens=10, system=f"{BASE} Known: {found}", messages=[{"role": "user", "content": question}])
"""


@pytest.mark.parametrize("call", ["memory.search(question, user_id=uid)", "memory.lookup(run_id=uid, limit=3)"])
def test_an_id_given_to_look_something_up_is_not_the_result(call):
    """memory.search(query, user_id=uid) returns memories, not the id: the id does not reach the
    prompt through the result of a call the analysis does not know."""
    check_negative("CL105", LOOKUP.replace("CALL", call), only_this_code=True)


@pytest.mark.parametrize(
    "call", ["TEMPLATE.format(user_id=uid)", "memory.search(question, uid)", "memory.search(f'{question} {uid}')"]
)
def test_an_id_filled_into_text_still_reaches(call):
    source = LOOKUP.replace("CALL", call).replace(
        "memory = Memory()", "memory = Memory()\nTEMPLATE = 'You help {user_id}.'"
    )
    check_positive("CL105", source)


TOOL_OBJECT = """
from searchkit import SearchTools, Tool

TODAY = date.today().isoformat()  # here


def ask(messages):
    return client.messages.create(model="m", max_tokens=10, tools=TOOLS_GIVEN, system=BASE, messages=messages)
"""


@pytest.mark.parametrize(
    "tools", ["[SearchTools(since=TODAY, mode='news')]", "[SearchTools(session_key=uuid.uuid4().hex), *EXTRA]"]
)
def test_a_date_given_to_configure_a_tool_object_is_not_in_its_schema(tools):
    """tools=[SearchTools(since=today)]: the toolkit's definitions come from its class; the date
    filters its searches."""
    source = (
        TOOL_OBJECT.replace("TOOLS_GIVEN", tools)
        .replace("  # here", "")
        .replace("from searchkit", "EXTRA = []\nfrom searchkit")
    )
    check_negative("CL105", source, only_this_code=True)


@pytest.mark.parametrize(
    "tools",
    [
        "[Tool(name='news', description=f'News since {TODAY}')]",
        "[SearchTools(TODAY)]",
        "[SearchTools(since=TODAY), make_tool(TODAY)]",
    ],
)
def test_a_date_in_a_tool_definition_still_reaches(tools):
    check_positive("CL105", TOOL_OBJECT.replace("TOOLS_GIVEN", tools))
