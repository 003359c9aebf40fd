"""`baml.iter`: lazy iterators (`Iterator` values: `next() -> Item | baml.iter.Done`), the
sources `Range.new`, `ArrayIterator.new`, the adapters of the reference §4 and the array
methods that start an iterator chain. An iterator is an `Iter` (receiver kind "iter"): a
Python callable giving the next item or DONE, plus one item of look-ahead for `peek()`."""
from __future__ import annotations

from .. import ops
from ..ops import throw_error
from ..values import OMITTED, Instance, TypedList
from ._registry import _KIND_OF, METHODS, function, method

ops.BUILTIN_CLASSES.setdefault("baml.iter.Done", ops.ClassInfo("baml.iter.Done", "Done", []))
DONE = ops.make_builtin("baml.iter.Done")

_NOTHING = object()


class Iter:
    """A `baml.iter.Iterator`: `nx()` gives the next item or DONE; `show()` (where known) the
    engine's struct for rendering, `(name, [(field, value), …])` (`ArrayIterator { arr: [1, 2],
    idx: 0 }`, `Map { source: …, func: … }`)."""
    __slots__ = ("nx", "ahead", "show")

    def __init__(self, nx, show=None):
        self.nx = nx
        self.ahead = _NOTHING
        self.show = show

    def pull(self):
        if self.ahead is not _NOTHING:
            v, self.ahead = self.ahead, _NOTHING
            return v
        return self.nx()


METHODS.setdefault("iter", {})
_KIND_OF[Iter] = "iter"


def from_list(xs: list, start: int = 0) -> Iter:
    """An iterator over a live array (index-based, as `for-in` over an array), from `start`."""
    i = [start]

    def nx():
        k = i[0]
        if k < len(xs):
            i[0] = k + 1
            return xs[k]
        return DONE
    return Iter(nx, lambda: ("ArrayIterator", [("arr", xs), ("idx", i[0])]))


def from_user(obj) -> "Iter | None":
    """A user class implementing `baml.iter.Iterable` (`iter()`) or `baml.iter.Iterator`
    (`next()`) as an Iter; None for other values."""
    if not isinstance(obj, Instance):
        return None
    make = getattr(obj, "m_iter", None)
    if make is not None:
        obj = make()
        if type(obj) is Iter:
            return obj
    nxt = getattr(obj, "m_next", None)
    if nxt is None:
        return None
    done = DONE._class

    def nx():
        v = nxt()
        return DONE if isinstance(v, Instance) and v._class.fqn == done.fqn else v
    return Iter(nx)


def of(v) -> Iter:
    """Anything iterable as an iterator: an iterator itself, an array, a string's characters,
    a user Iterable or Iterator."""
    if type(v) is Iter:
        return v
    if type(v) is list or type(v) is TypedList:
        return from_list(v)
    if type(v) is str:
        return from_list(list(v))
    it = from_user(v)
    if it is not None:
        return it
    throw_error("baml.errors.InvalidArgument", message="value is not iterable")


class Lazy:
    """What `for-in` walks for an iterator: a growing list whose length is pulled one item at
    a time, so the loop (index-based) takes each item only when it gets to it."""
    __slots__ = ("it", "items", "done")

    def __init__(self, it: Iter):
        self.it = it
        self.items: list = []
        self.done = False

    def __len__(self):
        if not self.done:
            v = self.it.pull()
            if v is DONE:
                self.done = True
            else:
                self.items.append(v)
                return len(self.items)
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


def for_in_items(v):
    """`$iter_items`: what a `for-in` loop indexes (strings: their characters)."""
    if type(v) is str:
        return list(v)
    if type(v) is Iter:
        return Lazy(v)
    it = from_user(v)
    return Lazy(it) if it is not None else v


def state_field(it, name: str):
    """`range.max`, `repeat.count`, `iter.idx`: a stdlib iterator's public state, as its
    rendering shows it (the checker allows only the fields the class declares)."""
    show = it.show if type(it) is Iter else None
    for k, v in (show()[1] if show is not None else ()):
        if k == name:
            return v
    throw_error("baml.errors.InvalidArgument", message=f"iterator has no field `{name}`")


# ── sources ──

@function("baml.iter.Range.new")
def range_new(min, max, step=1):
    if step is OMITTED:
        step = 1
    cur = [min]

    def nx():  # below `max` it steps on whatever `step` is (zero repeats, negative descends)
        c = cur[0]
        if c < max:
            cur[0] = ops.add(c, step)  # past the int range: IntegerOverflow, as the engine's `+=`
            return c
        return DONE
    return Iter(nx, lambda: ("Range", [("i", cur[0]), ("max", max), ("step", step)]))


@function("baml.iter.Repeat.new")
def repeat_new(value, count=-1):
    left = [-1 if count is OMITTED else count]

    def nx():  # a negative count (the default) repeats without end
        if left[0] < 0:
            return value
        if left[0] > 0:
            left[0] -= 1
            return value
        return DONE
    return Iter(nx, lambda: ("Repeat", [("value", value), ("count", left[0])]))


@function("baml.iter.ArrayIterator.new")
def array_iterator_new(values):
    return from_list(values)


@function("baml.iter.flatten")
def flatten(source):
    return _flat_map(of(source), lambda x: x)


