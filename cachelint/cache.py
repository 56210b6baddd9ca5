"""The result cache (``.cachelint_cache/``), keyed by tool version, settings and each file.

One JSON file per settings fingerprint (``results-<fingerprint>.json``; the fingerprint covers the
tool version, the configuration and the bytes of every catalog and pack file). Inside it, one entry
per Python file, by absolute path:

- the file's identity: ``mtime_ns``, ``size`` and ``sha256``. A file whose (mtime, size) match is
  unchanged; when only the mtime moved (a checkout, ``touch``), the content hash decides;
- phase-1 facts, which depend on the file alone: its dotted ``module`` name, the project modules it
  may ``imports``, and its cross-module ``summary`` (what its functions return);
- phase-2 result: ``diagnostics`` (kept for files WITH findings too), the ``display`` path they were
  computed for, and ``deps``, the digest of the summaries of the imported modules the check saw.
  A change in module B changes B's summary digest, so every A importing B misses and is re-checked.

The folder ignores itself for git and carries a CACHEDIR.TAG; a corrupt cache file is discarded
with a warning. Loading must stay cheap: this module imports only the standard library and the
light parts of cachelint (the all-hit path never imports libcst, yaml, jsonschema or the checks).
"""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cachelint.config import Settings

FORMAT = 2
# Results files of other settings (a pre-commit hook with --select beside a full run...) are kept,
# the most recently used first, up to this many.
KEEP_RESULT_FILES = 8
_GITIGNORE = "# created by cachelint: the cache is local to this machine\n*\n"
_CACHEDIR_TAG = (
    "Signature: 8a477f597d28d172789f06886806bc55\n"
    "# This file is a cache directory tag created by cachelint.\n"
    "# For information about cache directory tags see https://bford.info/cachedir/\n"
)


def cache_folder(settings: Settings) -> Path:
    base = Path(settings.cache_dir)
    return base if base.is_absolute() else settings.root / base


