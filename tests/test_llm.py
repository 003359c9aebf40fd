"""LLM functions (BAML 0.23.0): parse/check as the engine does (rejections: tests/rejects/r61-r77),
prompts render as the engine renders them (`Fn@spec(args).prompt().text()` in the shared engine
runtime, tests/engine_only/ns_llm), answers come from a client given through the API (sync or
async) or from `--llm-replay`, and the call is a substitutable mirx call node of kind "llm"."""
from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import pytest

import assay
from assay import mirx
from assay.llm.client import Replay

HERE = Path(__file__).resolve().parent
LLM_DIR = HERE / "programs" / "ns_llm"

# render_X on the engine ↔ X on Assay, with these arguments
TEXT = {"text": "the text"}
RENDERS = {name: (TEXT, TEXT) for name in (
    "Summarize", "Extract", "AsFloat", "AsBool", "AsBig", "AsList", "AsListC", "AsNested", "AsMap",
    "AsOpt", "AsOptC", "AsOptE", "AsUnion", "AsLits", "AsLit", "AsNode", "AsWrap", "AsTones", "Roles", "Plain")}
RENDERS["Classify"] = ({"text": "I am glad", "n": 2}, {"text": "I am glad", "n": 2})
RENDERS["Count"] = ({"xs": [1, 2], "v": 1.5, "f": 2.0, "b": True},
                    {"xs": [1, 2], "p": {"v": 1.5}, "f": 2.0, "b": True, "t": "Loud"})


class Capture:
    def __init__(self, answer=None):
        self.calls = []
        self.answer = answer

    def __call__(self, name, prompt, schema):
        self.calls.append((name, prompt, schema))
        return self.answer


@pytest.fixture(scope="module")
def prog(assay_programs):
    if assay_programs is None:
        pytest.skip("engine-only mode")
    return assay_programs.get()


def _prompt(prog, name, args):
    cap = Capture()
    prog.set_llm(cap)
    try:
        prog.call(f"llm.{name}", **args)
    except assay.LlmCallError:
        pass  # the capture's None answer does not fit; the prompt was rendered
    finally:
        prog.set_llm(None)
    assert len(cap.calls) == 1
    return cap.calls[0]


@pytest.mark.parametrize("name", sorted(RENDERS))
def test_prompt_renders_as_the_engine_renders_it(engine, prog, name):
    eargs, aargs = RENDERS[name]
    expected = engine.call(f"llm.render_{name}", eargs)
    assert expected.kind == "ok", expected
    called, prompt, _ = _prompt(prog, name, aargs)
    assert called == f"llm.{name}"
    assert str(prompt) == expected.value


def test_prompt_messages(prog):
    _, prompt, _ = _prompt(prog, "Classify", {"text": "I am glad", "n": 2})
    assert prompt.messages == [{"role": "system", "content": "Classify 2 texts."},
                               {"role": "user", "content": "I am glad\nAnswer with any of the categories:\n"
                                                           "llm.Mood\n----\n- Happy: glad\n- Sad"}]


def test_the_engine_accepts_and_assay_parses_every_llm_function(prog):
    index = prog._p.index
    llm_fns = {f.name for f in index.functions.values() if f.decl.llm is not None}
    assert {"Summarize", "Classify", "Extract", "Count", "Roles", "Plain"} <= llm_fns
    assert [c.name for f in index.files for c in f.clients if f.source.namespace == "llm"] == ["Fast"]
    assert not [d for d in prog.diagnostics if d.severity == "error"]


def test_json_schema_of_the_return_type(prog):
    _, _, schema = _prompt(prog, "Extract", TEXT)
    person = schema["$defs"]["Person"]
    assert schema["$ref"] == "#/$defs/Person"
    assert person["properties"]["name"] == {"type": "string", "description": "full name"}
    assert person["properties"]["mood"] == {"enum": ["Happy", "Sad", "Meh"], "title": "Mood"}
    assert "u" not in person["required"] and "age" in person["required"]
    assert _prompt(prog, "AsOpt", TEXT)[2] == {"anyOf": [{"type": "integer"}, {"type": "null"}]}
    node = _prompt(prog, "AsNode", TEXT)[2]
    assert node["$defs"]["Node"]["properties"]["next"] == {"anyOf": [{"$ref": "#/$defs/Node"}, {"type": "null"}]}


# ── answers from the API ──


