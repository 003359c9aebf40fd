"""Array and map methods, Array statics, numeric reductions."""
from __future__ import annotations

from .. import ops
from ..ops import MapKey, mkey, panic, throw_error
from ..values import INT_MAX, INT_MIN, TypedList, TypedMap, typed_list
from ._registry import function, method
from .render import render

_nested_len = len


def _like(arr, items: list) -> list:
    """An array derived from `arr` (`slice`, `concat`, …): it records the element type `arr`
    recorded (values.TypedList), as the engine's `T[]` result does."""
    return typed_list(items, arr.elem) if type(arr) is TypedList else items

# ----------------------------------------------------------------------------- statics


@function("Array.filled", "baml.Array.filled")
def filled(length, value):
    return [value] * length if length > 0 else []


@function("Array.generate", "baml.Array.generate")
def generate(length, f):
    return [f(i) for i in range(length)]


# ----------------------------------------------------------------------------- basic


@method("array")
def length(self):
    return len(self)


@method("array")
def at(self, index):
    if index < 0:
        index += len(self)
        if index < 0:
            return None
    return self[index] if index < len(self) else None


@method("array")
def push(self, item):
    self.append(item)
    return len(self)


@method("array")
def pop(self):
    return self.pop() if self else None


@method("array")
def remove_at(self, index):
    n = len(self)
    if index < 0:
        index += n
        if index < 0:
            return None
    return self.pop(index) if index < n else None


@method("array")
def concat(self, other):
    return _like(self, self + other)


@method("array")
def reverse(self):
    return _like(self, self[::-1])


@method("array")
def slice(self, start, end):
    n = len(self)
    if start < 0:
        start = max(start + n, 0)
    if end < 0:
        end = max(end + n, 0)
    if end <= start:
        return _like(self, [])
    return _like(self, self[start:end])


@method("array")
def join(self, separator):
    return separator.join(map(render, self))


@method("array")
def clear(self):
    self.clear()


@method("array")
def shift(self):
    return self.pop(0) if self else None


@method("array")
def unshift(self, item):
    self.insert(0, item)
    return len(self)


@method("array")
def insert(self, item, idx):
    n = len(self)
    i = idx + n if idx < 0 else idx
    if not 0 <= i <= n:
        throw_error("baml.errors.InvalidArgument",
                    message=f"array.insert: idx ({idx}) is out of range for length {n}")
    self.insert(i, item)
    return n + 1


@method("array")
def splice(self, start, count, replace):
    n = len(self)
    i = start + n if start < 0 else start
    if not 0 <= i <= n:
        throw_error("baml.errors.InvalidArgument",
                    message=f"array.splice: start ({start}) is out of range for length {n}")
    if count < 0:
        throw_error("baml.errors.InvalidArgument", message=f"array.splice: count ({count}) is negative")
    self[i:i + count] = list(replace)


# ----------------------------------------------------------------------------- callbacks


@method("array")
def for_each(self, fn):
    for x in self[:]:
        fn(x)


@method("array")
def filter(self, predicate):
    return _like(self, [x for x in self[:] if predicate(x)])


@method("array")
def filter_map(self, fn):
    out = []
    for x in self[:]:
        y = fn(x)
        if y is not None:
            out.append(y)
    return out


@method("array", "map")
def map_(self, f):
    return [f(x) for x in self[:]]


@method("array")
def flat_map(self, f):
    out = []
    for x in self[:]:
        out.extend(f(x))
    return out


@method("array")
def some(self, predicate):
    for x in self[:]:
        if predicate(x):
            return True
    return False


@method("array")
def every(self, predicate):
    for x in self[:]:
        if not predicate(x):
            return False
    return True


@method("array")
def find(self, predicate):
    for x in self[:]:
        if predicate(x):
            return x
    return None


@method("array")
def find_index(self, predicate):
    for i, x in enumerate(self[:]):
        if predicate(x):
            return i
    return None


@method("array")
def find_last(self, predicate):
    for x in reversed(self[:]):
        if predicate(x):
            return x
    return None


@method("array")
def find_last_index(self, predicate):
    snap = self[:]
    for i in range(len(snap) - 1, -1, -1):
        if predicate(snap[i]):
            return i
    return None


@method("array")
def reduce(self, reducer, initial):
    acc = initial
    for x in self[:]:
        acc = reducer(acc, x)
    return acc


_BY_VALUE = frozenset((int, str, bool, float, type(None)))


def _same(x, item) -> bool:
    """includes/index_of equality: by value for primitives (NaN equals NaN), by reference
    for arrays, maps and instances."""
    if x is item:
        return True
    t = type(x)
    if t is not type(item) or t not in _BY_VALUE:
        return False
    return x == item or (t is float and x != x and item != item)


@method("array")
def includes(self, item):
    for x in self:
        if _same(x, item):
            return True
    return False


@method("array")
def index_of(self, item):
    for i, x in enumerate(self):
        if _same(x, item):
            return i
    return None


@method("array")
def last_index_of(self, item):
    for i in range(len(self) - 1, -1, -1):
        if _same(self[i], item):
            return i
    return None


