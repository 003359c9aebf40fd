"""Differential tests: Assay's stdlib natives and operators (assay.bex.stdlib, assay.bex.ops)
against the real BAML engine (baml_bridge 0.23.0), which answers at test time.

Every case is a small BAML function (all compiled into ONE runtime) plus the same computation
written with the Python natives; both are run on the same inputs and must agree on the value,
or on the error class and fields."""
from __future__ import annotations

import copy
import math
import re

import pytest

bb = pytest.importorskip("baml_bridge")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from assay.bex import ops  # noqa: E402
from assay.bex.stdlib import FUNCTIONS, METHODS, ORDERING, kind_of, render  # noqa: E402
from assay.bex.stdlib import io as sio  # noqa: E402
from assay.bex.values import INT_MAX, INT_MIN, BamlRaise, ClassInfo, EnumInfo, Instance, Variant  # noqa: E402

NAN = float("nan")
INF = float("inf")


def M(kind, name):
    return METHODS[kind][name].fn


def F(name):
    return FUNCTIONS[name].fn


def S(name):
    return M("string", name)


def A(name):
    return M("array", name)


def I(name):  # noqa: E743
    return M("int", name)


def FL(name):
    return M("float", name)


def MP(name):
    return M("map", name)


def then(f, ret):
    """Call f for its effect, return ret (for `{ a.push(x); a }`-shaped BAML bodies)."""
    f()
    return ret


def raise_(v):
    raise BamlRaise(v)


# ----------------------------------------------------------------------------- the cases

PRELUDE = """
class P { x int? tags string[] m map<string, float> }
enum E { A B }
class Q { e E p P? }
class Z { }
"""
P_INFO = ClassInfo("user.P", "P", ["x", "tags", "m"])
Q_INFO = ClassInfo("user.Q", "Q", ["e", "p"])
Z_INFO = ClassInfo("user.Z", "Z", [])
E_INFO = EnumInfo("user.E", "E", ["A", "B"])
EA, EB = E_INFO.variants["A"], E_INFO.variants["B"]

CASES: list[tuple] = []


def case(params: str, ret: str, body: str, py, *argsets):
    CASES.append((f"f{len(CASES)}", params, ret, body, py, argsets or [()]))


STRS = ["", "hello", "héllo", "😀hi", "a,b,,c", "  x y\t\n", "\u00a0z\u3000", "\x1cq\x1f", "ÀÉ", "ß", "ΣΑΣ"]
IDX = [-100, -6, -5, -1, 0, 1, 2, 4, 5, 99]

# strings: no-arg
for name in ["length", "char_count", "is_empty", "byte_length", "to_lower_case", "to_upper_case",
             "trim", "trim_start", "trim_end", "chars", "lines", "to_code_points", "to_string",
             "is_numeric", "is_alphabetic", "is_alphanumeric", "is_uppercase", "is_lowercase",
             "is_whitespace", "is_control", "is_graphic", "is_ascii", "is_ascii_numeric",
             "is_ascii_alphabetic", "is_ascii_alphanumeric", "is_ascii_uppercase",
             "is_ascii_lowercase", "is_ascii_whitespace", "is_ascii_control", "is_ascii_graphic",
             "is_ascii_hex"]:
    ret = METHODS["string"][name].sig.split("-> ")[1]
    case("s: string", ret, f"s.{name}()", S(name), *[(s,) for s in STRS + [
        "12345", "Ⅷ", "漢字", "abc1", "HELLO", "Hello", "a\nb\r\nc\n", "\n", "a\r", "a\rb\n\r\n",
        "deadBEEF", "0x12", "\x00\x7f", "\x0b", "\u0345", "é́", "ǅ", "Ⓐ", "१२३", "٣"]])
case("s: string, d: string", "string[]", "s.split(d)", S("split"),
     *[(s, d) for s in ["a,b,,c", "", "abc", ",a,", "héllo"] for d in [",", "", "b", "ll", "xyz"]])
for name in ["includes", "starts_with", "ends_with", "index_of", "last_index_of"]:
    ret = METHODS["string"][name].sig.split("-> ")[1]
    case("s: string, t: string", ret, f"s.{name}(t)", S(name),
         *[(s, t) for s in ["hello world", "", "héllo", "abcabc"] for t in ["", "o", "l", "bc", "world", "zz"]])
case("s: string, a: int, b: int", "string", "s.slice(a, b)", S("slice"),
     *[(s, a, b) for s in ["hello", "😀hello", ""] for a in [-100, -3, 0, 2, 4, 10] for b in [-1, 0, 2, 4, 100]])
case("s: string, i: int", "string?", "s.at(i)", S("at"), *[(s, i) for s in ["hello", "héllo", ""] for i in IDX])
case("s: string, i: int", "int?", "s.code_point_at(i)", S("code_point_at"),
     *[(s, i) for s in ["hello", "🐑x"] for i in IDX])
case("s: string, n: int", "string", "s.repeat(n)", S("repeat"), *[("ab", n) for n in [-1, 0, 1, 3]])
case("s: string, a: string, b: string", "string", "s.replace(a, b)", S("replace"),
     *[(s, a, b) for s in ["a.b.c", "", "aaa"] for a in [".", "", "a", "zz"] for b in ["-", "", "$1"]])
case("s: string, a: string, b: string", "string", "s.replace_all(a, b)", S("replace_all"),
     *[(s, a, b) for s in ["a.b.c", "", "aaa"] for a in [".", "", "aa"] for b in ["-", ""]])
case("a: int[]", "string", "string.from_code_points(a)", F("string.from_code_points"),
     ([104, 105],), ([],), ([-1],), ([55296],), ([1114112],), ([104, 57343],), ([128017, 233],))
