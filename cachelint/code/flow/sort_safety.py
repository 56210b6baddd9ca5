"""Whether a ``sorted(...)`` written around an expression of a module calls the builtin, and whether
nothing in the module can put other kinds of values into what the expression reads.

The analysis proves a collection's elements all str (or all paths) from what builds it: a set
display of literals, ``os.listdir``. That proof holds only if no other code reaches the same
object: an alias bound to it (``ALIAS = NAMES; ALIAS.add(None)``), a function it is passed to, a
decorator that adds classes to it, ``globals()["NAMES"] = ...``, a ``global NAMES`` rebinding. And
``sorted``, ``os`` or ``glob`` name the builtin and the modules only when nothing else binds those
names (a module function ``sorted(items, key)``, a parameter named ``os``, ``from x import *``).

Names are read per module, whatever the scope: a name counts as escaping if any use of that
identifier anywhere in the module could hand the object to other code (conservative: a local of
the same name in another function makes the fix unsafe, never wrong). Python's scoping rules are
the source: a name is a builtin only where no binding of it exists in any enclosing scope and no
``from x import *`` may bind it (https://docs.python.org/3/reference/executionmodel.html#resolution-of-names).
"""

from __future__ import annotations

import ast

# Builtins that read a collection without keeping it or handing it on.
_READING_BUILTINS = frozenset(
    {
        "len",
        "list",
        "tuple",
        "set",
        "frozenset",
        "sorted",
        "any",
        "all",
        "min",
        "max",
        "sum",
        "enumerate",
        "iter",
        "reversed",
        "bool",
        "str",
        "repr",
        "print",
        "isinstance",
    }
)
# Methods of sets, lists and dicts that read the receiver and return a new object (or nothing).
_READING_METHODS = frozenset(
    {
        "union",
        "intersection",
        "difference",
        "symmetric_difference",
        "copy",
        "issubset",
        "issuperset",
        "isdisjoint",
        "__contains__",
        "count",
        "index",
        "get",
        "keys",
        "values",
        "items",
        "discard",
        "remove",
        "pop",
        "clear",
        "difference_update",
        "intersection_update",
        "join",
    }
)
# Builtins whose result holds their argument's elements.
_COPYING_BUILTINS = frozenset({"set", "frozenset", "list", "tuple", "sorted", "reversed", "iter"})
# Set methods whose result holds the receiver's and the arguments' elements.
_SET_ALGEBRA = frozenset({"union", "intersection", "difference", "symmetric_difference", "copy"})
# Methods that put their arguments into the receiver: harmless only with text constants.
_ADDING_METHODS = frozenset(
    {"add", "update", "append", "extend", "insert", "symmetric_difference_update", "setdefault", "__setitem__"}
)
# Calls that hand the module's namespace out for writing.
_NAMESPACE_CALLS = frozenset({"globals", "vars", "setattr", "exec", "eval", "__import__"})


# nodes with no fields: the context of a name (Load, Store) and the operators
_LEAVES = (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)


