"""The BAML standard library's signatures: sema owns them (BAML declares its stdlib in `.baml`
stubs); bex/stdlib implements exactly these natives (its registry refuses an undeclared one).

    METHODS[kind][name] -> signature text   kind: a receiver kind of bex/stdlib (int … bigint)
    FUNCTIONS[qualified name] -> signature text

A signature is BAML's without the name: `<T>(length: int, value: T) -> T[]`; T U K V E and Self
are type variables, parameter names are the ones named arguments bind by. TYPE_ARG_FUNCTIONS
are the generic ones whose natives take their type arguments as leading arguments.
"""
from __future__ import annotations

_METHODS = """
int.to_string() -> string
int.eq(other: Self) -> bool
int.neq(other: Self) -> bool
int.cmp(other: Self) -> baml.ops.Ordering
int.lt(other: Self) -> bool
int.le(other: Self) -> bool
int.gt(other: Self) -> bool
int.ge(other: Self) -> bool
int.max(other: Self) -> Self
int.min(other: Self) -> Self
int.clamp(min: Self, max: Self) -> Self
int.abs() -> int
int.isqrt() -> int throws baml.errors.InvalidArgument
int.pow(exp: int) -> int
int.ilog(base: int) -> int throws baml.errors.InvalidArgument
int.leading_zeros() -> int
int.leading_ones() -> int
int.trailing_zeros() -> int
int.trailing_ones() -> int
int.count_zeros() -> int
int.count_ones() -> int
int.neg() -> int
float.to_string() -> string
float.eq(other: Self) -> bool
float.neq(other: Self) -> bool
float.cmp(other: Self) -> baml.ops.Ordering
float.lt(other: Self) -> bool
float.le(other: Self) -> bool
float.gt(other: Self) -> bool
float.ge(other: Self) -> bool
float.max(other: Self) -> Self
float.min(other: Self) -> Self
float.clamp(min: Self, max: Self) -> Self
float.is_nan() -> bool
float.is_infinite() -> bool
float.is_finite() -> bool
float.abs() -> float
float.signum() -> float
float.floor() -> float
float.ceil() -> float
float.trunc() -> float
float.round() -> float
float.fract() -> float
float.ifloor() -> int throws baml.errors.InvalidArgument
float.iceil() -> int throws baml.errors.InvalidArgument
float.iround() -> int throws baml.errors.InvalidArgument
float.itrunc() -> int throws baml.errors.InvalidArgument
float.sqrt() -> float
float.pow(exp: float) -> float
float.log(base: float) -> float
float.exp() -> float
float.ln() -> float
float.log2() -> float
float.log10() -> float
float.cbrt() -> float
float.hypot(other: float) -> float
float.sin() -> float
float.cos() -> float
float.tan() -> float
float.asin() -> float
float.acos() -> float
float.atan() -> float
float.sinh() -> float
float.cosh() -> float
float.tanh() -> float
float.atan2(other: float) -> float
float.asinh() -> float
float.acosh() -> float
float.atanh() -> float
float.to_radians() -> float
float.to_degrees() -> float
float.neg() -> float
string.to_string() -> string
string.add(rhs: string) -> string
string.eq(other: Self) -> bool
string.neq(other: Self) -> bool
string.cmp(other: Self) -> baml.ops.Ordering
string.lt(other: Self) -> bool
string.le(other: Self) -> bool
string.gt(other: Self) -> bool
string.ge(other: Self) -> bool
string.max(other: Self) -> Self
string.min(other: Self) -> Self
string.clamp(min: Self, max: Self) -> Self
string.length() -> int
string.char_count() -> int
string.is_empty() -> bool
string.byte_length() -> int
string.to_lower_case() -> string
string.to_upper_case() -> string
string.trim() -> string
string.trim_start() -> string
string.trim_end() -> string
string.includes(search: string) -> bool
string.starts_with(prefix: string) -> bool
string.ends_with(suffix: string) -> bool
string.split(delimiter: string) -> string[]
string.chars() -> string[]
string.lines() -> string[]
string.slice(start: int, end: int) -> string
string.replace(search: string | baml.regex.Regex, replacement: string) -> string
string.replace_all(search: string | baml.regex.Regex, replacement: string) -> string
string.index_of(search: string) -> int?
string.last_index_of(search: string) -> int?
string.at(index: int) -> string?
string.code_point_at(index: int) -> int?
string.repeat(count: int) -> string
string.is_alphabetic() -> bool
string.is_numeric() -> bool
string.is_alphanumeric() -> bool
string.is_uppercase() -> bool
string.is_lowercase() -> bool
string.is_whitespace() -> bool
string.is_control() -> bool
string.is_graphic() -> bool
string.is_ascii() -> bool
string.is_ascii_numeric() -> bool
string.is_ascii_alphabetic() -> bool
string.is_ascii_alphanumeric() -> bool
string.is_ascii_uppercase() -> bool
string.is_ascii_lowercase() -> bool
string.is_ascii_whitespace() -> bool
string.is_ascii_control() -> bool
string.is_ascii_graphic() -> bool
string.is_ascii_hex() -> bool
string.to_utf8() -> uint8array
string.to_code_points() -> int[]
bool.to_string() -> string
bool.eq(other: Self) -> bool
bool.neq(other: Self) -> bool
bool.cmp(other: Self) -> baml.ops.Ordering
bool.lt(other: Self) -> bool
bool.le(other: Self) -> bool
bool.gt(other: Self) -> bool
bool.ge(other: Self) -> bool
bool.max(other: Self) -> Self
bool.min(other: Self) -> Self
bool.clamp(min: Self, max: Self) -> Self
null.to_string() -> string
null.eq(other: Self) -> bool
null.neq(other: Self) -> bool
array.length() -> int
array.at(index: int) -> T?
array.push(item: T) -> int
array.pop() -> T?
array.remove_at(index: int) -> T?
array.concat(other: T[]) -> T[]
array.reverse() -> T[]
array.slice(start: int, end: int) -> T[]
array.join(separator: string) -> string
array.clear() -> null
array.shift() -> T?
array.unshift(item: T) -> int
array.insert(item: T, idx: int) -> int throws baml.errors.InvalidArgument
array.splice(start: int, count: int, replace: T[]) -> null throws baml.errors.InvalidArgument
array.for_each<E>(fn: (T) -> void throws E) -> void throws E
array.filter<E>(predicate: (T) -> bool throws E) -> T[] throws E
array.filter_map<U, E>(fn: (T) -> U? throws E) -> U[] throws E
array.map<U, E>(f: (T) -> U throws E) -> U[] throws E
array.flat_map<U, E>(f: (T) -> U[] throws E) -> U[] throws E
array.some<E>(predicate: (T) -> bool throws E) -> bool throws E
array.every<E>(predicate: (T) -> bool throws E) -> bool throws E
array.find<E>(predicate: (T) -> bool throws E) -> T? throws E
array.find_index<E>(predicate: (T) -> bool throws E) -> int? throws E
array.find_last<E>(predicate: (T) -> bool throws E) -> T? throws E
array.find_last_index<E>(predicate: (T) -> bool throws E) -> int? throws E
array.reduce<A, E>(reducer: (A, T) -> A throws E, initial: A) -> A throws E
array.includes(item: T) -> bool
array.index_of(item: T) -> int?
array.last_index_of(item: T) -> int?
array.sort() -> T[]
array.sort_by<E>(compare: (T, T) -> baml.ops.Ordering throws E) -> T[] throws E
array.sort_by_key<U, E>(key: (T) -> U throws E) -> T[] throws E
array.sum() -> T
array.mean() -> float throws baml.errors.InvalidArgument
array.median() -> float throws baml.errors.InvalidArgument
array.to_string() -> string
array.eq(other: Self) -> bool
array.neq(other: Self) -> bool
map.length() -> int
map.has(key: K) -> bool
map.keys() -> K[]
map.values() -> V[]
map.set(key: K, value: V) -> V?
map.get(key: K) -> V?
map.index(key: K) -> V
map.delete(key: K) -> V?
map.get_or_insert(key: K, default: V) -> V
map.clear() -> null
map.to_string() -> string
map.eq(other: Self) -> bool
map.neq(other: Self) -> bool
uint8array.length() -> int
uint8array.at(index: int) -> int?
uint8array.push(item: int) -> int
uint8array.pop() -> int?
uint8array.concat(other: uint8array) -> uint8array
uint8array.includes(item: int) -> bool
uint8array.index_of(item: int) -> int?
uint8array.reverse() -> uint8array
uint8array.slice(start: int, end: int) -> uint8array
uint8array.to_array() -> int[]
uint8array.to_hex() -> string
uint8array.to_base64() -> string
uint8array.sort() -> null
uint8array.to_string() -> string
bigint.to_string() -> string
bigint.neg() -> bigint
bigint.eq(other: Self) -> bool
bigint.neq(other: Self) -> bool
bigint.cmp(other: Self) -> baml.ops.Ordering
bigint.lt(other: Self) -> bool
bigint.le(other: Self) -> bool
bigint.gt(other: Self) -> bool
bigint.ge(other: Self) -> bool
bigint.max(other: Self) -> Self
bigint.min(other: Self) -> Self
bigint.clamp(min: Self, max: Self) -> Self
bigint.abs() -> bigint
bigint.pow(exp: bigint) -> bigint
bigint.to_int() -> int throws baml.errors.InvalidArgument
bigint.isqrt() -> bigint throws baml.errors.InvalidArgument
bigint.ilog(base: bigint) -> bigint throws baml.errors.InvalidArgument
"""