case("s: string", "string", "string.from_utf8(s.to_utf8())",
     lambda s: F("string.from_utf8")(S("to_utf8")(s)), ("héllo🐑",), ("",))

# ints
INTS = [0, 1, -1, 7, -7, 16, 10, 1000, 999, 1024, 51966, 4294967296, INT_MAX, INT_MIN, INT_MIN + 1]
for name in ["abs", "isqrt", "leading_zeros", "leading_ones", "trailing_zeros", "trailing_ones",
             "count_zeros", "count_ones", "to_string"]:
    case("x: int", METHODS["int"][name].sig.split("-> ")[1].split(" throws")[0], f"x.{name}()", I(name),
         *[(x,) for x in INTS])
case("x: int, e: int", "int", "x.pow(e)", I("pow"),
     *[(x, e) for x in [0, 1, -1, 2, -2, 10, -10, 3037000499] for e in [-1, 0, 1, 3, 4, 61, 62, 63, 100, 8589934592]])
case("x: int, b: int", "int", "x.ilog(b)", I("ilog"),
     *[(x, b) for x in [0, -5, 1, 9, 10, 999, 1000, 1024, INT_MAX] for b in [-2, 0, 1, 2, 10, INT_MAX]])
case("s: string", "int", "int.parse(s)", F("int.parse"),
     *[(s,) for s in ["42", "+7", "-0", "007", "", "-", "+", "abc", "12a", " 5", "5 ", "1_000", "0x10",
                      "9223372036854775807", "9223372036854775808", "4611686018427387903",
                      "4611686018427387904", "-4611686018427387904", "-4611686018427387905",
                      "-9223372036854775808", "-9223372036854775809", "99999999999999999999999", "١٢", "+-1"]])
for name in ["cmp", "max", "min"]:
    ret = {"cmp": "baml.ops.Ordering"}.get(name, "int")
    case("a: int, b: int", ret, f"a.{name}(b)", I(name), *[(a, b) for a in [-2, 3, 5] for b in [3, 5]])
case("a: int, lo: int, hi: int", "int", "a.clamp(lo, hi)", I("clamp"),
     *[(a, 0, 10) for a in [-3, 0, 5, 10, 15]], (5, 10, 0))
case("", "int[]", "[int.max_value(), int.min_value()]", lambda: [F("int.max_value")(), F("int.min_value")()])

# floats
FLOATS = [0.0, -0.0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999999999999994, 3.7, -3.7, 1e300, -1e300,
          1e-310, 4611686018427387904.0, -4611686018427387904.0, 4611686018427387903.0, 123456.789,
          NAN, INF, -INF, 2.0, 8.0, 0.9, -0.9, 1.0, -1.0, 100.0]
for name in ["is_nan", "is_infinite", "is_finite", "abs", "signum", "floor", "ceil", "round", "trunc",
             "fract", "sqrt", "exp", "ln", "log2", "log10", "cbrt", "sin", "cos", "tan", "asin", "acos",
             "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "to_radians", "to_degrees",
             "ifloor", "iceil", "iround", "itrunc", "to_string"]:
    ret = METHODS["float"][name].sig.split("-> ")[1].split(" throws")[0]
    case("x: float", ret, f"x.{name}()", FL(name), *[(x,) for x in FLOATS])
FPAIRS = [(a, b) for a in [0.0, -0.0, 2.0, -8.0, 0.5, 10.0, INF, -INF, NAN, 1.0] for b in [0.0, -0.0, 3.0, -1.0, 0.5, 1.0 / 3, INF, -INF, NAN, 2.0]]
for name in ["pow", "log", "hypot", "atan2", "cmp", "max", "min"]:
    ret = {"cmp": "baml.ops.Ordering"}.get(name, "float")
    case("a: float, b: float", ret, f"a.{name}(b)", FL(name), *FPAIRS)
case("a: float, lo: float, hi: float", "float", "a.clamp(lo, hi)", FL("clamp"),
     *[(a, 0.0, 1.0) for a in [-1.0, 0.5, 2.0, NAN, -0.0]])
case("s: string", "float", "float.parse(s)", F("float.parse"),
     *[(s,) for s in ["1.5", "-0.25", "1e3", "-1.5E-3", "inf", "-Infinity", "+INF", "NaN", "-nan", "", "abc",
                      " 1.0", "1_0", "1e400", ".5", "5.", "1e", "+.5e-3", "0x1p3", "infinit", "e5", ".",
                      "1.2.3", "-", "١", "1e+5", "0.1", "123456789012345678901234567890"]])
case("", "float[]", "[float.pi(), float.e(), float.golden_ratio(), float.inf(), float.max_finite(), float.min_finite(), float.epsilon()]",
     lambda: [F("float." + n)() for n in ["pi", "e", "golden_ratio", "inf", "max_finite", "min_finite", "epsilon"]])
case("", "bool", "float.nan().is_nan()", lambda: FL("is_nan")(F("float.nan")()))

# rendering
RFLOATS = [1.0, 100.0, 1e20, 1e-7, 0.1 + 0.2, -0.0, NAN, INF, -INF, 1.5, 123456789012345678.0, 1e16, 1e15,
           1e21, 1e22, 5e-324, 1.7976931348623157e308, 1e-5, 1e-4, 123.456, 2.0 ** 62, 1 / 3, -2.5e-8]
case("x: float", "string", "string.from(x)", F("string.from"), *[(x,) for x in RFLOATS])
case("x: float", "string", "`<${x}>`", lambda x: "<" + render(x) + ">", *[(x,) for x in RFLOATS[:8]])
case("x: float[]", "string", "string.from(x)", F("string.from"), ([1.0, NAN, -0.0, 1e20],), ([],))
case("x: string[]", "string", "string.from(x)", F("string.from"),
     (['a"b', "c\nd", "t\tx", "\\", "é🐑", "\x01", "\x7f", "\u200b", "'", "\r", "\x00", "\u00a0", "\u0301", "\u2028", "\ufeff", "\U000e0001"],))