# ── iterator methods (also reached on arrays where the engine's adapters start a chain) ──

@method("iter")
def next_(self):
    return self.pull()


@method("iter")
def peek(self):
    if self.ahead is _NOTHING:
        self.ahead = self.nx()
    return self.ahead


@method("iter")
def iter_(self):
    return self


@method("iter")
def peekable(self):
    """The engine's `Peekable { source, buffer, has_buffer }` around the iterator: its
    look-ahead (`peek()`) is the buffer."""
    it = Iter(self.pull)

    def show():
        held = it.ahead is not _NOTHING
        return "Peekable", [("source", self), ("buffer", it.ahead if held else DONE), ("has_buffer", held)]
    show.shows_ahead = True
    it.show = show
    return it


@method("iter")
def collect(self):
    if isinstance(self, list):
        return self[:]
    out = []
    while (v := self.pull()) is not DONE:
        out.append(v)
    return out


@method("iter")
def count(self):
    if isinstance(self, list):
        return len(self)
    n = 0
    while self.pull() is not DONE:
        n += 1
    return n


@method("iter")
def reduce(self, reducer, initial):
    acc = initial
    while (v := self.pull()) is not DONE:
        acc = reducer(acc, v)
    return acc


@method("iter")
def for_each(self, fn):
    while (v := self.pull()) is not DONE:
        fn(v)


@method("iter")
def some(self, predicate):
    while (v := self.pull()) is not DONE:
        if predicate(v):
            return True
    return False


@method("iter")
def every(self, predicate):
    while (v := self.pull()) is not DONE:
        if not predicate(v):
            return False
    return True


@method("iter")
def find(self, predicate):
    while (v := self.pull()) is not DONE:
        if predicate(v):
            return v
    return None


@method("iter")
def map_(self, f):
    def nx():
        v = self.pull()
        return DONE if v is DONE else f(v)
    return Iter(nx, lambda: ("Map", [("source", self), ("func", f)]))


@method("iter")
def filter(self, predicate):
    def nx():
        while (v := self.pull()) is not DONE:
            if predicate(v):
                return v
        return DONE
    return Iter(nx, lambda: ("Filter", [("source", self), ("predicate", predicate)]))


@method("iter")
def filter_map(self, fn):
    def nx():
        while (v := self.pull()) is not DONE:
            y = fn(v)
            if y is not None:
                return y
        return DONE
    return Iter(nx, lambda: ("FilterMap", [("source", self), ("func", fn)]))


def _flat_map(src: Iter, f) -> Iter:
    cur = [None]

    def nx():
        while True:
            if cur[0] is not None:
                v = cur[0].pull()
                if v is not DONE:
                    return v
                cur[0] = None
            x = src.pull()
            if x is DONE:
                return DONE
            cur[0] = of(f(x))
    return Iter(nx)


@method("iter")
def flat_map(self, f):
    return _flat_map(self, f)


@method("iter")
def step_by(self, step):  # a step below 1 advances by one (yields everything), as the engine
    src = of(self)
    first = [True]

    def nx():
        if first[0]:
            first[0] = False
            return src.pull()
        for _ in range(step - 1):
            if src.pull() is DONE:
                return DONE
        return src.pull()
    return Iter(nx, lambda: ("StepBy", [("source", src), ("n", step), ("first", first[0])]))


@method("iter")
def chain(self, other):
    a, b = of(self), [other, None]

    def nx():
        v = a.pull()
        if v is not DONE:
            return v
        if b[1] is None:
            b[1] = of(b[0])
        return b[1].pull()
    return Iter(nx, lambda: ("Chain", [("first", a), ("other", b[1] if b[1] is not None else of(b[0])),
                                       ("first_done", b[1] is not None)]))


@method("string", "iter")
def string_iter(self):
    return from_list(list(self))


@method("array", "iter")
def array_iter(self):
    return from_list(self)


@method("iter")
def take(self, n):
    src, left = of(self), [n]

    def nx():
        if left[0] <= 0:
            return DONE
        left[0] -= 1
        return src.pull()
    return Iter(nx, lambda: ("Take", [("source", src), ("remaining", left[0])]))


@method("iter")
def skip(self, n):
    src, todo = of(self), [n]

    def nx():
        while todo[0] > 0:
            todo[0] -= 1
            if src.pull() is DONE:
                return DONE
        return src.pull()
    return Iter(nx, lambda: ("Skip", [("source", src), ("remaining", todo[0])]))


@method("iter")
def take_while(self, predicate):
    src, open_ = of(self), [True]

    def nx():
        if not open_[0]:
            return DONE
        v = src.pull()
        if v is DONE or not predicate(v):
            open_[0] = False
            return DONE
        return v
    return Iter(nx, lambda: ("TakeWhile", [("source", src), ("predicate", predicate), ("done", not open_[0])]))


@method("iter")
def skip_while(self, predicate):
    src, skipping = of(self), [True]

    def nx():
        if skipping[0]:
            skipping[0] = False
            while (v := src.pull()) is not DONE:
                if not predicate(v):
                    return v
            return DONE
        return src.pull()
    return Iter(nx, lambda: ("SkipWhile", [("source", src), ("predicate", predicate), ("skipping", skipping[0])]))