_FUNCTIONS = """
Array.filled<T>(length: int, value: T) -> T[]
baml.Array.filled<T>(length: int, value: T) -> T[]
Array.generate<T, E>(length: int, f: (int) -> T throws E) -> T[] throws E
baml.Array.generate<T, E>(length: int, f: (int) -> T throws E) -> T[] throws E
baml._sum_int(values: int[]) -> int
baml._sum_float(values: float[]) -> float
baml._median_float(values: float[]) -> float throws baml.errors.InvalidArgument
baml.ops.equals_equals(a: unknown, b: unknown) -> bool
baml.deep_copy<T>(value: T) -> T
baml.sys.panic(message: string) -> never
baml.sys.collect_garbage() -> null
assert.equal(actual: unknown, expected: unknown) -> void
assert.is_true(condition: bool) -> void
assert.not_null(value: unknown?) -> void
assert.approx_equal(actual: float, expected: float, eps: float) -> void
assert.contains(haystack: string, needle: string) -> void
testing.Retry(max_attempts: int) -> testing.TestRunner
testing.Quorum(n: int, m: int) -> testing.TestRunner
testing.PassRate(threshold: float) -> testing.TestSetRunner
testing.Sequential() -> testing.TestSetRunner
testing.FailFast() -> testing.TestSetRunner
testing.$register_test(name: string, body: () -> void throws unknown, runner: testing.TestRunner?) -> void
testing.$register_test_set(name: string, body: () -> void throws unknown, runner: testing.TestSetRunner?) -> void
testing.TestCollector.new(prefix: string) -> testing.TestCollector
testing.TestRegistry.new(collector: testing.TestCollector) -> testing.TestRegistry
testing._glob_match(subject: string, pattern: string) -> bool
testing._leaf_selected(name: string, include: string[], exclude: string[]) -> bool
testing._leaf_selected_layered(name: string, profile_include: string[], profile_exclude: string[], cli_include: string[], cli_exclude: string[]) -> bool
testing._subtree_excluded(prefix: string, excludes: string[]) -> bool
testing._pattern_may_match_descendant(pattern: string, prefix: string) -> bool
testing._subtree_may_be_selected(prefix: string, include: string[], exclude: string[]) -> bool
testing._select_names_layered(registry: testing.TestRegistry, profile_include: string[], profile_exclude: string[], cli_include: string[], cli_exclude: string[]) -> string[] throws unknown
testing._select_names(registry: testing.TestRegistry, include: string[], exclude: string[]) -> string[] throws unknown
testing._collect_leaf_names(registry: testing.TestRegistry) -> string[] throws unknown
testing._name_in(name: string, names: string[]) -> bool
testing._failure_matches_selected(selected: string, failed_names: string[]) -> bool
testing._flatten_with_tolerated(report: testing.TestSetReport, selected_names: string[]) -> testing.FlatTestReport
testing._collect_all_failed_names(report: testing.TestSetReport, out: string[]) -> void
testing._collect_leaf_messages(results: testing.ChildReport[], out: string[]) -> void
testing._test_name_count(entries: testing.TestRegistration[], full_name: string) -> int
testing._testset_name_count(entries: testing.TestSetRegistration[], full_name: string) -> int
testing._expansion_error_report(name: string) -> testing.TestSetReport
testing._default_test_timeout_ms() -> int
testing._run_test(body: testing.TestBody, runner: testing.TestRunner?, timeout_ms: int) -> testing.TestReport
testing._run_children_sequential(children: testing.TestSetChild[], fail_fast: bool) -> testing.TestSetReport
bigint.parse(s: string) -> bigint throws baml.errors.ParseError
baml.io.print(s: string) -> null
baml.io.println(s: string) -> null
baml.io.eprint(s: string) -> null
baml.io.eprintln(s: string) -> null
int.parse(text: string) -> int throws baml.errors.ParseError
int.max_value() -> int
int.min_value() -> int
float.parse(text: string) -> float throws baml.errors.ParseError
float.pi() -> float
float.e() -> float
float.golden_ratio() -> float
float.nan() -> float
float.inf() -> float
float.max_finite() -> float
float.min_finite() -> float
float.epsilon() -> float
string.from<T>(value: T) -> string
string.from_utf8(utf8: uint8array) -> string throws baml.errors.InvalidArgument
baml.json.parse(s: string) -> json throws baml.json.ParseError
baml.json.stringify(value: unknown, naming: baml.json.Naming = baml.json.Naming.Declared, indent: int | string = 0, omit_nulls: bool = false) -> string throws baml.json.SerializationError
baml.json.from(value: unknown, naming: baml.json.Naming = baml.json.Naming.Declared, omit_nulls: bool = false) -> json throws baml.json.SerializationError
baml.json.field(j: json, key: string) -> json
baml.yaml.parse(s: string) -> unknown throws baml.yaml.ParseError
baml.crypto.Sha256.new() -> baml.crypto.Sha256
baml.csv.parse(source: string | uint8array, options: baml.csv.ReaderOptions? = null) -> string[][] throws baml.csv.Error
baml.csv.reader(source: string | uint8array, options: baml.csv.ReaderOptions? = null) -> baml.csv.Reader throws baml.csv.Error
baml.csv.buffer(options: baml.csv.WriterOptions? = null) -> unknown throws baml.csv.Error
baml.csv.stringify_records(records: (null | bool | int | bigint | float | string)[][], options: baml.csv.WriterOptions? = null) -> string throws baml.csv.Error
baml.csv.to_markdown_records(records: string[][], headers: string[]? = null, max_rows: int = 100) -> string
baml.toml.Table.parse(s: string) -> baml.toml.Table throws baml.toml.ParseError
baml.toml.Table.from_json(j: json) -> baml.toml.Table throws baml.json.DecodeError
baml.toml.table_from_json(j: json) -> baml.toml.Table throws baml.json.DecodeError
baml.toml.item_from_json(json: unknown) -> unknown throws baml.json.DecodeError
baml.toml.item_to_json(item: unknown) -> json throws baml.json.SerializationError
baml.hash.DefaultHasher.new() -> baml.hash.DefaultHasher
baml.crypto.Aes256GcmSiv.new(key: uint8array) -> baml.crypto.Aes256GcmSiv throws baml.errors.InvalidArgument
baml.crypto.Aes256GcmSiv.random_key(rng: baml.random.Rng) -> uint8array
baml.crypto.Aes128GcmSiv.new(key: uint8array) -> baml.crypto.Aes128GcmSiv throws baml.errors.InvalidArgument
baml.crypto.Aes128GcmSiv.random_key(rng: baml.random.Rng) -> uint8array
baml.crypto.ChaCha20Poly1305.new(key: uint8array) -> baml.crypto.ChaCha20Poly1305 throws baml.errors.InvalidArgument
baml.crypto.ChaCha20Poly1305.random_key(rng: baml.random.Rng) -> uint8array
baml.crypto.XChaCha20Poly1305.new(key: uint8array) -> baml.crypto.XChaCha20Poly1305 throws baml.errors.InvalidArgument
baml.crypto.XChaCha20Poly1305.random_key(rng: baml.random.Rng) -> uint8array
log.info(data: unknown, event_name: string? = null) -> null
log.debug(data: unknown, event_name: string? = null) -> null
log.warn(data: unknown, event_name: string? = null) -> null
log.error(data: unknown, event_name: string? = null) -> null
uint8array.zeroes(size: int) -> uint8array throws baml.errors.InvalidArgument
uint8array.from_array(array: int[]) -> uint8array throws baml.errors.InvalidArgument
uint8array.from_hex(hex: string) -> uint8array throws baml.errors.InvalidArgument
uint8array.from_base64(base64: string) -> uint8array throws baml.errors.InvalidArgument
string.from_code_points(unicode: int[]) -> string throws baml.errors.InvalidArgument
baml.regex.new(pattern: string, backtracking: bool = false) -> baml.regex.Regex throws baml.regex.Error
baml.regex._compile(pattern: string, backtracking: bool) -> baml.regex.Regex throws baml.regex.Error
baml.regex.escape(literal: string) -> string
baml.regex._replace(haystack: string, search: string | baml.regex.Regex, replacement: string, all: bool) -> string
baml.regex._replace_literal_with<E>(haystack: string, search: string, f: (baml.regex.Match) -> string throws E, all: bool) -> string throws E
baml.regex._replace_pattern_with<E>(haystack: string, search: baml.regex.Regex, f: (baml.regex.Match) -> string throws E, all: bool) -> string throws E
baml.regex._literal_match(text: string, start: int) -> baml.regex.Match
baml.regex._index_of_from(haystack: string, search: string, start: int) -> int?
"""

