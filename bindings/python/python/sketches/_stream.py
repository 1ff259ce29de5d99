"""Streaming IO: sketch images written to and read from binary file-likes.

``sketch.write_to(f)`` writes exactly ``bytes(sketch)``, from the live image
in chunks (no copy of the image); ``sketches.read(f)``
and ``Family.read(f)`` read exactly one image back (the 48-byte common
header first, then exactly the rest of the image length it records, never a
byte more), so several images written one after another to one file, socket
or pipe read back in order. The header layout (little-endian, SPEC.md
section 2, ``core/src/image.rs``): magic ``SKCH`` at 0, format major at 4,
family id at 6 (u16), hash id at 8 (u16), header length at 10 (u16), image
length at 24 (u64); the core checks it (``inspect(header_only=True)``), this
module only names what it holds in the errors.

Plain Python on purpose: it is IO over any object with ``read`` /
``readinto`` / ``write``; the checks of the image itself are the native
``from_bytes``, and the chunks a write hands ``f.write`` come from the
native ``_write_chunks``, which keeps the sketch borrowed while they go out.
``ConcurrentSketch`` gets ``write_to`` (of its ``snapshot()``) and ``read``
here too.
"""

from __future__ import annotations

import io
import struct
from typing import Any, Optional, TypeVar

from . import status
from ._errors import SketchError
from ._native import (
    FORMAT_MAJOR,
    BinaryFuseFilter,
    BloomFilter,
    ConcurrentSketch,
    CountingBloomFilter,
    CountMinSketch,
    CuckooFilter,
    ExaLogLog,
    HyperLogLog,
    MinHash,
    SplitBlockBloomFilter,
    TopK,
    UltraLogLog,
    inspect,
    status_str,
)

_COMMON_HEADER_LEN = 48
_OFF_MAJOR = 4
_OFF_FAMILY = 6
_OFF_HASH = 8
_OFF_HEADER_LEN = 10
_OFF_IMAGE_LEN = 24
_IMAGE_LEN_ALIGN = 8
_HASH_XXH3 = 1  # SKETCH_HASH_XXH3

#: Bytes a read holds before the image's bytes have arrived: its buffer
#: starts at this size (or the image's, when smaller) and doubles as bytes
#: arrive, and no single ``read``/``readinto`` asks for more than the buffer's
#: free room. A header announcing 2**40 bytes from a short stream costs at
#: most about three times the bytes received (the doubled buffer while it
#: grows), never the announced length.
FIRST_READ_BYTES = 64 << 10

#: The most bytes ``write_to`` hands one ``f.write`` call, and the most of
#: the image it holds at a time: each chunk is copied out of the live image
#: into a fresh ``bytes`` just before it is written, so writing a 1 GiB
#: filter takes about this much memory, not another gibibyte.
WRITE_CHUNK_BYTES = 1 << 20

#: The family ids of the common header (``FamilyId`` in core/src/image.rs).
_FAMILIES: dict[int, type] = {
    1: BloomFilter,
    2: SplitBlockBloomFilter,
    3: CountingBloomFilter,
    4: CuckooFilter,
    5: HyperLogLog,
    6: UltraLogLog,
    7: CountMinSketch,
    8: TopK,
    9: MinHash,
    10: BinaryFuseFilter,
    11: ExaLogLog,
}
_IDS: dict[type, int] = {cls: fid for fid, cls in _FAMILIES.items()}

#: The families a ``ConcurrentSketch`` holds (``ConcurrentSketch.read``).
_CONCURRENT_FAMILIES = (BloomFilter, SplitBlockBloomFilter, HyperLogLog, UltraLogLog)

_STATUS_NAMES = {
    value: name for name, value in vars(status).items() if name.isupper() and isinstance(value, int)
}

_S = TypeVar("_S")


def _error(code: int, detail: str) -> SketchError:
    """A SketchError worded as the native ones, with ``detail`` appended."""
    reason = status_str(code)
    return SketchError(code, reason, f"{reason} (SKETCH_{_STATUS_NAMES[code]}, status {code}): {detail}")


