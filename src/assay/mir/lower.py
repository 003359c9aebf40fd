"""Checked AST → MIR. One FnLowerer per function body (lambdas get their own, linked to the
enclosing one for captures). Expressions lower to operands; control flow becomes blocks."""
from __future__ import annotations

from types import SimpleNamespace

from ..sema import interfaces
from ..sema import reflect as sreflect
from ..sema import stdsigs
from ..sema import types as T
from ..sema.resolve import Resolver, carrier_path
from ..sema.check import is_cleanup_shape
from ..source import SourceFile, Span
from ..syntax import ast
from ..syntax.parser import parse_type
from . import ir
from . import reflect as mreflect
from . import typetest
from .checks import add_checks
from .cleanup import cleanup
from .localtypes import infer_locals, operand_type

BUILTIN_ROOTS = {"baml", "assert", "testing", "int", "float", "string", "bool", "Array", "Map", "math", "null"}


class LowerError(Exception):
    def __init__(self, span: Span | None, message: str):
        super().__init__(message)
        self.span = span
        self.message = message


def free_names_in_lambdas(node) -> set[str]:
    """Every name referenced inside any lambda under `node`. A local whose name is in this
    set lives in a cell (over-approximate by name: always safe, rarely wasteful)."""
    out: set[str] = set()
    todo = [(node, False)]  # a work list, not recursion: a 5,000-term chain is 5,000 deep
    while todo:
        n, inside = todo.pop()
        t = type(n)
        if t is list or t is tuple:
            todo.extend((x, inside) for x in n)
            continue
        fields = _CHILD_FIELDS.get(t)
        if fields is None:
            if not hasattr(n, "__dataclass_fields__"):
                continue
            fields = _CHILD_FIELDS[t] = tuple(f for f in n.__dataclass_fields__ if f != "span")
        if t is ast.Lambda:
            inside = True
        elif t is ast.Let and n.type_binding:
            out.add(mreflect.TARGS)  # `let type N = …` extends `$targs`, which lambdas may read
        elif t is ast.Name:
            if inside:
                out.add(n.name)
            continue
        todo.extend((getattr(n, f), inside) for f in fields)
    return out


_CHILD_FIELDS: dict[type, tuple] = {}  # AST class → its fields other than the span
# Methods of stdlib handles that take their type arguments at run time (`Record.get<T>`,
# `Reader.rows<T>`, `Writer.write_row<T>`): called on a receiver of no static type, written type
# arguments go first, as a generic builtin function's do.
_TYPED_READERS = frozenset(("reflect.AnyClass", "reflect.class.Field"))  # their `get<T>`/`value<T>` check T
# the stdlib iterators a class literal makes: the native that builds one, from its fields
_ITER_LITS = {"baml.iter.Repeat": ("baml.iter.Repeat.new", ("value", "count")),
              "baml.iter.Range": ("baml.iter.Range.new", ("i", "max", "step")),
              "baml.iter.ArrayIterator": ("$array_iterator_at", ("arr", "idx"))}
_TYPED_STD_METHODS = frozenset("get get_at decode rows write_row write_rows".split())


class Program:
    """What lowering needs from the program: the sema index plus a registry of lowered
    lambdas. `builtins` maps a qualified builtin name to its Native (stdlib)."""

    def __init__(self, index, builtins: dict, variants: dict, builtin_classes: dict,
                 builtin_methods: frozenset = frozenset()):
        self.index = index
        self.builtins = builtins
        self.builtin_methods = builtin_methods  # "array.push", … (receiver kind . method)
        self.builtin_classes = builtin_classes
        self.variants = variants  # enum fqn -> {name: ir.VariantConst}
        self.types = Resolver(index, _std_types(builtin_classes, variants))
        # type tests read a declared `unknown` as the checker does (`unknown[]` is a recorded type)
        self.tested_types = Resolver(index, self.types.std, top=True)
        for name, text in stdsigs.STD_ALIASES.items():  # `testing.TestRunner`, … (shared `std`)
            self.types.std[name] = self.types.resolve(parse_type(SourceFile("<stdlib>", text))[0], None)
        self.reifying = mreflect.Reifying(index)  # generic functions taking `$targs`
        # a field access whose name is no class's field reads a bound method (`p.area`)
        self.field_names = {f.name for c in index.classes.values() for f in c.fields} | {
            f for c in builtin_classes.values() for f in c.fields}

    def field_type(self, cls, f) -> T.Type:
        """A class field's static type, over the class's own type parameters (a stdlib class's,
        named by its fqn: the type as sema/stdsigs.py writes it)."""
        if isinstance(cls, str):
            te, _ = parse_type(SourceFile("<stdlib>", f))
            return self.types.resolve(te, None)
        return self.types.resolve(f.type, cls.namespace, frozenset(g.name for g in cls.decl.generics))

    def lookup_type(self, namespace, path: list[str]):
        """A type name as written in `namespace`: an index item, a builtin class test, or an
        enum variant."""
        item = self.index.lookup(namespace, path)
        if item is not None:
            return item
        name = ".".join(path)
        if name in self.builtin_classes:
            return ("class", name)
        if name == "baml.panics.Panic":
            return ("panic",)
        if name in self.variants and name.startswith("baml."):  # a stdlib enum
            return ("enum", name)
        if len(path) >= 2:
            enum = self.index.lookup(namespace, path[:-1])
            if type(enum).__name__ == "EnumDef":
                return self.variants[enum.fqn].get(path[-1])
            owner = ".".join(path[:-1])
            if owner in self.variants and owner.startswith("baml."):
                return self.variants[owner].get(path[-1])
        return None


def _std_types(builtin_classes, variants) -> dict:
    """The stdlib types a type expression may name, for the resolver."""
    std = {n: T.StdT("class", n) for n in builtin_classes if not n.startswith("user.")}
    std["baml.panics.Panic"] = T.StdT("panic", "baml.panics.Panic")
    std.update({n: T.StdT("iface", n) for n in stdsigs.STD_IFACES})
    std["baml.random.Rng"] = T.StdT("stdiface", "baml.random.Rng")  # as the checker has it (reflection names it)
    std["reflect.AnyClass"] = T.StdT("anyclass", "reflect.AnyClass")  # any class instance
    std["reflect.AnyFunction"] = T.StdT("anyfunction", "reflect.AnyFunction")  # any function value
    for o in (n for n in variants if n.startswith("baml.")):  # stdlib enums
        std[o] = T.StdT("enum", o)
        std.update({f"{o}.{v}": T.StdT("variant", o, v) for v in variants[o]})
    for k in ("Type", *set(sreflect.KIND_VIEWS.values())):  # `reflect.Type` and its kind views
        std[f"reflect.{k}"] = T.StdT("reflect", f"reflect.{k}")
    return std


