"""Streaming IO: ``sketch.write_to(f)``, ``sketches.read(f)`` and
``Family.read(f)`` over BytesIO, files on disk and raw streams that return
one byte at a time; exact consumption, truncation at every offset, forged
lengths with bounded reads, damaged images and wrong families."""

from __future__ import annotations

import io
import os
import pickle
import socket
import struct
import threading

import numpy as np
import pytest

import sketches
from conftest import ShortWriter, golden
from sketches import SketchError, status
from test_families import ALL, make
from test_golden import FAMILY, KINDS


def built(cls):
    """A sketch of ``cls`` with a few keys in it."""
    if cls is sketches.BinaryFuseFilter:
        return cls([f"k{i}" for i in range(300)], 0.01, seed=5)
    s = make(cls)
    for i in range(50):
        s.add(f"k{i}")
    return s


EVERY = ALL + [sketches.BinaryFuseFilter]


class OneByteReader(io.RawIOBase):
    """A raw stream that hands out at most one byte per readinto."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self.pos = 0

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        if self.pos >= len(self._data) or len(b) == 0:
            return 0
        b[0] = self._data[self.pos]
        self.pos += 1
        return 1


class ReadOnly:
    """A file-like with only ``read`` (no readinto) that records the sizes asked for."""

    def __init__(self, data: bytes) -> None:
        self._f = io.BytesIO(data)
        self.asked: list[int] = []

    def read(self, n: int) -> bytes:
        self.asked.append(n)
        return self._f.read(n)

    def tell(self) -> int:
        return self._f.tell()


class RecordingReader(io.RawIOBase):
    """A raw stream over ``data`` recording the buffer size of every readinto."""

    def __init__(self, data: bytes) -> None:
        self._f = io.BytesIO(data)
        self.asked: list[int] = []

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        self.asked.append(len(b))
        return self._f.readinto(b)


@pytest.mark.parametrize("cls", EVERY, ids=lambda c: c.__name__)
def test_write_to_writes_exactly_the_export_and_reads_back(cls) -> None:
    s = built(cls)
    f = io.BytesIO()
    assert s.write_to(f) == len(bytes(s))
    assert f.getvalue() == bytes(s)
    f.seek(0)
    back = cls.read(f)
    assert type(back) is cls and bytes(back) == bytes(s)
    assert f.tell() == len(bytes(s))
    assert cls.read(f) is None


def test_every_family_id_maps_to_its_class() -> None:
    from sketches._stream import _FAMILIES

    for cls in EVERY:
        fid = sketches.inspect(bytes(built(cls)))["family_id"]
        assert _FAMILIES[fid] is cls


def test_golden_images_of_every_family_concatenated_read_back_in_order() -> None:
    images = [golden(kind) for kind in KINDS]
    stream = io.BytesIO(b"".join(images))
    end = 0
    for kind, data in zip(KINDS, images):
        s = sketches.read(stream)
        end += len(data)
        assert type(s) is FAMILY[kind], kind
        assert bytes(s) == data, kind
        assert stream.tell() == end, kind  # not a byte past the image
    assert sketches.read(stream) is None  # the clean end
    assert sketches.read(stream) is None
    assert {FAMILY[k] for k in KINDS} == set(EVERY)


def test_per_class_read_of_golden_images_and_a_trailing_byte_is_left() -> None:
    for kind in KINDS:
        data = golden(kind)
        stream = io.BytesIO(data + b"\x99")
        s = FAMILY[kind].read(stream)
        assert bytes(s) == data
        assert stream.tell() == len(data) and stream.read() == b"\x99"


def test_one_byte_per_read_raw_stream_and_read_only_file_likes() -> None:
    images = [golden("bloom"), golden("hll_small"), golden("topk")]
    raw = OneByteReader(b"".join(images))
    for data in images:
        assert bytes(sketches.read(raw)) == data
        assert raw.pos == sum(len(d) for d in images[: images.index(data) + 1])
    assert sketches.read(raw) is None
    plain = ReadOnly(b"".join(images))
    for data in images:
        assert bytes(sketches.read(plain)) == data
    assert sketches.read(plain) is None
    assert plain.tell() == sum(map(len, images))


def test_short_writes_are_completed() -> None:
    s = built(sketches.CountMinSketch)
    w = ShortWriter()
    assert s.write_to(w) == len(bytes(s))
    assert bytes(w.out) == bytes(s)


def test_several_sketches_through_a_real_file(tmp_path) -> None:
    sketches_written = [built(cls) for cls in EVERY]
    path = tmp_path / "images.bin"
    with open(path, "wb") as f:
        total = sum(s.write_to(f) for s in sketches_written)
    assert path.stat().st_size == total
    with open(path, "rb") as f:
        back = []
        while (s := sketches.read(f)) is not None:
            back.append(s)
        assert f.tell() == total
    assert [bytes(s) for s in back] == [bytes(s) for s in sketches_written]
    with open(path, "rb", buffering=0) as f:  # raw FileIO
        assert bytes(sketches.BloomFilter.read(f)) == bytes(sketches_written[0])


@pytest.mark.parametrize("kind", ["bloom", "hll_small"])
def test_truncation_at_every_offset_names_the_bytes(kind: str) -> None:
    data = golden(kind)
    for cut in range(1, len(data)):
        stream = io.BytesIO(data[:cut])
        with pytest.raises(SketchError) as e:
            sketches.read(stream)
        assert e.value.status == status.LENGTH_MISMATCH
        announced = 48 if cut < 48 else len(data)
        assert f"{cut} of {announced} image bytes" in str(e.value)
        assert isinstance(e.value.__cause__, EOFError)
        with pytest.raises(SketchError):
            FAMILY[kind].read(io.BytesIO(data[:cut]))


def _forged(size: int, family: int = 1) -> bytes:
    head = bytearray(golden("bloom")[:48])
    struct.pack_into("<H", head, 6, family)
    struct.pack_into("<Q", head, 24, size)
    return bytes(head)


def test_forged_huge_length_from_a_short_stream_reads_in_bounded_chunks() -> None:
    body = bytes(200_000)
    for reader in (RecordingReader(_forged(1 << 40) + body), ReadOnly(_forged(1 << 40) + body)):
        with pytest.raises(SketchError) as e:
            sketches.read(reader)
        assert e.value.status == status.LENGTH_MISMATCH
        assert f"{48 + len(body)} of {1 << 40} image bytes" in str(e.value)
        # Every request fits the buffer grown so far: 64 KiB first, doubling.
        assert max(reader.asked) <= 2 * (48 + len(body)), reader.asked


@pytest.mark.parametrize("body", [100_000, 1_000_000])
def test_forged_huge_length_peak_memory_is_bounded(body: int) -> None:
    import tracemalloc

    stream = io.BytesIO(_forged(1 << 40) + bytes(body))
    tracemalloc.start()
    try:
        with pytest.raises(SketchError):
            sketches.read(stream)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # The buffer doubles as bytes arrive: under 3x the bytes received (plus slack), never 2**40.
    assert peak < 3 * (48 + body) + 200_000, peak


def test_bad_magic_newer_major_and_damaged_headers() -> None:
    data = bytearray(golden("bloom"))
    bad = bytearray(data)
    bad[0:4] = b"SKCX"
    with pytest.raises(SketchError) as e:
        sketches.read(io.BytesIO(bad))
    assert e.value.status == status.BAD_MAGIC
    newer = bytearray(data)
    newer[4] = sketches.FORMAT_MAJOR + 1
    with pytest.raises(SketchError) as e:
        sketches.read(io.BytesIO(newer))
    assert e.value.status == status.UNSUPPORTED_VERSION
    assert str(sketches.FORMAT_MAJOR + 1) in str(e.value)
    with pytest.raises(SketchError) as e:
        sketches.read(io.BytesIO(_forged(len(data), family=200) + bytes(data[48:])))
    assert e.value.status == status.CORRUPT_HEADER
    for size in (0, 47, 49, len(data) + 3):
        with pytest.raises(SketchError) as e:
            sketches.read(io.BytesIO(_forged(size) + bytes(data[48:])))
        assert e.value.status == status.CORRUPT_HEADER, size
    with pytest.raises(SketchError) as e:
        sketches.read(io.BytesIO(b"not an image at all, just some text bytes here...."))
    assert e.value.status == status.BAD_MAGIC
    # Every check of the common header is the core's, from the 48 bytes
    # alone: nothing past them is read (major 0 and the reserved field read
    # the whole announced image before), and the error names the reason.
    for at, value, words in ((4, 0, "format major 0"), (47, 1, "common header"), (6, 200, "unknown family id 200")):
        bad = bytearray(data)
        bad[at] = value
        stream = io.BytesIO(bytes(bad))
        with pytest.raises(SketchError) as e:
            sketches.read(stream)
        assert e.value.status == status.CORRUPT_HEADER and words in str(e.value), (at, str(e.value))
        assert stream.tell() == 48, at


def test_inspect_header_only_reads_the_recorded_length_from_48_bytes() -> None:
    data = golden("bloom")
    with pytest.raises(SketchError) as e:
        sketches.inspect(data[:48])
    assert e.value.status == status.BUFFER_TOO_SMALL
    head = sketches.inspect(data[:48], header_only=True)
    assert head == sketches.inspect(data)
    assert head["image_bytes"] == len(data)
    forged = _forged(1 << 40)
    assert sketches.inspect(forged, header_only=True)["image_bytes"] == 1 << 40
    with pytest.raises(SketchError) as e:
        sketches.inspect(data[:47], header_only=True)
    assert e.value.status == status.BUFFER_TOO_SMALL


@pytest.mark.parametrize("kind", ["bloom", "hll_dense", "topk", "fuse8"])
def test_corrupted_bodies_raise_what_from_bytes_raises(kind: str) -> None:
    data = bytearray(golden(kind))
    for offset in (40, len(data) // 2, len(data) - 1):
        bad = bytearray(data)
        bad[offset] ^= 0x10
        with pytest.raises(SketchError) as expected:
            FAMILY[kind].from_bytes(bytes(bad))
        stream = io.BytesIO(bytes(bad) + data)
        with pytest.raises(SketchError) as got:
            sketches.read(stream)
        assert got.value.status == expected.value.status
        if offset < 48:
            # A common header that fails its own checks (here the reserved
            # field) stops the read after it: its length is not trusted.
            assert stream.tell() == 48
            continue
        assert stream.tell() == len(data)  # the damaged image is consumed, the next one intact
        assert bytes(sketches.read(stream)) == bytes(data)


def test_wrong_family_is_refused_before_the_body_is_read() -> None:
    data = golden("hll_dense")
    stream = io.BytesIO(data)
    with pytest.raises(SketchError) as e:
        sketches.BloomFilter.read(stream)
    assert e.value.status == status.WRONG_FAMILY
    assert "HyperLogLog" in str(e.value) and "BloomFilter" in str(e.value)
    assert stream.tell() == 48


def test_non_blocking_stream_without_bytes_raises_blocking_io_error() -> None:
    class NothingYet(io.RawIOBase):
        def readable(self) -> bool:
            return True

        def readinto(self, b):
            return None

    with pytest.raises(BlockingIOError):
        sketches.read(NothingYet())

    class TakesNothing(io.RawIOBase):
        def writable(self) -> bool:
            return True

        def write(self, b):
            return None

    with pytest.raises(BlockingIOError) as e:
        built(sketches.MinHash).write_to(TakesNothing())
    assert e.value.characters_written == 0


def test_misbehaving_streams_raise_os_error() -> None:
    class TooMuch:
        def read(self, n: int) -> bytes:
            return bytes(n + 1)

    with pytest.raises(OSError):
        sketches.read(TooMuch())

    class ZeroWriter:
        def write(self, b) -> int:
            return 0

    with pytest.raises(OSError):
        built(sketches.MinHash).write_to(ZeroWriter())


def test_text_streams_are_refused() -> None:
    with pytest.raises(TypeError):
        built(sketches.MinHash).write_to(io.StringIO())
    with pytest.raises(TypeError, match="binary stream"):
        sketches.read(io.StringIO("SKCH" + "x" * 60))


def test_pipe_and_socket_carry_several_images() -> None:
    images = [built(cls) for cls in EVERY]
    expected = [bytes(s) for s in images]

    def send(f) -> None:
        with f:
            for s in images:
                s.write_to(f)

    r, w = os.pipe()
    writer = threading.Thread(target=send, args=(os.fdopen(w, "wb"),))
    writer.start()  # the pipe's buffer is smaller than the images: reads see partial chunks
    with os.fdopen(r, "rb", buffering=0) as f:
        got = []
        while (s := sketches.read(f)) is not None:
            got.append(bytes(s))
    writer.join()
    assert got == expected

    a, b = socket.socketpair()
    with a, b:

        def send_and_close() -> None:
            send(a.makefile("wb"))
            a.shutdown(socket.SHUT_WR)  # the reader's clean end

        writer = threading.Thread(target=send_and_close)
        writer.start()
        with b.makefile("rb") as f:
            got = []
            while (s := sketches.read(f)) is not None:
                got.append(bytes(s))
        writer.join()
        assert got == expected


def test_pickle_is_unchanged() -> None:
    for cls in EVERY:
        s = built(cls)
        back = pickle.loads(pickle.dumps(s))
        assert type(back) is cls and bytes(back) == bytes(s)
        assert s.__reduce__()[0] == cls.from_bytes


# ------------------------------------------------- writes from the live image


class Discard:
    """A sink that takes every byte and keeps none (records the write sizes)."""

    def __init__(self) -> None:
        self.sizes: list[int] = []

    def write(self, b) -> int:
        self.sizes.append(len(b))
        return len(b)


def aligned_buffer(size: int) -> memoryview:
    """A writable, 8-byte aligned buffer of ``size`` bytes (NumPy memory)."""
    return memoryview(np.zeros(size // 8 + 1, dtype=np.uint64)).cast("B")


def varied_sketches() -> list[tuple[str, object]]:
    """Sketches whose export is built differently: every family, HyperLogLog
    small (compact export) and dense, split-block filters folded (owned and
    wrapped, the image a prefix of its buffer), a Parquet-loaded bitset,
    merged sketches, a wrapped image with bytes after it, multi-chunk ones."""
    out: list[tuple[str, object]] = [(cls.__name__, built(cls)) for cls in EVERY]
    small = sketches.HyperLogLog(14)
    small.add_many([f"s{i}" for i in range(10)])
    dense = sketches.HyperLogLog(14)
    dense.add_many([f"d{i}" for i in range(100_000)])
    out += [("hll_small", small), ("hll_dense", dense)]
    folded = sketches.SplitBlockBloomFilter(blocks=1024, parquet=True)
    folded.add_hashes(sketches.parquet_hash_many(np.arange(200, dtype=np.int64)))
    assert folded.fold_to_target_fpp(0.01) > 0
    out.append(("sbbf_folded", folded))
    big = sketches.SplitBlockBloomFilter(blocks=8192)
    image = bytes(big)
    buf = aligned_buffer(len(image) + 4096)
    buf[: len(image)] = image
    buf[len(image) :] = b"\xab" * (len(buf) - len(image))  # bytes after the image: never written
    wrapped = sketches.SplitBlockBloomFilter.wrap(buf)
    wrapped.add_many([f"w{i}" for i in range(3000)])
    wrapped.fold(3)
    out.append(("sbbf_wrapped_folded", wrapped))
    frozen = np.frombuffer(bytes(built(sketches.CountingBloomFilter)), dtype=np.uint64).copy()
    frozen.flags.writeable = False
    read_only = sketches.CountingBloomFilter.wrap(frozen)
    assert not read_only.writable
    out.append(("counting_read_only_wrap", read_only))
    bitset = bytes(range(256)) * 8  # 64 blocks of 32 bytes
    out.append(("sbbf_parquet_bitset", sketches.SplitBlockBloomFilter.from_parquet_bitset(bitset, 0.01)))
    a, b = sketches.BloomFilter(50_000, 0.01, seed=3), sketches.BloomFilter(50_000, 0.01, seed=3)
    a.add_many([f"a{i}" for i in range(1000)])
    b.add_many([f"b{i}" for i in range(1000)])
    out.append(("bloom_merged", a | b))
    h1, h2 = sketches.HyperLogLog(12), sketches.HyperLogLog(12)
    h1.add_many([f"x{i}" for i in range(20)])
    h2.add_many([f"y{i}" for i in range(5000)])
    h1.merge(h2)
    out.append(("hll_merged", h1))
    cms = sketches.CountMinSketch(width=1 << 18, depth=4)  # 8 MiB: many chunks
    cms.add_many([f"c{i}" for i in range(1000)])
    out.append(("countmin_8mib", cms))
    return out


@pytest.mark.parametrize("chunk", [None, 48, 56, 4096])
def test_write_to_is_bytes_of_the_sketch_for_every_kind_of_image(chunk, monkeypatch) -> None:
    from sketches import _stream

    if chunk is not None:  # small chunks put a chunk boundary at every kind of offset
        monkeypatch.setattr(_stream, "WRITE_CHUNK_BYTES", chunk)
    for name, s in varied_sketches():
        if chunk is not None and s.nbytes > 1 << 20:
            continue
        expected = bytes(s)
        f = io.BytesIO()
        assert s.write_to(f) == len(expected), name
        assert f.getvalue() == expected, name
        w = ShortWriter()
        if len(expected) < 200_000:
            assert s.write_to(w) == len(expected) and bytes(w.out) == expected, name
        f.seek(0)
        assert bytes(sketches.read(f)) == expected, name


def test_write_to_hands_write_bounded_chunks() -> None:
    from sketches import _stream

    s = sketches.CountMinSketch(width=1 << 18, depth=4)
    sink = Discard()
    assert s.write_to(sink) == s.nbytes == sum(sink.sizes)
    assert max(sink.sizes) <= _stream.WRITE_CHUNK_BYTES < s.nbytes


def test_write_to_peak_memory_does_not_scale_with_the_image() -> None:
    import tracemalloc

    peaks = []
    for mib in (16, 64):
        s = sketches.BloomFilter(bits=mib << 23, hashes=3)  # mib MiB of bits
        s.add_many([f"k{i}" for i in range(1000)])
        tracemalloc.start()
        try:
            assert s.write_to(Discard()) == s.nbytes
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        peaks.append(peak)
        # A chunk (1 MiB) at a time, never a copy of the image (16 or 64 MiB).
        assert peak < 3 << 20, (mib, peak)
    assert peaks[1] < peaks[0] + (256 << 10), peaks  # 4x the image, the same peak


def test_updates_from_another_thread_during_the_write_raise_and_the_bytes_are_whole() -> None:
    s = sketches.BloomFilter(bits=1 << 24, hashes=3)  # 2 MiB: several chunks
    s.add_many([f"k{i}" for i in range(100)])
    expected = bytes(s)
    errors: list[BaseException] = []

    class Meddling(io.RawIOBase):
        """Tries updates from another thread at every write, then takes 100,000 bytes."""

        def __init__(self) -> None:
            self.out = bytearray()
            self.calls = 0

        def writable(self) -> bool:
            return True

        def write(self, b) -> int:
            for update in (lambda: s.add("late"), lambda: s.add_many(["late"]), s.clear):
                t = threading.Thread(target=lambda: _record(update))
                t.start()
                t.join()
            self.calls += 1
            self.out += bytes(b[:100_000])
            return min(100_000, len(b))

    def _record(update) -> None:
        try:
            update()
        except RuntimeError as e:
            errors.append(e)

    sink = Meddling()
    assert s.write_to(sink) == len(expected)
    assert bytes(sink.out) == expected
    assert sink.calls > 20 and len(errors) == 3 * sink.calls  # every try at every write refused
    assert bytes(s) == expected and "late" not in s
    s.add("late")  # free again once write_to returned
    assert "late" in s


def test_an_update_inside_the_sink_on_the_same_thread_is_refused() -> None:
    s = built(sketches.CountMinSketch)
    seen: list[BaseException] = []

    class Sink:
        def write(self, b) -> int:
            try:
                s.add("again")
            except RuntimeError as e:
                seen.append(e)
            assert len(bytes(s)) == s.nbytes  # queries (and bytes()) still run
            return len(b)

    s.write_to(Sink())
    assert seen and s.estimate("again") == 0


def test_objects_wrapping_the_same_memory_wait_for_the_write() -> None:
    image = bytes(sketches.BloomFilter(bits=1 << 23, hashes=3))
    buf = aligned_buffer(len(image))
    buf[: len(image)] = image
    a = sketches.BloomFilter.wrap(buf)
    b = sketches.BloomFilter.wrap(buf)
    refused: list[BaseException] = []

    class Sink:
        def write(self, data) -> int:
            t = threading.Thread(target=lambda: _try(lambda: b.add("other")))
            t.start()
            t.join()
            return len(data)

    def _try(update) -> None:
        try:
            update()
        except RuntimeError as e:
            refused.append(e)

    assert a.write_to(Sink()) == len(image)
    assert refused and "other" not in a
    b.add("other")
    assert "other" in a


def test_other_code_writing_a_wrapped_buffer_mid_write_gives_a_checksum_failure_not_a_torn_image(
    monkeypatch,
) -> None:
    from sketches import _stream

    monkeypatch.setattr(_stream, "WRITE_CHUNK_BYTES", 4096)
    image = bytes(sketches.BloomFilter(bits=1 << 18, hashes=3))
    buf = aligned_buffer(len(image))
    buf[: len(image)] = image
    s = sketches.BloomFilter.wrap(buf)
    out = io.BytesIO()

    class Sink:
        def write(self, data) -> int:
            if out.tell() == 0:
                buf[len(image) - 100] ^= 0xFF  # not yet written: the raw buffer, behind the sketch's back
            return out.write(data)

    s.write_to(Sink())
    assert out.getvalue() != image
    with pytest.raises(SketchError) as e:
        sketches.read(io.BytesIO(out.getvalue()))
    assert e.value.status == status.CHECKSUM_MISMATCH


def test_write_errors_leave_the_sketch_free_and_report_the_bytes_written() -> None:
    s = sketches.BloomFilter(bits=1 << 24, hashes=3)

    class Fails:
        def __init__(self) -> None:
            self.calls = 0

        def write(self, b) -> int:
            self.calls += 1
            if self.calls == 2:
                raise OSError("disk full")
            return len(b)

    with pytest.raises(OSError, match="disk full"):
        s.write_to(Fails())
    s.add("after")  # the borrow ended with the error
    with pytest.raises(ValueError, match="at least 48"):
        s._write_chunks(lambda chunk, total: None, 47)

    class Blocks(io.RawIOBase):
        def __init__(self) -> None:
            self.calls = 0

        def writable(self) -> bool:
            return True

        def write(self, b):
            self.calls += 1
            return len(b) if self.calls == 1 else None

    from sketches import _stream

    with pytest.raises(BlockingIOError) as e:
        s.write_to(Blocks())
    assert e.value.characters_written == _stream.WRITE_CHUNK_BYTES
    s.add("after again")


def test_a_sink_keeping_the_chunks_it_was_given_keeps_the_bytes_written() -> None:
    s = sketches.BloomFilter(bits=1 << 23, hashes=3)
    s.add_many([f"k{i}" for i in range(100)])
    expected = bytes(s)
    kept = []

    class Keeps:
        def write(self, b) -> int:
            kept.append(b.obj if isinstance(b, memoryview) else b)  # the object under the view
            return len(b)

    s.write_to(Keeps())
    s.add_many([f"later{i}" for i in range(10_000)])  # the live image changes afterwards
    assert b"".join(bytes(k) for k in kept) == expected


# ---------------------------------------------- ConcurrentSketch streams


CONCURRENT = [sketches.BloomFilter, sketches.SplitBlockBloomFilter, sketches.HyperLogLog, sketches.UltraLogLog]


@pytest.mark.parametrize("cls", CONCURRENT, ids=lambda c: c.__name__)
def test_concurrent_sketch_write_to_writes_its_snapshot_and_read_gives_one_back(cls) -> None:
    c = built(cls).concurrent()
    c.add_many([f"c{i}" for i in range(500)])
    f = io.BytesIO()
    n = c.write_to(f)
    assert n == len(f.getvalue()) and f.getvalue() == bytes(c.snapshot())
    f.write(bytes(built(sketches.MinHash)))
    f.seek(0)
    back = sketches.ConcurrentSketch.read(f)
    assert isinstance(back, sketches.ConcurrentSketch) and back.kind == cls.__name__
    assert bytes(back.snapshot()) == bytes(c.snapshot())
    back.add("more")  # its own copy
    assert f.tell() == n
    with pytest.raises(SketchError) as e:
        sketches.ConcurrentSketch.read(f)
    assert e.value.status == status.WRONG_FAMILY and "MinHash" in str(e.value)
    assert f.tell() == n + 48  # refused from the header alone
    assert sketches.ConcurrentSketch.read(io.BytesIO()) is None
    assert type(sketches.read(io.BytesIO(bytes(c.snapshot())))) is cls  # the ordinary class


def test_concurrent_sketch_write_to_while_threads_add_is_a_consistent_image() -> None:
    c = sketches.BloomFilter(200_000, 0.01).concurrent()
    stop = threading.Event()
    added: list[int] = []

    def adder(t: int) -> None:
        i = 0
        while not stop.is_set():
            c.add_many([f"t{t}-{j}" for j in range(i, i + 500)])
            i += 500
            added.append(t)

    threads = [threading.Thread(target=adder, args=(t,)) for t in range(2)]
    for t in threads:
        t.start()
    try:
        for round in range(20):
            c.add(f"mine{round}")  # returned before write_to began: in the image
            f = io.BytesIO()
            c.write_to(f)
            f.seek(0)
            got = sketches.BloomFilter.read(f)  # checksum and headers valid
            assert all(f"mine{r}" in got for r in range(round + 1))
            assert got.add_calls <= c.snapshot().add_calls
    finally:
        stop.set()
        for t in threads:
            t.join()
    assert added
    final = io.BytesIO()
    c.write_to(final)
    assert final.getvalue() == bytes(c.snapshot())  # exact once the adds are done


def test_concurrent_sketch_over_shared_memory_writes_its_image() -> None:
    h = sketches.HyperLogLog(12)
    h.add_many([f"h{i}" for i in range(3000)])
    h.densify()
    image = bytes(h)
    buf = aligned_buffer(len(image))
    buf[: len(image)] = image
    c = sketches.ConcurrentSketch.wrap(buf)
    c.add_many([f"more{i}" for i in range(100)])
    f = io.BytesIO()
    assert c.write_to(f) == len(bytes(c.snapshot()))
    f.seek(0)
    back = sketches.read(f)
    assert type(back) is sketches.HyperLogLog and bytes(back) == bytes(sketches.HyperLogLog.wrap(buf))
