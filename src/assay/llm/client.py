"""LLM clients for concrete runs: a Python callable (sync or async) or a replay of recorded
answers (`--llm-replay FILE.json`: a JSON object, function name → list of answers in call order;
for `assay test`, also test name → such an object, one answer set per test)."""
from __future__ import annotations

import importlib
import inspect
import json
import threading

from ..bex.llmcall import LlmCallError


def ask(client, name: str, prompt, schema: dict):
    """Call a client callable `client(name, prompt, schema)`; an awaitable result is awaited
    (in a fresh event loop; on a helper thread when this thread already runs one)."""
    r = client(name, prompt, schema)
    if inspect.isawaitable(r):
        r = _await(r)
    return r


def _await(aw):
    asyncio = importlib.import_module("asyncio")  # only for async clients: `import assay` stays light

    async def wrap():
        return await aw

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(wrap())
    box: list = []

    def run():
        try:
            box.append((True, asyncio.run(wrap())))
        except BaseException as e:  # noqa: BLE001 — handed back to the caller's thread
            box.append((False, e))

    t = threading.Thread(target=run, name="assay-llm-await", daemon=True)
    t.start()
    t.join()
    ok, v = box[0]
    if not ok:
        raise v
    return v


class ReplayError(ValueError):
    """A replay file that is not a JSON object of answer lists."""


class Replay:
    """Answers recorded per function, handed out in call order. `for_test(name)` selects a
    test's own answer set when the file is keyed by test names."""

    def __init__(self, data, source: str = "--llm-replay"):
        if not isinstance(data, dict):
            raise ReplayError(f"{source}: expected a JSON object (function name → list of answers), "
                              f"got {type(data).__name__}")
        self.source = source
        self.per_test = bool(data) and all(isinstance(v, dict) for v in data.values())
        for k, v in data.items():
            if not (isinstance(v, list) or (self.per_test and isinstance(v, dict))):
                raise ReplayError(f"{source}: the answers for `{k}` must be a JSON array")
        self.data = data
        self.answers: dict = {} if self.per_test else {k: list(v) for k, v in data.items()}
        self.used: dict[str, int] = {}
        self._lock = threading.Lock()

    @classmethod
    def load(cls, path: str) -> "Replay":
        try:
            with open(path, encoding="utf-8") as f:
                return cls(json.load(f), path)
        except OSError as e:
            raise ReplayError(f"{path}: cannot read: {e.strerror or e}") from None
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise ReplayError(f"{path}: invalid JSON: {e}") from None

    def for_test(self, test_name: str) -> None:
        """Start a test: its own answers (per-test files), from the first one."""
        if self.per_test:
            self.answers = {k: list(v) for k, v in self.data.get(test_name, {}).items()
                            if isinstance(v, list)}
            self.used = {}

    def __call__(self, name: str, prompt, schema):
        with self._lock:
            k = self.used.get(name, 0)
            answers = self.answers.get(name)
            if answers is None or k >= len(answers):
                have = 0 if answers is None else len(answers)
                raise LlmCallError(name, f"{self.source} has {have} answer{'s' if have != 1 else ''} for "
                                   f"LLM function `{name}`; call {k + 1} needs one more")
            self.used[name] = k + 1
            return answers[k]
