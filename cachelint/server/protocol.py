"""The language server in LSP's terms (pygls): documents in, diagnostics and code actions out.

Positions: LSP counts lines from 0 and characters in UTF-16 code units (the default position
encoding, LSP 3.17 "Position"); cachelint counts lines and characters (code points) from 1. A
character outside the Basic Multilingual Plane is one column for cachelint and two for LSP.

Notebooks: with a client that syncs notebooks (LSP 3.17 ``notebookDocument/*``), each code cell
is a document of its own; the notebook is checked whole (cells see what earlier cells define) and
each finding is published on its cell's document.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Sequence
from urllib.parse import unquote, urlparse

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from cachelint import __version__
from cachelint.diagnostics import Applicability, Diagnostic, Edit, Severity
from cachelint.server.buffers import Buffer, check_buffer, is_checked, notebook_text, suppression_edit

SOURCE = "cachelint"
FIX_ALL = "source.fixAll.cachelint"


def utf16_column(line: str, column: int) -> int:
    """The LSP character (UTF-16 units, 0-based) of cachelint's 1-based column on ``line``."""
    prefix = line[: max(column - 1, 0)]
    return len(prefix) + sum(1 for ch in prefix if ord(ch) > 0xFFFF)


def lsp_position(lines: Sequence[str], line: int, column: int) -> types.Position:
    text = lines[line - 1] if 1 <= line <= len(lines) else ""
    return types.Position(line=max(line - 1, 0), character=utf16_column(text, column))


def lsp_range(lines: Sequence[str], line: int, column: int, end_line: int, end_column: int) -> types.Range:
    return types.Range(lsp_position(lines, line, column), lsp_position(lines, end_line, end_column))


_SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
}


def to_lsp(d: Diagnostic, lines: Sequence[str], line_offset: int = 0) -> types.Diagnostic:
    """One finding as an LSP diagnostic; ``data`` keeps what the code actions need."""
    from cachelint.catalog import load_catalog

    doc = load_catalog().get(d.code)
    severity = d.severity or (doc.severity if doc else Severity.WARNING)
    message = re.sub(r"^cell \d+: ", "", d.message)
    return types.Diagnostic(
        range=lsp_range(
            lines, d.line - line_offset, d.column, (d.end_line or d.line) - line_offset, d.end_column or d.column
        ),
        message=message,
        severity=_SEVERITY.get(severity, types.DiagnosticSeverity.Warning),
        code=d.code,
        code_description=types.CodeDescription(
            href=f"https://github.com/cachelint/cachelint/blob/main/docs/rules/{d.code}.md"
        ),
        source=SOURCE,
        data={"finding": d.to_dict()},
    )


def path_of(uri: str) -> Path | None:
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    return Path(unquote(parsed.path))


class CachelintServer(LanguageServer):
    """The server, with the findings last published per document (for the code actions)."""

    def __init__(self) -> None:
        super().__init__(
            "cachelint",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Full,
            notebook_document_sync=types.NotebookDocumentSyncOptions(
                notebook_selector=[
                    types.NotebookDocumentFilterWithCells(
                        cells=[types.NotebookCellLanguage(language="python")], notebook="jupyter-notebook"
                    )
                ],
                save=True,
            ),
        )
        self.root: Path | None = None

    def root_for(self, path: Path) -> Path:
        if self.root is not None:
            try:
                path.relative_to(self.root)
                return self.root
            except ValueError:
                pass
        return path.parent

    def check_document(self, uri: str) -> None:
        """Check a text document and publish its findings (nothing for kinds cachelint does not read)."""
        path = path_of(uri)
        if path is None or not is_checked(path) or path.suffix == ".ipynb":
            return
        document = self.workspace.get_text_document(uri)
        checked = check_buffer(Buffer(path, document.source, self.root_for(path)))
        if checked.error is not None:
            self.window_show_message(types.ShowMessageParams(types.MessageType.Error, f"cachelint: {checked.error}"))
        lines = document.source.splitlines()
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(
                uri=uri,
                version=document.version,
                diagnostics=[to_lsp(d, lines) for d in checked.diagnostics],
            )
        )

    def check_notebook(self, notebook_uri: str) -> None:
        """Check a notebook whole and publish each finding on its cell's document."""
        path = path_of(notebook_uri)
        notebook = self.workspace.get_notebook_document(notebook_uri=notebook_uri)
        if path is None or notebook is None:
            return
        cells = []
        for cell in notebook.cells:
            kind = "code" if cell.kind == types.NotebookCellKind.Code else "markdown"
            cells.append((cell.document, kind, self.workspace.get_text_document(cell.document).source))
        checked = check_buffer(Buffer(path, notebook_text([(k, t) for _u, k, t in cells]), self.root_for(path)))
        if checked.error is not None:
            self.window_show_message(types.ShowMessageParams(types.MessageType.Error, f"cachelint: {checked.error}"))
        per_cell: dict[int, list[types.Diagnostic]] = {i: [] for i in range(1, len(cells) + 1)}
        for d in checked.diagnostics:
            index = d.details.get("cell") if d.details else None
            if isinstance(index, int) and index in per_cell:
                per_cell[index].append(to_lsp(d, cells[index - 1][2].splitlines()))
        for index, found in per_cell.items():
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=cells[index - 1][0], diagnostics=found)
            )


