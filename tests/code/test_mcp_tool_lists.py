"""CL101 on MCP tool lists: a server lists its tools in an order of its own (the protocol's
tools/list returns an array and says nothing of its order), so tools sent as listed follow the
server; sorted by name they do not. Methods of imported MCP client classes are matched through the
type of their receiver; a ``get_tools()`` of any other object is not an MCP list."""

from __future__ import annotations

import pytest

from rule_cases import check_negative, check_positive, params

LISTED = {
    "session-list-tools-into-dicts": """
async def ask(session, messages):
    listed = await session.list_tools()  # here
    tools = [{"name": t.name, "input_schema": t.inputSchema} for t in listed.tools]
    return client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
""",
    "strands-list-tools-sync": """
def ask(mcp_client, messages):
    tools = mcp_client.list_tools_sync()  # here
    return client.messages.create(model="m", max_tokens=10, tools=[t.tool_spec for t in tools], messages=messages)
""",
    "multi-server-client-get-tools": """
from langchain_mcp_adapters.client import MultiServerMCPClient
from langgraph.prebuilt import create_react_agent

async def graph(model):
    mcp = MultiServerMCPClient({"docs": {"url": "http://localhost:8000/mcp", "transport": "http"}})
    tools = await mcp.get_tools()  # here
    return create_react_agent(model, tools)
""",
    "load-mcp-tools": """
from langchain_mcp_adapters.tools import load_mcp_tools
from langgraph.prebuilt import create_react_agent

async def graph(model, session):
    tools = await load_mcp_tools(session)  # here
    return create_react_agent(model, tools=tools)
""",
}

QUIET = {
    "sorted-by-name": """
async def ask(session, messages):
    listed = await session.list_tools()
    tools = sorted(({"name": t.name, "input_schema": t.inputSchema} for t in listed.tools), key=lambda t: t["name"])
    return client.messages.create(model="m", max_tokens=10, tools=tools, messages=messages)
""",
    "get-tools-of-another-toolkit": """
from camel.toolkits import MathToolkit

def ask(messages):
    toolkit = MathToolkit()
    return client.messages.create(model="m", max_tokens=10, tools=toolkit.get_tools(), messages=messages)
""",
    "own-list-tools-method": """
class Registry:
    def __init__(self):
        self.tools = [TOOLS["search"], TOOLS["fetch"]]

    def list_tools(self):
        return self.tools

    def ask(self, messages):
        return client.messages.create(model="m", max_tokens=10, tools=self.list_tools(), messages=messages)
""",
    "listed-only-for-names": """
async def known(session):
    listed = await session.list_tools()
    return len(listed.tools)

async def ask(session, messages):
    if await known(session):
        return client.messages.create(model="m", max_tokens=10, tools=[TOOLS["search"]], messages=messages)
""",
}


@pytest.mark.parametrize("source", params(LISTED))
def test_an_mcp_tool_list_sent_as_listed_is_reported(source: str) -> None:
    check_positive("CL101", source)


@pytest.mark.parametrize("source", params(QUIET))
def test_sorted_or_other_tool_lists_are_quiet(source: str) -> None:
    check_negative("CL101", source, only_this_code=True)


def test_the_message_names_the_mcp_list() -> None:
    from codecheck_helpers import run

    found = [d for d in run(LISTED["session-list-tools-into-dicts"]) if d.code == "CL101"]
    assert len(found) == 1
    assert "MCP tool list" in found[0].message and "client.messages.create" in found[0].message
