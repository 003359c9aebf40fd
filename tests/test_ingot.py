"""@ingot annotations (issue 11): preprocessing, run-time metadata, the differential check of
the preprocessed example on the real engine, `assay meta` / `ingot strip`, the generated CLI
(through a subprocess) and the MCP server (the SDK's real client, in memory and over stdio)."""
from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import assay
from assay import mirx
from assay.source import SourceFile
from assay.syntax import ingot as pre

import difflib_baml as dl

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "ingot"
STRIPPED = ROOT / "tests" / "programs" / "ns_ingot"  # the example, stripped: namespace ingot of the engine

RESUME = {"name": "Ann", "years": 5, "skills": ["py", "sql"], "email": None}
TEAM = {"name": "t", "members": [RESUME], "subteams": [
    {"name": "s", "members": [dict(RESUME, years=9)], "subteams": []}]}
EMPTY_TEAM = {"name": "x", "members": [], "subteams": []}


@pytest.fixture(scope="module")
def prog():
    return assay.load(str(EXAMPLE))


@pytest.fixture(scope="module")
def view(prog):
    return mirx.view(prog)


# ── preprocessing ──

SRC = '''@@ingot({app: "demo"})
// a comment between annotation and target
@ingot({help: "Adds", mcp: {title: "Add"}})
/// doc
@ingot({mcp: {readOnlyHint: true}, list: [1, 2]})
function Add(a: int @ingot({help: "first"}), b: int = 2 @ingot({help: "second",
   multi: ["line", -1.5, null, false]})) -> int {
  let s = "@ingot({x: 1})";  // @ingot(not harvested)
  let t = `@ingot({y: 2}) ${a}`;
  /* @@ingot({z: 3}) */
  a + b
}
@ingot({list: [3]})
function Add2() -> int { 1 }
class Resume {
  @@ingot({kind: "doc", "quoted key": 1})
  name string @description("the name") @ingot({help: "Name"})
  age int
}
enum Tier { Gold @ingot({rank: 1}) Silver }
'''


def test_preprocessing_keeps_every_other_character_in_place():
    out, notes, diags = pre.preprocess(SourceFile("m.baml", SRC))
    assert not diags
    assert len(out.text) == len(SRC)
    for i, (a, b) in enumerate(zip(SRC, out.text)):
        assert a == b or (b == " " and a not in "\n"), i
    assert out.text.count("\n") == SRC.count("\n")
    assert "@ingot" not in out.text.replace('"@ingot({x: 1})"', "").replace("// @ingot(not", "").replace(
        "`@ingot({y: 2})", "").replace("/* @@ingot({z: 3}) */", "")
    assert '"@ingot({x: 1})"' in out.text and "/* @@ingot({z: 3}) */" in out.text and "`@ingot({y: 2})" in out.text
    assert len(notes) == 9
    assert pre.strip(SRC) == out.text


def test_payloads_targets_and_deep_merge():
    table = assay.compile(SRC)._p.index.ingot
    assert table[("program",)] == {"app": "demo"}
    assert table[("function", "user.Add")] == {"help": "Adds", "mcp": {"title": "Add", "readOnlyHint": True},
                                                "list": [1, 2]}
    assert table[("function", "user.Add2")] == {"list": [3]}
    assert table[("param", "user.Add", "b")] == {"help": "second", "multi": ["line", -1.5, None, False]}
    assert table[("type", "user.Resume")] == {"kind": "doc", "quoted key": 1}
    assert table[("field", "user.Resume", "name")] == {"help": "Name"}
    assert table[("variant", "user.Tier", "Gold")] == {"rank": 1}
    assert pre.merge({"a": {"b": 1, "c": [1]}}, {"a": {"c": [2], "d": 3}}) == {"a": {"b": 1, "c": [2], "d": 3}}


