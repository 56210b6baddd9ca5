"""Keys pasted into prompt content never reach an output: every made-up key of the
payloads-secret-patterns pack, put in a system prompt, a tool description and a message that
change between two requests, is masked in every output format of the audit; and in check's
findings that quote a file."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cachelint.catalog import load_packs
from cachelint.masking import MASK, SecretMasker, masker

from .helpers import run_cli

PATTERNS = [p for pack in load_packs("payloads-secret-patterns") for p in pack["patterns"]]
FORMATS = ["concise", "full", "json", "sarif", "github", "html"]


def _secret_part(example: str) -> str:
    """What must never be printed of a pattern's example: what its mask hides."""
    masked = masker().mask(example)
    hidden = "".join(c for c, m in zip(example, masked) if m == MASK and c != MASK)
    assert len(hidden) >= 8, f"{example!r} is not masked: {masked!r}"
    return example[[i for i, (c, m) in enumerate(zip(example, masked)) if c != m][0] :][: len(hidden)]


@pytest.mark.parametrize("pattern", PATTERNS, ids=[p["name"] for p in PATTERNS])
def test_each_provider_key_is_masked_in_place(pattern):
    example = pattern["example"]
    text = f"before {example} after"
    masked = masker().mask(text)
    assert len(masked) == len(text) and len(masked.encode()) == len(text.encode())  # offsets unchanged
    assert masked.startswith("before ") and masked.endswith(" after")
    assert _secret_part(example) not in masked
    # the prefix that says what kind of key it was stays
    start = text.index(example)
    assert masked[start : start + pattern["keep"]] == text[start : start + pattern["keep"]]


def test_look_alikes_are_not_masked():
    for text in ("sk-short", "the task-ant-colony", "AKIA is a prefix", "eyJ alone", "Bearer of news", "ghp_x"):
        assert masker().mask(text) == text


def test_a_user_pack_adds_patterns():
    extra = SecretMasker.from_packs([{"patterns": [{"name": "acme", "regex": "acme_[0-9]{8}", "keep": 5}]}])
    assert extra.mask("key acme_12345678.") == "key acme_********."


def test_a_user_pattern_that_does_not_compile_fails_where_the_packs_are_read():
    """Built-in patterns are compiled when first needed; a user's is compiled at once, so a broken
    one is reported with the packs, not in the middle of masking an output."""
    with pytest.raises(re.error):
        SecretMasker.from_packs([{"patterns": [{"name": "broken", "regex": "acme_([0-9]", "keep": 0}]}])


def test_every_built_in_pattern_compiles_as_masking_uses_it():
    every = masker().patterns
    assert every and all(p.screened for p in every)
    for p in every:
        assert p.regex.flags & re.ASCII, p.name


def _log(root: Path) -> Path:
    keys = " ".join(p["example"] for p in PATTERNS)

    def request(version: str) -> dict:
        return {
            "model": "claude-sonnet-4-5",
            "max_tokens": 100,
            "system": [
                {
                    "type": "text",
                    "text": f"You help. {keys} Today is {version}.",
                    "cache_control": {"type": "ephemeral"},
                }
            ],
            "tools": [
                {
                    "name": "lookup",
                    "description": f"Looks up with {keys} v{version}",
                    "input_schema": {"type": "object"},
                }
            ],
            "messages": [{"role": "user", "content": f"my keys: {keys} ({version})"}],
        }

    lines = [json.dumps({"request": request(v), "session": "s1"}) for v in ("2026-11-28", "2026-11-29", "2026-11-30")]
    (root / "log.jsonl").write_text("\n".join(lines) + "\n")
    return root / "log.jsonl"


@pytest.mark.parametrize("fmt", FORMATS)
def test_keys_in_prompt_content_never_reach_an_audit_output(tmp_path, fmt):
    _log(tmp_path)
    out_file = tmp_path / "report.out"
    code, out = run_cli(
        tmp_path, ["audit", "--isolated", "--fail-on", "info", "--output-format", fmt, "-o", str(out_file), "log.jsonl"]
    )
    assert code == 1
    written = out_file.read_text(encoding="utf-8") + out
    assert "CL30" in written  # the breaks were reported (with their excerpts)
    for p in PATTERNS:
        assert _secret_part(p["example"]) not in written, (p["name"], fmt)


def test_excerpts_keep_their_offsets_when_masked(tmp_path):
    _log(tmp_path)
    code, out = run_cli(tmp_path, ["audit", "--isolated", "--output-format", "json", "log.jsonl"])
    found = json.loads(out)["findings"]
    excerpts = [d["details"] for d in found if "before" in d.get("details", {})]
    assert excerpts
    for details in excerpts:
        # the divergence marker sits before the changed date, as in the unmasked text
        assert "⟨" in details["after"] and MASK in details["before"] + details["after"]


def test_keys_in_checked_files_never_reach_a_check_output(tmp_path):
    key = next(p["example"] for p in PATTERNS if p["name"] == "anthropic-api-key")
    (tmp_path / ".git").mkdir()
    skill = tmp_path / "skills" / "pdf"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(f"---\nname: {key}\ndescription: {key}\n---\nBody\n")
    for fmt in FORMATS[:5]:
        code, out = run_cli(tmp_path, ["check", "--isolated", "--no-cache", "--output-format", fmt, "."])
        assert code == 1 and "skills/pdf/SKILL.md" in out
        assert _secret_part(key) not in out and "sk-ant-" in out, fmt
