"""CL103/CL104/CL106 on what real agent loops do that is no change: values rebuilt each
iteration from values that do not vary, calls the loop does not repeat, module functions that
look like list methods; and one finding per change, naming what really changes."""

from __future__ import annotations

import pytest

from codecheck_helpers import marked_lines, run
from rule_cases import check_negative, params

QUIET = {
    "setting-rebuilt-through-two-names-from-invariant-inputs": """
def run(messages, cfg):
    while True:
        choice = pick(cfg)
        tool_choice = {"type": choice}
        reply = client.messages.create(model="m", max_tokens=10, tool_choice=tool_choice, messages=messages)
        messages.append({"role": "assistant", "content": reply.content})
""",
    "tools-rebuilt-and-passed-through-a-hook-each-turn": """
def run(messages, tools):
    while True:
        formatted = format_tools(tools)
        formatted = apply_hooks(formatted)
        reply = oai.chat.completions.create(model="m", tools=formatted, messages=messages)
        messages.append(reply.choices[0].message)
""",
    "fresh-request-dict-with-the-same-model-each-turn": """
def watch(source, llm):
    while True:
        text = source.read()
        messages = [{"role": "system", "content": BASE}, {"role": "user", "content": text}]
        params = {"messages": messages, "model": llm.model, "stream": True}
        if llm.api_key:
            params["api_key"] = llm.api_key
        for chunk in litellm.completion(**params):
            print(chunk)
""",
    "call-followed-by-return": """
def chat(tools, messages, tool_choice):
    while True:
        formatted = format_tools(tools)
        if tools:
            kwargs = dict(model="m", messages=messages, tools=formatted)
            if tool_choice:
                kwargs["tool_choice"] = tool_choice
            response = oai.chat.completions.create(**kwargs)
            return response
        messages.append({"role": "user", "content": "go on"})
""",
    "call-followed-by-break": """
def chat(messages, choice):
    while True:
        choice = next_choice(choice)
        response = client.messages.create(model="m", max_tokens=10, tool_choice=choice, messages=messages)
        break
""",
    "retry-changes-keys-that-are-no-cache-settings": """
def complete(params):
    for attempt in range(4):
        try:
            yield from litellm.completion(**params)
            return
        except Exception:
            params["api_key"] = "x"
            params["temperature"] = params.get("temperature", 0.0) + 0.1
""",
    "os-remove-is-no-list-shrunk": """
def run(messages, files):
    while True:
        reply = client.messages.create(model=os.environ["MODEL"], max_tokens=10, messages=messages)
        os.remove(files.pop())
        messages.append({"role": "assistant", "content": reply.content})
""",
    "fixed-key-set-each-turn-before-the-call": """
def run(messages):
    while True:
        kwargs = {"model": "m", "messages": messages}
        kwargs["tool_choice"] = "auto"
        reply = oai.chat.completions.create(**kwargs)
        messages.append(reply.choices[0].message)
""",
    "one-request-per-item-through-two-names": """
from langchain_core.messages import SystemMessage

def build_filters(state, llm):
    for interface in state["web_interfaces"]:
        info = interface.get_filters_info()
        system_message = SystemMessage(info + "User needs: " + state["user_needs"])
        result = llm.invoke([system_message])
        interface.set_filters(result.content)
""",
    "request-built-under-the-condition-its-call-is-under": """
def watch(source, llm):
    while True:
        text = source.read()
        if text.endswith("?"):
            params = {"model": llm.model, "messages": [{"role": "user", "content": text}], "tool_choice": "auto"}
            if llm.key:
                params["api_key"] = llm.key
            print(litellm.completion(**params))
""",
    "setting-fixed-under-the-condition-its-call-is-under": """
def run(messages, tools, urgent):
    while True:
        if urgent(messages):
            tool_choice = {"type": "any"}
            reply = client.messages.create(model="m", max_tokens=10, tools=tools, tool_choice=tool_choice, messages=messages)
            messages.append({"role": "assistant", "content": reply.content})
        messages.append({"role": "user", "content": "next"})
""",
    "setting-rebuilt-each-turn-before-the-helper-that-sends-it": """
def ask(messages, choice):
    return oai.chat.completions.create(model="m", tool_choice=choice, messages=messages)

def run(messages, cfg):
    while True:
        choice = {"type": cfg.kind}
        messages.append(ask(messages, choice).choices[0].message)
""",
    "attribute-changed-is-not-the-attribute-read": """
class Watcher:
    def watch(self, source):
        while True:
            text = source.read()
            self.outputs.append(text)
            self.last = text
            messages = [{"role": "system", "content": BASE}, {"role": "user", "content": text}]
            params = {"messages": messages, "model": self.llm.model}
            for chunk in litellm.completion(**params):
                print(chunk)
""",
    "marker-set-under-a-condition-the-loop-does-not-vary": """
def run(messages, provider, system):
    while True:
        caching = False
        if provider == "anthropic":
            caching = True
        if caching:
            system["cache_control"] = {"type": "ephemeral"}
        reply = client.messages.create(model="m", max_tokens=10, system=[system], messages=messages)
        messages.append({"role": "assistant", "content": reply.content})
""",
    "history-replaced-by-what-the-step-that-sends-it-returns": """
class Agent:
    async def step(self, messages):
        reply = await client.messages.create(model="m", max_tokens=10, system=messages[0]["content"], messages=messages[1:])
        return messages + [{"role": "assistant", "content": reply.content}]

    async def run(self, task):
        messages = [{"role": "system", "content": BASE}, {"role": "user", "content": task}]
        for _ in range(10):
            messages = await self.step(messages)
""",
    "one-request-per-item-whose-system-reads-the-item-and-notes-kept-per-item": """
def describe(graph, names):
    for name in names:
        previous = graph[name].get("description")
        system = TEMPLATE.format(name=name, previous=previous)
        reply = oai.chat.completions.create(model="m", messages=[{"role": "system", "content": system}])
        graph[name]["description"] = reply.choices[0].message.content
""",
}


