"""``cachelint server``: a language server (LSP over stdio) for editors.

It publishes cachelint's findings for Python files, notebooks, SKILL.md files and skill indexes
(Markdown, marketplace and plugin manifests) when a document is opened, changed or saved, and
offers code actions: the safe fix of a finding, a suppression comment for it, and "fix all"
(``source.fixAll.cachelint``). Each buffer is checked as ``cachelint check --stdin-filename PATH -``
checks it: the configuration closest to the file applies, the file on disk is neither read nor
written.

- ``buffers``: the checks of one buffer, its fixed text, the suppression edit (no LSP types);
- ``protocol``: the pygls server, positions and messages in LSP's terms.

pygls is the optional extra ``[lsp]``; ``cachelint server`` says how to install it when missing.
"""

from __future__ import annotations


def serve_stdio() -> None:
    """Run the server on stdin/stdout until the client shuts it down."""
    from cachelint.server.protocol import build_server

    build_server().start_io()
