"""Keys of every shape in the payloads-secret-patterns pack stay out of every output: each shape
in a prompt whose excerpt cuts into it, in every audit output format; a token of kilobytes
after ``Bearer`` whose excerpt shows only its tail; keys wrapped over two lines; keys in folder
names, in YAML keys, in the diff of a fix and in the results cache. Look-alikes stay as they are."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cachelint.catalog import load_packs
from cachelint.masking import MASK, masker

from .helpers import GOOD_AGENT, run_cli

PATTERNS = [p for pack in load_packs("payloads-secret-patterns") for p in pack["patterns"]]
FORMATS = ["concise", "full", "json", "sarif", "github", "html"]
OPENROUTER = next(p["example"] for p in PATTERNS if p["name"] == "openrouter-api-key")


def _hidden(example: str) -> str:
    """The characters of ``example`` its mask hides, in order."""
    masked = masker().mask(example)
    hidden = "".join(c for c, m in zip(example, masked) if m == MASK and c != MASK)
    assert len(hidden) >= 8, f"{example!r} is not masked: {masked!r}"
    return hidden


def _leaks(secret: str, output: str, width: int = 8) -> list[str]:
    """Every ``width``-character piece of ``secret`` that ``output`` prints (line breaks and
    JSON escapes taken out of the output first, so a piece split by them still counts)."""
    flat = output.replace("\\n", "").replace("\n", "").replace("\\r", "").replace("\r", "")
    return sorted({secret[i : i + width] for i in range(len(secret) - width + 1) if secret[i : i + width] in flat})


def _requests(text_of: "dict[str, str]", session: str) -> list[str]:
    """Two requests of one session whose system prompt is ``text_of[version]``."""
    lines = []
    for version, text in text_of.items():
        body = {
            "model": "claude-sonnet-4-5",
            "max_tokens": 100,
            "system": [{"type": "text", "text": text, "cache_control": {"type": "ephemeral"}}],
            "messages": [{"role": "user", "content": f"hello ({version})"}],
        }
        lines.append(json.dumps({"request": body, "session": session}))
    return lines


def _every_format(root: Path) -> dict[str, str]:
    """``cachelint audit log.jsonl`` in ``root`` in every format: what it writes and prints."""
    outputs = {}
    for fmt in FORMATS:
        out_file = root / f"report.{fmt}"
        code, out = run_cli(
            root, ["audit", "--isolated", "--fail-on", "info", "--output-format", fmt, "-o", str(out_file), "log.jsonl"]
        )
        assert code == 1, fmt
        outputs[fmt] = out_file.read_text(encoding="utf-8") + out
    return outputs


@pytest.fixture(scope="module")
def audit_outputs(tmp_path_factory) -> dict[str, str]:
    """One audit of a log with a session per shape: the key stands right before the date that
    changes (the excerpt's 40 bytes before the divergence cut into it) and again right after it
    (the explanation's cut and the excerpt's end cut into that one); every format rendered."""
    root = tmp_path_factory.mktemp("shapes")
    lines = []
    for i, p in enumerate(PATTERNS):
        key = p["example"]
        lines += _requests({v: f"You help. {key} {v} {key} end." for v in ("2026-11-28", "2026-11-29")}, f"s{i}")
    (root / "log.jsonl").write_text("\n".join(lines) + "\n")
    return _every_format(root)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("pattern", PATTERNS, ids=[p["name"] for p in PATTERNS])
def test_each_shape_is_masked_in_each_audit_format(audit_outputs, pattern, fmt):
    output = audit_outputs[fmt]
    assert "CL30" in output  # the breaks were reported, with their excerpts
    assert _leaks(_hidden(pattern["example"]), output) == [], (pattern["name"], fmt)


LOOK_ALIKES = [
    "the task-ant-colony and sk-short",
    "hf_hub_download(repo_id) and r8_ alone",
    "pplx- is the prefix; xai-grok-2 is a model",
    "SG.Notes and glpat- alone",
    "max_tokens: 4096, input_tokens: 1234567890123456789012",
    "token: please_continue_the_refactor_now",
    "api_key = os.environ['OPENAI_API_KEY']",
    "https://example.com:8080/path and git@github.com:org/repo.git",
    "-----BEGIN PUBLIC KEY----- is public",
    "Bearer of news; Basic idea",
    "checksum: 9f3c2a7e1b8d4f6a0c5e8b2d9f1a7c3e",
]


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_look_alikes_are_not_masked(text):
    assert masker().mask(text) == text


@pytest.mark.parametrize("pattern", PATTERNS, ids=[p["name"] for p in PATTERNS])
def test_each_shape_holds_a_keyword_of_its_own(pattern):
    """The keywords are a prefilter: a shape whose match held none of them would never run."""
    assert any(k in pattern["example"].lower() for k in pattern.get("keywords", ())), pattern["name"]


def test_a_long_token_after_bearer_is_masked_whole_when_the_excerpt_shows_its_tail(tmp_path):
    header = "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9"
    payload = "eyJ" + "c3ViIjoiMTIzNDU2Nzg5MCIsIm5hbWUiOiJKb2huIERvZSIsImFkbWluIjp0cnVlfQ" * 12
    signature = "".join(f"Qm{i:03d}x7Zk" for i in range(140))  # ~1.9 KB in all
    jwt = f"{header}.{payload}.{signature}"
    assert len(jwt) > 1900
    lines = _requests({v: f"Authorization: Bearer {jwt} {v} end." for v in ("2026-11-28", "2026-11-29")}, "s")
    (tmp_path / "log.jsonl").write_text("\n".join(lines) + "\n")
    for fmt, out in _every_format(tmp_path).items():
        assert "CL30" in out
        assert _leaks(signature, out) == [] and _leaks(payload[3:], out) == [], fmt


@pytest.mark.parametrize("split", [9, 12, 30, 60])
def test_a_key_wrapped_over_two_lines_leaks_neither_half(tmp_path, split):
    first, second = OPENROUTER[:split], OPENROUTER[split:]
    text_of = {v: f"Use this key:\n{first}\n{second}\nToday is {v}." for v in ("2026-11-28", "2026-11-29")}
    (tmp_path / "log.jsonl").write_text("\n".join(_requests(text_of, "s")) + "\n")
    secret = OPENROUTER[len("sk-or-v1-") :]
    for fmt, out in _every_format(tmp_path).items():
        assert "CL30" in out
        assert _leaks(secret, out) == [], (split, fmt)
    # and in a text masked directly, with the line break raw or escaped as JSON writes it
    for sep in ("\n", "\\n", "\r\n", "\n    "):
        masked = masker().mask(f"key {first}{sep}{second} done")
        assert _leaks(secret, masked) == [] and masked.endswith(" done"), sep


def _skill_tree(root: Path, key: str) -> None:
    (root / ".git").mkdir()
    for folder, front in (
        ("alpha", "name: alpha\ndescription: Automate alpha tasks via the API."),
        (key, "name: other\ndescription: x"),  # a key as a folder name (CL205 quotes it)
        ("beta", f"name: beta\ndescription: Automate beta.\n{key}: 1\n{key}: 2"),  # a key as a YAML key
    ):
        (root / "skills" / folder).mkdir(parents=True)
        (root / "skills" / folder / "SKILL.md").write_text(f"---\n{front}\n---\nBody\n")
    # a key as an index entry (CL204 quotes it)
    (root / "AGENTS.md").write_text(f"# Skills\n\n- alpha: Automate alpha tasks via the API.\n- {key}: x\n")


@pytest.mark.parametrize("fmt", FORMATS[:5])
def test_keys_in_folder_names_yaml_keys_and_index_entries_never_reach_a_check_output(tmp_path, fmt):
    _skill_tree(tmp_path, OPENROUTER)
    code, out = run_cli(tmp_path, ["check", "--isolated", "--no-cache", "--output-format", fmt, "."])
    assert code == 1 and "sk-or-v1-" in out  # the findings that quote it were reported, masked
    assert _leaks(_hidden(OPENROUTER), out) == [], fmt


def test_the_results_cache_never_stores_a_key_from_a_finding(tmp_path):
    _skill_tree(tmp_path, OPENROUTER)
    (tmp_path / "agent.py").write_text(GOOD_AGENT.replace("names = ", f"# {OPENROUTER}\nnames = "))
    for _ in range(2):  # the second run reads the findings back from the cache
        code, out = run_cli(tmp_path, ["check", "--isolated", "--output-format", "json", "."])
        assert code == 1 and _leaks(_hidden(OPENROUTER), out) == []
    cached = [f for f in (tmp_path / ".cachelint_cache").glob("results-*.json")]
    assert cached
    for f in cached:
        text = f.read_text(encoding="utf-8")
        # paths are the cache's own keys (a folder named by a key is named there); no finding
        # quotes it otherwise
        text = text.replace(f"skills/{OPENROUTER}/SKILL.md", "")
        assert _leaks(_hidden(OPENROUTER), text) == []


def test_the_summaries_cache_never_stores_a_key_from_the_code(tmp_path):
    # an annotation quoting a key: the module's summary describes TOOLS with it, and the finding
    # in the importing module quotes that description
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "config.py").write_text(
        f'def load(): ...\nTOOLS: set["{OPENROUTER}"] = load()\nPLAIN = {{"a", "b"}}\n'
    )
    (tmp_path / "pkg" / "agent.py").write_text(
        "import anthropic\nfrom pkg.config import TOOLS, PLAIN\nclient = anthropic.Anthropic()\n"
        'client.messages.create(model="m", tools=[{"name": n} for n in TOOLS], messages=[])\n'
        'client.messages.create(model="m", tools=[{"name": n} for n in PLAIN], messages=[])\n'
    )
    outputs = []
    for _ in range(2):  # the second run reads what the cache holds
        code, out = run_cli(tmp_path, ["check", "--isolated", "--output-format", "json", "."])
        assert code == 1 and "sk-or-v1-" in out and _leaks(_hidden(OPENROUTER), out) == []
        outputs.append(out)
    assert outputs[0] == outputs[1]
    cached = sorted((tmp_path / ".cachelint_cache").glob("*.json"))
    assert any(f.name.startswith("summaries-") for f in cached)
    for f in cached:
        assert _leaks(_hidden(OPENROUTER), f.read_text(encoding="utf-8")) == [], f.name


def test_check_diff_masks_the_keys_it_shows(tmp_path):
    agent = GOOD_AGENT.replace("names = ", f'KEY = "{OPENROUTER}"\nnames = ')
    (tmp_path / "agent.py").write_text(agent)
    code, out = run_cli(tmp_path, ["check", "--isolated", "--no-cache", "--diff", "."])
    assert code == 1 and "sorted(names)" in out and "sk-or-v1-" in out  # the key's line is in the context
    assert _leaks(_hidden(OPENROUTER), out) == []
    assert (tmp_path / "agent.py").read_text() == agent  # --diff writes nothing
    # --fix writes the key as it was: only what is shown is masked
    run_cli(tmp_path, ["check", "--isolated", "--no-cache", "--fix", "."])
    assert OPENROUTER in (tmp_path / "agent.py").read_text()


def test_a_user_pattern_with_keywords_masks_keys_shorter_than_the_built_in_ones():
    """The built-in shapes are screened by a run of 15 key characters; a user's are not."""
    from cachelint.masking import SecretMasker

    pack = {"patterns": [{"name": "acme", "regex": "acme_[0-9]{6}", "keep": 5, "keywords": ["acme_"]}]}
    assert SecretMasker.from_packs([pack]).mask("id acme_123456.") == "id acme_******."
    screened = SecretMasker.from_packs([pack], screened_packs=1)
    assert screened.mask("id acme_123456.") == "id acme_123456."  # what screening would do to it