class FnLowerer:
    def __init__(self, prog: Program, fqn: str, namespace, decl_params: list[ast.Param],
                 body: ast.Block, owner=None, has_self=False, parent: "FnLowerer | None" = None,
                 generics=frozenset(), span=None):
        self.prog = prog
        self.fqn = fqn
        self.namespace = namespace
        self.owner = owner
        self.parent = parent
        self.generics = frozenset(generics) | (parent.generics if parent else frozenset())
        self.locals: list[ir.LocalDecl] = [ir.LocalDecl("_return")]
        self.blocks: list[ir.Block] = []
        self.scopes: list[dict[str, int]] = [{}]
        self.cells: set[str] = free_names_in_lambdas(body)
        self.lambda_ty = None  # a lambda's function type, as the checker gave it
        self.loops: list[tuple[int, int, int]] = []  # (continue block, break block, scope depth)
        # each deferred block with the bindings visible at its `defer` statement
        self.defers: list[list[tuple[ast.Block, list[dict[str, int]]]]] = [[]]
        self.unwind = None
        self.handling_depth = 0  # handler bodies (catch arms, defer pads) around the code lowered
        self.scope_unwind: list = [None]
        self.type_scopes: list = []  # each pushed scope's outer (tparams, generics)
        self.captures: list[int] = []  # parent locals captured, in capture-param order
        self.capture_map: dict[int, int] = {}  # parent local -> own local
        self.lambdas: list[ir.MirFunction] = []
        self.chain_exits: list[int] = []  # where a `?.` link whose receiver is null goes (ast.chain_end)
        self.span = span
        self.at = span  # the span of the construct being lowered
        self.pattern_origin = "match"  # the construct whose pattern tests are being lowered
        self.body = body
        names = (["self"] if has_self else []) + [p.name for p in decl_params]
        fdef = prog.index.functions.get(fqn) if parent is None else None
        # the type parameters `$targs` carries (a lambda reads its maker's)
        self.tparams: tuple = parent.tparams if parent is not None else ()
        self.class_targs = 0  # a generic class's method: its receiver's type arguments come first
        if fdef is not None and prog.reifying.reads(fdef):
            cls = mreflect.class_generics(fdef)
            self.tparams = cls + tuple(g.name for g in interfaces.call_generics(fdef))
            self.class_targs = len(cls)
            if prog.reifying(fdef):
                names.append(mreflect.OWN_TARGS if cls else mreflect.TARGS)
            self.cells.add(mreflect.TARGS)
        self.param_names = names
        self.decl_params = decl_params
        self.has_self = has_self
        self.cur = self.new_block()

    # ── infrastructure ──

    def new_block(self) -> int:
        b = ir.Block(len(self.blocks), unwind=self.unwind)
        self.blocks.append(b)
        return b.id

    def switch(self, bid: int) -> None:
        self.cur = bid

    def emit(self, dest, value, span=None) -> None:
        self.blocks[self.cur].statements.append(ir.Assign(dest, value, span or self.at))

    def terminate(self, term, span=None) -> None:
        b = self.blocks[self.cur]
        if b.terminator is None:
            b.terminator = term
            b.term_span = span or self.at

    def goto(self, target: int) -> None:
        self.terminate(ir.Goto(target))

    def terminated(self) -> bool:
        return self.blocks[self.cur].terminator is not None

    def new_local(self, name=None, span=None, cell=False) -> int:
        self.locals.append(ir.LocalDecl(name, span=span, is_cell=cell))
        return len(self.locals) - 1

    def temp(self) -> ir.Local:
        return ir.Local(self.new_local())

    def declare(self, name: str, value: ir.Operand, span=None, ty=None) -> int:
        """Bind `name` in the innermost scope to a fresh local holding `value`, typed `ty`
        (default: the value's type, widened as the checker binds it)."""
        cell = name in self.cells
        loc = self.new_local(name, span, cell)
        vt = operand_type(value, self.locals, self.prog.index)
        self.locals[loc].ty = ty if ty is not None else (T.widen(vt) if vt is not None else None)
        self.emit(ir.Local(loc), ir.MakeCell(value) if cell else ir.Use(value), span)
        self.scopes[-1][name] = loc
        return loc

    def push_scope(self) -> None:
        self.scopes.append({})
        self.defers.append([])
        self.scope_unwind.append(self.unwind)
        self.type_scopes.append((self.tparams, self.generics))  # (`let type N = …` ends with it)

    def pop_scope(self, run_defers=True) -> None:
        defers = self.defers.pop()
        outer_unwind = self.scope_unwind.pop()
        if self.unwind is not outer_unwind:
            # leave the region whose handler runs this scope's defers on error
            self.unwind = outer_unwind
            if not self.terminated():
                nxt = self.new_block()
                self.goto(nxt)
                self.switch(nxt)
        if run_defers and not self.terminated():
            # the scope's names stay visible to its defers (`defer { y = 10; }`)
            for d in reversed(defers):
                self.lower_deferred(d)
        self.scopes.pop()
        self.tparams, self.generics = self.type_scopes.pop()

    def lookup_local(self, name: str) -> int | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        if self.parent is not None:
            ploc = self.parent.lookup_local(name)
            if ploc is not None:
                return self.capture(ploc, name)
        return None

    def capture(self, ploc: int, name: str) -> int:
        if ploc in self.capture_map:
            return self.capture_map[ploc]
        if not self.parent.locals[ploc].is_cell:
            raise LowerError(self.span, f"internal: captured local `{name}` is not a cell")
        own = self.new_local(name, cell=True)
        self.locals[own].ty = self.parent.locals[ploc].ty
        self.capture_map[ploc] = own
        self.captures.append(ploc)
        return own

    def read_local(self, loc: int) -> ir.Operand:
        if self.locals[loc].is_cell:
            t = self.temp()
            self.emit(t, ir.Load(ir.CellPlace(ir.Copy(ir.Local(loc)))))
            return ir.Copy(t)
        return ir.Copy(ir.Local(loc))

    def write_local(self, loc: int, value: ir.Operand, span=None) -> None:
        if self.locals[loc].is_cell:
            self.emit(ir.CellPlace(ir.Copy(ir.Local(loc))), ir.Use(value), span)
        else:
            self.emit(ir.Local(loc), ir.Use(value), span)

    def to_temp(self, value, span=None) -> ir.Operand:
        t = self.temp()
        self.emit(t, value, span)
        return ir.Copy(t)

    def call(self, callee: ir.Callee, args, kwargs=(), span=None, want=True) -> ir.Operand:
        dest = self.temp() if want else None
        nxt = self.new_block()
        self.terminate(ir.Call(callee, list(args), list(kwargs), dest, nxt), span)
        self.switch(nxt)
        return ir.Copy(dest) if want else ir.Const(None)

    def native(self, name: str, *args, span=None) -> ir.Operand:
        return self.call(ir.Callee("native", name), args, span=span)

    def resolve(self, t: ast.TypeExpr) -> T.Type:
        return self.prog.types.resolve(t, self.namespace, self.generics)

    def resolve_tested(self, t: ast.TypeExpr) -> T.Type:
        return self.prog.tested_types.resolve(t, self.namespace, self.generics)

    def lookup_type(self, path: list[str]):
        return self.prog.lookup_type(self.namespace, path)

    def signature(self) -> tuple[list, "T.Type | None"]:
        """Parameter types and the return type (None: inferred from what is returned)."""
        ft = self.lambda_ty if isinstance(self.lambda_ty, T.FuncT) else None
        if self.parent is not None:  # a lambda: as the checker typed it in its context
            ps = [ft.params[i][1] if ft and i < len(ft.params) else self.resolve(p.type)
                  for i, p in enumerate(self.decl_params)]
            return ps, (ft.ret if ft and ft.ret is not T.UNKNOWN else None)
        fdef = self.prog.index.functions.get(self.fqn)
        if fdef is None:  # a test block
            return [], None
        ps = [self.resolve(p.type) for p in self.decl_params]
        if self.has_self:
            ps.insert(0, interfaces.self_type(self.owner))
        return ps, (self.resolve(fdef.decl.ret) if fdef.decl.ret is not None else None)

    # ── function body ──

    def lower_function(self) -> ir.MirFunction:
        params = []
        for name in self.param_names:
            params.append(self.new_local(name))
        self.n_params = len(params)
        ptys, self.locals[0].ty = self.signature()
        for loc, ty in zip(params, ptys):
            self.locals[loc].ty = ty
        # captured parameters move into cells
        for loc, name in zip(params, self.param_names):
            if name in self.cells:
                cell = self.new_local(name, cell=True)
                self.emit(ir.Local(cell), ir.MakeCell(ir.Copy(ir.Local(loc))))
                self.scopes[-1][name] = cell
            else:
                self.scopes[-1][name] = loc
        if self.class_targs:  # `$targs`: the receiver's class's, then its own (mir/reflect.py)
            own = self.lookup_local(mreflect.OWN_TARGS)
            own_v = self.read_local(own) if own is not None else ir.Const(None)
            recv = self.read_local(self.lookup_local("self"))
            if type(self.owner).__name__ == "InterfaceDef":  # a default method: the interface's
                self.declare(mreflect.TARGS, self.native(  # as the receiver's class binds them
                    "$iface_targs", recv, ir.Const(self.owner.fqn), own_v, ir.Const(self.class_targs)))
            else:
                self.declare(mreflect.TARGS, self.native("$method_targs", recv, own_v,
                                                         ir.Const(self.class_targs)))
        has_default = [False] * (1 if self.has_self else 0)
        for p in self.decl_params:
            has_default.append(p.default is not None)
            if p.default is not None:
                self.fill_default(p)
        if len(has_default) < len(self.param_names):
            has_default.append(True)  # `$targs`: absent when called through a value
        if _is_cleanup(self):
            self.cleanup_latch()
        value = self.lower_block_value(self.body)
        if not self.terminated():
            end = _value_span(self.body)
            self.emit(ir.Local(0), ir.Use(value), end)
            self.terminate(ir.Return(), end)
        for b in self.blocks:
            if b.terminator is None:
                b.terminator = ir.Unreachable()
        fn = ir.MirFunction(self.fqn, list(self.param_names), has_default, self.locals,
                            self.blocks, self.span, 0, False)
        infer_locals(fn, self.prog)  # before cleanup folds temporaries away
        cleanup(fn)
        if not any(isinstance(b.terminator, ir.Branch) for b in fn.blocks):
            for b in fn.blocks:
                for st in b.statements:
                    if isinstance(st.value, ir.BinaryOp):
                        st.value.swap_msg = False
        add_checks(fn)
        return fn

    def fill_default(self, p: ast.Param) -> None:
        loc = self.scopes[-1][p.name]
        is_omit = self.to_temp(ir.IsOmitted(self.read_local(loc)))
        fill, join = self.new_block(), self.new_block()
        self.terminate(ir.Branch(is_omit, fill, join, "default"))
        self.switch(fill)
        self.write_local(loc, self.lower_expr(p.default))
        self.goto(join)
        self.switch(join)

    # ── blocks and statements ──

    def lower_block_value(self, block: ast.Block) -> ir.Operand:
        self.push_scope()
        for s in block.stmts:
            if self.terminated():
                break
            self.lower_stmt(s)
        value = ir.Const(None)
        if block.tail is not None and not self.terminated():
            value = self.lower_expr(block.tail)
            if self.defers[-1] and isinstance(value, ir.Copy):
                value = self.to_temp(ir.Use(value))
        self.pop_scope()
        return value

    def lower_block_discard(self, block: ast.Block) -> None:
        if isinstance(block.tail, ast.If):
            block = ast.Block(block.span, block.stmts + [ast.ExprStmt(block.tail.span, block.tail)], None)
        self.lower_block_value(block)

    def lower_stmt(self, s: ast.Stmt) -> None:
        m = getattr(self, "stmt_" + type(s).__name__)
        outer, self.at = self.at, s.span  # every MIR node gets the span of what it comes from
        m(s)
        self.at = outer

    def stmt_ExprStmt(self, s: ast.ExprStmt) -> None:
        if isinstance(s.expr, ast.If):
            self.if_statement(s.expr)
        else:
            self.lower_expr(s.expr)

    def if_statement(self, e: ast.If) -> None:
        """An `if` whose value is discarded: no result local."""
        yes, no, join = self.new_block(), self.new_block(), self.new_block()
        self.branch_on(e.cond, yes, no)
        self.switch(yes)
        self.lower_block_discard(e.then)
        self.goto(join)
        self.switch(no)
        if e.else_ is not None:
            self.lower_block_discard(e.else_)
        self.goto(join)
        self.switch(join)

    def stmt_Let(self, s: ast.Let) -> None:
        if s.type_binding:
            return self.type_binding(s)
        value = self.lower_expr(s.value)
        pat = s.pattern
        if s.type is not None and s.else_block is not None:
            pat = ast.PAnd(pat.span, [ast.PType(s.type.span, s.type), pat])  # the type is tested
        elif isinstance(pat, ast.PBind) and pat.type is not None:
            pat = ast.PBind(pat.span, pat.name, None)  # a declared type is not a run-time test
        if isinstance(pat, ast.PBind) and pat.type is None:
            self.declare(pat.name, value, s.span, self.let_type(s))
            return
        if s.else_block is None:
            # irrefutable destructuring: bind without testing
            self.bind_pattern(pat, value, None)
            return
        fail = self.new_block()
        self.pattern_origin = "let else"
        self.bind_pattern(pat, value, fail, _static(s.value))
        ok = self.cur
        self.switch(fail)
        self.lower_block_discard(s.else_block)
        self.terminate(ir.Unreachable())
        self.switch(ok)

    def let_type(self, s: ast.Let) -> "T.Type | None":
        """A `let`'s static type: as annotated, else its value's, widened as the checker does."""
        te = s.type or getattr(s.pattern, "type", None)
        if te is not None:
            return self.resolve(te)
        return T.widen(s.value.ty) if s.value.ty is not None else None

    def stmt_Assign(self, s: ast.Assign) -> None:
        t = s.target
        if isinstance(t, ast.Name):
            loc = self.lookup_local(t.name)
            if loc is None:
                raise LowerError(t.span, f"cannot assign to `{t.name}`")
            if s.op is None:
                self.write_local(loc, self.lower_expr(s.value), s.span)
            else:
                cur = self.read_local(loc)
                rhs = self.lower_expr(s.value)
                self.write_local(loc, self.binop(s.op, cur, rhs, t, s.value, s.span), s.span)
            return
        if not isinstance(t, (ast.Field, ast.Index)):
            raise LowerError(t.span, "invalid assignment target")
        if getattr(t, "chained", False):  # `c?.n = v`: nothing happens when a `?.` receiver is null
            self.chain(s, self.assign_place)
            return
        self.assign_place(s)

    def assign_place(self, s: ast.Assign) -> ir.Operand:
        """`o.f = v`, `o[i] = v` (and compound forms); inside an optional chain's exit."""
        t = s.target
        base = self.lower_expr(t.obj)
        if t.optional:
            base = self.null_guard(base, lambda o: o)
        if isinstance(t, ast.Field):
            place = ir.FieldPlace(base, t.name)
        else:
            place = ir.IndexPlace(base, self.lower_expr(t.index), _coll_kind(t.obj))
        if s.op is None:
            value = self.lower_expr(s.value)
        else:
            cur = self.to_temp(ir.Load(place), t.span)
            rhs = self.lower_expr(s.value)
            value = self.binop(s.op, cur, rhs, t, s.value, s.span)
        self.emit(place, ir.Use(value), s.span)
        return ir.Const(None)

    def stmt_While(self, s: ast.While) -> None:
        head, body, exit_ = self.new_block(), self.new_block(), self.new_block()
        self.goto(head)
        self.switch(head)
        self.branch_on(s.cond, body, exit_, "while")
        self.switch(body)
        self.loop_body(s.body, head, exit_)
        self.switch(exit_)

    def loop_body(self, body: ast.Block, cont: int, brk: int) -> None:
        self.loops.append((cont, brk, len(self.scopes)))
        self.lower_block_discard(body)
        self.loops.pop()
        self.goto(cont)

    def stmt_WhileLet(self, s: ast.WhileLet) -> None:
        head, exit_ = self.new_block(), self.new_block()
        self.goto(head)
        self.switch(head)
        self.push_scope()
        value = self.lower_expr(s.value)
        self.pattern_origin = "while let"
        self.bind_pattern(s.pattern, value, exit_, _static(s.value))
        self.loop_body(s.body, head, exit_)
        self.pop_scope(run_defers=False)
        self.switch(exit_)

    def stmt_ForIn(self, s: ast.ForIn) -> None:
        self.for_in(s.pattern, s.iterable, lambda head, exit_: self.loop_body(s.body, head, exit_))

    def for_in(self, pattern, iterable: ast.Expr, body) -> None:
        """`for (let p in xs)`: an index loop over the array (live: it sees pushes and pops
        made by the body) or over a string's characters; `body(head, exit)` lowers the body."""
        items = self.lower_expr(iterable)
        if _static_kind(iterable) != "array":
            items = self.native("$iter_items", items, span=iterable.span)
        elif isinstance(items, ir.Copy) and self.locals[items.place.index].name is not None:
            # the iterable is evaluated once: reassigning the variable does not change the loop
            items = self.to_temp(ir.Use(items))
        i = self.temp()
        self.emit(i, ir.Use(ir.Const(0)))
        head, loop, exit_ = self.new_block(), self.new_block(), self.new_block()
        self.goto(head)
        self.switch(head)
        n = self.to_temp(ir.Len(items))
        self.terminate(ir.Branch(self.to_temp(ir.BinaryOp("<", ir.Copy(i), n, "int")), loop, exit_, "for"))
        self.switch(loop)
        self.push_scope()
        # 0 <= i < len was just tested: the element read needs no bounds check
        item = self.to_temp(ir.Load(ir.IndexPlace(items, ir.Copy(i), "array_in_bounds")))
        self.bind_pattern(pattern, item, None)
        self.emit(i, ir.BinaryOp("+", ir.Copy(i), ir.Const(1), "int"))
        body(head, exit_)
        self.pop_scope(run_defers=False)
        self.goto(head)
        self.switch(exit_)

    def stmt_ForC(self, s: ast.ForC) -> None:
        self.push_scope()
        if s.init is not None:
            self.lower_stmt(s.init)
        loop_vars = dict(self.scopes[-1])
        head, body, cont, exit_ = self.new_block(), self.new_block(), self.new_block(), self.new_block()
        self.goto(head)
        self.switch(head)
        if s.cond is not None:
            self.branch_on(s.cond, body, exit_, "for")
        else:
            self.goto(body)
        self.switch(body)
        self.loop_body(s.body, cont, exit_)
        self.switch(cont)
        # a fresh cell per iteration, so closures keep the value of their own iteration
        for name, loc in loop_vars.items():
            if self.locals[loc].is_cell:
                v = self.read_local(loc)
                self.emit(ir.Local(loc), ir.MakeCell(v))
        if s.update is not None:
            self.lower_stmt(s.update)
        self.goto(head)
        self.switch(exit_)
        self.pop_scope()

    def exit_scopes_to(self, depth: int) -> None:
        """Run the defers of every scope deeper than `depth` (break/continue/return)."""
        for i in range(len(self.defers) - 1, depth - 1, -1):
            for d in reversed(self.defers[i]):
                self.lower_deferred(d)

    def lower_deferred(self, d: tuple[ast.Block, list[dict[str, int]]]) -> None:
        """A deferred block at an exit: its names are those visible at its `defer` statement,
        not the later shadows in scope at the exit."""
        body, seen = d
        saved, self.scopes = self.scopes, [dict(sc) for sc in seen]
        try:
            self.lower_block_discard(body)
        finally:
            self.scopes = saved

    def stmt_Break(self, s: ast.Break) -> None:
        self.leave_loop(s, "break")

    def stmt_Continue(self, s: ast.Continue) -> None:
        self.leave_loop(s, "continue")

    def leave_loop(self, s: ast.Stmt, how: str) -> None:
        """`break` / `continue`: run the defers of the scopes left, jump, go on unreachable."""
        if not self.loops:
            raise LowerError(s.span, f"`{how}` outside of a loop")
        cont, brk, depth = self.loops[-1]
        self.exit_scopes_to(depth)
        self.goto(brk if how == "break" else cont)
        self.switch(self.new_block())

    def cleanup_latch(self) -> None:
        """A class's `cleanup(self) -> void` runs its body at most once per instance (explicit
        calls and `defer`s alike): the first call sets the instance's latch, later ones return."""
        done = self.native("$cleanup_begin", self.read_local(self.lookup_local("self")))
        ret, body = self.new_block(), self.new_block()
        self.terminate(ir.Branch(done, ret, body, "if"))
        self.switch(ret)
        self.emit(ir.Local(0), ir.Use(ir.Const(None)))
        self.terminate(ir.Return(), self.span)
        self.switch(body)

    def stmt_Return(self, s: ast.Return) -> None:
        value = self.lower_expr(s.value) if s.value is not None else ir.Const(None)
        if any(self.defers):
            value = self.to_temp(ir.Use(value))
            self.exit_scopes_to(1)
        self.emit(ir.Local(0), ir.Use(value))
        self.terminate(ir.Return(), s.span)
        self.switch(self.new_block())

    def stmt_Throw(self, s: ast.Throw) -> None:
        value = self.lower_expr(s.value)
        self.terminate(ir.Throw(value), s.span)
        self.switch(self.new_block())

    def stmt_Defer(self, s: ast.Defer) -> None:
        self.defers[-1].append((s.body, [dict(sc) for sc in self.scopes]))
        # an error leaving the rest of this scope runs the deferred block, then goes on
        handler_err = self.new_local()
        handler = self.new_block()
        saved = self.unwind
        self.unwind = (handler, handler_err)
        rest = self.new_block()
        self.goto(rest)
        self.switch(handler)
        self.blocks[handler].unwind = saved
        self.unwind = saved
        depth = self.handling_enter(ir.Copy(ir.Local(handler_err)))
        self.lower_block_discard(s.body)
        if depth is not None:
            self.handling_depth = depth
        self.terminate(ir.Rethrow(ir.Copy(ir.Local(handler_err))))
        self.unwind = (handler, handler_err)
        self.switch(rest)

    def handling_enter(self, err: ir.Operand) -> int | None:
        """A handler body starts (catch arms, a defer's unwind pad): in programs reading error
        contexts, errors thrown until it ends are caused by `err` (bex.errctx). Returns the
        body's lexical depth, for handling_exit."""
        if not self.prog.index.error_contexts:
            return None
        depth = self.handling_depth
        self.native("$handling_enter", ir.Const(depth), self.native("$error_context", err))
        self.handling_depth += 1
        return depth

    def handling_exit(self, depth: int | None) -> None:
        if depth is None:
            return
        self.handling_depth = depth
        if not self.terminated():
            self.native("$handling_exit", ir.Const(depth))

    # ── expressions ──

    def lower_expr(self, e: ast.Expr) -> ir.Operand:
        m = getattr(self, "expr_" + type(e).__name__, None)
        if m is None:
            raise LowerError(e.span, f"{_describe(e)} is not supported yet")
        outer, self.at = self.at, e.span
        v = self.chain(e, m) if ast.chain_end(e) else m(e)
        if getattr(e, "records", False) and type(e) is ast.Call and _fresh_container(e):  # records its type
            rec = _recorded_result(e.ty)
            if rec is not None:
                v = self.native("$record_fresh", v, ir.Const(repr(rec)), span=e.span)
        self.at = outer
        return self.typed(v, e.ty) if isinstance(v, ir.Copy) and e.ty is not None else v

    def typed(self, v: ir.Copy, ty) -> ir.Copy:
        """Record the checker's type of a read: a temporary's type, or a named local's type at
        this read when it differs (narrowed: `a` in `a + 1` under `a != null` is `int`)."""
        loc = self.locals[v.place.index]
        if loc.name is None and loc.ty is None:
            loc.ty = ty
        elif loc.ty != ty:
            return ir.Copy(v.place, ty)
        return v

    def expr_IntLit(self, e):
        return ir.Const(e.value)

    def expr_FloatLit(self, e):
        return ir.Const(float(e.value))

    def expr_StrLit(self, e):
        return ir.Const(e.value)

    def expr_BoolLit(self, e):
        return ir.Const(bool(e.value))

    def expr_NullLit(self, e):
        return ir.Const(None)

    def expr_BigIntLit(self, e):
        return ir.Const(ir.BigIntConst(e.value))

    def expr_BytesLit(self, e):
        # a uint8array is mutable: every evaluation makes a fresh one
        return self.native("$bytes", ir.Const(bytes(e.value)))

    def expr_BlockExpr(self, e):
        return self.lower_block_value(e.block)

    def expr_Diverge(self, e):
        """`return`/`throw`/`break`/`continue` as an expression: the statement, then a value
        no one reads (lowering goes on in an unreachable block)."""
        self.lower_stmt(e.stmt)
        return ir.Const(None)

    def expr_LlmCall(self, e):
        """An LLM function's body: one call with callee kind "llm" (name: the function's fqn) whose
        arguments are its parameters (self first for a method); the runtime renders the prompt
        and asks the configured LLM client (an extension may substitute the call)."""
        args = [self.read_local(self.lookup_local(name)) for name in self.param_names]
        return self.call(ir.Callee("llm", self.fqn), args, span=e.span)

    def expr_Name(self, e: ast.Name):
        loc = self.lookup_local(e.name)
        if loc is not None:
            return self.read_local(loc)
        return self.path_value([e.name], e)

    def path_value(self, path: list[str], e) -> ir.Operand:
        """A dotted path that names no local: a function, enum variant, or builtin."""
        if getattr(e, "unbound_method", None) is not None:  # `P.to_string`: calls x.to_string() on x
            return self.native("$unbound_method", ir.Const(e.unbound_method), span=e.span)
        item = self.prog.index.lookup(self.namespace, path)
        kind = type(item).__name__
        if kind == "FunctionDef" and getattr(item.decl, "is_global", False):  # `const NAME = …`
            return self.native("$global", ir.Const(item.fqn), span=e.span)
        for k in range(len(path) - 1, 1, -1):  # `root.ns.CFG.name`: a global's fields
            if self.prog.index.lookup(self.namespace, path[:k]) is not None:
                if not self.is_global(path[:k]):
                    break
                v = self.path_value(path[:k], e)
                for name in path[k:]:
                    v = self.to_temp(ir.Load(ir.FieldPlace(v, name)), e.span)
                return v
        if kind == "FunctionDef":
            f = ir.Const(ir.FnRef(_target(item)))
            if (getattr(e, "type_args", None) or getattr(e, "spec_targs", None)) and \
                    interfaces.call_generics(item):  # `id<int>`, or as the checker specialized it: it keeps them
                n = len(item.decl.params) if self.prog.reifying(item) else -1  # -1: for its signature only
                return self.native("$specialize", f, ir.Const(n), self.targs_for(item, e), span=e.span)
            return f
        if item is None and len(path) >= 2:
            enum = self.prog.index.lookup(self.namespace, path[:-1])
            if type(enum).__name__ == "EnumDef":
                v = self.prog.variants[enum.fqn].get(path[-1])
                if v is not None:
                    return ir.Const(v)
            if type(enum).__name__ == "ClassDef" and path[-1] in enum.methods:
                return ir.Const(ir.FnRef(enum.methods[path[-1]].fqn))
        name = ".".join(path)
        if name in self.prog.builtins:
            f = ir.Const(ir.FnRef(name, builtin=True))
            if getattr(e, "type_args", None):  # `string.from<int>`: it keeps them
                targs = [self.resolve(ta) for ta in e.type_args]
                descs = tuple(sreflect.describe(t, self.tparams) for t in targs)
                own = self.targs() if sreflect.has_tvar(descs) else ir.Const(None)
                typed = [self.type_arg_const(t, e) for t in targs[:self.prog.builtins[name].type_params]]
                return self.native("$builtin_at", f, ir.Const(name), self.native(
                    "$bind_targs", ir.Const(repr(descs)), own), *typed, span=e.span)
            return f
        found = self.prog.lookup_type(self.namespace, path)
        if isinstance(found, ir.VariantConst):
            return ir.Const(found)
        if path[0] == "reflect" and item is None:
            raise LowerError(e.span, f"`{name}` is not supported yet")
        if path[0] == "env" and len(path) >= 2 and item is None:  # `env.NAME`: a reference, read later
            v = self.to_temp(ir.ClassAgg("baml.env.Ref", [ir.Const(path[1])]), e.span)
            for name in path[2:]:  # `env.NAME.name`
                v = self.to_temp(ir.Load(ir.FieldPlace(v, name)), e.span)
            return v
        raise LowerError(e.span, f"unresolved name: {name}")

    def dotted(self, e: ast.Expr) -> list[str] | None:
        """The path `a.b.c` when the chain starts at a name that is not a local."""
        parts = []
        while isinstance(e, ast.Field) and not e.optional:
            parts.append(e.name)
            e = e.obj
        if isinstance(e, ast.Name) and self.lookup_local(e.name) is None and not self.is_global(e.name):
            parts.append(e.name)
            return carrier_path(parts[::-1])
        return None

    def is_global(self, name) -> bool:
        item = self.prog.index.lookup(self.namespace, [name] if isinstance(name, str) else name)
        return type(item).__name__ == "FunctionDef" and getattr(item.decl, "is_global", False)

    def expr_Upcast(self, e: ast.Upcast):
        return self.lower_expr(e.obj)  # the value itself: only its static type changes

    def expr_Field(self, e: ast.Field):
        if getattr(e, "default_field", None) is not None:  # `default.f` in an implementation
            this = self.read_local(self.lookup_local("self"))
            return self.to_temp(ir.Load(ir.FieldPlace(this, e.default_field)), e.span)
        path = self.dotted(e)
        if path is not None:
            return self.path_value(path, e)
        obj = self.lower_expr(e.obj)
        dispatch = getattr(e, "dispatch", None)
        target = getattr(e, "direct", None)
        fdef = target
        if dispatch is not None and not dispatch[1].startswith("field:"):
            fdef = dispatch[0].methods[dispatch[1]]
            target, dispatch = interfaces.dispatcher_fqn(*dispatch), None
        elif target is not None:
            target = _target(target)
        if target is not None and getattr(e, "type_args", None) and fdef.decl.generics and not e.optional:
            # `v.echo<string>` through an interface: the dispatcher (or the block's method)
            # bound to v and specialized, so the implementation gets its type arguments
            n = len(fdef.decl.params) if interfaces.DISPATCH in target or self.prog.reifying(fdef) else -1
            bound = self.native("$bind_fn", obj, ir.Const(ir.FnRef(target)))
            return self.native("$specialize", bound, ir.Const(n), self.targs_for(fdef, e), span=e.span)
        if target is not None:  # a method as a value: an instance's own, else the interface's
            bind = lambda o: self.native("$bind_method_or", o, ir.Const(e.name), ir.Const(ir.FnRef(target)))  # noqa: E731
            return self.null_guard(obj, bind) if e.optional else bind(obj)
        if dispatch is not None:  # an interface's field: read through its implementation
            fqn = interfaces.dispatcher_fqn(*dispatch)
            if e.optional:
                return self.null_guard(obj, lambda o: self.call(ir.Callee("fn", fqn), [o], span=e.span))
            return self.call(ir.Callee("fn", fqn), [obj], span=e.span)
        cls = _static_class(e.obj)
        m = cls.methods.get(e.name) if cls is not None and getattr(e, "type_args", None) else None
        if m is not None and m.decl.generics and not e.optional:  # `v.m<int>`: it keeps them
            bound = self.to_temp(ir.BoundMethod(obj, e.name), e.span)
            n = len(m.decl.params) if self.prog.reifying(m) else -1
            return self.native("$specialize", bound, ir.Const(n), self.targs_for(m, e), span=e.span)
        if getattr(e, "iter_field", False):  # `range.max`: a stdlib iterator's state
            state = lambda o: self.native("$iter_field", o, ir.Const(e.name), span=e.span)  # noqa: E731
            return self.null_guard(obj, state) if e.optional else state(obj)
        if e.name in self.prog.field_names and not _fieldless(e.obj, e.name):
            read = lambda o: ir.Load(ir.FieldPlace(o, e.name))  # noqa: E731
        else:
            read = lambda o: ir.BoundMethod(o, e.name)  # noqa: E731
        if e.optional:
            return self.null_guard(obj, lambda o: self.to_temp(read(o), e.span))
        return self.to_temp(read(obj), e.span)

    def chain(self, e: ast.Expr, lower) -> ir.Operand:
        """A postfix chain with `?.` links: null as soon as one link's receiver is null."""
        result = self.temp()
        exit_, join = self.new_block(), self.new_block()
        self.chain_exits.append(exit_)
        try:
            v = lower(e)
        finally:
            self.chain_exits.pop()
        self.emit(result, ir.Use(v))
        self.goto(join)
        self.switch(exit_)
        self.emit(result, ir.Use(ir.Const(None)))
        self.goto(join)
        self.switch(join)
        return ir.Copy(result)

    def null_guard(self, obj: ir.Operand, then) -> ir.Operand:
        """A `?.` link: to its chain's exit when `obj` is null, else `then(obj)`."""
        is_null = self.to_temp(ir.BinaryOp("==", obj, ir.Const(None)))
        go_on = self.new_block()
        self.terminate(ir.Branch(is_null, self.chain_exits[-1], go_on, "?."))
        self.switch(go_on)
        return then(obj)

    def expr_Index(self, e: ast.Index):
        obj = self.lower_expr(e.obj)
        if e.optional:
            return self.null_guard(obj, lambda o: self.to_temp(ir.Load(ir.IndexPlace(o, self.lower_expr(e.index))), e.span))
        idx = self.lower_expr(e.index)
        return self.to_temp(ir.Load(ir.IndexPlace(obj, idx, _coll_kind(e.obj))), e.span)

    def expr_ArrayLit(self, e):
        items = [self.lower_expr(x) for x in e.items]
        arr = self.to_temp(ir.ArrayAgg(items, _recorded_elem(e)), e.span)
        desc = self.reified(e.ty.elem) if getattr(e, "reify_elem", False) and isinstance(e.ty, T.Arr) else None
        if desc is not None:  # `[]` as a `T[]`: it records T's type argument
            return self.native("$reified_list", arr, ir.Const(repr(desc)), self.targs(), span=e.span)
        return arr

    def expr_MapLit(self, e):
        entries = [(self.lower_expr(k), self.lower_expr(v)) for k, v in e.entries]
        return self.to_temp(ir.MapAgg(entries, _recorded_entry(e)), e.span)

    def expr_ClassLit(self, e: ast.ClassLit):
        cls = self.prog.index.lookup(self.namespace, e.type.path)
        made = _ITER_LITS.get(".".join(e.type.path)) if cls is None else None
        if made is not None and {n for n, _ in e.entries} == set(made[1]):
            # `baml.iter.Repeat<T> { value: v, count: n }`, `Range { i, max, step }`,
            # `ArrayIterator<T> { arr, idx }`: the stdlib's iterators, made from their state
            given = {n: self.lower_expr(v) for n, v in e.entries}
            return self.call(ir.Callee("native", made[0]), [given[n] for n in made[1]], span=e.span)
        if cls is None and ".".join(e.type.path) == "baml.iter.Done" and not e.entries:
            return self.to_temp(ir.ClassAgg("baml.iter.Done", []), e.span)  # an iterator's end
        fqn = ".".join(e.type.path)
        if cls is None and fqn.startswith(("baml.regex.", "baml.spawn.Plan", "testing.")) \
                and fqn in self.prog.builtin_classes:  # `Match { … }`, `baml.spawn.Plan { ...plan, root: true }`,
            return self.builtin_class_lit(fqn, e)  # `testing.FlatTestReport { ...r, passed_ms: [] }`
        if cls is None:
            std = self.std_class_lit(e)
            if std is not None:
                return std
        if cls is None and all(n is not None for n, _ in e.entries):
            std = self.resolve(e.type)
            if isinstance(std, T.StdT) and std.kind == "class":  # `baml.json.DecodeError { … }`
                names = tuple(n for n, _ in e.entries)
                return self.native("$std_new", ir.Const(std.name), ir.Const(names),
                                   *(self.lower_expr(v) for _, v in e.entries), span=e.span)
        if type(cls).__name__ != "ClassDef":
            raise LowerError(e.type.span, f"unresolved class: {'.'.join(e.type.path)}")
        given: dict[str, ir.Operand] = {}
        spread = None
        for name, value in e.entries:
            v = self.lower_expr(value)
            if name is None:
                spread = v
                given = {}  # later explicit fields override the spread, earlier ones do not
            else:
                given[name] = v if isinstance(v, ir.Const) else self.to_temp(ir.Use(v))
        fields = []
        for f in cls.fields:
            if f.name in given:
                fields.append(given[f.name])
            elif spread is not None:
                fields.append(self.to_temp(ir.Load(ir.FieldPlace(spread, f.name))))
            else:
                fields.append(ir.Const(None))
        obj = self.to_temp(ir.ClassAgg(cls.fqn, fields), e.span)
        args = _static_type_args(cls, e, self.prog.types) if cls.decl.generics else ()
        if any(self.reified(a) for a in args):
            # this function's type arguments, recorded as the instance's at run time
            descs = tuple(sreflect.describe(a, self.tparams) for a in args)
            obj = self.native("$with_reified_targs", obj, ir.Const(repr(descs)), self.targs(), span=e.span)
        elif cls.decl.generics:
            # a generic instance records its type arguments (`Box<string>` is not `Box<int>`)
            targs = _type_args(cls, e, self.prog.field_type)
            obj = self.native("$with_targs", obj, ir.Const(repr(targs)), span=e.span)
        return obj

    def builtin_class_lit(self, fqn: str, e: ast.ClassLit) -> ir.Operand:
        """A stdlib class's literal, fields in order: those given, else the spread's, else null."""
        given: dict[str, ir.Operand] = {}
        spread = None
        for name, value in e.entries:
            v = self.to_temp(ir.Use(self.lower_expr(value)))
            if name is None:
                spread, given = v, {}  # later explicit fields override the spread
            else:
                given[name] = v
        fields = [given[f] if f in given else self.to_temp(ir.Load(ir.FieldPlace(spread, f)))
                  if spread is not None else ir.Const(None) for f in self.prog.builtin_classes[fqn].fields]
        return self.to_temp(ir.ClassAgg(fqn, fields), e.span)

    def std_class_lit(self, e: ast.ClassLit):
        """`baml.toml.Table { items: m }`, `baml.csv.ReaderOptions { has_header: false }`: a
        stdlib class with public fields only, some given (the others null), none spread; else
        None."""
        name = ".".join(e.type.path)
        info = self.prog.builtin_classes.get(name)
        client = name in stdsigs.CLIENT_DATA_CLASSES  # `openai.ResponsesClient { ...Base, model: "x" }`
        if info is None or not (name.startswith("baml.") or client) or any(f.startswith("_") for f in info.fields):
            return None
        names = [n for n, _ in e.entries]
        if None in names and not (client and names.count(None) == 1) or not set(names) - {None} <= set(info.fields) \
                or len(set(names)) != len(names):
            return None
        given, spread = {}, None
        for n, v in e.entries:  # evaluated in source order
            op = self.lower_expr(v)
            if n is None:
                spread = self.to_temp(ir.Use(op), e.span)
            else:
                given[n] = op if isinstance(op, ir.Const) else self.to_temp(ir.Use(op))
        fields = [given[f] if f in given else ir.Const(None) if spread is None else
                  self.to_temp(ir.Load(ir.FieldPlace(spread, f)), e.span) for f in info.fields]
        return self.to_temp(ir.ClassAgg(name, fields), e.span)

    def expr_Template(self, e: ast.Template):
        if e.tagged:  # collected, not rendered: a `baml.TaggedString`
            b = self.native("$tagged_new")
            self.push_scope()
            self.template_parts(e.parts, None, b)
            self.pop_scope()
            return self.native("$tagged_end", b, span=e.span)
        if all(isinstance(p, str) or (isinstance(p, ast.Expr) and not (
                isinstance(p, ast.BlockExpr) and p.block.tail is None)) for p in e.parts):
            parts = [ir.Const(p) if isinstance(p, str) else self.rendered(p) for p in e.parts if p != ""]
            if not parts:
                return ir.Const("")
            return parts[0] if len(parts) == 1 else self.to_temp(ir.Concat(parts), e.span)
        acc = self.temp()
        self.emit(acc, ir.Use(ir.Const("")))
        self.push_scope()
        self.template_parts(e.parts, acc)
        self.pop_scope()
        return ir.Copy(acc)

    def rendered(self, e: ast.Expr) -> ir.Operand:
        """`${e}`: the value as a string (string.from, or cheaper when the type is known)."""
        v = self.lower_expr(e)
        kind = _static_kind(e)
        if kind == "string":
            return v
        return self.native("$str_int" if kind == "int" else "string.from", v)

    def template_parts(self, parts, acc: ir.Local | None, tagged=None) -> None:
        """Render `parts` onto `acc`, or (a tagged template) collect them into `tagged`."""
        for p in parts:
            if isinstance(p, str):
                if p and tagged is not None:
                    self.native("$tagged_text", tagged, ir.Const(p))
                elif p:
                    self.emit(acc, ir.BinaryOp("+", ir.Copy(acc), ir.Const(p), "string"))
            elif isinstance(p, ast.Let):
                self.stmt_Let(p)
            elif isinstance(p, ast.TFor):
                self.for_in(p.pattern, p.iterable, lambda head, exit_, p=p: self.template_parts(p.parts, acc, tagged))
            elif isinstance(p, ast.TForC):
                self.push_scope()
                if p.init is not None:
                    self.lower_stmt(p.init)
                head, body, exit_ = self.new_block(), self.new_block(), self.new_block()
                self.goto(head)
                self.switch(head)
                if p.cond is not None:
                    self.branch_on(p.cond, body, exit_, "for")
                else:
                    self.goto(body)
                self.switch(body)
                self.push_scope()
                self.template_parts(p.parts, acc, tagged)
                self.pop_scope()
                if p.update is not None:
                    self.lower_stmt(p.update)
                self.goto(head)
                self.switch(exit_)
                self.pop_scope()
            elif isinstance(p, ast.BlockExpr) and p.block.tail is None:
                self.lower_block_discard(p.block)
            elif isinstance(p, ast.TIf):
                join = self.new_block()
                for cond, body in p.branches:
                    yes, no = self.new_block(), self.new_block()
                    self.branch_on(cond, yes, no)
                    self.switch(yes)
                    self.push_scope()
                    self.template_parts(body, acc, tagged)
                    self.pop_scope()
                    self.goto(join)
                    self.switch(no)
                if p.else_parts is not None:
                    self.push_scope()
                    self.template_parts(p.else_parts, acc, tagged)
                    self.pop_scope()
                self.goto(join)
                self.switch(join)
            elif tagged is not None:
                self.native("$tagged_value", tagged, self.lower_expr(p))
            else:
                self.emit(acc, ir.BinaryOp("+", ir.Copy(acc), self.rendered(p), "string"))

    def expr_Unary(self, e: ast.Unary):
        v = self.lower_expr(e.operand)
        if e.op == "-" and isinstance(v, ir.Const) and type(v.value) in (int, float) and not isinstance(v.value, bool):
            if v.value != -(1 << 62) or type(v.value) is float:
                return ir.Const(-v.value)
        return self.to_temp(ir.UnaryOp(e.op, v), e.span)

    def binop(self, op, left, right, le, re, span) -> ir.Operand:
        return self.to_temp(ir.BinaryOp(op, left, right, _op_kind(le, re)), span)

    def expr_Binary(self, e: ast.Binary):
        """Long operator chains are lowered without recursion: the left spine of a
        left-associative chain (`x + x + …`, `a && b || c`, mixed) is walked in a loop, each
        level lowered as `lower_expr` would (its span current, its type recorded), and a `??`
        chain (right-associative) along its right spine."""
        if e.op == "??":
            return self.coalesce_chain(e)
        if e.op in ("==", "!=") and _disjoint(e.left, e.right):
            return ir.Const(e.op == "!=")  # folded: its operands never run
        spine = [e]
        x = e.left
        while type(x) is ast.Binary and x.op != "??" and not (x.op in ("==", "!=") and _disjoint(x.left, x.right)):
            spine.append(x)
            x = x.left
        if len(spine) == 1:
            return self.binary_after_left(e, None)
        # a short-circuit level makes its result and blocks before its left side is lowered:
        # made outermost first, as recursion would, so locals and blocks number alike
        made = {id(node): (self.temp(), self.new_block(), self.new_block(), self.new_block())
                for node in spine if node.op in ("&&", "||")}
        left = self.lower_expr(x)
        for node in reversed(spine[1:]):
            outer, self.at = self.at, node.span
            left = self.binary_after_left(node, left, made.get(id(node)))
            self.at = outer
            if isinstance(left, ir.Copy) and node.ty is not None:
                left = self.typed(left, node.ty)
        return self.binary_after_left(e, left, made.get(id(e)))

    def coalesce_chain(self, e: ast.Binary) -> ir.Operand:
        """`a ?? b ?? c` (= a ?? (b ?? c)): every level's test in a loop, then the joins."""
        frames = []
        node = e
        while True:
            outer, self.at = self.at, node.span
            left = self.lower_expr(node.left)
            result = self.temp()
            is_null = self.to_temp(ir.BinaryOp("==", left, ir.Const(None)))
            yes, no, join = self.new_block(), self.new_block(), self.new_block()
            self.terminate(ir.Branch(is_null, yes, no, "??"))
            self.switch(no)
            self.emit(result, ir.Use(left))
            self.goto(join)
            self.switch(yes)
            frames.append((node, outer, result, join))
            nxt = node.right
            if type(nxt) is not ast.Binary or nxt.op != "??":
                break
            node = nxt
        value = self.lower_expr(node.right)
        for node, outer, result, join in reversed(frames):
            self.emit(result, ir.Use(value))
            self.goto(join)
            self.switch(join)
            self.at = outer
            value = ir.Copy(result)
            if node is not e and node.ty is not None:
                value = self.typed(value, node.ty)
        return value

    def binary_after_left(self, e: ast.Binary, left, made=None):
        """`e` (not `??`) with its left operand already lowered to `left` (None: lower it);
        `made`: a short-circuit level's result local and blocks, made already."""
        if e.op in ("&&", "||"):
            if made is None:
                made = (self.temp(), self.new_block(), self.new_block(), self.new_block())
            result, yes, no, join = made
            self.branch_on(e.left, yes, no, e.op, left)
            short_is_true = e.op == "||"
            self.switch(yes if short_is_true else no)
            self.emit(result, ir.Use(ir.Const(short_is_true)))
            self.goto(join)
            self.switch(no if short_is_true else yes)
            self.emit(result, ir.Truthy(self.lower_expr(e.right)))
            self.goto(join)
            self.switch(join)
            return ir.Copy(result)
        if e.op in ("==", "!=") and _disjoint(e.left, e.right):
            # the real checker folds `==` of types that cannot overlap: operands never run
            return ir.Const(e.op == "!=")
        if left is None:
            left = self.lower_expr(e.left)
        if isinstance(left, ir.Copy) and not _simple(e.right):
            left = self.to_temp(ir.Use(left))  # the right side may reassign the local
        right = self.lower_expr(e.right)
        result = self.binop(e.op, left, right, e.left, e.right, e.span)
        if e.op in ("+", "*") and isinstance(e.left, ast.Name) and isinstance(e.right, ast.Call):
            self.blocks[self.cur].statements[-1].value.swap_msg = True
        return result

    def branch_on(self, cond: ast.Expr, then: int, else_: int, origin: str = "if", v=None) -> None:
        """Branch on `cond` (`v`: its value, when already lowered)."""
        if v is None:
            v = self.lower_expr(cond)
        if not _is_bool(cond):
            v = self.to_temp(ir.Truthy(v))
        self.terminate(ir.Branch(v, then, else_, origin), cond.span)

    def expr_If(self, e: ast.If):
        result = self.temp()
        yes, no, join = self.new_block(), self.new_block(), self.new_block()
        self.branch_on(e.cond, yes, no)
        self.switch(yes)
        self.emit(result, ir.Use(self.lower_block_value(e.then)), _value_span(e.then))
        self.goto(join)
        self.switch(no)
        self.else_value(result, e.else_)
        self.goto(join)
        self.switch(join)
        return ir.Copy(result)

    def else_value(self, result: ir.Local, block: "ast.Block | None") -> None:
        """The value of an `else` (null when there is none) into `result`."""
        if block is None:
            self.emit(result, ir.Use(ir.Const(None)))
        else:
            self.emit(result, ir.Use(self.lower_block_value(block)), _value_span(block))

    def expr_IfLet(self, e: ast.IfLet):
        result = self.temp()
        no, join = self.new_block(), self.new_block()
        value = self.lower_expr(e.value)
        self.push_scope()
        self.pattern_origin = "if let"
        self.bind_pattern(e.pattern, value, no, _static(e.value))
        self.emit(result, ir.Use(self.lower_block_value(e.then)), _value_span(e.then))
        self.pop_scope()
        self.goto(join)
        self.switch(no)
        self.else_value(result, e.else_)
        self.goto(join)
        self.switch(join)
        return ir.Copy(result)

    def expr_Is(self, e: ast.Is):
        value = self.lower_expr(e.expr)
        result = self.temp()
        no, join = self.new_block(), self.new_block()
        self.push_scope()
        self.pattern_origin = "is"
        self.bind_pattern(e.pattern, value, no, _static(e.expr))
        self.pop_scope(run_defers=False)
        self.emit(result, ir.Use(ir.Const(True)))
        self.goto(join)
        self.switch(no)
        self.emit(result, ir.Use(ir.Const(False)))
        self.goto(join)
        self.switch(join)
        return ir.Copy(result)

    def expr_Match(self, e: ast.Match):
        value = self.lower_expr(e.scrutinee)
        if isinstance(value, ir.Copy):
            value = self.to_temp(ir.Use(value))
        return self.match_arms(value, e.arms, lambda: self.terminate(ir.Unreachable(), e.span),
                               static=_static(e.scrutinee))

    def match_arms(self, value: ir.Operand, arms, on_no_match, origin="match",
                   panics_pass=False, static=None) -> ir.Operand:
        """Try the arms in order; `on_no_match` ends the path where none matched. With
        `panics_pass` (a `catch`), a wildcard or untyped binding arm lets a panic go on to the
        next arm: only arms that name a panic's type catch it."""
        result = self.temp()
        join = self.new_block()
        for arm in arms:
            nxt = self.new_block()
            self.push_scope()
            if panics_pass and _catches_anything(arm.pattern):
                ok = self.new_block()
                is_panic = self.to_temp(ir.IsType(value, ("panic",)))
                self.terminate(ir.Branch(is_panic, nxt, ok, "catch"))
                self.switch(ok)
            self.pattern_origin = origin
            self.at = arm.pattern.span  # an arm's tests are located at its pattern
            self.bind_pattern(arm.pattern, value, nxt, static)
            if arm.guard is not None:
                ok = self.new_block()
                self.branch_on(arm.guard, ok, nxt, "guard")
                self.switch(ok)
            self.emit(result, ir.Use(self.lower_expr(arm.body)), arm.body.span)
            self.pop_scope()
            self.goto(join)
            self.switch(nxt)
        on_no_match()
        self.switch(join)
        return ir.Copy(result)

    def expr_Catch(self, e: ast.Catch):
        err = self.new_local(e.binding)
        handler = self.new_block()
        saved = self.unwind
        result = self.temp()
        join = self.new_block()
        self.unwind = (handler, err)
        body = self.new_block()
        self.goto(body)
        self.switch(body)
        self.emit(result, ir.Use(self.lower_expr(e.expr)))
        self.unwind = saved
        self.goto(join)
        # the handler: match the error against the arms; no match → rethrow
        self.switch(handler)
        self.push_scope()
        bound = self.declare(e.binding, ir.Copy(ir.Local(err)))
        errv = self.read_local(bound)
        if e.ctx is not None:
            self.declare(e.ctx, self.native("$error_context", errv))
        depth = self.handling_enter(errv)
        r = self.match_arms(errv, e.arms, lambda: self.terminate(ir.Rethrow(errv)), "catch",
                            panics_pass=e.kind != "catch_all_panics")
        self.emit(result, ir.Use(r))
        self.handling_exit(depth)
        self.goto(join)
        self.pop_scope()
        self.switch(join)
        return ir.Copy(result)

    def expr_Spawn(self, e: ast.Spawn):
        if e.modifiers:  # `__spawn(Plan.new(body).with(m1).with(m2))`: each evaluated, then applied
            plan = self.to_temp(ir.Use(self.native("$spawn_plan", self.expr_Lambda(e.fn), span=e.span)))
            for m in e.modifiers:
                plan = self.to_temp(ir.Use(self.native("$spawn_apply", plan, self.lower_expr(m), span=m.span)))
            return self.native("$spawn_start", plan, span=e.span)
        return self.native("$spawn", self.expr_Lambda(e.fn), span=e.span)

    def expr_Await(self, e: ast.Await):
        return self.native("$await", self.lower_expr(e.value), span=e.span)

    def lambda_fqn(self, e: ast.Lambda) -> str:
        """A lambda is named by where it starts in the source, nested in its enclosing
        function's name (`user.f.<lambda@3:9>`, `user.f.<lambda@3:9>.<lambda@4:13>`): the
        name does not depend on the order in which functions are lowered."""
        line, col = e.span.line_col
        base = fqn = f"{self.fqn}.<lambda@{line}:{col}>"
        taken = {f.fqn for f in self.lambdas}
        n = 1
        while fqn in taken:  # one lambda lowered twice (no construct does this today)
            n += 1
            fqn = f"{base}#{n}"
        return fqn

    def expr_Lambda(self, e: ast.Lambda):
        fqn = self.lambda_fqn(e)
        child = FnLowerer(self.prog, fqn, self.namespace, e.params, e.body, self.owner,
                          parent=self, span=e.span)
        child.lambda_ty = e.ty
        fn = child.lower_function()
        n = len(child.captures)
        # captured cells come first: rename so params = captures + declared params
        fn = _prepend_captures(fn, child, n)
        fn.is_lambda = True
        self.lambdas.append(fn)
        self.lambdas.extend(child.lambdas)
        f = self.to_temp(ir.MakeClosure(fqn, [ir.Local(c) for c in child.captures]), e.span)
        if self.tparams and mreflect.lambda_reifies(e, self.tparams) and self.lookup_local(mreflect.TARGS) is not None:
            return self.native("$fn_targs", f, self.targs(), span=e.span)  # its signature's
        return f

    # ── calls ──

    def expr_Call(self, e: ast.Call):
        f = e.func
        if isinstance(f, ast.Field) and getattr(f, "direct", None) is not None and f.direct.owner is not None \
                and isinstance(f.obj, ast.Name) and f.obj.name == "default":  # `default.m()`
            return self.call_user(f.direct, e, [self.read_local(self.lookup_local("self"))])
        if isinstance(f, ast.Field) and not e.optional:
            path = self.dotted(f)
            if path is not None and not any(self.is_global(path[:k]) for k in range(2, len(path))):
                return self.call_path(path, e)  # (`root.ns.CFG.m()` is a method of a global's value)
            recv = self.lower_expr(f.obj)
            if f.optional:
                return self.null_guard(recv, lambda r: self.method_call(r, f.name, e))
            return self.method_call(recv, f.name, e)
        if isinstance(f, ast.Name) and self.lookup_local(f.name) is None:
            return self.call_path([f.name], e)
        fv = self.lower_expr(f)
        pos, kw = self.lower_args(e.args)
        if e.optional:
            return self.null_guard(fv, lambda v: self.call(ir.Callee("indirect"), [v] + pos, kw, e.span))
        return self.call(ir.Callee("indirect"), [fv] + pos, kw, e.span)

    def lower_args(self, args: list[ast.Arg]):
        pos, kw = [], []
        for k, a in enumerate(args):
            v = self.lower_expr(a.value)
            if isinstance(v, ir.Copy) and not all(_simple(b.value) for b in args[k + 1:]):
                v = self.to_temp(ir.Use(v))  # a later argument may reassign the local
            (pos.append(v) if a.name is None else kw.append((a.name, v)))
        return pos, kw

    def method_call(self, recv: ir.Operand, name: str, e: ast.Call) -> ir.Operand:
        if isinstance(recv, ir.Copy) and not all(_simple(a.value) for a in e.args):
            recv = self.to_temp(ir.Use(recv))
        recv_expr = e.func.obj
        rt = getattr(recv_expr, "ty", None)
        if rt is not None and sreflect.is_reflect(rt) and sreflect.member(rt, name) is None:
            owner = "reflect.TypeKind" if isinstance(rt, T.Union) else T.show(rt)
            raise LowerError(e.func.span, f"`{owner}.{name}` is not supported yet")
        if (rt == sreflect.PACKAGE and name in ("get_function", "find_function") or rt == sreflect.SESSION
                and name == "eval") and len(e.type_args) == 1 or rt == sreflect.PACKAGE and name in (
                "get_global", "find_global") and len(e.type_args) <= 1:
            # `get_function<F>`, `eval<T>`, `get_global<T>`: checked against the type (a global's
            # read without one is not)
            want = sreflect.describe(self.resolve(e.type_args[0])) if e.type_args else ("prim", "unknown")
            pos, _ = self.lower_args(e.args)
            owner = "Package" if rt == sreflect.PACKAGE else "Session"
            return self.native(f"$reflect.{owner}.{name}", recv, ir.Const(repr(want)), *pos, span=e.span)
        if isinstance(rt, T.StdT) and rt.name.startswith("baml.time.") and name in stdsigs.CLOCK_READERS:
            raise LowerError(e.func.span, f"`{rt.name}.{name}` is not supported yet: it reads the clock")
        if isinstance(rt, T.StdT) and (rt.name, name) in stdsigs.UNBUILT_METHODS:
            raise LowerError(e.func.span, f"`{rt.name}.{name}` is not supported yet")
        if rt == T.StdT("class", "baml.env.Ref") and name in ("get", "get_or_panic", "or"):
            raise LowerError(e.func.span, f"`baml.env.Ref.{name}` is not supported yet: it reads the environment")
        if isinstance(rt, T.StdT) and (rt == T.CLIENT or rt.name in stdsigs.CLIENT_CLASSES) \
                and name in stdsigs.CLIENT_SENDS:  # the LLM layer's, not a concrete run's
            raise LowerError(e.func.span, f"`{rt.name}.{name}` is not supported yet: it renders or sends an LLM request")
        cls = _static_class(recv_expr)
        if cls is not None and name in cls.methods and not e.func.optional:
            return self.call_user(cls.methods[name], e, [recv])
        dispatch = getattr(e.func, "dispatch", None)
        if dispatch is not None:  # through an interface: on the receiver's run-time type
            iface, _, args = dispatch
            return self.call_user(iface.methods[name], e, [recv], interfaces.dispatcher_fqn(iface, name, args))
        direct = getattr(e.func, "direct", None)
        if direct is not None:  # a builtin type's method from an `implements … for` block
            return self.call_user(direct, e, [recv])
        if (rt in (None, T.UNKNOWN) or getattr(rt, "name", None) in _TYPED_READERS) and name in mreflect.TYPED_READS \
                and len(e.type_args) == 1 and not e.func.optional:
            # `v.get<int>("a")` on a `reflect.AnyClass`: the read is checked against T at run time
            want = mreflect.describe_written(e.type_args[0], self.prog.types, self.prog.index, self.namespace,
                                             self.generics, ())
            pos, _ = self.lower_args(e.args)
            return self.native("$typed_read", recv, ir.Const(name), ir.Const(repr(want)),
                               *self.type_arg_consts(1, e), *pos, span=e.span)
        kind = _static_kind(recv_expr)
        if kind == "array" and name == "sum" and _elem_is_float(recv_expr):
            return self.call(ir.Callee("native", "baml._sum_float"), [recv], span=e.span)
        pos, kw = self.lower_args(e.args)
        targs = len(e.type_args) or len(getattr(e, "std_targs", None) or ())  # written, else inferred
        if targs and not kind and name in _TYPED_STD_METHODS:  # `rec.get<int>("age")`
            pos = self.type_arg_consts(targs, e) + pos
        key = f"method:{kind}.{name}"
        if kind and not kw and key in self.prog.builtin_methods:
            return self.call(ir.Callee("native", key), [recv] + pos, span=e.span)
        return self.call(ir.Callee("method", name), [recv] + pos, kw, e.span)

    def call_path(self, path: list[str], e: ast.Call) -> ir.Operand:
        if getattr(e, "as_method", None) is not None:  # `baml.time.PlainDate.year(d)`: `d.year()`
            return self.lower_expr(e.as_method)
        if getattr(e, "unbound_method", None) is not None and e.args:  # `P.to_string(p)`: p.to_string()
            pos, kw = self.lower_args(e.args)
            return self.call(ir.Callee("method", e.unbound_method), pos, kw, e.span)
        item = self.prog.index.lookup(self.namespace, path)
        if path[0] == "reflect" and item is None:
            return self.reflect_call(path, e)
        if type(item).__name__ == "FunctionDef" and item.decl.has_self and item.owner is not None and e.args:
            recv = self.lower_expr(e.args[0].value)  # `I.m(x, …)`: the receiver passed first
            return self.call_user(item, ast.Call(e.span, e.func, e.args[1:], e.type_args), [recv],
                                  _target(item))
        if type(item).__name__ == "FunctionDef" and getattr(item.decl, "is_global", False):
            fv = self.path_value(path, e.func)  # a global holding a function: `F(1)`
            pos, kw = self.lower_args(e.args)
            return self.call(ir.Callee("indirect"), [fv] + pos, kw, e.span)
        if type(item).__name__ == "FunctionDef":
            return self.call_user(item, e)
        if item is None and len(path) >= 2:
            owner = self.prog.index.lookup(self.namespace, path[:-1])
            if type(owner).__name__ == "ClassDef" and path[-1] in owner.methods:
                return self.call_user(owner.methods[path[-1]], e)
        name = ".".join(path)
        native = self.prog.builtins.get(name)
        if native is not None:
            pos, kw = self.lower_args(e.args)
            args = self.bind_native(native, pos, kw, e)
            if native.type_params:  # a generic builtin that receives its type arguments
                args = self.type_arg_consts(native.type_params, e) + args
            return self.call(ir.Callee("native", name), args, span=e.span)
        if item is not None:
            raise LowerError(e.func.span, f"`{name}` is not a function")
        if path[:2] == ["baml", "time"] and path[-1] in stdsigs.CLOCK_READERS:
            raise LowerError(e.func.span, f"`{name}` is not supported yet: it reads the clock")
        if path[0] in stdsigs.CLIENT_PACKAGES or path[:2] == ["ai", "clients"]:  # a provider's other items
            raise LowerError(e.func.span, f"`{name}` is not supported yet")
        if path[0] == "env" and len(path) == 3 and item is None:  # `env.HOME.get()`
            raise LowerError(e.func.span, f"`baml.env.Ref.{path[2]}` is not supported yet: it reads the environment")
        # a local function value reached by a path, e.g. `obj.f(x)` where obj is unknown
        raise LowerError(e.func.span, f"unresolved name: {name}")

    def type_arg_consts(self, n: int, e: ast.Call) -> list:
        """The run-time forms (ir.TypeArg) of a builtin call's `n` type arguments: as written, else
        as the checker inferred them (`std_targs`); a type parameter `$targs`
        carries by its type argument; any other type variable or a missing one is unknown."""
        targs = getattr(e, "std_targs", None)
        if targs is None or len(e.type_args) == n:  # as written: stdlib types are known here only
            targs = [self.resolve(ta) for ta in e.type_args]
        targs = (list(targs) + [T.UNKNOWN] * n)[:n]
        return [self.type_arg_const(t, e) for t in targs]

    def type_arg_const(self, t: T.Type, e: ast.Call) -> ir.Operand:
        desc = self.reified(t)
        if desc is not None:  # this function's type argument, made a TypeArg at run time
            return self.native("$reified_type_arg", ir.Const(repr(desc)), self.targs(), span=e.span)
        return ir.Const(ir.TypeArg(*typetest.type_arg(t, self.prog.field_type)))

    def reflect_call(self, path: list[str], e: ast.Call) -> ir.Operand:
        """`reflect.Type.of<T>()`, `reflect.Type.of_value(v)` (mir/reflect.py)."""
        name = ".".join(path)
        if name == "reflect.Type.of" and len(e.type_args) == 1 and not e.args:
            t = self.resolve(e.type_args[0])
            desc = mreflect.describe_written(e.type_args[0], self.prog.types, self.prog.index, self.namespace,
                                             self.generics, self.tparams)
            if mreflect.unsupported_type(desc, e.type_args[0]):
                raise LowerError(e.type_args[0].span, "reflecting this stdlib type is not supported yet")
            targs: ir.Operand = ir.Const(None)
            if sreflect.has_tvar(desc):
                targs = self.targs()
            elif T.has_tvar(t):
                raise LowerError(e.type_args[0].span, "`reflect.Type.of` of a method's or a class's type "
                                 "parameter is not supported yet")
            return self.native("$type_of", ir.Const(repr(desc)), targs, span=e.span)
        if name == "reflect.Type.of_value" and len(e.args) == 1 and e.args[0].name in (None, "value"):
            return self.native("$type_of_value", self.lower_expr(e.args[0].value), span=e.span)
        if name == "reflect.Class.extends" and len(e.type_args) == 1:  # its interface's descriptor first
            want = mreflect.describe_written(e.type_args[0], self.prog.types, self.prog.index, self.namespace,
                                             self.generics, ())
            args = self.bind_native(SimpleNamespace(param_names=["name", "fields"]), *self.lower_args(e.args), e)
            return self.native("$reflect.Class.extends", ir.Const(repr(want)), *args, span=e.span)
        if name == "reflect.Class.get_field":  # T's descriptor first (as the checker inferred it)
            want = (mreflect.describe_written(e.type_args[0], self.prog.types, self.prog.index, self.namespace,
                                              self.generics, ()) if e.type_args else
                    sreflect.describe(getattr(e, "std_targs", [T.UNKNOWN])[0]))
            args = self.bind_native(SimpleNamespace(param_names=["value", "name"]), *self.lower_args(e.args), e)
            return self.native("$reflect.Class.get_field", ir.Const(repr(want)), *args, span=e.span)
        if name == "reflect.Interface.implementation" and len(e.type_args) == 1 and not e.args:
            want = mreflect.describe_written(e.type_args[0], self.prog.types, self.prog.index, self.namespace,
                                             self.generics, ())
            return self.native("$reflect.Interface.implementation", ir.Const(repr(want)), span=e.span)
        params = mreflect.CONSTRUCTORS.get(name)
        if params is not None and not e.type_args:
            args = self.bind_native(SimpleNamespace(param_names=list(params)), *self.lower_args(e.args), e)
            return self.native("$" + name, *args, span=e.span)
        raise LowerError(e.func.span, f"`{name}` is not supported yet")

    def targs_for(self, fdef, e: ast.Call) -> ir.Operand:
        """The `$targs` a call to reifying `fdef` passes (mir/reflect.py)."""
        gens = [g.name for g in interfaces.call_generics(fdef)]
        if getattr(e, "spec_targs", None):  # a function value the checker specialized
            env = dict(zip(gens, e.spec_targs))
        elif e.type_args:
            env = {g: self.resolve(ta) for g, ta in zip(gens, e.type_args)}
        else:
            ps = [self.prog.types.resolve(p.type, fdef.namespace, frozenset(gens)) for p in fdef.decl.params]
            env = mreflect.infer_targs(gens, ps, [a.value for a in e.args if a.name is None])
            expected = getattr(e, "expected_ty", None)
            if expected is not None and len(env) < len(gens):  # `let x: int = decode_as(s)`
                ret = self.prog.types.resolve(fdef.decl.ret, fdef.namespace, frozenset(gens))
                mreflect.bind_expected(ret, expected, env, set(gens))
        descs = tuple(sreflect.describe(env.get(g, T.UNKNOWN), self.tparams) for g in gens)
        own: ir.Operand = self.targs() if sreflect.has_tvar(descs) else ir.Const(None)
        return self.native("$bind_targs", ir.Const(repr(descs)), own, span=e.span)

    def type_binding(self, s: ast.Let) -> None:
        """`let type N = t;`: N becomes one more type parameter `$targs` carries, its
        descriptor the type value's, for the rest of the scope (a new `$targs` local)."""
        t = self.lower_expr(s.value)
        name = s.pattern.name
        k = len(self.tparams)
        self.tparams = self.tparams + (name,)
        self.generics = self.generics | {name}
        self.declare(mreflect.TARGS, self.native("$bind_type", self.targs(), ir.Const(k), t, span=s.span))

    def targs(self) -> ir.Operand:
        """This function's `$targs` (None where it has none: its type arguments unknown)."""
        loc = self.lookup_local(mreflect.TARGS)
        return self.read_local(loc) if loc is not None else ir.Const(None)

    def bind_native(self, native, pos, kw, e):
        if not kw:
            return pos
        names = native.param_names
        args = list(pos) + [None] * (len(names) - len(pos))
        for k, v in kw:
            if k not in names:
                raise LowerError(e.span, f"unknown argument `{k}`")
            args[names.index(k)] = v
        while args and args[-1] is None:
            args.pop()
        return [a if a is not None else ir.Const(ir.OMITTED) for a in args]

    def call_user(self, fdef, e: ast.Call, receiver=(), fqn: str | None = None) -> ir.Operand:
        decl = fdef.decl
        params = decl.params
        pos, kw = self.lower_args(e.args)
        if len(pos) > len(params):
            raise LowerError(e.span, f"expected {len(params)} arguments, found {len(pos)}")
        args: list[ir.Operand | None] = list(pos) + [None] * (len(params) - len(pos))
        for k, v in kw:
            idx = next((i for i, p in enumerate(params) if p.name == k), None)
            if idx is None:
                raise LowerError(e.span, f"unknown argument `{k}`")
            args[idx] = v
        for i, a in enumerate(args):
            if a is None:
                if params[i].default is None:
                    raise LowerError(e.span, f"missing argument `{params[i].name}`")
                args[i] = ir.Const(ir.OMITTED)
        if self.prog.reifying(fdef) if fqn is None else (decl.generics and interfaces.DISPATCH in fqn):
            args.append(self.targs_for(fdef, e))  # a dispatcher passes them on (mir/dispatch.py)
        return self.call(ir.Callee("fn", fqn or fdef.fqn), list(receiver) + args, span=e.span)

    # ── patterns ──

    def bind_pattern(self, pat, value: ir.Operand, fail: int | None, static=None) -> None:
        """Test `value` (of checker type `static`, None if unknown) against `pat` (jumping to
        `fail` on mismatch; fail None = the pattern is irrefutable) and bind its names in the
        current scope."""
        if isinstance(pat, ast.PWild):
            return
        if isinstance(pat, ast.PAnd):
            for sub in pat.pats:
                self.bind_pattern(sub, value, fail, static)
            return
        if isinstance(pat, ast.PBind):
            if pat.type is not None and fail is not None:
                self.test(self.type_test(value, self.resolve_tested(pat.type), static), fail)
            self.declare(pat.name, value, pat.span, self.resolve(pat.type) if pat.type is not None else None)
            return
        if isinstance(pat, ast.PLit):
            lit = ir.BigIntConst(int(pat.value)) if type(pat.value) is ast.BigLit else pat.value
            self.test(ir.BinaryOp("==", value, ir.Const(lit)), fail)
            return
        if isinstance(pat, ast.PType):
            self.test(self.type_test(value, self.resolve_tested(pat.type), static), fail)
            return
        if isinstance(pat, ast.POr):
            ok = self.new_block()
            names = _pattern_names(pat.alts[0])
            slots = {n: self.new_local(n, cell=n in self.cells) for n in names}
            for alt in pat.alts:
                nxt = self.new_block()
                self.push_scope()
                self.bind_pattern(alt, value, nxt, static)
                for n, slot in slots.items():
                    loc = self.scopes[-1].get(n)
                    if loc is not None:
                        self.emit(ir.Local(slot), ir.Use(ir.Copy(ir.Local(loc))))
                self.pop_scope(run_defers=False)
                self.goto(ok)
                self.switch(nxt)
            if fail is not None:
                self.goto(fail)
            else:
                self.terminate(ir.Unreachable())
            self.switch(ok)
            self.scopes[-1].update(slots)
            return
        if isinstance(pat, ast.PClass):
            if fail is not None:
                self.test(self.type_test(value, self.resolve_tested(pat.type), static), fail)
            iface = self.resolve(pat.type)
            for fname, sub in pat.fields:
                if isinstance(iface, T.IfaceT):  # an interface's field: through its implementation
                    owner = next(i for i in iface.iface.ancestors() if i.field(fname) is not None)
                    args = iface.args if owner is iface.iface else ()
                    fv = self.call(ir.Callee("fn", interfaces.dispatcher_fqn(owner, "field:" + fname, args)), [value])
                else:
                    fv = self.to_temp(ir.Load(ir.FieldPlace(value, fname)))
                if sub is None:
                    self.declare(fname, fv, pat.span)
                else:
                    self.bind_pattern(sub, fv, fail)
            return
        if isinstance(pat, ast.PArray):
            elem = static.elem if isinstance(static, T.Arr) else None
            if fail is not None:
                self.test(ir.IsType(value, ("array", ("any",))), fail)
            n = self.to_temp(ir.Len(value))
            fixed = len(pat.items)
            if pat.rest_index is None:
                self.test(ir.BinaryOp("==", n, ir.Const(fixed), "int"), fail)
            else:
                self.test(ir.BinaryOp(">=", n, ir.Const(fixed), "int"), fail)
            for i, sub in enumerate(pat.items):
                if pat.rest_index is not None and i >= pat.rest_index:
                    idx = self.to_temp(ir.BinaryOp("-", n, ir.Const(fixed - i), "int"))
                else:
                    idx = ir.Const(i)
                item = self.to_temp(ir.Load(ir.IndexPlace(value, idx, "array")))
                self.bind_pattern(sub, item, fail, elem)
            if pat.rest_index is not None and (pat.rest_name or pat.rest_pattern is not None):
                end = self.to_temp(ir.BinaryOp("-", n, ir.Const(fixed - pat.rest_index), "int"))
                rest = self.call(ir.Callee("native", "$array_slice"), [value, ir.Const(pat.rest_index), end])
                if pat.rest_pattern is not None:
                    self.bind_pattern(pat.rest_pattern, rest, fail)
                else:
                    self.declare(pat.rest_name, rest, pat.span)
            return
        raise LowerError(getattr(pat, "span", None), "unsupported pattern")

    def type_test(self, value: ir.Operand, t: T.Type, static):
        """`value is t`: a type parameter of this function's by its type argument
        (`$is_reified`, mir/reflect.py), any other type by its compiled test."""
        desc = self.reified(t)
        if desc is not None:
            return ir.Use(self.native("$is_reified", value, ir.Const(repr(desc)), self.targs()))
        return ir.IsType(value, typetest.against(t, static))

    def reified(self, t: T.Type) -> tuple | None:
        """The descriptor of `t` when it mentions a type parameter `$targs` carries."""
        if not self.tparams or not T.has_tvar(t):
            return None
        desc = sreflect.describe(t, self.tparams)
        return desc if sreflect.has_tvar(desc) else None

    def test(self, rvalue, fail: int | None) -> None:
        if fail is None:
            return
        ok = self.new_block()
        self.terminate(ir.Branch(self.to_temp(rvalue), ok, fail, self.pattern_origin))
        self.switch(ok)