# ----------------------------------------------------------------------------- sorting


def _float_key(x: float):
    # total order: NaN greatest, -0.0 == 0.0
    return (1, 0.0) if x != x else (0, x)


@method("array")
def sort(self):
    """Sortable.sort: in place by the natural (total) order, stable; returns self."""
    if not self:
        return self
    t = type(self[0])
    if t is int or t is str or t is bool:
        self.sort()
    elif t is float:
        self.sort(key=_float_key)
    else:
        self[:] = _merge_sort(self, lambda a, b: ops.cmp(a, b) > 0)
    return self


def _merge_sort(items: list, greater) -> list:
    """A stable bottom-up merge sort asking `greater(left, right)` in the engine's order (runs
    of 1, 2, 4 … merged left to right), so a comparator's side effects and throws match."""
    n = len(items)
    src = items[:]
    width = 1
    while width < n:
        dst = []
        for lo in range(0, n, 2 * width):
            i, mid = lo, min(lo + width, n)
            j, hi = mid, min(lo + 2 * width, n)
            while i < mid and j < hi:
                if greater(src[i], src[j]):
                    dst.append(src[j])
                    j += 1
                else:
                    dst.append(src[i])
                    i += 1
            dst += src[i:mid]
            dst += src[j:hi]
        src = dst
        width *= 2
    return src


@method("array")
def sort_by(self, compare):
    """Stable sort by a comparator returning baml.ops.Ordering; written back only on success."""
    if len(self) > 1:
        self[:] = _merge_sort(self, lambda a, b: compare(a, b).name == "Greater")
    return self


@method("array")
def sort_by_key(self, key):
    n = len(self)
    if n <= 1:
        return self
    items = self[:]
    keys = [key(x) for x in items]
    if keys and type(keys[0]) in (int, str, bool) and all(type(k) is type(keys[0]) for k in keys):
        order = sorted(range(n), key=keys.__getitem__)
    elif keys and all(type(k) is float for k in keys):
        order = sorted(range(n), key=lambda i: _float_key(keys[i]))
    else:
        order = _merge_sort(list(range(n)), lambda i, j: ops.cmp(keys[i], keys[j]) > 0)
    self[:] = [items[i] for i in order]
    return self


# ----------------------------------------------------------------------------- reductions


@function("baml._sum_int")
def sum_int(values):
    acc = 0
    for x in values:
        r = acc + x
        if not INT_MIN <= r <= INT_MAX:
            panic("baml.panics.IntegerOverflow", message=f"{acc} + {x} overflows int")
        acc = r
    return acc


@function("baml._sum_float")
def sum_float(values):
    acc = -0.0  # Rust's f64 `Sum` starts from -0.0
    for x in values:
        acc += x
    return acc


@method("array")
def sum(self):  # noqa: A001
    """int[].sum() / float[].sum(). An empty array sums to 0 here: callers that know the
    static type is float[] should call FUNCTIONS['baml._sum_float'] to get 0.0."""
    if self and type(self[0]) is float:
        return sum_float(self)
    return sum_int(self)


@method("array")
def mean(self):
    if not self:
        throw_error("baml.errors.InvalidArgument",
                    message="float[].mean: cannot take the mean of an empty array")
    return ops.fdiv(sum_float(self), float(len(self)))


@function("baml._median_float")
def median_float(values):
    n = len(values)
    if not n:
        throw_error("baml.errors.InvalidArgument",
                    message="float[].median: cannot take the median of an empty array")
    s = sorted(values, key=_float_key)
    if n & 1:
        return s[n // 2]
    a, b = s[n // 2 - 1], s[n // 2]
    m = (a + b) / 2.0
    return m if m - m == 0.0 or a - a != 0.0 or b - b != 0.0 else a / 2.0 + b / 2.0


method("array", "median")(median_float)


# ----------------------------------------------------------------------------- maps


@method("map", "length")
def map_length(self):
    return len(self)


@method("map")
def has(self, key):
    return (key if type(key) is str else mkey(key)) in self


@method("map")
def keys(self):
    out = [k.v if type(k) is MapKey else k for k in self]
    return typed_list(out, self.elem[0]) if type(self) is TypedMap else out


@method("map")
def values(self):
    return typed_list(list(self.values()), self.elem[1]) if type(self) is TypedMap else list(self.values())


@method("map", "set")
def map_set(self, key, value):
    key = mkey(key)
    old = self.get(key)
    self[key] = value
    return old


@method("map", "get")
def map_get(self, key):
    return self.get(key if type(key) is str else mkey(key))


@method("map", "index")
def map_index(self, key):
    try:
        return self[mkey(key)]
    except KeyError:
        panic("baml.panics.MapKeyNotFound", key="(unknown)")


@method("map", "delete")
def map_delete(self, key):
    return self.pop(mkey(key), None)


@method("map")
def get_or_insert(self, key, default):
    key = mkey(key)
    if key in self:
        return self[key]
    self[key] = default
    return default


@method("map", "clear")
def map_clear(self):
    self.clear()
