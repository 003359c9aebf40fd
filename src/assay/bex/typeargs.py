"""A generic builtin's type argument at run time (`baml.json.decode<User>` receives `User`).

Lowering passes each type argument of a builtin that takes them (sema/stdsigs.py
TYPE_ARG_FUNCTIONS) as a leading constant (mir/ir.py TypeArg); the generated code holds one
TypeArg per distinct constant (Runtime.type_arg). `root` is a test of mir/typetest.py with
unions kept whole; `defs` gives, per class or enum test under it, what a native needs to build
values of that type: ('fields', ((name, alias, skip, test), ...)) or ('variants', ((name,
alias, skip), ...)); `classes` and `enums` are the program's, to build instances and variants.
"""
from __future__ import annotations


class TypeArg:
    __slots__ = ("root", "defs", "classes", "enums", "_test", "_make_test")

    def __init__(self, root: tuple, defs: dict, classes: dict, enums: dict, make_test=None):
        self.root = root
        self.defs = defs
        self.classes = classes
        self.enums = enums
        self._test = None
        self._make_test = make_test  # the runtime's type_predicate

    def test(self, v) -> bool:
        """Is `v` a value of this type (as `match` tests it)?"""
        if self._test is None:
            self._test = self._make_test(self.root)
        return self._test(v)

    def fields(self, test: tuple) -> tuple:
        """A class test's fields: ((name, alias, skip, test), ...)."""
        return self.defs.get(test, ("fields", ()))[1]

    def variants(self, test: tuple) -> tuple:
        """An enum test's variants: ((name, alias, skip), ...)."""
        return self.defs.get(test, ("variants", ()))[1]

    def __repr__(self) -> str:
        return f"<type {self.root!r}>"
