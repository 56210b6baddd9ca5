"""FactTable gives back every RequestFacts it was given, equal field for field (times with their
zone and fold, absent usage, numbers past 64 bits, values that cannot be interned), grouped by
session in order of arrival."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from hypothesis import given, settings
from hypothesis import strategies as st

from cachelint.payloads.facts import FactTable, RequestFacts
from cachelint.payloads.cache_usage import CacheUsage

NUMBERS = st.integers(min_value=0, max_value=2**70)
TIMES = st.one_of(
    st.none(),
    st.datetimes(),  # naive
    st.datetimes(timezones=st.sampled_from([timezone.utc, timezone(timedelta(hours=-3)), ZoneInfo("Europe/Lisbon")])),
)
USAGES = st.one_of(
    st.none(),
    st.builds(
        CacheUsage, st.sampled_from(["anthropic", "openai"]), NUMBERS, NUMBERS, NUMBERS, NUMBERS, NUMBERS, NUMBERS
    ),
)
FACTS = st.builds(
    RequestFacts,
    path=st.sampled_from(["a.jsonl", "b.har"]),
    record=st.integers(min_value=0, max_value=10**6),
    line=st.integers(min_value=1, max_value=10**6),
    session=st.sampled_from([None, "s1", "s2"]),
    index=st.integers(min_value=0, max_value=500),
    time=TIMES,
    provider=st.sampled_from(["anthropic", "openai-chat"]),
    model=st.sampled_from([None, "claude-sonnet-4-5"]),
    usage=USAGES,
    prefix_bytes=NUMBERS,
    cached_end_bytes=NUMBERS,
    markers=st.integers(min_value=0, max_value=5),
    last_ttl=st.sampled_from([None, "5m", "1h"]),
    ttls=st.sampled_from([(), ("5m",), ("1h", "5m")]),
    common_bytes=st.one_of(st.none(), NUMBERS),
    first_tier=st.sampled_from([None, "tools", "messages"]),
    changed_settings=st.sampled_from([(), ("model",)]),
    miss_reason=st.one_of(st.none(), st.just({"type": "tools_changed", "tokens": 12})),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(FACTS, max_size=12))
def test_every_fact_comes_back_equal(facts: list[RequestFacts]) -> None:
    table = FactTable()
    for f in facts:
        table.append(f)
    assert len(table) == len(facts)
    back = list(table)
    assert back == facts
    for a, b in zip(back, facts):  # equal is not enough for times: same zone, same fold
        assert (a.time is None) == (b.time is None)
        if a.time is not None:
            assert (a.time.tzinfo, a.time.fold, a.time.isoformat()) == (b.time.tzinfo, b.time.fold, b.time.isoformat())
    keys = {f.session or f"{f.path}#{f.record}" for f in facts}
    assert sorted(table.session_keys()) == sorted(keys)
    for key in keys:
        assert table.session(key) == [f for f in facts if (f.session or f"{f.path}#{f.record}") == key]


def test_an_ambiguous_local_time_keeps_its_fold_and_an_unhashable_value_is_kept_whole() -> None:
    late = datetime(2026, 10, 25, 1, 30, tzinfo=ZoneInfo("Europe/Lisbon"), fold=1)  # the second 01:30
    base = dict(
        path="a.jsonl",
        record=0,
        line=1,
        session="s1",
        index=0,
        time=late,
        provider="anthropic",
        model=None,
        usage=None,
        prefix_bytes=10,
        cached_end_bytes=10,
        markers=0,
        last_ttl=None,
        ttls=(),
        common_bytes=None,
        first_tier=None,
        changed_settings=(),
        miss_reason=None,
    )
    odd = RequestFacts(**{**base, "record": 1, "ttls": ["5m"]})  # type: ignore[arg-type]  # a list: not hashable
    table = FactTable()
    table.append(RequestFacts(**base))  # type: ignore[arg-type]
    table.append(odd)
    first, second = list(table)
    assert first.time.fold == 1 and first.time.utcoffset() == late.utcoffset()
    assert second is odd