case("", "string", 'let x: map<string, int[]> = {"k\\"": [1, 2], "": []}; string.from(x)', lambda: render({"k\"": [1, 2], "": []}))
case("x: int?", "string", "string.from(x)", F("string.from"), (None,), (3,))
case("x: bool[]", "string", "string.from(x)", F("string.from"), ([True, False],))
case("x: string", "string", "string.from(x)", F("string.from"), ("a\"b\n",))
case("", "string", 'string.from([P { x: null, tags: ["a"], m: {"k": 1.0} }])',
     lambda: render([P_INFO.new(None, ["a"], {"k": 1.0})]))
case("", "string", 'string.from(Q { e: E.B, p: P { x: 1, tags: [], m: {} } })',
     lambda: render(Q_INFO.new(EB, P_INFO.new(1, [], {}))))
case("", "string", "string.from(Z { })", lambda: render(Z_INFO.new()))
case("", "string", "string.from(E.A) + string.from(E.B)", lambda: render(EA) + render(EB))
case("", "string", 'string.from({1: "a", 2: "b"})', lambda: render({1: "a", 2: "b"}))
case("x: float[], s: string", "string", "x.join(s)", A("join"), ([1.0, 2.5, INF], ", "), ([], "-"), ([3.0], "-"))
case("x: string[], s: string", "string", "x.join(s)", A("join"), (['a"b', "c"], "-"), (["x"], ""))
case("x: int[][]", "string", 'x.join(";")', lambda x: A("join")(x, ";"), ([[1], [2, 3]],))

# arrays
ARRS = [[], [10], [10, 20, 30], [3, 1, 2, 1, 3]]
case("a: int[]", "int", "a.length()", A("length"), *[(a,) for a in ARRS])
case("a: int[], i: int", "int?", "a.at(i)", A("at"), *[(a, i) for a in ARRS[:3] for i in [-4, -3, -1, 0, 2, 3]])
case("a: int[], x: int", "int[]", "a.push(x); a", lambda a, x: then(lambda: A("push")(a, x), a), ([1], 2), ([], 0))
case("a: int[], x: int", "int", "a.push(x)", A("push"), ([1], 2))
case("a: int[]", "int?[]", "let p = a.pop(); [p, a.length()]", lambda a: [A("pop")(a), len(a)], *[(a,) for a in ARRS])
case("a: int[], i: int", "int?[]", "let r = a.remove_at(i); let out: int?[] = [r]; for (let x in a) { out.push(x) } out",
     lambda a, i: [A("remove_at")(a, i)] + a, *[(copy.copy(a), i) for a in ARRS[:3] for i in [-4, -1, 0, 1, 3, 99]])
case("a: int[], b: int[]", "int[]", "a.concat(b)", A("concat"), ([1], [2, 3]), ([], []))
case("a: int[]", "int[]", "a.reverse()", A("reverse"), *[(a,) for a in ARRS])
case("a: int[], s: int, e: int", "int[]", "a.slice(s, e)", A("slice"),
     *[([1, 2, 3, 4], s, e) for s in [-100, -2, 0, 1, 3, 9] for e in [-1, 0, 2, 4, 100]])
case("a: int[]", "int[]", "a.clear(); a", lambda a: then(lambda: A("clear")(a), a), ([1, 2],))
case("a: int[]", "int?[]", "let s = a.shift(); let out: int?[] = [s]; for (let x in a) { out.push(x) } out",
     lambda a: [A("shift")(a)] + a, ([10, 20],), ([],))
case("a: int[], x: int", "int[]", "let n = a.unshift(x); a.push(n); a", lambda a, x: then(lambda: A("push")(a, A("unshift")(a, x)), a), ([2, 3], 1), ([], 4))
case("a: int[], x: int, i: int", "int[]", "let n = a.insert(x, i); a.push(n); a",
     lambda a, x, i: then(lambda: A("push")(a, A("insert")(a, x, i)), a),
     *[([1, 2, 3], 9, i) for i in [-4, -3, -1, 0, 2, 3, 4, 100]], ([], 9, 0))
case("a: int[], s: int, c: int, r: int[]", "int[]", "a.splice(s, c, r); a",
     lambda a, s, c, r: then(lambda: A("splice")(a, s, c, r), a),
     *[([0, 1, 2, 3, 4], s, c, r) for s in [-6, -5, -2, 0, 1, 5, 6, 99] for c in [-1, 0, 2, 99] for r in [[], [9, 9]]])
case("a: int[], v: int", "bool[]", "[a.includes(v)]", lambda a, v: [A("includes")(a, v)], ([1, 2, 3], 2), ([1, 2, 3], 9), ([], 1))
case("a: int[], v: int", "int?[]", "[a.index_of(v), a.last_index_of(v)]",
     lambda a, v: [A("index_of")(a, v), A("last_index_of")(a, v)], ([10, 20, 10], 10), ([10, 20], 99), ([10, 20], 20))
