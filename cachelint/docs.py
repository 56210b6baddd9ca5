"""Rule documentation generated from the catalog: ``cachelint rule CODE`` prints it and
``docs/rules/<code>.md`` holds it (regenerate with ``python -m cachelint.docs``; a test fails
when a page is stale). The same command rewrites rules/packs/bundle.json, the JSON copy of the
built-in packs read at start-up, and rules/catalog/index.json, the table of rule codes, names,
scopes, severities and statuses read by a run without a cache folder (cachelint.catalog)."""

from __future__ import annotations

import json
import posixpath
import sys
from pathlib import Path
from typing import Any

from cachelint.catalog import RuleDoc, load_catalog

FENCE = {"code": "python", "skills": "markdown", "payloads": "json", "input": "text"}
# Where the documentation is read outside a checkout (``cachelint rule`` in an installed tool).
REPOSITORY_URL = "https://github.com/cachelint/cachelint"
PAGES_FOLDER = "docs/rules"


def reference_markdown(ref: str, page_folder: str | None = None) -> str:
    """A catalog reference as Markdown. References are a page of this repository's docs/ (with an
    anchor) or a URL, each optionally followed by a note in parentheses. A docs/ page becomes a
    link relative to ``page_folder`` (the generated pages) or to the repository's web address (the
    terminal, where no checkout is assumed); a URL becomes an autolink."""
    target, _, note = ref.partition(" ")
    if target.startswith(("https://", "http://")):
        link = f"<{target}>"
    elif target.startswith("docs/"):
        href = posixpath.relpath(target, page_folder) if page_folder else f"{REPOSITORY_URL}/blob/main/{target}"
        link = f"[{target}]({href})"
    else:
        link = target
    return f"{link} {note}".rstrip()


def _example_block(doc: RuleDoc, example: Any) -> str:
    if isinstance(example, str):
        return f"```{FENCE.get(doc.scope, 'text') if doc.scope != 'input' else 'text'}\n{example.rstrip()}\n```\n"
    if isinstance(example, dict):
        parts = []
        for path in example:
            lang = "markdown" if path.endswith(".md") else "json" if path.endswith(".json") else "text"
            if path.endswith(".py"):
                lang = "python"
            parts.append(f"`{path}`\n\n```{lang}\n{str(example[path]).rstrip()}\n```\n")
        return "\n".join(parts)
    body = "\n".join(json.dumps(r, ensure_ascii=False, sort_keys=False) for r in example)
    return f"Records (one per line, as in a JSONL log):\n\n```json\n{body}\n```\n"


def render_rule_markdown(doc: RuleDoc, page_folder: str | None = None) -> str:
    """A rule's documentation; ``page_folder`` is the repository folder the page is written to
    (links to docs/ pages are made relative to it), None for the terminal."""
    out = [
        f"# {doc.code} {doc.name}\n",
        f"_Scope: {doc.scope} · default severity: {doc.severity.value} · status: {doc.status}_\n",
        "## What it does\n",
        doc.summary + "\n",
        "## Why is this bad?\n",
        doc.why + "\n",
    ]
    bad = doc.example_inputs("bad")
    good = doc.example_inputs("good")
    if bad:
        out.append("## Example\n")
        for ex in bad:
            out.append(_example_block(doc, ex))
    if good:
        out.append("## Use instead\n")
        for ex in good:
            out.append(_example_block(doc, ex))
    out += ["## Fix\n", doc.fix + "\n", "## Fix safety\n", doc.fix_safety + "\n"]
    if doc.references:
        out.append("## References\n")
        out.extend(f"- {reference_markdown(ref, page_folder)}\n" for ref in doc.references)
    return "\n".join(out)


def render_index_page() -> str:
    lines = ["# Rules\n", "| code | name | scope | severity | status | summary |", "|---|---|---|---|---|---|"]
    for doc in load_catalog().values():
        lines.append(
            f"| [{doc.code}]({doc.code}.md) | {doc.name} | {doc.scope} | {doc.severity.value} | {doc.status} | {doc.summary} |"
        )
    return "\n".join(lines) + "\n"


def generated_pages() -> dict[str, str]:
    pages = {f"{code}.md": render_rule_markdown(doc, PAGES_FOLDER) for code, doc in load_catalog().items()}
    pages["README.md"] = render_index_page()
    return pages


def write_pages(target: Path) -> list[str]:
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in generated_pages().items():
        path = target / name
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            written.append(name)
    for stale in sorted(target.glob("CL*.md")):
        if stale.name not in generated_pages():
            stale.unlink()
            written.append(f"(removed) {stale.name}")
    return written


def _write_if_changed(target: Path, text: str) -> bool:
    if target.is_file() and target.read_text(encoding="utf-8") == text:
        return False
    target.write_text(text, encoding="utf-8")
    return True


def write_pack_bundle() -> bool:
    """Rewrite rules/packs/bundle.json when it differs from the packs; True when written."""
    from cachelint.catalog import BUNDLE_NAME, pack_bundle_text, rules_dir

    return _write_if_changed(rules_dir() / "packs" / BUNDLE_NAME, pack_bundle_text())


def write_rule_index() -> bool:
    """Rewrite rules/catalog/index.json when it differs from the catalog; True when written."""
    from cachelint.catalog import RULE_INDEX_NAME, rule_index_text, rules_dir

    return _write_if_changed(rules_dir() / "catalog" / RULE_INDEX_NAME, rule_index_text())


if __name__ == "__main__":
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "docs" / "rules"
    for name in write_pages(root):
        print(f"wrote {root / name}")
    if write_pack_bundle():
        print("wrote rules/packs/bundle.json")
    if write_rule_index():
        print("wrote rules/catalog/index.json")
