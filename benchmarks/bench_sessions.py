"""Session-heavy logs for the grouping benchmark (docs/benchmarks.md, "Sessions").

Three shapes, each the worst case of one part of grouping:

- ``one-shot``: N evaluation requests, one user message each under one system prompt: every open
  session is the same agent, none can be continued (each request starts a session).
- ``agents``: N distinct agents (system prompts unlike one another) given the same opening task,
  two requests each: every open session shares the first message.
- ``sessions``: N one-request sessions, each a short conversation of its own, for the memory of
  ``--output-format json`` (the report lists every session).
- ``usage-sessions``: N one-request sessions of N distinct agents (a system prompt each), each
  answered with its usage (cache written, read, uncached): the same memory test with a usage
  summary and money for every session.

    python benchmarks/bench_sessions.py --shape one-shot --n 20000 -o /tmp/oneshot.jsonl
    python benchmarks/bench_sessions.py --shape one-shot --n 20000 --time   # generate, then time the audit
    python benchmarks/bench_sessions.py --shape usage-sessions --n 1000000 -o /tmp/u1m.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from typing import Callable, Iterable, Iterator

URL = "https://api.anthropic.com/v1/messages"
MODEL = "claude-sonnet-4-5"


def _line(body: dict, i: int, response: dict | None = None) -> str:
    envelope = {"url": URL, "time": f"2026-12-01T10:{(i // 60) % 60:02d}:{i % 60:02d}Z", "request": body}
    if response is not None:
        envelope["response"] = response
    return json.dumps(envelope)


def one_shot(n: int) -> list[str]:
    system = "You grade the answer of a student to a question. Reply with a score from 0 to 10."
    return [
        _line(
            {
                "model": MODEL,
                "max_tokens": 16,
                "system": system,
                "messages": [{"role": "user", "content": f"Question {i}: what is {i} + {i}? Answer: {2 * i}"}],
            },
            i,
        )
        for i in range(n)
    ]


def agents(n: int, seed: int = 7) -> list[str]:
    rng = random.Random(seed)
    words = [f"w{k}" for k in range(5000)]
    task = "Summarise the attached report in three bullet points."
    prompts = [" ".join(rng.choice(words) for _ in range(120)) for _ in range(n)]
    out = []
    for i in range(n):
        first = [{"role": "user", "content": task}]
        out.append(_line({"model": MODEL, "max_tokens": 64, "system": prompts[i], "messages": first}, len(out)))
        later = [
            *first,
            {"role": "assistant", "content": f"Bullets of agent {i}."},
            {"role": "user", "content": "Shorter."},
        ]
        out.append(_line({"model": MODEL, "max_tokens": 64, "system": prompts[i], "messages": later}, len(out)))
    return out


def sessions(n: int) -> list[str]:
    return [
        _line(
            {
                "model": MODEL,
                "max_tokens": 16,
                "messages": [{"role": "user", "content": f"Conversation {i}: hello, who are you?"}],
            },
            i,
        )
        for i in range(n)
    ]


def usage_sessions(n: int) -> Iterator[str]:
    """A line at a time: a million of them is written without holding the log."""
    for i in range(n):
        body = {
            "model": MODEL,
            "max_tokens": 16,
            "system": [
                {
                    "type": "text",
                    "text": f"You are agent {i}, the assistant of team {i * 7919 % 100003}. Answer briefly.",
                    "cache_control": {"type": "ephemeral"},
                }
            ],
            "messages": [{"role": "user", "content": f"Conversation {i}: hello, who are you?"}],
        }
        usage = {
            "input_tokens": 12 + i % 50,
            "cache_creation_input_tokens": 0 if i % 3 else 1100,
            "cache_read_input_tokens": 1100 if i % 3 else 0,
            "output_tokens": 9,
        }
        yield _line(body, i, {"id": f"msg_{i}", "type": "message", "role": "assistant", "usage": usage})


SHAPES: dict[str, Callable[[int], Iterable[str]]] = {
    "one-shot": one_shot,
    "agents": agents,
    "sessions": sessions,
    "usage-sessions": usage_sessions,
}


def audit_once(path: str, output_format: str) -> tuple[float, float, int]:
    """Seconds, peak RSS (MB) of a child ``cachelint audit --jobs 1``, and its exit code."""
    command = [sys.executable, "-m", "cachelint", "audit", "--jobs", "1", "--output-format", output_format, path]
    start = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return seconds, max(peak, before) / 1024, done.returncode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--shape", choices=sorted(SHAPES), required=True)
    parser.add_argument("--n", type=int, default=20000)
    parser.add_argument("-o", "--output", help="write the log here (default: a temporary file)")
    parser.add_argument("--time", action="store_true", help="then time one audit of it in a child process")
    parser.add_argument("--output-format", default="concise")
    args = parser.parse_args()
    path = args.output or os.path.join(tempfile.mkdtemp(), f"{args.shape}.jsonl")
    count = 0
    with open(path, "w") as out:
        for line in SHAPES[args.shape](args.n):
            out.write(line + "\n")
            count += 1
    print(f"{path}: {count} requests, {os.path.getsize(path) / 1e6:.1f} MB")
    if args.time:
        seconds, peak, code = audit_once(path, args.output_format)
        print(
            f"audit --jobs 1 --output-format {args.output_format}: {seconds:.2f} s, peak RSS {peak:.0f} MB, exit {code}"
        )


if __name__ == "__main__":
    main()
