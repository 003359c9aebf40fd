"""The BEX VM: holds a loaded program's functions, classes and natives, generates each
function's Python code from its bytecode the first time it is called, and runs calls with
BAML's stack-depth limit."""
from __future__ import annotations

import ast
import contextlib
import functools
import sys
import threading
from functools import partial
from types import MethodType

from .. import gcpause
from . import errctx, futures, ops, stack
from .errctx import baml_traceback
from .bytecode import BexFunction
from .emit import emit_function
from .instrument import InstrumentedGen, Node, compile_half, mir_nodes
from .llmcall import call_llm
from .pygen import CLOSURE_NAME, FunctionGen, mangle
from .stdlib import FUNCTIONS, METHODS, STD_ENUMS, core, hashing, iters, randomlib
from .stdlib._registry import EVERY_VALUE
from .typeargs import TypeArg
from ..extension import Run
from ..mir import ir, typetest
from .stdlib import future as future_std
from ..sema import stdsigs
from .stdlib import reflect as reflect_std
from .stdlib import reflect_session
from .stdlib import testing as testing_std
from .values import (JSON_ENTRY, JSON_TEST, OMITTED, BamlRaise, BigInt, ClassInfo, EnumInfo, Instance, RType, RView,
                     TypedList, TypedMap, Variant, typed_list, typed_map)

@functools.cache
def elem_key(elem: tuple):
    """The canonical key of a container's recorded element type(s) (typetest.key)."""
    return tuple(map(typetest.key, elem)) if type(elem[0]) is tuple else typetest.key(elem)


MAX_DEPTH = 10_000  # BAML frames guaranteed on every path (stack.PY_LIMIT Python frames; the engine allows ~75k)