@pytest.mark.parametrize("source", params(QUIET))
def test_quiet(source):
    check_negative("CL103", source, only_this_code=True)
    check_negative("CL104", source, only_this_code=True)
    check_negative("CL106", source, only_this_code=True)


TOOLS_DROPPED = """
async def run(client, messages, tools, budget):
    calls = 0
    while True:
        request = {"model": "m", "messages": messages}
        if calls < budget:
            request.update(tools=tools, tool_choice="auto", parallel_tool_calls=False)  # here
        response = await client.chat.completions.create(**request)
        messages.append(response.choices[0].message)
        calls += 1
"""


def test_tools_dropped_from_the_request_are_one_tools_finding():
    found = [(d.code, d.line) for d in run(TOOLS_DROPPED) if d.code.startswith("CL10")]
    assert found == [("CL103", line) for line in marked_lines(TOOLS_DROPPED)], found


ATTRIBUTE_MODEL = """
class Agent:
    def run(self, messages):
        while True:
            reply = litellm.completion(model=self.model, messages=messages)
            messages.append(reply.choices[0].message)
            if reply.usage.total_tokens > 1000:
                self.model = self.small_model  # here
"""


def test_the_attribute_read_is_still_found_when_it_changes():
    found = [d.line for d in run(ATTRIBUTE_MODEL) if d.code == "CL106"]
    assert found == marked_lines(ATTRIBUTE_MODEL)


MODEL_KEY = """
def run(messages, fallback):
    params = {"model": "m", "messages": messages, "temperature": 0}
    while True:
        params["temperature"] = 0.5
        try:
            reply = litellm.completion(**params)
        except Exception:
            params["model"] = fallback  # here
            continue
        messages.append(reply.choices[0].message)
"""


def test_the_key_that_changes_is_named():
    found = [d for d in run(MODEL_KEY) if d.code == "CL106"]
    assert [d.line for d in found] == marked_lines(MODEL_KEY), [d.message for d in found]
    assert "model" in found[0].message and "temperature" not in found[0].message


# A setting changed under a condition still changes for a call the condition does not guard: the
# call after the ``if``, the one in the ``else``, a helper also called outside the ``if``.
CHANGED_FOR_ANOTHER_CALL = {
    "call-after-the-if": """
def run(messages, tools, limit):
    tool_choice = "auto"
    while True:
        if len(messages) > limit:
            tool_choice = "none"  # here
            oai.chat.completions.create(model="m", tools=tools, tool_choice=tool_choice, messages=messages[-2:])
        reply = oai.chat.completions.create(model="m", tools=tools, tool_choice=tool_choice, messages=messages)
        messages.append(reply.choices[0].message)
""",
    "call-in-the-else": """
def run(messages, tools, spent):
    tool_choice = "auto"
    while True:
        if spent(messages):
            tool_choice = "none"  # here
        else:
            reply = oai.chat.completions.create(model="m", tools=tools, tool_choice=tool_choice, messages=messages)
            messages.append(reply.choices[0].message)
""",
    "helper-called-inside-and-after-the-if": """
def run(messages, hard):
    choice = "auto"
    while True:
        if hard(messages):
            choice = "required"  # here
            ask(messages[-2:], choice)
        messages.append(ask(messages, choice).choices[0].message)

def ask(messages, choice):
    return oai.chat.completions.create(model="m", tool_choice=choice, messages=messages)
""",
}