def _read_some(f: Any, buf: bytearray, start: int, end: int) -> int:
    """Reads at most ``end - start`` bytes of ``f`` into ``buf[start:end]``;
    returns how many (0 at the end of the stream). BlockingIOError when a
    non-blocking stream has no bytes ready (``read``/``readinto`` gave None)."""
    want = end - start
    readinto = getattr(f, "readinto", None)
    if readinto is not None:
        with memoryview(buf) as whole, whole[start:end] as room:
            got = readinto(room)
        if got is not None and not 0 <= got <= want:
            raise OSError(f"sketches.read: readinto returned {got} for a buffer of {want} bytes")
    else:
        data = f.read(want)
        if isinstance(data, str):
            raise TypeError("sketches.read needs a binary stream (open the file with 'rb'), not a text one")
        got = None if data is None else len(data)
        if got is not None:
            if got > want:
                raise OSError(f"sketches.read: read({want}) returned {got} bytes")
            buf[start : start + got] = data
    if got is None:
        raise BlockingIOError(
            "sketches.read: the non-blocking stream has no bytes ready; the bytes "
            "of the image read so far are lost (read images from a blocking stream)"
        )
    return got


def _read_image(f: Any, want: tuple[type, ...], reader: str = "") -> Optional[tuple[type, bytearray]]:
    """Reads one exported image from ``f``: the common header, then exactly
    the rest of the length it records. None at a clean end (no byte).
    ``want``: the families accepted (empty: any), another one raising
    WRONG_FAMILY before the body is read; ``reader`` names the reading
    class in that error when it is not the one family wanted."""
    head = bytearray(_COMMON_HEADER_LEN)
    have = 0
    while have < _COMMON_HEADER_LEN:
        got = _read_some(f, head, have, _COMMON_HEADER_LEN)
        if got == 0:
            if have == 0:
                return None
            raise _truncated(have, _COMMON_HEADER_LEN)
        have += got
    # The core checks the header alone (magic, version, ids, reserved
    # field, lengths: ``inspect(header_only=True)``), so a bad one fails
    # before its body is read. The hash id is left to ``from_bytes``, as for
    # bytes (an unknown one is UNSUPPORTED_HASH when the checksum holds,
    # CHECKSUM_MISMATCH when it fails): the check reads a copy naming XXH3.
    probe = bytearray(head)
    struct.pack_into("<H", probe, _OFF_HASH, _HASH_XXH3)
    try:
        size = inspect(probe, header_only=True)["image_bytes"]
    except SketchError as refused:
        raise _header_error(refused.status, head) from None
    (family_id,) = struct.unpack_from("<H", head, _OFF_FAMILY)
    cls = _FAMILIES[family_id]
    if want and cls not in want:
        names = [w.__name__ for w in want]
        expected = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
        raise _error(
            status.WRONG_FAMILY,
            f"the stream holds a {cls.__name__} image, not a {expected}" + (f" ({reader})" if reader else ""),
        )
    # Grown as bytes arrive, never allocated at the announced size up front.
    buf = bytearray(min(size, FIRST_READ_BYTES))
    buf[:_COMMON_HEADER_LEN] = head
    while have < size:
        if have == len(buf):
            buf.extend(bytes(min(size, 2 * len(buf)) - len(buf)))
        got = _read_some(f, buf, have, len(buf))
        if got == 0:
            raise _truncated(have, size)
        have += got
    return cls, buf


def _header_error(code: int, head: bytearray) -> SketchError:
    """The error of a common header the core refused with status ``code``,
    naming what the header holds where that is the reason (no image magic,
    another format major, an unknown family id, impossible lengths)."""
    major = head[_OFF_MAJOR]
    (family_id,) = struct.unpack_from("<H", head, _OFF_FAMILY)
    (header_len,) = struct.unpack_from("<H", head, _OFF_HEADER_LEN)
    (size,) = struct.unpack_from("<Q", head, _OFF_IMAGE_LEN)
    if code == status.BAD_MAGIC:
        return _error(code, "the stream does not continue with an image")
    if major > FORMAT_MAJOR:
        return _error(code, f"the image has format major {major}, this binding reads up to {FORMAT_MAJOR}")
    if major == 0:
        return _error(code, "format major 0")
    if code == status.CORRUPT_HEADER and family_id not in _FAMILIES:
        return _error(code, f"unknown family id {family_id}")
    if code == status.CORRUPT_HEADER and (
        header_len < _COMMON_HEADER_LEN or header_len % _IMAGE_LEN_ALIGN or size % _IMAGE_LEN_ALIGN or size < header_len
    ):
        return _error(code, f"the header records an image of {size} bytes and a header of {header_len}")
    return _error(code, "the image's common header is damaged")


def _truncated(have: int, size: int) -> SketchError:
    """The error of a stream that ended inside an image (an EOFError as its cause)."""
    detail = f"truncated stream: {have} of {size} image bytes"
    err = _error(status.LENGTH_MISMATCH, detail)
    err.__cause__ = EOFError(detail)
    return err


