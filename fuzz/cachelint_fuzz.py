"""Fuzz entry points: one per reader (JSONL, JSON, HAR, VCR cassette, and each log format of
cachelint/payloads/formats/), the SKILL.md front matter parser, the index parser and the code
analysis.

Each target takes raw bytes, runs the same code path the CLI runs on a file with those bytes,
and checks the contract every part promises (docs/reliability.md):

- no exception escapes;
- every problem is a Diagnostic, and an input that cannot be read or parsed is a CL001 with a
  location: the display path of the input, a line and a column inside it (1-based), and for
  payload records the 0-based record index.

A broken contract raises ``ContractViolation`` (an AssertionError), so the same targets serve
the hypothesis property tests (tests/reliability/test_fuzz.py), the longer run
(``python fuzz/cachelint_fuzz.py TARGET --iterations N``) and atheris when it is installed
(``python fuzz/cachelint_fuzz.py TARGET --atheris``).
"""

from __future__ import annotations

import argparse
import functools
import gzip
import io
import json
import sys
import tempfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence

from cachelint.diagnostics import Diagnostic

if TYPE_CHECKING:
    from cachelint.config import Settings


class ContractViolation(AssertionError):
    """A fuzz target broke the no-crash / CL001-with-a-location contract."""


@dataclass(frozen=True)
class Target:
    name: str
    display: str  # the file name the input is read as (the reader and parsers look at suffixes)
    run: Callable[[bytes], list[Diagnostic]]
    codes: frozenset[str]  # codes this target may emit
    description: str


# --- shared, built once per process ------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def _settings() -> "Settings":
    from cachelint.config import load_settings

    return load_settings(Path(tempfile.gettempdir()), isolated=True)


@functools.lru_cache(maxsize=1)
def _audit_tools() -> tuple[Any, Any]:
    from cachelint.catalog import load_packs
    from cachelint.payloads.providers import ProviderRules
    from cachelint.payloads.secrets import Redactor

    return Redactor.from_packs(load_packs("payloads-secrets")), ProviderRules.from_packs(
        load_packs("payloads-providers")
    )


def _scratch_folder(prefix: str) -> str:
    """A temporary folder removed when the process ends (a test run leaves nothing behind)."""
    import atexit
    import shutil

    folder = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, folder, True)
    return folder


@functools.lru_cache(maxsize=1)
def _skill_tree() -> Any:
    """A small repository with two skills (pdf, docx) for the index parser to resolve against."""
    from cachelint.skills.frontmatter import parse_front_matter
    from cachelint.skills.tree import Skill, SkillTree

    root = Path(_scratch_folder("cachelint-fuzz-")).resolve()
    tree = SkillTree(root=root)
    for name in ("pdf", "docx"):
        folder = root / "skills" / name
        folder.mkdir(parents=True)
        text = f"---\nname: {name}\ndescription: Use when the task reads or writes {name} files.\n---\n"
        (folder / "SKILL.md").write_text(text, encoding="utf-8")
        tree.skills.append(Skill(folder / "SKILL.md", f"skills/{name}/SKILL.md", parse_front_matter(text)))
    tree.finish()
    return tree


# --- the contract ------------------------------------------------------------------------------


def _line_count(data: bytes) -> int:
    """The last line a location may name: one past the last line break, counting every line
    break any of our parsers knows (``str.splitlines`` splits on a superset of universal
    newlines, YAML's and Markdown's), so that a parser's own convention is never a violation."""
    return len(data.decode("utf-8", "replace").splitlines()) + 1


def check_contract(found: Sequence[Any], data: bytes, display: str, codes: frozenset[str]) -> list[Diagnostic]:
    """Every item is a Diagnostic of an allowed code, about ``display``, with a location inside
    the input. Returns the diagnostics; raises ContractViolation."""
    out: list[Diagnostic] = []
    lines = _line_count(data)
    for d in found:
        if not isinstance(d, Diagnostic):
            raise ContractViolation(f"not a Diagnostic: {d!r}")
        if d.code not in codes:
            raise ContractViolation(f"unexpected code {d.code}: {d}")
        if d.path != display:
            raise ContractViolation(f"diagnostic about {d.path!r}, expected {display!r}: {d}")
        if not (isinstance(d.line, int) and isinstance(d.column, int) and d.line >= 1 and d.column >= 1):
            raise ContractViolation(f"no valid location (line {d.line}, column {d.column}): {d}")
        if d.line > lines:
            raise ContractViolation(f"line {d.line} is past the end of the input ({lines} lines): {d}")
        if d.end_line is None or d.end_line < d.line or (d.end_line == d.line and (d.end_column or 0) < d.column):
            raise ContractViolation(f"end before start: {d}")
        if d.record is not None and d.record < 0:
            raise ContractViolation(f"negative record index: {d}")
        if not d.message:
            raise ContractViolation(f"empty message: {d}")
        json.dumps(d.to_dict())  # every reporter serialises it
        out.append(d)
    return out


# --- payload readers ---------------------------------------------------------------------------


def _read_log(data: bytes, display: str, fmt: str) -> list[Diagnostic]:
    """The reader, then the provider adapter on every record (what the audit does next)."""
    from cachelint.diagnostics import unreadable
    from cachelint.payloads.providers import BlockCache, to_request
    from cachelint.payloads.formats.registry import read_bytes_as_log

    redactor, rules = _audit_tools()
    found: list[Diagnostic] = []
    blocks = BlockCache()
    for item in read_bytes_as_log(data, display, fmt, redactor):
        if isinstance(item, Diagnostic):
            found.append(item)
            continue
        origin = item.origin
        try:
            to_request(item, rules, blocks)
        except RecursionError:  # the audit turns this one into CL001 (payloads/audit.py)
            found.append(
                unreadable(
                    origin.path, "request body nested too deeply to analyse", line=origin.line, record=origin.record
                )
            )
        except Exception as exc:  # noqa: BLE001 - the audit also catches these; count it as a bug here
            raise ContractViolation(f"provider adapter raised {type(exc).__name__}: {exc}") from exc
    return found


def fuzz_jsonl(data: bytes) -> list[Diagnostic]:
    return _read_log(data, "fuzz.jsonl", "jsonl")


def fuzz_json(data: bytes) -> list[Diagnostic]:
    return _read_log(data, "fuzz.json", "json")


def fuzz_har(data: bytes) -> list[Diagnostic]:
    return _read_log(data, "fuzz.har", "har")


def fuzz_cassette(data: bytes) -> list[Diagnostic]:
    return _read_log(data, "fuzz.yaml", "vcr")


def fuzz_httprr(data: bytes) -> list[Diagnostic]:
    return _read_log(data, "fuzz.httprr", "auto")


# The log formats' targets: target name -> (the file name it is read as, the format forced, or
# "auto" to let the name and the first record pick it).
FORMAT_TARGETS: dict[str, tuple[str, str]] = {
    "helicone": ("fuzz.jsonl", "helicone"),
    "helicone-json": ("fuzz.json", "helicone"),
    "bedrock-invocation": ("fuzz.json", "bedrock-invocation"),
    "anthropic-batch": ("fuzz.json", "anthropic-batch"),
    "batch-results": ("fuzz.jsonl", "auto"),
    "litellm": ("fuzz.jsonl", "litellm"),
    "langsmith": ("fuzz.jsonl", "langsmith"),
    "langfuse": ("fuzz.json", "langfuse"),
    "otlp": ("fuzz.json", "otlp"),
    "otlp-lines": ("fuzz.jsonl", "auto"),
    "claude-code": ("fuzz.jsonl", "claude-code"),
    "codex": ("fuzz.jsonl", "codex"),
    "gemini-cli": ("fuzz.jsonl", "gemini-cli"),
    "zhar": ("fuzz.zhar", "zhar"),
    "inspect": ("fuzz.json", "inspect"),
    "inspect-archive": ("fuzz.eval", "inspect-archive"),
    "formats-auto": ("fuzz.json", "auto"),
}


# Formats read as a coding agent's sessions (cachelint.transcripts), not as requests.
AGENT_SESSION_TARGETS = ("claude-code", "codex", "gemini-cli")


def _fuzz_format(name: str) -> Callable[[bytes], list[Diagnostic]]:
    display, fmt = FORMAT_TARGETS[name]

    def run(data: bytes) -> list[Diagnostic]:
        if name == "zhar":
            data = zlib.compress(data)  # the format is zlib data: fuzz what it inflates to
        if name == "inspect-archive":
            data = _zip_member("samples/s_epoch_1.json", data)  # a zip: fuzz the sample it holds
        if name in AGENT_SESSION_TARGETS:
            return _agent_sessions(data, fmt)
        return _read_log(data, display, fmt)

    run.__name__ = f"fuzz_{name.replace('-', '_')}"
    return run


def _zip_member(name: str, data: bytes) -> bytes:
    import zipfile

    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(name, data)
    return out.getvalue()


_AUDIT_DIR: list[Path] = []


def _agent_sessions(data: bytes, fmt: str) -> list[Diagnostic]:
    """The bytes as a coding agent's session file, forced and detected: read, judged, summed up
    and rendered (the coding-agent part of every text and HTML report)."""
    from cachelint.report.coding_agents import render_html, render_text
    from cachelint.transcripts.audit import new_run

    if not _AUDIT_DIR:
        _AUDIT_DIR.append(Path(tempfile.mkdtemp(prefix="cachelint-fuzz-audit-")))
    path = _AUDIT_DIR[0] / "fuzz.jsonl"
    path.write_bytes(data)
    found: list[Diagnostic] = []
    for forced in (fmt, None):
        run = new_run(_settings(), timeline=True)
        run.read_files([(path, "fuzz.jsonl", forced)])
        summary = run.summary()
        json.dumps(summary)
        render_text(summary, run.diagnostics, full=True)
        render_html(summary, run.diagnostics)
        found = run.diagnostics
    return found


def fuzz_audit(data: bytes) -> list[Diagnostic]:
    """JSONL bytes through the whole audit (readers, adapters, sessions, diffs, CL3xx checks,
    usage and money), then through every reporter: what ``cachelint audit`` does with a file."""
    from cachelint.api import audit_logs
    from cachelint.report import AUDIT_FORMATS, render

    if not _AUDIT_DIR:
        _AUDIT_DIR.append(Path(_scratch_folder("cachelint-fuzz-audit-")))
    folder = _AUDIT_DIR[0]
    (folder / "fuzz.jsonl").write_bytes(data)
    result = audit_logs(["fuzz.jsonl"], settings=_settings(), cwd=folder)
    json.dumps(result.summary.to_dict(), default=str)
    for fmt in AUDIT_FORMATS:
        render(fmt, result.diagnostics, summary=result.summary)
    return result.diagnostics


# --- skills ------------------------------------------------------------------------------------


