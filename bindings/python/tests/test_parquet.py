"""Parquet bloom filter interop against real writers' files
(tests/parquet/writers.manifest: DuckDB 2.0.1 and pyarrow 26.0.1, answers from
DuckDB's reader), mirroring tests/tests/parquet.rs through the Python API:

* the typed hashes and each writer's sizing (plus pyarrow's fold) rebuild
  every writer's bitset byte for byte;
* ``from_parquet_bitset`` loads each bitset into a filter that finds every
  written value and answers the absent probes exactly as DuckDB's reader did;
* a table written here by pyarrow gets the bitset we build;
* folding in place, its effect on sizes, export and pickling, and bad input
  (nothing changes on error).
"""

from __future__ import annotations

import mmap
import pickle
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Set, Tuple

import numpy as np
import pyarrow as pa
import pytest

import sketches
from sketches import SketchError, status

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "tests" / "parquet"
SBBF = sketches.SplitBlockBloomFilter


# ------------------------------------------------------------- the manifest


@dataclass
class Filter:
    file: str
    writer: str
    fpp: float
    column: str
    kind: str
    offset: int
    length: int
    ndv_option: Optional[int]
    distinct: int


@dataclass
class Manifest:
    filters: List[Filter]
    values: Dict[Tuple[str, str], List[bytes]]
    present: Dict[Tuple[str, str], Tuple[int, int]]
    absent: Dict[Tuple[str, str], Tuple[int, Set[bytes]]]
    special: Dict[Tuple[str, str], List[Tuple[bytes, bool]]]

    def values_of(self, f: Filter) -> List[bytes]:
        table = "0.01" if f.fpp == 0.01 else "0.05"
        return self.values.get(("*", f.column)) or self.values[(table, f.column)]


def hex_list(field: Optional[str]) -> List[bytes]:
    return [bytes.fromhex(x) for x in (field or "").split(",") if x]


def parse_manifest() -> Manifest:
    m = Manifest([], {}, {}, {}, {})
    files: Dict[str, Tuple[str, float]] = {}
    for line in (FIXTURES / "writers.manifest").read_text().splitlines():
        if line.startswith("#"):
            continue
        f = line.split(" ")
        get = lambda i: f[i] if i < len(f) else None  # noqa: E731
        key = (f[1], f[2]) if len(f) > 2 else None
        if f[0] == "file":
            files[f[1]] = (f[2], float(f[3]))
        elif f[0] == "filter":
            writer, fpp = files[f[1]]
            m.filters.append(
                Filter(f[1], writer, fpp, f[2], f[3], int(f[4]), int(f[5]),
                       None if f[6] == "-" else int(f[6]), int(f[7]))
            )
        elif f[0] == "values":
            m.values[key] = hex_list(get(3))
        elif f[0] == "present":
            m.present[key] = (int(f[3]), int(f[4]))
        elif f[0] == "absent":
            m.absent[key] = (int(f[3]), set(hex_list(get(4))))
        elif f[0] == "special":
            m.special.setdefault(key, []).append((bytes.fromhex(f[3]), f[4] == "1"))
        else:
            raise AssertionError(f"unknown manifest line {f[0]}")
    return m


MANIFEST = parse_manifest()


def parse_num_bytes(region: bytes) -> int:
    """Field 1 of a Thrift-compact BloomFilterHeader: i32 numBytes, zigzag varint."""
    assert region[0] == 0x15, "field 1 of type i32 expected"
    value, shift, at = 0, 0, 1
    while True:
        b = region[at]
        value |= (b & 0x7F) << shift
        at += 1
        if not b & 0x80:
            break
        shift += 7
    return (value >> 1) ^ -(value & 1)


def bitset_at(data: bytes, offset: int, length: int) -> bytes:
    """The bitset of the filter stored at offset..offset+length: its last numBytes bytes."""
    region = data[offset : offset + length]
    return region[length - parse_num_bytes(region) :]


def file_bitset(f: Filter) -> bytes:
    return bitset_at((FIXTURES / f.file).read_bytes(), f.offset, f.length)


# ------------------------------------------------------------- typed values

STRUCT = {"int32": "<i", "int64": "<q", "float": "<f", "double": "<d"}
DTYPE = {"int32": "<i4", "int64": "<i8", "float": "<f4", "double": "<f8"}
HASH = {
    "int32": sketches.parquet_hash_int32,
    "int64": sketches.parquet_hash_int64,
    "float": sketches.parquet_hash_float,
    "double": sketches.parquet_hash_double,
}


def typed_hash(kind: str, plain: bytes) -> int:
    """The hash of a PLAIN-encoded value through the typed function, decoding first."""
    if kind in STRUCT:
        (value,) = struct.unpack(STRUCT[kind], plain)
        return HASH[kind](value)
    return sketches.parquet_hash_bytes(plain)


def typed_array(kind: str, plains: List[bytes]):
    """The values as a user holds them: a NumPy array of the column's dtype, or a list of bytes."""
    if kind in DTYPE:
        return np.frombuffer(b"".join(plains), dtype=DTYPE[kind])
    if kind == "string":
        return pa.array([p.decode() for p in plains], pa.string())
    return pa.array(plains, pa.binary())


def absent_probes(kind: str, count: int) -> List[bytes]:
    """The probes tests/parquet/generate.py sent for absent values."""
    out = []
    for i in range(count):
        if kind == "int32":
            out.append(struct.pack("<i", 2_000_000 + 13 * i))
        elif kind == "int64":
            out.append(struct.pack("<q", 9_000_000_000_000 + 13 * i))
        elif kind == "float":
            out.append((np.float32(1.0e6) + np.float32(0.5) * np.float32(i)).astype("<f4").tobytes())
        elif kind == "double":
            out.append(struct.pack("<d", 1.0e9 + 0.25 * i))
        elif kind == "string":
            out.append(f"absent-{i}".encode())
        else:
            out.append(b"\xfe\xed" + struct.pack("<I", i))
    return out


def rebuild(f: Filter, values: List[bytes]) -> SBBF:
    """A writer's filter rebuilt: its sizing rule, the typed hashes, its fold."""
    if f.writer == "duckdb":
        # DuckDB sizes from the chunk's dictionary (the exact distinct count) and does not fold.
        bf = SBBF.for_parquet(f.distinct, f.fpp, sizing="duckdb")
    else:
        # pyarrow sizes from its ndv option with Arrow C++'s rule, then folds.
        assert f.ndv_option is not None
        bf = SBBF.for_parquet(f.ndv_option, f.fpp, sizing="arrow-cpp")
    assert bf.parquet
    for v in values:
        bf.add_hash(typed_hash(f.kind, v))
    folds = bf.fold_to_target_fpp(f.fpp)
    if f.writer == "duckdb":
        assert folds == 0, (f.file, f.column)
    return bf