def _is_text(node: ast.AST) -> bool:
    """A str constant, an f-string, or a display of them: adds nothing but text."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, (ast.Set, ast.List, ast.Tuple)):
        return all(_is_text(e) for e in node.elts)
    return False


class SortSafety:
    """What the module binds, and which names its code may hand to other code: built once per
    module, asked for every place the analysis would wrap in ``sorted(...)``."""

    def __init__(self, tree: ast.Module) -> None:
        self.star_import = False
        self.namespace_written = False
        # names bound by ``import`` at module level only, and names bound any other way (or also
        # in a function): a module's name is the module only if it is only imported
        imported: set[str] = set()
        bound: set[str] = set()
        escaping: dict[str, set[int]] = {}
        functions: set[str] = set()
        # One pass, each node's children given their parent as it is taken from the stack: a
        # node's parent and grandparent (all ``_reads_only`` looks at) are known before the node
        # is visited. What it gathers is sets, so the visiting order does not matter. (Three walks
        # of the tree with ``ast.walk`` and ``iter_child_nodes`` were the most of a module's
        # ordering analysis.)
        # (node, its parent, its grandparent); the leaves that name a context or an operator
        # (Load, Add, Eq...) hold nothing and are not visited
        stack: list[tuple[ast.AST, ast.AST | None, ast.AST | None]] = [(tree, None, None)]
        while stack:
            node, parent, grandparent = stack.pop()
            for field in node._fields:
                value = getattr(node, field, None)
                if isinstance(value, ast.AST):
                    if not isinstance(value, _LEAVES):
                        stack.append((value, node, parent))
                elif isinstance(value, list):
                    for item in value:
                        if isinstance(item, ast.AST):
                            stack.append((item, node, parent))
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
                    self.star_import = True
                names = {(a.asname or a.name).split(".")[0] for a in node.names if a.name != "*"}
                (imported if isinstance(parent, ast.Module) else bound).update(names)
            elif isinstance(node, ast.Name):
                if isinstance(node.ctx, (ast.Store, ast.Del)):
                    bound.add(node.id)
                    if isinstance(parent, ast.AugAssign) and not _is_text(parent.value):
                        escaping.setdefault(node.id, set()).add(-1)
                elif not self._reads_only(node, parent, grandparent):
                    escaping.setdefault(node.id, set()).add(id(node))
                if node.id in _NAMESPACE_CALLS and isinstance(parent, ast.Call):
                    self.namespace_written = True
            elif isinstance(node, ast.arg):
                bound.add(node.arg)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                bound.add(node.name)
                functions.add(node.name)
            elif isinstance(node, (ast.Global, ast.Nonlocal)):
                bound.update(node.names)
                for rebound in node.names:  # rebound from inside a function
                    escaping.setdefault(rebound, set()).add(-1)
            elif isinstance(node, ast.ExceptHandler) and node.name:
                bound.add(node.name)
            elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
                bound.add(node.name)
            elif isinstance(node, ast.MatchMapping) and node.rest:
                bound.add(node.rest)
        self.imported = frozenset(imported - bound)
        self.bound = frozenset(bound | imported)
        # name -> the uses (ids of Name nodes; -1: a rebinding) that may hand its object to other code
        self.escaping = {name: frozenset(uses) for name, uses in escaping.items()}
        self.functions = frozenset(functions)

    @staticmethod
    def _reads_only(name: ast.Name, parent: ast.AST | None, grandparent: ast.AST | None) -> bool:
        """This use of the name (``parent`` holds it, ``grandparent`` holds that) reads the object
        without handing it to code that may keep it or add to it."""
        if isinstance(parent, (ast.For, ast.AsyncFor, ast.comprehension)):
            return parent.iter is name
        if isinstance(parent, ast.Compare):
            # x in NAMES, NAMES == other
            return True
        if isinstance(parent, ast.BinOp) and isinstance(parent.op, (ast.BitOr, ast.BitAnd, ast.Sub, ast.BitXor)):
            return True  # set algebra: a new set, whose elements the analysis follows
        if isinstance(parent, ast.Subscript):
            # TOOLS[name] reads; NAMES[key] = value writes into the object
            return parent.value is not name or isinstance(parent.ctx, ast.Load)
        if isinstance(parent, ast.Starred):
            return isinstance(grandparent, ast.Call) and _reading_call(grandparent)
        if isinstance(parent, ast.FormattedValue):
            return True
        if isinstance(parent, ast.Call):
            if name is parent.func:
                return True
            return _reading_call(parent)
        if isinstance(parent, ast.Attribute) and parent.value is name:
            call = grandparent
            if isinstance(call, ast.Call) and call.func is parent:
                if parent.attr in _READING_METHODS:
                    return True
                if parent.attr in _ADDING_METHODS:
                    return all(_is_text(a) for a in call.args) and not call.keywords
                return False  # another method: what it does with the object is out of view
            return isinstance(parent.ctx, ast.Load)  # an attribute read (NAMES.__doc__), not written
        if isinstance(parent, (ast.If, ast.While, ast.IfExp, ast.BoolOp, ast.UnaryOp, ast.Assert)):
            return True  # a truth test
        if isinstance(parent, ast.Expr):
            return True
        return False

    def builtin(self, name: str) -> bool:
        """``name`` is Python's builtin here: nothing in the module binds it, and no star import
        may."""
        return name not in self.bound and not self.star_import

    def closed(self, node: ast.AST) -> bool:
        """Nothing in the module can give what ``node`` evaluates to other kinds of elements: the
        names that hold the collection (an iterated name, the operands of set algebra, the
        receiver of ``union``, what ``set()`` or ``list()`` copies) are reached by no code but reads
        (no alias, no call that may keep them, no ``global``, no ``globals()``; the use at ``node``
        itself is the one being sorted), and the names it is called through are modules only
        imported or builtins (``os`` of ``os.listdir``, not a parameter named ``os``). What a call
        makes from its arguments (``os.listdir(folder)``, ``root.glob(pattern)``) is the call's:
        its arguments and receiver are not the collection."""
        return self._closed(node, id(node))

    def _closed(self, node: ast.AST, sorted_use: int) -> bool:
        if isinstance(node, (ast.Name, ast.Attribute, ast.Subscript)):
            root: ast.AST = node
            while isinstance(root, (ast.Attribute, ast.Subscript)):
                root = root.value
            return not isinstance(root, ast.Name) or self._unreached(root, sorted_use)
        if isinstance(node, ast.BinOp):
            return self._closed(node.left, sorted_use) and self._closed(node.right, sorted_use)
        if isinstance(node, (ast.Set, ast.List, ast.Tuple)):
            return all(self._closed(e.value if isinstance(e, ast.Starred) else e, sorted_use) for e in node.elts)
        if isinstance(node, ast.Await):
            return self._closed(node.value, sorted_use)
        if not isinstance(node, ast.Call):
            return True
        func = node.func
        if isinstance(func, ast.Name):
            if not self.builtin(func.id):
                # a function of the module or an imported one: not a parameter or a local
                return func.id in self.imported or func.id not in self.bound or func.id in self.functions
            # set(x), list(x), frozenset(x): x's elements
            return func.id not in _COPYING_BUILTINS or all(self._closed(a, sorted_use) for a in node.args)
        callee_root = _callee_root(func)
        if callee_root is None:
            return True  # Path("skills").iterdir(): what the call returns
        if callee_root.id in self.imported or self.builtin(callee_root.id):
            return True  # a module's function (os.listdir), an imported class's method
        if isinstance(func, ast.Attribute) and func.attr in _SET_ALGEBRA:
            # BASE.union(...): the receiver's elements and the arguments'
            return self._closed(func.value, sorted_use) and all(self._closed(a, sorted_use) for a in node.args)
        # another object's method (root.glob(pattern)): its result is what the analysis says it is;
        # a name bound in the module that shadows a module (a parameter named os) is not matched
        # as that module by the analysis in the first place
        return True

    def _unreached(self, name: ast.Name, sorted_use: int) -> bool:
        """Only reads reach the object ``name`` holds, as far as this module shows."""
        if self.namespace_written or self.star_import:
            return False
        return not (self.escaping.get(name.id, frozenset()) - {sorted_use})


def _reading_call(call: ast.Call) -> bool:
    """``len(x)``, ``", ".join(x)``: a builtin or a str method that only reads its arguments."""
    func = call.func
    if isinstance(func, ast.Name):
        return func.id in _READING_BUILTINS
    if isinstance(func, ast.Attribute) and func.attr == "join":
        return isinstance(func.value, ast.Constant) and isinstance(func.value.value, str)
    return False


def _callee_root(func: ast.AST) -> ast.Name | None:
    """The name a called attribute chain starts with: ``os`` of ``os.path.join``."""
    while isinstance(func, ast.Attribute):
        func = func.value
    return func if isinstance(func, ast.Name) else None


def expression_at(tree: ast.AST, span: tuple[int, int, int, int]) -> ast.expr | None:
    """The outermost expression of ``tree`` at exactly ``span`` (an ast span: line, column, end
    line, end column)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.expr) and (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset) == span:
            return node
    return None