case("a: float[], v: float", "int?", "a.index_of(v)", A("index_of"), ([1.0, NAN, -0.0], NAN), ([1.0, NAN, -0.0], 0.0))
case("a: string[][], v: string[]", "bool", "a.includes(v)", A("includes"), ([["a"], ["b", "c"]], ["b", "c"]), ([["a"]], []))
case("a: int[]", "int[]", "a.sort()", A("sort"), *[(a,) for a in ARRS] + [([5, -1, INT_MAX, INT_MIN, 0],)])
case("a: float[]", "float[]", "a.sort()", A("sort"), ([1.0, NAN, 0.5, -0.0, 0.0, -INF, INF],), ([2.5, 0.5],))
case("a: string[]", "string[]", "a.sort()", A("sort"), (["b", "a", "aa", "B", "é", ""],))
case("a: bool[]", "bool[]", "a.sort()", A("sort"), ([True, False, True],))
case("a: int[]", "int[]", "a.sort_by((x: int, y: int) -> baml.ops.Ordering { y.cmp(x) })",
     lambda a: A("sort_by")(a, lambda x, y: I("cmp")(y, x)), *[(a,) for a in ARRS])
case("a: int[]", "int[]", "a.sort_by((x: int, y: int) -> baml.ops.Ordering { (x % 3).cmp(y % 3) })",
     lambda a: A("sort_by")(a, lambda x, y: I("cmp")(x % 3, y % 3)), ([5, 3, 4, 6, 1, 9, 2, 7, 8, 0],))
case("a: int[]", "string", """{ a.sort_by((x: int, y: int) -> baml.ops.Ordering throws string { if (x == 1 || y == 1) { throw "no" } x.cmp(y) }); "ok" } catch (e) { string => e + string.from(a) }""",
     lambda a: "no" + render(a), ([3, 1, 2],))
case("a: string[]", "string[]", "a.sort_by_key((s: string) -> int { s.length() })",
     lambda a: A("sort_by_key")(a, len), (["ccc", "a", "bb", "d", ""],))
case("a: float[]", "float[]", "a.sort_by_key((x: float) -> float { -x })",
     lambda a: A("sort_by_key")(a, lambda x: -x), ([1.0, NAN, 3.0, 2.0],))
case("a: int[]", "int[]", "let seen: int[] = []; a.sort_by_key((x: int) -> int { seen.push(x); -x }); seen.concat(a)",
     lambda a: (lambda seen: (A("sort_by_key")(a, lambda x: (seen.append(x), -x)[1]), seen + a)[1])([]), ([3, 1, 2],))
case("a: int[]", "int[]", "a.filter((x: int) -> bool { x % 2 == 0 })", lambda a: A("filter")(a, lambda x: x % 2 == 0), *[(a,) for a in ARRS])
case("a: int[]", "int[]", "a.map((x: int) -> int { x * 2 })", lambda a: A("map")(a, lambda x: x * 2), *[(a,) for a in ARRS])
case("a: int[]", "int[]", "a.map((x: int) -> int { if (a.length() < 6) { a.push(0) } x })",
     lambda a: A("map")(a, lambda x: (A("push")(a, 0) if len(a) < 6 else None, x)[1]), ([1, 2],))
case("a: int[]", "int[]", "a.filter_map((x: int) -> int? { if (x > 1) { x * 10 } else { null } })",
     lambda a: A("filter_map")(a, lambda x: x * 10 if x > 1 else None), *[(a,) for a in ARRS])
case("a: int[]", "int[]", "a.flat_map((x: int) -> int[] { [x, x] })", lambda a: A("flat_map")(a, lambda x: [x, x]), *[(a,) for a in ARRS])
case("a: int[]", "int[]", "let out: int[] = []; a.for_each((x: int) -> void { out.push(x + 1); a.push(0); }); out",
     lambda a: (lambda out: (A("for_each")(a, lambda x: (out.append(x + 1), a.append(0))), out)[1])([]), ([1, 2, 3],))
for nm in ["some", "every", "find", "find_index", "find_last", "find_last_index"]:
    ret = {"some": "bool", "every": "bool", "find": "int?", "find_last": "int?"}.get(nm, "int?")
    case("a: int[]", "int[]", f"let n: int[] = []; let r = a.{nm}((x: int) -> bool {{ n.push(x); x > 1 }}); let out: int[] = [n.length()]; out.push(if (r == null) {{ -99 }} else if (r == true) {{ -1 }} else if (r == false) {{ -2 }} else {{ r ?? 0 }}); out"
         if False else f"let n: int[] = []; let r = a.{nm}((x: int) -> bool {{ n.push(x); x > 1 }}); n",
         lambda a, nm=nm: (lambda n: (A(nm)(a, lambda x: (n.append(x), x > 1)[1]), n)[1])([]), *[(a,) for a in ARRS])
    case("a: int[]", ret, f"a.{nm}((x: int) -> bool {{ x > 1 }})", lambda a, nm=nm: A(nm)(a, lambda x: x > 1), *[(a,) for a in ARRS] + [([1, 0],)])
case("a: int[]", "int", "a.reduce((acc: int, x: int) -> int { acc * 10 + x }, 7)",
     lambda a: A("reduce")(a, lambda acc, x: acc * 10 + x, 7), *[(a,) for a in ARRS])
case("a: int[]", "int", "a.sum()", A("sum"), *[(a,) for a in ARRS] + [([INT_MAX, 1],), ([INT_MAX, -1, 1],), ([INT_MIN, -1],)])
case("a: float[]", "float", "a.sum()", F("baml._sum_float"), ([],), ([1.0, 2.5],), ([-0.0],), ([1e308, 1e308],), ([0.1] * 10,))
case("a: float[]", "float", "a.mean()", A("mean"), ([],), ([1.0, 2.0, 3.0, 4.0],), ([0.1, 0.2, 0.7],), ([1e308, 1e308],))
case("a: float[]", "float", "a.median()", A("median"), ([],), ([3.0, 1.0, 2.0],), ([1.0, 2.0, 3.0, 4.0],),
     ([1e308, 1.7e308],), ([-1e308, -1.7e308],), ([NAN, 1.0],), ([NAN, 1.0, 2.0],), ([0.1, 0.7],),
     ([5e-324, 5e-324],), ([0.30000000000000004, 0.1],), ([-0.0, 0.0],), ([1.0, 1.0000000000000002],),
     ([0.3, 0.6000000000000001],), ([2.0, 3.0000000000000004],))