_SIMPLE = (ast.Name, ast.IntLit, ast.FloatLit, ast.StrLit, ast.BoolLit, ast.NullLit)


def _target(fdef) -> str:
    """What a path naming `fdef` calls: an interface's method dispatches on its receiver."""
    owner = fdef.owner
    if owner is not None and type(owner).__name__ == "InterfaceDef":
        return interfaces.dispatcher_fqn(owner, fdef.name)
    return fdef.fqn


def _simple(e) -> bool:
    """An expression that cannot assign a local of the enclosing function (a work list, not
    recursion: operands may be long chains)."""
    todo = [e]
    while todo:
        e = todo.pop()
        if isinstance(e, _SIMPLE):
            continue
        if isinstance(e, ast.Field):
            todo.append(e.obj)
        elif isinstance(e, ast.Index):
            todo += (e.obj, e.index)
        elif isinstance(e, ast.Binary):
            todo += (e.left, e.right)
        elif isinstance(e, ast.Unary):
            todo.append(e.operand)
        elif isinstance(e, ast.Call):
            todo.append(e.func)
            todo += (a.value for a in e.args)
        else:
            return False
    return True


def _kinds(t):
    """The run-time kinds a static type admits, or None when it is not fully known."""
    out = set()
    for m in (t.members if isinstance(t, T.Union) else (t,)):
        if isinstance(m, T.Lit):
            m = m.base
        if isinstance(m, T.Prim):
            if m.name in ("unknown", "never"):
                return None
            out.add("null" if m.name == "void" else m.name)
        elif isinstance(m, T.Arr):
            out.add("array")
        elif isinstance(m, T.MapT):
            out.add("map")
        elif isinstance(m, T.ClassT):
            out.add(("class", m.cls.fqn))
        elif isinstance(m, T.EnumT):
            out.add(("enum", m.enum.fqn))
        elif isinstance(m, T.FuncT):
            out.add("function")
        else:
            return None
    return out


