"""The quick test that spares a call the tables' lookups must never turn away a callee some table
matches: every match implies ``may_name_a_known_call``."""

from __future__ import annotations

import itertools

from cachelint.code.knowledge import CallTable, Knowledge


def test_keys_cover_every_kind_of_pattern():
    table: CallTable[bool] = CallTable()
    for pattern in ("a.b.c", "*.d.e", "f.g.*", "h"):
        table.add(pattern, True)
    segments = ("a", "b", "c", "d", "e", "f", "g", "h", "x")
    lasts, firsts = table.keys()
    for n in (1, 2, 3, 4):
        for path in itertools.product(segments, repeat=n):
            if table.match(path) is not None:
                assert path[-1] in lasts or path[0] in firsts, path


def test_knowledge_admits_what_its_tables_match_and_turns_away_the_rest():
    k = Knowledge()
    k.volatile.add("*.now", "clock")
    k.unordered.add("os.listdir", "listing")
    k.sanitizers.add("sorted", True)
    k.materializers.add("json.*", True)
    assert k.may_name_a_known_call(("datetime", "datetime", "now"))
    assert k.may_name_a_known_call(("os", "listdir"))
    assert k.may_name_a_known_call(("sorted",))
    assert k.may_name_a_known_call(("json", "dumps"))
    assert not k.may_name_a_known_call(("helper", "render"))
    assert not k.may_name_a_known_call(())
