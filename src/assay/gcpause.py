"""Compiling allocates many long-lived objects and almost no garbage, so Python's cyclic GC
would only re-scan them again and again: it is paused while compiling. At exit, everything is
frozen so that the interpreter's final collection does not walk the whole program (the OS frees
the memory anyway; Python does not promise finalizers at exit)."""
from __future__ import annotations

import atexit
import gc
from contextlib import contextmanager


@contextmanager
def paused():
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


atexit.register(gc.freeze)