@dataclass
class ResultCache:
    path: Path
    entries: dict[str, dict[str, Any]]
    warning: str | None = None
    dirty: bool = False
    # path -> entry (or None) once validated in this run: each file is stat'ed at most once
    _valid: dict[str, dict[str, Any] | None] = field(default_factory=dict)

    skills: dict[str, Any] = field(default_factory=dict)

    @property
    def folder(self) -> Path:
        return self.path.parent

    @classmethod
    def open(cls, settings: Settings, cwd: Path | None = None) -> "ResultCache":
        path = cache_folder(settings) / f"results-{settings.fingerprint()}.json"
        entries: dict[str, dict[str, Any]] = {}
        skills: dict[str, Any] = {}
        warning = None
        try:
            raw = path.read_bytes()
        except FileNotFoundError:
            raw = None
        except OSError as exc:
            raw = None
            warning = f"cache {path} cannot be read ({exc.strerror or exc}); running without it"
        if raw is not None:
            try:
                data = json.loads(raw)
                if not isinstance(data, dict) or data.get("format") != FORMAT:
                    raise ValueError("unknown cache format")
                if not isinstance(data.get("files"), dict):
                    raise ValueError("no file table")
                entries = data["files"]
                skills = data.get("skills") if isinstance(data.get("skills"), dict) else {}
            except (ValueError, UnicodeDecodeError) as exc:
                warning = f"cache {path} is corrupt ({exc}); discarded"
                entries, skills = {}, {}
        return cls(path=path, entries=entries, skills=skills, warning=warning, dirty=warning is not None)

    # --- reading -----------------------------------------------------------------------------

    def valid_entry(self, path: str | Path) -> dict[str, Any] | None:
        """The entry of ``path`` if the file on disk still has the content it was made from."""
        key = str(path)
        if key in self._valid:
            return self._valid[key]
        entry = self._validate(path, self.entries.get(key))
        self._valid[key] = entry
        return entry

    def _validate(self, path: str | Path, entry: Any) -> dict[str, Any] | None:
        if not isinstance(entry, dict):
            return None
        try:
            st = os.stat(path)
        except OSError:
            return None
        mtime, size = entry.get("mtime_ns"), entry.get("size")
        if (st.st_mtime_ns, st.st_size) == (mtime, size):
            return entry
        if st.st_size != size:
            return None
        try:  # same size, new mtime: a touch or a checkout of the same bytes?
            with open(path, "rb") as handle:
                if hashlib.sha256(handle.read()).hexdigest() != entry.get("sha256"):
                    return None
        except OSError:
            return None
        entry["mtime_ns"] = st.st_mtime_ns
        self.dirty = True
        return entry

    def result(self, path: str | Path, display: str, module: str, deps: str) -> list[dict] | None:
        """Cached diagnostics (as dicts) of ``path`` checked as ``display`` with the dependency
        digest ``deps``, or None (a miss)."""
        entry = self.valid_entry(path)
        if entry is None:
            return None
        diags = entry.get("diagnostics")
        if (
            not isinstance(diags, list)
            or entry.get("display") != display
            or entry.get("module") != module
            or entry.get("deps") != deps
        ):
            return None
        return diags

    def skills_result(self, key: str) -> list[dict] | None:
        """Cached skill-check diagnostics for the skill tree whose signature is ``key``."""
        if self.skills.get("key") == key and isinstance(self.skills.get("diagnostics"), list):
            return self.skills["diagnostics"]
        return None

    # --- writing -----------------------------------------------------------------------------

    def store_facts(
        self,
        path: str | Path,
        *,
        sha256: str,
        mtime_ns: int,
        size: int,
        module: str,
        imports: list[str],
        summary: dict | None,
        summary_digest: str | None,
        summarized: bool,
    ) -> dict[str, Any]:
        """Record phase-1 facts of a file read in this run (the summary only when one was made:
        summaries are made on demand). A result or summary of other content is dropped."""
        key = str(path)
        old = self.entries.get(key)
        entry: dict[str, Any] = {"mtime_ns": mtime_ns, "size": size, "sha256": sha256, "module": module, "imports": imports}
        same = isinstance(old, dict) and old.get("sha256") == sha256 and old.get("module") == module
        if summarized:
            entry["summary"] = summary
            entry["summary_digest"] = summary_digest
        elif same and "summary_digest" in old:
            entry["summary"] = old.get("summary")
            entry["summary_digest"] = old["summary_digest"]
        if same:
            for k in ("display", "deps", "diagnostics"):
                if k in old:
                    entry[k] = old[k]
        self.entries[key] = entry
        self._valid[key] = entry
        self.dirty = True
        return entry

    def store_result(
        self, path: str | Path, *, sha256: str, mtime_ns: int, size: int, display: str, module: str, deps: str, diagnostics: list[dict]
    ) -> None:
        key = str(path)
        entry = self.entries.get(key)
        if not isinstance(entry, dict) or entry.get("sha256") != sha256:
            # the file changed between the phases (or had no facts): keep only what matches it
            entry = {"mtime_ns": mtime_ns, "size": size, "sha256": sha256, "module": module}
        entry.update(mtime_ns=mtime_ns, size=size, display=display, deps=deps, diagnostics=diagnostics)
        self.entries[key] = entry
        self._valid[key] = entry
        self.dirty = True

    def store_skills(self, key: str, diagnostics: list[dict]) -> None:
        self.skills = {"key": key, "diagnostics": diagnostics}
        self.dirty = True

    def save(self) -> None:
        if not self.dirty:
            return
        # Forget files that no longer exist (renamed, deleted): the cache must not grow forever.
        for key in sorted(self.entries):
            if key not in self._valid and not os.path.exists(key):
                del self.entries[key]
        try:
            folder = self.folder
            folder.mkdir(parents=True, exist_ok=True)
            ignore = folder / ".gitignore"
            if not ignore.exists():
                ignore.write_text(_GITIGNORE)
            tag = folder / "CACHEDIR.TAG"
            if not tag.exists():
                tag.write_text(_CACHEDIR_TAG)
            data = json.dumps({"format": FORMAT, "files": self.entries, "skills": self.skills}, sort_keys=True, separators=(",", ":"))
            from cachelint.fileutil import atomic_write  # tempfile: only when there is something to write

            atomic_write(self.path, data.encode())
            self._forget_old_result_files()
        except OSError:
            pass  # a read-only tree still gets its findings
        self.dirty = False

    def _forget_old_result_files(self) -> None:
        others = []
        for p in self.folder.glob("results-*.json"):
            if p != self.path:
                try:
                    others.append((p.stat().st_mtime_ns, str(p)))
                except OSError:
                    continue
        for _, name in sorted(others, reverse=True)[KEEP_RESULT_FILES - 1 :]:
            try:
                os.unlink(name)
            except OSError:
                pass
