"""The TTL and keep-alive arithmetic, on Anthropic's multipliers (a 5-minute write 1.25x base
input, a 1-hour write 2x, a read 0.1x) at Sonnet's $3 base."""

from __future__ import annotations

from cachelint.payloads.pricing import Price
from cachelint.transcripts.advice import Pause, keepalive_advice, ttl_advice

SONNET = Price("*sonnet*", input=3.0, cache_write_5m=3.75, cache_write_1h=6.0, cache_read=0.3)


def test_the_hour_pays_when_pauses_rebuild_more_than_65_percent_of_the_writes() -> None:
    # two 20-minute pauses rebuilt 100k tokens each; the thread wrote 250k in all
    pauses = [
        Pause(1200, 100_000, 100_000, "5m", 300),
        Pause(1200, 100_000, 100_000, "5m", 300),
        Pause(30, 100_000, 0, "5m", 300),
    ]
    advice = ttl_advice(pauses, written_5m=250_000, written_1h=0, price=SONNET)
    assert advice is not None
    assert advice["saved"] == round(200_000 * (3.75 - 0.3) / 1e6, 6)  # $0.69
    assert advice["premium"] == round(50_000 * (6.0 - 3.75) / 1e6, 6)  # the other 50k written at 1h
    assert advice["pays"] and advice["break_even_share"] == round(2.25 / 3.45, 4)
    assert "200,000 tokens read instead of written again x ($3.75 - $0.3)/M = $0.6900" in advice["arithmetic"]
    # the same pauses in a thread that wrote 2M tokens: the premium outweighs them
    assert ttl_advice(pauses, written_5m=2_000_000, written_1h=0, price=SONNET)["pays"] is False
    # pauses under 5 minutes or over an hour are not the hour's business
    assert ttl_advice([Pause(200, 1, 1, "5m", 300), Pause(4000, 1, 1, "5m", 300)], 10, 0, SONNET) is None


def test_on_the_hour_the_kept_pauses_are_weighed_against_the_premium_paid() -> None:
    advice = ttl_advice([Pause(900, 80_000, 0, "1h", 3600)], written_5m=0, written_1h=400_000, price=SONNET)
    assert advice["basis"] == "on the 1-hour TTL" and advice["pays"] is False
    assert advice["saved"] == round(80_000 * 3.45 / 1e6, 6) and advice["premium"] == round(400_000 * 2.25 / 1e6, 6)


def test_keepalive_pays_for_short_pauses_not_for_long_ones_and_the_end() -> None:
    # cap: (3.75 - 0.3) / 0.3 = 11.5 -> 11 pings for one avoided rebuild
    short = Pause(8 * 60, 50_000, 50_000, "5m", 300)  # 1 ping needed
    long = Pause(3 * 3600, 50_000, 50_000, "5m", 300)  # 35 needed: not bridged, 11 wasted
    advice = keepalive_advice([short, long], ends=[(50_000, "5m", 0)], price=SONNET, writes=3.75)
    assert advice["pings_per_rebuild_avoided"] == 11
    assert (advice["pauses_bridged"], advice["pauses_too_long"], advice["pings"]) == (1, 1, 1 + 11 + 11)
    saved = 50_000 * (3.75 - 0.3) / 1e6 - 1 * 50_000 * 0.3 / 1e6
    wasted = 22 * 50_000 * 0.3 / 1e6
    assert advice["saved"] == round(saved, 6) and advice["wasted"] == round(wasted, 6)
    assert advice["pays"] is False  # the long pause and the session's end cost more pings than one rebuild saves
    assert keepalive_advice([short] * 3, ends=[], price=SONNET, writes=3.75)["pays"] is True
