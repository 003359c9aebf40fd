"""Where BAML calls run: on the caller's thread, with the C stack watched.

A call from Python runs on the calling thread, so its thread-local state (contextvars, torch's
grad and dispatch modes, anything in `threading.local`) holds inside BAML code and inside the
host callables it calls. BAML recursion is bounded by Python's recursion limit (raised while
any call runs: `PY_LIMIT` frames, at least 10,000 BAML frames on every path); BAML-to-BAML
calls, closures and methods are Python-to-Python calls, which CPython runs without growing the
C stack. The path that does grow it — an entry from Python (a host callable calling back into
BAML) — calls `room()` first: when less
than `MARGIN` bytes of the thread's C stack are left, the rest of the call (which has not
started, so nothing runs twice) moves to a worker thread with a big stack, the caller waiting
for it with its contextvars carried over. A RecursionError is then always Python's recursion
limit, never a crash.

Interruptions (`interrupt`, `TimeLimit`, `time_limit`): an exception delivered asynchronously to
the thread running the call (CPython's `PyThreadState_SetAsyncExc`), raised where the code is,
in tight loops too; a caller waiting on a worker forwards it to the worker."""
from __future__ import annotations

import contextlib
import contextvars
import ctypes
import heapq
import itertools
import platform
import mmap
import queue
import sys
import threading
import time

PY_LIMIT = 80_000  # Python frames while BAML runs (a host round trip costs ~7 per BAML frame)
MARGIN = 2 << 20  # C stack bytes an entry wants left below it
WORKER_STACK = 512 << 20  # a worker thread's C stack
_UNKNOWN = 1 << 62
_KEEP: list = []


class TimeLimit(BaseException):
    """A time limit ran out (delivered to the running thread). Not an Exception: no BAML
    `catch`, no VM handler and no `except Exception` stops it."""


# ── the C stack: the thread's bounds and its stack pointer ──

_tls = threading.local()


def _setup():
    """(stack pointer reader, thread stack low bound reader), or None where unsupported."""
    if sys.platform != "linux" or platform.machine() not in ("x86_64", "AMD64"):
        return None
    try:
        libc = ctypes.PyDLL(None)  # PyDLL: the GIL stays held (getcontext fills a shared buffer)
        getcontext = libc.getcontext
        getattr_np = libc.pthread_getattr_np
        getstack = libc.pthread_attr_getstack
        destroy = libc.pthread_attr_destroy
        self_ = libc.pthread_self
    except (OSError, AttributeError):
        return None
    self_.restype = ctypes.c_ulong
    getattr_np.argtypes = [ctypes.c_ulong, ctypes.c_void_p]
    getstack.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    getcontext.argtypes = [ctypes.c_void_p]
    getcontext.restype = ctypes.c_int
    buf = ctypes.create_string_buffer(1024)  # a ucontext_t
    addr = ctypes.addressof(buf)
    rsp = ctypes.c_uint64.from_address(addr + 160)  # uc_mcontext.gregs[REG_RSP]

    def sp(_keep=buf) -> int:
        getcontext(addr)  # saves the signal mask too (a system call): ~0.5 µs
        return rsp.value

    try:  # `mov rax, rsp; ret`: the stack pointer in ~50 ns, where executable memory is allowed
        page = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
        page.write(b"\x48\x89\xe0\xc3")
        fast = ctypes.PYFUNCTYPE(ctypes.c_uint64)(ctypes.addressof(ctypes.c_char.from_buffer(page)))
        if abs(fast() - sp()) < 65536:
            _KEEP.append(page)
            sp = fast  # noqa: F811
    except (OSError, ValueError, AttributeError):
        pass

    def low() -> int:
        attr = ctypes.create_string_buffer(256)
        if getattr_np(self_(), attr) != 0:
            return 0
        base, size = ctypes.c_void_p(), ctypes.c_size_t()
        getstack(attr, ctypes.byref(base), ctypes.byref(size))
        destroy(attr)
        return base.value or 0

    try:
        s = sp()
        lo = low()
    except Exception:  # noqa: BLE001 — any surprise: fall back to workers
        return None
    if not lo or not lo < s:
        return None
    return sp, low


_PROBE = _setup()


def room() -> int:
    """C stack bytes left on this thread (very large where unknown and on big-stack workers)."""
    if _PROBE is None:
        return _UNKNOWN if getattr(_tls, "worker", False) else 0
    lo = getattr(_tls, "low", None)
    if lo is None:
        lo = _tls.low = _PROBE[1]()
    return _PROBE[0]() - lo


def measurable() -> bool:
    """Can this platform measure the C stack? (Else every call from Python runs on a worker.)"""
    return _PROBE is not None


# ── workers: threads with a big stack, reused ──

_idle: list = []
_idle_lock = threading.Lock()


class _Worker:
    def __init__(self):
        self.jobs: queue.SimpleQueue = queue.SimpleQueue()
        old = threading.stack_size()
        threading.stack_size(WORKER_STACK)
        try:
            self.thread = threading.Thread(target=self._loop, name="baml-vm", daemon=True)
            self.thread.start()
        finally:
            threading.stack_size(old)

    def _loop(self):
        _tls.worker = True
        while True:
            try:
                job = self.jobs.get()
                ctx, carried, fn, args, box, done = job
                try:
                    box.append((True, _run_carried(ctx, carried, fn, args)))
                except BaseException as e:  # noqa: BLE001 — handed to the waiting caller
                    box.append((False, e))
                finally:
                    done.set()
                with _idle_lock:
                    _idle.append(self)
            except BaseException:  # noqa: BLE001 — a stray interruption between jobs
                continue


# ── thread-state carriers: what a hop takes from the caller's thread to the worker ──