REGULAR = [f for f in MANIFEST.filters if not f.column.startswith("s_")]


def ident(f: Filter) -> str:
    return f"{f.file}:{f.column}"


# --------------------------------------------------------- (a) byte for byte


def test_manifest_covers_both_writers_every_type_and_rate() -> None:
    seen = {(f.writer, f.kind, f.fpp) for f in REGULAR}
    for writer in ("duckdb", "pyarrow"):
        for kind in ("int32", "int64", "float", "double", "string", "binary"):
            for fpp in (0.01, 0.05):
                assert (writer, kind, fpp) in seen
    assert len(MANIFEST.filters) == 40


@pytest.mark.parametrize("f", REGULAR, ids=ident)
def test_writers_bitsets_are_rebuilt_byte_for_byte(f: Filter) -> None:
    theirs = file_bitset(f)
    values = MANIFEST.values_of(f)
    assert len(values) == f.distinct
    ours = rebuild(f, values)
    assert ours.blocks * 32 == len(theirs)
    assert ours.bitset() == theirs

    # The same through the batch forms: typed arrays / pyarrow columns hashed at once.
    hashes = sketches.parquet_hash_many(typed_array(f.kind, values))
    assert hashes.dtype == np.uint64
    assert hashes.tolist() == [typed_hash(f.kind, v) for v in values]
    sizing = "duckdb" if f.writer == "duckdb" else "arrow-cpp"
    batch = SBBF(f.distinct if f.writer == "duckdb" else f.ndv_option, f.fpp, parquet=True, sizing=sizing)
    assert batch.add_hashes(hashes).sum() == len(batch) > 0  # a key whose bits were all set is not new
    batch.fold_to_target_fpp(f.fpp)
    assert batch.bitset() == theirs
    # Strings and binaries: the Parquet-mode filter's own key hashing is BYTE_ARRAY's.
    if f.kind in ("string", "binary"):
        keyed = SBBF(batch.planned_items, f.fpp, parquet=True, sizing=sizing)
        keyed.add_many(typed_array(f.kind, values))
        keyed.fold_to_target_fpp(f.fpp)
        assert keyed.bitset() == theirs


def test_sizing_rules_differ_where_the_writers_do() -> None:
    # m = 16390.8 bits: only Arrow C++ rounds up to 4096 bytes.
    sizes = {s: SBBF.for_parquet(1693, 0.01, sizing=s).blocks * 32 for s in ("parquet-rs", "duckdb", "arrow-cpp")}
    assert sizes == {"parquet-rs": 2048, "duckdb": 2048, "arrow-cpp": 4096}
    assert SBBF.for_parquet(1693, 0.01, sizing="pyarrow").blocks == 128
    assert SBBF.for_parquet(1693, 0.01).blocks == SBBF(1693, 0.01, parquet=True).blocks == 64
    for s in sizes:
        assert SBBF.size_for(1693, 0.01, True, sizing=s) == SBBF.for_parquet(1693, 0.01, sizing=s).nbytes
    # The writers' files: pyarrow told ndv 53 at 1% wrote 128 bytes, the parquet crate's rule gives 64.
    b = next(f for f in REGULAR if f.file == "pyarrow_fpp01.parquet" and f.column == "b_i64")
    assert len(file_bitset(b)) == SBBF.for_parquet(b.ndv_option, 0.01, sizing="arrow-cpp").blocks * 32 == 128
    assert SBBF.for_parquet(b.ndv_option, 0.01).blocks * 32 == 64
    # pyarrow told ndv 8192 folds down to what DuckDB sized from the exact count.
    c = {f.writer: file_bitset(f) for f in REGULAR if f.column == "c_i64" and f.fpp == 0.05}
    assert c["pyarrow"] == c["duckdb"]


# ---------------------------------------------------------- (b) loaded bitsets


@pytest.mark.parametrize("f", REGULAR, ids=ident)
def test_loaded_bitsets_answer_as_the_reader(f: Filter) -> None:
    theirs = file_bitset(f)
    loaded = SBBF.from_parquet_bitset(theirs, f.fpp)
    assert loaded.parquet and loaded.bitset() == theirs and len(loaded) == 0
    assert loaded.planned_fpr == f.fpp
    values = MANIFEST.values_of(f)
    key = (f.file, f.column)
    assert MANIFEST.present[key] == (len(values), len(values))
    assert all(loaded.contains_hash(typed_hash(f.kind, v)) for v in values)
    assert loaded.contains_hashes(sketches.parquet_hash_many(typed_array(f.kind, values))).all()
    probed, maybe = MANIFEST.absent[key]
    probes = absent_probes(f.kind, probed)
    ours = {p for p in probes if loaded.contains_hash(typed_hash(f.kind, p))}
    assert ours == maybe
    batch = loaded.contains_hashes(sketches.parquet_hash_many(typed_array(f.kind, probes)))
    assert {p for p, hit in zip(probes, batch) if hit} == maybe
    # A filter holding what it was sized for is within a plan derived from its size and rate.
    if f.column.startswith("a_"):
        assert not loaded.over_capacity, loaded.stats()
    # With the writer's settings as the plan.
    planned = SBBF.from_parquet_bitset(memoryview(theirs), f.fpp, ndv=f.distinct)
    assert planned.planned_items == f.distinct and planned.bitset() == theirs


def test_the_readers_false_positives_are_reproduced() -> None:
    # Not just "absent": dozens of probes the reader answered maybe for, one by one.
    assert sum(len(MANIFEST.absent[(f.file, f.column)][1]) for f in REGULAR) > 50


@pytest.mark.parametrize("f", [f for f in MANIFEST.filters if f.column.startswith("s_")], ids=ident)
def test_float_special_values_hash_as_raw_bits(f: Filter) -> None:
    """-0.0, three NaN patterns, 1.5, both infinities: writers hash the raw bits.
    pyarrow stores every pattern, DuckDB only the first NaN seen."""
    values = MANIFEST.values[("*", f.column)]
    dtype = DTYPE[f.kind]
    arr = np.frombuffer(b"".join(values), dtype=dtype)
    if f.writer == "duckdb":
        first_nan = int(np.flatnonzero(np.isnan(arr))[0])
        arr = np.array([v for i, v in enumerate(arr) if not np.isnan(v) or i == first_nan], dtype=dtype)
    bf = SBBF.for_parquet(len(arr), f.fpp, sizing="duckdb")
    assert bf.blocks == 1
    bf.add_hashes(sketches.parquet_hash_many(arr))
    theirs = file_bitset(f)
    assert bf.bitset() == theirs
    loaded = SBBF.from_parquet_bitset(theirs, f.fpp)
    zero = HASH[f.kind](0.0)
    assert not loaded.contains_hash(zero), "+0.0 was never written"
    assert loaded.contains_hash(HASH[f.kind](-0.0))
    assert HASH[f.kind](-0.0) != zero


