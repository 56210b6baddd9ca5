"""The structural explanation of a changed block: the DeepDiff-free fast path for objects whose
only changes are string values says exactly what DeepDiff says."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cachelint.payloads.diff import deepdiff_lines, explain_block_change, flat_text_changes

KEYS = st.sampled_from(["type", "text", "name", "description", "k1", "odd key", "quo'te", "1"])
SCALARS = st.one_of(st.text(max_size=30), st.integers(-3, 3), st.booleans(), st.none(), st.floats(allow_nan=False, width=16))
VALUES = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3), max_leaves=6)


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