def test_diagnostics_stay_exact_and_payload_errors_are_located():
    with pytest.raises(assay.CompileError) as e:
        assay.compile('@ingot({help: "x"}) function F() -> int { "no" }\n')
    d = e.value.diagnostics[0]
    with pytest.raises(assay.CompileError) as plain:
        assay.compile(' ' * 20 + 'function F() -> int { "no" }\n')
    assert d.location() == plain.value.diagnostics[0].location()  # the same place as without it
    assert "@ingot" in d.render()  # the excerpt shows the line as written
    with pytest.raises(assay.CompileError) as e:
        assay.compile('function F() -> int { 1 }\n@ingot({a: 1,\n  b: })\nfunction G() -> int { 2 }\n@ingot(1)\n')
    got = [(x.location(), x.code) for x in e.value.diagnostics]
    assert got == [("main.baml:3:6", "E0120"), ("main.baml:5:1", "E0120")]
    assert "malformed @ingot payload" in e.value.diagnostics[0].message
    assert "no target" in e.value.diagnostics[1].message


# ── run time ──


def test_meta_at_run_time(prog):
    assert prog._meta.ingot == {"app": {"name": "resumes", "version": "1.0"}, "owner": "hiring", "section": "text"}
    fn = prog.ScoreResume
    assert fn is prog.function("ScoreResume") is prog.function("user.ScoreResume")
    assert fn._meta.ingot["mcp"] == {"title": "Score a resume"}
    assert fn._meta.params["required"].ingot == {"help": "Skills the role needs"}
    assert fn._meta.params["resume"].ingot == {}
    assert fn(RESUME, ["py", "go"]) == 50
    slug = prog.function("text.Slugify")
    assert slug._meta.ingot["help"] == "Turn a title into a URL slug." and slug(" A b ") == "a-b"
    Resume, Tier = prog.types.Resume, prog.types.Tier
    assert Resume._meta.ingot == {"example": True}
    assert Resume._meta.fields["years"].ingot == {"help": "Years of experience"}
    assert Tier._meta.variants["Senior"].ingot == {"help": "8 years or more", "rank": 3}
    assert Tier._meta.variants["Mid"].ingot == {} and Tier._meta.ingot == {}
    assert isinstance(prog.ScoreResume(Resume(**RESUME), []), int)  # a pydantic model as an argument
    assert prog.Classify(9) is Tier.Senior


def test_meta_in_mirx_slots(view):
    assert view.meta["ingot"]["owner"] == "hiring"
    assert {f.path.rsplit("/", 1)[-1]: f.meta.get("ingot") for f in view.files} == {
        "main.baml": {"app": {"name": "resumes", "version": "1.0"}, "owner": "hiring"},
        "text.baml": {"section": "text"}}
    fn = view.function("ScoreResume")
    assert fn.meta["ingot"]["help"].startswith("Score") and fn.params[2].meta["ingot"]["help"].startswith("Points")
    resume = next(c for c in view.classes() if c.qualified_name == "user.Resume")
    assert resume.meta["ingot"] == {"example": True} and resume.description == "A candidate's resume"
    assert [(f.name, f.description) for f in resume.fields][0] == ("name", "Full name")
    tier = next(e for e in view.enums() if e.qualified_name == "user.Tier")
    assert [v.meta.get("ingot") for v in tier.variants] == [None, None, {"help": "8 years or more", "rank": 3}]
    assert tier.variants[0].description == "under 3 years"


# ── the same results on the real engine ──

CASES = [
    ("ScoreResume", {"resume": RESUME, "required": ["py", "go"]}),
    ("ScoreResume", {"resume": RESUME, "required": [], "bonus": 7}),
    ("Classify", {"years": 4}), ("Classify", {"years": 12}),
    ("AverageYears", {"team": TEAM}), ("AverageYears", {"team": EMPTY_TEAM}),
    ("Members", {"team": TEAM}),
    ("ParseYears", {"text": " 12 "}), ("ParseYears", {"text": "x1"}),
    ("MergeSkills", {"a": ["a"], "b": ["b", "a"], "limit": None}),
    ("MergeSkills", {"a": ["a"], "b": ["b", "c"], "limit": 2, "upper": True}),
    ("Decide", {"name": "Ann", "tier": "Mid", "hire": True, "note": "strong"}),
    ("Decide", {"name": "", "tier": "Mid", "hire": False, "note": None}),
    ("text.Slugify", {"title": " Hello  World "}), ("text.Slugify", {"title": "a b", "sep": "_"}),
    ("text.WordCounts", {"text": "a b a"}),
]


def test_stripped_copy_is_current():
    """tests/programs/ns_ingot is `assay ingot strip examples/ingot` (the engine's namespace ingot)."""
    for p in sorted(EXAMPLE.rglob("*.baml")):
        rel = p.relative_to(EXAMPLE)
        assert (STRIPPED / rel).read_text(encoding="utf-8") == pre.strip(p.read_text(encoding="utf-8")), rel