class Runtime:
    """A loaded program: its classes, enums and natives, its functions' MIR and bytecode, and
    the code spaces that run them (the plain one, and one per set of extensions)."""

    def __init__(self, lower, classes: dict[str, list[str]], enums: dict[str, list[str]],
                 class_names: dict[str, str], enum_names: dict[str, str], methods: dict[str, dict[str, str]],
                 shared: "Runtime | None" = None):
        """`lower(fqn)` returns the MirFunctions of a user function (the function itself first,
        then its lambdas). `classes` maps class fqn → field names; `methods` class fqn →
        method name → function fqn. `shared`: a runtime whose classes and enums this one keeps
        where they are declared alike (a `reflect.Session`'s submissions share their values)."""
        self._lower = lower
        self.bytecode: dict[str, BexFunction] = {}
        self.mir: dict[str, object] = {}
        self._groups: dict[str, list] = {}  # function fqn → its MIR and its lambdas' MIR
        self.classes: dict[str, ClassInfo] = dict(ops.BUILTIN_CLASSES)
        old_classes = shared.classes if shared is not None else {}
        old_enums = shared.enums if shared is not None else {}
        for fqn, fields in classes.items():
            old = old_classes.get(fqn)
            same = old is not None and old.fields == list(fields) and old.name == class_names[fqn]
            self.classes[fqn] = old if same else ClassInfo(fqn, class_names[fqn], fields)
        self.enums: dict[str, EnumInfo] = dict(STD_ENUMS)
        for fqn, variants in enums.items():
            old = old_enums.get(fqn)
            same = old is not None and list(old.variants) == list(variants) and old.name == enum_names[fqn]
            self.enums[fqn] = old if same else EnumInfo(fqn, enum_names[fqn], variants)
        hashing.number_types([self.classes[c] for c in classes] + [self.enums[e] for e in enums])
        self.method_fqns = methods
        self._type_args: dict = {}
        self.natives = dict(FUNCTIONS)
        for kind, ms in METHODS.items():
            for mname, native in ms.items():
                self.natives[f"method:{kind}.{mname}"] = native
        self.natives["$iter_items"] = _NativeShim("$iter_items", iter_items)
        self.natives["$with_targs"] = _NativeShim("$with_targs", with_targs)
        self.natives["$record_fresh"] = _NativeShim("$record_fresh", record_fresh)
        self.natives["$cleanup_begin"] = _NativeShim("$cleanup_begin", cleanup_begin)
        self.natives["$spawn"] = _NativeShim("$spawn", futures.spawn)
        self.natives["$spawn_plan"] = _NativeShim("$spawn_plan", future_std.plan_new)
        self.natives["$spawn_apply"] = _NativeShim("$spawn_apply", future_std.plan_apply)
        self.natives["$spawn_start"] = _NativeShim("$spawn_start", futures.start)
        self.natives["$await"] = _NativeShim("$await", futures.await_)
        self.natives["$str_int"] = _NativeShim("$str_int", str)
        self.natives["$bytes"] = _NativeShim("$bytes", bytearray)
        self.frame_files: dict[str, str] = {}  # a source's path → its name in a context's frames
        # a test block's fqn → (its file's `$init_test_…` function, which the engine runs the
        # block's body in as a lambda; that lambda's place among the function's lambdas)
        self.test_frames: dict[str, tuple[str, int]] = {}
        testing_std.RUNTIMES.add(self)  # a registry run names a failing body's frames
        self.natives["$error_context"] = _NativeShim("$error_context", partial(errctx.context_of, self._context_frames))
        self.natives["$handling_enter"] = _NativeShim("$handling_enter", errctx.handling_enter)
        self.natives["$handling_exit"] = _NativeShim("$handling_exit", errctx.handling_exit)
        self.natives["$bind_method_or"] = _NativeShim("$bind_method_or", bind_method_or)
        self.natives["$bind_fn"] = _NativeShim("$bind_fn", lambda recv, fn: partial(fn, recv))
        self.natives["$builtin_at"] = _NativeShim("$builtin_at", builtin_at)
        self.natives["$fn_targs"] = _NativeShim("$fn_targs", fn_targs)
        self.natives["$array_slice"] = _NativeShim("$array_slice", lambda a, s, e: a[s:e])
        self.natives["$iter_field"] = _NativeShim("$iter_field", iters.state_field)
        self.natives["$array_iterator_at"] = _NativeShim("$array_iterator_at", iters.from_list)
        for name, fn in (("$tagged_new", core.tagged_new), ("$tagged_text", core.tagged_text),
                         ("$tagged_value", core.tagged_value), ("$tagged_end", core.tagged_end)):
            self.natives[name] = _NativeShim(name, fn)  # a tagged template's body (lowering's)
        # reflection: type values share the program's Reflector (set by the compiler)
        self.reflection = reflect_std.Reflection(None, self.classes, self.enums, self.function_fqn, self.mir)
        refl = self.reflection
        refl.fits = lambda v, d: self.reified(repr(d), None, self._reified_test)(v)
        self.natives["$type_of"] = _NativeShim("$type_of", lambda d, targs: reflect_std.type_of(
            refl, _literal(d), targs))
        self.natives["$type_of_value"] = _NativeShim("$type_of_value", partial(reflect_std.of_value, refl))
        for cname, cfn in {**reflect_std.CONSTRUCTORS, **reflect_session.CONSTRUCTORS}.items():
            self.natives["$" + cname] = _NativeShim("$" + cname, partial(cfn, refl))
        for cname in ("reflect.Package.get_function", "reflect.Package.find_function",
                      "reflect.Package.get_global", "reflect.Package.find_global", "reflect.Session.eval"):  # with their type argument's descriptor
            self.natives["$" + cname] = _NativeShim("$" + cname, partial(
                lambda f, p, want, n: f(refl, p, _literal(want), n), reflect_session.CONSTRUCTORS[cname]))
        self.natives["$bind_targs"] = _NativeShim("$bind_targs", lambda ds, targs: reflect_std.bind_targs(
            _literal(ds), targs))
        self.natives["$bind_type"] = _NativeShim("$bind_type", reflect_std.bind_type)
        # a generic function's type parameters at run time (mir/reflect.py)
        self.natives["$method_targs"] = _NativeShim("$method_targs", reflect_std.method_targs)
        self.natives["$iface_targs"] = _NativeShim("$iface_targs", lambda recv, iface, own, n: reflect_std.iface_targs(
            refl, recv, iface, own, n))
        self.natives["$std_new"] = _NativeShim("$std_new", self._std_new)
        self.natives["$reflect.Class.extends"] = _NativeShim("$reflect.Class.extends", lambda want, name, fields:
                                                             reflect_std.class_extends(refl, _literal(want), name, fields))
        self.natives["$reflect.Class.get_field"] = _NativeShim("$reflect.Class.get_field", lambda want, value, name:
                                                               reflect_std.class_get_field(refl, _literal(want), value, name))
        self.natives["$reflect.Interface.implementation"] = _NativeShim(
            "$reflect.Interface.implementation", lambda want: reflect_std.implementation(refl, _literal(want)))
        self.natives["$typed_read"] = _NativeShim("$typed_read", lambda recv, name, want, targ, *a: reflect_std.typed_read(
            refl, recv, name, _literal(want), targ, *a))
        # `reflect.AnyClass`'s methods, which every instance has
        self.any_class = {mname: partial(mfn, refl) for mname, mfn in reflect_std.ANY_CLASS.items()}
        self._specialized: dict = {}  # (function, type arguments) → its one value (`id<int> == id<int>`)
        self.natives["$specialize"] = _NativeShim("$specialize", self.specialize)
        self.natives["$unbound_method"] = _NativeShim("$unbound_method", make_dispatcher)
        self.globals: dict = {}  # `const` globals' values, by the fqn of the function computing each
        self.natives["$global"] = _NativeShim("$global", self.global_value)
        self.natives["$with_reified_targs"] = _NativeShim("$with_reified_targs", self._with_reified_targs)
        self._reified: dict = {}  # a descriptor's repr → its test's predicate / its TypeArg
        self.natives["$is_reified"] = _NativeShim("$is_reified", lambda v, d, targs: self.reified(
            d, targs, self._reified_test)(v))
        self.natives["$reified_type_arg"] = _NativeShim("$reified_type_arg", lambda d, targs: self.reified(
            d, targs, self._reified_arg))
        self.natives["$reified_list"] = _NativeShim("$reified_list", lambda xs, d, targs: typed_list(
            xs, self.reified(d, targs, typetest.of)))
        self._lock = threading.RLock()  # lazy compilation and space creation, across threads
        self.trace_lines: dict = {}  # generated code object → (fqn, file, BAML line per Python line)
        self.plain = CodeSpace(self, ())
        self._spaces: dict[tuple, CodeSpace] = {}
        self.views = None  # set by assay.mirx: the views extensions' compile half sees
        self.llm = None  # LLM handler (fqn, args) → answer, set by assay.llm (None: no client)
        for cfqn, ms in methods.items():
            for mname, ffqn in ms.items():
                setattr(self.classes[cfqn].py, "m_" + mname, _LazyMethod(self.plain, ffqn))

    def _std_new(self, fqn: str, names: tuple, *values):
        """A stdlib class's literal (`baml.json.DecodeError { message: m, path: p }`); a field
        not given is null."""
        info = self.classes.get(fqn)
        if info is None:
            raise TypeError(f"stdlib class {fqn} is not built in Assay")
        given = dict(zip(names, values))
        return info.new(*(given.get(f) for f in info.fields))

    def lower(self, fqn: str) -> list:
        """The MIR of a function and its lambdas (lowered once, shared by every code space)."""
        group = self._groups.get(fqn)
        if group is None:
            with gcpause.paused():
                group = self._groups[fqn] = self._lower(fqn)
                for mir in group:
                    self.mir[mir.fqn] = mir
                    self.bytecode[mir.fqn] = emit_function(mir)
        return group

    def space(self, extensions: tuple = ()) -> "CodeSpace":
        """The code space for extensions of these types and configs (made once, reused by
        every run: its generated code never holds a particular extension object)."""
        if not extensions:
            return self.plain
        key = tuple((type(e), e.config()) for e in extensions)
        with self._lock:
            if key not in self._spaces:
                self._spaces[key] = CodeSpace(self, tuple(extensions))
        return self._spaces[key]

    def spaces(self) -> int:
        return 1 + len(self._spaces)

    def nodes(self, mir) -> tuple[list, dict]:
        """A function's MIR nodes with their instruction ranges and mirx views, and its
        events (entry, raise): what the compile half of extensions is shown."""
        if self.views is None:
            raise RuntimeError("runs with extensions need the program's mirx view (assay.mirx.view)")
        fv = self.views.function(mir.fqn)
        nodes = mir_nodes(mir)
        for n in nodes:
            n.view = fv.node_view(n.block, n.mir)
        events = {k: Node(k, None, 0, 0) for k in ("entry", "raise")}
        for k, n in events.items():
            n.view = fv.event_view(k)
        return nodes, events

    def compile_half(self, mir, ext, nodes: list, events: dict) -> list:
        """An extension's (data, Code) per node and event, once per function and extension
        type+config."""
        bc = self.bytecode[mir.fqn]
        key = (type(ext), ext.config())
        if key not in bc.ext:
            bc.ext[key] = compile_half(ext, self.views.function(mir.fqn), nodes, events)
        return bc.ext[key]

    # the plain space, as the rest of Assay sees it
    def compile(self, fqn: str):
        return self.plain.compile(fqn)

    def source(self, fqn: str) -> str:
        return self.plain.source(fqn)

    def call(self, fqn: str, args: list, extensions: tuple = ()):
        if not extensions:
            return self.plain.call(fqn, args)
        return self.space(tuple(extensions)).run(fqn, args, tuple(extensions))

    def class_arity(self, fqn: str) -> int:
        return len(self.classes[fqn].fields)

    def global_value(self, fqn: str):
        """A `const` global: computed once (at startup, compile_sources), then shared."""
        try:
            return self.globals[fqn]
        except KeyError:
            return self.globals.setdefault(fqn, self.plain.call(fqn, []))

    def type_arg(self, c: ir.TypeArg) -> TypeArg:
        """The run-time form of a builtin's type argument (one per distinct constant)."""
        key = repr((c.root, c.defs))  # not `c`: `("lit", True) == ("lit", 1)` in Python
        got = self._type_args.get(key)
        if got is None:
            got = self._type_args[key] = TypeArg(c.root, dict(c.defs), self.classes, self.enums,
                                                 self.type_predicate)
        return got

    def reified(self, d: str, targs, make):
        """`make` of the static type of descriptor `d` at type arguments `targs`, once per
        type (`make` of the descriptors themselves where `d` is a tuple of them)."""
        ds = _literal(d)
        many = type(ds[0]) is tuple
        desc = reflect_std.bind_targs(ds if many else (ds,), targs)
        k = (make, repr(desc))
        got = self._reified.get(k)
        if got is None:
            got = self._reified[k] = make(desc if many else self.reflection.program.static(desc[0]))
        return got

    def specialize(self, f, n: int, targs: tuple):
        if isinstance(f, (MethodType, partial)):  # bound to its receiver: a value of its own
            return specialize(f, n, targs)
        k = (self.function_fqn(f), targs)
        got = self._specialized.get(k)
        if got is None:
            got = self._specialized[k] = specialize(f, n, targs)
        return got

    def _with_reified_targs(self, obj, descs: str, targs):
        """`Box<T> { … }` in a generic function: the instance records T's type argument."""
        obj._targs = self.reified(descs, targs, self._targs_of)
        return obj

    def _targs_of(self, descs: tuple) -> str:
        return repr(tuple(typetest.of(self.reflection.program.static(d)) for d in descs))

    def _reified_test(self, t):
        return self.type_predicate(typetest.of(t))

    def _reified_arg(self, t):
        return self.type_arg(ir.TypeArg(*typetest.type_arg(t, self.reflection.program.field_type)))

    def function_fqn(self, v) -> tuple[str, bool] | None:
        """The BAML function a function value runs, and whether it is a method bound to its
        receiver (None: a host callable or a builtin method)."""
        if isinstance(v, partial) and len(v.args) == 1:  # a function bound to its receiver (`$bind_fn`)
            got = self.function_fqn(v.func)
            return (got[0], True) if got is not None else None
        bound = isinstance(v, MethodType)
        f = v.__func__ if bound else v
        if isinstance(f, (_Stub, _LazyMethod)):
            return f.fqn, bound
        if isinstance(f, _LazyLambda):
            return f.mir.fqn, bound
        code = getattr(f, "__code__", None)
        if code in CLOSURE_CODES:  # _closure_maker's closure: the function it calls
            return self.function_fqn(f.__closure__[code.co_freevars.index("f")].cell_contents)
        info = self.trace_lines.get(code)
        return (info[0], bound) if info is not None else None

    def _context_frames(self, exc: BaseException) -> list:
        """The frames of a caught error's context, as the engine's: the whole BAML stack it was
        thrown from (the catching frame's callers too), files named from the project root."""
        frames = baml_traceback(self, exc)
        tb = exc.__traceback__
        f = tb.tb_frame.f_back if tb is not None else None
        outer = []
        while f is not None:
            info = self.trace_lines.get(f.f_code)
            if info is not None:
                fqn, file, lines = info
                py_line = f.f_lineno - f.f_code.co_firstlineno
                outer.append((fqn, file, lines[py_line] if 0 <= py_line < len(lines) else 0))
            f = f.f_back
        return [(self.frame_name(fqn), self.frame_files.get(file, file), line) for fqn, file, line in outer[::-1] + frames]

    def frame_name(self, fqn: str) -> str:
        """A frame's function as the engine's contexts name it: a lambda `.<lambda(P, i)>`, P
        its enclosing function (`Fn`, `Class.method`, or the enclosing lambda's name) and i its
        place among the top-level function's lambdas in source order; a test block's body is
        itself a lambda of its file's `$init_test_…` (`.<lambda($init_test_ns_a_b, 0)>`)."""
        top, sep, rest = fqn.partition(".<lambda@")
        test = self.test_frames.get(top)
        if not sep and test is None:
            return fqn
        group = self._groups.get(top)
        if group is None and sep:
            return fqn
        at = lambda f: tuple(map(int, f.rpartition("<lambda@")[2].rstrip(">").split(":")))  # noqa: E731
        order = sorted((m.fqn for m in group[1:]), key=at) if sep else []
        if test is not None:
            name, base = f"<lambda({test[0]}, {test[1]})>", test[1] + 1
        else:
            head, _, name = top.rpartition(".")
            base = 0
            if head in self.classes:  # a method: `Class.method`
                name = head.rpartition(".")[2] + "." + name
        for k in range(rest.count("<lambda@") + 1 if sep else 0):
            upto = top + ".<lambda@" + ".<lambda@".join(rest.split(".<lambda@")[:k + 1])
            name = f"<lambda({name}, {base + (order.index(upto) if upto in order else 0)})>"
        return "." + name

    def type_predicate(self, t: tuple):
        """A Python predicate for a run-time type test."""
        k = t[0]
        if k == "any" or k == "unknown":  # every value is an `unknown` (its containers: see "array")
            return lambda v: True
        if k == "never":
            return lambda v: False
        if k in ("int", "float", "string", "bool"):
            py = {"int": int, "float": float, "string": str, "bool": bool}[k]
            return lambda v: type(v) is py
        if k == "null":
            return lambda v: v is None
        if k == "json":
            return is_json
        if k == "function":  # a function value whose signature fits (a host callable's: any)
            refl, sig = self.reflection, t[1]
            return lambda v: callable(v) and not isinstance(v, (Instance, type)) and refl.fn_is(v, sig)
        if k == "lit":
            lit = t[1]
            if isinstance(lit, int) and type(lit) not in (int, bool):  # a bigint literal (`3n`)
                lit = BigInt(lit)
            return lambda v: type(v) is type(lit) and v == lit
        if k == "class":
            py = self.classes[t[1]].py if t[1] in self.classes else None
            if py is None:
                return lambda v: False
            if len(t) > 2:  # a generic class: the type arguments its instance recorded
                return lambda v: isinstance(v, py) and _targs_match(getattr(v, "_targs", None), t[2])
            return lambda v: isinstance(v, py)
        if k == "enum":
            e = self.enums.get(t[1])
            return lambda v: type(v) is Variant and v.enum is e
        if k == "variant":
            e = self.enums.get(t[1])
            var = e.variants.get(t[2]) if e else None
            return lambda v: v is var
        if t == ("array", ("any",)):
            return lambda v: isinstance(v, list)
        if k == "array" and t[1] == JSON_TEST:  # json arrays are built recording it
            return lambda v: type(v) is TypedList and v.elem == JSON_TEST
        if k == "map" and (t[1], t[2]) == JSON_ENTRY:
            return lambda v: type(v) is TypedMap and v.elem == JSON_ENTRY
        if k == "array" and t[1] == ("unknown",):  # only a recorded `unknown[]`: a plain list
            return lambda v: type(v) is TypedList and v.elem == ("unknown",)  # is its elements' type
        if k == "array":  # by the element type it recorded, else by its elements
            el, want = self.type_predicate(t[1]), typetest.key(t[1])
            return lambda v: (elem_key(v.elem) == want if type(v) is TypedList else
                              type(v) is list and all(el(x) for x in v))
        if k == "map":
            kp, vp = self.type_predicate(t[1]), self.type_predicate(t[2])
            want = (typetest.key(t[1]), typetest.key(t[2]))
            if want == (("any",), ("any",)):
                return lambda v: isinstance(v, dict)
            if ("any",) in want:  # `map<string, T>` of a generic rule: any recorded type fits T
                return lambda v: (all(w == ("any",) or a == w for a, w in zip(elem_key(v.elem), want))
                                  if type(v) is TypedMap else
                                  type(v) is dict and all(kp(ops.unkey(a)) and vp(b) for a, b in v.items()))
            if ("unknown",) in want:  # only a recorded `map<K, unknown>` (as arrays, above)
                return lambda v: type(v) is TypedMap and elem_key(v.elem) == want
            return lambda v: (elem_key(v.elem) == want if type(v) is TypedMap else
                              type(v) is dict and all(kp(ops.unkey(a)) and vp(b) for a, b in v.items()))
        if k in ("arrays", "maps"):  # the element type it recorded, else the first of the
            built = [self.type_predicate(("array", m) if k == "arrays" else ("map", *m)) for m in t[1]]
            first, earlier = built[t[2]], built[:t[2]]  # static type's containers it fits
            fits = lambda v: first(v) and not any(p(v) for p in earlier)  # noqa: E731
            if k == "maps":
                want = tuple(typetest.key(x) for x in t[1][t[2]])
                return lambda v: elem_key(v.elem) == want if type(v) is TypedMap else fits(v)
            want = typetest.key(t[1][t[2]])
            return lambda v: elem_key(v.elem) == want if type(v) is TypedList else fits(v)
        if k == "union":
            ps = [self.type_predicate(m) for m in t[1]]
            return lambda v: any(p(v) for p in ps)
        if k == "omitted":
            return lambda v: v is OMITTED
        if k == "panic":
            return is_panic
        if k == "anyclass":  # `reflect.AnyClass`: every class instance implements it
            return lambda v: isinstance(v, Instance)
        if k == "anyfunction":  # `reflect.AnyFunction<Returns = R, Throws = E>`: a function value
            refl, pins = self.reflection, t[2:]  # whose result and throws are within R and E
            return lambda v: callable(v) and not isinstance(v, (Instance, type)) and (
                not pins or refl.fn_pinned(v, *pins))
        if k == "bigint":
            return lambda v: type(v) is BigInt
        if k == "uint8array":
            return lambda v: type(v) is bytearray
        if k == "iface" and t[1] in stdsigs.STD_IFACES:  # `ai.Client`: the classes implementing it
            index = getattr(self.reflection.program, "index", None)
            users = [i.cls.fqn for i in (index.impls if index is not None else ()) if i.std == t[1] and i.cls]
            impls = tuple(self.classes[c].py for c in (*stdsigs.STD_IFACES[t[1]], *users) if c in self.classes)
            return lambda v: isinstance(v, impls)
        if k == "reflect":  # `reflect.Type`, or one of its kind views (`reflect.Class`)
            kind = t[1].rpartition(".")[2]
            if kind == "Type":
                return lambda v: type(v) is RType
            return lambda v: type(v) is RView and v.kind == kind
        return lambda v: False


