"""Small builders for skill trees used across the skill tests."""

from __future__ import annotations


def skill(name: str, description: str, extra: str = "") -> str:
    return f"---\nname: {name}\ndescription: {description}\n{extra}---\n# {name}\n\nSteps.\n"


def findings(result, code: str | None = None) -> list[tuple[str, int, str, str]]:
    return [(d.path, d.line, d.code, d.message) for d in result.diagnostics if code is None or d.code == code]


def codes(result) -> list[str]:
    return [d.code for d in result.diagnostics]


CONCILIACAO = "use para bater recebimentos de cartão com o extrato e dar baixa no título"
EMISSAO = "use para emitir, cancelar ou consultar NF-e"
COMISSAO = "use para calcular e exportar comissão de vendedores"
LOGISTICA = "use para abrir chamado em transportadora ou consultar rastreio"
PDF = "Use when extracting text and tables from PDF files or filling PDF forms."
DOCX = "Use when creating or editing Word documents with tracked changes and comments."
XLSX = "Use when building spreadsheets with formulas, pivot tables and charts from CSV data."