# Generic functions whose natives receive their type arguments at run time (ir.TypeArg, first,
# one per type parameter): the checker resolves or infers them, lowering passes them.
_TYPED_FUNCTIONS = """
assert.is_type<T>(actual: unknown) -> T
baml.json.decode<T>(s: string, naming: baml.json.Naming = baml.json.Naming.Declared) -> T throws baml.json.ParseError | baml.json.DecodeError
baml.json.to<T>(j: json, naming: baml.json.Naming = baml.json.Naming.Declared) -> T throws baml.json.DecodeError
baml.json.path<T>(j: json, selector: string) -> T throws baml.json.PathError
baml.json.path_or<T>(j: json, selector: string, default: T) -> T
baml.yaml.decode<T>(s: string) -> T throws baml.yaml.ParseError | baml.json.DecodeError
baml.csv.decode<T>(source: string | uint8array, options: baml.csv.ReaderOptions? = null) -> T[] throws baml.csv.Error
baml.csv.decode_one<T>(source: string | uint8array, options: baml.csv.ReaderOptions? = null) -> T throws baml.csv.Error
baml.csv.decode_optional<T>(source: string | uint8array, options: baml.csv.ReaderOptions? = null) -> T? throws baml.csv.Error
baml.csv.stringify<T>(rows: T[], options: baml.csv.WriterOptions? = null) -> string throws baml.csv.Error
baml.csv.to_markdown<T>(rows: T[], max_rows: int = 100) -> string
baml.json.schema(t: unknown, naming: baml.json.Naming = baml.json.Naming.Declared) -> unknown throws baml.errors.Unsupported
baml.errors.UnknownError.from<T>(data: unknown) -> T | baml.errors.UnknownError
baml.errors.UnknownError.with_message<T>(data: unknown, message: string) -> T | baml.errors.UnknownError
"""
_FUNCTIONS += _TYPED_FUNCTIONS

# `baml.iter` (bex/stdlib/iters.py): receiver kind "iter" is the run-time iterator; the checker
# types these methods itself (check/members.py `iter_method_call`: item types through callbacks).
_METHODS += """iter.next() -> unknown
iter.peek() -> unknown
iter.iter() -> unknown
iter.peekable() -> unknown
iter.collect() -> unknown[]
iter.count() -> int
iter.reduce(reducer: unknown, initial: unknown) -> unknown
iter.for_each(fn: unknown) -> void
iter.some(predicate: unknown) -> bool
iter.every(predicate: unknown) -> bool
iter.find(predicate: unknown) -> unknown
iter.map(f: unknown) -> unknown
iter.filter(predicate: unknown) -> unknown
iter.filter_map(fn: unknown) -> unknown
iter.flat_map(f: unknown) -> unknown
iter.step_by(step: int) -> unknown
iter.chain(other: unknown) -> unknown
iter.take(n: int) -> unknown
iter.skip(n: int) -> unknown
iter.take_while(predicate: unknown) -> unknown
iter.skip_while(predicate: unknown) -> unknown
array.iter() -> unknown
string.iter() -> unknown
"""
# ToJson's default on every builtin type (bex/stdlib/jsontyped.py)
_METHODS += "".join(f"{k}.to_json() -> unknown\n" for k in "int float string bool null array map uint8array bigint".split())

# `baml.random` (bex/stdlib/randomlib.py): generators are opaque to sema (receiver kind "rng").
_METHODS += """rng.random(bytes: int) -> uint8array
rng.random_int() -> int
"""
_FUNCTIONS += """baml.random.SystemRandom.get() -> baml.random.SystemRandom
baml.random.Xoshiro256PlusPlus.new(seed: uint8array = b"") -> baml.random.Xoshiro256PlusPlus
baml.random.ChaCha20.new(seed: uint8array = b"") -> baml.random.ChaCha20
int.random(lower: int, upper: int, rng: baml.random.Rng = null) -> int throws baml.errors.InvalidArgument
int._random_in_range(draw: int, lower: int, upper: int) -> int
float.random(rng: baml.random.Rng = null) -> float
float._unit_from_draw(draw: int) -> float
bool.random(rng: baml.random.Rng = null) -> bool
bigint.random(lower: bigint, upper: bigint, rng: baml.random.Rng = null) -> bigint throws baml.errors.InvalidArgument
bigint._random_byte_count(lower: bigint, upper: bigint) -> int
bigint._random_in_range(draw: uint8array, lower: bigint, upper: bigint) -> bigint
"""

# `baml.future` (bex/stdlib/future.py): futures are opaque to sema (receiver kind "future").
_METHODS += """future.cancel() -> bool
future.is_settled() -> bool
future.is_cancelled() -> bool
future.is_result() -> bool
future.is_error() -> bool
future.state() -> unknown
"""
_FUNCTIONS += """baml.future.all(futures: unknown[]) -> unknown
baml.spawn.CancelToken.new() -> unknown
baml.spawn.CancelToken.any(tokens: unknown[]) -> unknown
baml.spawn.Limit.new(capacity: int) -> baml.spawn.Limit throws baml.errors.InvalidArgument
baml.spawn.Root.new() -> unknown
baml.spawn.Plan.new(body: unknown, name: string? = null) -> unknown
"""


# `baml.Hash` (bex/stdlib/hashing.py): every value's structural `hash(state)`.
_METHODS += "".join(f"{k}.hash(state: unknown) -> null\n"
              for k in "int float string bool null array map uint8array bigint".split())
_FUNCTIONS += """baml.iter.Range.new(min: int, max: int, step: int = 1) -> unknown
baml.iter.ArrayIterator.new(values: unknown[]) -> unknown
baml.iter.flatten(source: unknown) -> unknown
baml.iter.Repeat.new(value: unknown, count: int = -1) -> unknown
"""


# `baml.ToJson`'s default body, which every builtin type has (bex/stdlib/jsontyped.py)
_METHODS += "".join(f"{k}.to_json() -> unknown throws baml.json.SerializationError\n"
                    for k in "int float string bool null array map uint8array bigint".split())


# `reflect` (bex/stdlib/reflect.py): type values (receiver kind "type") and their kind views
# ("typeview"); sema types them as unknown, so these only name the natives.
_METHODS += """type.to_string() -> string
type.as_type() -> unknown
type.kind() -> unknown
type.array() -> unknown
type.optional() -> unknown
type.implements(other: unknown) -> bool
type.to_baml() -> string
type.meta(alias: unknown = null, description: unknown = null, docstring: unknown = null, other: unknown = null) -> unknown
type.implemented_by(other: unknown) -> bool
type.as_class() -> unknown
type.as_enum() -> unknown
type.as_union() -> unknown
type.as_literal() -> unknown
type.as_array() -> unknown
type.as_map() -> unknown
type.as_interface() -> unknown
type.as_primitive() -> unknown
type.as_function() -> unknown
typeview.to_string() -> string
typeview.as_type() -> unknown
typeview.kind() -> unknown
typeview.array() -> unknown
typeview.optional() -> unknown
typeview.meta(alias: unknown = null, description: unknown = null, docstring: unknown = null, other: unknown = null) -> unknown
typeview.to_baml() -> string
typeview.implements(other: unknown) -> bool
typeview.implemented_by(other: unknown) -> bool
typeview.name() -> string
typeview.element_type() -> unknown
typeview.key_type() -> unknown
typeview.value_type() -> unknown
typeview.member_types() -> unknown[]
typeview.value() -> unknown
typeview.return_type() -> unknown
typeview.fields() -> unknown[]
typeview.values() -> unknown[]
typeview.metadata() -> unknown
typeview.params() -> unknown[]
package.find_class(name: string) -> unknown
package.get_class(name: string) -> unknown
package.find_enum(name: string) -> unknown
package.get_enum(name: string) -> unknown
package.find_interface(name: string) -> unknown
package.get_interface(name: string) -> unknown
package.classes() -> unknown
package.enums() -> unknown
package.interfaces() -> unknown
package.functions() -> unknown
package.get_function(name: string) -> unknown
package.find_function(name: string) -> unknown
session.eval(source: string) -> unknown
session.diagnostics() -> unknown
builder.field(name: string, ty: unknown) -> unknown
witness.field(interface_field: string, class_field: unknown = null) -> unknown
builder.fields_from(some_class: unknown) -> unknown
builder.type() -> unknown
builder.build(implementations: unknown = null) -> unknown
pending.array() -> unknown
pending.optional() -> unknown
pending.union(others: unknown) -> unknown
pending.resolved() -> unknown
pending.meta(alias: unknown = null, description: unknown = null, docstring: unknown = null, other: unknown = null) -> unknown
package.globals() -> unknown
package.tests() -> unknown
package.diagnostics() -> unknown
package.with_types(types: unknown) -> unknown
"""

# `baml.regex` (bex/stdlib/regexlib.py): a `Regex` value's methods (receiver kind "regex"), and
# the stdlib classes the checker types by their fields (STD_CLASSES: fqn → field → type text).
_METHODS += """regex.has_match(haystack: string) -> bool
regex.match_once(haystack: string) -> baml.regex.Match?
regex.match_all(haystack: string) -> baml.regex.Match[]
regex.match_full(haystack: string) -> baml.regex.Match?
regex.split(haystack: string) -> string[]
regex._replace_template(haystack: string, template: string) -> string
regex._replace_all_template(haystack: string, template: string) -> string
"""

