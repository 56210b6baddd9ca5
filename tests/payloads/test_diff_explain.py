"""The structural explanation of a changed block: the DeepDiff-free fast path for objects whose
only changes are string values says exactly what DeepDiff says."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cachelint.payloads.diff import deepdiff_lines, explain_block_change, flat_text_changes

KEYS = st.sampled_from(["type", "text", "name", "description", "k1", "odd key", "quo'te", "1"])
SCALARS = st.one_of(
    st.text(max_size=30), st.integers(-3, 3), st.booleans(), st.none(), st.floats(allow_nan=False, width=16)
)
VALUES = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3), max_leaves=6
)


@st.composite
def similar_objects(draw):
    before = draw(st.dictionaries(KEYS, st.one_of(st.text(max_size=30), VALUES), min_size=1, max_size=5))
    after = {}
    for key, value in before.items():
        roll = draw(st.integers(0, 7))
        if roll <= 2 and isinstance(value, str):
            after[key] = value + draw(st.text(min_size=1, max_size=10))  # a string edited
        elif roll == 3:
            after[key] = draw(VALUES)  # anything else
        else:
            after[key] = value
    if draw(st.integers(0, 3)) == 0:
        after = dict(reversed(list(after.items())))  # key order changed too
    return before, after


@settings(max_examples=300, deadline=None)
@given(similar_objects())
def test_the_fast_path_says_what_deepdiff_says(pair):
    before, after = pair
    fast = flat_text_changes(before, after)
    if fast is not None:
        assert fast == deepdiff_lines(before, after)


def test_a_rewritten_system_text_is_explained_without_deepdiff():
    before = {"type": "text", "text": "You are terse. Today is 2026-11-28."}
    after = {"type": "text", "text": "You are terse. Today is 2026-11-29."}
    lines = flat_text_changes(before, after)
    assert lines == deepdiff_lines(before, after)
    assert lines == ["root['text']: '…erse. Today is 2026-11-28.' -> '…erse. Today is 2026-11-29.' (from character 33)"]
    # the explanation shows the path as a reader writes it
    assert explain_block_change(before, after) == (
        "changed",
        ["text: '…erse. Today is 2026-11-28.' -> '…erse. Today is 2026-11-29.' (from character 33)"],
    )
    # not for a number, an added key, an odd key or a key-order change
    assert flat_text_changes({"a": 1}, {"a": 2}) is None
    assert flat_text_changes({"a": "x"}, {"a": "x", "b": "y"}) is None
    assert flat_text_changes({"odd key": "x"}, {"odd key": "y"}) is None
    assert flat_text_changes({"a": "x", "b": "y"}, {"b": "z", "a": "x"}) is None


def test_readable_paths():
    from cachelint.payloads.diff import readable_path

    assert readable_path("root['content'][0]['content']: 'a' -> 'b'") == "content[0].content: 'a' -> 'b'"
    assert readable_path("root['input_schema']['properties']['my key']: x") == "input_schema.properties['my key']: x"
    assert readable_path("root[2]['a'] added") == "[2].a added"
    assert readable_path("root: keys ['a', 'b'] -> ['b', 'a']") == "(block): keys ['a', 'b'] -> ['b', 'a']"
    assert readable_path("no path here") == "no path here"


# --- whole list items added or removed --------------------------------------------------------

from cachelint.payloads.diff import DROPPED_THINKING_HINT, list_item_changes


def test_a_removed_content_block_is_named_not_every_later_position():
    thinking = {"type": "thinking", "thinking": "Look at a.py first.", "signature": "sig"}
    call = {"type": "tool_use", "id": "t1", "name": "read", "input": {"path": "a.py"}}
    before = {"role": "assistant", "content": [thinking, call]}
    after = {"role": "assistant", "content": [call]}
    assert explain_block_change(before, after) == ("changed", ["content[0] (thinking) removed"])
    assert list_item_changes(after, before) == ["content[0] (thinking) added"]


def test_items_inserted_in_the_middle():
    a, b, c = ({"type": "text", "text": t} for t in "abc")
    result = {"type": "tool_result", "tool_use_id": "t", "content": "x"}
    assert list_item_changes({"content": [a, b, c]}, {"content": [a, result, b, c]}) == [
        "content[1] (tool_result) added"
    ]


def test_replaced_items_and_other_changes_are_left_to_deepdiff():
    a, b = {"type": "text", "text": "a"}, {"type": "text", "text": "b"}
    assert list_item_changes({"content": [a]}, {"content": [b]}) is None  # replaced, not added/removed
    assert list_item_changes({"content": [a], "role": "user"}, {"content": [a, b], "role": "assistant"}) is None
    assert list_item_changes({"content": [a]}, {"role": "user", "content": [a, b]}) is None  # other keys
    assert list_item_changes({"content": [a]}, {"content": [a]}) is None  # nothing changed


def test_dropped_thinking_blocks_get_their_hint(tmp_path):
    from tests.conftest import audit_records
    from tests.payloads.helpers import anthropic

    thinking = {"type": "thinking", "thinking": "Look at a.py first.", "signature": "sig"}
    call = {"type": "tool_use", "id": "t1", "name": "search", "input": {"q": "a.py"}}
    first = [
        {"role": "user", "content": "Fix a.py"},
        {"role": "assistant", "content": [thinking, call]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "print(1)"}]},
    ]
    later = [
        first[0],
        {"role": "assistant", "content": [call]},
        first[2],
        {"role": "assistant", "content": "Done."},
        {"role": "user", "content": "Thanks"},
    ]
    result = audit_records(tmp_path, [{"request": anthropic(first)}, {"request": anthropic(later)}])
    (d,) = [d for d in result.diagnostics if d.code == "CL303"]
    assert "content[0] (thinking) removed" in d.message
    assert DROPPED_THINKING_HINT in d.details["explanation"]
