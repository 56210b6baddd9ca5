"""The result cache (``.cachelint_cache/``), keyed by tool version, settings and each file.

Per settings fingerprint (the tool version and its own source files, the configuration, the bytes
of every catalog and pack file) two JSON files:

``results-<fingerprint>.json``, read on every run, one entry per Python file by absolute path:
- the file's identity: ``mtime_ns``, ``size`` and ``sha256``. A file whose (mtime, size) match is
  unchanged; when only the mtime moved (a checkout, ``touch``), the content hash decides;
- phase-1 facts, which depend on the file alone: its dotted ``module`` name, the project modules
  it may ``imports``, ``summary_digest``, the digest of its cross-module summary (absent: not
  summarised yet; null: nothing worth telling its importers), and ``summary_deps``, the digest of
  the summaries of the imported modules it was made with (a summary follows calls into them, so
  a change in C's summary makes B's summary stale, and B's importers re-check only if B's summary
  changes with it);
- phase-2 result: ``diagnostics`` (kept for files WITH findings too), the ``display`` path they
  were computed for and ``deps``, the digest of the summaries of the imported modules the check
  saw. A change in module B changes B's summary digest, so every A importing B misses.
Also ``skills``: the skill checks' diagnostics for the last skill tree, with its signature.

``summaries-<fingerprint>.json``: the summaries themselves, by path, read only when a check has to
run with them (they are most of the bytes, and the all-hit path needs only their digests). Each
one is stored with its digest and used only when that digest is the one the results file expects.

``cachelint.catalog`` keeps its start-up data in the same folder: ``rules-*.json`` (the rule table,
keyed by the catalog files' stat), ``packs-valid-*.json`` (digests of packs that validated against
the current schemas) and ``pack-<digest>.json`` (their parsed content, so YAML is not parsed again).

A folder cachelint creates names its own files in a ``.gitignore`` and carries a CACHEDIR.TAG
(``cachefile.make_folder``); a corrupt cache file is discarded
with a warning. Loading must stay cheap: this module imports only the standard library and the
light parts of cachelint (the all-hit path never imports libcst, yaml, jsonschema or the checks).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Any, cast

from cachelint.config import Settings

FORMAT = 4
# Results files of other settings (a pre-commit hook with --select beside a full run...) are kept,
# the most recently used first, up to this many.
KEEP_RESULT_FILES = 8


def cache_folder(settings: Settings) -> Path:
    return settings.cache_folder()


def _read_json_table(path: Path, kind: str, key: str) -> tuple[dict[str, Any], dict[str, Any], str | None]:
    """(the ``key`` table, the whole document, a warning) of one cache file; empty when missing,
    of another version or damaged (``cachelint.cachefile`` checks kind, version and checksum)."""
    from cachelint import cachefile

    def shape(data: Any) -> bool:
        return isinstance(data, dict) and isinstance(data.get(key), dict) and isinstance(data.get("skills", {}), dict)

    warnings: list[str] = []
    data = cachefile.read(path, kind, FORMAT, shape, warnings=warnings)
    if data is None:
        return {}, {}, "; ".join(sorted(set(warnings))) or None
    return data[key], data, None


@dataclass
class ResultCache:
    path: Path
    entries: dict[str, dict[str, Any]]
    warning: str | None = None
    dirty: bool = False
    skills: dict[str, Any] = field(default_factory=dict)
    # path -> entry (or None) once validated in this run: each file is stat'ed at most once
    _valid: dict[str, dict[str, Any] | None] = field(default_factory=dict)
    _summaries: dict[str, Any] | None = None  # loaded on first use
    _summaries_dirty: bool = False
    secret_packs: tuple[str, ...] = ()  # the user's packs of key shapes (what is stored is masked)

    @property
    def folder(self) -> Path:
        return self.path.parent

    @property
    def summaries_path(self) -> Path:
        return self.folder / self.path.name.replace("results-", "summaries-", 1)

    @classmethod
    def open(cls, settings: Settings, cwd: Path | None = None) -> "ResultCache":
        path = cache_folder(settings) / f"results-{settings.fingerprint()}.json"
        entries, data, warning = _read_json_table(path, "results", "files")
        skills = cast(dict, data.get("skills")) if isinstance(data.get("skills"), dict) else {}
        return cls(
            path=path,
            entries=entries,
            skills=skills,
            warning=warning,
            dirty=warning is not None,
            secret_packs=settings.pack_paths(),
        )

    # --- reading -----------------------------------------------------------------------------

    def valid_entry(self, path: str | Path) -> dict[str, Any] | None:
        """The entry of ``path`` if the file on disk still has the content it was made from."""
        key = str(path)
        if key in self._valid:
            return self._valid[key]
        entry = self._validate(key, self.entries.get(key))
        self._valid[key] = entry
        return entry

    def forget_validation(self, paths: Iterable[str | Path]) -> None:
        """Files written during the run (by ``--fix``): their entries are validated again, against
        what the disk holds now, when next asked for."""
        for path in paths:
            self._valid.pop(str(path), None)

    def _validate(self, path: str, entry: Any) -> dict[str, Any] | None:
        if not isinstance(entry, dict):
            return None
        try:
            st = os.stat(path)
        except OSError:
            return None
        if not stat.S_ISREG(st.st_mode):
            return None  # a FIFO now where the file was: never opened (reading one waits forever)
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

    def summary(self, path: str | Path, digest: str) -> dict | None:
        """The stored summary of ``path`` whose digest is ``digest``, or None (missing, or from
        other content: the caller summarises again)."""
        stored = self._summary_table().get(str(path))
        if isinstance(stored, list) and len(stored) == 2 and stored[0] == digest and isinstance(stored[1], dict):
            return stored[1]
        return None

    def _summary_table(self) -> dict[str, Any]:
        if self._summaries is None:
            table, _, warning = _read_json_table(self.summaries_path, "summaries", "summaries")
            if warning and not self.warning:
                self.warning = warning
            self._summaries = table
        return self._summaries

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
        summary_deps: str | None = None,
    ) -> dict[str, Any]:
        """Record phase-1 facts of a file read in this run (the summary only when one was made:
        summaries are made on demand; ``summary_deps``, the digest of the summaries it was made
        with). A result or summary of other content is dropped."""
        key = str(path)
        old = self.entries.get(key)
        entry: dict[str, Any] = {
            "mtime_ns": mtime_ns,
            "size": size,
            "sha256": sha256,
            "module": module,
            "imports": imports,
        }
        same = isinstance(old, dict) and old.get("sha256") == sha256 and old.get("module") == module
        if summarized:
            entry["summary_digest"] = summary_digest
            entry["summary_deps"] = summary_deps or ""
            if summary_digest is not None and summary is not None:
                if self._holds_a_key(summary):
                    # a string of the module's own (an annotation, a subscript key) quoted in a
                    # description: not stored, summarised again each run (masked, the summary
                    # would no longer be the one the module gives)
                    self._summary_table().pop(key, None)
                else:
                    self._summary_table()[key] = [summary_digest, summary]
                self._summaries_dirty = True
        elif same and isinstance(old, dict) and "summary_digest" in old:
            entry["summary_digest"] = old["summary_digest"]
            entry["summary_deps"] = old.get("summary_deps", "")
        if same and isinstance(old, dict):  # same holds only for a dict; narrows the type
            for k in ("display", "deps", "diagnostics"):
                if k in old:
                    entry[k] = old[k]
        self.entries[key] = entry
        self._valid[key] = entry
        self.dirty = True
        return entry

    def store_result(
        self,
        path: str | Path,
        *,
        sha256: str,
        mtime_ns: int,
        size: int,
        display: str,
        module: str,
        deps: str,
        diagnostics: list[dict],
    ) -> None:
        key = str(path)
        kept = self._storable(diagnostics)
        entry = self.entries.get(key)
        if kept is None:  # a fix would write a key: the file's result is not kept (checked again next time)
            self.entries.pop(key, None)
            self._valid.pop(key, None)
            self.dirty = True
            return
        diagnostics = kept
        if not isinstance(entry, dict) or entry.get("sha256") != sha256:
            # the file changed between the phases (or had no facts): keep only what matches it
            entry = {"mtime_ns": mtime_ns, "size": size, "sha256": sha256, "module": module}
        entry.update(mtime_ns=mtime_ns, size=size, display=display, deps=deps, diagnostics=diagnostics)
        self.entries[key] = entry
        self._valid[key] = entry
        self.dirty = True

    def store_skills(self, key: str, diagnostics: list[dict]) -> None:
        kept = self._storable(diagnostics)
        self.skills = {"key": key, "diagnostics": kept} if kept is not None else {}
        self.dirty = True

    def _holds_a_key(self, value: Any) -> bool:
        """Whether a string anywhere in ``value`` holds a key of a known shape (``cachelint.masking``)."""
        from cachelint.masking import masker

        return masker(self.secret_packs).mask_value(value) != value

    def _storable(self, diagnostics: list[dict]) -> list[dict] | None:
        """The findings as the cache may keep them: a key quoted in a message or in details
        masked, as every output masks it (``cachelint.masking``); None when a fix's edits or
        description hold a key (masked, the fix would write ``*`` into the file; kept, the
        cache would hold the key). Paths stay: they are the cache's own keys, and the findings
        are matched to their files by them."""
        from cachelint.masking import masker

        shapes = masker(self.secret_packs)
        out = []
        for d in diagnostics:
            fix = d.get("fix")
            if fix is not None and shapes.mask_value(fix) != fix:
                return None
            masked = dict(d, message=shapes.mask(d["message"]))
            if "details" in d:
                masked["details"] = shapes.mask_value(d["details"])
            out.append(masked)
        return out

    def save(self) -> None:
        if not self.dirty and not self._summaries_dirty:
            return
        # Forget files that no longer exist (renamed, deleted): the cache must not grow forever.
        for key in sorted(self.entries):
            if key not in self._valid and not os.path.exists(key):
                del self.entries[key]
        try:
            from cachelint import cachefile

            cachefile.make_folder(self.folder)
            if self._summaries_dirty and self._summaries is not None:
                # Summaries first: a run killed between the two writes leaves summaries that the
                # results file does not expect yet, which the digest check ignores.
                wanted = {k: e.get("summary_digest") for k, e in self.entries.items() if isinstance(e, dict)}
                kept = {
                    k: v
                    for k, v in sorted(self._summaries.items())
                    if isinstance(v, list) and v and wanted.get(k) == v[0]
                }
                data = json.dumps({"summaries": kept}, sort_keys=True, separators=(",", ":"))
                cachefile.write(self.summaries_path, "summaries", FORMAT, data.encode())
            # Not sort_keys: a finding's details keep the order the check wrote them in, so a warm
            # run prints the same bytes as the cold one (sorted keys here reordered them). The
            # tables themselves are sorted by path, so the file stays deterministic too.
            data = json.dumps(
                {"files": dict(sorted(self.entries.items())), "skills": dict(sorted(self.skills.items()))},
                separators=(",", ":"),
            )
            cachefile.write(self.path, "results", FORMAT, data.encode())
            self._forget_old_files()
        except OSError:
            pass  # a read-only tree still gets its findings
        self.dirty = self._summaries_dirty = False

    def _forget_old_files(self) -> None:
        others = []
        for p in self.folder.glob("results-*.json"):
            if p != self.path:
                try:
                    others.append((p.stat().st_mtime_ns, str(p)))
                except OSError:
                    continue
        for _, name in sorted(others, reverse=True)[KEEP_RESULT_FILES - 1 :]:
            results = Path(name)
            for victim in (results, results.with_name(results.name.replace("results-", "summaries-", 1))):
                try:
                    os.unlink(victim)
                except OSError:
                    pass