def fuzz_front_matter(data: bytes) -> list[Diagnostic]:
    """SKILL.md bytes -> decode (textio) -> front matter parse and schema validation."""
    from cachelint.diagnostics import Diagnostic as D
    from cachelint.diagnostics import unreadable
    from cachelint.rules.skills.cl201_invalid_skill_metadata import CODE as INVALID_METADATA
    from cachelint.skills.frontmatter import parse_front_matter
    from cachelint.textio import decode

    display = "skills/fuzz/SKILL.md"
    source = decode(data, display)
    if isinstance(source, D):
        return [source]
    fm = parse_front_matter(source.text)
    return [
        unreadable(display, p.message, p.line, p.column)
        if p.unreadable
        else D(INVALID_METADATA, p.message, display, p.line, p.column)
        for p in fm.problems
    ]


_SKILLS_DIR: list[Path] = []
_SKILL_PEERS = {
    "skills/pdf/SKILL.md": "---\nname: pdf\ndescription: Use when the task reads, merges or splits PDF files.\n---\n",
    "skills/docx/SKILL.md": "---\nname: docx\ndescription: Use when the task writes Word documents with tracked changes.\n---\n",
    "AGENTS.md": "# Skills\n\n- pdf: PDF files\n- docx: Word documents\n- fuzz: the fuzzed one\n",
}


def fuzz_skills(data: bytes) -> list[Diagnostic]:
    """The input as ``skills/fuzz/SKILL.md`` beside two sound skills and an index listing all
    three: every skill rule of the registry over the tree, then every reporter."""
    from cachelint.discovery import InputFile
    from cachelint.report import FORMATS, render
    from cachelint.skills import check_skills

    if not _SKILLS_DIR:
        root = Path(_scratch_folder("cachelint-fuzz-skills-")).resolve()
        (root / ".git").mkdir()
        for rel, text in _SKILL_PEERS.items():
            (root / rel).parent.mkdir(parents=True, exist_ok=True)
            (root / rel).write_text(text, encoding="utf-8")
        (root / "skills" / "fuzz").mkdir()
        _SKILLS_DIR.append(root)
    root = _SKILLS_DIR[0]
    target = root / "skills" / "fuzz" / "SKILL.md"
    target.write_bytes(data)
    given = [InputFile(root / rel, rel, explicit=False) for rel in sorted([*_SKILL_PEERS, "skills/fuzz/SKILL.md"])]
    found = check_skills(given, _settings(), root)
    for fmt in FORMATS:
        render(fmt, found)
    for d in found:
        if d.path != "skills/fuzz/SKILL.md" and d.code == "CL001":
            raise ContractViolation(f"a sound file became unreadable: {d}")
    # findings about the other files (CL203/CL204/CL206 name them) are fine; check only ours
    return [d for d in found if d.path == "skills/fuzz/SKILL.md"]


def _fuzz_index(data: bytes, name: str) -> list[Diagnostic]:
    from cachelint.skills.indexes import parse_index_file
    from cachelint.textio import decode

    tree = _skill_tree()
    source = decode(data, name)
    if isinstance(source, Diagnostic):
        return [source]
    parsed = parse_index_file(tree, tree.root / name, name, source.text)
    if parsed is not None:
        limit = _line_count(data)
        for entry in parsed.entries:  # entries carry the location CL203/CL204 are reported at
            if not (1 <= entry.line <= limit and entry.column >= 1 and entry.end_column >= entry.column):
                raise ContractViolation(f"index entry without a valid location in {name}: {entry}")
            for skill in entry.skills:
                if skill.path.parent.parent.parent != tree.root:
                    raise ContractViolation(f"index entry resolved outside the tree: {entry}")
    return []


def fuzz_index(data: bytes) -> list[Diagnostic]:
    """Index file bytes parsed as Markdown, as a marketplace.json and as a YAML data file."""
    out: list[Diagnostic] = []
    for name in ("AGENTS.md", "marketplace.json", "skills.yaml"):
        out.extend(check_contract(_fuzz_index(data, name), data, name, frozenset({"CL001"})))
    return [d.with_changes(path="index") for d in out]


# --- code --------------------------------------------------------------------------------------


def fuzz_code(data: bytes) -> list[Diagnostic]:
    """Python bytes -> decode (textio) -> the order-flow analysis and its checks (CL101-CL106)."""
    from cachelint.code import check_module
    from cachelint.textio import decode

    display = "fuzz.py"
    source = decode(data, display)
    if isinstance(source, Diagnostic):
        return [source]
    return check_module(display, source.text, _settings())


# --- hostile shapes: inputs crafted to hang, exhaust or leak ----------------------------------


def fuzz_gzip(data: bytes) -> list[Diagnostic]:
    """A gzip-compressed JSONL log (many tiny records, bombs, cut streams) through the reader
    with small bounds: it ends, with CL001 past max-records or max-gzip-ratio."""
    from cachelint.payloads.formats.registry import read_bytes_as_log
    from cachelint.payloads.readers import ReadLimits

    redactor, _ = _audit_tools()
    # a stream that starts as a JSON array is read as a whole document (max-document-size and
    # max-gzip-ratio checked as it is read), any other as JSONL
    try:
        head = gzip.GzipFile(fileobj=io.BytesIO(data)).read(1)
    except Exception:  # noqa: BLE001 - cut or corrupt: the JSONL reader says where it stopped
        head = b""
    name, fmt = ("fuzz.json.gz", "json") if head == b"[" else ("fuzz.jsonl.gz", "jsonl")
    limits = ReadLimits(max_records=5_000, max_document_size=8 << 20)
    items = read_bytes_as_log(data, name, fmt, redactor, limits)
    found = [item for item in items if isinstance(item, Diagnostic)]
    # lines count in the decompressed stream: checked against it here, then set to the file's
    # first line for the generic check (which counts the compressed bytes' lines)
    try:
        plain = gzip.decompress(data)
    except Exception:  # noqa: BLE001 - cut or corrupt: the reader said where it stopped
        plain = None
    if plain is not None:
        check_contract(found, plain, name, _PAYLOAD_CODES)
    return [d.with_changes(path="fuzz.jsonl.gz", line=1, end_line=1, end_column=1, column=1) for d in found]


def _json_array(record: bytes, count: int) -> bytes:
    """``count`` copies of a JSONL record as the items of one JSON array (a blank record: 0)."""
    item = record.strip() or b"0"
    return b"[" + b",".join([item] * count) + b"]"


def fuzz_lines(data: bytes) -> list[Diagnostic]:
    """One crafted line (a prefix, then a unit repeated thousands of times) through every text
    scan: the index parser (Markdown), the code analysis with its prefilter and syntax hints,
    the import scan and the suppression scan. The per-input deadline catches super-linear time."""
    from cachelint.engine import import_candidates
    from cachelint.suppressions import find_suppressions

    out = _fuzz_index(data, "AGENTS.md")
    text = data.decode("utf-8", "replace")
    import_candidates(text, "pkg.mod", False)
    find_suppressions(text)
    out += [d.with_changes(path="AGENTS.md") for d in fuzz_code(data)]
    return [d.with_changes(path="fuzz.md") for d in out]


def fuzz_literal(data: bytes) -> list[Diagnostic]:
    """Python bytes under a small max-syntax-nodes: a file over it is CL001 before any parse."""
    from dataclasses import replace

    from cachelint.code import check_module
    from cachelint.code.program import too_many_nodes
    from cachelint.textio import decode

    source = decode(data, "fuzz.py")
    if isinstance(source, Diagnostic):
        return [source]
    oversized = too_many_nodes("fuzz.py", source.text, 20_000)
    if oversized is not None:
        return [oversized]
    return check_module("fuzz.py", source.text, replace(_settings(), max_syntax_nodes=20_000))


def fuzz_gitignore(data: bytes) -> list[Diagnostic]:
    """Ignore-file bytes: every line compiled (git's reading, malformed patterns included) and
    matched against paths of every shape, as files and as folders."""
    from cachelint.discovery import compile_patterns

    lines = data.decode("utf-8", "surrogateescape").split("\n")
    rules = compile_patterns(lines)
    paths = [
        "a",
        "a/b",
        "dir/sub/file.py",
        "[x]",
        "a b/c",
        "x" * 300,
        "a/" * 100 + "b",
        *(line.strip("/!") for line in lines[:4]),
    ]
    for rule in rules:
        for path in paths:
            if rule.matches(path) not in (True, False):
                raise ContractViolation(f"{rule} on {path!r}: not a verdict")
    return []


_CACHE_DIR: list[Path] = []


def fuzz_cache(data: bytes) -> list[Diagnostic]:
    """The input as every file of the cache folder (results, summaries, rule index, pack verdicts,
    pack copies), then a cached check of a flagged agent: its finding must come back, whatever the
    cache held."""
    import os

    from cachelint.catalog import _RULE_TABLES, _catalog_stat_key, _known_valid_packs_in

    if not _CACHE_DIR:
        _CACHE_DIR.append(Path(_scratch_folder("cachelint-fuzz-cache-")))
    root = _CACHE_DIR[0]
    (root / "cachelint.toml").write_text("")
    (root / "agent.py").write_text(
        'import anthropic\nc = anthropic.Anthropic()\nc.messages.create(tools=list({"a", "b"}), messages=[])\n'
    )
    from cachelint.config import load_settings
    from cachelint.engine import CheckOptions, run_check

    settings = load_settings(root)
    folder = root / ".cachelint_cache"
    folder.mkdir(exist_ok=True)
    names = [
        f"results-{settings.fingerprint()}.json",
        f"summaries-{settings.fingerprint()}.json",
        f"rules-{_catalog_stat_key()}.json",
    ]
    for name in names:
        path = folder / name
        if path.is_dir() or os.path.islink(path):
            continue
        path.write_bytes(data)
    _RULE_TABLES.clear()
    _known_valid_packs_in.cache_clear()
    result = run_check(["."], settings, CheckOptions(), root)
    codes = [(d.code, d.path) for d in result.diagnostics]
    if codes != [("CL101", "agent.py")]:
        raise ContractViolation(f"a cache holding {data[:80]!r} changed the findings: {codes}")
    return []


def fuzz_secrets(data: bytes) -> list[Diagnostic]:
    """A system prompt, a tool description and a message holding the input and a made-up key of
    every pattern, changed between two requests: no output format may print a key."""
    from cachelint.api import audit_logs
    from cachelint.catalog import load_packs
    from cachelint.masking import MASK, masker
    from cachelint.report import AUDIT_FORMATS, render

    text = data.decode("utf-8", "replace")
    examples = [p["example"] for pack in load_packs("payloads-secret-patterns") for p in pack["patterns"]]
    hidden = []
    for example in examples:
        masked = masker().mask(example)
        first = next(i for i, (a, b) in enumerate(zip(example, masked)) if a != b)
        hidden.append(example[first:])
    keys = f"{text} " + " ".join(examples) + f" {text}"

    def request(version: int) -> str:
        body = {
            "model": "claude-sonnet-4-5",
            "max_tokens": 10,
            "system": [{"type": "text", "text": f"{keys} v{version}", "cache_control": {"type": "ephemeral"}}],
            "tools": [{"name": "t", "description": f"{keys} v{version}", "input_schema": {"type": "object"}}],
            "messages": [{"role": "user", "content": f"{keys} v{version}"}],
        }
        return json.dumps({"request": body, "session": "s"}, ensure_ascii=False)

    if not _AUDIT_DIR:
        _AUDIT_DIR.append(Path(_scratch_folder("cachelint-fuzz-audit-")))
    folder = _AUDIT_DIR[0]
    (folder / "secrets.jsonl").write_text(
        request(1) + "\n" + request(2) + "\n", encoding="utf-8", errors="surrogateescape"
    )
    result = audit_logs(["secrets.jsonl"], settings=_settings(), cwd=folder)
    outputs = [render(fmt, result.diagnostics, summary=result.summary) for fmt in AUDIT_FORMATS]
    outputs.append(json.dumps(result.summary.to_dict(), default=str, ensure_ascii=False))
    for output in outputs:
        for secret in hidden:
            if len(secret) >= 8 and secret[:8] in output.replace(MASK, "\0"):
                raise ContractViolation(f"a key reached an output: {secret[:8]}…")
    return [d for d in result.diagnostics if d.code == "CL001"]


