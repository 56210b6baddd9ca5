"""Common prefixes: of two strings or byte strings, and of two tiers of blocks."""

from __future__ import annotations

from typing import Sequence

from cachelint.payloads.model import Block


def common_prefix_len(a, b) -> int:
    """Length of the common prefix of two strings or two byte strings: one comparison when one
    is a prefix of the other, else a binary search that compares only the part still undecided
    (``startswith`` at an offset: a memcmp, of a memoryview's bytes without a copy), never a
    Python loop over characters."""
    if len(a) > len(b):
        a, b = b, a
    n = len(a)
    if b.startswith(a):
        return n
    if isinstance(a, bytes):
        a = memoryview(a)
    lo, hi = 0, n  # a[:lo] == b[:lo]; they differ before hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if b.startswith(a[lo:mid], lo):
            lo = mid
        else:
            hi = mid
    return lo


def common_suffix_len(a, b) -> int:
    """Length of the common suffix of two strings or two byte strings (as ``common_prefix_len``,
    from the end: no reversed copies)."""
    if len(a) > len(b):
        a, b = b, a
    n = len(a)
    if b.endswith(a):
        return n
    if isinstance(a, bytes):
        a = memoryview(a)
    lo, hi = 0, n  # the last lo items are equal; they differ within the last hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if b.endswith(a[n - mid : n - lo], 0, len(b) - lo):
            lo = mid
        else:
            hi = mid
    return lo


def common_prefix_blocks(a: Sequence[Block], b: Sequence[Block]) -> int:
    """How many leading blocks two tiers share (consecutive requests share Block objects, so the
    whole-tuple comparison usually answers at C speed)."""
    if len(a) <= len(b) and tuple(a) == tuple(b[: len(a)]):
        return len(a)
    n = 0
    for x, y in zip(a, b):
        if x.data is not y.data and x.data != y.data:
            break
        n += 1
    return n


def oldest_dropped(old: Sequence[Block], new: Sequence[Block]) -> int:
    """How many of ``old``'s first blocks ``new`` dropped while starting with all the others (at
    least two carried on, so that one short message repeated, "ok", is no evidence) and going on
    after them: the oldest turns of a history cut by a sliding window; 0 otherwise."""
    for drop in range(1, len(old) - 1):
        kept = old[drop:]
        if len(new) > len(kept) and all(x.data is y.data or x.data == y.data for x, y in zip(kept, new)):
            return drop
    return 0