case("n: int, v: int", "int[]", "baml.Array.filled(n, v)", F("Array.filled"), (3, 0), (0, 1), (-1, 1))
case("n: int", "int[]", "baml.Array.generate(n, (i: int) -> int { i * i })", lambda n: F("Array.generate")(n, lambda i: i * i), (4,), (0,), (-3,))
case("", "int[][]", "let row = baml.Array.filled(2, 0); let g = baml.Array.filled(2, row); g[0].push(9); g",
     lambda: (lambda g: (g[0].append(9), g)[1])(F("Array.filled")(2, F("Array.filled")(2, 0))))
case("a: int[], b: int[]", "bool[]", "[a.eq(b), a.neq(b)]", lambda a, b: [A("eq")(a, b), A("neq")(a, b)], ([1], [1]), ([1], [2]))
case("a: int[]", "string", "a.to_string()", A("to_string"), ([1, 2],))

# maps
MAPS = [{}, {"a": 1}, {"z": 1, "a": 2, "m": 3}]
case("m: map<string, int>", "int", "m.length()", MP("length"), *[(m,) for m in MAPS])
case("m: map<string, int>, k: string", "bool", "m.has(k)", MP("has"), *[(m, k) for m in MAPS for k in ["a", "q"]])
case("m: map<string, int>", "string[]", "m.keys()", MP("keys"), *[(m,) for m in MAPS])
case("m: map<string, int>", "int[]", "m.values()", MP("values"), *[(m,) for m in MAPS])
case("m: map<string, int>, k: string, v: int", "int?[]", "let o = m.set(k, v); let out: int?[] = [o]; for (let x in m.values()) { out.push(x) } out",
     lambda m, k, v: [MP("set")(m, k, v)] + list(m.values()), *[(m, k, 9) for m in MAPS for k in ["a", "b"]])
case("m: map<string, int>, k: string", "int?", "m.get(k)", MP("get"), *[(m, k) for m in MAPS for k in ["a", "q"]])
case("m: map<string, int>, k: string", "string[]", "let o = m.delete(k); let out: string[] = [string.from(o)]; out.concat(m.keys())",
     lambda m, k: [render(MP("delete")(m, k))] + list(m), *[(m, k) for m in MAPS for k in ["a", "q"]])
case("m: map<string, int>, k: string", "int[]", "let r = m.get_or_insert(k, 7); let out: int[] = [r]; out.concat(m.values())",
     lambda m, k: [MP("get_or_insert")(m, k, 7)] + list(m.values()), *[(m, k) for m in MAPS for k in ["a", "q"]])
case("m: map<string, int>", "int", "m.clear(); m.length()", lambda m: (MP("clear")(m), len(m))[1], *[(m,) for m in MAPS])
case("m: map<string, int>, k: string", "int", "m[k]", MP("index"), ({"a": 1}, "a"), ({"a": 1}, "b"))
case("m: map<string, int>", "string", "m.to_string()", MP("to_string"), *[(m,) for m in MAPS])

# bool / null / Compare
case("a: bool, b: bool", "baml.ops.Ordering", "a.cmp(b)", M("bool", "cmp"), *[(a, b) for a in [True, False] for b in [True, False]])
case("a: bool, b: bool", "bool", "a.max(b)", M("bool", "max"), *[(a, b) for a in [True, False] for b in [True, False]])
case("a: string, b: string", "baml.ops.Ordering", "a.cmp(b)", S("cmp"), *[(a, b) for a in ["a", "aa", "B", ""] for b in ["a", "b"]])
case("a: string, b: string", "string", "a.max(b) + a.min(b)", lambda a, b: S("max")(a, b) + S("min")(a, b), ("a", "b"), ("b", "a"))

# deep_copy
case("", "int[]", "let a = [[1, 2], [3]]; let c = baml.deep_copy(a); a[0][0] = 99; c[0]",
     lambda: (lambda a: (lambda c: (a[0].__setitem__(0, 99), c[0])[1])(F("baml.deep_copy")(a)))([[1, 2], [3]]))
case("", "int[]", "let x = [1]; let a = [x, x]; let c = baml.deep_copy(a); c[0].push(2); c[1]",
     lambda: (lambda c: (c[0].append(2), c[1])[1])(F("baml.deep_copy")((lambda x: [x, x])([1]))))
case("", "string", 'let p = P { x: 1, tags: ["a"], m: {"k": 1.0} }; let c = baml.deep_copy(p); p.tags.push("b"); p.m["z"] = 2.0; string.from(c) + string.from(p)',
     lambda: (lambda p: (lambda c: (p.f_tags.append("b"), p.f_m.__setitem__("z", 2.0), render(c) + render(p))[2])(F("baml.deep_copy")(p)))(P_INFO.new(1, ["a"], {"k": 1.0})))

# asserts and panics
case("a: float, b: float", "string", 'assert.equal(a, b); "ok"', lambda a, b: (F("assert.equal")(a, b), "ok")[1],
     (NAN, 3.0), (NAN, NAN), (1e20, -0.0), (0.0, -0.0))
case("a: string, b: string?", "string", 'assert.equal(a, b); "ok"', lambda a, b: (F("assert.equal")(a, b), "ok")[1],
     ('x"y', None), ("a\nb", "c"), ("a", "a"))