# `baml.time` (bex/stdlib/timelib.py): its classes' statics, and their methods by receiver kind
# (STD_CLASS_KINDS below); `Instant.now` and the other clock readers are not built (E9001).
_FUNCTIONS += """baml.time.Duration.from_nanoseconds(ns: int | bigint) -> baml.time.Duration
baml.time.Duration.from_microseconds(us: int | bigint) -> baml.time.Duration
baml.time.Duration.from_milliseconds(ms: int | bigint) -> baml.time.Duration
baml.time.Duration.from_seconds(s: int | bigint) -> baml.time.Duration
baml.time.Duration.from_minutes(m: int | bigint) -> baml.time.Duration
baml.time.Duration.from_hours(h: int | bigint) -> baml.time.Duration
baml.time._tz_offset_at(timezone: string, at_ns: bigint) -> int?
baml.time._tz_to_instant(timezone: string, civil_ns: bigint, disambiguation: string) -> bigint? throws baml.errors.Io
baml.time._wrap_into_day(total_ns: bigint) -> int
baml.time._format_zoned(epoch_ns: bigint, offset_ns: int, iana: string?) -> string throws baml.errors.InvalidArgument
baml.time.Instant.parse(s: string) -> baml.time.Instant throws baml.errors.ParseError
baml.time.Instant.from_timestamp_nanoseconds(ns: bigint) -> baml.time.Instant
baml.time.Instant.from_timestamp_microseconds(us: bigint) -> baml.time.Instant
baml.time.Instant.from_timestamp_milliseconds(ms: bigint) -> baml.time.Instant
baml.time.Instant.from_timestamp_seconds(s: bigint) -> baml.time.Instant
baml.time.Instant.epoch() -> baml.time.Instant
baml.time.TimeZoneOffset.utc() -> baml.time.TimeZoneOffset
baml.time.TimeZoneOffset.new(hours: int, minutes: int) -> baml.time.TimeZoneOffset throws baml.errors.InvalidArgument
baml.time.TimeZoneOffset.from_duration(duration: baml.time.Duration) -> baml.time.TimeZoneOffset throws baml.errors.InvalidArgument
baml.time.TimeZoneOffset.from_timezone(timezone: string, at: baml.time.Instant) -> baml.time.TimeZoneOffset throws baml.time.UnknownTimezoneError
baml.time.PlainTime.from_components(hour: int, minute: int = 0, second: int = 0, millisecond: int = 0, microsecond: int = 0, nanosecond: int = 0) -> baml.time.PlainTime throws baml.errors.InvalidArgument
baml.time.PlainTime._from_components(hour: int, minute: int, second: int, millisecond: int, microsecond: int, nanosecond: int) -> baml.time.PlainTime throws baml.errors.InvalidArgument
baml.time.PlainTime.parse(s: string) -> baml.time.PlainTime throws baml.errors.ParseError
baml.time.PlainDate.from_components(year: int, month: int, day: int) -> baml.time.PlainDate throws baml.errors.InvalidArgument
baml.time.PlainDate.parse(s: string) -> baml.time.PlainDate throws baml.errors.ParseError
baml.time.PlainDateTime.from_components(year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0, millisecond: int = 0, microsecond: int = 0, nanosecond: int = 0) -> baml.time.PlainDateTime throws baml.errors.InvalidArgument
baml.time.PlainDateTime._from_components(year: int, month: int, day: int, hour: int, minute: int, second: int, millisecond: int, microsecond: int, nanosecond: int) -> baml.time.PlainDateTime throws baml.errors.InvalidArgument
baml.time.PlainDateTime.parse(s: string) -> baml.time.PlainDateTime throws baml.errors.ParseError
baml.time.ZonedDateTime.from_instant(instant: baml.time.Instant, timezone: baml.time.TimeZoneOffset | string) -> baml.time.ZonedDateTime
baml.time.ZonedDateTime.from_components(timezone: baml.time.TimeZoneOffset | string, year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0, millisecond: int = 0, microsecond: int = 0, nanosecond: int = 0, disambiguation: "compatible" | "earlier" | "later" | "reject" = "compatible") -> baml.time.ZonedDateTime throws baml.errors.InvalidArgument | baml.time.UnknownTimezoneError | baml.time.AmbiguousTimeError | baml.errors.Io
baml.time.ZonedDateTime.parse(s: string) -> baml.time.ZonedDateTime throws baml.errors.ParseError
baml.time.Instant.from_json(j: json) -> baml.time.Instant throws baml.json.DecodeError
baml.time.PlainTime.from_json(j: json) -> baml.time.PlainTime throws baml.json.DecodeError
baml.time.PlainDate.from_json(j: json) -> baml.time.PlainDate throws baml.json.DecodeError
baml.time.PlainDateTime.from_json(j: json) -> baml.time.PlainDateTime throws baml.json.DecodeError
baml.time.ZonedDateTime.from_json(j: json) -> baml.time.ZonedDateTime throws baml.json.DecodeError
"""
_METHODS += """duration.abs() -> baml.time.Duration
duration.to_nanoseconds() -> bigint
duration.to_microseconds() -> bigint
duration.to_milliseconds() -> bigint
duration.to_seconds() -> bigint
duration.to_minutes() -> bigint
duration.to_hours() -> bigint
duration.add(other: baml.time.Duration) -> baml.time.Duration
duration.sub(other: baml.time.Duration) -> baml.time.Duration
duration.rem(other: baml.time.Duration) -> baml.time.Duration
duration.neg() -> baml.time.Duration
instant.to_string() -> string
instant._to_string_impl() -> string throws baml.errors.InvalidArgument
instant.to_json() -> json throws baml.json.SerializationError
instant.max(other: baml.time.Instant) -> baml.time.Instant
instant.min(other: baml.time.Instant) -> baml.time.Instant
instant.abs_diff(other: baml.time.Instant) -> baml.time.Duration
instant.to_timestamp_nanoseconds() -> bigint
instant.to_timestamp_microseconds() -> bigint
instant.to_timestamp_milliseconds() -> bigint
instant.to_timestamp_seconds() -> bigint
instant.add(other: baml.time.Duration) -> baml.time.Instant
tzoffset.to_duration() -> baml.time.Duration
tzoffset.hours() -> int
tzoffset.minutes() -> int
plaintime.to_string() -> string
plaintime._to_string_impl() -> string
plaintime.to_json() -> json throws baml.json.SerializationError
plaintime.to_plain_datetime(date: baml.time.PlainDate) -> baml.time.PlainDateTime
plaintime.hour() -> int
plaintime.minute() -> int
plaintime.second() -> int
plaintime.millisecond() -> int
plaintime.add(other: baml.time.Duration) -> baml.time.PlainTime
plaindate.to_string() -> string
plaindate._to_string_impl() -> string throws baml.errors.InvalidArgument
plaindate.to_json() -> json throws baml.json.SerializationError
plaindate.to_plain_datetime(time: baml.time.PlainTime = null) -> baml.time.PlainDateTime
plaindate._to_plain_datetime(time: int) -> baml.time.PlainDateTime
plaindate.year() -> int throws baml.errors.InvalidArgument
plaindate.month() -> int throws baml.errors.InvalidArgument
plaindate.day() -> int throws baml.errors.InvalidArgument
plaindatetime.to_string() -> string
plaindatetime._to_string_impl() -> string throws baml.errors.InvalidArgument
plaindatetime.to_json() -> json throws baml.json.SerializationError
plaindatetime.to_zoned(timezone: baml.time.TimeZoneOffset | string, disambiguation: "compatible" | "earlier" | "later" | "reject" = "compatible") -> baml.time.ZonedDateTime throws baml.time.UnknownTimezoneError | baml.time.AmbiguousTimeError | baml.errors.Io
plaindatetime.max(other: baml.time.PlainDateTime) -> baml.time.PlainDateTime
plaindatetime.min(other: baml.time.PlainDateTime) -> baml.time.PlainDateTime
plaindatetime.to_plain_date() -> baml.time.PlainDate throws baml.errors.InvalidArgument
plaindatetime.to_plain_time() -> baml.time.PlainTime
plaindatetime.year() -> int throws baml.errors.InvalidArgument
plaindatetime.month() -> int throws baml.errors.InvalidArgument
plaindatetime.day() -> int throws baml.errors.InvalidArgument
plaindatetime.hour() -> int throws baml.errors.InvalidArgument
plaindatetime.minute() -> int throws baml.errors.InvalidArgument
plaindatetime.second() -> int throws baml.errors.InvalidArgument
plaindatetime.millisecond() -> int throws baml.errors.InvalidArgument
plaindatetime.add(other: baml.time.Duration) -> baml.time.PlainDateTime
zoned.to_string() -> string
zoned.to_json() -> json throws baml.json.SerializationError
zoned.max(other: baml.time.ZonedDateTime) -> baml.time.ZonedDateTime
zoned.min(other: baml.time.ZonedDateTime) -> baml.time.ZonedDateTime
zoned.to_instant() -> baml.time.Instant
zoned.with_timezone(timezone: baml.time.TimeZoneOffset | string) -> baml.time.ZonedDateTime
zoned.timezone() -> baml.time.TimeZoneOffset | string
zoned.timezone_offset() -> baml.time.TimeZoneOffset throws baml.time.UnknownTimezoneError
zoned.to_plain() -> baml.time.PlainDateTime throws baml.time.UnknownTimezoneError
zoned.year() -> int throws baml.errors.InvalidArgument | baml.time.UnknownTimezoneError
zoned.month() -> int throws baml.errors.InvalidArgument | baml.time.UnknownTimezoneError
zoned.day() -> int throws baml.errors.InvalidArgument | baml.time.UnknownTimezoneError
zoned.hour() -> int throws baml.errors.InvalidArgument | baml.time.UnknownTimezoneError
zoned.minute() -> int throws baml.errors.InvalidArgument | baml.time.UnknownTimezoneError
zoned.second() -> int throws baml.errors.InvalidArgument | baml.time.UnknownTimezoneError
zoned.millisecond() -> int throws baml.errors.InvalidArgument | baml.time.UnknownTimezoneError
zoned.add(other: baml.time.Duration) -> baml.time.ZonedDateTime
"""
# the classes of `type baml.panics.Panic` (BAML's ns_panics/panics.baml)
PANIC_CLASSES = frozenset(f"baml.panics.{n}" for n in (
    "DivisionByZero IndexOutOfBounds InvalidFieldAccess MapKeyNotFound StackOverflow AssertionFailed "
    "Unreachable Cancelled UserPanic Exit AllocFailure HostUnavailable NegativeBitShift SdkPanic "
    "HostContractViolation IntegerOverflow").split())