# --- fixes -------------------------------------------------------------------------------------


def _unwrapped_dump(tree: Any) -> str:
    """The ast with every ``sorted(x)`` / ``sorted(x, key=...)`` replaced by ``x``."""
    import ast

    class Unwrap(ast.NodeTransformer):
        def visit_Call(self, node: ast.Call) -> Any:
            node = self.generic_visit(node)  # type: ignore[assignment]
            if (
                isinstance(node.func, ast.Name)
                and node.func.id == "sorted"
                and len(node.args) == 1
                and all(k.arg == "key" for k in node.keywords)
            ):
                return node.args[0]
            return node

    return ast.dump(Unwrap().visit(tree))


def _sorted_calls(tree: Any) -> int:
    import ast

    return sum(
        1 for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "sorted"
    )


def check_fixed(old: str, new: str, applied: int | None = None) -> None:
    """The contract of a fixed text: it parses (compile and LibCST), and it is the old program
    with ``applied`` expressions wrapped in sorted(...) and nothing else changed."""
    import ast

    from cachelint.code.rewrite import parse_error

    problem = parse_error(new, round_trip=False)  # that LibCST prints back what it read is its affair
    if problem is not None:
        raise ContractViolation(f"the fixed text does not parse: {problem}")
    old_tree, new_tree = ast.parse(old), ast.parse(new)
    added = _sorted_calls(new_tree) - _sorted_calls(old_tree)
    if (applied is not None and added != applied) or added < 1:
        raise ContractViolation(f"{applied} fixes applied, but {added} sorted() calls added")
    if _unwrapped_dump(new_tree) != _unwrapped_dump(old_tree):
        raise ContractViolation(
            "the fixed program differs from the old one in more than sorted(...) around expressions"
        )


def fuzz_fix(data: bytes) -> list[Diagnostic]:
    """Python bytes -> the code checks -> every fix they give (safe and unsafe) applied on LibCST's
    tree (what ``check --fix --unsafe-fixes`` writes): no fix may be dropped as broken, and the
    fixed text must parse and differ from the old one only by the sorted(...) wrappers."""
    from cachelint.code import check_module
    from cachelint.code.rewrite import rewrite_python
    from cachelint.textio import decode

    display = "fuzz.py"
    source = decode(data, display)
    if isinstance(source, Diagnostic):
        return [source]
    found = check_module(display, source.text, _settings())
    fixes = [d.fix for d in found if d.fix is not None]
    if fixes:
        done = rewrite_python(source.text, fixes)
        if done.failed:
            fix, why = done.failed[0]
            raise ContractViolation(f"a fix was dropped as broken ({fix.description}: {why})")
        if done.text is not None:
            check_fixed(source.text, done.text, len(done.applied))
    return found


@functools.lru_cache(maxsize=1)
def _scratch() -> Path:
    return Path(_scratch_folder("cachelint-fuzz-fix-")).resolve()


# Separates the bytes a file holds when it is checked from those it holds when it is fixed.
EDITED = b"\x00--edited--\x00"


def fuzz_fix_concurrent(data: bytes) -> list[Diagnostic]:
    """``check --fix --unsafe-fixes`` on a file that changes between the check and the fix:
    ``data`` is the file as checked, then ``EDITED``, then the file as the fix phase finds it (the
    same bytes when absent). A changed file must be left exactly as it is, with a warning; an
    unchanged one is fixed (or not) and parses."""
    from cachelint import engine, fixer
    from cachelint.discovery import InputFile

    checked, marker, edited = data.partition(EDITED)
    if not marker:
        edited = checked
    root = _scratch()
    path = root / "fuzz.py"
    for leftover in root.iterdir():
        leftover.unlink()
    path.write_bytes(checked)
    settings = _settings()
    files = [InputFile(path, "fuzz.py", explicit=True)]
    run = engine.check_python(files, settings, None, 1)
    path.write_bytes(edited)
    result = engine.CheckResult(diagnostics=[])
    per_file = fixer.resolve_fix_targets(run.per_file, run, root)
    options = engine.CheckOptions(fix=True, unsafe_fixes=True, no_cache=True, jobs=1)
    in_pool = lambda work, items: engine.workers.map_in_pool(work, items, 1)  # noqa: E731
    fixer.apply_fixes(files, per_file, run, settings, options, ["."], root, result, in_pool)
    now = path.read_bytes()
    had_fixes = any(d.fix is not None for d in per_file.get("fuzz.py", ()))
    if edited != checked:
        if now != edited:
            raise ContractViolation("a file changed after the check was written over")
        if had_fixes and not any("changed on disk" in w for w in result.warnings):
            raise ContractViolation(f"a changed file was skipped without saying so: {result.warnings}")
    elif now != checked:
        check_fixed(checked.decode("utf-8-sig"), now.decode("utf-8-sig"))
        if any("internal error" in w for w in result.warnings):
            raise ContractViolation(f"a fix was dropped as broken: {result.warnings}")
    leftovers = sorted(p.name for p in root.iterdir() if p.name != "fuzz.py")
    if leftovers:
        raise ContractViolation(f"files left beside the fixed one: {leftovers}")
    return list(per_file.get("fuzz.py", ()))


_PAYLOAD_CODES = frozenset({"CL001"})


def _scope_codes(scope: str) -> frozenset[str]:
    """CL001 and the codes of one catalog scope: what a target of that part may report (a CL003,
    cachelint's own failure, is always a violation)."""
    from cachelint.catalog import load_catalog

    return frozenset({"CL001", *(code for code, doc in load_catalog().items() if doc.scope == scope)})


_AUDIT_CODES = _scope_codes("payloads")
_CODE_CODES = _scope_codes("code")

TARGETS: dict[str, Target] = {
    t.name: t
    for t in (
        Target("jsonl", "fuzz.jsonl", fuzz_jsonl, _PAYLOAD_CODES, "JSONL reader + provider adapters"),
        Target("json", "fuzz.json", fuzz_json, _PAYLOAD_CODES, "JSON reader + provider adapters"),
        Target("har", "fuzz.har", fuzz_har, _PAYLOAD_CODES, "HAR reader + provider adapters"),
        Target("cassette", "fuzz.yaml", fuzz_cassette, _PAYLOAD_CODES, "VCR cassette reader + provider adapters"),
        Target("httprr", "fuzz.httprr", fuzz_httprr, _PAYLOAD_CODES, "Go httprr recording reader + provider adapters"),
        Target("audit", "fuzz.jsonl", fuzz_audit, _AUDIT_CODES, "the whole audit of a JSONL log, then every reporter"),
        *(
            Target(name, display, _fuzz_format(name), _PAYLOAD_CODES, f"log format reader ({fmt}) + provider adapters")
            for name, (display, fmt) in FORMAT_TARGETS.items()
            if name not in AGENT_SESSION_TARGETS
        ),
        *(
            Target(
                name,
                FORMAT_TARGETS[name][0],
                _fuzz_format(name),
                _AUDIT_CODES,
                f"coding-agent session reader ({name}), rebuild finder, summary and its reports",
            )
            for name in AGENT_SESSION_TARGETS
        ),
        Target(
            "front-matter",
            "skills/fuzz/SKILL.md",
            fuzz_front_matter,
            frozenset({"CL001", "CL201"}),
            "SKILL.md front matter parser",
        ),
        Target(
            "skills",
            "skills/fuzz/SKILL.md",
            fuzz_skills,
            _scope_codes("skills"),
            "every skill check on a tree holding the input, then every reporter",
        ),
        Target("index", "index", fuzz_index, frozenset({"CL001"}), "index parser (Markdown, marketplace.json, YAML)"),
        Target("code", "fuzz.py", fuzz_code, _CODE_CODES, "Python order-flow analysis (CL1xx)"),
        Target(
            "gzip",
            "fuzz.jsonl.gz",
            fuzz_gzip,
            _PAYLOAD_CODES,
            "gzip JSONL logs of many records, bombs, cut streams (bounded reader)",
        ),
        Target(
            "lines",
            "fuzz.md",
            fuzz_lines,
            _CODE_CODES,
            "crafted long lines through every text scan (index, code, imports, suppressions)",
        ),
        Target(
            "literal", "fuzz.py", fuzz_literal, _CODE_CODES, "huge literals and token floods under max-syntax-nodes"
        ),
        Target(
            "gitignore",
            "fuzz.gitignore",
            fuzz_gitignore,
            frozenset(),
            "ignore-file lines, malformed and star-heavy ones included",
        ),
        Target(
            "cache",
            "fuzz.cache",
            fuzz_cache,
            frozenset(),
            "damaged files in the cache folder; a cached check must find what a fresh one finds",
        ),
        Target(
            "secrets",
            "secrets.jsonl",
            fuzz_secrets,
            frozenset({"CL001"}),
            "key-shaped strings in prompts: never in any output format",
        ),
        Target(
            "fix",
            "fuzz.py",
            fuzz_fix,
            _CODE_CODES,
            "CL101/CL102 fixes applied on LibCST's tree (line separators, CR/CRLF, BOM, tabs)",
        ),
        Target(
            "fix-concurrent",
            "fuzz.py",
            fuzz_fix_concurrent,
            _CODE_CODES,
            "check --fix on a file edited between the check and the fix",
        ),
    )
}

# Each input must be done within this much CPU time of this process (SIGPROF; the main thread
# only): the crafted shapes above are there to catch super-linear time, which otherwise would only
# make the run slow. CPU, not wall-clock, time: on a loaded machine (a load of 12 on 2 cores) an
# input of 0.2 s of CPU waited over 20 s for it, a violation of nothing. It is also the timer the
# code under test never sets (analysis-timeout and tree-timeout are wall-clock).
INPUT_DEADLINE = 20.0


def run_target(name: str, data: bytes) -> list[Diagnostic]:
    """Run one target on ``data`` and check its contract; an escaping exception is a violation."""
    from cachelint.deadline import TimeLimitExceeded, deadline

    target = TARGETS[name]
    try:
        with deadline(INPUT_DEADLINE, clock="cpu"):
            found = target.run(data)
    except TimeLimitExceeded as exc:
        raise ContractViolation(
            f"{name}: one input took more than {INPUT_DEADLINE:g} s of CPU ({len(data)} bytes)"
        ) from exc
    except ContractViolation:
        raise
    except Exception as exc:  # noqa: BLE001 - that is the bug a fuzzer looks for
        raise ContractViolation(f"{name}: {type(exc).__name__} escaped: {exc}") from exc
    return check_contract(found, data, target.display, target.codes)