class CodeSpace:
    """The generated Python code of a program for one set of extensions: a globals dict in
    which each function is first a stub and becomes, on its first call, the Python function
    generated from its bytecode (plain), or from its bytecode and the extensions' sidecars."""

    def __init__(self, rt: Runtime, extensions: tuple):
        self.rt = rt
        self.extensions = extensions
        self._keep: list = []
        self.env: dict = dict(_HELPERS)
        self.env["OMIT"] = OMITTED
        self.env["error_value"] = error_value
        self.env["Variant"] = Variant
        self.env["BigInt"] = BigInt
        self.env["RUN"] = _RUN
        self.env["take_args"] = take_args
        self.env["take_ret"] = take_ret
        self.env["llm"] = partial(call_llm, rt)  # `call_llm` instructions (bex/llmcall.py)
        self.counters: list[list] = [[] for _ in extensions]  # `{counter}` slot → its key
        self._lock = rt._lock
        self._names: dict[tuple[str, str], str] = {}
        self.natives = rt.natives
        self.classes = rt.classes
        self.enums = rt.enums
        self.type_arg = rt.type_arg

    # ── globals for generated code ──

    def _global(self, prefix: str, key: str, make) -> str:
        """The name under which generated code finds a function (F_), native (N_), method
        dispatcher (M_) or class (C_): made once per code space."""
        name = self._names.get((prefix, key))
        if name is None:
            name = self._names[prefix, key] = f"{prefix}_{mangle(key)}"
            self.env[name] = make()
        return name

    def function_global(self, fqn: str) -> str:
        return self._global("F", fqn, lambda: _Stub(self, fqn))

    def functions(self) -> dict[str, object]:
        """Every function this space has a global for: fqn → its generated function (or the
        stub that will generate it)."""
        return {key: self.env[name] for (prefix, key), name in self._names.items() if prefix == "F"}

    def native_global(self, qname: str) -> str:
        return self._global("N", qname, lambda: self.natives[qname].fn)

    def method_global(self, mname: str) -> str:
        return self._global("M", mname, lambda: make_dispatcher(mname, self._method_of if self.extensions else None,
                                                                self.rt.any_class.get(mname)))

    def _method_of(self, recv, name: str):
        """An instance's method as compiled in this space (instrumented spaces only: the plain
        space uses the method bound on the instance's class)."""
        fqn = self.rt.method_fqns.get(recv._class.fqn, {}).get(name)
        if fqn is None:  # a stdlib class's native method (a client's `provider()`, a csv Reader's `next()`)
            return getattr(recv, "m_" + name, None)
        return partial(self.compile(fqn), recv)

    def class_global(self, fqn: str) -> str:
        return self._global("C", fqn, lambda: self.classes[fqn].py)

    def class_arity(self, fqn: str) -> int:
        return len(self.classes[fqn].fields)

    def type_test_expr(self, t: tuple, v: str, names) -> str:
        k = t[0]
        if k in _PY_TYPES:
            return f"(type({v}) is {_PY_TYPES[k]})"
        if k == "null":
            return f"({v} is None)"
        if k == "any" or k == "unknown":
            return "True"
        if k == "class" and len(t) == 2:
            return f"isinstance({v}, {self.class_global(t[1])})"
        if k == "omitted":
            return f"({v} is OMIT)"
        if k == "panic":
            return f"is_panic({v})"
        if k == "variant" and t[1] in self.enums and t[2] in self.enums[t[1]].variants:
            return f"({v} is {names.const(self.enums[t[1]].variants[t[2]])})"
        if k == "enum" and t[1] in self.enums:
            return f"(type({v}) is Variant and {v}.enum is {names.const(self.enums[t[1]])})"
        return f"{names.const(self.rt.type_predicate(t))}({v})"

    # ── compilation ──

    def compile(self, fqn: str):
        """Generate a user function (and its lambdas) in this space; rebind its global."""
        name = self.function_global(fqn)
        current = self.env[name]
        if isinstance(current, _LazyLambda):
            return current.generate()
        if not isinstance(current, _Stub):
            return current
        with self._lock, gcpause.paused():  # two threads never generate one function twice
            for mir in self.rt.lower(fqn):
                lam = self.function_global(mir.fqn)
                if isinstance(self.env[lam], _Stub):
                    if mir.n_captures and not self.extensions:
                        self.env[lam] = _LazyLambda(self, mir)  # its closures are made in place
                    else:
                        self._generate(mir)
        return self.env[name]

    def _generate(self, mir) -> None:
        bc = self.rt.bytecode[mir.fqn]
        name = self.function_global(mir.fqn)
        pyname = name + "_impl"
        if self.extensions:
            nodes, events = self.instrumented(mir)
            gen = InstrumentedGen(bc, _Names(self), self, nodes, events)
        else:
            gen = FunctionGen(bc, _Names(self))
        src = gen.generate(pyname)
        code = compile(src, f"<baml {mir.fqn}>", "exec")
        if gen.nested and not self._nested_ok(code, gen.nested):
            gen = FunctionGen(bc, _Names(self))
            gen.nest = False  # (a closure would read its maker's locals: closure makers instead)
            src = gen.generate(pyname)
            code = compile(src, f"<baml {mir.fqn}>", "exec")
        exec(code, self.env)
        fn = self.env[pyname]
        fn.__qualname__ = mir.fqn
        fn.baml_params = bc.params[bc.n_captures:]
        fn.baml_source = src
        # BAML source line of each generated Python line (tracebacks)
        lines = [bc.lines[pc] if pc < len(bc.lines) else 0 for pc in gen.line_pcs]
        self.rt.trace_lines[fn.__code__] = (mir.fqn, bc.file, lines)
        self.env[name] = fn
        if not self.extensions:
            for cfqn, ms in self.rt.method_fqns.items():
                for mname, ffqn in ms.items():
                    if ffqn == mir.fqn:
                        setattr(self.classes[cfqn].py, "m_" + mname, fn)

    def _nested_ok(self, code, nested: list) -> bool:
        """Closures generated in place (pygen `nested_closure`) must be self-contained: no
        free variables (a read of a maker's local would make it a cell). Each one's code object
        gets the line table of its lambda, so tracebacks and `is_baml_function` know it."""
        codes, work = {}, [code]
        while work:
            c = work.pop()
            if c.co_freevars or (c.co_cellvars and c is not code):
                return False
            for k in c.co_consts:
                if hasattr(k, "co_code"):
                    codes.setdefault(k.co_firstlineno, k)
                    work.append(k)
        for at, fqn, pcs in nested:
            c = codes.get(at + 1)
            if c is None or c.co_name != CLOSURE_NAME:
                return False
            lam = self.rt.bytecode[fqn]
            self.rt.trace_lines[c] = (fqn, lam.file, [lam.lines[pc] if pc < len(lam.lines) else 0 for pc in pcs])
        return True

    def instrumented(self, mir):
        """The function's MIR nodes and events (entry, raise), each with what every extension
        of this space compiles in there: the compile half runs once per function and
        extension type+config (cached on the bytecode, shared by every space)."""
        nodes, events = self.rt.nodes(mir)
        for i, ext in enumerate(self.extensions):
            parts = self.rt.compile_half(mir, ext, nodes, events)
            for node, part in zip(nodes + list(events.values()), parts):
                node.parts.append(part)
        return nodes, events

    def source(self, fqn: str) -> str:
        self.compile(fqn)
        return self.env[self.function_global(fqn)].baml_source

    def call(self, fqn: str, args: list):
        return run_deep(self.compile(fqn), args)

    def run(self, fqn: str, args: list, extensions: tuple):
        """A run with these extension objects: each gets on_run_start/on_run_end and its own
        state and call channel, handed to the generated code through a thread-local frame."""
        fn = self.compile(fqn)
        runs = [Run(fqn, args, self.counters[i]) for i in range(len(extensions))]
        frame = []
        try:
            for ext, run in zip(extensions, runs):
                frame.append((ext, ext.on_run_start(run), [None, None]))
                if run.shadows is not None:
                    frame[-1][2][0] = (None, tuple(run.shadows), ())
            result = run_deep(_in_frame(fn, tuple(frame)), args)
            for (_, _, chan), run in zip(frame, runs):
                ret = chan[1]
                run.result_shadow = ret[1] if ret is not None else None
            return result
        finally:
            for (ext, state, _), run in zip(frame, runs):
                ext.on_run_end(run, state)


