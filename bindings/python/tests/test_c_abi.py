"""Python and C agree: images built through the C ABI (libsketches, ctypes)
equal images built here for the same inputs, each side reads the other's,
keys hash the same, and the status numbers and texts are the header's."""

from __future__ import annotations

import ctypes
import re

import numpy as np
import pytest

import sketches
from conftest import HEADER, BloomParams, CountMinParams, CuckooParams, EllParams, FuseParams, SbbfParams

KEYS = ["present-%d" % i for i in range(3000)] + [b"\x00raw", "", "日本語", 0, 1, 2**64 - 1, -5]


def test_status_numbers_and_texts_match_the_header_and_c(clib) -> None:
    defined = dict(
        (m.group(1), int(m.group(2)))
        for m in re.finditer(r"#define SKETCH_([A-Z_]+) (\d+)", HEADER.read_text())
    )
    names = [n for n in dir(sketches.status) if n.isupper()]
    assert len(names) == 23
    for name in names:
        assert defined[name] == getattr(sketches.status, name), name
    for code in range(-1, 25):
        assert sketches.status_str(code) == clib.status_str(code)


def test_hashes_match_c(clib) -> None:
    for seed in (0, 42, 2**64 - 1):
        for k in KEYS:
            if isinstance(k, int):
                assert sketches.hash(k, seed) == clib.lib.sketch_hash_u64(k % 2**64, seed)
            else:
                raw = k.encode() if isinstance(k, str) else k
                assert sketches.hash(k, seed) == clib.lib.sketch_hash(raw, len(raw), seed)
        assert list(sketches.hash_many(KEYS, seed)) == [sketches.hash(k, seed) for k in KEYS]


def _c_filter(clib, family: str, params, size_fn: str, init_args, keys, extra_out: bool):
    size = ctypes.c_uint64()
    clib.call(size_fn, ctypes.byref(params), ctypes.byref(size))
    buf = clib.buffer(size.value)
    clib.call(f"sketch_{family}_init", clib.ptr(buf), ctypes.c_size_t(size.value), ctypes.byref(params), *init_args)
    d, n, o, count = clib.packed(keys)
    out = (ctypes.c_bool * count)() if extra_out else None
    clib.call(f"sketch_{family}_add_packed", clib.ptr(buf), ctypes.c_size_t(size.value), d, ctypes.c_size_t(n), o,
              ctypes.c_size_t(count), out)
    return clib.export(family, buf, size.value)


def test_bloom_images_equal(clib) -> None:
    p = BloomParams()
    clib.call("sketch_bloom_plan", ctypes.c_uint64(5000), ctypes.c_double(0.01), ctypes.byref(p))
    c = _c_filter(clib, "bloom", p, "sketch_bloom_size", [ctypes.c_uint64(7)], KEYS, True)
    py = sketches.BloomFilter(5000, 0.01, seed=7)
    py.add_many(KEYS)
    assert bytes(py) == c
    assert sketches.BloomFilter.from_bytes(c) == py


def test_sbbf_images_equal(clib) -> None:
    for parquet in (False, True):
        p = SbbfParams()
        fn = "sketch_sbbf_plan_parquet" if parquet else "sketch_sbbf_plan"
        clib.call(fn, ctypes.c_uint64(5000), ctypes.c_double(0.01), ctypes.byref(p))
        seed = 0 if parquet else 9
        c = _c_filter(clib, "sbbf", p, "sketch_sbbf_size", [ctypes.c_uint64(seed)], KEYS, True)
        py = sketches.SplitBlockBloomFilter(5000, 0.01, parquet=parquet, seed=seed)
        for k in KEYS:
            # A Parquet-mode filter takes ints with a width (NumPy 64-bit: the same 8 bytes).
            py.add(np.uint64(k % 2**64) if parquet and isinstance(k, int) else k)
        assert bytes(py) == c


