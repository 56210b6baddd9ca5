// A small agent loop on the `openai` Node package, run by tests/proxy/test_sdks.py under
// `cachelint run --fake-model`: a Chat Completions conversation (streamed) and a Responses one
// (chained by previous_response_id). Its base URL comes from OPENAI_BASE_URL. Its prefix is stable.
import OpenAI from "openai";

const client = new OpenAI();
const instructions = "You are a booking assistant. Look hotels up before you answer. ".repeat(60);
const parameters = {
  type: "object",
  properties: { city: { type: "string" }, nights: { type: "integer", minimum: 1 } },
  required: ["city", "nights"],
  additionalProperties: false,
};
const names = ["find_hotels", "check_reviews"];

async function chat() {
  const tools = names.map((name) => ({ type: "function", function: { name, description: name, parameters } }));
  const messages = [{ role: "system", content: instructions }, { role: "user", content: "Two nights in Porto." }];
  for (let turn = 0; turn < 10; turn++) {
    const runner = client.chat.completions.stream({ model: "gpt-5", messages, tools, stream_options: { include_usage: true } });
    const message = (await runner.finalChatCompletion()).choices[0].message;
    if (!message.tool_calls || message.tool_calls.length === 0) return console.log("answer:", message.content);
    messages.push({
      role: "assistant",
      content: null,
      tool_calls: message.tool_calls.map((c) => ({ id: c.id, type: "function", function: { name: c.function.name, arguments: c.function.arguments } })),
    });
    for (const call of message.tool_calls) {
      console.log("called:", call.function.name, call.function.arguments);
      messages.push({ role: "tool", tool_call_id: call.id, content: "ok" });
    }
  }
  throw new Error("no answer after 10 turns");
}

async function responses() {
  const tools = names.map((name) => ({ type: "function", name, description: name, parameters, strict: true }));
  let input = [{ role: "user", content: "Two nights in Porto." }];
  let previous;
  for (let turn = 0; turn < 10; turn++) {
    const response = await client.responses.create({ model: "gpt-5", instructions, tools, input, previous_response_id: previous });
    const calls = response.output.filter((item) => item.type === "function_call");
    if (calls.length === 0) return console.log("answer:", response.output_text);
    console.log("called:", calls.map((c) => c.name).join(", "));
    previous = response.id;
    input = calls.map((c) => ({ type: "function_call_output", call_id: c.call_id, output: "ok" }));
  }
  throw new Error("no answer after 10 turns");
}

await chat();
await responses();
