"""CL002 invalid-suppression: a suppression comment that names a code cachelint does not know.

Raised by ``cachelint.suppressions.apply_suppressions`` while it applies a file's suppressions."""

from __future__ import annotations

CODE = "CL002"