def test_counting_and_cuckoo_images_equal(clib) -> None:
    p = BloomParams()
    clib.call("sketch_bloom_plan", ctypes.c_uint64(5000), ctypes.c_double(0.01), ctypes.byref(p))
    c = _c_filter(clib, "counting", p, "sketch_counting_size", [ctypes.c_uint64(3)], KEYS, True)
    py = sketches.CountingBloomFilter(5000, 0.01, seed=3)
    py.add_many(np.array(KEYS, dtype=object))
    assert bytes(py) == c

    q = CuckooParams()
    clib.call("sketch_cuckoo_plan", ctypes.c_uint64(5000), ctypes.c_double(0.01), ctypes.byref(q))
    c = _c_filter(clib, "cuckoo", q, "sketch_cuckoo_size", [ctypes.c_uint64(3)], KEYS, True)
    py = sketches.CuckooFilter(5000, 0.01, seed=3)
    assert py.add_many(KEYS).all()
    assert bytes(py) == c


def test_cardinality_and_minhash_images_equal(clib) -> None:
    for family, cls, arg in (("hll", sketches.HyperLogLog, 11), ("ull", sketches.UltraLogLog, 11),
                             ("minhash", sketches.MinHash, 64)):
        for keys in (KEYS[:100], KEYS):  # HLL: small mode (compact export) and dense
            size = ctypes.c_uint64()
            arg_c = ctypes.c_uint32(arg) if family == "minhash" else ctypes.c_uint8(arg)
            clib.call(f"sketch_{family}_size", arg_c, ctypes.byref(size))
            buf = clib.buffer(size.value)
            clib.call(f"sketch_{family}_init", clib.ptr(buf), ctypes.c_size_t(size.value), arg_c, ctypes.c_uint64(5))
            d, n, o, count = clib.packed(keys)
            clib.call(f"sketch_{family}_add_packed", clib.ptr(buf), ctypes.c_size_t(size.value), d, ctypes.c_size_t(n),
                      o, ctypes.c_size_t(count))
            c = clib.export(family, buf, size.value)
            py = cls(arg, seed=5)
            py.add_many(keys)
            assert bytes(py) == c, (family, len(keys))
            assert cls.from_bytes(c) == py


def test_countmin_and_topk_images_equal(clib) -> None:
    p = CountMinParams()
    clib.call("sketch_countmin_plan", ctypes.c_double(0.01), ctypes.c_double(0.01), ctypes.byref(p))
    p.conservative = 1
    size = ctypes.c_uint64()
    clib.call("sketch_countmin_size", ctypes.byref(p), ctypes.byref(size))
    buf = clib.buffer(size.value)
    clib.call("sketch_countmin_init", clib.ptr(buf), ctypes.c_size_t(size.value), ctypes.byref(p), ctypes.c_uint64(1))
    weights = np.arange(1, len(KEYS) + 1, dtype=np.uint64)
    d, n, o, count = clib.packed(KEYS)
    clib.call("sketch_countmin_add_packed", clib.ptr(buf), ctypes.c_size_t(size.value), d, ctypes.c_size_t(n), o,
              ctypes.c_size_t(count), weights.ctypes.data_as(ctypes.POINTER(ctypes.c_uint64)))
    c = clib.export("countmin", buf, size.value)
    py = sketches.CountMinSketch(0.01, 0.01, conservative=True, seed=1)
    py.add_many(KEYS, weights)
    assert bytes(py) == c

    size = ctypes.c_uint64()
    clib.call("sketch_topk_size", ctypes.c_uint32(50), ctypes.c_uint32(32), ctypes.byref(size))
    buf = clib.buffer(size.value)
    clib.call("sketch_topk_init", clib.ptr(buf), ctypes.c_size_t(size.value), ctypes.c_uint32(50), ctypes.c_uint32(32),
              ctypes.c_uint64(2))
    stream = [KEYS[i % 7 * i % 211] for i in range(5000)]
    d, n, o, count = clib.packed(stream)
    clib.call("sketch_topk_add_packed", clib.ptr(buf), ctypes.c_size_t(size.value), d, ctypes.c_size_t(n), o,
              ctypes.c_size_t(count), None)
    c = clib.export("topk", buf, size.value)
    py = sketches.TopK(50, 32, seed=2)
    py.add_many(stream)
    assert bytes(py) == c


