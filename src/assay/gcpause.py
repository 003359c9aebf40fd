"""Compiling allocates many long-lived objects and almost no garbage, so Python's cyclic GC
would only re-scan them again and again: it is paused while compiling. At exit, everything is
frozen so that the interpreter's final collection does not walk the whole program (the OS frees
the memory anyway; Python does not promise finalizers at exit)."""
from __future__ import annotations

import atexit
import gc


class paused:
    """`with paused():` — the cyclic GC off inside, as it was after (nests). A class, not a
    generator: explore enters it once per execution."""

    __slots__ = ("was",)

    def __enter__(self):
        self.was = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc):
        if self.was:
            gc.enable()


atexit.register(gc.freeze)