def _disjoint(a, b) -> bool:
    if a.ty is None or b.ty is None:
        return False
    ka, kb = _kinds(a.ty), _kinds(b.ty)
    return ka is not None and kb is not None and not (ka & kb)


def _value_span(block: ast.Block):
    """Where a block's value comes from: its tail expression, else its closing brace."""
    if block.tail is not None:
        return block.tail.span
    return Span(block.span.file, max(block.span.start, block.span.end - 1), block.span.end)


def _describe(e) -> str:
    return {"BigIntLit": "bigint"}.get(type(e).__name__, type(e).__name__)


def _prepend_captures(fn: ir.MirFunction, child: FnLowerer, n: int) -> ir.MirFunction:
    """Make the capture cells the lambda's leading parameters: locals are renumbered so
    that parameters stay at 1..arity."""
    if n == 0:
        return fn
    cap_locals = [child.capture_map[p] for p in child.captures]
    order = [0] + cap_locals + [i for i in range(1, len(fn.locals)) if i not in cap_locals]
    remap = {old: new for new, old in enumerate(order)}
    fn.locals = [fn.locals[i] for i in order]
    _renumber(fn, remap)
    fn.params = [fn.locals[i + 1].name or f"cap{i}" for i in range(n)] + fn.params
    fn.has_default = [False] * n + fn.has_default
    fn.n_captures = n
    return fn


