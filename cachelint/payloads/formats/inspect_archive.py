"""Inspect's ``.eval`` archive: a zip holding ``samples/<id>_epoch_<n>.json``, one sample each
(beside ``header.json``, ``summaries.json`` and a journal), read sample by sample as the JSON log's
samples are (``inspect_log``). Source: inspect_ai's ``log/_recorders/eval.py``
(https://github.com/UKGovernmentBEIS/inspect_ai).
"""

from __future__ import annotations

import zipfile
from typing import IO, Iterator

from cachelint.diagnostics import unreadable
from cachelint.payloads.formats import registry
from cachelint.payloads.formats.inspect_log import FORMAT as LOG_FORMAT
from cachelint.payloads.formats.inspect_log import matches, records
from cachelint.payloads.jsonio import loads
from cachelint.payloads.model import Origin

NAME = "inspect-archive"


def read_archive(handle: IO[bytes], ctx: registry.ReadContext) -> Iterator[registry.Item]:
    """The samples of an ``.eval`` archive, in the archive's name order, each bounded by
    ``max-record-size`` inflated, as a JSON log's samples are (a sample is parsed whole)."""
    try:
        archive = zipfile.ZipFile(handle)
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        yield unreadable(ctx.display, f"Inspect .eval log: not a zip archive ({exc})")
        return
    with archive:
        names = sorted(n for n in archive.namelist() if n.startswith("samples/") and n.endswith(".json"))
        if len(names) > ctx.limits.max_records:
            yield unreadable(
                ctx.display,
                f"Inspect .eval log: more than max-records ({ctx.limits.max_records}) samples; the rest is not read",
            )
            names = names[: ctx.limits.max_records]
        for number, name in enumerate(names):
            origin = Origin(ctx.display, 1, number, number)
            try:
                info = archive.getinfo(name)
                if info.file_size > ctx.limits.max_record_size:
                    yield unreadable(
                        ctx.display, f"Inspect .eval log: {name} is over max-record-size; not read", record=number
                    )
                    continue
                with archive.open(info) as member:
                    text = member.read(ctx.limits.max_record_size + 1)
                if len(text) > ctx.limits.max_record_size:
                    yield unreadable(
                        ctx.display, f"Inspect .eval log: {name} is over max-record-size; not read", record=number
                    )
                    continue
                sample = loads(text)
            except (zipfile.BadZipFile, OSError, ValueError, RuntimeError, EOFError) as exc:
                yield unreadable(ctx.display, f"Inspect .eval log: {name} cannot be read ({exc})", record=number)
                continue
            except RecursionError:
                yield unreadable(ctx.display, f"Inspect .eval log: {name} is nested too deeply to read", record=number)
                continue
            if not isinstance(sample, dict) or not matches(sample):
                yield unreadable(ctx.display, f"Inspect .eval log: {name} is not a sample; not read", record=number)
                continue
            yield from registry.guarded(LOG_FORMAT, records, sample, origin, ctx, ())


FORMAT = registry.LogFormat(
    name=NAME,
    title="Inspect .eval archive",
    fidelity="wire",
    keeps=LOG_FORMAT.keeps,
    read=read_archive,
    suffixes=(".eval",),
    recording=True,
    source="https://github.com/UKGovernmentBEIS/inspect_ai",
)