_CARRIERS: list = []


def carry(capture):
    """Register a thread-state carrier. `capture()` runs on the caller's thread before a hop
    and returns None (nothing to carry) or `enter()`; the worker calls `enter()` and runs the
    hopped call inside the context manager it returns, which applies the caller's state and
    gives the worker its own back on exit (workers are reused)."""
    _CARRIERS.append(capture)
    return capture


@carry
def _torch_modes():
    """torch's grad mode and inference mode (thread-local in torch), where torch is loaded."""
    torch = sys.modules.get("torch")
    if torch is None or not hasattr(torch, "is_inference_mode_enabled"):  # absent, or half-imported
        return None
    grad, inference = torch.is_grad_enabled(), torch.is_inference_mode_enabled()

    def enter():
        with contextlib.ExitStack() as modes:
            if inference:
                modes.enter_context(torch.inference_mode(True))
            modes.enter_context(torch.set_grad_enabled(grad))  # (sets the mode when made)
            return modes.pop_all()
    return enter


def _captured() -> list:
    out = []
    for capture in _CARRIERS:
        enter = capture()
        if enter is not None:
            out.append(enter)
    return out


def _run_carried(ctx, carried: list, fn, args):
    with contextlib.ExitStack() as state:
        for enter in carried:
            state.enter_context(enter())
        return ctx.run(fn, *args)


def hop(fn, *args):
    """`fn(*args)` on a big-stack worker (the caller's contextvars and carried thread state
    taken along); the caller waits. An exception interrupting the wait (Ctrl-C, a time limit) is forwarded to the
    worker, which stops where it is; the caller then raises it."""
    with _idle_lock:
        w = _idle.pop() if _idle else None
    if w is None:
        w = _Worker()
    box: list = []
    done = threading.Event()
    w.jobs.put((contextvars.copy_context(), _captured(), fn, args, box, done))
    try:
        while not done.wait(0.05):
            pass
    except BaseException as e:
        while not done.is_set():
            interrupt(w.thread.ident, type(e))
            done.wait(0.05)
        raise
    ok, value = box[0]
    if ok:
        return value
    raise value


# ── interruptions ──

_set_async = ctypes.pythonapi.PyThreadState_SetAsyncExc
_set_async.argtypes = [ctypes.c_ulong, ctypes.py_object]


def interrupt(thread_id: int, exc: type = TimeLimit) -> None:
    """Raise `exc` in the thread `thread_id` where it runs (at its next bytecode)."""
    _set_async(thread_id, exc)


_clear_async = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p)(
    ("PyThreadState_SetAsyncExc", ctypes.pythonapi))


def _clear(thread_id: int) -> None:
    """Drop an interruption not yet raised in thread `thread_id`."""
    _clear_async(thread_id, None)


class time_limit:
    """`with time_limit(seconds):` — the body is stopped by TimeLimit after `seconds` (None:
    no limit). A waiting timer, no thread spinning; after the block no TimeLimit is pending.
    `.expired` says whether the limit ran out.

    `cancel()` (from any thread) stops the body now, the same way (TimeLimit raised in the
    thread running it); `.cancelled` then says so (`.expired` stays for the limit running out).
    Cancelled before the block, the body does not start (TimeLimit on entry); after the block,
    or a second time, it does nothing."""

    def __init__(self, seconds: float | None):
        self.seconds = seconds
        self.expired = False
        self.cancelled = False
        self._lock = threading.Lock()
        self._tid = None
        self._done = False
        self._fired = False

    def _fire(self):
        with self._lock:
            if not self._done and not self._fired:
                self._fired = self.expired = True
                interrupt(self._tid, TimeLimit)

    def cancel(self) -> None:
        """Stop the body now (any thread): TimeLimit in the thread running it."""
        with self._lock:
            if self._done or self.cancelled:
                return
            self.cancelled = True
            if self._tid is not None and not self._fired:
                self._fired = True
                interrupt(self._tid, TimeLimit)

    def __enter__(self):
        with self._lock:
            if self.cancelled:
                self._done = True
                raise TimeLimit()
            self._tid = threading.get_ident()
        if self.seconds is not None:
            _WATCHDOG.add(time.monotonic() + self.seconds, self)
        return self

    def __exit__(self, et, ev, tb):
        with self._lock:
            self._done = True  # the watchdog drops a finished limit without firing it
            fired = self._fired
        if fired:
            _clear(self._tid)  # fired but not yet raised
        return False


class _Watchdog:
    """One daemon thread for every time limit of the process: it sleeps until the earliest
    deadline and fires that limit, so entering a limit costs a heap push, not a thread
    (exploration enters one per execution)."""

    def __init__(self):
        self._cond = threading.Condition()
        self._heap: list = []  # (deadline, sequence, limit)
        self._seq = itertools.count()
        self._thread = None

    def add(self, deadline: float, limit: "time_limit") -> None:
        with self._cond:
            while self._heap and self._heap[0][2]._done:  # finished limits leave lazily
                heapq.heappop(self._heap)
            heapq.heappush(self._heap, (deadline, next(self._seq), limit))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="assay-time-limits", daemon=True)
                self._thread.start()
            elif self._heap[0][2] is limit:
                self._cond.notify()  # a new earliest deadline

    def _run(self) -> None:
        with self._cond:
            while True:
                if not self._heap:
                    self._cond.wait()
                    continue
                deadline, _, limit = self._heap[0]
                if limit._done:
                    heapq.heappop(self._heap)
                    continue
                left = deadline - time.monotonic()
                if left > 0:
                    self._cond.wait(left)
                    continue
                heapq.heappop(self._heap)
                limit._fire()


_WATCHDOG = _Watchdog()