def _in_frame(fn, frame: tuple):
    """`fn` run with `frame` as the generated code's RUN.frame (restored after: runs nest)."""
    def entry(*args):
        outer = _RUN.frame
        _RUN.frame = frame
        try:
            return fn(*args)
        finally:
            _RUN.frame = outer
    return entry


class _RunFrame(threading.local):
    frame: tuple = ()


_RUN = _RunFrame()


@stack.carry
def _run_frame():
    """The extensions' run frame goes along when a call hops to a big-stack worker (a BAML
    callback of `sort_by` run there still reports to its run's extensions)."""
    frame = _RUN.frame
    if not frame:
        return None

    def enter():
        return _in_frame_state(frame)
    return enter


@contextlib.contextmanager
def _in_frame_state(frame: tuple):
    outer = _RUN.frame
    _RUN.frame = frame
    try:
        yield
    finally:
        _RUN.frame = outer


def take_args(chan: list, fqn: str, method: str, params: tuple) -> tuple:
    """A callee's parameter shadows from its caller's channel (SymCC's parameter
    expressions): taken only if meant for it — by fqn, method name, or arity (indirect)."""
    sent = chan[0]
    chan[0] = None
    n = len(params)
    if sent is not None:
        tag, shadows, kw = sent
        if tag is None or tag == fqn or tag == "." + method:
            if not kw and len(shadows) == n:
                return shadows
            if len(shadows) <= n + len(kw) and set(kw) <= set(params):
                out = list(shadows[:len(shadows) - len(kw)]) + [None] * (n - len(shadows) + len(kw))
                for k, z in zip(kw, shadows[len(shadows) - len(kw):]):
                    out[params.index(k)] = z
                return tuple(out)
    return (None,) * n