# --- inputs: hypothesis strategies (imported lazily: hypothesis is a test dependency) -----------


def _httprr_recording(*pairs: tuple[bytes, bytes]) -> bytes:
    """A Go httprr file of (request, response) wire messages: each framed by its sizes line."""
    return b"httprr trace v1\n" + b"".join(b"%d %d\n" % (len(q), len(r)) + q + r for q, r in pairs)


SEEDS: dict[str, bytes] = {
    "gzip": gzip.compress(b"{}\n" * 2000),
    "lines": b"x = 1" + b" " * 3000 + b"\n",
    "literal": b"X = [" + b"1, " * 2_000 + b"]\n",
    "gitignore": b"*.pyc\n!keep.pyc\n[z-a]\n[a-\\]\n/build/\n**/cache\n" + b"*a" * 20 + b"b\n",
    "cache": b"[]",
    "httprr": _httprr_recording(
        (
            b"POST https://api.anthropic.com/v1/messages HTTP/1.1\r\nHost: api.anthropic.com\r\nContent-Length: 96\r\n\r\n"
            b'{"model":"claude-sonnet-4-5","max_tokens":8,"system":"S","messages":[{"role":"user","content":"q"}]}',
            b"HTTP/1.1 200 OK\r\nDate: Sun, 29 Nov 2026 10:00:00 GMT\r\nTransfer-Encoding: chunked\r\n\r\n"
            b'1c\r\n{"usage":{"input_tokens":12}}\r\n0\r\n\r\n',
        ),
    ),
    "secrets": b"You are a helpful agent.",
    "fix": (
        "import os\nfrom pathlib import Path\nimport anthropic\n\x0c\nclient = anthropic.Anthropic()\n# \u2028 section\n"
        "TOOLS = {n: {'name': n} for n in ['a', 'b']}\ndef ask(m):\n\tnames = {'a', 'b'}\n"
        "\tindex = '\\n'.join(p.name for p in Path('skills').glob('*'))\n"
        "\treturn client.messages.create(model='m', tools=[TOOLS[n] for n in names], system=index, messages=m)\n"
    ).encode("utf-8"),
    "fix-concurrent": (
        b"import anthropic\nclient = anthropic.Anthropic()\nnames = {'a', 'b'}\n"
        b"client.messages.create(model='m', tools=[{'name': n} for n in names], messages=[])\n"
        b"\x00--edited--\x00import os\nimport anthropic\nclient = anthropic.Anthropic()\nnames = {'a', 'b'}\n"
        b"client.messages.create(model='m', tools=[{'name': n} for n in names], messages=[])\n"
    ),
    "skills": b"---\nname: fuzz\ndescription: Use when the task reads PDF files and merges them.\nwhen_to_use: PDFs\n---\n# Fuzz\n",
    "audit": (
        b'{"model":"claude-sonnet-4-5","tools":[{"name":"a","input_schema":{"type":"object"}},{"name":"b","input_schema":{}}],'
        b'"system":[{"type":"text","text":"S","cache_control":{"type":"ephemeral","ttl":"1h"}}],"messages":[{"role":"user","content":"q"}]}\n'
        b'{"request":{"model":"claude-sonnet-4-5","tools":[{"name":"b","input_schema":{}},{"name":"a","input_schema":{"type":"object"}}],'
        b'"system":[{"type":"text","text":"S 2026-11-29T10:00:00Z","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":"q"},'
        b'{"role":"assistant","content":"a"},{"role":"user","content":[{"type":"text","text":"r","cache_control":{"type":"ephemeral"}}]}]},'
        b'"response":{"usage":{"input_tokens":5,"cache_read_input_tokens":0,"cache_creation_input_tokens":2000}},"time":"2026-11-29T11:00:00Z"}\n'
    ),
    "jsonl": (
        b'{"model":"claude-sonnet-4-5","max_tokens":64,"tools":[{"name":"a","input_schema":{"type":"object"}}],'
        b'"system":[{"type":"text","text":"S","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":"hi"}]}\n'
        b'{"request":{"model":"gpt-4o","messages":[{"role":"system","content":"S"},{"role":"user","content":"q"}]},'
        b'"response":{"usage":{"prompt_tokens":10,"prompt_tokens_details":{"cached_tokens":0}}},"time":"2026-11-29T10:00:00Z",'
        b'"headers":{"x-api-key":"k"},"url":"https://api.openai.com/v1/chat/completions?key=k"}\n'
    ),
    "json": (
        b'[{"model":"gemini-2.5-pro","contents":[{"role":"user","parts":[{"text":"q"}]}],"systemInstruction":{"parts":[{"text":"S"}]}},'
        b'{"modelId":"anthropic.claude","system":[{"text":"S"},{"cachePoint":{"type":"default"}}],"messages":[{"role":"user","content":[{"text":"q"}]}]}]'
    ),
    "har": (
        b'{"log":{"version":"1.2","entries":[{"startedDateTime":"2026-11-29T10:00:00Z","request":{"method":"POST",'
        b'"url":"https://api.anthropic.com/v1/messages","headers":[{"name":"x-api-key","value":"k"}],"postData":{"mimeType":'
        b'"application/json","text":"{\\"model\\":\\"claude-sonnet-4-5\\",\\"messages\\":[{\\"role\\":\\"user\\",\\"content\\":\\"q\\"}]}"}},'
        b'"response":{"status":200,"headers":[],"content":{"mimeType":"text/event-stream","text":"event: message_start\\ndata: {\\"type\\":\\"message_start\\",\\"message\\":{\\"usage\\":{\\"input_tokens\\":3}}}\\n\\n"}}}]}}'
    ),
    "cassette": (
        b'interactions:\n- request:\n    body: \'{"model": "claude-sonnet-4-5", "system": "S", "messages": [{"role": "user", "content": "q"}]}\'\n'
        b"    headers:\n      x-api-key:\n      - k\n    method: POST\n    uri: https://api.anthropic.com/v1/messages\n"
        b'  response:\n    body:\n      string: \'{"usage": {"input_tokens": 5, "cache_read_input_tokens": 0}}\'\n'
        b"    headers:\n      date:\n      - Sun, 29 Nov 2026 10:00:00 GMT\n    status:\n      code: 200\n      message: OK\nversion: 1\n"
    ),
    "front-matter": (
        b"---\nname: pdf-tools\ndescription: Use when the task reads, merges or splits PDF files.\n"
        b"metadata:\n  tags: [pdf, docs]\n  a: &x {k: v}\n  b: *x\n---\n# PDF\nBody text.\n"
    ),
    "index": (
        b"# Skills\n\n- pdf: Use when the task reads PDF files.\n- [docx](skills/docx/): Word files.\n"
        b"| **pdf** | reads PDF |\n[x](../../etc/passwd)\n"
        b'{"plugins":[{"name":"d","source":"./","skills":["./skills/pdf","./skills/docx","/etc/passwd"]}]}\n'
        b"- name: pdf\n  description: d\n- name: docx\n  path: skills/docx\n"
    ),
    "code": (
        b"import anthropic, glob, time\nclient = anthropic.Anthropic()\nTOOLS = {'a': {'name': 'a'}}\n"
        b"def tools():\n    return [TOOLS[n] for n in {'a', 'b'}]\n"
        b"while True:\n    system = f'now {time.time()}'\n    files = glob.glob('*.md')\n"
        b"    client.messages.create(model='m', tools=tools(), system=system + ''.join(files), messages=[])\n"
    ),
}