STD_CLASSES: dict[str, dict[str, str]] = {
    "baml.regex.Regex": {},
    "baml.regex.Group": {"text": "string", "start": "int", "end": "int"},
    "baml.regex.Match": {"text": "string", "start": "int", "end": "int", "groups": "baml.regex.Group?[]",
                         "named": "map<string, baml.regex.Group?>"},
    "baml.regex.Error": {"kind": "baml.regex.ErrorKind", "message": "string", "pattern": "string",
                         "span_start": "int?", "span_end": "int?"},
    "baml.time.Duration": {"_nanoseconds": "bigint"}, "baml.time.Instant": {"_nanoseconds": "bigint"},
    "baml.time.TimeZoneOffset": {"_nanoseconds": "int"}, "baml.time.PlainTime": {"_nanoseconds": "int"},
    "baml.time.PlainDate": {"_days": "int"}, "baml.time.PlainDateTime": {"_nanoseconds": "bigint"},
    "baml.time.ZonedDateTime": {"_nanoseconds": "bigint", "_offset_ns": "int?", "_iana": "string?"},
    "baml.time.UnknownTimezoneError": {"timezone": "string"}, "baml.time.AmbiguousTimeError": {"message": "string"},
    # what a tagged template's body returns (`` tag`a${x}b` ``: parts ["a", "b"], values [x])
    "baml.TaggedString": {"parts": "string[]", "values": "unknown[]"},
    # `baml.csv`'s options (all optional: null is the default), as 0.23.0 declares them
    "baml.csv.ReaderOptions": {
        "delimiter": "string?", "quote": "string?", "quoting": "bool?", "escape": "string?",
        "has_header": "bool?", "headers": "string[]?", "comment": "string?",
        "trim": '("none" | "headers" | "fields" | "all")?', "skip_lines": "int?", "skip_blank_records": "bool?",
        "ragged": '("strict" | "pad" | "truncate")?', "null_values": "string[]?",
        "encoding": '("utf8" | "utf8-lossy")?', "bom": '("strip" | "keep")?', "on_error": '("throw" | "skip")?',
        "on_skip": "((baml.csv.Error) -> null throws never)?", "max_skipped": "int?", "limit": "int?"},
    "baml.csv.WriterOptions": {
        "delimiter": "string?", "quote": "string?", "quote_style": '("minimal" | "all" | "never")?',
        "escape": "string?", "terminator": '("lf" | "crlf")?', "write_header": "bool?", "headers": "string[]?",
        "null_value": "string?", "bom": "bool?", "sanitize_formulas": "bool?"},
    # `testing`'s reports (its types.baml): what a runner receives and returns
    "testing.RunReport": {"outcome": "testing.Outcome", "duration_ms": "int", "message": "string?"},
    "testing.TestReport": {"outcome": "testing.Outcome", "runs": "testing.RunReport[]"},
    "testing.TestSetReport": {"outcome": "testing.Outcome", "passed": "int", "failed": "int", "total": "int",
                              "failed_names": "string[]", "results": "testing.ChildReport[]",
                              "result_names": "string[]?"},
    "testing.TestSetChild": {"name": "string", "run": "testing.ChildReportThunk", "is_container": "bool"},
    # its registry (registry.baml): what a program's own collector and registry hold
    "testing.TestRegistration": {"name": "string", "body": "testing.TestBody", "runner": "testing.TestRunner?"},
    "testing.TestSetRegistration": {"name": "string", "collector": "testing.TestSetBody",
                                    "runner": "testing.TestSetRunner?"},
    "testing.InvalidTestName": {"message": "string"},
    "testing.TestCollector": {"prefix": "string", "tests": "testing.TestRegistration[]",
                              "testsets": "testing.TestSetRegistration[]"},
    "testing.TestRegistry": {"collector": "testing.TestCollector", "expansions": "map<string, testing.TestRegistry>",
                             "loading_time_ms": "int"},
    "testing.SerializedTest": {"type": "string", "name": "string"},
    "testing.SerializedTestSet": {"name": "string", "items": "testing.SerializedTestDef[]", "loadingTimeMs": "int"},
    "testing.FlatTestReport": {"outcome": "testing.Outcome", "passed": "int", "failed": "int", "tolerated": "int",
                               "total": "int", "passed_names": "string[]", "failed_names": "string[]",
                               "tolerated_names": "string[]", "passed_ms": "int[]", "failed_ms": "int[]",
                               "tolerated_ms": "int[]", "messages": "string[]"},
}
# the stdlib's type aliases the checker models, in dependency order (`testing`'s runners are
# functions over its reports: a user runner is any function of that type)
STD_ALIASES: dict[str, str] = {
    # what rendering or invoking a client may throw (`ai.Client.render` / `invoke`)
    "ai.errors.InvokeError": "ai.errors.Failure | baml.errors.Timeout | baml.errors.UnknownError | "
                             "reflect.errors.CompilationError",
    "testing.Outcome": '"pass" | "fail" | "error"',
    "testing.ChildReport": "testing.TestReport | testing.TestSetReport",
    "testing.TestBody": "() -> void throws unknown",
    "testing.TestSetBody": "(testing.TestCollector) -> void throws unknown",
    "testing.SerializedTestDef": "testing.SerializedTest | testing.SerializedTestSet",
    "testing.TestReportThunk": "() -> testing.TestReport throws never",
    "testing.TestSetReportThunk": "() -> testing.TestSetReport throws never",
    "testing.ChildReportThunk": "() -> testing.ChildReport throws never",
    "testing.TestRunner": "(testing.TestReportThunk) -> testing.TestReportThunk throws never",
    "testing.TestSetRunner": "(testing.TestSetChild[]) -> testing.TestSetReport throws never",
}
# the panic classes' fields (BAML's ns_panics/panics.baml)
STD_CLASSES.update({f"baml.panics.{c}": fs for c, fs in {
    "DivisionByZero": {"dividend": "int | bigint"}, "IndexOutOfBounds": {"index": "int", "length": "int"},
    "InvalidFieldAccess": {"field_index": "int", "field_count": "int"}, "MapKeyNotFound": {"key": "string"},
    "Exit": {"code": "int"}, "HostUnavailable": {"resource": "string", "message": "string"},
    "HostContractViolation": {"message": "string", "class_name": "string?", "language": "string?"},
    **{c: {"message": "string"} for c in ("StackOverflow AssertionFailed Unreachable Cancelled UserPanic "
                                           "AllocFailure NegativeBitShift SdkPanic IntegerOverflow").split()}}.items()})