def take_ret(chan: list, tag):
    """The result shadow a callee left in the channel, if it came from the expected callee."""
    ret = chan[1]
    chan[1] = None
    if ret is None or (tag is not None and ret[0] != tag and not (tag[0] == "." and ret[0].endswith(tag))):
        return None
    return ret[1]


_PY_TYPES = {"int": "int", "float": "float", "string": "str", "bool": "bool", "bigint": "BigInt",
             "uint8array": "bytearray"}


class _Names:
    """How generated code names the globals of one code space."""

    def __init__(self, space: CodeSpace):
        self.runtime = space
        self.env = space.env
        self._consts: dict[int, str] = {}
        self.variants: set[str] = set()  # constant names bound to enum variants (compare by `is`)

    def fn(self, fqn):
        return self.runtime.function_global(fqn)

    def native(self, name):
        return self.runtime.native_global(name)

    def cls(self, fqn):
        return self.runtime.class_global(fqn)

    def method(self, name):
        return self.runtime.method_global(name)

    def closure(self, fqn: str, n_caps: int) -> str:
        """The global that makes a closure of lambda `fqn` over `n_caps` captured values."""
        bc = self.runtime.rt.bytecode[fqn]
        n_params = len(bc.params) - n_caps
        name = f"MK_{n_caps}_{n_params}"
        if name not in self.env:
            self.env[name] = _closure_maker(n_caps, n_params)
        return name

    def const(self, value) -> str:
        key = id(value)
        if key not in self._consts:
            name = f"K_{len(self.runtime._keep)}"
            self.runtime._keep.append(value)
            self.env[name] = value
            self._consts[key] = name
            if type(value) is Variant:
                self.variants.add(name)
        return self._consts[key]


