"""The hash of class instances and enum values writes the type's number: the engine numbers a
program's classes then enums after its stdlib's, file by file, its files in hash-map order (so
only a program declaring its types in one file hashes alike every run). Such a program, run on
both engines (the engine asked at test time); the differential programs load many files into
one engine, so they cannot show it."""
from __future__ import annotations

import pytest

import assay

SOURCE = """
class Rec {
  buf int[]
  implements baml.hash.Hasher {
    function write(self, bytes: uint8array) -> void throws never { for (let b in bytes.to_array()) { self.buf.push(b) } }
    function finish(self) -> int throws never { 0 }
  }
}
enum Early { A B }
class Box<T> { v T }
interface Shaped { x int }
type Alias = Pt | int
class Pt { x int y int }
enum Late { C D E }
class Wrap { p Pt e Late items Pt[] m map<string, Late> }
const K = 3

function written(f: (Rec) -> void) -> int[] { let r = Rec { buf: [] }; f(r); r.buf }
function digest(f: (baml.hash.DefaultHasher) -> void) -> int { let h = baml.hash.DefaultHasher.new(); f(h); h.finish() }

function pt() -> int[] { written((r: Rec) -> void { Pt { x: 1, y: 2 }.hash(r) }) }
function rec() -> int[] { written((r: Rec) -> void { Rec { buf: [7] }.hash(r) }) }
function boxes() -> int[] { written((r: Rec) -> void { Box<int> { v: 1 }.hash(r); Box<string> { v: "s" }.hash(r) }) }
function early() -> int[] { written((r: Rec) -> void { let e: Early = Early.B; e.hash(r) }) }
function late() -> int[] { written((r: Rec) -> void { let e: Late = Late.E; e.hash(r) }) }
function nested() -> int {
  digest((h: baml.hash.DefaultHasher) -> void {
    Wrap { p: Pt { x: 1, y: 2 }, e: Late.C, items: [Pt { x: 3, y: 4 }], m: {"k": Late.D} }.hash(h)
  })
}
function in_array() -> int { digest((h: baml.hash.DefaultHasher) -> void { [Early.A, Early.B].hash(h) }) }
"""
CALLS = ["pt", "rec", "boxes", "early", "late", "nested", "in_array"]


_ENGINE_SIDE = """
import json, sys
sys.path.insert(0, sys.argv[1])
import baml_bridge as bb
import difflib_baml as dl
rt = dl.build_engine_runtime({"main.baml": sys.stdin.read()})
print(json.dumps({fn: bb.call_function_sync(rt, fn, {}).result() for fn in sys.argv[2:]}))
"""


@pytest.fixture(scope="module")
def engine_answers():
    """The engine's answers, from a runtime of its own in another process (a second runtime in
    this one would take the host-callable channel from the session's engine)."""
    pytest.importorskip("baml_bridge", reason="the reference engine is not importable")
    import json
    import os
    import subprocess
    import sys
    here = os.path.dirname(os.path.abspath(__file__))
    out = subprocess.run([sys.executable, "-c", _ENGINE_SIDE, here, *CALLS], input=SOURCE, capture_output=True,
                         text=True, timeout=600, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("fn", CALLS)
def test_type_numbers_hash_as_the_engine(engine_answers, fn):
    assert assay.compile(SOURCE).call(fn) == engine_answers[fn]
