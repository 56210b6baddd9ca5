"""Generate a captured Anthropic request log for the audit benchmark (docs/benchmarks.md).

N requests in sessions of growing histories (each request resends the whole history, as agents do),
30 tools, envelopes with usage, a few injected breaks (a tool reorder, a timestamp in the system
prompt, a tool_choice change). About 64 MB for 2,000 requests with the defaults.

    python benchmarks/gen_anthropic_log.py --requests 2000 -o /tmp/bench.jsonl
"""

from __future__ import annotations

import argparse
import json
import random


def tools(n: int) -> list[dict]:
    out = []
    for i in range(n):
        out.append(
            {
                "name": f"tool_{i:02d}",
                "description": f"Tool number {i}: reads, searches or edits project files. " * 3,
                "input_schema": {
                    "type": "object",
                    "properties": {
                        "path": {"type": "string", "description": "A path relative to the repository root."},
                        "query": {"type": "string", "description": "What to look for."},
                        "limit": {"type": "integer", "description": "At most this many results."},
                    },
                    "required": ["path"],
                },
            }
        )
    return out


def rich_tools(n: int) -> list[dict]:
    """Tools shaped like real agents' and MCP servers' (many typed properties with enums, defaults,
    nested arrays of objects): JSON much denser in small values than ``tools()``, which is slower
    to parse per byte (the issue's reference log parsed at ~140 MB/s, this script's default at
    ~350 MB/s)."""
    out = []
    for i in range(n):
        properties: dict = {}
        for j in range(10):
            properties[f"opt_{j}"] = {
                "type": ["string", "integer", "boolean"][j % 3],
                "description": f"Option {j}.",
                **(
                    {"enum": ["a", "b", "c", "d"]}
                    if j % 3 == 0
                    else {"default": j}
                    if j % 3 == 1
                    else {"default": False}
                ),
            }
        properties["edits"] = {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "line": {"type": "integer", "minimum": 1},
                    "old": {"type": "string"},
                    "new": {"type": "string"},
                },
                "required": ["line", "old", "new"],
                "additionalProperties": False,
            },
        }
        out.append(
            {
                "name": f"tool_{i:02d}",
                "description": f"Tool number {i}: reads, searches or edits project files.",
                "input_schema": {
                    "type": "object",
                    "properties": properties,
                    "required": ["opt_0"],
                    "additionalProperties": False,
                },
            }
        )
    return out


def tool_result(session: int, step: int, size: int) -> str:
    """``size`` bytes of file content, as a tool returns it (distinct per session and step)."""
    line = f"    value_{session}_{step} = compute(value_{step}, limit={step * 7 % 97})  # step {step}\n"
    return (line * (size // len(line) + 1))[:size]


def generate(
    requests: int,
    per_session: int,
    tool_count: int,
    seed: int,
    out,
    result_bytes: int = 0,
    schema: str = "plain",
    clock: bool = False,
) -> int:
    """``result_bytes``: when > 0, every user turn after the first also carries the result of the
    previous turn's tool call, that many bytes long (real coding agents send file contents back:
    their lines are hundreds of KB, the default lines ~35 KB). ``schema``: "plain" (short
    schemas, long descriptions) or "rich" (``rich_tools``). ``clock``: every system prompt ends with
    the request's time, so every request after a session's first breaks the cache (the worst case:
    a break's diff, excerpts and explanations for every pair)."""
    rng = random.Random(seed)
    base_tools = rich_tools(tool_count) if schema == "rich" else tools(tool_count)
    system = "You are a coding agent working in a large repository. Follow the house rules. " * 20
    written = 0
    for index in range(requests):
        session = index // per_session
        turn = index % per_session
        history = []
        for t in range(turn + 1):
            content = [{"type": "text", "text": f"s{session} step {t}: " + "please continue the refactor. " * 12}]
            if result_bytes and t:
                content.insert(
                    0,
                    {
                        "type": "tool_result",
                        "tool_use_id": f"toolu_{session}_{t - 1}",
                        "content": tool_result(session, t, result_bytes),
                    },
                )
            history.append({"role": "user", "content": content})
            if t < turn:
                history.append(
                    {
                        "role": "assistant",
                        "content": [
                            {
                                "type": "text",
                                "text": f"Working on step {t}. " + "I read the file and changed it. " * 10,
                            },
                            {
                                "type": "tool_use",
                                "id": f"toolu_{session}_{t}",
                                "name": f"tool_{t % tool_count:02d}",
                                "input": {"path": f"src/m{t}.py", "query": "def "},
                            },
                        ],
                    }
                )
        history[-1]["content"][-1]["cache_control"] = {"type": "ephemeral"}
        body_tools = base_tools
        body_system = system
        tool_choice = {"type": "auto"}
        if turn and rng.random() < 0.01:
            body_tools = base_tools[1:] + base_tools[:1]  # an injected reorder
        sent = f"2026-11-29T{10 + index // 3600 % 10:02d}:{index // 60 % 60:02d}:{index % 60:02d}Z"
        if clock:
            body_system = system + f" Now: {sent}"
        elif turn and rng.random() < 0.01:
            body_system = system + f" Now: 2026-11-29T10:{turn % 60:02d}:00Z"
        if turn and rng.random() < 0.005:
            tool_choice = {"type": "any"}
        body = {
            "model": "claude-sonnet-4-5",
            "max_tokens": 4096,
            "tools": body_tools,
            "system": body_system,
            "tool_choice": tool_choice,
            "messages": history,
        }
        envelope = {
            "request": body,
            "response": {
                "id": f"msg_{index}",
                "usage": {
                    "input_tokens": 50,
                    "cache_creation_input_tokens": 400,
                    "cache_read_input_tokens": 9000 + 800 * turn,
                    "output_tokens": 120,
                },
            },
            "time": sent,
        }
        line = json.dumps(envelope, separators=(",", ":")) + "\n"
        out.write(line)
        written += len(line)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--per-session", type=int, default=40)
    parser.add_argument("--tools", type=int, default=30)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--result-bytes", type=int, default=0, help="bytes of tool result each user turn sends back (0: none)"
    )
    parser.add_argument(
        "--schema",
        choices=("plain", "rich"),
        default="plain",
        help="tool schemas: short (plain) or many typed properties (rich)",
    )
    parser.add_argument(
        "--clock",
        "--clock-in-system",
        dest="clock",
        action="store_true",
        help="every system prompt carries the request's time (every request breaks)",
    )
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    with open(args.output, "w") as out:
        size = generate(
            args.requests, args.per_session, args.tools, args.seed, out, args.result_bytes, args.schema, args.clock
        )
    print(f"{args.output}: {args.requests} requests, {size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
