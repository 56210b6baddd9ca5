"""Parquet tables: exports of observability stores and data lakes, one record a row.

A row is the record a JSON format reads: its columns are the record's fields, renamed where the
format declares it (``LogFormat.columns``: column -> dotted field path), and a string column that
holds JSON (a request body, a list of messages: stores keep nested values as text) is decoded.
The first row decides the format (``registry.match``), as the first line of a JSONL file; a row
no format claims is read as the generic envelope (``request``, ``response``, ``time``…). Read a
row group at a time (pyarrow), so memory follows the largest row group, not the table.

Needs pyarrow: ``pip install 'cachelint[parquet]'``.
"""

from __future__ import annotations

from typing import IO, Any, Iterator

from cachelint.diagnostics import unreadable
from cachelint.payloads import jsonio
from cachelint.payloads.formats import registry
from cachelint.payloads.model import Origin
from cachelint.payloads.readers.envelopes import ENVELOPE_KEEPS, records_from_value

NAME = "parquet"
_BATCH_ROWS = 256


def row_record(row: dict[str, Any], columns: Any) -> dict[str, Any]:
    """A table row as the record of a format whose ``columns`` are given."""
    record: dict[str, Any] = {}
    for column, value in row.items():
        if isinstance(value, str) and value[:1] in ("{", "["):
            try:
                value = jsonio.loads(value)
            except (ValueError, RecursionError):
                pass  # text that only starts like JSON: kept as text
        target = record
        path = columns.get(column, column).split(".")
        for part in path[:-1]:
            nested = target.get(part)
            if not isinstance(nested, dict):
                nested = target[part] = {}
            target = nested
        target[path[-1]] = value
    return record


def _claimed(row: dict[str, Any]) -> registry.LogFormat | None:
    """The format whose record the row is, with that format's column names."""
    for fmt in registry.all_formats():
        if fmt.matches is not None and registry.match(row_record(row, fmt.columns)) is fmt:
            return fmt
    return None


def read(handle: IO[bytes], ctx: registry.ReadContext) -> Iterator[registry.Item]:
    try:
        import pyarrow.parquet as pq
    except ImportError:
        yield unreadable(ctx.display, "a Parquet table: reading it needs pip install 'cachelint[parquet]'")
        return
    try:
        table = pq.ParquetFile(handle)
    except Exception as exc:  # pyarrow's own errors: a truncated or foreign file
        yield unreadable(ctx.display, f"not a readable Parquet table: {type(exc).__name__}")
        return
    fmt: registry.LogFormat | None = None
    index = 0
    try:
        for batch in table.iter_batches(batch_size=_BATCH_ROWS):
            for row in batch.to_pylist():
                if index == 0:
                    fmt = _claimed(row)
                origin = Origin(ctx.display, index + 1, index)  # shown as path:row, the rows counted from 1
                index += 1
                if index > ctx.limits.max_records:
                    yield unreadable(
                        ctx.display,
                        f"more than {ctx.limits.max_records} rows: the rest of the table is not read",
                        line=index,
                    )
                    return
                if fmt is not None and fmt.records is not None:
                    record = row_record(row, fmt.columns)
                    if registry.match(record) is fmt:
                        yield from fmt.records(record, origin, ctx, ())
                        continue
                yield from records_from_value(row_record(row, {}), origin, ctx.redactor, NAME)
    except Exception as exc:  # a row group that cannot be decoded: said once, the rows before it kept
        yield unreadable(ctx.display, f"Parquet table cut short at row {index + 1}: {type(exc).__name__}")
    if fmt is not None and fmt.finish is not None:
        yield from fmt.finish(ctx)


FORMAT = registry.LogFormat(
    name=NAME,
    title="Parquet table",
    fidelity="wire",
    keeps=ENVELOPE_KEEPS,
    read=read,
    suffixes=(".parquet",),
    generic=True,
    source="https://parquet.apache.org/docs/file-format/",
)