class _NativeShim:
    def __init__(self, name, fn):
        self.name = name
        self.fn = fn
        self.sig = ""


class _Stub:
    """Stands in for a function until its first call compiles it."""

    def __init__(self, space: "CodeSpace", fqn: str):
        self.space = space
        self.fqn = fqn

    def __call__(self, *args, **kw):
        return self.space.compile(self.fqn)(*args, **kw)


class _LazyLambda:
    """A capturing lambda's own function in the plain space, generated on its first call:
    its closures are made in place (pygen `nested_closure`), so it rarely runs at all."""

    def __init__(self, space: "CodeSpace", mir):
        self.space = space
        self.mir = mir

    def generate(self):
        name = self.space.function_global(self.mir.fqn)
        with self.space._lock, gcpause.paused():
            if self.space.env[name] is self:
                self.space._generate(self.mir)
        return self.space.env[name]

    def __call__(self, *args, **kw):
        return self.generate()(*args, **kw)


class _LazyMethod:
    def __init__(self, space, fqn):
        self.space = space
        self.fqn = fqn

    def __get__(self, obj, owner=None):
        fn = self.space.compile(self.fqn)
        return fn.__get__(obj, owner) if obj is not None else fn


_KINDS = {int: "int", float: "float", str: "string", bool: "bool", list: "array", TypedList: "array", dict: "map", TypedMap: "map",
          bytearray: "uint8array", BigInt: "bigint", RType: "type", RView: "typeview",
          futures.Future: "future", randomlib.SystemRandom: "rng",
          randomlib.Xoshiro256PlusPlus: "rng", randomlib.ChaCha20: "rng"}


def bind_method(recv, name: str):
    """`recv.name` as a value: an instance's method, or a builtin method bound to its receiver
    (`let p = xs.push; p(2)`)."""
    m = getattr(recv, "m_" + name, None)
    if m is not None:
        return m
    kind = _KINDS.get(type(recv), "")
    native = METHODS.get(kind, {}).get(name)
    if native is None:
        fn = _every_value_method(name)
        if fn is None:
            raise TypeError(f"{type(recv).__name__} has no method {name}")
        return partial(fn, recv)
    bound = partial(native.fn, recv)
    bound.baml_native = (kind, name)  # its signature at run time (Reflection.native_sig)
    return bound


def _every_value_method(name: str):
    """`to_string`, `eq`, `neq`, `to_json`: what every value has (baml.ops), class instances and
    enum values included, where no own or kind-specific method takes precedence."""
    every = EVERY_VALUE.get(name)  # `to_string`, `to_json`
    return every if every is not None else _STRUCTURAL.get(name)


# the other methods every value has (Equals, Hash), as their structural defaults
_STRUCTURAL = {"eq": ops.eq, "neq": ops.ne, "hash": hashing.hash_value}


def builtin_at(f, name: str, targs: tuple, *type_args):
    """`$builtin_at`: stdlib function `name` (native `f`) as a value at type arguments `targs`
    (`string.from<int>`); a native that receives its type arguments gets `type_args` first."""
    def at(*args):
        return f(*type_args, *args)
    at.baml_native_at = (name, targs)
    return at


def bind_method_or(recv, name: str, fn):
    """`recv.name` as a value where `name` is an interface's method (or a builtin type's from an
    `implements … for` block): an instance's own method, else `fn` (the interface's dispatcher
    or that block's method) bound to the receiver (`let f = seven.echo<string>`)."""
    m = getattr(recv, "m_" + name, None)
    return m if m is not None else partial(fn, recv)