def _format_seeds() -> dict[str, bytes]:
    """One small, realistic file of each log format (shapes as cachelint/payloads/formats/ reads
    them; the full samples are tests/payloads/format_samples/)."""
    body = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 64,
        "tools": [{"name": "a", "input_schema": {"type": "object"}, "cache_control": {"type": "ephemeral"}}],
        "system": [{"type": "text", "text": "S 2026-11-29T10:00:00Z", "cache_control": {"type": "ephemeral"}}],
        "messages": [
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "a", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "r"}]},
        ],
    }
    usage = {"input_tokens": 5, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 1200, "output_tokens": 3}
    chat = [
        {"role": "system", "content": "S"},
        {"role": "user", "content": "q"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "t1", "type": "function", "function": {"name": "a", "arguments": "{}"}}],
        },
        {"role": "tool", "tool_call_id": "t1", "content": "r"},
    ]
    tools = [{"type": "function", "function": {"name": "a", "parameters": {"type": "object"}}}]
    helicone = {
        "request_id": "r1",
        "request_created_at": "2026-11-29T10:00:00Z",
        "target_url": "https://api.anthropic.com/v1/messages",
        "request_body": body,
        "response_body": {"usage": usage},
        "response_status": 200,
        "request_properties": {"Helicone-Session-Id": "s"},
    }
    bedrock = {
        "schemaType": "ModelInvocationLog",
        "timestamp": "2026-11-29T10:00:00Z",
        "region": "us-east-1",
        "operation": "Converse",
        "modelId": "anthropic.claude-3",
        "input": {
            "inputBodyJson": {
                "system": [{"text": "S"}, {"cachePoint": {"type": "default"}}],
                "messages": [{"role": "user", "content": [{"text": "q"}]}],
            },
            "inputTokenCount": 3,
            "cacheReadInputTokenCount": 0,
            "cacheWriteInputTokenCount": 1100,
        },
        "output": {"outputBodyJson": [{"metadata": {"usage": {"inputTokens": 3}}}], "outputTokenCount": 2},
    }
    span_attrs = [
        {"key": k, "value": {"stringValue": v}}
        for k, v in (
            ("openinference.span.kind", "LLM"),
            ("input.value", json.dumps(body)),
            ("input.mime_type", "application/json"),
            ("llm.provider", "anthropic"),
            ("session.id", "s"),
        )
    ] + [{"key": "llm.token_count.prompt", "value": {"intValue": "1205"}}]
    genai_attrs = [
        {"key": k, "value": {"stringValue": v}}
        for k, v in (
            ("gen_ai.operation.name", "chat"),
            ("gen_ai.provider.name", "openai"),
            ("gen_ai.request.model", "gpt-4o"),
            ("gen_ai.system_instructions", json.dumps([{"type": "text", "content": "S"}])),
            (
                "gen_ai.input.messages",
                json.dumps(
                    [
                        {
                            "role": "user",
                            "parts": [
                                {"type": "text", "content": "q"},
                                {"type": "tool_call", "id": "t", "name": "a", "arguments": {}},
                            ],
                        }
                    ]
                ),
            ),
            ("gen_ai.tool.definitions", json.dumps([{"type": "function", "name": "a", "parameters": {}}])),
            ("gen_ai.prompt.0.role", "user"),
            ("gen_ai.prompt.0.content", "q"),
            ("llm.request.functions.0.name", "a"),
        )
    ]
    otlp = {
        "resourceSpans": [
            {
                "resource": {"attributes": []},
                "scopeSpans": [
                    {
                        "scope": {},
                        "spans": [
                            {
                                "traceId": "ab",
                                "spanId": "01",
                                "startTimeUnixNano": "1795946400000000000",
                                "attributes": span_attrs,
                                "status": {},
                            },
                            {
                                "traceId": "ab",
                                "spanId": "02",
                                "startTimeUnixNano": "1795946401000000000",
                                "attributes": genai_attrs,
                                "status": {"code": 2},
                            },
                        ],
                    }
                ],
            }
        ]
    }
    lines = lambda *records: "".join(json.dumps(r) + "\n" for r in records).encode()  # noqa: E731
    inspect_sample = {
        "id": "s",
        "epoch": 1,
        "events": [
            {
                "event": "model",
                "timestamp": "2026-11-29T10:00:00+00:00",
                "model": "anthropic/claude-sonnet-4-5",
                "call": {
                    "request": {**{k: v for k, v in body.items() if k != "messages"}, "system": "attachment://h"},
                    "response": {"usage": usage},
                    "call_refs": [[0, 1]],
                    "call_key": "messages",
                },
            },
            {"event": "subtask", "events": [{"event": "model", "cache": "read", "call": {"request": body}}]},
        ],
        "attachments": {"h": "S 2026-11-29T10:00:00Z"},
        "events_data": {"messages": [], "calls": body["messages"]},
    }
    return {
        "helicone": lines(helicone, {**helicone, "request_body": json.dumps(body)}),
        "helicone-json": json.dumps({"data": [helicone, {**helicone, "request_id": "r2"}]}).encode(),
        "bedrock-invocation": json.dumps([bedrock, {**bedrock, "operation": "ConverseStream"}]).encode(),
        "anthropic-batch": json.dumps(
            {"requests": [{"custom_id": "a", "params": body}, {"custom_id": "b", "params": body}]}
        ).encode(),
        "batch-results": lines(
            {"custom_id": "a", "result": {"type": "succeeded", "message": {"usage": usage}}},
            {"custom_id": "b", "result": {"type": "errored"}},
            {
                "id": "x",
                "custom_id": "c",
                "response": {"status_code": 200, "body": {"usage": {"prompt_tokens": 2}}},
                "error": None,
            },
        ),
        "litellm": lines(
            {
                "call_type": "acompletion",
                "model": "claude-sonnet-4-5",
                "custom_llm_provider": "anthropic",
                "messages": chat,
                "model_parameters": {"tools": tools},
                "response": {"usage": {"prompt_tokens": 1205, "cache_creation_input_tokens": 1200}},
                "startTime": 1795946400.5,
                "status": "success",
            },
            {
                "standard_logging_object": {"model_parameters": {}, "messages": "hi"},
                "raw_request_typed_dict": {
                    "raw_request_body": body,
                    "raw_request_api_base": "https://api.anthropic.com/v1/messages",
                },
            },
        ),
        "langsmith": lines(
            {
                "run_type": "llm",
                "inputs": body,
                "outputs": {"usage": usage},
                "extra": {"metadata": {"ls_provider": "anthropic", "thread_id": "t"}},
                "start_time": "2026-11-29T10:00:00",
                "trace_id": "x",
            },
            {
                "run_type": "llm",
                "inputs": {
                    "messages": [
                        [
                            {
                                "lc": 1,
                                "type": "constructor",
                                "id": ["langchain", "schema", "messages", "SystemMessage"],
                                "kwargs": {"content": "S", "type": "system"},
                            }
                        ]
                    ]
                },
                "outputs": {
                    "generations": [
                        [
                            {
                                "message": {
                                    "kwargs": {
                                        "usage_metadata": {"input_tokens": 9, "input_token_details": {"cache_read": 4}}
                                    }
                                }
                            }
                        ]
                    ]
                },
                "extra": {"invocation_params": {"tools": tools}},
                "trace_id": "x",
            },
            {"run_type": "chain", "inputs": {}},
        ),
        "langfuse": json.dumps(
            {
                "data": [
                    {
                        "type": "GENERATION",
                        "traceId": "t",
                        "startTime": "2026-11-29T10:00:00Z",
                        "model": "gpt-4o",
                        "input": {"messages": chat, "tools": tools},
                        "usageDetails": {"input": 2, "input_cached_tokens": 1},
                    },
                    {"type": "SPAN", "traceId": "t", "startTime": "x"},
                ]
            }
        ).encode(),
        "otlp": json.dumps(otlp).encode(),
        "otlp-lines": lines(otlp, otlp),
        "claude-code": lines(
            {"type": "summary", "summary": "s", "leafUuid": "u"},
            {
                "type": "assistant",
                "sessionId": "s",
                "uuid": "a",
                "timestamp": "2026-11-29T10:00:00Z",
                "requestId": "r",
                "isSidechain": True,
                "message": {
                    "id": "m",
                    "model": "claude-sonnet-4-5",
                    "usage": {**usage, "cache_creation": {"ephemeral_1h_input_tokens": 1200}},
                },
            },
            {"type": "user", "sessionId": "s", "uuid": "b", "message": {"role": "user", "content": "q"}},
        ),
        "gemini-cli": lines(
            {"sessionId": "g1", "projectHash": "h", "startTime": "2026-11-29T10:00:00Z", "kind": "main"},
            {"id": "u1", "timestamp": "2026-11-29T10:00:00Z", "type": "user", "content": [{"text": "q"}]},
            {
                "id": "m1",
                "timestamp": "2026-11-29T10:00:05Z",
                "type": "gemini",
                "content": "a",
                "model": "gemini-2.5-pro",
                "tokens": {"input": 5000, "cached": 0, "output": 10, "thoughts": 2, "tool": 0, "total": 5012},
            },
            {"$rewindTo": "u1"},
            {
                "id": "m2",
                "timestamp": "2026-11-29T10:20:05Z",
                "type": "gemini",
                "content": "b",
                "model": "gemini-2.5-flash",
                "tokens": {"input": 5200, "cached": 1000, "output": 10},
            },
        ),
        "codex": lines(
            {
                "timestamp": "2026-11-29T10:00:00Z",
                "type": "session_meta",
                "payload": {
                    "id": "c1",
                    "cli_version": "0.60.0",
                    "source": {"subagent": {"thread_spawn": {"parent_thread_id": "p1"}}},
                },
            },
            {
                "timestamp": "2026-11-29T10:00:01Z",
                "type": "turn_context",
                "payload": {"model": "gpt-5-codex", "user_instructions": "x"},
            },
            {
                "timestamp": "2026-11-29T10:00:02Z",
                "type": "event_msg",
                "payload": {
                    "type": "token_count",
                    "info": {
                        "total_token_usage": {"input_tokens": 5000},
                        "last_token_usage": {"input_tokens": 5000, "cached_input_tokens": 0, "output_tokens": 10},
                    },
                },
            },
            {
                "timestamp": "2026-11-29T10:00:03Z",
                "type": "compacted",
                "payload": {"message": "", "replacement_history": []},
            },
            {
                "timestamp": "2026-11-29T10:09:02Z",
                "type": "event_msg",
                "payload": {
                    "type": "token_count",
                    "info": {
                        "total_token_usage": {"input_tokens": 9000},
                        "last_token_usage": {"input_tokens": 4000, "cached_input_tokens": 1024, "output_tokens": 10},
                    },
                },
            },
        ),
        "inspect": json.dumps({"version": 2, "status": "success", "samples": [inspect_sample]}).encode(),
        "inspect-archive": json.dumps(inspect_sample).encode(),
        "zhar": json.dumps(
            {
                "log": {
                    "version": "1.2",
                    "entries": [
                        {
                            "startedDateTime": "2026-11-29T10:00:00Z",
                            "request": {
                                "method": "POST",
                                "url": "https://api.anthropic.com/v1/messages",
                                "headers": [],
                                "postData": {"mimeType": "application/json", "text": json.dumps(body)},
                            },
                            "response": {"status": 200, "content": {"text": json.dumps({"usage": usage})}},
                        }
                    ],
                }
            },
            indent=1,
        ).encode(),
        "formats-auto": json.dumps([helicone, bedrock]).encode(),
    }


SEEDS.update(_format_seeds())


# Fragments that make parsers take unusual branches: delimiters, escapes, YAML anchors and
# aliases, front matter fences, BOM, CRLF, NUL, invalid UTF-8, huge numbers, deep nesting.
TOKENS: tuple[bytes, ...] = (
    b"{",
    b"}",
    b"[",
    b"]",
    b'"',
    b"'",
    b":",
    b",",
    b"\\",
    b"\\u0000",
    b"\\ud800",
    b"null",
    b"true",
    b"1e999",
    b"-0",
    b"18446744073709551616",
    b"\n",
    b"\r\n",
    b"\r",
    b"\x00",
    b"\xff",
    b"\xc3",
    b"\xef\xbb\xbf",
    b"---\n",
    b"...\n",
    b"&a ",
    b"*a",
    b"!!python/object:os.system",
    b"<<: *a",
    b"- ",
    b"  ",
    b"\t",
    b"#",
    b"|",
    b">",
    b"```\n",
    b"](",
    b"../../",
    b"/etc/passwd",
    b"SKILL.md",
    b"data: ",
    b"event: ",
    b"\x1f\x8b",
    b"cache_control",
    b"tools",
    b"messages",
    b"system",
    b"model",
    b"(",
    b")",
    b"lambda",
    b"sorted(",
    b"set(",
    b"{*",
    b"**",
    b"async ",
    b"await ",
    b"yield ",
    b"def ",
    b"class ",
    b"for ",
    b"while ",
    b"    ",
    b"time.time()",
    b"uuid.uuid4()",
    b"os.listdir('.')",
)


Edit = tuple  # (operation, position, argument): see apply_edits


def _edits(max_position: int) -> Any:
    """A hypothesis strategy of one edit: cut, insert bytes, splice a token, delete, repeat."""
    from hypothesis import strategies as st

    position = st.integers(min_value=0, max_value=max(0, max_position))
    return st.one_of(
        st.tuples(st.just("cut"), position, st.just(b"")),
        st.tuples(st.just("insert"), position, st.binary(min_size=1, max_size=8)),
        st.tuples(st.just("token"), position, st.sampled_from(TOKENS)),
        st.tuples(st.just("delete"), position, st.integers(1, 16).map(lambda n: b"x" * n)),
        st.tuples(st.just("repeat"), position, st.integers(2, 40).map(lambda n: b"x" * n)),
    )


def apply_edits(data: bytes, edits: Sequence[Edit]) -> bytes:
    """``data`` after ``edits`` in turn (positions past the end are clamped)."""
    for op, at, arg in edits:
        at = min(at, len(data))
        if op == "cut":
            data = data[:at]
        elif op in ("insert", "token"):
            data = data[:at] + arg + data[at:]
        elif op == "delete":
            data = data[:at] + data[at + len(arg) :]
        elif op == "repeat":  # nest or repeat the next few bytes many times
            piece = data[at : at + 3] or b"["
            data = data[:at] + piece * len(arg) + data[at:]
    return data