@pytest.mark.parametrize("fn,args", CASES, ids=[f"{f}-{i}" for i, (f, _) in enumerate(CASES)])
def test_preprocessed_example_matches_the_engine(fn, args, engine, prog):
    e = engine.call(f"ingot.{fn}", copy.deepcopy(args))
    a = dl.assay_call(prog, fn, copy.deepcopy(args))
    assert e.kind != "harness", e.detail
    assert dl.outcomes_equal(e, a), dl.mismatch_message(fn, args, e, a)


# ── commands (subprocesses) ──


def assay_cmd(*args, input=None, cwd=None):
    return subprocess.run([sys.executable, "-m", "assay.cli.main", *args], capture_output=True, text=True,
                          input=input, cwd=cwd, timeout=120)


def test_assay_meta_json():
    r = assay_cmd("meta", str(EXAMPLE), "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["file"]["owner"] == "hiring"
    assert doc["functions"]["ScoreResume"]["params"]["bonus"]["ingot"] == {"help": "Points added to the score"}
    assert doc["functions"]["text.Slugify"]["ingot"]["mcp"] == {}
    assert doc["classes"]["Resume"]["fields"]["years"]["ingot"] == {"help": "Years of experience"}
    assert doc["enums"]["Tier"]["variants"]["Senior"]["ingot"]["rank"] == 3
    r = assay_cmd("meta", str(EXAMPLE))
    assert r.returncode == 0 and "variant Senior" in r.stdout


def test_ingot_strip(tmp_path):
    r = assay_cmd("ingot", "strip", str(EXAMPLE), "-o", str(tmp_path / "out"))
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "out" / "ns_text" / "text.baml").read_text() == (STRIPPED / "ns_text" / "text.baml").read_text()
    bad = tmp_path / "bad.baml"
    bad.write_text("@ingot({a: })\nfunction F() -> int { 1 }\n")
    r = assay_cmd("ingot", "strip", str(bad), "-o", str(tmp_path / "bad_out.baml"))
    assert r.returncode == 1 and "bad.baml:1:12: error[E0120]" in r.stderr


def gen(*args, input=None):
    return assay_cmd("cli", str(EXAMPLE), "--", *args, input=input)


def test_cli_help():
    r = gen("--help")
    assert r.returncode == 0 and r.stderr == ""
    for cmd in ("score-resume", "classify", "average-years", "years", "merge-skills", "decide",
                "text.slugify", "text.word-counts"):
        assert cmd in r.stdout
    commands = [line.split()[0] for line in r.stdout.split("Commands:")[1].splitlines() if line.startswith("  ")]
    assert "members" not in commands and "apply-to" not in commands and "parse-years" not in commands
    r = gen("score-resume", "--help")
    assert r.returncode == 0
    assert "Score a resume against the skills a role needs" in r.stdout
    assert "--resume JSON" in r.stdout and "A candidate's resume" in r.stdout  # @@description
    assert "Skills the role needs" in r.stdout and "--bonus INTEGER" in r.stdout
    r = gen("decide", "--help")
    assert "--hire / --no-hire" in r.stdout and "[Junior|Mid|Senior]" in r.stdout
    assert "Merge skill lists" in gen("merge-skills", "--help").stdout  # the /// doc comment


