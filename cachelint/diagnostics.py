"""The one result type every part of cachelint returns.

Checks produce ``Diagnostic`` objects; reporters consume nothing else. Keep this module free of
imports from the rest of the package so that any part (and the cache) can use it cheaply.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace
from typing import Any, Mapping


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        return {"error": 3, "warning": 2, "info": 1}[self.value]


class Applicability(str, enum.Enum):
    """Ruff's model: safe fixes apply with --fix, unsafe ones need --unsafe-fixes."""

    SAFE = "safe"
    UNSAFE = "unsafe"


@dataclass(frozen=True)
class Edit:
    """Replace the text between two positions (1-based line, 1-based column in characters,
    end exclusive) with ``content``. An insertion has start == end.

    Lines are counted as Python's tokenizer counts them: a line ends at ``\n``, ``\r\n`` or
    ``\r`` only (not at the form feeds and other separators ``str.splitlines`` also splits at).

    Which text: the diagnostic's own file, unless ``path`` names another file (its display path,
    as diagnostics name files) or ``module`` another module of the project (the dotted name; the
    code checks know modules, not files: the engine turns it into ``path`` before anything is
    reported or applied). In a notebook, ``cell`` is the code cell (1-based among all cells, as
    a diagnostic's ``details["cell"]``) and the line is a line of that cell."""

    line: int
    column: int
    end_line: int
    end_column: int
    content: str
    path: str | None = None
    module: str | None = None
    cell: int | None = None

    def where(self) -> dict[str, Any]:
        """The optional fields that are set (for serialisation)."""
        return {k: v for k, v in (("path", self.path), ("module", self.module), ("cell", self.cell)) if v is not None}


@dataclass(frozen=True)
class Fix:
    """What a fix does, as edits of text; the engine applies a fix whole or not at all. Every fix
    of cachelint's checks rewrites expressions: its edits come in pairs of insertions around one
    expression (``sorted(`` ... ``)``), so that the engine can apply it on the syntax tree."""

    description: str
    edits: tuple[Edit, ...]
    applicability: Applicability = Applicability.SAFE


@dataclass(frozen=True)
class Diagnostic:
    """One finding. Positions are 1-based; ``end_column`` is the column after the last character.

    ``record`` (0-based index of the record in its file) and ``session`` are set by payload checks;
    ``kind`` refines a code (CL301: reordered, added, removed, changed, key-order).
    ``details`` carries structured, JSON-serialisable extra data for full/json/html outputs
    (diff excerpts, byte offsets, costs); it never takes part in equality or ordering.
    ``severity`` None means the catalog's default for the code.
    """

    code: str
    message: str
    path: str
    line: int = 1
    column: int = 1
    end_line: int | None = None
    end_column: int | None = None
    severity: Severity | None = None
    fix: Fix | None = None
    record: int | None = None
    session: str | None = None
    kind: str | None = None
    details: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self) -> None:
        if self.end_line is None:
            object.__setattr__(self, "end_line", self.line)
        if self.end_column is None:
            object.__setattr__(self, "end_column", self.column)
        for name in ("path", "message"):
            value = getattr(self, name)
            if not value.isascii():
                object.__setattr__(self, name, printable(value))

    def sort_key(self) -> tuple:
        # a notebook's findings give lines within their cell: the cell orders (and tells apart)
        # the same line of two cells
        cell = self.details.get("cell") if self.details else None
        return (
            self.path,
            cell if isinstance(cell, int) else 0,
            self.line,
            self.column,
            self.code,
            -1 if self.record is None else self.record,
            self.message,
        )

    def with_changes(self, **changes: Any) -> "Diagnostic":
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """Plain data, used by the cache (the ``name`` is added by reporters from the catalog)."""
        data: dict[str, Any] = {
            "code": self.code,
            "message": self.message,
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
        }
        if self.severity is not None:
            data["severity"] = self.severity.value
        if self.record is not None:
            data["record"] = self.record
        if self.session is not None:
            data["session"] = self.session
        if self.kind is not None:
            data["kind"] = self.kind
        if self.details:
            data["details"] = dict(self.details)
        if self.fix is not None:
            data["fix"] = {
                "description": self.fix.description,
                "applicability": self.fix.applicability.value,
                "edits": [
                    [e.line, e.column, e.end_line, e.end_column, e.content] + ([e.where()] if e.where() else [])
                    for e in self.fix.edits
                ],
            }
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Diagnostic":
        """The inverse of ``to_dict``. Raises KeyError, TypeError or ValueError on data that is
        not a diagnostic (a damaged cache entry is then a miss, never a wrong result)."""
        for key in ("line", "column", "end_line", "end_column"):
            if type(data[key]) is not int:
                raise TypeError(f"diagnostic {key} is not an integer: {data[key]!r}")
        for key in ("code", "message", "path"):
            if not isinstance(data[key], str):
                raise TypeError(f"diagnostic {key} is not a string: {data[key]!r}")
        fix = None
        if "fix" in data:
            f = data["fix"]
            fix = Fix(
                description=f["description"],
                applicability=Applicability(f["applicability"]),
                edits=tuple(_edit_from_data(e) for e in f["edits"]),
            )
        return cls(
            code=data["code"],
            message=data["message"],
            path=data["path"],
            line=data["line"],
            column=data["column"],
            end_line=data["end_line"],
            end_column=data["end_column"],
            severity=Severity(data["severity"]) if "severity" in data else None,
            fix=fix,
            record=data.get("record"),
            session=data.get("session"),
            kind=data.get("kind"),
            details=data.get("details", {}),
        )


def _edit_from_data(e: Any) -> Edit:
    if not isinstance(e, list) or len(e) not in (5, 6):
        raise TypeError(f"not an edit: {e!r}")
    where = e[5] if len(e) == 6 else {}
    if not isinstance(where, dict) or not set(where) <= {"path", "module", "cell"}:
        raise TypeError(f"not an edit: {e!r}")
    if not all(type(n) is int for n in e[:4]) or not isinstance(e[4], str):
        raise TypeError(f"not an edit: {e!r}")
    return Edit(*e[:5], **where)


def printable(text: str) -> str:
    """``text`` as valid Unicode. A file name that is not valid UTF-8 reaches Python with lone
    surrogates (os.fsdecode); every output must encode to UTF-8, so its bytes show as ``\\xNN``."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        try:
            raw = text.encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:  # a surrogate that is no escaped byte
            return text.encode("utf-8", "backslashreplace").decode("utf-8")
        return raw.decode("utf-8", "backslashreplace")


def unreadable(path: str, message: str, line: int = 1, column: int = 1, **extra: Any) -> Diagnostic:
    """CL001: an input (file or record) that cannot be read or parsed, or that exceeds a bound the
    user can change (size, nesting, time). The run goes on."""
    return Diagnostic(code="CL001", message=message, path=path, line=line, column=column, **extra)


# What every message about a fault of cachelint's own ends with.
BUG = "this is a bug in cachelint: please report it, with the file if you can"

INTERNAL_ERROR = "CL003"


def internal_error(
    path: str, what: str, exc: BaseException, line: int = 1, column: int = 1, **extra: Any
) -> Diagnostic:
    """CL003: cachelint itself failed on this input (a check raised, a worker died). Never the
    user's CL001: the input may be fine. The run goes on, and exits 2."""
    message = f"internal error {what}: {type(exc).__name__}: {exc} ({BUG})"
    return Diagnostic(code=INTERNAL_ERROR, message=message, path=path, line=line, column=column, **extra)