def read(f: Any) -> Optional[Any]:
    """Reads exactly one image of any family from the binary file-like ``f``
    and returns the sketch of the family its header names (``BloomFilter``,
    ``HyperLogLog``, ...), or None at a clean end of the stream (no byte
    left), so ``while (s := sketches.read(f)) is not None:`` reads every
    image of a stream.

    ``f`` needs ``readinto`` (preferred) or ``read``: a file opened ``"rb"``,
    ``io.BytesIO``, ``socket.makefile("rb")``, a pipe, a raw stream that
    returns fewer bytes than asked. It reads the 48-byte common header, then
    exactly the remaining bytes of the image length it records, never a byte
    more, so the next image starts where this one ends. Memory grows as
    bytes arrive (from 64 KiB, doubling): a forged header announcing a huge
    length costs at most about three times the bytes the stream really
    holds.

    Errors (``SketchError``, a ValueError, with ``status``): the stream ends
    inside an image → ``LENGTH_MISMATCH`` naming the bytes received of those
    announced (its ``__cause__`` an EOFError); not an image → ``BAD_MAGIC``;
    a newer format major → ``UNSUPPORTED_VERSION``; a damaged header →
    ``CORRUPT_HEADER``; a damaged body → what ``from_bytes`` raises (e.g.
    ``CHECKSUM_MISMATCH``). The stream's own errors (OSError) pass through.
    A non-blocking stream with no bytes ready raises BlockingIOError, and
    the bytes of the image read so far are lost: read from blocking streams.
    Thread-safety: as safe as ``f`` (do not share one stream between threads
    reading at once).
    """
    got = _read_image(f, ())
    if got is None:
        return None
    cls, buf = got
    return cls.from_bytes(buf)


def read_family(cls: type[_S], f: Any) -> Optional[_S]:
    """``Family.read(f)``: as :func:`sketches.read`, for an image of ``cls``
    only; another family's header raises ``SketchError`` (``WRONG_FAMILY``)
    before its body is read (the header's 48 bytes are consumed)."""
    want = cls if cls in _IDS else next((base for base in cls.__mro__ if base in _IDS), None)
    if want is None:
        raise TypeError(f"{cls.__name__} is not a sketch family")
    got = _read_image(f, (want,))
    if got is None:
        return None
    _, buf = got
    return cls.from_bytes(buf)  # type: ignore[attr-defined, no-any-return]


def write_to(sketch: Any, f: Any) -> int:
    """``sketch.write_to(f)``: writes exactly ``bytes(sketch)`` (the
    checksummed export that ``from_bytes``, ``sketches.read`` and every other
    binding read) to the binary file-like ``f`` and returns the byte count.

    Memory: no copy of the image. The checksum is computed on the live
    image in place, then the image goes out in chunks of at most
    ``WRITE_CHUNK_BYTES`` (1 MiB), each copied into a fresh ``bytes`` just
    before ``f.write`` gets it (a sink may keep what it is given), so
    writing a 1 GiB filter takes about 1 MiB more, as Go's ``WriteTo`` and
    C++'s ``write_to`` do. (A small-mode HyperLogLog's compact export, at
    most about 8 KiB, is made whole first.)

    Calls ``f.write`` until every byte is taken (raw streams may take fewer
    per call). A raw non-blocking stream (``io.RawIOBase``) that takes
    nothing (``write`` returns None) raises BlockingIOError whose
    ``characters_written`` is the bytes already written; another writer
    returning None is taken to have written everything. Errors of the image
    itself are raised as ``bytes(sketch)`` raises them, before anything is
    written; the stream's own errors pass through (the bytes written before
    are then a prefix of the image).

    Thread-safety: the sketch stays borrowed (shared) for the whole write,
    ``f.write`` calls included, and so do other objects wrapping the same
    memory: queries (and ``bytes()``) run meanwhile, but an update from
    another thread (or from ``f.write`` itself) raises RuntimeError and
    changes nothing, so the bytes written are always the one image that was
    checksummed. Updates are refused, not queued, until a slow stream has
    taken the last byte: to go on updating while it drains, write
    ``bytes(sketch)`` (a copy of the image) instead.
    Writes to a wrapped buffer by other code (the array itself, another
    process) are not held off, as for every call: a byte they change after
    the checksum and before its chunk is copied makes the written image
    fail its checksum when read (``CHECKSUM_MISMATCH``), never load as a
    torn image. Do not share ``f``
    between writers.
    """
    done = 0

    def emit(chunk: bytes, total: int) -> None:
        """Writes one chunk whole (``f.write`` until it took every byte)."""
        nonlocal done
        size = len(chunk)
        taken = 0
        with memoryview(chunk) as view:
            while taken < size:
                n = f.write(view[taken:])
                if n is None:
                    if isinstance(f, io.RawIOBase):
                        raise BlockingIOError(
                            0,
                            "sketches.write_to: the non-blocking stream took no bytes; "
                            f"{done + taken} of {total} written",
                            done + taken,
                        )
                    n = size - taken
                if not 0 < n <= size - taken:
                    raise OSError(f"sketches.write_to: write returned {n} for {size - taken} bytes")
                taken += n
        done += size

    written: int = sketch._write_chunks(emit, WRITE_CHUNK_BYTES)
    return written