# a run-time value's Python type → its receiver kind for dynamic dispatch (the bound-method
# kinds, null, and the stdlib's opaque values)
_DISPATCH_KINDS = {**_KINDS, type(None): "null", iters.Iter: "iter", reflect_session.RPackage: "package",
                   reflect_session.RSession: "session", reflect_std.RBuilder: "builder",
                   reflect_std.RPending: "pending", reflect_std.RImpl: "witness"}
# the builtin types' values, which have the methods every value has (`to_string`, `eq`, …)
_BUILTIN_VALUES = (int, float, str, bool, type(None), list, dict, bytearray, BigInt, TypedList, TypedMap)


def make_dispatcher(name: str, method_of=None, any_class=None):
    """`recv.name(args)` on a receiver whose type is known only at run time. `method_of(recv,
    name)` finds an instance's method (instrumented spaces); by default the class's binding."""
    table = {}
    for py, kind in _DISPATCH_KINDS.items():
        native = METHODS.get(kind, {}).get(name)
        if native is not None:
            table[py] = native.fn
    attr = "m_" + name
    common = _every_value_method(name)
    if common is not None:
        for py in _BUILTIN_VALUES:
            table.setdefault(py, common)

    def dispatch(recv, *args, **kw):
        f = table.get(type(recv))
        if f is not None:
            return f(recv, *args, **kw)  # a native: no BAML frame below it
        if isinstance(recv, Instance):
            m = (method_of(recv, name) if method_of else getattr(recv, attr, None)) or getattr(recv, "f_" + name, None)
            if m is not None:
                if kw:
                    return call_kw(m, args, kw.keys(), tuple(kw.values()))
                return call_n(m, args)
            adapter = table.get(iters.Iter)  # an iterator adapter on a user Iterator/Iterable
            it = iters.from_user(recv) if adapter is not None else None
            if it is not None:
                return adapter(it, *args, **kw)
        if common is not None:
            return common(recv, *args)
        if any_class is not None and isinstance(recv, Instance):
            return any_class(recv, *args)
        if type(recv) is Variant:
            raise TypeError(f"enum value has no method {name}")
        raise TypeError(f"{type(recv).__name__} has no method {name}")

    return dispatch


def call_kw(f, args, keys, values):
    params = getattr(f, "baml_params", None)
    if params is None:
        bound = getattr(f, "__func__", None)
        params = getattr(bound, "baml_params", [])[1:] if bound is not None else []
    full = list(args) + [OMITTED] * (len(params) - len(args))
    for k, v in zip(keys, values):
        full[params.index(k)] = v
    return call_n(f, full)


def call_n(f, args):
    """`f(*args)` as a fixed-arity call for small arities (CPython then grows no C stack)."""
    n = len(args)
    if n == 0:
        return f()
    if n == 1:
        return f(args[0])
    if n == 2:
        return f(args[0], args[1])
    if n == 3:
        return f(args[0], args[1], args[2])
    if n == 4:
        return f(args[0], args[1], args[2], args[3])
    return f(*args)


def cleanup_begin(obj) -> bool:
    """`$cleanup_begin`: whether `obj`'s `cleanup` already ran; the first call sets the latch."""
    if getattr(obj, "_cleaned", False):
        return True
    obj._cleaned = True
    return False


def with_targs(obj, targs: str):
    """`$with_targs`: record a generic instance's type arguments (mir/lower.py); an argument
    `('field', name)` is the type of that field's value, as far as a value shows it."""
    if "'field'" in targs:
        spec = _TARGS.get(targs)
        if spec is None:
            spec = _TARGS[targs] = ast.literal_eval(targs)
        targs = repr(tuple(_value_test(getattr(obj, "f_" + a[1])) if a[0] == "field" else a for a in spec))
    obj._targs = targs
    return obj


_JSON_SCALARS = frozenset({int, float, str, bool, type(None), BigInt})


def is_json(v) -> bool:
    """`v is json`: a scalar, or an array or map built as json (`json[]`, `map<string, json>`:
    a BAML container records its element types, and only those are json)."""
    t = type(v)
    if t in _JSON_SCALARS:
        return True
    return (t is TypedList and v.elem == JSON_TEST) or (t is TypedMap and v.elem == JSON_ENTRY)


_VALUE_TESTS = {int: ("int",), float: ("float",), str: ("string",), bool: ("bool",), type(None): ("null",),
                BigInt: ("bigint",)}


def _value_test(v) -> tuple:
    t = _VALUE_TESTS.get(type(v))
    if t is not None:
        return t
    if isinstance(v, Instance):
        targs = getattr(v, "_targs", None)
        return ("class", v._class.fqn, ast.literal_eval(targs)) if targs else ("class", v._class.fqn)
    return ("any",)  # arrays, maps, functions: their element types are not recorded


def _targs_match(recorded: str | None, wanted: tuple) -> bool:
    """Type arguments as recorded (None: not recorded, as for host-built instances) against a
    test's; an unknown argument (a type variable) on either side matches any."""
    if recorded is None:
        return True
    if recorded == repr(wanted):
        return True
    got = _TARGS.get(recorded)
    if got is None:
        got = _TARGS[recorded] = ast.literal_eval(recorded)
    return len(got) == len(wanted) and all(_targ_fits(a, b) for a, b in zip(got, wanted))


def _targ_fits(a: tuple, b: tuple) -> bool:
    """One recorded type argument against a test's: equal where both know it; an unknown part
    (a type variable, a literal the checker could not type: ('any',)) matches any."""
    if a == b or ("any",) in (a, b):
        return True
    return (a[0] == b[0] and len(a) == len(b) and a[0] in ("array", "map", "class", "union")
            and all(_targ_fits(x, y) if isinstance(x, tuple) and isinstance(y, tuple) else x == y
                    for x, y in zip(a[1:], b[1:])))


_TARGS: dict[str, tuple] = {}


def record_fresh(v, rec: str):
    """A new array or map from a builtin (`xs.map(f)`), recording the type the checker gave it
    (a recorded one, `filter` of a recorded array, stays as it is)."""
    t = type(v)
    if t is list:
        return typed_list(v, _literal(rec))
    if t is dict:
        return typed_map(v, _literal(rec))
    return v


def _literal(text: str):
    """A descriptor constant (MIR holds it as its repr), parsed once."""
    got = _TARGS.get(text)
    if got is None:
        got = _TARGS[text] = ast.literal_eval(text)
    return got


def iter_items(v):
    if type(v) is str:
        return list(v)
    if isinstance(v, list):
        return v
    return iters.for_in_items(v)


def load_index(c, i):
    t = type(c)
    if t is list or t is bytearray or t is TypedList:  # a uint8array reads as an array of bytes
        n = len(c)
        if -n <= i < n:
            return c[i]
        ops.panic("baml.panics.IndexOutOfBounds", index=i, length=n)
    try:
        return c[ops.mkey(i)]
    except KeyError:
        ops.panic("baml.panics.MapKeyNotFound", key="(unknown)")


