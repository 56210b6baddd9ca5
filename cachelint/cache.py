"""The result cache (``.cachelint_cache/``), keyed by tool version, settings and each file.

A file hits when its (mtime, size) match the stored ones; when only the mtime moved, its content
hash decides. Results of files WITH findings are kept too. The folder ignores itself for git; a
corrupt cache is discarded with a warning. Loading must stay cheap: this module imports only the
standard library (the all-hit path never imports libcst or the checks).
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cachelint.config import Settings
from cachelint.diagnostics import Diagnostic
from cachelint.discovery import InputFile
from cachelint import fileutil

FORMAT = 1


@dataclass
class ResultCache:
    path: Path
    entries: dict[str, list[Any]]
    warning: str | None = None
    dirty: bool = False
    seen: set[str] = field(default_factory=set)

    @classmethod
    def open(cls, settings: Settings, cwd: Path) -> "ResultCache":
        base = Path(settings.cache_dir)
        if not base.is_absolute():
            base = settings.root / base
        path = base / f"results-{settings.fingerprint()}.json"
        entries: dict[str, list[Any]] = {}
        warning = None
        if path.is_file():
            try:
                data = json.loads(path.read_bytes())
                if data.get("format") != FORMAT or not isinstance(data.get("files"), dict):
                    raise ValueError("unknown cache format")
                entries = data["files"]
            except (OSError, ValueError, AttributeError) as exc:
                warning = f"cache {path} is corrupt ({exc}); discarded"
                entries = {}
        return cls(path=path, entries=entries, warning=warning)

    def lookup(self, f: InputFile) -> list[Diagnostic] | None:
        key = str(f.path)
        entry = self.entries.get(key)
        if entry is None:
            return None
        try:
            mtime, size, digest, display, diags = entry
            st = os.stat(f.path)
        except (OSError, ValueError):
            return None
        if display != f.display:
            return None
        if (st.st_mtime_ns, st.st_size) != (mtime, size):
            if st.st_size != size:
                return None
            try:
                if fileutil.sha256(f.path.read_bytes()) != digest:
                    return None
            except OSError:
                return None
            entry[0] = st.st_mtime_ns
            self.dirty = True
        self.seen.add(key)
        try:
            return [Diagnostic.from_dict(d) for d in diags]
        except (KeyError, TypeError, ValueError):
            return None

    def store(self, f: InputFile, digest: str, mtime: int, size: int, diags: list[dict]) -> None:
        self.entries[str(f.path)] = [mtime, size, digest, f.display, diags]
        self.seen.add(str(f.path))
        self.dirty = True

    def save(self) -> None:
        if not self.dirty:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            ignore = self.path.parent / ".gitignore"
            if not ignore.exists():
                ignore.write_text("# created by cachelint\n*\n")
            data = json.dumps({"format": FORMAT, "files": self.entries}, sort_keys=True).encode()
            fileutil.atomic_write(self.path, data)
        except OSError:
            pass  # a read-only tree still gets its findings