case("a: string[], b: int[]", "string", 'assert.equal(a, b); "ok"', lambda a, b: (F("assert.equal")(a, b), "ok")[1], (["a"], [1]), ([], []))
case("a: int, b: float", "string", 'assert.equal(a, b); "ok"', lambda a, b: (F("assert.equal")(a, b), "ok")[1], (1, 1.0))
case("", "string", 'assert.equal(Q { e: E.A, p: null }, Q { e: E.B, p: null }); "ok"',
     lambda: (F("assert.equal")(Q_INFO.new(EA, None), Q_INFO.new(EB, None)), "ok")[1])
case("", "string", 'assert.equal({"a": [1]}, {"a": [2]}); "ok"', lambda: (F("assert.equal")({"a": [1]}, {"a": [2]}), "ok")[1])
case("a: float, b: float, e: float", "string", 'assert.approx_equal(a, b, e); "ok"',
     lambda a, b, e: (F("assert.approx_equal")(a, b, e), "ok")[1],
     (1.0, 1.5, 0.1), (1.0, 1.05, 0.1), (1.0, 1.0, -1.0), (NAN, 1.0, 1.0), (1.0, 1.0, NAN), (1e20, 1.0, 1e-7))
case("a: string, b: string", "string", 'assert.contains(a, b); "ok"', lambda a, b: (F("assert.contains")(a, b), "ok")[1], ("abc", "b"), ("abc", "x"))
case("v: int?", "string", 'assert.not_null(v); "ok"', lambda v: (F("assert.not_null")(v), "ok")[1], (None,), (0,))
case("v: bool", "string", 'assert.is_true(v); "ok"', lambda v: (F("assert.is_true")(v), "ok")[1], (True,), (False,))
case("s: string", "string", "baml.sys.panic(s)", F("baml.sys.panic"), ("boom",))
case("i: int", "int", "let a = [1, 2]; a[i]",
     lambda i: ops.panic("baml.panics.IndexOutOfBounds", index=i, length=2) if not -2 <= i < 2 else [1, 2][i], (5,), (-3,), (-2,))

# operators (fixed edge cases; the hypothesis tests below cover random operands)
for op, fn in [("+", ops.add), ("-", ops.sub), ("*", ops.mul), ("/", ops.div), ("%", ops.mod), ("<<", ops.shl), (">>", ops.shr),
               ("&", ops.bit_and), ("|", ops.bit_or), ("^", ops.bit_xor)]:
    case("a: int, b: int", "int", f"a {op} b", fn,
         *[(a, b) for a in [INT_MAX, INT_MIN, 7, -7, 0, -1, 1] for b in [INT_MAX, INT_MIN, 3, -3, 0, -1, 1, 2, 61, 62, 63, 64, 100]])
for op, fn in [("+", ops.add), ("-", ops.sub), ("*", ops.mul), ("/", ops.div), ("%", ops.mod)]:
    case("a: float, b: float", "float", f"a {op} b", fn, *FPAIRS)
    case("a: int, b: float", "float", f"a {op} b", fn, *[(a, b) for a in [0, 3, -7, INT_MAX] for b in [0.0, -0.0, 0.5, NAN, -INF]])
    case("a: float, b: int", "float", f"a {op} b", fn, *[(a, b) for a in [0.0, -2.5, INF] for b in [0, 2, -3]])
for op, fn in [("==", ops.eq), ("!=", ops.ne), ("<", ops.lt), ("<=", ops.le), (">", ops.gt), (">=", ops.ge)]:
    case("a: float, b: float", "bool", f"a {op} b", fn, *FPAIRS)
    case("a: string, b: string", "bool", f"a {op} b", fn, *[(a, b) for a in ["a", "B", "", "é"] for b in ["a", "b", "aa"]])
for op, fn in [("==", ops.eq), ("!=", ops.ne)]:
    case("a: int[], b: int[]", "bool", f"a {op} b", fn, ([1, 2], [1, 2]), ([1], [1, 2]), ([], []))
    case("a: map<string, int>, b: map<string, int>", "bool", f"a {op} b", fn, ({"x": 1, "y": 2}, {"y": 2, "x": 1}), ({"x": 1}, {"x": 2}), ({"x": 1}, {"y": 1}))
    case("a: float[], b: float[]", "bool", f"a {op} b", fn, ([NAN], [NAN]), ([-0.0], [0.0]))
case("a: int", "int[]", "[-a, ~a]", lambda a: [ops.neg(a), ops.bit_not(a)], (INT_MAX,), (INT_MIN,), (0,), (5,))
case("a: float", "float", "-a", ops.neg, (0.0,), (-0.0,), (NAN,), (INF,))
case("a: bool, b: bool", "bool[]", "[a == b, a != b]", lambda a, b: [ops.eq(a, b), ops.ne(a, b)], (True, True), (True, False))
case("a: bool, b: bool", "bool[]", "[a < b, a <= b, a > b, a >= b]", lambda a, b: [ops.lt(a, b), ops.le(a, b), ops.gt(a, b), ops.ge(a, b)],
     *[(a, b) for a in [True, False] for b in [True, False]])
case("a: int, b: float", "bool[]", "[a == b, a != b]", lambda a, b: [ops.eq(a, b), ops.ne(a, b)], (1, 1.0), (0, -0.0))
case("v: int?", "bool", "v == null", lambda v: ops.eq(v, None), (None,), (0,))
case("", "bool[]", "[E.A == E.A, E.A == E.B, E.A != E.B]", lambda: [ops.eq(EA, EA), ops.eq(EA, EB), ops.ne(EA, EB)])
case("", "bool[]", 'let a = P { x: 1, tags: ["t"], m: {} }; let b = P { x: 1, tags: ["t"], m: {} }; let c = P { x: null, tags: ["t"], m: {} }; [a == b, a == c, a != c]',
     lambda: (lambda a, b, c: [ops.eq(a, b), ops.eq(a, c), ops.ne(a, c)])(P_INFO.new(1, ["t"], {}), P_INFO.new(1, ["t"], {}), P_INFO.new(None, ["t"], {})))
