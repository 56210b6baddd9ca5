"""A small agent loop on the Anthropic Python SDK, run by tests/proxy/test_sdks.py under
`cachelint run --fake-model`: it reads its base URL from ANTHROPIC_BASE_URL like any user's agent,
sends the same tools and system prompt every turn (a stable prefix), and stops at the first
answer without tool calls. Two conversations: one with `messages.create`, one with the SDK's
streaming helper."""

import sys

import anthropic

SYSTEM = [
    {
        "type": "text",
        "text": "You are a travel assistant. Use the tools to look things up before you answer. " * 60,
        "cache_control": {"type": "ephemeral"},
    }
]
TOOLS = [
    {
        "name": "get_weather",
        "description": "The weather in a city.",
        "input_schema": {
            "type": "object",
            "properties": {"city": {"type": "string", "minLength": 2}, "unit": {"enum": ["c", "f"]}},
            "required": ["city", "unit"],
        },
    },
    {
        "name": "get_time",
        "description": "The local time in a time zone.",
        "input_schema": {"type": "object", "properties": {"zone": {"type": "string"}}, "required": ["zone"]},
    },
]


def converse(client: anthropic.Anthropic, question: str, stream: bool) -> None:
    messages = [{"role": "user", "content": question}]
    for _ in range(10):
        options = dict(model="claude-sonnet-4-5", max_tokens=512, system=SYSTEM, tools=TOOLS, messages=messages)
        if stream:
            with client.messages.stream(**options) as events:
                reply = events.get_final_message()
        else:
            reply = client.messages.create(**options)
        messages.append(
            {"role": "assistant", "content": [block.model_dump(exclude_none=True) for block in reply.content]}
        )
        calls = [block for block in reply.content if block.type == "tool_use"]
        if not calls:
            print("answer:", reply.content[0].text)
            return
        print("called:", ", ".join(f"{c.name}{c.input}" for c in calls))
        messages.append(
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": c.id, "content": "sunny"} for c in calls],
            }
        )
    sys.exit("no answer after 10 turns")


if __name__ == "__main__":
    client = anthropic.Anthropic()
    converse(client, "Weather and time in Paris?", stream=False)
    converse(client, "Weather and time in Lisbon?", stream=True)