def test_c_reads_python_images(clib) -> None:
    """A filter built in Python answers C queries for the same keys."""
    py = sketches.BloomFilter(5000, 0.01, seed=11)
    py.add_many(KEYS)
    data = bytes(py)
    buf = clib.buffer(len(data))
    memoryview(buf).cast("B")[:] = data
    clib.call("sketch_bloom_verify", ctypes.c_char_p(data), ctypes.c_size_t(len(data)))
    d, n, o, count = clib.packed(KEYS + ["absent-%d" % i for i in range(100)])
    res = (ctypes.c_bool * count)()
    clib.call("sketch_bloom_contains_packed", clib.ptr(buf), ctypes.c_size_t(len(data)), d, ctypes.c_size_t(n), o,
              ctypes.c_size_t(count), res)
    got = list(res)
    assert all(got[: len(KEYS)])
    assert got == list(py.contains_many(KEYS + ["absent-%d" % i for i in range(100)]))


@pytest.mark.parametrize("cls", [sketches.BloomFilter, sketches.HyperLogLog])
def test_python_rejects_what_c_rejects(clib, cls) -> None:
    """Damaged bytes give the same status in Python as in C's verify."""
    s = cls(1000) if cls is sketches.BloomFilter else cls(12)
    s.add_many(range(5000))
    data = bytearray(bytes(s))
    data[len(data) // 2] ^= 4
    family = "bloom" if cls is sketches.BloomFilter else "hll"
    status = getattr(clib.lib, f"sketch_{family}_verify")(bytes(data), ctypes.c_size_t(len(data)))
    with pytest.raises(sketches.SketchError) as e:
        cls.from_bytes(bytes(data))
    assert e.value.status == status == sketches.status.CHECKSUM_MISMATCH


def test_cuckoo_batch_removal_matches_c(clib) -> None:
    """remove_many (the core's remove_hashes) writes what C's
    sketch_cuckoo_remove_packed writes and reports the same per-key results;
    a C batch add without per-key output (added = NULL) equals add_many."""
    q = CuckooParams()
    clib.call("sketch_cuckoo_plan", ctypes.c_uint64(5000), ctypes.c_double(0.01), ctypes.byref(q))
    size = clib.size("cuckoo", ctypes.byref(q))
    buf = clib.buffer(size)
    clib.call("sketch_cuckoo_init", clib.ptr(buf), ctypes.c_size_t(size), ctypes.byref(q), ctypes.c_uint64(4))
    d, n, o, count = clib.packed(KEYS)
    clib.call("sketch_cuckoo_add_packed", clib.ptr(buf), ctypes.c_size_t(size), d, ctypes.c_size_t(n), o,
              ctypes.c_size_t(count), None)
    py = sketches.CuckooFilter(5000, 0.01, seed=4)
    assert py.add_many(KEYS).all()
    assert bytes(py) == clib.export("cuckoo", buf, size)
    gone = KEYS[::3] + ["absent-%d" % i for i in range(200)] + KEYS[::3]
    d, n, o, count = clib.packed(gone)
    removed = (ctypes.c_bool * count)()
    clib.call("sketch_cuckoo_remove_packed", clib.ptr(buf), ctypes.c_size_t(size), d, ctypes.c_size_t(n), o,
              ctypes.c_size_t(count), removed)
    got = py.remove_many(gone)
    assert got.dtype == np.bool_ and list(got) == list(removed)
    assert bytes(py) == clib.export("cuckoo", buf, size)
    assert len(py) == len(KEYS) - int(got.sum())


def _c_fuse(clib, keys, bits: int, seed: int) -> bytes:
    p = FuseParams()
    clib.call("sketch_fuse_plan_bits", ctypes.c_uint64(len(keys)), ctypes.c_uint32(bits), ctypes.byref(p))
    size = clib.size("fuse", ctypes.byref(p))
    scratch_len = ctypes.c_uint64()
    clib.call("sketch_fuse_scratch_size", ctypes.byref(p), ctypes.byref(scratch_len))
    buf = clib.buffer(size)
    scratch = ctypes.create_string_buffer(scratch_len.value)
    d, n, o, count = clib.packed(keys)
    clib.call("sketch_fuse_build_packed", clib.ptr(buf), ctypes.c_size_t(size), ctypes.byref(p), ctypes.c_uint64(seed),
              d, ctypes.c_size_t(n), o, ctypes.c_size_t(count), scratch, ctypes.c_size_t(scratch_len.value))
    return clib.export("fuse", buf, size)


@pytest.mark.parametrize("bits", [8, 16])
def test_fuse_images_equal_and_c_answers_python_filters(clib, bits: int) -> None:
    c = _c_fuse(clib, KEYS, bits, 7)
    py = sketches.BinaryFuseFilter(KEYS, fingerprint_bits=bits, seed=7)
    assert bytes(py) == c
    assert sketches.BinaryFuseFilter.from_bytes(c) == py
    assert py.nbytes == sketches.BinaryFuseFilter.size_for(len(KEYS), bits)
    scratch = ctypes.c_uint64()
    p = FuseParams(len(KEYS), bits, 0)
    clib.call("sketch_fuse_scratch_size", ctypes.byref(p), ctypes.byref(scratch))
    assert sketches.BinaryFuseFilter.scratch_size_for(len(KEYS), bits) == scratch.value
    # C queries the Python image (verified, then zero-copy).
    data = bytes(py)
    clib.call("sketch_fuse_verify", ctypes.c_char_p(data), ctypes.c_size_t(len(data)))
    buf = clib.buffer(len(data))
    memoryview(buf).cast("B")[:] = data
    probe = KEYS + ["absent-%d" % i for i in range(2000)]
    d, n, o, count = clib.packed(probe)
    res = (ctypes.c_bool * count)()
    clib.call("sketch_fuse_contains_packed", clib.ptr(buf), ctypes.c_size_t(len(data)), d, ctypes.c_size_t(n), o,
              ctypes.c_size_t(count), res)
    assert all(res[: len(KEYS)])
    assert list(res) == list(py.contains_many(probe))


@pytest.mark.parametrize("d", [20, 24])
def test_ell_images_equal(clib, d: int) -> None:
    def c_ell(p: int, keys, seed: int = 5):
        params = EllParams(2, d, p, 0)
        size = clib.size("ell", ctypes.byref(params))
        buf = clib.buffer(size)
        clib.call("sketch_ell_init", clib.ptr(buf), ctypes.c_size_t(size), ctypes.byref(params), ctypes.c_uint64(seed))
        dd, n, o, count = clib.packed(keys)
        clib.call("sketch_ell_add_packed", clib.ptr(buf), ctypes.c_size_t(size), dd, ctypes.c_size_t(n), o,
                  ctypes.c_size_t(count))
        return buf, size

    for keys in (KEYS[:50], KEYS):
        buf, size = c_ell(11, keys)
        c = clib.export("ell", buf, size)
        py = sketches.ExaLogLog(11, d=d, seed=5)
        py.add_many(keys)
        assert bytes(py) == c
        assert sketches.ExaLogLog.from_bytes(c) == py
        est = ctypes.c_double()
        clib.call("sketch_ell_estimate", clib.ptr(buf), ctypes.c_size_t(size), ctypes.byref(est))
        assert py.estimate() == est.value
        clib.call("sketch_ell_ml_estimate", clib.ptr(buf), ctypes.c_size_t(size), ctypes.byref(est))
        assert py.ml_estimate() == est.value
    # Downsize and a merge across precisions give C's bytes.
    low = EllParams(2, 20, 8, 0)
    size = clib.size("ell", ctypes.byref(low))
    out = clib.buffer(size)
    clib.call("sketch_ell_downsize", clib.ptr(buf), ctypes.c_size_t(buf.nbytes), clib.ptr(out), ctypes.c_size_t(size),
              ctypes.byref(low))
    down = py.downsize(8, d=20)
    assert bytes(down) == clib.export("ell", out, size)
    other, other_size = c_ell(12, ["other-%d" % i for i in range(3000)])
    clib.call("sketch_ell_merge", clib.ptr(out), ctypes.c_size_t(size), clib.ptr(other), ctypes.c_size_t(other_size))
    big = sketches.ExaLogLog(12, d=d, seed=5)
    big.add_many(["other-%d" % i for i in range(3000)])
    down.merge(big)
    assert bytes(down) == clib.export("ell", out, size)
    assert bytes(py | big) == bytes(py.downsize(11, d=d) | big)