def test_cli_calls_and_exit_codes(tmp_path):
    r = gen("score-resume", "--resume", json.dumps(RESUME), "--required", '["py", "go"]', "--bonus", "5")
    assert (r.returncode, json.loads(r.stdout)) == (0, 55)
    f = tmp_path / "team.json"
    f.write_text(json.dumps(TEAM))
    assert json.loads(gen("average-years", "--team", f"@{f}").stdout) == 7
    assert json.loads(gen("average-years", "--team", "-", input=json.dumps(TEAM)).stdout) == 7
    assert json.loads(gen("classify", "--years", "3").stdout) == "Mid"
    r = gen("decide", "--name", "Ann", "--tier", "Senior", "--no-hire")
    assert (r.returncode, json.loads(r.stdout)) == (0, "Ann: pass")  # an omitted nullable: null
    assert "decision: Ann -> pass" in r.stderr  # program output is not the result
    assert json.loads(gen("merge-skills", "--a", '["a"]', "--b", '["b"]', "--upper").stdout) == ["A", "B"]
    assert json.loads(gen("text.slugify", "--title", "A B", "--sep", "_").stdout) == "a_b"
    assert json.loads(gen("text.word-counts", "--text", "x y x").stdout) == {"x": 2, "y": 1}
    # BAML errors: exit 1
    r = gen("average-years", "--team", json.dumps(EMPTY_TEAM))
    assert r.returncode == 1 and "baml.panics.DivisionByZero" in r.stderr and r.stdout == ""
    r = gen("years", "--text", "x")
    assert r.returncode == 1 and "baml.errors.ParseError" in r.stderr
    # usage errors: exit 2
    for args in (["classify"], ["classify", "--years", "x"], ["decide", "--name", "A", "--tier", "Boss", "--hire"],
                 ["average-years", "--team", "{bad"], ["average-years", "--team", '{"name": "x"}'],
                 ["classify", "--years", str(1 << 62)], ["nope"]):
        r = gen(*args)
        assert r.returncode == 2, (args, r.stdout, r.stderr)
    assert "team.members" in gen("average-years", "--team", '{"name": "x"}').stderr