def _renumber(fn: ir.MirFunction, remap: dict[int, int]) -> None:
    """Rename every local by `remap`: operands (through ir.map_operands), destinations and
    catch handlers' error locals."""
    def op(o):
        return ir.Copy(ir.Local(remap[o.place.index]), o.ty) if isinstance(o, ir.Copy) else o

    def node(n):
        n = ir.map_operands(n, op)
        if isinstance(n, ir.Assign) and isinstance(n.dest, ir.Local):
            n.dest = ir.Local(remap[n.dest.index])
        elif isinstance(n, ir.Call) and n.dest is not None:
            n.dest = ir.Local(remap[n.dest.index])
        return n

    for b in fn.blocks:
        b.statements = [node(s) for s in b.statements]
        b.terminator = node(b.terminator)
        if b.unwind is not None:
            b.unwind = (b.unwind[0], remap[b.unwind[1]])


def _recorded_elem(e: ast.ArrayLit) -> tuple | None:
    """The element type an array literal records: where its value reaches a place whose type
    does not tell it (`records`: set by the checker, Checker.escape); None where no test can
    see it (a plain list: its elements decide), or the type is not known."""
    t = e.ty
    if not getattr(e, "records", False) or not isinstance(t, T.Arr) or T.has_tvar(t) or _untold(t):
        return None
    return typetest.of(sreflect.engine_order(t.elem), True)