for name, vals in [("int", [0, 3, -1]), ("float", [0.0, -0.0, NAN, 0.1]), ("string", ["", "0", "false"]), ("bool", [True, False])]:
    case(f"v: {name}", "bool", "if (v) { true } else { false }", ops.truthy, *[(v,) for v in vals])
case("a: int[], m: map<string, int>, v: int?", "bool[]", "[!a, !m, !v]", lambda a, m, v: [not ops.truthy(a), not ops.truthy(m), not ops.truthy(v)],
     ([], {}, None), ([0], {"a": 0}, 0), ([1], {}, 5))


# ----------------------------------------------------------------------------- the runtime

OPS_FNS = {
    "h_add": ("int", "+", ops.add), "h_sub": ("int", "-", ops.sub), "h_mul": ("int", "*", ops.mul),
    "h_div": ("int", "/", ops.div), "h_mod": ("int", "%", ops.mod), "h_shl": ("int", "<<", ops.shl),
    "h_shr": ("int", ">>", ops.shr), "h_ieq": ("bool", "==", ops.eq), "h_ilt": ("bool", "<", ops.lt),
    "h_fadd": ("float", "+", ops.add), "h_fsub": ("float", "-", ops.sub), "h_fmul": ("float", "*", ops.mul),
    "h_fdiv": ("float", "/", ops.div), "h_fmod": ("float", "%", ops.mod), "h_feq": ("bool", "==", ops.eq),
    "h_flt": ("bool", "<", ops.lt), "h_fle": ("bool", "<=", ops.le),
}


MAP_PARAM = ": map<string, int>"


def _source() -> str:
    # baml_bridge cannot pass maps as arguments: a `m: map<string, int>` parameter travels as
    # two arrays (keys, values) and is rebuilt in BAML.
    out = [PRELUDE, "function mkmap(ks: string[], vs: int[]) -> map<string, int> "
                    "{ let m: map<string, int> = {}; for (let i = 0; i < ks.length(); i += 1) { m[ks[i]] = vs[i]; } m }"]
    for name, params, ret, body, _py, _args in CASES:
        pre = ""
        ps = []
        for p in re.split(r", (?=\w+:)", params) if params else []:
            if p.endswith(MAP_PARAM):
                n = p.split(":")[0]
                ps.append(f"{n}__k: string[], {n}__v: int[]")
                pre += f"let {n} = mkmap({n}__k, {n}__v); "
            else:
                ps.append(p)
        out.append(f"function {name}({', '.join(ps)}) -> {ret} {{ {pre}{body} }}")
    for name, (ret, op, _fn) in OPS_FNS.items():
        t = "float" if name.startswith(("h_f",)) else "int"
        out.append(f"function {name}(a: {t}, b: {t}) -> {ret} {{ a {op} b }}")
    return "\n".join(out)


@pytest.fixture(scope="module")
def rt():
    from baml_bridge.typemap import BamlTypeMap, set_type_map

    class Loose(BamlTypeMap):
        def get_class(self, fqn):
            return dict

        def get_enum(self, fqn):
            raise bb.BamlError("loose")

    set_type_map(Loose())
    rt = bb.BamlRuntime.initialize_runtime(".", {"main.baml": _source()})
    __import__("difflib_baml").note_runtime(rt)  # the shared runtime builds itself again when next used
    return rt


# ----------------------------------------------------------------------------- comparison


def norm(v):
    """Python natives' result -> the shape baml_bridge decodes to."""
    if isinstance(v, Variant):
        return v.name
    if isinstance(v, Instance):
        return {f: norm(getattr(v, "f_" + f, None)) for f in v._class.fields}
    if isinstance(v, list):
        return [norm(x) for x in v]
    if isinstance(v, dict):
        return {k: norm(x) for k, x in v.items()}
    if isinstance(v, (bytes, bytearray)):
        return bytes(v)
    return v


def same(a, b) -> bool:
    if type(a) is not type(b):
        return False
    if type(a) is float:
        return repr(a) == repr(b)
    if type(a) is list:
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if type(a) is dict:
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    return a == b


def engine(rt, name, args: dict):
    for k in [k for k, v in args.items() if isinstance(v, dict)]:
        m = args.pop(k)
        args[k + "__k"], args[k + "__v"] = list(m), list(m.values())
    try:
        return ("ok", bb.call_function_sync(rt, name, args).result())
    except BaseException as e:  # BamlPanic derives from BaseException
        if type(e).__name__ not in ("BamlPanic", "BamlError"):
            raise
        return ("panic" if type(e).__name__ == "BamlPanic" else "throw", e.class_name, e.value)


def ours(fn, args: tuple):
    try:
        return ("ok", norm(fn(*args)))
    except BamlRaise as e:
        v = e.value
        cls = v._class.fqn if isinstance(v, Instance) else None
        return ("panic" if e.panic else "throw", cls, norm(v))


def agree(x, y) -> bool:
    if x[0] != y[0]:
        return False
    if x[0] == "ok":
        return same(x[1], y[1])
    return x[1] == y[1] and same(x[2], y[2])


