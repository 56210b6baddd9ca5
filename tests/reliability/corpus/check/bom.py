import anthropic
client = anthropic.Anthropic()
TOOLS = {"search": {"name": "search"}, "fetch": {"name": "fetch"}}
names = {"search", "fetch"}
client.messages.create(model="m", tools=[TOOLS[n] for n in names], messages=[])