assert set(STD_CLASSES) >= PANIC_CLASSES
# `reflect`'s plain data classes (the values its views and `reflect.signature` return)
STD_CLASSES.update({
    "reflect.Arg": {"name": "string", "type": "reflect.Type"},
    "reflect.Signature": {"name": "string?", "args": "reflect.Arg[]", "opts": "map<string, reflect.Arg>",
                          "returns": "reflect.Type", "errors": "reflect.Type", "docstring": "string?"},
    "reflect.Meta": {"alias": "string?", "description": "string?", "docstring": "string?",
                     "other": "map<string, string>", "skip": "bool"},
    "reflect.InvalidArgumentError": {"argument": "string", "expected": "reflect.Type", "got": "reflect.Type"},
    "reflect.class.Field": {"name": "string", "type": "reflect.Type", "meta": "reflect.Meta"},
    "reflect.enum.Value": {"name": "string", "meta": "reflect.Meta"},
    "reflect.function.Parameter": {"name": "string?", "type": "reflect.Type", "optional": "bool"},
    "reflect.Span": {"file": "string?", "start": "int", "end": "int"},
    "reflect.DiagnosticHighlight": {"start": "int", "end": "int", "kind": (
        '"identifier.type" | "identifier.function" | "identifier.field" | "identifier.variable" | '
        '"identifier.enum_variant" | "identifier.attribute" | "type_expression" | "code"')},
    "reflect.DiagnosticAnnotation": {"span": "reflect.Span", "message": "string?", "is_primary": "bool",
                                     "message_highlights": "reflect.DiagnosticHighlight[]"},
    "reflect.DiagnosticRelatedInfo": {"span": "reflect.Span", "message": "string", "file_path": "string?",
                                      "message_highlights": "reflect.DiagnosticHighlight[]"},
    "reflect.Diagnostic": {"code": "string", "span": "reflect.Span?", "message": "string",
                           "severity": '"error" | "warning" | "info"',
                           "phase": '("parse" | "hir" | "validation" | "type")?', "headline": "string",
                           "primary_label": "string?", "message_highlights": "reflect.DiagnosticHighlight[]",
                           "annotations": "reflect.DiagnosticAnnotation[]",
                           "related_info": "reflect.DiagnosticRelatedInfo[]"},
})
# the fields of `baml.errors`' classes as 0.23.0 declares them, for reflection only
# (`reflect.Type.of<baml.errors.ParseError>().as_class().fields()`; the checker models them apart)
STD_REFLECT_FIELDS: dict[str, dict[str, str]] = {
    **{f"baml.errors.{c}": {"message": "string"} for c in (
        "InvalidArgument ParseError Io Unsupported AccessError RenderPrompt LlmClient GenericSdkError "
        "CompilationError TypeMismatch").split()},
    "baml.errors.Timeout": {"message": "string", "duration": "baml.time.Duration?", "timeout_type": "string"},
    "baml.errors.Context": {"error": "unknown", "stack_trace": "baml.errors.StackTrace",
                            "cause": "baml.errors.Context?"},
    "baml.errors.StackTrace": {"frames": "baml.errors.StackFrame[]"},
    "baml.errors.StackFrame": {"file": "string", "line": "int", "function_name": "string"},
    # `_handle`: the bridge's opaque handle on the host's exception (engine: `$rust_type`)
    "baml.errors.HostCallable": {"message": "string", "class_name": "string", "language": "string",
                                 "traceback": "string?", "_handle": "$rust_type"},
    "baml.errors.UnknownError": {"data": "unknown", "message": "string[]"},
}
# the fields of the stdlib error classes a literal may build (`ai.errors.RateLimited { … }`),
# as 0.23.0 declares them; the checker reads them for a literal's fields only
_AI_ERRORS = {
    "RateLimited": {"provider": "string", "retry_after_ms": "int?", "status_code": "int?", "raw_body": "string?"},
    "NetworkFailure": {"provider": "string", "detail": "string", "status_code": "int?", "raw_body": "string?"},
    "InvalidRequest": {"provider": "string", "status_code": "int?", "detail": "string", "raw_body": "string?"},
    "PromptRenderError": {"message": "string", "cause": "unknown"},
    "PreviewUnsupported": {"provider": "string", "detail": "string"},
    "Refused": {"provider": "string", "reason": "string", "raw_body": "string?"},
    "ParseFailed": {"provider": "string", "raw_output": "string", "message": "string?"},
    "InvalidResponse": {"provider": "string", "message": "string", "raw_body": "string?", "status_code": "int?"},
    "ProviderError": {"provider": "string", "message": "string", "error_type": "string?", "error_code": "string?",
                      "raw_body": "string?", "status_code": "int?"},
    "FinishReasonError": {"provider": "string", "finish_reason": "unknown", "raw_output": "string"},
    "StepBudgetExceeded": {"steps": "int"},
}
STD_ERROR_FIELDS: dict[str, dict[str, str]] = {
    **STD_REFLECT_FIELDS, **{f"ai.errors.{c}": fs for c, fs in _AI_ERRORS.items()}}
# stdlib classes whose methods the checker types from these signatures (`Self` the receiver;
# None: a method it leaves unchecked; "*": any other name too); their runtime state is a handle
STD_CLASS_METHODS: dict[str, dict] = {
    "baml.csv.Record": {"get": "<T>(column: string) -> T? throws baml.csv.Error",
                        "get_at": "<T>(index: int) -> T? throws baml.csv.Error",
                        "fields": "() -> string[]", "length": "() -> int", "position": None,
                        "decode": "<T>() -> T throws baml.csv.Error",
                        "to_map": "() -> map<string, string> throws baml.csv.Error"},
    "baml.csv.Reader": {"headers": None, "rows": None, "skipped": None, "skipped_count": "() -> int",
                        "position": None, "close": None, "*": None},
}
# the stdlib's random generators, hashers and ciphers, as 0.23.0 declares their methods
_RNG = {"random": "(bytes: int) -> uint8array", "random_int": "() -> int"}
_AEAD = {"encrypt": "(nonce: uint8array, plaintext: uint8array, aad: uint8array) -> uint8array "
                    "throws baml.errors.InvalidArgument",
         "decrypt": "(nonce: uint8array, ciphertext: uint8array, aad: uint8array) -> uint8array "
                    "throws baml.errors.InvalidArgument | baml.crypto.DecryptionFailure"}
STD_CLASS_METHODS.update({
    **{f"baml.random.{c}": _RNG for c in ("Rng", "SystemRandom", "Xoshiro256PlusPlus", "ChaCha20")},
    "baml.hash.DefaultHasher": {"write": "(bytes: uint8array) -> void", "finish": "() -> int"},
    "baml.crypto.Sha256": {"update": "(data: uint8array) -> void", "finish": "() -> uint8array"},
    **{f"baml.crypto.{c}": _AEAD for c in ("Aes256GcmSiv", "Aes128GcmSiv", "ChaCha20Poly1305", "XChaCha20Poly1305")}})
STD_CLASSES.update({c: {} for c in STD_CLASS_METHODS})
# `testing`'s collector and registry: plain data classes with methods (a literal builds one)
_FILTERS = "profile_include: string[], profile_exclude: string[], cli_include: string[], cli_exclude: string[]"
TESTING_METHODS: dict[str, dict] = {
    "testing.TestCollector": {
        "register_test": "(name: string, body: testing.TestBody, runner: testing.TestRunner?) -> void "
                         "throws testing.InvalidTestName",
        "register_test_set": "(name: string, collector: testing.TestSetBody, runner: testing.TestSetRunner?) -> void "
                             "throws testing.InvalidTestName",
        "register_test_at": "(owner: string, name: string, body: testing.TestBody, runner: testing.TestRunner?) -> "
                            "void throws testing.InvalidTestName",
        "register_test_set_at": "(owner: string, name: string, collector: testing.TestSetBody, "
                                "runner: testing.TestSetRunner?) -> void throws testing.InvalidTestName",
        "_find_test": "(name: string) -> testing.TestRegistration throws string",
        "_find_testset": "(name: string) -> testing.TestSetRegistration throws string"},
    "testing.TestRegistry": {
        "serialize": "() -> testing.SerializedTestDef[]",
        "run_test": "(name: string) -> testing.TestReport throws string",
        "run_testset": "(name: string) -> testing.TestSetReport throws unknown",
        "run_all": "() -> testing.TestSetReport",
        "_run_selected": "(names: string[]) -> testing.TestSetReport",
        "run_filtered": f"({_FILTERS}, max_concurrency: int, timeout_ms: int) -> testing.FlatTestReport "
                        "throws unknown",
        "list_filtered": f"({_FILTERS}) -> string[] throws unknown",
        "expand_set": "(name: string) -> testing.SerializedTestDef[] throws unknown",
        "_expand_testset_registry": "(ts: testing.TestSetRegistration) -> testing.TestRegistry throws unknown",
        "_run_all_pooled": None, "_run_selected_pooled": None},
}
# declared by the engine, not built (they take its `_TestPool`): lowering makes each a located E9001
UNBUILT_METHODS = frozenset((("testing.TestRegistry", "_run_all_pooled"), ("testing.TestRegistry", "_run_selected_pooled")))
STD_CLASS_METHODS.update(TESTING_METHODS)
# `reflect.AnyClass`'s methods (the interface every class instance implements), as 0.23.0
# declares them; True: it may throw (`reflect.errors.NotFound` / `TypeMismatch`)
ANY_CLASS_METHODS: dict[str, tuple[str, bool]] = {
    "get": ("<T>(name: string) -> T", True), "find": ("<T>(name: string) -> T?", True),
    "get_field": ("(name: string) -> reflect.class.Field", True),
    "find_field": ("(name: string) -> reflect.class.Field?", False),
    "has_field": ("(name: string) -> bool", False), "list_fields": ("() -> reflect.class.Field[]", False),
    "name": ("() -> string", False), "type": ("() -> reflect.Type", False),
    "attributes": ("() -> reflect.Meta", False)}
STD_ITERATES = {"baml.csv.Reader": "baml.csv.Record"}  # what a `for … in` over one yields
STD_CLASS_KINDS = {"baml.regex.Regex": "regex",  # a class whose methods are natives of a kind
                   "baml.time.Duration": "duration", "baml.time.Instant": "instant",
                   "baml.time.TimeZoneOffset": "tzoffset", "baml.time.PlainTime": "plaintime",
                   "baml.time.PlainDate": "plaindate", "baml.time.PlainDateTime": "plaindatetime",
                   "baml.time.ZonedDateTime": "zoned"}
