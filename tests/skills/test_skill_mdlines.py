"""The hand-written Markdown line scanners give what the regular expressions they replaced gave
(on short generated lines, where backtracking is cheap), and stay fast on the crafted lines
that made those expressions take minutes."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from cachelint.skills import mdlines

# The expressions the scanners replaced: the reference for what each scanner must return.
LIST_ITEM = re.compile(r"^(\s*)(?:[-*+]|\d{1,3}[.)])\s+(?:\[[ xX]\]\s+)?(.*)$")
TABLE_ROW = re.compile(r"^\s*\|(.*)\|\s*$")
TABLE_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
LINK = re.compile(r"\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
LEAD_NAME = re.compile(r"^(?:\*\*|__|`)?\s*([A-Za-z0-9][A-Za-z0-9_.-]*)\s*(?:\*\*|__|`)?\s*(?::|\s[-–—]\s|\s*$|\s*\()")
PATH_TOKEN = re.compile(r"[^\s`'\"()\[\]]*/[^\s`'\"()\[\]]*")

# Every character the expressions treat specially, and a few ordinary ones.
ALPHABET = list(" \t\u00a0-*+.)0129[]()<>\"'`|:_/#xXab\u2013\u2014") + ["**", "__", "](", "- ", "| "]
lines = st.lists(st.sampled_from(ALPHABET), max_size=24).map("".join)
SETTINGS = settings(max_examples=1000, derandomize=True, deadline=None)


@SETTINGS
@given(lines)
def test_list_item_is_the_old_expression(line):
    m = LIST_ITEM.match(line)
    assert mdlines.list_item(line) == (mdlines.ListItem(m.group(2), m.start(2)) if m else None)


@SETTINGS
@given(lines)
def test_table_row_and_separator_are_the_old_expressions(line):
    m = TABLE_ROW.match(line)
    assert mdlines.table_row(line) == (mdlines.TableRow(m.group(1), m.start(1)) if m else None)
    assert mdlines.is_table_separator(line) == (TABLE_SEPARATOR.match(line) is not None)


@SETTINGS
@given(lines)
def test_links_are_the_old_expression(line):
    assert list(mdlines.links(line)) == [
        mdlines.Link(m.start(), m.end(), m.group(1), m.group(2)) for m in LINK.finditer(line)
    ]
    m = LINK.match(line)
    assert mdlines.link_at_start(line) == (mdlines.Link(0, m.end(), m.group(1), m.group(2)) if m else None)


@SETTINGS
@given(lines)
def test_lead_name_and_path_tokens_are_the_old_expressions(line):
    m = LEAD_NAME.match(line)
    assert mdlines.lead_name(line) == (m.group(1) if m else None)
    assert mdlines.path_tokens(line) == PATH_TOKEN.findall(line)


def test_the_examples_of_each_shape():
    assert mdlines.list_item("  - [x] **pdf**: forms") == ("**pdf**: forms", 8)
    assert mdlines.list_item("12) item") == ("item", 4)
    assert mdlines.list_item("1234. item") is None
    assert mdlines.table_row(" | a | b |  ") == (" a | b ", 2)
    assert mdlines.is_table_separator("|:---|--:|") and not mdlines.is_table_separator("| - |")
    link = mdlines.link_at_start('[pdf](<skills/pdf/> "PDF")')
    assert link is not None and (link.label, link.target, link.end) == ("pdf", "skills/pdf/", 26)
    assert mdlines.lead_name("**pdf-tools** — forms") == "pdf-tools"
    assert mdlines.lead_name("pdf tools") is None


# Lines that took the old expressions quadratic or cubic time (minutes at these sizes); the
# scanners read them in milliseconds. Each is checked through the scanner it exercises.
CRAFTED = {
    "name then spaces": "bar" + " " * 100_000 + "x",
    "brackets": "[" * 100_000,
    "unclosed links": "[a](" * 50_000,
    "separator then spaces": "|---|" + " " * 100_000 + "x",
    "long word without a slash": "a=" * 100_000,
}


def test_crafted_lines_are_read_in_linear_time():
    for text in CRAFTED.values():
        mdlines.lead_name(text)
        list(mdlines.links(text))
        mdlines.link_at_start(text)
        mdlines.is_table_separator(text)
        mdlines.table_row("| " + text + " |")
        mdlines.list_item("- " + text)
        mdlines.path_tokens(text)