def read_concurrent(f: Any) -> Optional[ConcurrentSketch]:
    """``ConcurrentSketch.read(f)``: reads exactly one BloomFilter,
    SplitBlockBloomFilter, HyperLogLog or UltraLogLog image from ``f`` (as
    :func:`sketches.read`, such as ``ConcurrentSketch.write_to`` wrote) and
    returns a ``ConcurrentSketch`` holding a copy of it (a small-mode
    HyperLogLog densified in the copy, as ``ConcurrentSketch(sketch)``
    does), or None at a clean end of the stream. Another family's header
    raises ``SketchError`` (``WRONG_FAMILY``) before its body is read (the
    header's 48 bytes are consumed); the other errors are
    :func:`sketches.read`'s. Memory: the image read, then its copy in atomic
    words (about twice the image at the peak). ``sketches.read(f)`` returns
    the ordinary class instead. To share the image between processes, copy
    ``bytes(sketches.read(f))`` into the shared memory and
    ``ConcurrentSketch.wrap`` it there.
    """
    got = _read_image(f, _CONCURRENT_FAMILIES, "the families a ConcurrentSketch holds")
    if got is None:
        return None
    cls, buf = got
    sketch = cls.from_bytes(buf)  # type: ignore[attr-defined]
    del buf
    return ConcurrentSketch(sketch)


def write_concurrent(sketch: ConcurrentSketch, f: Any) -> int:
    """``ConcurrentSketch.write_to(f)``: writes ``bytes(sketch.snapshot())``
    to ``f`` as :func:`write_to` does and returns the byte count.

    Consistent as ``snapshot()`` is, whatever other threads do meanwhile:
    the image is copied once, waiting for this object's add calls in flight
    and holding new ones off during the copy only (not while ``f`` is
    written), so it holds exactly the adds that returned before the copy,
    with a valid checksum; adds go on during the write. For an object over
    shared memory (``ConcurrentSketch.wrap``) other processes' adds are not
    held off: a copy failing validation is taken again (up to 20 times),
    then ``SketchError``, as ``snapshot()``. Memory: that one copy of the
    image (the snapshot) plus a chunk; the adds cannot be held off while
    ``f.write`` runs, so it is not written from the live words.
    Thread-safety: any number of threads at once (do not share ``f``).
    """
    return write_to(sketch.snapshot(), f)


def _install() -> None:
    """Gives every family class, and ``ConcurrentSketch``, its ``write_to``
    method and ``read`` classmethod."""

    def write_to_method(self: Any, f: Any) -> int:
        return write_to(self, f)

    def read_method(cls: Any, f: Any) -> Any:
        return read_family(cls, f)

    write_to_method.__doc__ = write_to.__doc__
    read_method.__doc__ = read_family.__doc__
    write_to_method.__name__ = write_to_method.__qualname__ = "write_to"
    read_method.__name__ = read_method.__qualname__ = "read"
    for cls in _FAMILIES.values():
        cls.write_to = write_to_method  # type: ignore[attr-defined]
        cls.read = classmethod(read_method)  # type: ignore[attr-defined]

    def concurrent_write_to(self: ConcurrentSketch, f: Any) -> int:
        return write_concurrent(self, f)

    def concurrent_read(cls: Any, f: Any) -> Optional[ConcurrentSketch]:
        return read_concurrent(f)

    concurrent_write_to.__doc__ = write_concurrent.__doc__
    concurrent_read.__doc__ = read_concurrent.__doc__
    concurrent_write_to.__name__ = concurrent_write_to.__qualname__ = "write_to"
    concurrent_read.__name__ = concurrent_read.__qualname__ = "read"
    setattr(ConcurrentSketch, "write_to", concurrent_write_to)
    setattr(ConcurrentSketch, "read", classmethod(concurrent_read))


_install()