def _recorded_entry(e: ast.MapLit) -> tuple | None:
    """The (key, value) types a map literal records, as `_recorded_elem`."""
    t = e.ty
    if not getattr(e, "records", False) or not isinstance(t, T.MapT) or T.has_tvar(t) or _untold(t):
        return None
    return typetest.of(sreflect.engine_order(t.key), True), typetest.of(sreflect.engine_order(t.val), True)


# builtin methods that build a new array or map (recording its type copies nothing shared)
_FRESH_METHODS = frozenset("map filter flat_map slice concat reverse split keys values filled generate".split())


def _fresh_container(e: ast.Call) -> bool:
    """`xs.map(f)`, `s.split(",")`, `baml.Array.filled(n, v)`: a builtin's new array or map."""
    f = e.func
    if not isinstance(f, ast.Field) or f.name not in _FRESH_METHODS or e.optional:
        return False
    recv = getattr(f.obj, "ty", None)
    return isinstance(recv, (T.Arr, T.MapT)) or recv is T.STRING or (
        isinstance(f.obj, ast.Field) and f.obj.name == "Array" and isinstance(f.obj.obj, ast.Name)
        and f.obj.obj.name == "baml")


def _recorded_result(t) -> tuple | None:
    """What a new array or map built by a builtin (`xs.map(f)`) records: its static type's."""
    if isinstance(t, T.Arr) and not T.has_tvar(t) and not _untold(t):
        return typetest.of(sreflect.engine_order(t.elem), True)
    if isinstance(t, T.MapT) and not T.has_tvar(t) and not _untold(t):
        return typetest.of(sreflect.engine_order(t.key), True), typetest.of(sreflect.engine_order(t.val), True)
    return None


