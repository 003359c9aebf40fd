"""The instrumented variant of a function (mirx 2): the plain generator's code with each
extension's snippets compiled in, inline, beside the concrete values — never used by a run
that attaches no extension.

Per MIR node, an extension's compile half (`instrument`, `snippet`) is asked once per
function and extension type; its `Code` parts are placed here:
  before      ahead of the node's first instruction (checks: ahead of the guarded operation)
  after       once the node's destination holds its value; on a branch, on each edge
  substitute  ahead of a call, deciding whether the call runs
The generator keeps every MIR local a snippet may read (no fusion). An extension with
`shadow = True` gets a shadow variable `z<ext>_<local>` per local, passed to callees and back
through its call channel `_C<ext>` = [arguments, result], and the concreteness guard: where
every operand's shadow is None, a statement's destination shadow becomes None and the
snippet does not run (stores into places, cell reads and user calls always run theirs).
Placeholders a snippet may use are listed in docs/mirx.md §4.
"""
from __future__ import annotations

from ..extension import Code
from ..mir import ir
from .emit import emit_function
from .pygen import FunctionGen


class Node:
    """One MIR node of the function, where its instructions lie, and what each extension
    compiles in at it."""
    __slots__ = ("mir", "block", "first", "end", "view", "parts")

    def __init__(self, mir, block, first: int, end: int):
        self.mir, self.block, self.first, self.end = mir, block, first, end
        self.view = None
        self.parts: list = []  # per extension: (data, Code | None)

    @property
    def dest(self) -> int | None:
        d = getattr(self.mir, "dest", None)
        return d.index if isinstance(d, ir.Local) else None


def mir_nodes(mir) -> list[Node]:
    """Every statement, check and terminator with the instruction range it was emitted to."""
    out: list[Node] = []
    emit_function(mir, [lambda fn, b, n, first, end: out.append(Node(n, b, first, end))])
    return out


def compile_half(ext, fv, nodes: list[Node], events: dict) -> list:
    """(data, Code | None) of one extension for each node, then for each event."""
    out = []
    for node in nodes + list(events.values()):
        if node.end <= node.first and not isinstance(node.mir, (ir.Check, str)):
            out.append((None, None))  # emitted to nothing (a fall-through goto)
            continue
        data = ext.instrument(fv, node.view, range(node.first, node.end))
        code = ext.snippet(fv, node.view, data)
        if isinstance(code, str):
            code = Code(after=code) if _after_kind(node) else Code(before=code)
        out.append((data, code))
    return out


def _after_kind(node: Node) -> bool:
    return isinstance(node.mir, (ir.Assign, ir.Call, ir.Branch))


class _Counter:
    """`{counter}`: each use in a snippet is a new slot of the extension's counters."""

    def __init__(self, counters: list, key):
        self.counters, self.key = counters, key

    def __format__(self, spec) -> str:
        self.counters.append(self.key)
        return str(len(self.counters) - 1)