def test_sync_client_answers_are_converted_and_checked(prog):
    prog.set_llm(lambda name, prompt, schema: {"llm.Classify": "Sad"}[name])
    try:
        assert prog.call("llm.Triage", text="awful") == "escalate"
    finally:
        prog.set_llm(None)
    prog.set_llm(lambda name, prompt, schema: "Furious")
    try:
        with pytest.raises(assay.LlmCallError) as e:
            prog.call("llm.Classify", text="x", n=1)
        assert e.value.function == "llm.Classify" and "does not fit" in str(e.value)
    finally:
        prog.set_llm(None)


def test_class_answers_become_models():
    p = assay.load(str(LLM_DIR.parent), llm=lambda n, pr, s: {
        "name": "Ada", "age": 36, "tags": [], "mood": "Happy", "inner": {"v": None}, "m": {"a": 1},
        "lit": "a", "u": None, "secret": "s"})
    out = p.call("llm.Extract", text="Ada, 36")
    assert out.name == "Ada" and out.age == 36 and out.m == {"a": 1}


def test_async_client():
    async def client(name, prompt, schema):
        await asyncio.sleep(0)
        return len(str(prompt))

    src = 'function N(t: string) -> int { client: "openai/gpt-4o" prompt: `count ${t}` }'
    p = assay.compile(src, llm=client)
    assert p.N("abc") == len("[system]\ncount abc")

    async def inside_a_loop():  # a running loop in the caller's thread
        return p.N("ab")
    assert asyncio.run(inside_a_loop()) == len("[system]\ncount ab")


def test_no_client_names_the_function():
    p = assay.compile('function Ask(q: string) -> string { client: "openai/gpt-4o" prompt: `${q}` }\n'
                      'function Outer() -> string { Ask("x") catch_all (e) { _ => "caught" } }')
    with pytest.raises(assay.NoLlmClient) as e:
        p.Outer()  # not a BAML error: catch_all does not swallow it
    assert e.value.function == "Ask" and "`Ask`" in str(e.value) and "main.baml:1:1" in str(e.value)


def test_jinja_string_prompts():
    src = '''
class R { a int }
function J(name: string, xs: int[]) -> R {
  client: "openai/gpt-4o"
  prompt: "{{ _.role('system') }} Be brief. {{ _.role('user') }} Hi {{ name }}{% for x in xs %} {{ x }}{% endfor %}
{{ ctx.output_format }}"
}
function Lit(name: string) -> string { client: "openai/gpt-4o" prompt: "no {templates} here" }
'''
    cap = Capture({"a": 1})
    p = assay.compile(src, llm=cap)
    assert p.J("Ada", [1, 2]).a == 1
    assert cap.calls[0][1].messages == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Hi Ada 1 2\nAnswer in JSON using this schema:\n{\n  a: int,\n}"}]
    cap.answer = "ok"
    p.Lit("x")
    assert str(cap.calls[1][1]) == "[system]\nno {templates} here"


def test_replay_client_and_per_test_files():
    r = Replay({"F": [1, 2]})
    assert [r("F", "", {}), r("F", "", {})] == [1, 2]
    with pytest.raises(assay.LlmCallError, match="has 2 answers for LLM function `F`; call 3"):
        r("F", "", {})
    per = Replay({"t1": {"F": [7]}, "t2": {"F": [8]}})
    per.for_test("t2")
    assert per("F", "", {}) == 8


# ── mirx: the call node ──


class Fake(mirx.Extension):
    """Answers every LLM call with a fixed value, without a client."""

    def snippet(self, fn, node, data):
        if node.kind == "call" and node.call.kind == "llm":
            return mirx.Code(substitute="(21, None) if " + repr(node.call.name) + " == 'user.Ask' else None")
        return None


def test_mirx_view_of_an_llm_call(prog):
    view = mirx.view(prog._p) if hasattr(mirx, "view") else None
    view = view or mirx.load(str(LLM_DIR.parent))
    fv = view.function("llm.Classify")
    calls = [b.terminator for b in fv.blocks if b.terminator.kind == "call"]
    assert len(calls) == 1
    t = calls[0]
    assert (t.call.kind, t.call.name, t.call.function.fqn) == ("llm", "user.llm.Classify", "user.llm.Classify")
    assert [o.kind for o in t.operands] == ["local", "local"]  # the parameters, in order
    assert [o.local for o in t.operands] == [1, 2] and [p.name for p in fv.params] == ["text", "n"]
    small = mirx.view(assay.compile('function Ask(q: string) -> int { client: "openai/gpt-4o" prompt: `${q}` }\n'
                                    'function Use(q: string) -> int { Ask(q) * 2 }')._p)
    assert small.run("Use", {"q": "x"}, extensions=[Fake()]) == (42, None)  # substituted: no client asked
    with pytest.raises(assay.NoLlmClient):
        small.run("Use", {"q": "x"})