def mutated(seed: bytes) -> Any:
    """A hypothesis strategy: ``seed`` after a few random edits. Shrinks towards fewer edits,
    i.e. towards the seed."""
    from hypothesis import strategies as st

    return st.lists(_edits(len(seed)), min_size=1, max_size=6).map(lambda edits: apply_edits(seed, edits))


def variants(name: str, count: int = 3) -> Any:
    """A hypothesis strategy of a batch of inputs: one drawn by ``strategy(name)`` and ``count``
    single edits of it. Drawing a structured document costs far more than running a target on
    it, so a batch tests four inputs for little more than the price of one draw."""
    from hypothesis import strategies as st

    def batch(data: bytes) -> Any:
        return st.lists(_edits(len(data)), min_size=count, max_size=count).map(
            lambda edits: [data, *(apply_edits(data, [e]) for e in edits)]
        )

    return strategy(name).flatmap(batch)


def _json_values() -> Any:
    from hypothesis import strategies as st

    scalars = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(2**70), 2**70),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=12),
        st.sampled_from(["user", "assistant", "system", "text", "tool_use", "ephemeral", "1h", "5m", ""]),
    )
    keys = st.one_of(
        st.sampled_from(
            [
                "role",
                "content",
                "type",
                "text",
                "name",
                "input_schema",
                "cache_control",
                "ttl",
                "tools",
                "system",
                "messages",
                "model",
                "parts",
                "cachePoint",
                "usage",
                "input_tokens",
                "cache_read_input_tokens",
                "cache_creation_input_tokens",
                "prompt_tokens",
                "tool_choice",
                "thinking",
                "metadata",
                "user_id",
                "id",
            ]
        ),
        st.text(max_size=6),
    )
    return st.recursive(
        scalars,
        lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(keys, inner, max_size=5)),
        max_leaves=8,
    )


def _request_bodies() -> Any:
    """Request bodies shaped like the providers' (right keys, values of any JSON type)."""
    from hypothesis import strategies as st

    anything = _json_values()
    # a content part with a cache marker of either provider (OpenAI's GPT-5.6 breakpoint, Anthropic's)
    marked_part = st.fixed_dictionaries(
        {"type": st.just("text"), "text": st.text(max_size=20)},
        optional={
            "prompt_cache_breakpoint": st.one_of(st.just({"mode": "explicit"}), anything),
            "cache_control": anything,
        },
    )
    message = st.fixed_dictionaries(
        {"role": st.one_of(st.sampled_from(["user", "assistant", "system", "tool", "model"]), anything)},
        optional={
            "content": st.one_of(
                st.text(max_size=20), st.lists(st.one_of(marked_part, anything), max_size=3), anything
            ),
            "parts": anything,
        },
    )
    return st.fixed_dictionaries(
        {},
        optional={
            "model": st.one_of(
                st.sampled_from(["claude-sonnet-4-5", "gpt-4o", "gpt-5.6", "gemini-2.5-pro", "anthropic.claude-3"]),
                anything,
            ),
            "messages": st.one_of(st.lists(message, max_size=4), anything),
            "tools": st.one_of(st.lists(anything, max_size=3), anything),
            "system": anything,
            "instructions": anything,
            "input": anything,
            "contents": anything,
            "systemInstruction": anything,
            "toolConfig": anything,
            "tool_choice": anything,
            "thinking": anything,
            "metadata": anything,
            "prompt_cache_key": anything,
            "prompt_cache_options": st.one_of(
                st.fixed_dictionaries(
                    {}, optional={"mode": st.sampled_from(["implicit", "explicit"]), "ttl": anything}
                ),
                anything,
            ),
            "prompt_cache_retention": anything,
            "cache_control": anything,
            "max_tokens": anything,
            "context_management": anything,
            "output_format": anything,
            "anthropic_beta": anything,
        },
    )


_STEPS = (
    "append",
    "append",
    "reorder-tools",
    "add-tool",
    "drop-tool",
    "edit-system",
    "marker",
    "setting",
    "rewrite",
    "usage",
    "gap",
    "same",
    "beta",
    "server",
)


def _sessions() -> Any:
    """JSONL of a conversation that evolves request by request the way agents' do (and break):
    messages appended, tools reordered, added or dropped, the system edited, cache markers moved,
    settings toggled, history rewritten, beta headers changed; responses with usage (some adding up
    server-side tool steps); times with gaps."""
    from hypothesis import strategies as st

    def build(provider: str, steps: list[tuple[str, int]]) -> bytes:
        tools = [
            {
                "name": f"t{i}",
                "description": f"tool {i}",
                "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}},
            }
            for i in range(3)
        ]
        system = "You are a helpful agent. " * 3
        messages: list[dict] = [{"role": "user", "content": "start"}]
        settings: dict[str, Any] = {}
        betas: list[str] = []
        lines = []
        minute = 0
        for n, (step, k) in enumerate(steps):
            if step == "append":
                messages += [
                    {"role": "assistant", "content": f"answer {n}"},
                    {"role": "user", "content": f"question {n} " * (k + 1)},
                ]
            elif step == "reorder-tools" and tools:
                tools = tools[k % len(tools) :] + tools[: k % len(tools)]
            elif step == "add-tool":
                tools.insert(k % (len(tools) + 1), {"name": f"x{n}", "input_schema": {}})
            elif step == "drop-tool" and tools:
                tools.pop(k % len(tools))
            elif step == "edit-system":
                system = (
                    system.replace("helpful", f"helpful{k}", 1)
                    if k % 2
                    else f"{system} Now: 2026-11-29T10:{k % 60:02d}:00Z"
                )
            elif step == "marker" and messages:
                messages[k % len(messages)] = {
                    "role": messages[k % len(messages)]["role"],
                    "content": [
                        {
                            "type": "text",
                            "text": f"m{k}",
                            "cache_control": {"type": "ephemeral", "ttl": ("5m", "1h")[k % 2]},
                        }
                    ],
                }
            elif step == "setting":
                key = ("tool_choice", "thinking", "temperature", "model")[k % 4]
                settings[key] = (
                    {"type": "auto"},
                    {"type": "enabled", "budget_tokens": 1024},
                    k / 10,
                    "claude-opus-4-1",
                )[k % 4]
            elif step == "rewrite" and len(messages) > 1:
                messages[k % len(messages)] = {"role": messages[k % len(messages)]["role"], "content": f"rewritten {k}"}
            elif step == "gap":
                minute += 7 * k
            elif step == "beta":
                betas = betas[1:] if k % 3 == 0 else [*betas, f"feature-{k}"]
                if k % 2:
                    settings["context_management"] = {"edits": [{"type": "clear_tool_uses_20250919", "keep": k}]}
            minute += 1
            if provider == "openai":
                body = {
                    "model": "gpt-4o",
                    "messages": [{"role": "system", "content": system}, *messages],
                    "tools": [{"type": "function", "function": t} for t in tools],
                    **settings,
                }
                usage = {"prompt_tokens": 2000 + n, "prompt_tokens_details": {"cached_tokens": 1024 * (k % 2)}}
            elif provider == "gemini":
                body = {
                    "model": "gemini-2.5-pro",
                    "systemInstruction": {"parts": [{"text": system}]},
                    "contents": [
                        {"role": "user" if m["role"] == "user" else "model", "parts": [{"text": str(m["content"])}]}
                        for m in messages
                    ],
                }
                usage = {"usageMetadata": {"promptTokenCount": 2000 + n, "cachedContentTokenCount": 1024 * (k % 2)}}
            else:
                body = {
                    "model": "claude-sonnet-4-5",
                    "max_tokens": 512,
                    "tools": list(tools),
                    "system": [{"type": "text", "text": system, "cache_control": {"type": "ephemeral"}}],
                    "messages": list(messages),
                    **settings,
                }
                usage = {
                    "usage": {
                        "input_tokens": 10,
                        "cache_read_input_tokens": 2000 * (k % 2),
                        "cache_creation_input_tokens": 100 * n,
                    }
                }
            envelope = {"request": body, "time": f"2026-11-29T{10 + minute // 60 % 14:02d}:{minute % 60:02d}:00Z"}
            if betas:
                envelope["headers"] = {"anthropic-beta": ",".join(betas)}
            if step in ("usage", "server") or k % 3 == 0:
                envelope["response"] = usage if provider == "gemini" else {"id": f"r{n}", **usage}
                if step == "server":
                    envelope["response"]["content"] = [
                        {"type": "server_tool_use", "id": f"s{n}", "name": "bash_code_execution"}
                    ]
                    envelope["response"]["output"] = [{"type": "web_search_call", "id": f"ws{n}"}]
            lines.append(json.dumps(envelope))
        return ("\n".join(lines) + "\n").encode()

    step = st.tuples(st.sampled_from(_STEPS), st.integers(0, 9))
    return st.builds(
        build, st.sampled_from(["anthropic", "anthropic", "openai", "gemini"]), st.lists(step, min_size=1, max_size=8)
    )


