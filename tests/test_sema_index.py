"""Item index (sema/program.py) on hand-built ASTs."""
from assay.source import SourceFile, Span
from assay.syntax import ast
from assay.sema.program import build_index, ClassDef, EnumDef, AliasDef


def _file(path, ns, text, items):
    src = SourceFile(path, text, ns)
    return ast.File(src, items(src))


def _sp(src, name):
    i = src.text.index(name)
    return Span(src, i, i + len(name))


def _fn(src, name, at=None):
    s = _sp(src, at or name)
    return ast.Function(s, name, s, [], [], None, None, ast.Block(s, [], None))


def test_index_and_lookup():
    a = _file("main.baml", None, "function f\nclass P\nenum E\ntype A", lambda s: [
        _fn(s, "f"),
        ast.ClassDecl(_sp(s, "P"), "P", _sp(s, "P"), [], [], [_fn(s, "m", "P")]),
        ast.EnumDecl(_sp(s, "E"), "E", _sp(s, "E"), [ast.EnumVariant(_sp(s, "E"), "X")]),
        ast.TypeAlias(_sp(s, "A"), "A", _sp(s, "A"), ast.TName(_sp(s, "A"), ["int"])),
    ])
    b = _file("ns_a/x.baml", "a", "function g function f", lambda s: [_fn(s, "g"), _fn(s, "f", "function f")])
    idx, diags = build_index([a, b])
    assert diags == []
    assert set(idx.functions) == {"user.f", "user.P.m", "user.a.g", "user.a.f"}
    assert isinstance(idx.classes["user.P"], ClassDef) and idx.classes["user.P"].methods["m"].owner is idx.classes["user.P"]
    assert idx.enums["user.E"].variants == ["X"]
    assert isinstance(idx.aliases["user.A"], AliasDef)
    L = idx.lookup
    assert L(None, ["f"]).fqn == "user.f"
    assert L("a", ["f"]).fqn == "user.a.f"
    assert L("a", ["root", "f"]).fqn == "user.f"
    assert L(None, ["root", "a", "g"]).fqn == "user.a.g"
    assert L("a", ["root", "a", "g"]).fqn == "user.a.g"
    assert L(None, ["a", "g"]) is None          # must be root.a.g
    assert L("a", ["P"]) is None                # root items are not visible unqualified
    assert L("a", ["root", "P", "m"]).fqn == "user.P.m"
    assert L(None, ["P", "m"]).fqn == "user.P.m"
    assert L(None, ["user", "f"]) is None
    item, n = idx.resolve_prefix(None, ["E", "X"])
    assert isinstance(item, EnumDef) and n == 1


def test_duplicates():
    a = _file("main.baml", None, "function f\nclass f", lambda s: [
        _fn(s, "f"), ast.ClassDecl(_sp(s, "class f"), "f", _sp(s, "class f"), [], [], [])])
    b = _file("b.baml", None, "function f", lambda s: [_fn(s, "f")])
    idx, diags = build_index([a, b])
    assert [d.code for d in diags] == ["E0011", "E0011"]
    # b.baml sorts first, so main.baml's definitions are the duplicates
    assert all(d.span.file.path == "main.baml" for d in diags)
    assert idx.lookup(None, ["f"]).file.source.path == "b.baml"


def test_root_reserved():
    a = _file("main.baml", None, "function root", lambda s: [_fn(s, "root")])
    _, diags = build_index([a])
    assert [d.code for d in diags] == ["E0176"]