def test_mir_and_bytecode_shape():
    p = assay.compile('function Ask(q: string, n: int) -> int { client: "openai/gpt-4o" prompt: `${q}` }')
    rt = p.runtime
    rt.lower("user.Ask")
    from assay.mir.pretty import format_function
    mir = format_function(rt.mir["user.Ask"])
    assert "call llm user.Ask(copy _1, copy _2)" in mir
    ops = [op for op, _ in rt.bytecode["user.Ask"].code]
    assert ("call_llm", ("user.Ask", 2)) in rt.bytecode["user.Ask"].code and ops.count("call_llm") == 1


# ── CLI ──


def _assay(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "assay.cli.main", *args], capture_output=True, text=True, cwd=cwd)


@pytest.fixture()
def project(tmp_path):
    (tmp_path / "main.baml").write_text('''
enum Mood { Happy Sad }
function Classify(text: string) -> Mood {
  client: "openai/gpt-4o"
  prompt: `Classify: ${text} ${ctx.output_format()}`
}
function Triage(text: string) -> string {
  let a = Classify(text);
  let b = Classify(text + "!");
  if (a == b) { "same" } else { "changed" }
}
test "same" { assert.equal(Triage("x"), "same") }
test "changed" { assert.equal(Triage("y"), "changed") }
''')
    return tmp_path


def test_cli_run_with_llm_replay(project):
    (project / "a.json").write_text(json.dumps({"Classify": ["Happy", "Sad"]}))
    r = _assay("run", str(project), "Triage", "--args", '{"text": "x"}', "--llm-replay", str(project / "a.json"))
    assert (r.returncode, r.stdout.strip()) == (0, '"changed"'), r.stderr
    r = _assay("run", str(project), "Classify", "--args", '{"text": "x"}', "--llm-replay",
               str(project / "a.json"), "--json")
    assert json.loads(r.stdout) == {"result": "Happy"}


def test_cli_errors(project):
    r = _assay("run", str(project), "Triage", "--args", '{"text": "x"}')
    assert r.returncode == 1 and "Traceback" not in r.stderr and "internal error" not in r.stderr
    assert "error: NoLlmClient: no LLM client for LLM function `Classify`" in r.stderr
    assert "main.baml:3:1" in r.stderr
    (project / "short.json").write_text(json.dumps({"Classify": ["Happy"]}))
    r = _assay("run", str(project), "Triage", "--args", '{"text": "x"}', "--llm-replay", str(project / "short.json"),
               "--json")
    err = json.loads(r.stdout)["error"]
    assert r.returncode == 1 and err["type"] == "LlmCallError" and "call 2 needs one more" in err["message"]
    (project / "bad.json").write_text("[1]")
    r = _assay("run", str(project), "Triage", "--llm-replay", str(project / "bad.json"))
    assert r.returncode == 2 and "expected a JSON object" in r.stderr


def test_cli_test_with_llm_replay(project):
    (project / "per_test.json").write_text(json.dumps({"same": {"Classify": ["Sad", "Sad"]},
                                                       "changed": {"Classify": ["Sad", "Happy"]}}))
    r = _assay("test", str(project), "--llm-replay", str(project / "per_test.json"))
    assert r.returncode == 0 and "2 passed, 0 failed" in r.stdout, r.stdout + r.stderr
    r = _assay("test", str(project))
    assert r.returncode == 1 and "NoLlmClient" in r.stdout and "0 passed, 2 failed" in r.stdout


def test_client_values_run_under_extensions():
    """A client value's native methods (`provider()`) are found in an instrumented space too,
    where user methods are compiled per space (the explore and concolic runs)."""
    v = mirx.view(assay.compile(
        'client C = ai.clients.Retry.new(openai.ResponsesClient.new(model = "m"));\n'
        'function Ask(q: string) -> int { client: C prompt: `${q}` }\n'
        'function Use(q: string) -> string { `${Ask(q)} ${C.provider()} ${C.requested_model()}` }')._p)
    assert v.run("Use", {"q": "x"}, extensions=[Fake()]) == ("21 openai m", None)