def _untold(t: T.Type) -> bool:
    """Whether the checker does not know all of `t` (T.has_unknown, but a declared `unknown`
    it knows: the literal records it)."""
    if t is T.TOP:
        return False
    if isinstance(t, T.Arr):
        return _untold(t.elem)
    if isinstance(t, T.MapT):
        return _untold(t.key) or _untold(t.val)
    if isinstance(t, T.Union):
        return any(_untold(m) for m in t.members)
    if isinstance(t, T.ClassT):
        return any(_untold(a) for a in t.args)
    return T.has_unknown(t)


def _static(e: ast.Expr):
    """What the checker knows of `e`'s type: a variable's declared type where its value's
    type is not tracked."""
    return e.ty if e.ty is not None else getattr(e, "declared", None)


def _pattern_names(pat) -> list[str]:
    if isinstance(pat, ast.PBind):
        return [pat.name]
    if isinstance(pat, ast.POr):
        return _pattern_names(pat.alts[0])
    if isinstance(pat, ast.PClass):
        out = []
        for f, sub in pat.fields:
            out += [f] if sub is None else _pattern_names(sub)
        return out
    if isinstance(pat, ast.PArray):
        out = []
        for sub in pat.items:
            out += _pattern_names(sub)
        if pat.rest_pattern is not None:
            return out + _pattern_names(pat.rest_pattern)
        return out + ([pat.rest_name] if pat.rest_name else [])
    if isinstance(pat, ast.PAnd):
        return [n for sub in pat.pats for n in _pattern_names(sub)]
    return []


