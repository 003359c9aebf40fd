"""baml.io: print/println/eprint/eprintln. STDOUT/STDERR are settable (the CLI redirects)."""
from __future__ import annotations

import sys

from ._registry import function

STDOUT = sys.stdout
STDERR = sys.stderr


@function("baml.io.print")
def print_(s):
    STDOUT.write(s)
    try:
        STDOUT.flush()
    except Exception:
        pass


@function("baml.io.println")
def println(s):
    STDOUT.write(s + "\n")
    try:
        STDOUT.flush()
    except Exception:
        pass


@function("baml.io.eprint")
def eprint(s):
    STDERR.write(s)


@function("baml.io.eprintln")
def eprintln(s):
    STDERR.write(s + "\n")
