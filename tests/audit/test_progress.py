"""The progress bar: drawn on a terminal only, throttled, cleared at the end."""

from __future__ import annotations

import io

from cachelint.progress import Progress


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_not_a_tty_writes_nothing():
    out = io.StringIO()
    p = Progress(100, 2, stream=out)
    p.records_seen(5)
    p.file_done(50)
    p.close()
    assert out.getvalue() == ""


def test_disabled_writes_nothing_even_on_a_tty():
    out = Tty()
    p = Progress(100, 2, stream=out, enabled=False)
    p.file_done(100)
    p.close()
    assert out.getvalue() == ""


def test_bar_on_a_tty_is_throttled_and_cleared():
    now = [0.0]
    out = Tty()
    p = Progress(200, 2, stream=out, width=10, clock=lambda: now[0])
    p.records_seen(1)  # first draw
    p.records_seen(2)  # same instant: throttled
    assert out.getvalue().count("\r") == 1
    now[0] = 1.0
    p.records_seen(1500)
    assert p.line() == "cachelint audit [----------]   0% · file 1/2 · 1,500 records"
    p.file_done(100)
    assert p.line() == "cachelint audit [#####-----]  50% · file 2/2 · 1,500 records"
    p.file_done(100)
    assert "[##########] 100%" in p.line()
    p.close()
    assert out.getvalue().endswith("\r")
    assert "1,500 records" in out.getvalue()


def test_audit_with_progress_on_a_pipe_stays_silent(tmp_path, capsys):
    from cachelint.api import audit_logs
    from cachelint.config import load_settings
    from cachelint.payloads import AuditOptions

    log = tmp_path / "log.jsonl"
    log.write_text('{"model": "claude-sonnet-4-5", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]}\n')
    audit_logs(
        [log.name], settings=load_settings(tmp_path, isolated=True), options=AuditOptions(progress=True), cwd=tmp_path
    )
    assert "cachelint audit [" not in capsys.readouterr().err


def test_the_bar_moves_inside_a_long_file(tmp_path, monkeypatch):
    """One log of many records: the bar follows how far the reader is in it, not 0% until the
    file is done."""
    import json

    import cachelint.progress as progress
    from cachelint.config import load_settings
    from cachelint.payloads import AuditOptions
    from cachelint.payloads.audit import run_audit

    log = tmp_path / "big.jsonl"
    body = {"model": "claude-sonnet-4-5", "max_tokens": 5}
    log.write_text(
        "".join(
            json.dumps({**body, "messages": [{"role": "user", "content": f"{n} " + "x" * 2000}]}) + "\n"
            for n in range(200)
        )
    )
    bars: list[Progress] = []

    class OnATerminal(Progress):
        def __init__(self, total_bytes: int = 0, files: int = 0, **kwargs) -> None:
            super().__init__(total_bytes, files, **{**kwargs, "stream": Tty()})
            self.positions: list[int | None] = []
            bars.append(self)

        def records_seen(self, records: int, file_bytes: int | None = None) -> None:
            self.positions.append(file_bytes)
            super().records_seen(records, file_bytes)

    monkeypatch.setattr(progress, "Progress", OnATerminal)
    run_audit([log.name], load_settings(tmp_path, isolated=True), AuditOptions(progress=True), tmp_path)
    (bar,) = bars
    assert len(bar.positions) == 200 and bar.positions == sorted(bar.positions)
    assert 0 < bar.positions[100] < log.stat().st_size