def _is_cleanup(lw) -> bool:
    """The magic `cleanup` method: a class's `function cleanup(self) -> void` (no other
    parameter, at most `throws never`)."""
    o = lw.owner
    if lw.parent is not None or o is None or type(o).__name__ != "ClassDef" or not lw.has_self:
        return False
    fdef = lw.prog.index.functions.get(lw.fqn)
    return fdef is not None and fdef.decl.name == "cleanup" and is_cleanup_shape(fdef.decl)


def _catches_anything(pat) -> bool:
    """`_`, `let x`, or a chain of them (`let x: let y`, `let x: _`): an arm a panic passes."""
    if isinstance(pat, ast.PAnd):
        return all(map(_catches_anything, pat.pats))
    return isinstance(pat, ast.PWild) or (isinstance(pat, ast.PBind) and pat.type is None)


def _static_kind(e) -> str:
    """'int', 'float', 'string', 'bool', 'array', 'map' when the checker proved it, else ''."""
    if isinstance(e, ast.IntLit):
        return "int"
    if isinstance(e, ast.FloatLit):
        return "float"
    if isinstance(e, (ast.StrLit, ast.Template)):
        return "string"
    ty = getattr(e, "ty", None)
    if ty is None:
        return ""
    if isinstance(ty, T.Lit):
        ty = ty.base
    if isinstance(ty, T.Prim):
        return {"int": "int", "float": "float", "string": "string", "bool": "bool"}.get(ty.name, "")
    if isinstance(ty, T.Arr):
        return "array"
    if isinstance(ty, T.MapT):
        return "map"
    return ""


def _static_class(e):
    ty = getattr(e, "ty", None)
    if ty is None:
        return None
    return ty.cls if isinstance(ty, T.ClassT) else None


def _elem_is_float(e) -> bool:
    ty = getattr(e, "ty", None)
    return isinstance(ty, T.Arr) and T.is_float(ty.elem)


def _op_kind(le, re) -> str:
    a, b = _static_kind(le), _static_kind(re)
    return a if a == b and a in ("int", "float", "string", "bool") else ""


def _static_type_args(cls, e: ast.ClassLit, types=None) -> tuple:
    """A generic class literal's type arguments as the checker has them, else the static type
    of the value given for the field declared as that parameter, else what the given fields'
    static types bind it to through their declared types (`items: T[]` given a `U[]`);
    unknown if none."""
    args = e.ty.args if isinstance(e.ty, T.ClassT) else ()
    given = dict((n, v) for n, v in e.entries if n is not None)
    out = []
    env = None
    for i, g in enumerate(cls.decl.generics):
        a = args[i] if i < len(args) else None
        if a is None or a == T.UNKNOWN:
            f = next((f for f in cls.fields if isinstance(f.type, ast.TName) and f.type.path == [g.name]
                      and not f.type.args), None)
            vt = getattr(given.get(f.name), "ty", None) if f is not None else None
            if vt is None and types is not None:
                if env is None:
                    gens = [x.name for x in cls.decl.generics]
                    fs = [f for f in cls.fields if f.name in given]
                    env = mreflect.infer_targs(gens, [types.resolve(f.type, cls.namespace, frozenset(gens))
                                                      for f in fs], [given[f.name] for f in fs])
                vt = env.get(g.name)
            a = T.widen(vt) if vt is not None else T.UNKNOWN
        out.append(a)
    return tuple(out)


def _type_args(cls, e: ast.ClassLit, field_type) -> tuple:
    """The run-time tests of a generic class literal's type arguments: as written or inferred
    by the checker; else the static type of the field declared as that parameter (`v T` given
    `v: 1`); else `('field', name)`, derived at run time from that field's value (a type
    variable of the enclosing generic function); else unknown."""
    given = dict((n, v) for n, v in e.entries if n is not None)
    args = e.ty.args if isinstance(e.ty, T.ClassT) else ()
    spread = next((getattr(v, "ty", None) for n, v in e.entries if n is None), None)
    if all(a is T.UNKNOWN for a in args) and isinstance(spread, T.ClassT) and spread.cls is cls:
        args = spread.args  # `Box { ...b, value: 7 }`: b's type arguments
    out = []
    for i, g in enumerate(cls.decl.generics):
        a = args[i] if i < len(args) else None
        if a is not None and not T.has_tvar(a) and a != T.UNKNOWN:
            out.append(typetest.of(a, True))
            continue
        f = next((f for f in cls.fields if isinstance(f.type, ast.TName) and f.type.path == [g.name]
                  and not f.type.args), None)
        v = given.get(f.name) if f is not None else None
        vt = getattr(v, "ty", None)
        if vt is not None and not T.has_tvar(vt) and vt != T.UNKNOWN:
            out.append(typetest.of(T.widen(vt), True))
        elif v is None and (b := _bound_by_fields(cls, given, g.name, field_type)) is not None:
            out.append(typetest.of(T.widen(b), True))  # `Stack { items: ["a"] }`: `items T[]` binds T
        else:
            out.append(("field", f.name) if v is not None else ("any",))
    return tuple(out)


def _bound_by_fields(cls, given: dict, name: str, field_type) -> "T.Type | None":
    """What the values given for fields declared over type parameter `name` (`items T[]`,
    `m map<string, T>`, `b Box<T>`) bind it to, where their static types tell it."""
    for f in cls.fields:
        v = given.get(f.name)
        vt = getattr(v, "ty", None)
        if vt is not None:
            b = _bind(field_type(cls, f), vt, name)
            if b is not None and b is not T.UNKNOWN and not T.has_tvar(b) and not T.has_unknown(b):
                return b
    return None


def _bind(pt: T.Type, vt: T.Type, name: str) -> "T.Type | None":
    if isinstance(pt, T.TVar):
        return vt if pt.name == name else None
    if isinstance(pt, T.Arr) and isinstance(vt, T.Arr):
        return _bind(pt.elem, vt.elem, name)
    if isinstance(pt, T.MapT) and isinstance(vt, T.MapT):
        return _bind(pt.key, vt.key, name) or _bind(pt.val, vt.val, name)
    if isinstance(pt, T.ClassT) and isinstance(vt, T.ClassT) and pt.cls is vt.cls:
        return next((b for p, a in zip(pt.args, vt.args) if (b := _bind(p, a, name)) is not None), None)
    return None


def _coll_kind(e) -> str:
    """'array'; 'map' for a map whose keys are statically strings, ints or enum variants (keys
    as themselves at run time), 'map_key' for other maps (keys made by ops.mkey); else ''."""
    k = _static_kind(e)
    if k == "map":
        key = e.ty.key
        key = key.base if isinstance(key, T.Lit) else key
        raw = isinstance(key, T.Prim) and key.name in ("string", "int") or isinstance(key, T.EnumT)
        return "map" if raw else "map_key"
    return k if k == "array" else ""


def _is_bool(e) -> bool:
    if isinstance(e, (ast.BoolLit, ast.Is)):
        return True
    if isinstance(e, ast.Binary) and e.op in ("==", "!=", "<", "<=", ">", ">=", "&&", "||"):
        return True
    return (isinstance(e, ast.Unary) and e.op == "!") or _static_kind(e) == "bool"


def _fieldless(obj: ast.Expr, name: str) -> bool:
    """Is `obj` statically a string, number, container… (a value whose members are all methods),
    or an instance of a class without a field `name`: `obj.name` is then the bound method, though
    some class has a field named `name`?"""
    tb = T.base(obj.ty) if getattr(obj, "ty", None) is not None else None
    if isinstance(tb, T.ClassT):  # a class with no field of that name: its method
        return not any(f.name == name for f in tb.cls.fields)
    if isinstance(tb, T.StdT) and tb.kind == "reflect":  # `reflect.Type` and its views: methods only
        return True
    return isinstance(tb, (T.Prim, T.Arr, T.MapT)) and tb not in (T.UNKNOWN, T.NEVER, T.VOID)
