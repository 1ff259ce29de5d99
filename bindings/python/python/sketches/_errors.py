"""The exception every failed sketch operation raises."""

from __future__ import annotations


class SketchError(ValueError):
    """A sketch operation failed; nothing was changed.

    ``status`` is the stable status number of the C ABI (``SKETCH_*`` in
    ``include/sketches.h``, also ``sketches.status``), ``reason`` its text
    (``sketch_status_str``). Damaged or hostile bytes given to
    ``from_bytes`` raise it (for example with ``status.CHECKSUM_MISMATCH``),
    as do incompatible merges (``status.INCOMPATIBLE``) and a full cuckoo
    filter (``status.FULL``). A subclass of ValueError.
    """

    status: int
    reason: str

    def __init__(self, status: int, reason: str, message: str | None = None) -> None:
        super().__init__(message if message is not None else f"{reason} (status {status})")
        self.status = status
        self.reason = reason

    def __reduce__(self):  # keep status and text through pickling (multiprocessing)
        return (type(self), (self.status, self.reason, str(self)))
