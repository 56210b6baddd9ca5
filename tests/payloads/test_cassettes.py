"""The real crewAI cassettes (tests/payloads/fixtures, MIT, crewAIInc/crewAI f4731f5): what a correct
audit says about them, worked out from the bytes.

- Anthropic planning: a reasoning-plan agent (1 tool, 2 requests) then a research agent (3 tools,
  10 requests) whose history only grows: two sessions, no break.
- Gemini planning: the same two agents (1 + 5 requests), no break.
- test_disabling_cache_for_agent: one agent, 9 requests, append-only (crewAI appends mid-history
  system messages, which is appending): no break.
- test_tools_with_custom_caching: the same agent kicked off twice with different tasks (first user
  message differs): two sessions of 4, no break.
- test_using_memory: a stitched cassette (recordings from 2024 to 2025): a researcher (gpt-4o), a task
  evaluator with a function tool (gpt-4o-mini), then a converter (gpt-4.1-mini, other system prompt, no
  tools) asked twice, the second time with a response_format: on OpenAI the structured-output schema is
  a prefix to the system message (cache_facts §2), so that retry loses system and messages: CL304.
  Telemetry and embeddings calls are skipped.
"""
from __future__ import annotations

import shutil
from pathlib import Path

from cachelint.api import audit_logs
from cachelint.config import load_settings

FIXTURES = Path(__file__).parent / "fixtures"
MINE = {"select": ["CL001", "CL301", "CL302", "CL303", "CL304", "CL309"]}


def test_real_cassettes(tmp_path):
    shutil.copytree(FIXTURES, tmp_path / "cassettes")
    result = audit_logs(["cassettes"], settings=load_settings(tmp_path, isolated=True, overrides=MINE), cwd=tmp_path)
    sessions = [(s["path"].split("/")[-1][:28], s["provider"], s["requests"], s["breaks"]) for s in result.summary["sessions"]]
    assert sessions == [
        ("TestAnthropicStructuredPlann", "anthropic", 2, 0),
        ("TestAnthropicStructuredPlann", "anthropic", 10, 0),
        ("TestGeminiStructuredPlanning", "gemini", 1, 0),
        ("TestGeminiStructuredPlanning", "gemini", 5, 0),
        ("test_disabling_cache_for_age", "openai-chat", 9, 0),
        ("test_tools_with_custom_cachi", "openai-chat", 4, 0),
        ("test_tools_with_custom_cachi", "openai-chat", 4, 0),
        ("test_using_memory.yaml", "openai-chat", 1, 0),
        ("test_using_memory.yaml", "openai-chat", 1, 0),
        ("test_using_memory.yaml", "openai-chat", 2, 1),
    ]
    assert result.summary["skipped_non_llm"] == 8 and result.summary["requests"] == 39
    (d,) = result.diagnostics
    assert (d.code, d.kind, d.path, d.line, d.record, d.session) == ("CL304", "response_format", "cassettes/test_using_memory.yaml", 1235, 10, "s10")
    assert d.details["invalidated"] == ["system", "messages"]