# `baml.time`'s operator impls: (operator, left class, right type) → result class
_D, _I = "baml.time.Duration", "baml.time.Instant"
TIME_OPS = {("+", _D, _D): _D, ("-", _D, _D): _D, ("*", _D, "int"): _D, ("*", _D, "bigint"): _D,
            ("/", _D, "int"): _D, ("/", _D, "bigint"): _D, ("%", _D, _D): _D,
            **{k: v for c in (_I, "baml.time.PlainTime", "baml.time.PlainDateTime", "baml.time.ZonedDateTime")
               for k, v in {("+", c, _D): c, ("-", c, _D): c, ("-", c, c): _D}.items()}}
# `baml.time`'s clock readers: declared by the engine, not built (a run is deterministic): the
# checker lets them through, lowering makes each a located E9001
CLOCK_READERS = frozenset({"now", "now_in", "local", "system_timezone", "elapsed"})
# the classes that hold runtime state only their own functions create (no class literal: E0173)
STD_HANDLE_CLASSES = frozenset({"baml.regex.Regex", *STD_CLASS_METHODS}) - set(TESTING_METHODS)
STD_ENUM_VARIANTS = {"baml.regex.ErrorKind": ("Syntax", "Unsupported", "TooLarge")}
# Every member (static function, method, field) 0.23.0's stdlib declares on these classes, beyond
# the ones every class has (`eq neq to_json from_json to_string type`): `baml.regex.Regex.new`
# names nothing (the engine's E0003; the constructor is `baml.regex.new`).
_HAS_HASH = "hash "
STD_CLASS_MEMBERS: dict[str, frozenset] = {c: frozenset(m.split()) for c, m in {
    "baml.time.Duration": _HAS_HASH + "abs add div mul neg rem sub from_hours from_microseconds from_milliseconds "
                          "from_minutes from_nanoseconds from_seconds to_hours to_microseconds to_milliseconds "
                          "to_minutes to_nanoseconds to_seconds",
    "baml.time.Instant": _HAS_HASH + "_to_string_impl abs_diff add elapsed epoch from_timestamp_microseconds "
                         "from_timestamp_milliseconds from_timestamp_nanoseconds from_timestamp_seconds max min "
                         "now parse sub to_timestamp_microseconds to_timestamp_milliseconds "
                         "to_timestamp_nanoseconds to_timestamp_seconds",
    "baml.time.PlainDate": _HAS_HASH + "_to_plain_datetime _to_string_impl day from_components month parse "
                           "to_plain_datetime year",
    "baml.time.PlainDateTime": _HAS_HASH + "_from_components _to_string_impl add day from_components hour max "
                               "millisecond min minute month parse second sub to_plain_date to_plain_time "
                               "to_zoned year",
    "baml.time.PlainTime": _HAS_HASH + "_from_components _to_string_impl add from_components hour millisecond "
                           "minute parse second sub to_plain_datetime",
    "baml.time.TimeZoneOffset": _HAS_HASH + "from_duration from_timezone hours local minutes new to_duration utc",
    "baml.time.ZonedDateTime": _HAS_HASH + "add day from_components from_instant hour max millisecond min minute "
                               "month now now_in parse second sub timezone timezone_offset to_instant to_plain "
                               "with_timezone year",
    "baml.regex.Regex": "_replace_all_template _replace_template has_match match_all match_full match_once split",
    "baml.regex.Match": _HAS_HASH, "baml.regex.Group": _HAS_HASH, "baml.regex.Error": _HAS_HASH,
    "baml.random.ChaCha20": "_new new random random_int",
    "baml.random.Xoshiro256PlusPlus": "_new new random random_int",
    "baml.random.SystemRandom": _HAS_HASH + "get random random_int",
    "baml.crypto.Sha256": "finish new update", "baml.hash.DefaultHasher": "finish new write",
    "baml.toml.Table": _HAS_HASH + "parse",
    "baml.iter.Range": _HAS_HASH + "new next iter chain collect count every filter filter_map find flat_map for_each "
                       "map peekable reduce skip skip_while some step_by take take_while",
    "baml.spawn.CancelToken": "any cancel is_cancelled new",
    "baml.spawn.Limit": "active_count capacity new queued_count", "baml.spawn.Root": _HAS_HASH + "new",
    "baml.errors.UnknownError": "_preserve_context from with_message",
    **{f"baml.crypto.{c}": "decrypt encrypt new random_key"
       for c in ("Aes128GcmSiv", "Aes256GcmSiv", "ChaCha20Poly1305", "XChaCha20Poly1305")},
}.items()}


def _parse(stubs: str) -> dict[str, str]:
    """`name<sig>` per line → {name: sig} (a signature starts at its first `<` or `(`)."""
    out = {}
    for line in filter(None, stubs.strip().splitlines()):
        cut = min(i for i in (line.find("<"), line.find("(")) if i >= 0)
        out[line[:cut]] = line[cut:]
    return out


FUNCTIONS: dict[str, str] = _parse(_FUNCTIONS)
# The functions whose arguments and result the checker checks against these signatures (the
# others it leaves unchecked): the data-format namespaces, declared as 0.23.0 declares them.
CHECKED_FUNCTIONS: frozenset[str] = frozenset(
    n for n in FUNCTIONS if n.split(".")[:2] in (["baml", "yaml"], ["baml", "toml"], ["baml", "csv"],
                                                 ["baml", "crypto"], ["baml", "hash"])
    or n.startswith("testing."))
TYPE_ARG_FUNCTIONS: frozenset[str] = frozenset(_parse(_TYPED_FUNCTIONS))
# The stdlib functions 0.23.0 writes in BAML (a wrapper around its native, not a native itself):
# at run time their signature keeps its declared `throws` (`reflect.Type.of_value(baml.regex.new)`
# throws `baml.regex.Error`), as every `baml.json` function's does; a native's says `throws never`.
BAML_BODIED: frozenset[str] = frozenset((
    "baml.regex.new", "baml.yaml.parse", "baml.csv.parse", "baml.csv.reader", "baml.csv.buffer",
    "baml.csv.stringify_records", "baml.toml.table_from_json", "baml.toml.item_from_json",
    "baml.toml.item_to_json"))
METHODS: dict[str, dict[str, str]] = {}
for _name, _sig in _parse(_METHODS).items():
    _kind, _, _method = _name.partition(".")
    METHODS.setdefault(_kind, {})[_method] = _sig
del _name, _sig, _kind, _method


# ── LLM client classes (0.23.0's `openai`, `anthropic`, `google`, `aws`, `typesafeai`, `vercel`,
# `claude_code` packages and `ai.clients`) ──
# A provider client is plain data: `X.new(…)` copies its arguments into the fields of the same
# names, in the same order, so one parameter list declares both. `env.NAME` is a `baml.env.Ref`
# (also as a default: the reference, not the variable's value).
_CRED = "string | baml.env.Ref | null"  # `ai.Credential?`
_TIMEOUT = "baml.time.Duration | ai.LlmTimeoutOptions | null"
_PASS = "request_body: baml.json.json? = null, headers: map<string, string>? = null, " \
        "query_params: map<string, string>? = null"
_CHAT = "temperature: float? = null, max_tokens: int? = null, top_p: float? = null, " \
        "stop: string[]? = null, seed: int? = null"
_GEN = "temperature: float? = null, max_output_tokens: int? = null, top_p: float? = null, top_k: int? = null, " \
       "stop_sequences: string[]? = null, response_modalities: string[]? = null, " \
       "safety_settings: google.SafetySetting[]? = null"