def _edit_to_lsp(edit: Edit, lines: Sequence[str]) -> types.TextEdit:
    return types.TextEdit(lsp_range(lines, edit.line, edit.column, edit.end_line, edit.end_column), edit.content)


def code_actions(server: CachelintServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    """For each finding of the request: its safe fix, and a suppression comment for it; for the
    document: fix all."""
    uri = params.text_document.uri
    document = server.workspace.get_text_document(uri)
    lines = document.source.splitlines()
    path = path_of(uri)
    notebook = server.workspace.get_notebook_document(cell_uri=uri)
    actions: list[types.CodeAction] = []
    for lsp_diagnostic in params.context.diagnostics:
        if lsp_diagnostic.source != SOURCE or not isinstance(lsp_diagnostic.data, dict):
            continue
        finding = Diagnostic.from_dict(lsp_diagnostic.data["finding"])
        fix = finding.fix
        if fix is not None and fix.applicability == Applicability.SAFE and notebook is None:
            if all(e.path in (None, finding.path) and e.module is None for e in fix.edits):
                actions.append(
                    types.CodeAction(
                        title=f"Fix {finding.code}: {fix.description}",
                        kind=types.CodeActionKind.QuickFix,
                        diagnostics=[lsp_diagnostic],
                        is_preferred=True,
                        edit=types.WorkspaceEdit(changes={uri: [_edit_to_lsp(e, lines) for e in fix.edits]}),
                    )
                )
        suppress = _suppression(server, uri, document.source, path, finding, notebook is not None)
        if suppress is not None:
            actions.append(
                types.CodeAction(
                    title=f"Suppress {finding.code} on this line",
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[lsp_diagnostic],
                    edit=types.WorkspaceEdit(changes={uri: [_edit_to_lsp(suppress, lines)]}),
                )
            )
    fix_all = _fix_all(server, uri, document.source, path) if notebook is None else None
    if fix_all is not None and (not params.context.only or any(FIX_ALL.startswith(k) for k in params.context.only)):
        actions.append(fix_all)
    return actions


def _suppression(
    server: CachelintServer, uri: str, text: str, path: Path | None, finding: Diagnostic, in_notebook: bool
) -> Edit | None:
    if in_notebook:  # a cell's text: the finding's line is a line of the cell
        from cachelint.noqa import NOT_SUPPRESSED_INLINE, add_to_python, line_edit

        if finding.code in NOT_SUPPRESSED_INLINE:
            return None
        done = add_to_python(text, {finding.line: [finding.code]})
        return line_edit(text, done.text) if done.added else None
    if path is None:
        return None
    return suppression_edit(Buffer(path, text, server.root_for(path)), finding)


def _fix_all(server: CachelintServer, uri: str, text: str, path: Path | None) -> types.CodeAction | None:
    if path is None or not path.name.endswith((".py", ".pyi")):
        return None
    checked = check_buffer(Buffer(path, text, server.root_for(path)), fix=True)
    if checked.fixed_text is None or checked.fixed_text == text:
        return None
    lines = text.splitlines()
    whole = types.Range(types.Position(0, 0), types.Position(len(lines) + 1, 0))
    return types.CodeAction(
        title="cachelint: fix all safe fixes",
        kind=FIX_ALL,
        edit=types.WorkspaceEdit(changes={uri: [types.TextEdit(whole, checked.fixed_text)]}),
    )


def build_server() -> CachelintServer:
    server = CachelintServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: CachelintServer, params: types.InitializeParams) -> None:
        folders = params.workspace_folders or []
        uri = folders[0].uri if folders else params.root_uri
        ls.root = path_of(uri) if uri else None

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: CachelintServer, params: types.DidOpenTextDocumentParams) -> None:
        _check_uri(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: CachelintServer, params: types.DidChangeTextDocumentParams) -> None:
        _check_uri(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    def did_save(ls: CachelintServer, params: types.DidSaveTextDocumentParams) -> None:
        _check_uri(ls, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: CachelintServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=params.text_document.uri, diagnostics=[])
        )

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
    def notebook_open(ls: CachelintServer, params: types.DidOpenNotebookDocumentParams) -> None:
        ls.check_notebook(params.notebook_document.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def notebook_change(ls: CachelintServer, params: types.DidChangeNotebookDocumentParams) -> None:
        ls.check_notebook(params.notebook_document.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_SAVE)
    def notebook_save(ls: CachelintServer, params: types.DidSaveNotebookDocumentParams) -> None:
        ls.check_notebook(params.notebook_document.uri)

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL]),
    )
    def code_action(ls: CachelintServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        return code_actions(ls, params)

    return server


def _check_uri(ls: CachelintServer, uri: str) -> None:
    notebook = ls.workspace.get_notebook_document(cell_uri=uri)
    if notebook is not None:
        ls.check_notebook(notebook.uri)
    else:
        ls.check_document(uri)
