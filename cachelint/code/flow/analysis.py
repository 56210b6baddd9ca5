"""``ModuleAnalysis``, the analysis of one module: its driver, and the tables that dispatch
statements and expressions to the handlers of its layers (see the package docstring)."""

from __future__ import annotations

import ast

from cachelint.code.flow.scopes import _EXPRESSIONS, _STATEMENTS
from cachelint.code.flow.statements import Statements


class ModuleAnalysis(Statements):
    """One module (or notebook program): run ``analyse()`` once, then read ``reaches``, ``changes``,
    ``module_frame`` and ``summaries``."""

    def analyse(self) -> None:
        body = self.tree.body
        for stmt in body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.module_funcs[stmt.name] = stmt
        self.block(body, self.module_frame)
        for node in self.pending:
            self.summary_of(node)
        self.settle_first_messages(None, self.tree)
        self.per_turn_passes()


# Handlers by node type, as plain functions of (analysis, node, frame). Class-level tables rather
# than per-instance dicts of bound methods: those made every ModuleAnalysis a reference cycle, so it
# and the tree it holds were freed only by the cyclic garbage collector, whose passes over the
# growing heap cost ~1 s of a 7.6 s in-process cold check of the SDK corpus (docs/benchmarks.md).
_STATEMENTS.update(
    {
        ast.Assign: ModuleAnalysis._assign,
        ast.AnnAssign: ModuleAnalysis._ann_assign,
        ast.AugAssign: ModuleAnalysis._aug_assign,
        ast.Expr: ModuleAnalysis._expr_stmt,
        ast.Return: ModuleAnalysis._return,
        ast.If: ModuleAnalysis._if,
        ast.For: ModuleAnalysis._for,
        ast.AsyncFor: ModuleAnalysis._for,
        ast.While: ModuleAnalysis._while,
        ast.With: ModuleAnalysis._with,
        ast.AsyncWith: ModuleAnalysis._with,
        ast.Try: ModuleAnalysis._try,
        ast.FunctionDef: ModuleAnalysis._def,
        ast.AsyncFunctionDef: ModuleAnalysis._def,
        ast.ClassDef: ModuleAnalysis._class,
        ast.Import: ModuleAnalysis._import,
        ast.ImportFrom: ModuleAnalysis._import_from,
        ast.Delete: ModuleAnalysis._delete,
    }
)


if hasattr(ast, "TryStar"):
    _STATEMENTS[ast.TryStar] = ModuleAnalysis._try


if hasattr(ast, "Match"):
    _STATEMENTS[ast.Match] = ModuleAnalysis._match


_EXPRESSIONS.update(
    {
        ast.Name: ModuleAnalysis._name,
        ast.Attribute: ModuleAnalysis._attribute,
        ast.Subscript: ModuleAnalysis._subscript,
        ast.Call: ModuleAnalysis._call,
        ast.BinOp: ModuleAnalysis._binop,
        ast.BoolOp: ModuleAnalysis._bool_op,
        ast.UnaryOp: ModuleAnalysis._unary_op,
        ast.Compare: ModuleAnalysis._compare,
        ast.IfExp: ModuleAnalysis._if_exp,
        ast.Dict: ModuleAnalysis._dict,
        ast.List: ModuleAnalysis._sequence,
        ast.Tuple: ModuleAnalysis._sequence,
        ast.Set: ModuleAnalysis._set,
        ast.ListComp: ModuleAnalysis._comprehension,
        ast.GeneratorExp: ModuleAnalysis._comprehension,
        ast.DictComp: ModuleAnalysis._comprehension,
        ast.SetComp: ModuleAnalysis._set_comprehension,
        ast.JoinedStr: ModuleAnalysis._joined_str,
        ast.FormattedValue: ModuleAnalysis._formatted_value,
        ast.Constant: ModuleAnalysis._constant,
        ast.Starred: ModuleAnalysis._inner,
        ast.Await: ModuleAnalysis._inner,
        ast.NamedExpr: ModuleAnalysis._named_expr,
        ast.Lambda: ModuleAnalysis._clean,
        ast.Yield: ModuleAnalysis._yield,
        ast.YieldFrom: ModuleAnalysis._yield,
        ast.Slice: ModuleAnalysis._clean,
    }
)
