"""BEX bytecode: a stack machine, one code array per function.

Instructions are tuples `(opcode, arg)`; the stack is empty at every jump target. The exception
table routes any error raised in [start, end) to `handler`, storing the error value in the local
`slot`. `assay dis` prints this form; the VM runs what it generates from it (bex/pygen.py).
"""
from __future__ import annotations

from dataclasses import dataclass, field

from ..mir.ir import FnRef
from ..mir.typetest import show

# opcode → what `arg` holds (for the disassembler and the docs)
OPCODES = {
    "load_const": "constant",        # → c
    "load_var": "local",             # → local
    "store_var": "local",            # v →
    "load_deref": "",                # cell → cell's value
    "store_deref": "",               # cell, v →
    "make_cell": "",                 # v → new cell
    "load_field": "field name",      # obj → obj.f
    "store_field": "field name",     # obj, v →
    "load_method": "method name",    # obj → obj's method, bound (dispatched on obj's class)
    "load_index": "kind",            # coll, i → coll[i]   (IndexOutOfBounds / MapKeyNotFound)
    "store_index": "kind",           # coll, i, v →        (kind: array / map when known)
    "bin_op": "operator",            # a, b → a op b   (BAML semantics, any operand types)
    "bin_op_int": "operator",        # a, b → a op b   (both operands statically int)
    "bin_op_float": "operator",      # … both statically float
    "bin_op_string": "operator",     # … both statically string
    "bin_op_bool": "operator",       # … both statically bool
    "unary_op": "operator",          # a → op a   ('!' applies truthiness)
    "truthy": "",                    # v → bool
    "len": "",                       # coll → length
    "alloc_array": "count",          # e1..en → array
    "alloc_typed_array": "(count, element type)",  # e1..en → array recording its element type
    "concat": "count",               # s1..sn → s1 + … + sn   (strings)
    "alloc_map": "count",            # k1, v1, …, kn, vn → map
    "alloc_typed_map": "(count, (key type, value type))",  # … → map recording its entry types
    "alloc_instance": "class",       # f1..fn → instance (fields in declaration order)
    "is_type": "type test",          # v → bool
    "make_closure": "(function, n)", # cell1..celln → closure
    "call": "(function, n)",         # a1..an → result   (user function)
    "call_native": "(builtin, n)",   # a1..an → result   (stdlib function)
    "call_method": "(name, n, kw)",  # recv, a1..an → result   (dispatch on recv)
    "call_indirect": "(n, kw)",      # f, a1..an → result
    "call_llm": "(function, n)",     # a1..an → result   (an LLM function's body: ask the LLM client)
    "pop": "",                       # v →
    "jump": "target",
    "pop_jump_if_false": "target",   # cond →
    "return": "",                    # v → (returns)
    "throw": "",                     # v → (raises)
    "rethrow": "",                   # err → (re-raises a caught error as it was)
    "throw_if_panic": "",            # err → (re-raises panics only)
    "unreachable": "",
}


@dataclass
class ExcEntry:
    start: int
    end: int
    handler: int
    slot: int


@dataclass
class BexFunction:
    fqn: str
    params: list[str]
    has_default: list[bool]
    n_locals: int
    local_names: list[str | None]
    code: list[tuple] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)  # source line per instruction (0 = none)
    exc_table: list[ExcEntry] = field(default_factory=list)
    n_captures: int = 0
    file: str = ""
    ext: dict[str, dict[int, object]] = field(default_factory=dict)  # sidecars: name → {pc: data}
    # pc of each pop_jump_if_false → first pc of the MIR terminator it implements
    branch_node: dict[int, int] = field(default_factory=dict)


def show_arg(op: str, arg) -> str:
    if arg is None:
        return ""
    if op == "load_const":
        return _show_const(arg)
    if op in ("call", "call_native", "make_closure", "call_llm"):
        return f"{arg[0]}, {arg[1]}"
    if op == "call_method":
        name, n, kw = arg
        return f".{name}, {n}" + (f", kw={list(kw)}" if kw else "")
    if op == "call_indirect":
        n, kw = arg
        return f"{n}" + (f", kw={list(kw)}" if kw else "")
    if op == "is_type":
        return show(arg)
    if op.startswith("bin_op") and isinstance(arg, tuple):
        return f"{arg[0]} (overflow message swapped)"
    if op in ("load_field", "store_field", "load_method"):
        return "." + arg
    return str(arg)


def _show_const(v) -> str:
    if isinstance(v, FnRef):
        return f"fn {v.fqn}"
    if isinstance(v, str):
        return '"' + v.encode("unicode_escape").decode("ascii").replace('"', '\\"') + '"'
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    return repr(v)


def disassemble(fn: BexFunction) -> str:
    targets = {arg for op, arg in fn.code if op in ("jump", "pop_jump_if_false")}
    targets |= {e.handler for e in fn.exc_table}
    out = [f"fn {fn.fqn}({', '.join(fn.params)})  locals={fn.n_locals}"]
    for pc, (op, arg) in enumerate(fn.code):
        label = f"L{pc}:" if pc in targets else ""
        text = op
        if arg is not None:
            a = show_arg(op, arg)
            if op in ("jump", "pop_jump_if_false"):
                a = f"L{arg}"
            elif op in ("load_var", "store_var"):
                name = fn.local_names[arg]
                a = f"{arg}" + (f" ({name})" if name else "")
            text = f"{op} {a}"
        out.append(f"  {label:<6}{pc:>4}  {text}")
    for e in fn.exc_table:
        out.append(f"  exception: [{e.start}, {e.end}) -> L{e.handler}, error in {e.slot}")
    return "\n".join(out)