def structured(name: str) -> Any:
    """Well-formed containers of the target's format holding arbitrary-but-plausible values."""
    from hypothesis import strategies as st

    bodies = _request_bodies()
    anything = _json_values()
    dumps = functools.partial(json.dumps, ensure_ascii=False)
    envelope = st.fixed_dictionaries(
        {"request": st.one_of(bodies, anything)},
        optional={
            "response": anything,
            "time": st.one_of(st.text(max_size=25), st.integers(), anything),
            "session": anything,
            "headers": anything,
            "url": anything,
        },
    )
    record = st.one_of(bodies, envelope, anything)
    if name == "audit":
        return st.one_of(
            _sessions(),
            st.lists(record.map(dumps), max_size=4).map(
                lambda lines: "\n".join(lines).encode("utf-8", "surrogatepass")
            ),
        )
    if name == "jsonl":
        return st.lists(record.map(dumps), max_size=4).map(
            lambda lines: "\n".join(lines).encode("utf-8", "surrogatepass")
        )
    if name == "json":
        return st.one_of(record, st.lists(record, max_size=4)).map(lambda v: dumps(v).encode("utf-8", "surrogatepass"))
    if name == "har":
        entry = st.fixed_dictionaries(
            {},
            optional={
                "startedDateTime": st.one_of(st.text(max_size=25), anything),
                "request": st.one_of(
                    st.fixed_dictionaries(
                        {},
                        optional={
                            "url": anything,
                            "headers": anything,
                            "method": anything,
                            "postData": st.one_of(
                                st.fixed_dictionaries(
                                    {"text": bodies.map(dumps)}, optional={"encoding": anything, "mimeType": anything}
                                ),
                                anything,
                            ),
                        },
                    ),
                    anything,
                ),
                "response": st.one_of(
                    st.fixed_dictionaries(
                        {},
                        optional={
                            "status": anything,
                            "headers": anything,
                            "content": st.one_of(
                                st.fixed_dictionaries({"text": st.one_of(anything.map(dumps), st.text(max_size=40))}),
                                anything,
                            ),
                        },
                    ),
                    anything,
                ),
            },
        )
        doc = st.one_of(
            st.fixed_dictionaries(
                {"log": st.one_of(st.fixed_dictionaries({"entries": st.lists(entry, max_size=3)}), anything)}
            ),
            anything,
        )
        return doc.map(lambda v: dumps(v).encode("utf-8", "surrogatepass"))
    if name == "httprr":
        start = st.sampled_from(
            [
                b"POST https://api.anthropic.com/v1/messages HTTP/1.1",
                b"POST /v1/chat/completions HTTP/1.1",
                b"GET / HTTP/1.1",
                b"",
            ]
        )
        header = st.sampled_from(
            [
                b"Host: api.openai.com",
                b"Transfer-Encoding: chunked",
                b"Content-Encoding: gzip",
                b"Content-Encoding: br",
                b"Date: Sun, 29 Nov 2026 10:00:00 GMT",
                b"Authorization: Bearer sk-ant-api03-" + b"x" * 40,
                b"X: y",
            ]
        )
        payload = st.one_of(bodies.map(dumps), anything.map(dumps)).map(lambda t: t.encode("utf-8", "surrogatepass"))
        chunked = payload.map(lambda b: b"%x\r\n" % len(b) + b + b"\r\n0\r\n\r\n")
        gzipped = payload.map(gzip.compress)
        message = st.tuples(
            start, st.lists(header, max_size=4), st.one_of(payload, chunked, gzipped, st.binary(max_size=40))
        ).map(lambda t: t[0] + b"\r\n" + b"".join(h + b"\r\n" for h in t[1]) + b"\r\n" + t[2])
        framed = st.lists(st.tuples(message, message), max_size=4).map(lambda pairs: _httprr_recording(*pairs))
        # sizes that lie: a frame line of any numbers, then any bytes
        lying = st.tuples(st.integers(-5, 10**6), st.integers(-5, 10**6), st.binary(max_size=200)).map(
            lambda t: b"httprr trace v1\n%d %d\n" % (t[0], t[1]) + t[2]
        )
        return st.one_of(framed, lying)
    if name == "cassette":
        import yaml

        interaction = st.fixed_dictionaries(
            {},
            optional={
                # ``parsed_body``: pydantic-ai's cassettes store a JSON body decoded, in place of ``body``
                "request": st.one_of(
                    st.fixed_dictionaries(
                        {},
                        optional={
                            "body": st.one_of(bodies.map(dumps), anything),
                            "parsed_body": st.one_of(bodies, anything),
                            "uri": anything,
                            "headers": anything,
                            "method": anything,
                        },
                    ),
                    anything,
                ),
                "response": st.one_of(
                    st.fixed_dictionaries(
                        {},
                        optional={
                            "body": st.one_of(st.fixed_dictionaries({"string": anything.map(dumps)}), anything),
                            "parsed_body": anything,
                            "headers": anything,
                            "status": anything,
                        },
                    ),
                    anything,
                ),
                # WebSocket / gRPC recorders: interactions without a request
                "kind": anything,
                "request_sample": anything,
            },
        )
        # bodies recorded as sent on the wire: gzip bytes, whole or cut short
        wire = st.tuples(bodies.map(dumps), st.integers(0, 200)).map(
            lambda p: gzip.compress(p[0].encode("utf-8", "surrogatepass"))[: p[1] or None]
        )
        interaction = st.one_of(
            interaction,
            st.fixed_dictionaries(
                {
                    "request": st.fixed_dictionaries({"body": st.one_of(wire, bodies.map(dumps)), "uri": anything}),
                    "response": st.fixed_dictionaries(
                        {"body": st.fixed_dictionaries({"string": wire}), "headers": anything}
                    ),
                }
            ),
        )
        doc = st.one_of(
            st.fixed_dictionaries({"interactions": st.lists(interaction, max_size=3), "version": st.just(1)}),
            # vcrpy's in-memory shape (some persisters write it), lists of any lengths
            st.fixed_dictionaries(
                {"requests": st.lists(anything, max_size=3), "responses": st.lists(anything, max_size=3)}
            ),
            # mlx_lm's mapping of token streams
            st.fixed_dictionaries({"interactions": st.dictionaries(st.text(max_size=8), anything, max_size=3)}),
            anything,
        )
        return doc.map(lambda v: yaml.safe_dump(v, allow_unicode=True).encode("utf-8", "surrogatepass"))
    if name in ("front-matter", "skills"):
        import yaml

        fm = st.one_of(
            st.fixed_dictionaries(
                {},
                optional={
                    "name": anything,
                    "description": anything,
                    "when_to_use": anything,
                    "metadata": anything,
                    "allowed-tools": anything,
                    "license": anything,
                },
            ),
            anything,
        )
        return st.tuples(fm, st.text(max_size=30)).map(
            lambda pair: ("---\n" + yaml.safe_dump(pair[0], allow_unicode=True) + "---\n" + pair[1]).encode(
                "utf-8", "surrogatepass"
            )
        )
    if name == "index":
        line = st.one_of(
            st.sampled_from(
                [
                    "- pdf: reads PDF",
                    "- [docx](skills/docx/)",
                    "| **pdf** | x |",
                    "|---|---|",
                    "```",
                    "- [x](../../etc/passwd)",
                    "[pdf](/etc/passwd)",
                    "",
                ]
            ),
            st.tuples(st.sampled_from(["- ", "* ", "1. ", "| ", "[", "- [", ""]), st.text(max_size=20)).map("".join),
        )
        markdown = st.lists(line, max_size=8).map(lambda ls: "\n".join(ls).encode("utf-8", "surrogatepass"))
        market = st.fixed_dictionaries(
            {
                "plugins": st.lists(
                    st.fixed_dictionaries(
                        {},
                        optional={
                            "source": anything,
                            "skills": st.one_of(
                                st.lists(
                                    st.sampled_from(
                                        [
                                            "./skills/pdf",
                                            "../../etc/passwd",
                                            "/abs",
                                            "./skills",
                                            "~/x",
                                            "C:\\x",
                                            "skills/docx/SKILL.md",
                                        ]
                                    ),
                                    max_size=4,
                                ),
                                anything,
                            ),
                        },
                    ),
                    max_size=3,
                )
            }
        ).map(lambda v: dumps(v).encode("utf-8", "surrogatepass"))
        return st.one_of(markdown, market)
    if name == "gzip":
        record = st.sampled_from([b"{}\n", b"[]\n", b"\n", b'{"a":1}\n', b"x\n", b'{"request":{}}\n'])
        # JSONL, or a whole JSON document of the same records (what a ".json.gz" holds)
        return st.tuples(record, st.integers(1, 200_000), st.integers(0, 3), st.booleans()).map(
            lambda t: (lambda z: z if t[2] else z[: len(z) // 2])(
                gzip.compress(_json_array(t[0], t[1]) if t[3] else t[0] * t[1], 6)
            )
        )
    if name == "lines":
        prefix = st.sampled_from(
            [
                "",
                "- ",
                "| ",
                "[",
                "- bar",
                "c.messages.create",
                "c.messages.create(",
                "from ",
                "# noqa:",
                "# cachelint: ignore[",
                "def ",
                "{%",
                "<a",
                "|---|",
            ]
        )
        unit = st.sampled_from(
            [
                " ",
                "\n",
                "\t",
                "[",
                "[a](",
                "a=",
                '\\"',
                "'\\",
                "{%",
                "|",
                "-",
                "*a",
                "noqa:",
                " \n",
                "(",
                "a.",
                "\\\n",
                "cachelint: ignore[",
            ]
        )
        tail = st.sampled_from(["", "x", ")", "]", "|", "\n"])
        return st.tuples(prefix, unit, st.integers(1000, 20_000), tail).map(
            lambda t: (t[0] + t[1] * (t[2] // len(t[1])) + t[3]).encode()
        )
    if name == "literal":
        unit = st.sampled_from(
            [
                "1, ",
                "'a', ",
                "(",
                "x.",
                "a+",
                "[",
                "{1: 2}, ",
                "'''",
                "\\'",
                "b'\\x00', ",
                "f'{a}{b}', ",
                'rf"{a!r:>{w}}", ',
            ]
        )
        return st.tuples(unit, st.integers(1, 60_000)).map(lambda t: ("X = [" + t[0] * t[1] + "]\n").encode())
    if name == "gitignore":
        piece = st.sampled_from(
            [
                "a",
                "b",
                "*",
                "**",
                "?",
                "/",
                "[ab]",
                "[a-b]",
                "[!a]",
                "[z-a]",
                "[a-\\]",
                "[[:alpha:]]",
                "[[:bogus:]]",
                "[",
                "]",
                "\\",
                " ",
                "!",
                "#",
                "*a",
            ]
        )
        line = st.lists(piece, max_size=40).map("".join)
        return st.lists(line, max_size=8).map(lambda ls: "\n".join(ls).encode("utf-8"))
    if name == "cache":
        from cachelint import cachefile

        kinds = st.sampled_from([("results", 4), ("summaries", 4), ("rules", 1), ("packs-valid", 1), ("pack", 1)])
        return st.one_of(
            anything.map(lambda v: dumps(v).encode("utf-8", "surrogatepass")),
            st.tuples(kinds, anything).map(
                lambda t: cachefile.encode(t[0][0], t[0][1], dumps(t[1]).encode("utf-8", "surrogatepass"))
            ),
        )
    if name == "secrets":
        return st.text(max_size=60).map(lambda s: s.encode("utf-8", "surrogatepass"))
    if name in FORMAT_TARGETS:
        return _shaped_like(name)
    if name == "code":
        statements = st.lists(st.sampled_from(CODE_LINES), min_size=1, max_size=14)
        return statements.map(lambda ls: "\n".join(ls).encode("utf-8") + b"\n")
    if name == "fix":
        return _fix_programs()
    if name == "fix-concurrent":
        return st.tuples(_fix_programs(), st.integers(0, 6), st.integers(0, 10_000), st.sampled_from(TOKENS)).map(
            _with_an_edit
        )
    raise KeyError(name)


# Lines of agent code the order-flow analysis has opinions about; random sequences of them
# (indentation included) are mostly valid Python that reaches sinks, loops and scopes in
# unusual combinations.
CODE_LINES: tuple[str, ...] = (
    "import anthropic, openai, glob, os, time, uuid, json",
    "from concurrent.futures import as_completed",
    "client = anthropic.Anthropic()",
    "names = {'a', 'b'}",
    "names = set(os.listdir('.'))",
    "names = sorted(names)",
    "tools = [T[n] for n in names]",
    "tools = list(names)",
    "tools.sort()",
    "system = ''.join(names)",
    "system = f'today {time.time()} {uuid.uuid4()}'",
    "system = json.dumps({n: 1 for n in names})",
    "def build(x):",
    "def build(x=names):",
    "class Agent:",
    "    def run(self):",
    "    return [n for n in x]",
    "    return x",
    "    self.tools = tools",
    "    tools.append(T['c'])",
    "    system += 'x'",
    "for f in as_completed(futures):",
    "while True:",
    "    pass",
    "        pass",
    "if names:",
    "else:",
    "try:",
    "except Exception:",
    "    client.messages.create(model='m', tools=tools, system=system, messages=[])",
    "client.messages.create(model='m', tools=build(names), system=system, messages=[])",
    "client.chat.completions.create(model='m', messages=[{'role': 'system', 'content': system}], tools=tools)",
    "client.responses.create(model='m', instructions=system, tools=tools)",
    "agent = Agent(tools=[*names])",
    "llm.bind_tools(list(names))",
    "lambda: client.messages.create(tools=tools)",
    "async def main():",
    "    async for x in stream():",
    "    await client.messages.create(model='m', tools=tools)",
    "x = y = names",
    "a, b = names, tools",
    "del tools",
    "global tools",
    "names |= {'c'}",
    "tools = [*tools, *names]",
    "print('hello'",
    "match names:",
    "    case {'a': x}:",
    # shapes the analysis learnt from real code: later grammars, queues, counters, dict() messages
    'system = f"{", ".join(names)}"',
    "type Names = list[str]",
    "def first[T](x: T) -> T:",
    "    item = pending.pop(0)",
    "    pending = [item[:5], item[5:]] + pending",
    "    self.retries += 1",
    # settings of the cache key changed in loops (CL106), batches of items, grown prompt parts
    "tool_choice = {'type': 'any'}",
    "    tool_choice = 'none'",
    "    options['tool_choice'] = 'auto'",
    "    client.messages.create(model=model, tools=tools, tool_choice=tool_choice, messages=history)",
    "    client.chat.completions.create(messages=history, **options)",
    "for doc in names:",
    "    system = f'Summarize {doc}'",
    "    parts.append(doc)",
    "    history.append({'role': 'user', 'content': doc})",
    "history = [] + [{'role': 'system', 'content': system}]",
    "    db.insert(tools)",
    "msgs = [dict(role='system', content=system), dict(role='user', content='q')]",
    "client.messages.count_tokens(model='m', system=system, messages=[])",
)


# Where a fix goes: statements that reach a sink with an unordered value ({i} is the indentation
# of the block). Most give a safe fix (strings, file names, paths), some an unsafe one.
FIX_SITES: tuple[str, ...] = (
    "{i}names = {{'search', 'fetch', 'read'}}\n{i}client.messages.create(model='m', tools=[TOOLS[n] for n in names], messages=[])\n",
    "{i}client.messages.create(model='m', system='\\n'.join(f for f in os.listdir('skills')), messages=[])\n",
    "{i}client.messages.create(model='m', system=', '.join(p.name for p in Path('skills').glob('*')), messages=[])\n",
    "{i}rules = {{'be brief', 'cite'}}\n{i}client.messages.create(model='m', system='; '.join(list(rules)), messages=[])\n",
    "{i}names = {{'a'}} | {{'b', 'c'}}\n{i}client.messages.create(model='m', tools=names, messages=[])\n",
    "{i}client.messages.create(model='m', tools=[t for t in set(loaded)], messages=[])\n",
    "{i}client.messages.create(model='m', tools=[{{'name': n,\n{i}    'x': 1}}  # one per name\n{i}    for n in (names)], messages=[])\n",
    "{i}client.messages.create(model='m', tools=list(x for x in {{'a', 'b'}}), messages=[])\n",
    "{i}client.messages.create(model='m', system=f'{{names}}', messages=[])\n",
    "{i}tools = []\n{i}for n in {{'ação', 'b'}}:\n{i}    tools.append({{'name': n}})\n{i}client.messages.create(model='m', tools=tools, messages=[])\n",
    "{i}client.messages.create(model='m', tools=sorted(x for x in set(loaded)), system=' '.join(set(loaded)), messages=[])\n",
)
# What may stand before a fix site: comments and strings holding characters str.splitlines splits
# at (the tokenizer does not), form feeds, blank lines, non-ASCII text, a multi-line string.
NOISE: tuple[str, ...] = (
    "\x0c\n",
    "# \x0c form feed\n",
    "# \x0b\x1c\x1d\x1e\n",
    "# \x85 \u2028 \u2029\n",
    "DOC = 'a\u2028b\x0cc\x85'\n",
    "\n",
    "# ação\n",
    'TEXT = """\n\x0c\n\u2028"""\n',
    "x = 1; y = 2\n",
    "if True:\n    pass\n",
)
FIX_HEADER = (
    "import os\nfrom pathlib import Path\nimport anthropic\nclient = anthropic.Anthropic()\n"
    "TOOLS = {n: {'name': n} for n in ['search', 'fetch', 'read']}\nnames = {'a', 'b'}\nloaded = []\n"
)


def _fix_programs() -> Any:
    """Agent programs with fix sites and noise before them, in functions or at module level, with
    spaces or tabs, LF, CRLF or CR line ends, with or without a BOM."""
    from hypothesis import strategies as st

    part = st.tuples(st.lists(st.sampled_from(NOISE), max_size=3), st.sampled_from(FIX_SITES), st.booleans())
    return st.tuples(
        st.lists(part, min_size=1, max_size=4),
        st.sampled_from(["    ", "\t", "  "]),
        st.sampled_from(["\n", "\r\n", "\r"]),
        st.booleans(),
    ).map(_fix_program)


def _fix_program(spec: tuple) -> bytes:
    parts, indent, newline, bom = spec
    out = [FIX_HEADER]
    for k, (noise, site, in_function) in enumerate(parts):
        out.extend(noise)
        if in_function:
            out.append(f"def ask_{k}():\n")
            out.append(site.format(i=indent))
        else:
            out.append(site.format(i=""))
    text = "".join(out).replace("\n", newline)
    return ("\ufeff" if bom else "").encode("utf-8") + text.encode("utf-8")


def _with_an_edit(spec: tuple) -> bytes:
    """A program, EDITED, and the same file after someone else's edit: nothing (kind 0), a line
    inserted at the top or anywhere, a line removed, a token spliced in, a name changed, a line
    appended."""
    program, kind, where, token = spec
    lines = program.split(b"\n")
    at = where % max(1, len(lines))
    cut = where % max(1, len(program))
    if kind == 0:
        edited = program
    elif kind == 1:
        edited = b"import sys\n" + program
    elif kind == 2:
        edited = b"\n".join(lines[:at] + [b"# edited"] + lines[at:])
    elif kind == 3:
        edited = b"\n".join(lines[:at] + lines[at + 1 :])
    elif kind == 4:
        edited = program[:cut] + token + program[cut:]
    elif kind == 5:
        edited = program.replace(b"names", b"nomes", 1)
    else:
        edited = program + b"\n# appended\n"
    return program + EDITED + edited


def _shaped_like(name: str) -> Any:
    """Documents of the seed's shape with any of its values swapped for arbitrary JSON (a request
    body, a JSON string of one, another type): the format's reader meets its own keys holding
    what a broken or hostile export could hold."""
    from hypothesis import strategies as st

    bodies = _request_bodies()
    anything = _json_values()
    dumps = functools.partial(json.dumps, ensure_ascii=False)

    def shaped(value: Any, depth: int = 0) -> Any:
        if depth > 8:
            return st.just(value)
        if isinstance(value, dict):
            return st.fixed_dictionaries({}, optional={k: shaped(v, depth + 1) for k, v in value.items()})
        if isinstance(value, list):
            return st.lists(st.one_of(*(shaped(v, depth + 1) for v in value[:3])) if value else anything, max_size=4)
        if isinstance(value, str):
            return st.one_of(st.just(value), st.text(max_size=12), bodies.map(dumps), anything)
        return st.one_of(st.just(value), anything)

    seed = SEEDS[name]
    display = FORMAT_TARGETS[name][0]
    if display.endswith(".jsonl"):
        records = [json.loads(line) for line in seed.decode("utf-8").splitlines() if line.strip()]
        return st.lists(st.one_of(*(shaped(r) for r in records)), max_size=4).map(
            lambda rs: "".join(dumps(r) + "\n" for r in rs).encode("utf-8", "surrogatepass")
        )
    return shaped(json.loads(seed)).map(lambda v: dumps(v).encode("utf-8", "surrogatepass"))


def strategy(name: str) -> Any:
    """The inputs of a target: structured documents, mutations of a realistic seed, raw bytes."""
    from hypothesis import strategies as st

    seed = SEEDS[name]
    return st.one_of(structured(name), mutated(seed), structured(name).flatmap(mutated), st.binary(max_size=64))


# --- the longer run ----------------------------------------------------------------------------


def run_with_hypothesis(name: str, iterations: int, seed: int | None = None) -> int:
    """Run ``iterations`` generated inputs through target ``name`` (hypothesis shrinks a failing
    one and prints it). Returns the number of inputs run."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import seed as fix_seed

    calls = [0]

    @settings(max_examples=iterations, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(strategy(name))
    def prop(data: bytes) -> None:
        calls[0] += 1
        run_target(name, data)
        if calls[0] % 1000 == 0:  # a long run on a shared machine says how far it is
            print(f"{name}: {calls[0]} inputs", file=sys.stderr, flush=True)

    if seed is not None:
        prop = fix_seed(seed)(prop)
    prop()
    return calls[0]


def run_with_atheris(name: str, argv: list[str]) -> None:  # pragma: no cover - needs atheris
    """Coverage-guided fuzzing (libFuzzer options in ``argv``, e.g. ``-runs=N``,
    ``-max_total_time=S``), starting from the target's seed."""
    import atheris  # type: ignore[import-not-found]

    run_target(name, SEEDS[name])  # imports every module the target reaches, so that...
    atheris.instrument_all()  # ...their bytecode reports coverage
    corpus = Path(tempfile.mkdtemp(prefix=f"cachelint-fuzz-{name}-corpus-"))
    (corpus / "seed").write_bytes(SEEDS[name])

    def one_input(data: bytes) -> None:
        run_target(name, data)

    atheris.Setup([sys.argv[0], *argv, str(corpus)], one_input)
    atheris.Fuzz()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python fuzz/cachelint_fuzz.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("target", choices=[*TARGETS, "all"])
    parser.add_argument("--iterations", type=int, default=10_000, help="generated inputs per target (default 10000)")
    parser.add_argument("--seed", type=int, default=None, help="hypothesis seed (default: random)")
    parser.add_argument("--atheris", action="store_true", help="coverage-guided fuzzing with atheris (needs atheris)")
    args, rest = parser.parse_known_args(argv)
    names = list(TARGETS) if args.target == "all" else [args.target]
    if args.atheris:
        if len(names) != 1:
            parser.error("--atheris runs one target")
        try:
            import atheris  # type: ignore[import-not-found]  # noqa: F401
        except ImportError:
            parser.error("atheris is not installed (pip install atheris)")
        run_with_atheris(names[0], rest)
        return 0
    if rest:
        parser.error(f"unrecognised arguments: {' '.join(rest)}")
    total = 0
    for name in names:
        count = run_with_hypothesis(name, args.iterations, args.seed)
        total += count
        print(f"{name}: {count} inputs, no contract violation", flush=True)
    print(f"total: {total} inputs", flush=True)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
