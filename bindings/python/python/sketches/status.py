"""Status numbers: the same stable numbers as ``SKETCH_*`` in ``include/sketches.h``.

:class:`sketches.SketchError` carries one of them in its ``status``
attribute; :func:`sketches.status_str` gives the text C's
``sketch_status_str`` gives.
"""

OK = 0
NULL_POINTER = 1
BUFFER_TOO_SMALL = 2
MISALIGNED = 3
INVALID_PARAMETER = 4
INVALID_ARGUMENT = 5
BAD_MAGIC = 6
UNSUPPORTED_VERSION = 7
WRONG_FAMILY = 8
CORRUPT_HEADER = 9
CHECKSUM_MISMATCH = 10
LENGTH_MISMATCH = 11
INCOMPATIBLE = 12
UNSUPPORTED_HASH = 13
OVERLAP = 14
INTERNAL_ERROR = 15
NOT_PRESENT = 16
FULL = 17
CORRUPT_BODY = 18
COMPACT_IMAGE = 19
KEY_TOO_LONG = 20
BUILD_FAILED = 21
SMALL_MODE = 22
