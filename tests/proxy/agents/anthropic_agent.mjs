// A small agent loop on @anthropic-ai/sdk, run by tests/proxy/test_sdks.py under
// `cachelint run --fake-model`. Its base URL comes from ANTHROPIC_BASE_URL like any user's agent.
// The cache break it carries on purpose: the system prompt is built every turn with the current
// time in it, so every request rewrites the system tier and everything after it.
import Anthropic from "@anthropic-ai/sdk";

const client = new Anthropic();
const tools = [
  {
    name: "search_flights",
    description: "Flights between two airports.",
    input_schema: {
      type: "object",
      properties: { from: { type: "string", pattern: "^[A-Z]{3}$" }, to: { type: "string" }, adults: { type: "integer", minimum: 1 } },
      required: ["from", "to", "adults"],
    },
  },
  { name: "book", description: "Book a flight.", input_schema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] } },
];
const rules = "You are a booking assistant. Look flights up before you answer. ".repeat(60);
async function converse(question, stream) {
  const messages = [{ role: "user", content: question }];
  for (let turn = 0; turn < 10; turn++) {
    const system = [{ type: "text", text: `${rules}\nCurrent time: ${new Date().toISOString()}`, cache_control: { type: "ephemeral" } }];
    const options = { model: "claude-sonnet-4-5", max_tokens: 512, system, tools, messages };
    const reply = stream ? await client.messages.stream(options).finalMessage() : await client.messages.create(options);
    messages.push({ role: "assistant", content: reply.content });
    const calls = reply.content.filter((block) => block.type === "tool_use");
    if (calls.length === 0) return console.log("answer:", reply.content[0].text);
    console.log("called:", calls.map((c) => `${c.name} ${JSON.stringify(c.input)}`).join(", "));
    await new Promise((resolve) => setTimeout(resolve, 20)); // the tools take a moment
    messages.push({ role: "user", content: calls.map((c) => ({ type: "tool_result", tool_use_id: c.id, content: "ok" })) });
  }
  throw new Error("no answer after 10 turns");
}

// Two conversations: one with messages.create, one with the SDK's streaming helper.
await converse("Find me a flight from LIS to OPO.", false);
await converse("Find me a flight from OPO to FAO.", true);