_CLIENT_NEW = f"""
openai.ResponsesClient(model: string = "gpt-4o-mini", api_key: {_CRED} = null, base_url: {_CRED} = null, timeout: {_TIMEOUT} = null, temperature: float? = null, top_p: float? = null, max_output_tokens: int? = null, reasoning_effort: string? = null, reasoning_summary: string? = null, verbosity: string? = null, parallel_tool_calls: bool? = null, store: bool = false, {_PASS}, capture_wire: bool = true, structured_output: bool = false)
openai.ChatClient(model: string = "gpt-4o-mini", api_key: {_CRED} = null, base_url: {_CRED} = null, timeout: {_TIMEOUT} = null, {_PASS}, temperature: float? = null, max_tokens: int? = null, max_completion_tokens: int? = null, top_p: float? = null, stop: string[]? = null, seed: int? = null, capture_wire: bool = true, structured_output: bool = false)
openai.GenericClient(model: string, base_url: {_CRED} = null, api_key: {_CRED} = null, timeout: {_TIMEOUT} = null, {_PASS}, {_CHAT}, capture_wire: bool = true)
openai.AzureClient(model: string, resource_name: string? = null, deployment_id: string? = null, api_version: string? = "2024-10-21", base_url: {_CRED} = null, api_key: {_CRED} = null, {_PASS}, temperature: float? = null, max_tokens: int? = null, max_completion_tokens: int? = null, top_p: float? = null, stop: string[]? = null, seed: int? = null, capture_wire: bool = true, timeout: {_TIMEOUT} = null)
openai.OllamaClient(model: string, base_url: {_CRED} = null, api_key: {_CRED} = null, {_PASS}, {_CHAT}, capture_wire: bool = true, timeout: {_TIMEOUT} = null)
openai.OpenRouterClient(model: string, api_key: {_CRED} = null, base_url: {_CRED} = null, {_PASS}, {_CHAT}, capture_wire: bool = true, timeout: {_TIMEOUT} = null)
openai.ImageClient(model: string = "gpt-image-1", api_key: {_CRED} = null, base_url: {_CRED} = null, n: int? = null, size: string? = null, quality: string? = null, background: string? = null, output_format: string? = null, output_compression: int? = null, moderation: string? = null, style: string? = null, user: string? = null, response_format: string? = null, {_PASS}, capture_wire: bool = true, timeout: {_TIMEOUT} = null)
anthropic.Client(model: string = "claude-haiku-4-5", api_key: {_CRED} = null, base_url: {_CRED} = null, timeout: {_TIMEOUT} = null, max_tokens: int = 8192, temperature: float? = null, top_p: float? = null, top_k: int? = null, stop_sequences: string[]? = null, thinking: anthropic.ThinkingConfig? = null, tool_choice: anthropic.ToolChoice? = null, {_PASS}, capture_wire: bool = true)
google.GeminiClient(model: string = "gemini-2.5-flash", api_key: {_CRED} = null, base_url: {_CRED} = null, {_PASS}, {_GEN}, capture_wire: bool = true, timeout: {_TIMEOUT} = null)
google.VertexClient(model: string = "gemini-2.5-flash", project_id: {_CRED} = null, location: string? = null, credentials_json: string? = null, credentials_file: string? = null, api_key: {_CRED} = null, base_url: {_CRED} = null, timeout: {_TIMEOUT} = null, {_PASS}, {_GEN}, capture_wire: bool = true)
aws.BedrockClient(model: string, region: string? = null, profile: string? = null, access_key_id: string? = null, secret_access_key: string? = null, session_token: string? = null, endpoint_url: {_CRED} = null, max_tokens: int? = null, temperature: float? = null, top_p: float? = null, stop_sequences: string[]? = null, tool_choice: string? = null, cache_system_prompt: bool = false, cache_tools: bool = false, additional_model_request_fields: baml.json.json? = null, {_PASS}, capture_wire: bool = true, timeout: {_TIMEOUT} = null)
openai.DecisionsClient(model: string = "gpt-6-luna", api_key: {_CRED} = env.OPENAI_API_KEY, base_url: {_CRED} = "https://api.openai.com/v1", timeout: {_TIMEOUT} = null, capture_wire: bool = true)
typesafeai.Client(model: string = "jev-latest", api_key: {_CRED} = env.TYPESAFE_API_KEY, base_url: {_CRED} = "https://api.typesafe.ai/v1", timeout: {_TIMEOUT} = null, capture_wire: bool = true)
vercel.AiGatewayImageClient(model: string = "openai/gpt-image-1", api_key: {_CRED} = null, base_url: {_CRED} = null, n: int? = null, size: string? = null, aspect_ratio: string? = null, seed: int? = null, {_PASS}, capture_wire: bool = true, timeout: {_TIMEOUT} = null)
ai.clients.Backoff(initial_ms: int = 250, multiplier: int = 2, max_ms: int = 10000)
google.SafetySetting(category: string, threshold: string)
"""


def _params(text: str) -> list[tuple[str, str, str | None]]:
    """`a: T = d, b: U` → [(name, type text, default text or None)] (commas inside `<…>` kept;
    no function types here: their `->` would close a bracket)."""
    out, depth, cut = [], 0, 0
    for i, ch in enumerate(text + ","):
        depth += ch in "<([" and 1 or 0
        depth -= ch in ">)]" and 1 or 0
        if ch == "," and depth == 0 and text[cut:i].strip():
            name, _, rest = text[cut:i].partition(":")
            ty, eq, default = rest.partition(" = ")
            out.append((name.strip(), ty.strip(), default.strip() if eq else None))
            cut = i + 1
    return out


# class → its `new` parameters (name, type text, default text or None), fields in that order
CLIENT_NEW: dict[str, list] = {}
for _line in filter(None, _CLIENT_NEW.strip().splitlines()):
    _cls, _, _rest = _line.partition("(")
    CLIENT_NEW[_cls] = _params(_rest[:-1])
    STD_CLASSES[_cls] = {n: t for n, t, _ in CLIENT_NEW[_cls]}
    FUNCTIONS[f"{_cls}.new"] = f"({_rest[:-1]}) -> {_cls}"
# the wrapper clients (`ai.clients`): fields as declared; `Retry.new` fills two of them itself
STD_CLASSES.update({
    "ai.clients.Retry": {"inner": "ai.Client", "max_attempts": "int",
                         "retry_if": "(ai.errors.Failure) -> bool", "backoff": "ai.clients.Backoff"},
    "ai.clients.RoundRobin": {"members": "ai.Client[]", "counter": "int"},
    "ai.clients.Fallback": {"members": "ai.Client[]"},
    "claude_code.ClaudeCodeClient": {"executable": "string", "model": "string", "cwd": "string?",
                                     "timeout_ms": "int", "permission_mode": "string",
                                     "harness_tools": "string[]", "mcp_servers": "map<string, json>",
                                     "capture_wire": "bool"},
    "ai.LlmTimeoutOptions": {"timeout": "baml.time.Duration?", "connect_timeout": "baml.time.Duration?",
                             "first_token_timeout": "baml.time.Duration?",
                             "stream_token_timeout": "baml.time.Duration?"},
    "anthropic.ThinkingConfig": {"type": "string", "budget_tokens": "int?"},
    "anthropic.ToolChoice": {"type": "string", "name": "string?", "disable_parallel_tool_use": "bool?"},
    "baml.env.Ref": {"name": "string"},
})
FUNCTIONS.update({
    "ai.clients.Retry.new": "(inner: ai.Client, max_attempts: int = 3, retry_if: ((ai.errors.Failure) -> bool)? = null, "
                            "backoff: ai.clients.Backoff? = null) -> ai.clients.Retry",
    "claude_code.ClaudeCodeClient.new": '(model: string = "haiku", executable: string = "claude", '
                                        'cwd: string? = null, timeout_ms: int = 240000, permission_mode: string = '
                                        '"default", harness_tools: string[] = [], mcp_servers: map<string, json>? = '
                                        'null, capture_wire: bool = true) -> claude_code.ClaudeCodeClient',
    "ai.clients.RoundRobin.new": "(members: ai.Client[]) -> ai.clients.RoundRobin throws unknown",
    "anthropic.ThinkingConfig.enabled": "(budget_tokens: int) -> anthropic.ThinkingConfig",
    "anthropic.ThinkingConfig.disabled": "() -> anthropic.ThinkingConfig",
    **{f"anthropic.ToolChoice.{k}": "(disable_parallel_tool_use: bool? = null) -> anthropic.ToolChoice"
       for k in ("auto", "any")},
    "anthropic.ToolChoice.tool": "(name: string, disable_parallel_tool_use: bool? = null) -> anthropic.ToolChoice",
    "anthropic.ToolChoice.none": "() -> anthropic.ToolChoice",
})
# `ai.Client`: the interface every client class implements (a value of another type is surely not one)
CLIENT_CLASSES = frozenset(CLIENT_NEW) - {"ai.clients.Backoff", "google.SafetySetting"} | {
    "ai.clients.Retry", "ai.clients.RoundRobin", "ai.clients.Fallback", "claude_code.ClaudeCodeClient"}
# the root packages of the provider clients (`ai.clients` holds the wrappers)
CLIENT_PACKAGES = frozenset(("openai", "anthropic", "google", "aws", "typesafeai", "vercel", "claude_code"))
# the data classes above (decoded field by field, as the engine's are)
CLIENT_DATA_CLASSES = frozenset(c for c in STD_CLASSES if c.split(".")[0] in CLIENT_PACKAGES or c.startswith("ai."))
# every stdlib class decoded and taken from the host field by field, as declared above
DATA_CLASSES = CLIENT_DATA_CLASSES | frozenset(c for c in STD_CLASSES if c.startswith("testing."))
# the stdlib interfaces the checker models → the classes implementing them that Assay has
STD_IFACES = {"ai.Client": CLIENT_CLASSES, "ai.errors.Failure": frozenset(("ai.errors.InvalidRequest",))}
# `ai.Client`'s methods that only read the client (the others render or send a request)
CLIENT_METHODS = frozenset(("provider", "requested_model"))
# and those that render or send one (with the credential readers): the LLM layer's, never run here
CLIENT_SENDS = frozenset(("render", "invoke", "invoke_stream", "default_cache_args", "resolved_api_key",
                          "resolved_base_url"))
# what each provider client's `provider()` answers (its `requested_model()` is its `model`)
CLIENT_PROVIDERS = {"openai.ResponsesClient": "openai", "openai.ChatClient": "openai-chat",
                    "openai.GenericClient": "openai-generic", "openai.AzureClient": "azure",
                    "openai.OllamaClient": "ollama", "openai.OpenRouterClient": "openrouter",
                    "openai.ImageClient": "openai-images", "anthropic.Client": "anthropic",
                    "google.GeminiClient": "google", "google.VertexClient": "vertex",
                    "aws.BedrockClient": "aws-bedrock", "openai.DecisionsClient": "openai-decisions",
                    "typesafeai.Client": "typesafeai", "vercel.AiGatewayImageClient": "ai-gateway-images",
                    "claude_code.ClaudeCodeClient": "claude-code"}
del _line, _cls, _rest