def store_index(c, i, v):
    if type(c) is list or type(c) is TypedList:
        n = len(c)
        if -n <= i < n:
            c[i] = v
            return
        ops.panic("baml.panics.IndexOutOfBounds", index=i, length=n)
    if type(c) is bytearray:  # a byte store keeps the low 8 bits, as push does
        n = len(c)
        if -n <= i < n:
            c[i] = v & 0xFF
            return
        ops.panic("baml.panics.IndexOutOfBounds", index=i, length=n)
    c[ops.mkey(i)] = v


def overflow(op, a, b):
    ops.panic("baml.panics.IntegerOverflow", message=f"{a} {op} {b} overflows int")


def is_panic(v) -> bool:
    return isinstance(v, Instance) and v._class.fqn.startswith("baml.panics.")


def rethrow(v):
    return errctx.rethrown(v)


def unreachable():
    return BamlRaise(ops.make_builtin("baml.panics.Unreachable", message="entered unreachable code"), True)


def error_value(e: Exception):
    """The BAML value of an error caught by a handler (generated handlers catch Exception
    only: KeyboardInterrupt, TimeLimit and extension aborts pass them by)."""
    if isinstance(e, BamlRaise):
        errctx.caught(e)
        return e.value
    if isinstance(e, RecursionError):
        return ops.make_builtin("baml.panics.StackOverflow", message="stack overflow")
    if isinstance(e, MemoryError):
        return _alloc_failure().value
    raise e


def _alloc_failure() -> BamlRaise:
    """A Python MemoryError (a huge `repeat`, `Array.filled`) as the engine's panic."""
    return BamlRaise(ops.make_builtin("baml.panics.AllocFailure", message="memory allocation failed"), True)


_HELPERS = {
    "partial": partial, "BamlRaise": BamlRaise, "typed_list": typed_list, "typed_map": typed_map, "TypedList": TypedList, "TypedMap": TypedMap, "load_index": load_index, "store_index": store_index,
    "bind_method": bind_method,
    "overflow": overflow, "is_panic": is_panic, "rethrow": rethrow, "unreachable": unreachable,
    "call_kw": call_kw, "truthy": ops.truthy, "neg": ops.neg,
    "add": ops.add, "sub": ops.sub, "mul": ops.mul, "div": ops.div, "mod": ops.mod,
    "shl": ops.shl, "shr": ops.shr, "bit_and": ops.bit_and, "bit_or": ops.bit_or,
    "bit_xor": ops.bit_xor, "bit_not": ops.bit_not, "mkey": ops.mkey, "eq": ops.eq, "ne": ops.ne, "lt": ops.lt, "le": ops.le,
    "gt": ops.gt, "ge": ops.ge, "fdiv": ops.fdiv, "fmod": ops.fmod,
}


def run_deep(fn, args):
    """Call `fn(*args)` from Python, on this thread: Python's recursion limit raised to
    stack.PY_LIMIT while any call runs (thread-safe: the last call out restores it), a
    RecursionError turned into baml.panics.StackOverflow. With less than stack.MARGIN bytes
    of C stack left (a deep host callable calling back), the call runs on a big-stack worker
    instead (it has not started: nothing runs twice)."""
    if stack.room() < stack.MARGIN:
        return stack.hop(run_deep, fn, args)
    global _active, _saved_limit
    with _limit_lock:
        if _active == 0:
            _saved_limit = sys.getrecursionlimit()
            if _saved_limit < stack.PY_LIMIT:
                sys.setrecursionlimit(stack.PY_LIMIT)
        _active += 1
    try:
        return fn(*args)
    except RecursionError:
        raise BamlRaise(ops.make_builtin("baml.panics.StackOverflow", message="stack overflow"), True) from None
    except MemoryError:
        raise _alloc_failure() from None
    finally:
        with _limit_lock:
            _active -= 1
            if _active == 0 and sys.getrecursionlimit() == stack.PY_LIMIT:
                sys.setrecursionlimit(_saved_limit)


_limit_lock = threading.Lock()
_active = 0  # calls from Python running now, on every thread
_saved_limit = 1000


def _guarded(fn, args):
    """Kept for callers of the old name: a call from Python (run_deep)."""
    return run_deep(fn, args)


def _closure_maker(n_caps: int, n_params: int):
    """`make(f, c0, …)`: a Python function calling `f(c0, …, p0, …)` — a Python-to-Python
    call, which CPython runs without growing the C stack (functools.partial does grow it)."""
    key = (n_caps, n_params)
    make = _MAKERS.get(key)
    if make is None:
        caps = [f"c{i}" for i in range(n_caps)]
        params = [f"p{i}" for i in range(n_params)]
        src = (f"def make(f, {', '.join(caps)}):\n"
               f"    def closure({', '.join(params)}):\n"
               f"        return f({', '.join(caps + params)})\n"
               f"    return closure\n")
        env: dict = {}
        exec(src, env)
        make = _MAKERS[key] = env["make"]
        CLOSURE_CODES.add(_inner_code(make))
    return make


def _inner_code(make):
    return next(c for c in make.__code__.co_consts if hasattr(c, "co_code"))


CLOSURE_CODES: set = set()  # code objects of closures made by _closure_maker (BAML function values)


def specialize(f, n: int, targs: tuple):
    """`$specialize`: generic function `f` (of `n` parameters, then `$targs`; n = -1: it takes
    none) as a value at type arguments `targs` (`id<int>`), which its signature is at."""
    if n < 0:
        def specialized(*args):
            return f(*args)
    else:
        def specialized(*args):
            return f(*args, *(OMITTED,) * (n - len(args)), targs)
    specialized.baml_targs = targs
    if isinstance(f, MethodType):  # its class's type arguments: its receiver's (targs_of)
        specialized.baml_self = f.__self__
    return specialized


CLOSURE_CODES.update(c for c in specialize.__code__.co_consts if hasattr(c, "co_code"))


def fn_targs(f, targs):
    """`$fn_targs`: a lambda just made (a fresh Python function) in a generic function, its
    signature at the maker's type arguments `targs` (reflect's targs_of)."""
    if targs is not None:
        f.baml_targs = targs
    return f


def is_baml_function(rt: "Runtime", v) -> bool:
    """Is `v` a BAML function value (a generated function or a closure of one)?"""
    code = getattr(v, "__code__", None)
    return code is not None and (code in CLOSURE_CODES or code in rt.trace_lines)


_MAKERS: dict = {}


Stub = _Stub  # for the bridge: a function value not compiled yet