@pytest.mark.parametrize("source", params(CHANGED_FOR_ANOTHER_CALL))
def test_a_change_under_a_condition_is_found_for_the_calls_it_does_not_guard(source):
    found = [d.line for d in run(source) if d.code == "CL106"]
    assert found == marked_lines(source), found


CONDITIONS_THAT_VARY = {
    "a counter of the loop": """
def run(messages, system):
    turn = 0
    while True:
        turn += 1
        if turn > 3:
            system["text"] = "answer now"  # here
        reply = client.messages.create(model="m", max_tokens=10, system=[system], messages=messages)
        messages.append({"role": "assistant", "content": reply.content})
""",
    "a call's answer": """
def run(messages, system):
    while True:
        if running_late():
            system["text"] = "answer now"  # here
        reply = client.messages.create(model="m", max_tokens=10, system=[system], messages=messages)
        messages.append({"role": "assistant", "content": reply.content})
""",
    "an invariant condition, after the call": """
def run(messages, system, caching):
    while True:
        reply = client.messages.create(model="m", max_tokens=10, system=[system], messages=messages)
        messages.append({"role": "assistant", "content": reply.content})
        if caching:
            system["text"] = "continue"  # here
""",
}


@pytest.mark.parametrize("source", params(CONDITIONS_THAT_VARY))
def test_a_write_under_a_condition_that_may_change_is_still_found(source):
    found = [d.line for d in run(source) if d.code == "CL104"]
    assert found == marked_lines(source), found


REBUILT_BEFORE_THE_STEP = """
def step(messages):
    return oai.chat.completions.create(model="m", messages=messages).choices[0].message

def run(task):
    messages = [{"role": "system", "content": BASE}, {"role": "user", "content": task}]
    for turn in range(10):
        messages[0] = {"role": "system", "content": f"{BASE} (turn {turn})"}  # here
        messages.append(step(messages))
"""


def test_a_history_rebuilt_before_the_step_is_still_found():
    found = [d.line for d in run(REBUILT_BEFORE_THE_STEP) if d.code == "CL104"]
    assert found == marked_lines(REBUILT_BEFORE_THE_STEP), found


HANDOFF = """
class Runner:
    def run(self, agent, messages):
        while True:
            reply = oai.chat.completions.create(model="m", messages=[{"role": "system", "content": agent.instructions}, *messages])
            messages.append(reply.choices[0].message)
            if reply.choices[0].message.tool_calls:
                agent = route(agent, reply)  # here
                continue
            return Result(agent=agent, messages=messages)


def repl(agent):
    runner, messages = Runner(), []
    while True:
        messages.append({"role": "user", "content": input()})
        result = runner.run(agent, messages)
        agent = result.agent
"""


def test_the_agent_a_run_ends_with_goes_on_unchanged_and_the_handoff_inside_is_found():
    found = [d.line for d in run(HANDOFF) if d.code == "CL104"]
    assert found == marked_lines(HANDOFF), found
    picked = HANDOFF.replace("agent = result.agent", "agent = pick(result)  # here")
    found = [d.line for d in run(picked) if d.code == "CL104"]
    assert found == marked_lines(picked), found


ITEM_LOOPS_THAT_CHANGE_A_SESSION = {
    "a conversation carried from item to item": """
def describe(graph, names):
    messages = [{"role": "system", "content": BASE}]
    for name in names:
        previous = graph[name].get("description")
        messages[0] = {"role": "system", "content": TEMPLATE.format(name=name, previous=previous)}  # here
        reply = oai.chat.completions.create(model="m", messages=messages)
        messages.append(reply.choices[0].message)
        graph[name]["description"] = reply.choices[0].message.content
""",
    "a system that does not read the item": """
def describe(names):
    done = []
    for name in names:
        system = f"{BASE} ({len(done)} done)"  # here
        reply = oai.chat.completions.create(model="m", messages=[{"role": "system", "content": system}, {"role": "user", "content": name}])
        done.append(reply)
""",
}


@pytest.mark.parametrize("source", params(ITEM_LOOPS_THAT_CHANGE_A_SESSION))
def test_a_system_built_from_the_item_is_still_found_where_a_session_goes_on(source):
    found = [d.line for d in run(source) if d.code == "CL104"]
    assert found == marked_lines(source), found