class InstrumentedGen(FunctionGen):
    fuse = False
    fuse_returns = False

    def __init__(self, bc, names, space, nodes: list[Node], events: dict):
        super().__init__(bc, names)
        self.space = space
        self.exts = space.extensions
        self.shadowed = [i for i, e in enumerate(self.exts) if e.shadow]
        self.nodes, self.events = nodes, events
        self.by_first: dict[int, list[Node]] = {}
        self.after_at: dict[int, list[Node]] = {}
        self.call_at: dict[int, Node] = {}
        self.subbed: set[int] = set()  # calls with a substitution (their `_sub` is live after)
        for n in nodes:
            self.by_first.setdefault(n.first, []).append(n)
            if isinstance(n.mir, ir.Call):
                pc = next(p for p in range(n.first, n.end) if self.code[p][0].startswith("call"))
                self.call_at[pc] = n
                self.after_at.setdefault(pc + 1, []).append(n)
            elif isinstance(n.mir, ir.Assign):
                self.after_at.setdefault(n.end - 1, []).append(n)
        # `_6 = _6 + _9`: code after the statement must see the operand's old value
        self.clobbered = {id(n): n.dest for n in nodes if isinstance(n.mir, ir.Assign) and n.dest is not None
                          and any(isinstance(o, ir.Copy) and o.place.index == n.dest
                                  for o in ir.node_operands(n.mir))}

    # ── placeholders ──

    def names_for(self, i: int, node: Node, **extra) -> dict:
        data, _ = node.parts[i]
        old = self.clobbered.get(id(node))
        ops = [f"o{old}" if isinstance(o, ir.Copy) and o.place.index == old else self.operand_expr(o)
               for o in ir.node_operands(node.mir)] if not isinstance(node.mir, str) else []
        dest = node.dest
        if node.mir == "entry":  # the parameters (captured cells first), as `{params}`
            ops = [f"v{k + 1}" for k in range(len(self.fn.params))]
        names = dict(ext=f"_E{i}", state=f"_S{i}", fn=repr(self.fn.fqn), pc=str(node.first),
                     site=repr(getattr(node.view, "site", "")), data=self.data_expr(data), ops=ops,
                     dest=f"v{dest}" if dest is not None else "None",
                     shadow=f"z{i}_{dest}" if dest is not None else "None",
                     shadows=[self.shadow_of(i, o) for o in ir.node_operands(node.mir)]
                     if not isinstance(node.mir, str) else
                     [f"z{i}_{k + 1}" for k in range(len(ops))] if i in self.shadowed else [],
                     result="v0", error="_x.value", counter=_Counter(self.space.counters[i], ("at", data)),
                     params="(" + "".join(f"v{k + 1}, " for k in range(len(self.fn.params))) + ")",
                     kwnames=repr(tuple(k for k, _ in getattr(node.mir, "kwargs", ()))))
        names.update(extra)
        return names

    def data_expr(self, data) -> str:
        if data is None or type(data) in (int, str, bool):
            return repr(data)
        return self.names.const(data)

    def operand_expr(self, o) -> str:
        return f"v{o.place.index}" if isinstance(o, ir.Copy) else self.const_expr(o.value)

    def shadow_of(self, i: int, o) -> str:
        return f"z{i}_{o.place.index}" if isinstance(o, ir.Copy) else "None"

    def emit_code(self, text: str, names: dict) -> None:
        for line in text.format(**names).split("\n"):
            if line.strip():
                self.line(line)

    # ── the concreteness guard ──

    def guarded(self, i: int, node: Node, text: str, names: dict, clear_dest: bool) -> None:
        """Emit `text` for extension i at node, behind the guard if the extension shadows."""
        if i not in self.shadowed or not _guards(node.mir):
            if text:
                self.emit_code(text, names)
            return
        live = [s for s in names["shadows"] if s != "None"]
        dest = names["shadow"] if clear_dest and node.dest is not None else None
        if not live or not text:
            if dest:
                self.line(f"{dest} = None")
            return
        test = " and ".join(f"{s} is None" for s in live)
        if dest:
            self.line(f"if {test}: {dest} = None")
            self.line("else:")
        else:
            self.line(f"if not ({test}):")
        self.ind += 1
        self.emit_code(text, names)
        self.ind -= 1

    # ── hook points ──

    def prologue(self) -> None:
        if not self.exts:
            return
        frame = ", ".join(f"(_E{i}, _S{i}, _C{i})" for i in range(len(self.exts)))
        self.line(f"[{frame}] = RUN.frame")
        fn = self.fn
        ncap = fn.n_captures
        declared = fn.params[ncap:]
        method = fn.fqn.rsplit(".", 1)[-1]
        for i in self.shadowed:
            rest = [f"z{i}_{k}" for k in range(fn.n_locals) if not ncap < k <= len(fn.params)]
            if rest:
                self.line(" = ".join(rest) + " = None")
            targets = "".join(f"z{i}_{ncap + 1 + k}, " for k in range(len(declared)))
            self.line(f"{targets or '_'} = take_args(_C{i}, {fn.fqn!r}, {method!r}, {tuple(declared)!r})"
                      if declared else f"_C{i}[0] = None")
        self.event("entry")

    def event(self, kind: str) -> None:
        node = self.events.get(kind)
        if node is None:
            return
        for i in range(len(self.exts)):
            _, code = node.parts[i]
            if code is not None and code.before:
                self.emit_code(code.before, self.names_for(i, node))

    def before(self, pc: int) -> None:
        for node in self.by_first.get(pc, ()):
            d = self.clobbered.get(id(node))
            if d is not None and any(i in self.shadowed or (p[1] is not None and p[1].after)
                                     for i, p in enumerate(node.parts)):
                self.line(f"o{d} = v{d}")
            for i in range(len(self.exts)):
                _, code = node.parts[i]
                if code is not None and code.before:
                    self.guarded(i, node, code.before, self.names_for(i, node), False)

    def after(self, pc: int) -> None:
        for node in self.after_at.get(pc, ()):
            for i in range(len(self.exts)):
                _, code = node.parts[i]
                text = code.after if code is not None else ""
                names = self.names_for(i, node)
                user_call = isinstance(node.mir, ir.Call) and node.mir.callee.kind != "native"
                if user_call and i in self.shadowed:
                    self.take_result(i, node, names)
                    if text:
                        self.emit_code(text, names)
                elif i in self.shadowed or text:
                    self.guarded(i, node, text, names, True)
                    if i in self.shadowed and node.dest is not None and id(node) in self.subbed:
                        self.line(f"if _sub is not None: {names['shadow']} = _sub[1]")

    def take_result(self, i: int, node: Node, names: dict) -> None:
        if node.dest is None:
            self.line(f"_C{i}[1] = None")
            return
        self.line(f"{names['shadow']} = take_ret(_C{i}, {_callee_tag(node.mir)!r})")

    def branch_edge(self, pc: int, taken: bool) -> None:
        node = next(n for n in self.by_first[self.fn.branch_node.get(pc, pc)] if isinstance(n.mir, ir.Branch))
        for i in range(len(self.exts)):
            _, code = node.parts[i]
            if code is None or not code.after:
                continue
            names = self.names_for(i, node, taken=str(taken),
                                   counter=_Counter(self.space.counters[i], ("branch", node.parts[i][0], taken)))
            if i in self.shadowed:
                cond = names["shadows"][0]
                if cond == "None":
                    continue
                self.line(f"if {cond} is not None:")
                self.ind += 1
                self.emit_code(code.after, names)
                self.ind -= 1
            else:
                self.emit_code(code.after, names)

    def substitutes(self, node: Node, i: int) -> bool:
        code = node.parts[i][1]
        return code is not None and bool(code.substitute)

    def call_result(self, expr: str) -> None:
        node = self.call_at.get(self.pc)
        if node is None:
            return self.result(expr)
        for i in self.shadowed:
            if node.mir.callee.kind != "native":
                args = node.mir.args[1:] if node.mir.callee.kind == "indirect" else node.mir.args
                shadows = "".join(self.shadow_of(i, a) + ", " for a in args)
                kws = "".join(self.shadow_of(i, a) + ", " for _, a in node.mir.kwargs)
                kwn = tuple(k for k, _ in node.mir.kwargs)
                self.line(f"_C{i}[0] = ({_callee_tag(node.mir)!r}, ({shadows}{kws}), {kwn!r}); _C{i}[1] = None")
        subs = [i for i in range(len(self.exts)) if self.substitutes(node, i)]
        if not subs:
            return self.result(expr)
        self.subbed.add(id(node))
        for k, i in enumerate(subs):  # the first extension that substitutes wins
            self.emit_code(("_sub = " if k == 0 else "if _sub is None: _sub = ") + node.parts[i][1].substitute,
                           self.names_for(i, node))
        t = self.target()
        self.line(f"if _sub is None: {t} = {expr}")
        self.line("else:")
        self.line(f"    {t} = _sub[0]")
        if node.mir.callee.kind != "native":
            for i in self.shadowed:  # the supplied shadow arrives as the callee's would
                self.line(f"    _C{i}[1] = ({_callee_tag(node.mir)!r}, _sub[1])")

    def op_return(self, _) -> None:
        value = self.pop()
        for i in self.shadowed:
            self.line(f"_C{i}[1] = ({self.fn.fqn!r}, z{i}_0)")
        self.line(f"return {value}")

    def generate(self, pyname: str) -> str:
        src = super().generate(pyname)
        node = self.events.get("raise")
        texts = [(i, node.parts[i][1].before) for i in range(len(self.exts))
                 if node is not None and node.parts[i][1] is not None and node.parts[i][1].before]
        if not texts:
            return src
        head, _, body = src.partition("\n")
        self.line_pcs.insert(1, 0)  # the `try:` line
        inner = "\n".join("    " + line if line else line for line in body.rstrip("\n").split("\n"))
        self.out, self.ind = [], 2
        for i, text in texts:
            self.emit_code(text, self.names_for(i, node))
        hooks = "\n".join(self.out)
        return f"{head}\n    try:\n{inner}\n    except BamlRaise as _x:\n{hooks}\n        raise\n"


def _guards(n) -> bool:
    """Does the concreteness guard apply? Not to stores into places and reads of cells (the
    memory they touch may hold a shadow whatever the operands), nor to calls of user code
    (the callee decides its result's shadow)."""
    if isinstance(n, ir.Assign):
        cell = isinstance(n.dest, ir.CellPlace) or (
            isinstance(n.value, ir.Load) and isinstance(n.value.place, ir.CellPlace))
        return isinstance(n.dest, ir.Local) and not cell
    if isinstance(n, ir.Call):
        return n.callee.kind == "native"
    return True


def _callee_tag(call: ir.Call):
    """Who may take a call's argument shadows: a function by fqn, a method by name, or any
    function of the right arity (indirect calls)."""
    k = call.callee.kind
    if k == "fn":
        return call.callee.name
    if k == "method":
        return "." + call.callee.name
    return None