# ------------------------------------------------------------- typed hashes


def test_typed_hashes_are_xxh64_of_the_plain_encoding() -> None:
    # The parquet crate's test vector: the empty byte array.
    assert sketches.parquet_hash_bytes(b"") == 17_241_709_254_077_376_921
    assert sketches.parquet_hash_bytes("user-1") == sketches.parquet_hash_bytes(b"user-1")
    assert sketches.parquet_hash_bytes(bytearray(b"ab")) == sketches.parquet_hash_bytes(memoryview(b"xab")[1:])
    f = SBBF(10, parquet=True)
    f.add(struct.pack("<i", -7))  # a Parquet-mode key is XXH64 of its bytes
    assert f.contains_hash(sketches.parquet_hash_int32(-7))
    assert sketches.parquet_hash_int32(-7) == sketches.parquet_hash_bytes(struct.pack("<i", -7))
    assert sketches.parquet_hash_int32(2**32 - 1) == sketches.parquet_hash_int32(-1)
    assert sketches.parquet_hash_int64(-1) == sketches.parquet_hash_bytes(b"\xff" * 8)
    assert sketches.parquet_hash_int64(2**64 - 1) == sketches.parquet_hash_int64(-1)
    assert sketches.parquet_hash_int64(np.int64(5)) == sketches.parquet_hash_bytes(struct.pack("<q", 5))
    assert sketches.parquet_hash_float(1.5) == sketches.parquet_hash_bytes(struct.pack("<f", 1.5))
    assert sketches.parquet_hash_float(0.1) == sketches.parquet_hash_bytes(struct.pack("<f", 0.1))
    assert sketches.parquet_hash_double(-2.25) == sketches.parquet_hash_bytes(struct.pack("<d", -2.25))
    assert sketches.parquet_hash_double(0.0) != sketches.parquet_hash_double(-0.0)
    assert sketches.parquet_hash_float(float("inf")) == sketches.parquet_hash_bytes(struct.pack("<f", float("inf")))


def test_typed_hashes_refuse_out_of_range_values() -> None:
    for bad in (2**32, -(2**31) - 1, 2**70):
        with pytest.raises(OverflowError):
            sketches.parquet_hash_int32(bad)
    for bad in (2**64, -(2**63) - 1):
        with pytest.raises(OverflowError):
            sketches.parquet_hash_int64(bad)
    with pytest.raises(OverflowError):
        sketches.parquet_hash_float(1e300)
    with pytest.raises(TypeError):
        sketches.parquet_hash_int32(1.5)
    with pytest.raises(TypeError):
        sketches.parquet_hash_int64("1")
    with pytest.raises(TypeError):
        sketches.parquet_hash_bytes(5)
    with pytest.raises(TypeError):
        sketches.parquet_hash_double("x")


def test_batch_hashes_follow_the_dtype() -> None:
    ints = [-(2**31), -1, 0, 7, 2**31 - 1]
    for dtype in ("int8", "int16", "int32", ">i4"):
        arr = np.array([v for v in ints if np.iinfo(np.dtype(dtype)).min <= v <= np.iinfo(np.dtype(dtype)).max],
                       dtype=dtype)
        assert sketches.parquet_hash_many(arr).tolist() == [sketches.parquet_hash_int32(int(v)) for v in arr]
    u = np.array([0, 255, 65535, 2**32 - 1], dtype=np.uint32)
    assert sketches.parquet_hash_many(u).tolist() == [sketches.parquet_hash_int32(int(v)) for v in u]
    assert sketches.parquet_hash_many(u[:2].astype(np.uint8)).tolist() == [
        sketches.parquet_hash_int32(0), sketches.parquet_hash_int32(255)]
    i64 = np.array([-(2**63), -1, 0, 2**62], dtype=np.int64)
    assert sketches.parquet_hash_many(i64).tolist() == [sketches.parquet_hash_int64(int(v)) for v in i64]
    assert sketches.parquet_hash_many(i64[::2]).tolist() == [sketches.parquet_hash_int64(int(v)) for v in i64[::2]]
    assert sketches.parquet_hash_many(i64.view(np.uint64)).tolist() == sketches.parquet_hash_many(i64).tolist()
    f32 = np.array([1.5, -0.0, np.inf], dtype=np.float32)
    assert sketches.parquet_hash_many(f32).tolist() == [sketches.parquet_hash_float(float(v)) for v in f32]
    nan = np.array([0x7FC00001], dtype=np.uint32).view(np.float32)
    assert sketches.parquet_hash_many(nan)[0] == sketches.parquet_hash_bytes(struct.pack("<I", 0x7FC00001))
    f64 = np.array([0.1, -2.25], dtype=np.float64)
    assert sketches.parquet_hash_many(f64).tolist() == [sketches.parquet_hash_double(float(v)) for v in f64]
    # Lists: NumPy scalars by their type, str/bytes as BYTE_ARRAY (None refused, as nulls are;
    # Python ints and floats refused: test_a_list_of_python_numbers_has_no_parquet_type).
    assert sketches.parquet_hash_many([np.int64(1), np.int64(2)]).tolist() == [
        sketches.parquet_hash_int64(1), sketches.parquet_hash_int64(2)]
    assert sketches.parquet_hash_many([np.int32(1)]).tolist() == [sketches.parquet_hash_int32(1)]
    assert sketches.parquet_hash_many([np.float64(0.5)]).tolist() == [sketches.parquet_hash_double(0.5)]
    assert sketches.parquet_hash_many(["a", b"b"]).tolist() == [
        sketches.parquet_hash_bytes("a"), sketches.parquet_hash_bytes(b"b")]
    assert sketches.parquet_hash_many(np.array(["a", "bc"])).tolist() == [
        sketches.parquet_hash_bytes("a"), sketches.parquet_hash_bytes("bc")]
    assert len(sketches.parquet_hash_many([])) == 0
    # pyarrow columns: numeric (chunked too), temporal as their integers, strings with nulls.
    col = pa.chunked_array([pa.array([1, 2], pa.int32()), pa.array([3], pa.int32())])
    assert sketches.parquet_hash_many(col).tolist() == [sketches.parquet_hash_int32(v) for v in (1, 2, 3)]
    dates = pa.array([0, 19000], pa.date32())
    assert sketches.parquet_hash_many(dates).tolist() == [sketches.parquet_hash_int32(v) for v in (0, 19000)]
    ts = pa.array([1, 2**40], pa.timestamp("us"))
    assert sketches.parquet_hash_many(ts).tolist() == [sketches.parquet_hash_int64(v) for v in (1, 2**40)]
    s = pa.array(["x", None, "yz"], pa.large_string())
    assert sketches.parquet_hash_many(s.drop_null()).tolist() == [
        sketches.parquet_hash_bytes("x"), sketches.parquet_hash_bytes("yz")]
    with pytest.raises(ValueError, match="drop_null"):
        sketches.parquet_hash_many(pa.array([1, None], pa.int64()))
    for bad in (np.array([True]), np.array([1.0], np.float16), pa.array([True]), np.zeros((2, 2), np.int32)):
        with pytest.raises((TypeError, ValueError)):
            sketches.parquet_hash_many(bad)
    with pytest.raises(TypeError):
        sketches.parquet_hash_many(b"abc")