@pytest.mark.parametrize("idx", range(len(CASES)), ids=[f"{c[0]}:{c[3][:40]}" for c in CASES])
def test_native_matches_engine(rt, idx):
    name, params, _ret, body, py, argsets = CASES[idx]
    pnames = [p.split(":")[0].strip() for p in re.split(r", (?=\w+:)", params)] if params else []
    bad = []
    for args in argsets:
        want = engine(rt, name, dict(zip(pnames, copy.deepcopy(args))))
        got = ours(py, copy.deepcopy(args))
        if not agree(want, got):
            bad.append((args, want, got))
    assert not bad, f"{body}: " + "\n".join(f"args={a!r}\n  engine={w!r}\n  assay ={g!r}" for a, w, g in bad[:8])


# ----------------------------------------------------------------------------- hypothesis: operators

BOUNDARY_INTS = [0, 1, -1, 2, -2, 62, 63, 64, INT_MAX, INT_MIN, INT_MAX - 1, INT_MIN + 1, 1 << 31, -(1 << 31), 3037000499]
ints = st.one_of(st.sampled_from(BOUNDARY_INTS), st.integers(INT_MIN, INT_MAX), st.integers(-100, 100))
floats = st.one_of(st.sampled_from([0.0, -0.0, NAN, INF, -INF, 1.0, -1.0, 5e-324, 1.7976931348623157e308]),
                   st.floats(allow_nan=True, allow_infinity=True))
HSET = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture],
                database=None)


def _check_op(rt, name, a, b):
    fn = OPS_FNS[name][2]
    want = engine(rt, name, {"a": a, "b": b})
    got = ours(fn, (a, b))
    assert agree(want, got), f"{name}({a!r}, {b!r}): engine={want!r} assay={got!r}"


@pytest.mark.parametrize("name", [n for n in OPS_FNS if not n.startswith("h_f")])
def test_int_ops_hypothesis(rt, name):
    @HSET
    @given(ints, ints)
    def run(a, b):
        _check_op(rt, name, a, b)

    run()


@pytest.mark.parametrize("name", [n for n in OPS_FNS if n.startswith("h_f")])
def test_float_ops_hypothesis(rt, name):
    @HSET
    @given(floats, floats)
    def run(a, b):
        _check_op(rt, name, a, b)

    run()


# ----------------------------------------------------------------------------- pure-Python checks


def test_registry_shape():
    for kind, table in METHODS.items():
        for name, nat in table.items():
            assert nat.name == name and callable(nat.fn) and nat.sig.startswith(("(", "<"))
    for q in ["int.parse", "float.parse", "string.from", "int.max_value", "float.nan", "float.pi",
              "Array.filled", "Array.generate", "string.from_code_points", "baml.deep_copy",
              "baml.sys.panic", "baml.io.print", "baml.io.println", "assert.equal",
              "assert.is_true", "assert.not_null", "assert.contains", "assert.approx_equal"]:
        assert q in FUNCTIONS
    assert [kind_of(v) for v in [1, 1.0, "", True, None, [], {}, EA, P_INFO.new(1, [], {}), len]] == [
        "int", "float", "string", "bool", "null", "array", "map", "variant", "instance", "function"]
    assert ORDERING.fqn == "baml.ops.Ordering" and list(ORDERING.variants) == ["Less", "Equal", "Greater"]
    assert set(ops.BUILTIN_CLASSES["baml.panics.IndexOutOfBounds"].fields) == {"index", "length"}


def test_print_redirect():
    import io as pyio

    buf = pyio.StringIO()
    old = sio.STDOUT
    sio.STDOUT = buf
    try:
        F("baml.io.print")("a")
        F("baml.io.println")("b")
    finally:
        sio.STDOUT = old
    assert buf.getvalue() == "ab\n"


def test_eq_cycles_and_bool_int():
    a = [1]
    a.append(a)
    b = [1]
    b.append(b)
    assert ops.eq(a, b)
    assert not ops.eq(True, 1) and not ops.eq(1, 1.0) and ops.eq(NAN, NAN) and ops.eq(-0.0, 0.0)
    n1 = P_INFO.new(1, [], {})
    c = F("baml.deep_copy")([n1, n1])
    assert c[0] is c[1] and c[0] is not n1
    assert math.isnan(F("float.nan")())


@pytest.mark.parametrize("call, at", [
    ("baml.time.Instant.now()", "2:11"),
    ("baml.time.ZonedDateTime.now_in(\"UTC\")", "2:11"),
    ("baml.time.TimeZoneOffset.local()", "2:11"),
    ("baml.time.system_timezone()", "2:11"),
    ("baml.time.Instant.epoch().elapsed()", "2:11"),
])
def test_time_clock_readers_are_located_e9001(call, at):
    """`baml.time` reads no clock in Assay (a run is deterministic): each reader is a located
    E9001 when the function calling it is lowered, never a wrong time."""
    import assay
    prog = assay.compile(f"function F() -> unknown {{\n  let t = {call};\n  t\n}}\n")
    with pytest.raises(assay.CompileError) as e:
        prog.call("F")
    assert f"main.baml:{at}" in str(e.value) and "E9001" in str(e.value) and "reads the clock" in str(e.value)


def test_time_without_a_zone_database_is_host_unavailable(monkeypatch):
    """A host with no IANA database panics `baml.panics.HostUnavailable`, as the engine's
    stdlib declares, rather than calling every identifier unknown."""
    import assay
    from assay.bex.stdlib import timelib
    prog = assay.compile('function F() -> int { baml.time.TimeZoneOffset.from_timezone("UTC", '
                         'baml.time.Instant.epoch()).hours() }')
    monkeypatch.setattr(timelib, "_NAMES", {})
    monkeypatch.setattr(timelib, "_ZONE_CACHE", {})
    monkeypatch.setattr(timelib, "available_timezones", lambda: set())
    with pytest.raises(assay.BamlPanic) as e:
        prog.call("F")
    assert e.value.class_name == "baml.panics.HostUnavailable"
