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

import pytest

import sketches
from conftest import golden
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


class ShortWriter(io.RawIOBase):
    """A raw stream taking at most 7 bytes per write."""

    def __init__(self) -> None:
        self.out = bytearray()

    def writable(self) -> bool:
        return True

    def write(self, b) -> int:
        chunk = bytes(b[:7])
        self.out += chunk
        return len(chunk)


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
