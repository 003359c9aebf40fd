"""The instrumented variant of a function, generated from its bytecode plus the extensions'
sidecar tables (mirx): the plain generator's code with each extension's run-time half called
where it asked — never used by a run that attaches no extension.

Extension `i` is the global `X{i}` of the code space. Hooks are emitted only for the methods an
extension overrides (see assay.mirx.Extension):
  at(fn, pc, data)           before an instruction that has a sidecar entry
  on_branch(fn, data, taken) first thing on each edge of a conditional terminator
  on_call(fn, args)          on entry;  on_return(fn, value) before each return
  on_raise(fn, error)        when an error leaves the function (then it propagates)
"""
from __future__ import annotations

from .pygen import FunctionGen


def overrides(ext, method: str) -> bool:
    from ..mirx import Extension
    return getattr(type(ext), method, None) is not getattr(Extension, method)


class InstrumentedGen(FunctionGen):
    fuse_returns = False

    def __init__(self, fn, names, extensions, sidecars):
        super().__init__(fn, names)
        self.fqn = repr(fn.fqn)
        self.exts = [(f"X{i}", e, sidecars[i]) for i, e in enumerate(extensions)]
        self.want = {m: [x for x in self.exts if overrides(x[1], m)]
                     for m in ("at", "on_branch", "on_call", "on_return", "on_raise")}

    def data(self, table: dict, pc: int) -> str:
        return self.names.const(table[pc]) if pc in table else "None"

    def before(self, pc: int) -> None:
        for name, ext, table in self.exts:
            if pc not in table:
                continue
            if ext.counting:  # compiled in: a list increment, no call
                self.line(f"{name}_hits[{self.counter(name, ('at', table[pc]))}] += 1")
            elif overrides(ext, "at"):
                self.line(f"{name}.at({self.fqn}, {pc}, {self.data(table, pc)})")

    def branch_edge(self, pc: int, taken: bool) -> None:
        node = self.fn.branch_node.get(pc, pc)
        for name, ext, table in self.exts:
            if ext.counting:
                if node in table:
                    self.line(f"{name}_hits[{self.counter(name, ('branch', table[node], taken))}] += 1")
            elif overrides(ext, "on_branch"):
                self.line(f"{name}.on_branch({self.fqn}, {self.data(table, node)}, {taken})")

    def counter(self, name: str, key) -> int:
        """A new slot of the extension's hit list for `key` (keys are kept beside the list)."""
        hits, keys = self.names.env[name + "_hits"], self.names.env[name + "_keys"]
        keys.append(key)
        hits.append(0)
        return len(hits) - 1

    def prologue(self) -> None:
        params = ", ".join(f"v{i + 1}" for i in range(len(self.fn.params)))
        for name, _, _ in self.want["on_call"]:
            self.line(f"{name}.on_call({self.fqn}, ({params}{',' if params else ''}))")

    def op_return(self, _) -> None:
        if not self.want["on_return"]:
            return super().op_return(_)
        value = self.pop()
        self.line(f"_r = {value}")
        for name, _, _ in self.want["on_return"]:
            self.line(f"{name}.on_return({self.fqn}, _r)")
        self.line("return _r")

    def generate(self, pyname: str) -> str:
        src = super().generate(pyname)
        if not self.want["on_raise"]:
            return src
        head, _, body = src.partition("\n")
        self.line_pcs.insert(1, 0)  # the `try:` line
        inner = "\n".join("    " + line if line else line for line in body.rstrip("\n").split("\n"))
        hooks = "".join(f"\n            {name}.on_raise({self.fqn}, error_value(_x))"
                        for name, _, _ in self.want["on_raise"])
        return (f"{head}\n    try:\n{inner}\n    except Exception as _x:\n        try:{hooks}\n"
                f"        except Exception:\n            pass\n        raise\n")
