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


def _log(data, event_name=None):
    """`log.*`: the engine sends a structured event to its host's listeners; a plain run of
    the engine shows nothing, and neither does Assay."""
    return None


for _level in ("info", "debug", "warn", "error"):
    function(f"log.{_level}")(_log)