def test_cli_install(tmp_path):
    r = assay_cmd("cli", str(EXAMPLE), "--install", "resumes", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    launcher = tmp_path / "resumes"
    assert os.access(launcher, os.X_OK)
    r = subprocess.run([str(launcher), "classify", "--years", "10"], capture_output=True, text=True, timeout=120)
    assert (r.returncode, r.stdout.strip()) == (0, '"Senior"')
    r = subprocess.run([str(launcher), "--help"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "Usage: resumes" in r.stdout


# ── MCP ──

mcp = pytest.importorskip("mcp")
import anyio  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

from assay.ingot import mcp as ingot_mcp  # noqa: E402

TOOLS = {"ScoreResume", "Classify", "average_years", "ParseYears", "MergeSkills", "Decide", "DraftNote",
         "text.Slugify", "text.WordCounts"}


def _check_session(client):
    async def go():
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == TOOLS
        score = tools["ScoreResume"]
        assert score.title == "Score a resume" and score.description.startswith("Score a resume")
        s = score.input_schema
        assert s["required"] == ["resume", "required"] and s["properties"]["bonus"]["description"]
        assert s["properties"]["resume"] == {"$ref": "#/$defs/Resume", "description": "A candidate's resume"}
        assert s["$defs"]["Resume"]["required"] == ["name", "years", "skills"]  # email is nullable
        assert score.output_schema["properties"]["result"]["type"] == "integer"
        team = tools["average_years"].input_schema["$defs"]["Team"]
        assert team["properties"]["subteams"]["items"] == {"$ref": "#/$defs/Team"}  # recursive
        merge = tools["MergeSkills"].input_schema
        assert merge["required"] == ["a", "b"]
        assert merge["properties"]["limit"]["anyOf"][-1] == {"type": "null"}
        slug = tools["text.Slugify"].input_schema["properties"]["sep"]
        assert slug["enum"] == ["-", "_"]
        a = {n: t.annotations for n, t in tools.items()}
        # inferred: pure functions
        assert (a["Classify"].read_only_hint, a["Classify"].destructive_hint, a["Classify"].idempotent_hint,
                a["Classify"].open_world_hint) == (True, False, True, False)
        # given and inferred together
        assert a["average_years"].read_only_hint is True and a["MergeSkills"].idempotent_hint is True
        # effectful (baml.sys.panic): given destructiveHint false, the rest MCP's defaults
        d = a["Decide"]
        assert (d.read_only_hint, d.destructive_hint, d.idempotent_hint, d.open_world_hint) == (False, False, False, True)
        assert d.title == "Decide"
        # reaches an LLM function (through Ask), no hint given: none inferred (not read-only, open-world)
        n = a["DraftNote"]
        assert (n.read_only_hint, n.destructive_hint, n.idempotent_hint, n.open_world_hint) == (False, True, False, True)
        # a call
        r = await client.call_tool("ScoreResume", {"resume": RESUME, "required": ["py", "go"]})
        assert not r.is_error and r.structured_content == {"result": 50} and r.content[0].text == "50"
        r = await client.call_tool("average_years", {"team": TEAM})
        assert r.structured_content == {"result": 7}
        r = await client.call_tool("Decide", {"name": "Ann", "tier": "Mid", "hire": True})
        assert r.structured_content == {"result": "Ann: hire"}
        r = await client.call_tool("text.WordCounts", {"text": "a a"})
        assert r.structured_content == {"result": {"a": 2}}
        # a panic, a throw: results with isError, never JSON-RPC errors
        r = await client.call_tool("average_years", {"team": EMPTY_TEAM})
        assert r.is_error and r.content[0].text.startswith("baml.panics.DivisionByZero")
        r = await client.call_tool("ParseYears", {"text": "x"})
        assert r.is_error and r.content[0].text.startswith("baml.errors.ParseError")
        # bad arguments, named
        r = await client.call_tool("Classify", {"years": "x"})
        assert r.is_error and "argument `years`" in r.content[0].text
        r = await client.call_tool("average_years", {"team": {"name": "x", "members": [{"name": "y"}], "subteams": []}})
        assert r.is_error and "team.members[0]" in r.content[0].text
        r = await client.call_tool("Classify", {})
        assert r.is_error and "missing argument `years`" in r.content[0].text
        r = await client.call_tool("Classify", {"years": 1, "extra": 2})
        assert r.is_error and "unknown argument `extra`" in r.content[0].text
    return go()


def test_mcp_in_memory(view):
    async def main():
        async with mcp.Client(ingot_mcp.server(view)) as client:
            await _check_session(client)
    anyio.run(main)


def test_mcp_over_stdio():
    params = StdioServerParameters(command=sys.executable, args=["-m", "assay.cli.main", "mcp", str(EXAMPLE)],
                                   cwd=str(ROOT))

    async def main():
        async with mcp.Client(params) as client:
            await _check_session(client)  # Decide prints: the protocol stream stays clean
    anyio.run(main)


def test_mcp_time_limit():
    prog = mirx.compile('@ingot({mcp: {}})\nfunction Spin(n: int) -> int { let i = 0; while (true) { i += 1; } i }\n')

    async def main():
        async with mcp.Client(ingot_mcp.server(prog, timeout=0.5)) as client:
            r = await client.call_tool("Spin", {"n": 1})
            assert r.is_error and r.content[0].text.startswith("Timeout:")
            tools = (await client.list_tools()).tools
            assert tools[0].output_schema["properties"]["result"]["type"] == "integer"
    if mirx.time_limit is None:
        pytest.skip("the bridge has no interruption mechanism")
    anyio.run(main)


def _spin_call_cancelled(client, gate):
    """Call Spin and cancel the request (the SDK's client then sends notifications/cancelled)
    once `gate` is set."""
    async def go():
        with anyio.CancelScope() as scope:
            async def cancel_when_running():
                await gate.wait()
                scope.cancel()
            async with anyio.create_task_group() as tg:
                tg.start_soon(cancel_when_running)
                await client.call_tool("Spin", {"n": 1})
                raise AssertionError("Spin returned")
        assert scope.cancelled_caught
    return go()


def test_mcp_cancellation_stops_the_call(monkeypatch):
    """A client-cancelled call of a function that never returns stops (time_limit.cancel() on
    the thread running it) and the server answers the next call."""
    if mirx.time_limit is None:
        pytest.skip("the bridge has no interruption mechanism")
    import threading
    import time
    from assay.ingot import tools as ingot_tools
    prog = mirx.compile("@ingot({mcp: {}})\nfunction Spin(n: int) -> int { let i = 0; while (true) { i += n; } i }\n"
                        "@ingot({mcp: {}})\nfunction Twice(n: int) -> int { n * 2 }\n")
    outcomes: list = []  # how each call ended, on its worker thread
    running = threading.Event()
    real_call = ingot_tools.Entry.call

    def call(self, given, timeout=ingot_tools.DEFAULT_TIMEOUT, limit=None):
        if self.fn.name == "Spin":
            running.set()
        try:
            v = real_call(self, given, timeout, limit)
        except ingot_tools.CallFailed as f:
            outcomes.append((self.fn.name, f.kind))
            raise
        outcomes.append((self.fn.name, "returned"))
        return v
    monkeypatch.setattr(ingot_tools.Entry, "call", call)

    async def main():
        async with mcp.Client(ingot_mcp.server(prog, timeout=30)) as client:
            gate = anyio.Event()

            async def watch():
                while not running.is_set():
                    await anyio.sleep(0.01)
                await anyio.sleep(0.2)  # well inside the loop
                gate.set()
            t0 = time.monotonic()
            async with anyio.create_task_group() as tg:
                tg.start_soon(watch)
                await _spin_call_cancelled(client, gate)
            deadline = time.monotonic() + 10
            while not outcomes and time.monotonic() < deadline:
                await anyio.sleep(0.02)
            assert outcomes == [("Spin", "cancelled")], outcomes  # stopped, long before the 30 s limit
            assert time.monotonic() - t0 < 10
            r = await client.call_tool("Twice", {"n": 21})  # the server keeps working
            assert not r.is_error and r.structured_content == {"result": 42}
    anyio.run(main)


def test_time_limit_cancel():
    """assay.time_limit.cancel(): stops the body from another thread; before the block, the body
    does not start; after it, nothing happens."""
    import threading
    tl = assay.time_limit(None)
    threading.Timer(0.2, tl.cancel).start()
    with pytest.raises(assay.TimeLimit):
        with tl:
            while True:
                pass
    assert tl.cancelled and not tl.expired
    early = assay.time_limit(5)
    early.cancel()
    with pytest.raises(assay.TimeLimit):
        with early:
            raise AssertionError("the body ran")
    late = assay.time_limit(5)
    with late:
        pass
    late.cancel()
    assert not late.cancelled


NONFINITE = '''@ingot({mcp: {}})
function Nan() -> float { 0.0 / 0.0 }
@ingot({mcp: {}})
function Infs(x: float) -> float[] { [x, 1.0 / 0.0, -1.0 / 0.0, 1.5] }
class P { v float }
@ingot({mcp: {}})
function Pt(x: float) -> P { P { v: x } }
'''


def test_mcp_non_finite_floats():
    """Results in the project's one JSON encoding (assay.jsonvalue, as `assay run --json`):
    NaN and infinities as {"$float": …}, in the text and in structuredContent; the output schema
    admits them (the SDK's client validates structuredContent against it)."""
    from assay import jsonvalue
    prog = mirx.compile(NONFINITE)

    async def main():
        async with mcp.Client(ingot_mcp.server(prog)) as client:
            r = await client.call_tool("Nan", {})
            assert not r.is_error, r.content
            assert r.structured_content == {"result": {"$float": "NaN"}}
            assert r.content[0].text == '{"$float": "NaN"}' == jsonvalue.dumps(float("nan"), indent=None)
            r = await client.call_tool("Infs", {"x": 2})
            assert r.structured_content == {"result": [2.0, {"$float": "Infinity"}, {"$float": "-Infinity"}, 1.5]}
            assert json.loads(r.content[0].text) == r.structured_content["result"]  # strict JSON
            # the encoding is accepted as an argument too
            r = await client.call_tool("Pt", {"x": {"$float": "-Infinity"}})
            assert not r.is_error and r.structured_content == {"v": {"$float": "-Infinity"}}
            r = await client.call_tool("Pt", {"x": {"$float": "nan"}})
            assert r.is_error and "argument `x.$float`" in r.content[0].text
    anyio.run(main)


def test_effects_inference():
    from assay.ingot.effects import effects
    prog = mirx.compile('''
function Pure(x: int) -> int { let f = (y: int) -> int { y * 2 }; [x].map(f)[0] + Helper(x) }
function Helper(x: int) -> int { x + 1 }
function Boom(x: int) -> int { if (x < 0) { baml.sys.panic("neg"); } x }
function Indirect(x: int) -> int { let g = Boom; g(x) }
function ViaMethod(p: P) -> int { p.run() }
function Host(f: (int) -> int) -> int { f(1) }
class P { v int
  function run(self) -> int { Boom(self.v) } }
''')
    assert effects(prog.function("Pure")) == []
    assert effects(prog.function("Boom")) == ["baml.sys.panic"]
    assert effects(prog.function("Indirect")) == ["baml.sys.panic"]
    assert effects(prog.function("ViaMethod")) == ["baml.sys.panic"]
    assert effects(prog.function("Host")) == ["host callables (parameter `f`)"]
