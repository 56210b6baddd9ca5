"""A small agent loop on the OpenAI Python SDK, run by tests/proxy/test_sdks.py under
`cachelint run --fake-model`, its base URL from OPENAI_BASE_URL. Four conversations: Chat
Completions and Responses (chained by previous_response_id), each with `create` and with the
SDK's streaming helper."""

import json
import sys

import openai

INSTRUCTIONS = "You are a travel assistant. Use the tools to look things up before you answer. " * 60
PARAMETERS = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1}},
    "required": ["city", "days"],
    "additionalProperties": False,
}
NAMES = ("get_forecast", "get_hotels")


def chat(client: openai.OpenAI, question: str, stream: bool) -> None:
    tools = [{"type": "function", "function": {"name": n, "description": n, "parameters": PARAMETERS}} for n in NAMES]
    messages = [{"role": "system", "content": INSTRUCTIONS}, {"role": "user", "content": question}]
    for _ in range(10):
        if stream:
            with client.chat.completions.stream(model="gpt-5", messages=messages, tools=tools) as events:
                message = events.get_final_completion().choices[0].message
        else:
            message = client.chat.completions.create(model="gpt-5", messages=messages, tools=tools).choices[0].message
        if not message.tool_calls:
            print("answer:", message.content)
            return
        messages.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": c.id,
                        "type": "function",
                        "function": {"name": c.function.name, "arguments": c.function.arguments},
                    }
                    for c in message.tool_calls
                ],
            }
        )
        for call in message.tool_calls:
            print("called:", call.function.name, json.loads(call.function.arguments))
            messages.append({"role": "tool", "tool_call_id": call.id, "content": "ok"})
    sys.exit("no answer after 10 turns")


def responses(client: openai.OpenAI, question: str, stream: bool) -> None:
    tools = [{"type": "function", "name": n, "description": n, "parameters": PARAMETERS, "strict": True} for n in NAMES]
    items: list = [{"role": "user", "content": question}]
    previous = None
    for _ in range(10):
        options = dict(
            model="gpt-5", instructions=INSTRUCTIONS, tools=tools, input=items, previous_response_id=previous
        )
        if stream:
            with client.responses.stream(**options) as events:
                response = events.get_final_response()
        else:
            response = client.responses.create(**options)
        calls = [item for item in response.output if item.type == "function_call"]
        if not calls:
            print("answer:", response.output_text)
            return
        print("called:", ", ".join(c.name for c in calls))
        previous = response.id
        items = [{"type": "function_call_output", "call_id": c.call_id, "output": "ok"} for c in calls]
    sys.exit("no answer after 10 turns")


if __name__ == "__main__":
    client = openai.OpenAI()
    chat(client, "Plan three days in Lisbon.", stream=False)
    chat(client, "Plan three days in Porto.", stream=True)
    responses(client, "Plan three days in Faro.", stream=False)
    responses(client, "Plan three days in Braga.", stream=True)