# ---------------------------------------------------------------- (c) pyarrow


def test_pyarrow_round_trip(tmp_path: Path) -> None:
    """pyarrow writes a file with bloom filters; the bitsets it stored (located
    through the file metadata) equal the filters we build for the same columns."""
    pq = pytest.importorskip("pyarrow.parquet")
    n = 3000
    i = np.arange(n)
    table = pa.table({
        "i32": pa.array((i * 7919 - 10**6).astype(np.int32)),
        "i64": pa.array(i.astype(np.int64) * 1_000_000_007),
        "f32": pa.array((i * 0.375 - 11).astype(np.float32)),
        "f64": pa.array(i * 1.5e-3 - 0.25),
        "str": pa.array([f"row-{k}" for k in i]),
        "bin": pa.array([struct.pack("<Q", k * 2654435761 % 2**64)[:6] for k in i.tolist()], pa.binary()),
        "day": pa.array((i % 700).astype(np.int32), pa.date32()),
    })
    options = {
        "i32": (n, 0.01), "i64": (4 * n, 0.05), "f32": (n, 0.01), "f64": (n // 2, 0.01),
        "str": (n, 0.02), "bin": (2 * n, 0.01), "day": (1000, 0.01),
    }
    path = tmp_path / "bloom.parquet"
    try:
        pq.write_table(table, path, row_group_size=n,
                       bloom_filter_options={c: {"ndv": nd, "fpp": p} for c, (nd, p) in options.items()})
    except TypeError:
        pytest.skip("this pyarrow cannot write bloom filters")
    data = path.read_bytes()
    rg = pq.ParquetFile(path).metadata.row_group(0)
    checked = 0
    for k in range(rg.num_columns):
        cc = rg.column(k)
        if not getattr(cc, "bloom_filter_offset", None):
            pytest.skip("this pyarrow does not expose bloom filter offsets")
        name = cc.path_in_schema
        ndv, fpp = options[name]
        theirs = bitset_at(data, cc.bloom_filter_offset, cc.bloom_filter_length)
        ours = SBBF.for_parquet(ndv, fpp, sizing="arrow-cpp")
        ours.add_hashes(sketches.parquet_hash_many(table.column(name)))
        ours.fold_to_target_fpp(fpp)
        assert ours.bitset() == theirs, name
        loaded = SBBF.from_parquet_bitset(theirs, fpp)
        assert loaded.contains_hashes(sketches.parquet_hash_many(table.column(name))).all()
        checked += 1
    assert checked == len(options)


# ------------------------------------------------------------------ folding


def filled(blocks: int = 64, keys: int = 100) -> Tuple[SBBF, np.ndarray]:
    bf = SBBF(blocks=blocks, parquet=True)
    hashes = sketches.parquet_hash_many(np.arange(keys, dtype=np.int64))
    bf.add_hashes(hashes)
    return bf, hashes


def test_fold_in_place_shrinks_everything() -> None:
    bf, hashes = filled()
    before = bf.bitset()
    nbytes = bf.nbytes
    assert bf.fold(2) is None
    assert bf.blocks == 16 and len(bf.bitset()) == 16 * 32
    assert bf.nbytes < nbytes and bf.nbytes == SBBF(blocks=16, parquet=True).nbytes
    assert len(bytes(bf)) == bf.nbytes and len(bf) == 100
    # Block i is the OR of blocks 4i..4i+3.
    for b in range(16):
        run = [before[(4 * b + j) * 32 : (4 * b + j + 1) * 32] for j in range(4)]
        merged = bytes(a | c | d | e for a, c, d, e in zip(*run))
        assert bf.bitset()[b * 32 : (b + 1) * 32] == merged
    assert bf.contains_hashes(hashes).all()
    # Equal to the filter built at the smaller size.
    direct = SBBF(blocks=16, parquet=True)
    direct.add_hashes(hashes)
    assert direct.bitset() == bf.bitset()
    for again in (pickle.loads(pickle.dumps(bf)), SBBF.from_bytes(bytes(bf)), bf.copy()):
        assert again == bf and again.bitset() == bf.bitset() and again.nbytes == bf.nbytes
    bf.add("still writable")
    assert "still writable" in bf
    bf.fold(0)
    assert bf.blocks == 16


def test_fold_to_target_fpp_returns_the_folds() -> None:
    bf, hashes = filled(blocks=1024, keys=200)
    folds = bf.fold_to_target_fpp(0.01)
    assert folds > 0 and bf.blocks == 1024 >> folds
    assert bf.contains_hashes(hashes).all()
    assert bf.fold_to_target_fpp(0.01) == 0  # already as small as the rate allows
    empty = SBBF(blocks=64, parquet=True)
    assert empty.fold_to_target_fpp(0.01) == 6 and empty.blocks == 1
    # Native mode folds too.
    native = SBBF(blocks=8)
    native.add_many(["a", "b"])
    native.fold(3)
    assert native.blocks == 1 and "a" in native and "b" in native


def test_failed_folds_change_nothing() -> None:
    bf = SBBF(blocks=12, parquet=True)
    bf.add_hashes(sketches.parquet_hash_many(np.arange(50, dtype=np.int32)))
    image, nbytes = bytes(bf), bf.nbytes
    for folds in (3, 4, 64, 1000):  # 12 blocks: 2**3 does not divide; 2**64 and more never
        with pytest.raises(SketchError) as e:
            bf.fold(folds)
        assert e.value.status == status.INVALID_ARGUMENT
        assert bytes(bf) == image and bf.nbytes == nbytes
    for folds in (-1, 2**32):
        with pytest.raises(OverflowError):
            bf.fold(folds)
    # NaN, and a rate outside (0, 1): 1 meant as 1% folded any filter to one
    # all-ones block.
    for fpp in (float("nan"), 1.0, 5.0, float("inf"), 0.0, -0.01):
        with pytest.raises(SketchError) as e:
            bf.fold_to_target_fpp(fpp)
        assert e.value.status == status.INVALID_PARAMETER
        assert bytes(bf) == image
    bf.fold(2)  # 12 = 3 * 4
    assert bf.blocks == 3


def test_fold_of_a_wrapped_buffer_uses_its_prefix() -> None:
    bf, hashes = filled(blocks=32)
    buf = mmap.mmap(-1, bf.nbytes + 64)
    buf[: bf.nbytes] = bytes(bf)
    tail = bytes(buf[bf.nbytes :])
    w = SBBF.wrap(buf)
    other = SBBF.wrap(buf)
    w.fold(3)
    assert w.blocks == 4 and w.contains_hashes(hashes).all()
    assert SBBF.from_bytes(bytes(w)).bitset() == w.bitset()
    assert SBBF.wrap(memoryview(buf)[: w.nbytes]).bitset() == w.bitset()  # the image is the prefix
    assert bytes(buf[bf.nbytes :]) == tail  # past the old image: untouched
    assert other.blocks == 4 and other.bitset() == w.bitset()  # the same memory, revalidated
    del w, other
    ro = SBBF.wrap(bytes(bf))
    with pytest.raises(TypeError):
        ro.fold(1)
    assert ro.blocks == 32
    buf.close()


def test_fold_while_another_thread_adds_raises() -> None:
    import threading

    bf = SBBF(blocks=1024, parquet=True)
    keys = np.arange(2_000_000, dtype=np.uint64)
    errors: List[BaseException] = []
    started = threading.Event()

    def add() -> None:
        started.set()
        bf.add_many(keys)

    for _ in range(20):
        t = threading.Thread(target=add)
        t.start()
        started.wait()
        try:
            bf.fold(1)
        except RuntimeError as e:
            errors.append(e)
        t.join()
        if errors:
            break
        bf = SBBF(blocks=1024, parquet=True)
        started.clear()
    if not errors:
        pytest.skip("the add finished before the fold every time")
    assert "borrow" in str(errors[0]).lower()


# ---------------------------------------------------------------- bad input


def test_bad_bitsets_are_refused() -> None:
    for bad in (b"", b"\x00" * 31, b"\x00" * 33, bytearray(100)):
        with pytest.raises(SketchError) as e:
            SBBF.from_parquet_bitset(bad, 0.01)
        assert e.value.status == status.INVALID_ARGUMENT
    for fpr in (0.0, 1.0, float("nan")):
        with pytest.raises(SketchError) as e:
            SBBF.from_parquet_bitset(b"\x00" * 32, fpr)
        assert e.value.status == status.INVALID_PARAMETER
    with pytest.raises(SketchError):
        SBBF.from_parquet_bitset(b"\x00" * 32, 0.01, ndv=0)
    with pytest.raises(TypeError):
        SBBF.from_parquet_bitset("not bytes", 0.01)
    # Any contiguous buffer; the filter holds a copy.
    src = np.zeros(8, dtype=np.uint64)
    f = SBBF.from_parquet_bitset(src, 0.01)
    src[0] = 1
    assert f.bitset() == b"\x00" * 64 and f.blocks == 2


def test_bad_planning_arguments() -> None:
    for name in ("arrow", "DuckDB", "", "parquet_rs"):
        with pytest.raises(ValueError, match="sizing"):
            SBBF.for_parquet(100, 0.01, sizing=name)
        with pytest.raises(ValueError, match="sizing"):
            SBBF.size_for(100, 0.01, True, sizing=name)
    with pytest.raises(ValueError, match="parquet=True"):
        SBBF(100, 0.01, sizing="duckdb")
    with pytest.raises(ValueError, match="blocks"):
        SBBF(blocks=4, parquet=True, sizing="duckdb")
    for ndv, fpp in ((0, 0.01), (100, 0.0), (100, 1.0), (100, float("nan"))):
        with pytest.raises(SketchError) as e:
            SBBF.for_parquet(ndv, fpp, sizing="arrow-cpp")
        assert e.value.status == status.INVALID_PARAMETER
    with pytest.raises(OverflowError):
        SBBF.for_parquet(-1, 0.01)


def test_add_hashes_validate_their_input() -> None:
    bf = SBBF(100, parquet=True)
    with pytest.raises(ValueError):
        bf.add_hashes([-1])
    with pytest.raises(TypeError):
        bf.add_hashes(np.array([1.5]))
    with pytest.raises(TypeError):
        bf.add_hashes(b"12345678")
    # ValueError as add_hashes (OverflowError before; test_arguments.py).
    with pytest.raises(ValueError):
        bf.add_hash(2**64)
    with pytest.raises(ValueError):
        bf.contains_hash(-1)
    assert bf.add_hashes([1, 2**64 - 1]).tolist() == [True, True]
    assert bf.contains_hashes(pa.array([1, 2**64 - 1, 5], pa.uint64())).tolist() == [True, True, False]
    assert len(bf.add_hashes([])) == 0
    assert len(bf) == 2


# ------------------------------------------------------------------ the C ABI


def test_images_equal_the_c_abis(clib) -> None:
    """Planning with each sizing, adding hashes, folding and loading give the
    same images here as through libsketches' sketch_sbbf_plan_parquet_sizing,
    _add_hash_batch, _fold_to_target_fpp, _fold and _load_parquet_bitset."""
    import ctypes

    from conftest import SbbfParams

    hashes = sketches.parquet_hash_many(np.arange(-500, 700, 3, dtype=np.int32))
    for code, sizing in enumerate(("parquet-rs", "duckdb", "arrow-cpp")):
        for ndv, fpp in ((1693, 0.01), (20_000, 0.05)):
            p = SbbfParams()
            clib.call("sketch_sbbf_plan_parquet_sizing", ctypes.c_uint64(ndv), ctypes.c_double(fpp),
                      ctypes.c_uint32(code), ctypes.byref(p))
            size = clib.size("sbbf", ctypes.byref(p))
            assert size == SBBF.size_for(ndv, fpp, True, sizing=sizing)
            buf = clib.buffer(size)
            clib.call("sketch_sbbf_init", clib.ptr(buf), ctypes.c_size_t(size), ctypes.byref(p), ctypes.c_uint64(0))
            clib.call("sketch_sbbf_add_hash_batch", clib.ptr(buf), ctypes.c_size_t(size),
                      hashes.ctypes.data_as(ctypes.POINTER(ctypes.c_uint64)), ctypes.c_size_t(len(hashes)), None)
            folds, new_len = ctypes.c_uint32(), ctypes.c_size_t()
            clib.call("sketch_sbbf_fold_to_target_fpp", clib.ptr(buf), ctypes.c_size_t(size), ctypes.c_double(fpp),
                      ctypes.byref(folds), ctypes.byref(new_len))
            ours = SBBF.for_parquet(ndv, fpp, sizing=sizing)
            ours.add_hashes(hashes)
            assert ours.fold_to_target_fpp(fpp) == folds.value > 0
            assert ours.nbytes == new_len.value
            assert bytes(ours) == clib.export("sbbf", buf, new_len.value)

    f = next(f for f in REGULAR if f.writer == "pyarrow" and f.column == "c_i64")
    theirs = np.frombuffer(file_bitset(f), np.uint8).copy()
    p = SbbfParams()
    clib.call("sketch_sbbf_plan_parquet_bitset", ctypes.c_size_t(len(theirs)), ctypes.c_double(f.fpp), ctypes.byref(p))
    size = clib.size("sbbf", ctypes.byref(p))
    buf = clib.buffer(size)
    clib.call("sketch_sbbf_load_parquet_bitset", clib.ptr(buf), ctypes.c_size_t(size), clib.ptr(theirs),
              ctypes.c_size_t(len(theirs)), ctypes.byref(p))
    loaded = SBBF.from_parquet_bitset(theirs, f.fpp)
    assert bytes(loaded) == clib.export("sbbf", buf, size)
    new_len = ctypes.c_size_t()
    clib.call("sketch_sbbf_fold", clib.ptr(buf), ctypes.c_size_t(size), ctypes.c_uint32(2), ctypes.byref(new_len))
    loaded.fold(2)
    assert bytes(loaded) == clib.export("sbbf", buf, new_len.value)


def test_temporal_columns_hash_as_pyarrow_stores_them(tmp_path: Path) -> None:
    """date64, timestamp[s] and time32[s] are stored converted (Parquet has
    one DATE type, INT32 days, and no second unit): their hashes were of the
    Arrow integers (date64 milliseconds, seconds), so none of the keys was
    found in the filter pyarrow wrote. Every temporal column's hashes are
    now all in the file's filters."""
    pq = pytest.importorskip("pyarrow.parquet")
    n = 400
    i = np.arange(n, dtype=np.int64)
    table = pa.table({
        "d64": pa.array(i * 86_400_000 - 40 * 86_400_000, pa.date64()),
        "d32": pa.array((i - 40).astype(np.int32), pa.date32()),
        "ts_s": pa.array(i * 1000 + 17, pa.timestamp("s")),
        "ts_s_tz": pa.array(i * 1000 + 17, pa.timestamp("s", tz="UTC")),
        "ts_ms": pa.array(i * 1000 + 17, pa.timestamp("ms")),
        "ts_ns": pa.array(i * 1000 + 17, pa.timestamp("ns", tz="UTC")),
        "t32s": pa.array((i * 7).astype(np.int32), pa.time32("s")),
        "t32ms": pa.array((i * 7).astype(np.int32), pa.time32("ms")),
        "t64us": pa.array(i * 7, pa.time64("us")),
        "dur": pa.array(i * 3, pa.duration("s")),
    })
    path = tmp_path / "temporal.parquet"
    pq.write_table(table, path, row_group_size=n,
                   bloom_filter_options={c: {"ndv": n, "fpp": 0.01} for c in table.column_names})
    data = path.read_bytes()
    rg = pq.ParquetFile(path).metadata.row_group(0)
    for k in range(rg.num_columns):
        cc = rg.column(k)
        name = cc.path_in_schema
        loaded = SBBF.from_parquet_bitset(bitset_at(data, cc.bloom_filter_offset, cc.bloom_filter_length), 0.01)
        column = table.column(name)
        assert loaded.contains_hashes(sketches.parquet_hash_many(column)).all(), name
        assert loaded.contains_hashes(sketches.parquet_hash_many(column.chunk(0))).all(), name


def test_a_list_of_python_numbers_has_no_parquet_type() -> None:
    """parquet_hash_many hashed a list of Python ints as INT64 and of floats
    as DOUBLE: the list of an INT32 (or DATE) column's values (``df.col.tolist()``,
    the values a user types) got hashes its Parquet filter never holds, and
    every lookup answered False, silently; the TypeError of a Parquet-mode
    filter's ``42 in f`` pointed there too. Such a list now raises TypeError
    asking for a typed array; typed arrays and NumPy scalars hash as before."""
    f = SBBF.for_parquet(100, 0.01)
    f.add_hashes(sketches.parquet_hash_many(np.arange(10, dtype=np.int32)))
    for bad in ([1, 2], (1, 2), [np.int32(1), 2], [0.5], [np.float32(0.5), 0.5], iter([7])):
        with pytest.raises(TypeError, match="np.asarray"):
            sketches.parquet_hash_many(bad)
    assert f.contains_hashes(sketches.parquet_hash_many(np.asarray([1, 2], np.int32))).all()
    assert f.contains_hashes(sketches.parquet_hash_many([np.int32(1), np.int32(2)])).all()
    values = [-1, 2**63, 0, 2**64 - 1, -(2**63), 7]
    as_u64 = np.array([v % 2**64 for v in values], np.uint64)  # INT64 bits, typed
    assert sketches.parquet_hash_many(as_u64).tolist() == [sketches.parquet_hash_int64(v) for v in values]
    with pytest.raises(TypeError):
        sketches.parquet_hash_many([1, True])
    with pytest.raises(TypeError):
        sketches.parquet_hash_many([np.bool_(True)])


class _PandasLikeSeries:
    """What matters of a pandas Series here: ``__array__`` gives the typed
    NumPy array, iterating gives Python scalars."""

    def __init__(self, values: np.ndarray) -> None:
        self.values = values

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        return self.values if dtype is None else self.values.astype(dtype)

    def __iter__(self):
        return iter(self.values.tolist())

    def __len__(self) -> int:
        return len(self.values)


class _ArrowCapsuleColumn(_PandasLikeSeries):
    """A polars-like Series: the Arrow PyCapsule stream interface besides
    ``__array__`` (which for an integer column with nulls gives float64)."""

    def __init__(self, array: pa.Array) -> None:
        super().__init__(array.to_numpy(zero_copy_only=False))
        self.array = array

    def __arrow_c_stream__(self, requested_schema=None):
        return pa.chunked_array([self.array]).__arrow_c_stream__(requested_schema)


def test_typed_columns_of_other_libraries_keep_their_parquet_type() -> None:
    """A pandas int32 or float32 Series (or a polars one) was read by
    iterating it: Python ints and floats, hashed as INT64 and DOUBLE, so an
    INT32/FLOAT column's keys were never found in its Parquet filter. Now
    its dtype (or Arrow type) decides, as for NumPy and pyarrow arrays."""
    for dtype in (np.int32, np.uint16, np.float32, np.int64, np.float64):
        values = (np.arange(50) * 3 - 20).astype(dtype)
        expected = sketches.parquet_hash_many(values).tolist()
        assert sketches.parquet_hash_many(_PandasLikeSeries(values)).tolist() == expected, dtype
        column = _ArrowCapsuleColumn(pa.array(values))
        assert sketches.parquet_hash_many(column).tolist() == expected, dtype
    strings = np.array(["a", "bc", ""], dtype=object)
    assert sketches.parquet_hash_many(_PandasLikeSeries(strings)).tolist() == [
        sketches.parquet_hash_bytes(v) for v in strings]
    with pytest.raises(ValueError):  # nulls of an Arrow-backed column are seen, not hashed as NaN doubles
        sketches.parquet_hash_many(_ArrowCapsuleColumn(pa.array([1, None, 3], pa.int32())))


def test_typed_hashes_refuse_bools_as_the_batch_does() -> None:
    """parquet_hash_many refuses bools, but parquet_hash_int32(True) hashed
    the INT32 1 and parquet_hash_float(True) the FLOAT 1.0 (and the float
    docs promised "anything float() takes", yet a str raised TypeError).
    Now every typed hash refuses a bool with TypeError; ints and objects
    with __float__ still work."""
    for fn in (sketches.parquet_hash_int32, sketches.parquet_hash_int64,
               sketches.parquet_hash_float, sketches.parquet_hash_double):
        for b in (True, False, np.bool_(True)):
            with pytest.raises(TypeError):
                fn(b)
    with pytest.raises(TypeError):
        sketches.parquet_hash_many([True])
    assert sketches.parquet_hash_float(3) == sketches.parquet_hash_float(3.0)
    assert sketches.parquet_hash_double(np.float32(0.5)) == sketches.parquet_hash_double(0.5)
    assert sketches.parquet_hash_int32(np.int16(-3)) == sketches.parquet_hash_int32(-3)


def test_add_hashes_of_a_non_integer_arrow_column_is_a_type_error() -> None:
    """A pyarrow string (or other non-primitive) column passed as hashes
    raised pyarrow's ArrowInvalid ("zero_copy_only was True"), not the
    TypeError a non-integer NumPy array gives."""
    bf = SBBF(blocks=2, parquet=True)
    for bad in (pa.array(["1"]), pa.chunked_array([pa.array(["1"])]), pa.array([1.5])):
        with pytest.raises(TypeError):
            bf.contains_hashes(bad)
        with pytest.raises(TypeError):
            bf.add_hashes(bad)
    assert len(bf) == 0
    sliced = pa.array([5, 6, 7], pa.uint64()).slice(1)
    assert bf.add_hashes(sliced).tolist() == [True, True]
    assert bf.contains_hashes(pa.chunked_array([sliced, pa.array([5], pa.uint64())])).tolist() == [True, True, False]


def test_string_nulls_are_refused_as_numeric_nulls_are(tmp_path: Path) -> None:
    """parquet_hash_many gave 0 for a null string (numeric nulls raised
    ValueError): add_hashes then added hash 0, which no writer adds, so the
    bitset of a string column with nulls differed from the one pyarrow
    wrote (the README promises equal bytes). Nulls now raise ValueError
    everywhere; drop_null() gives pyarrow's bitset."""
    pq = pytest.importorskip("pyarrow.parquet")
    n = 3000
    col = pa.array([None if k % 3 == 0 else f"k{k}" for k in range(n)])
    for bad in (col, pa.chunked_array([col]), col.cast(pa.large_binary()), col.dictionary_encode(),
                ["a", None], np.array([b"a", None], dtype=object)):
        with pytest.raises(ValueError, match="drop_null"):
            sketches.parquet_hash_many(bad)
    path = tmp_path / "nulls.parquet"
    pq.write_table(pa.table({"s": col}), path, bloom_filter_options={"s": {"ndv": n, "fpp": 0.01}})
    cc = pq.ParquetFile(path).metadata.row_group(0).column(0)
    theirs = bitset_at(path.read_bytes(), cc.bloom_filter_offset, cc.bloom_filter_length)
    ours = SBBF.for_parquet(n, 0.01, sizing="arrow-cpp")
    ours.add_hashes(sketches.parquet_hash_many(col.drop_null()))
    ours.fold_to_target_fpp(0.01)
    assert ours.bitset() == theirs


def test_parquet_mode_batches_refuse_columns_stored_as_int32() -> None:
    """A Parquet-mode filter's add_many/contains_many hash ints as 8 bytes
    (INT64): contains_many of an int32 column against the filter of that
    INT32 column answered False for every value, silently. Integer columns
    narrower than 64 bits now raise TypeError there (parquet_hash_many +
    contains_hashes answer right); int64 columns and native filters are
    unchanged (lists of Python ints: test_parquet_mode_refuses_keys_without_a_width)."""
    values = np.arange(100, dtype=np.int32)
    f = SBBF.for_parquet(100, 0.01)
    f.add_hashes(sketches.parquet_hash_many(values))
    assert f.contains_hashes(sketches.parquet_hash_many(values)).all()
    for bad in (values, values.astype(np.uint8), pa.array(values), pa.chunked_array([pa.array(values, pa.int16())]),
                pa.array(values).dictionary_encode()):
        with pytest.raises(TypeError, match="parquet_hash_many"):
            f.contains_many(bad)
        with pytest.raises(TypeError, match="parquet_hash_many"):
            f.add_many(bad)
    assert len(f) == 100
    wide = np.arange(10, dtype=np.int64)
    f.add_many(wide)
    assert f.contains_hashes(sketches.parquet_hash_many(wide)).all()
    assert f.contains_many(list(wide)).all() and f.contains_many(pa.array(wide)).all()
    native = SBBF(100, 0.01)
    native.add_many(values)
    assert native.contains_many(values).all()


def test_concurrent_parquet_filter_batches_refuse_columns_stored_as_int32() -> None:
    """The same refusal for a ConcurrentSketch over a Parquet-mode filter
    (its add_many/contains_many hashed an int32 column as INT64, silently)."""
    values = np.arange(50, dtype=np.int32)
    c = SBBF.for_parquet(100, 0.01).concurrent()
    for call in (c.add_many, c.contains_many):
        with pytest.raises(TypeError, match="parquet_hash_many"):
            call(values)
        with pytest.raises(TypeError, match="parquet_hash_many"):
            call(pa.array(values))
    c.add_many(values.astype(np.int64))
    assert c.contains_many(list(np.arange(50, dtype=np.int64))).all()
    native = SBBF(100, 0.01).concurrent()
    native.add_many(values)
    assert native.contains_many(values).all()


def test_parquet_mode_refuses_keys_without_a_width() -> None:
    """A Python int carries no width, and a Parquet column stores INT32 or
    INT64: ``42 in f`` on the filter of an INT32 column (or a DATE column)
    hashed 42 as INT64 and answered False, silently, as did a list of ints
    (``df.col.tolist()``) in contains_many and an np.int32 scalar. In
    Parquet mode these now raise TypeError naming parquet_hash_int32 /
    parquet_hash_int64; NumPy 64-bit scalars and arrays (typed INT64),
    str and bytes (BYTE_ARRAY) work as before, and nothing stored changes."""
    f = SBBF.for_parquet(100, 0.01)
    f.add_hashes(sketches.parquet_hash_many(np.arange(10, dtype=np.int32)))
    before = f.to_bytes()
    for key in (5, True, np.int32(5), np.uint16(5), np.int8(5), 5.0, np.float32(5.0)):
        with pytest.raises(TypeError, match="parquet_hash_int32"):
            key in f  # noqa: B015
        with pytest.raises(TypeError, match="parquet_hash_int32"):
            f.contains(key)
        with pytest.raises(TypeError, match="parquet_hash_int32"):
            f.add(key)
        batches = (lambda: [key], lambda: ["a", key], lambda: (b"b", key), lambda: iter([key]),
                   lambda: np.array([key], dtype=object))
        for batch in batches:
            with pytest.raises(TypeError, match="parquet_hash_int32"):
                f.contains_many(batch())
            with pytest.raises(TypeError, match="parquet_hash_int32"):
                f.add_many(batch())
        c = f.concurrent()
        with pytest.raises(TypeError, match="parquet_hash_int32"):
            c.add(key)
        with pytest.raises(TypeError, match="parquet_hash_int32"):
            key in c  # noqa: B015
        with pytest.raises(TypeError, match="parquet_hash_int32"):
            c.add_many([key])
        with pytest.raises(TypeError, match="parquet_hash_int32"):
            c.contains_many([None, key])
    assert f.to_bytes() == before
    # parquet_hash_many's byte-key path took an int among strings as INT64 too.
    with pytest.raises(TypeError, match="parquet_hash_int32"):
        sketches.parquet_hash_many(["a", 5])
    assert f.contains_hash(sketches.parquet_hash_int32(5))
    # Typed 64-bit values and byte keys still hash as Parquet does.
    assert f.add(np.int64(7)) and f.contains_hash(sketches.parquet_hash_int64(7))
    assert np.uint64(7) in f and f.contains_many([np.int64(7), None]).tolist() == [True, False]
    assert f.add("x") and f.contains_hash(sketches.parquet_hash_bytes("x"))
    assert f.contains_many(np.array([7], np.int64)).all()
    # Native filters keep the key rule (int as 8 bytes).
    native = SBBF(100, 0.01)
    assert native.add(5) and 5 in native and np.int32(5) in native and native.contains_many([5]).all()


def test_concurrent_parquet_filter_takes_typed_hashes() -> None:
    """A ConcurrentSketch over a Parquet-mode filter had no add_hash /
    add_hashes / contains_hash / contains_hashes, so threads could not add
    (or look up) an INT32, FLOAT or DOUBLE column's values at all (its int
    keys are INT64 values, now refused). They now take parquet_hash_* values
    as SplitBlockBloomFilter's do, from any number of threads; the result
    equals the sequential filter. Other families raise TypeError."""
    values = np.arange(4000, dtype=np.int32)
    hashes = sketches.parquet_hash_many(values)
    seq = SBBF.for_parquet(4000, 0.01)
    seq_new = seq.add_hashes(hashes)
    c = SBBF.for_parquet(4000, 0.01).concurrent()
    parts = np.array_split(hashes, 8)
    import threading

    threads = [threading.Thread(target=c.add_hashes, args=(p,)) for p in parts]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    snap = c.snapshot()
    assert snap.bitset() == seq.bitset() and snap.add_calls == seq.add_calls
    assert c.contains_hashes(hashes).all() and c.contains_hash(sketches.parquet_hash_int32(7))
    assert not c.contains_hash(sketches.parquet_hash_int32(-7))
    c2 = SBBF.for_parquet(4000, 0.01).concurrent()
    assert c2.add_hashes(list(hashes[:3]) + [int(hashes[0])]).tolist() == seq_new[:3].tolist() + [False]
    assert c2.add_hash(sketches.parquet_hash_int32(-7)) and not c2.add_hash(sketches.parquet_hash_int32(-7))
    with pytest.raises(ValueError):
        c2.add_hashes([-1])
    for other in (sketches.BloomFilter(10, 0.01), sketches.HyperLogLog(10)):
        cc = other.concurrent()
        for call in (lambda: cc.add_hash(1), lambda: cc.contains_hash(1), lambda: cc.add_hashes([1]),
                     lambda: cc.contains_hashes([1])):
            with pytest.raises(TypeError, match="SplitBlockBloomFilter"):
                call()


def test_parquet_mode_batches_point_other_columns_to_parquet_hash_many() -> None:
    """A float, date or timestamp column given to a Parquet-mode filter's
    add_many/contains_many raised 'cannot use an Arrow double array as keys
    (Binary, String, ... or integers)', which says nothing of the way that
    works; it now names add_hashes/contains_hashes(parquet_hash_many(values)),
    nothing added. Native filters keep their message."""
    f = SBBF.for_parquet(100, 0.01)
    before = f.to_bytes()
    for bad in (pa.array([1.5]), pa.array([1], pa.date32()), pa.array([1], pa.timestamp("ms")),
                np.array([1.5]), np.array([1.5], np.float32), np.array(["2020-01-01"], "datetime64[D]"),
                pa.chunked_array([pa.array([True])])):
        for call in (f.add_many, f.contains_many, f.concurrent().add_many):
            with pytest.raises(TypeError, match="parquet_hash_many"):
                call(bad)
    assert f.to_bytes() == before
    f.add_hashes(sketches.parquet_hash_many(pa.array([1.5])))
    assert f.contains_hash(sketches.parquet_hash_double(1.5))
    assert f.contains_many(pa.array(["a"], pa.string_view()) if hasattr(pa, "string_view") else ["a"]).tolist() == [False]
    with pytest.raises(TypeError, match="cannot use"):
        SBBF(100, 0.01).contains_many(pa.array([1.5]))
