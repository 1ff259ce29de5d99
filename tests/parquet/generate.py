#!/usr/bin/env python3
"""Writes the Parquet bloom filter fixtures of tests/tests/parquet.rs with real
writers, and the manifest the test reads.

    python3 tests/parquet/generate.py

creates a virtual environment under target/parquet-venv (the pinned writers
below, from PyPI), re-runs itself there, and writes into tests/parquet/:

* duckdb_fpp01.parquet, duckdb_fpp05.parquet: DuckDB (COPY ... TO, one row
  group; DuckDB writes a bloom filter for every dictionary-encoded column,
  sized from the dictionary, at BLOOM_FILTER_FALSE_POSITIVE_RATIO);
* pyarrow_fpp01.parquet, pyarrow_fpp05.parquet: pyarrow (write_table with
  bloom_filter_options, one row group);
* writers.manifest: for every bloom filter, where it lies in its file, the
  writer's settings, the distinct values written (PLAIN bytes, hex, in the
  order the rows carry them), and DuckDB's reader answers
  (parquet_bloom_probe) for every written value and for absent probes.

Same input table for both writers (1032 rows, one row group): 129 distinct
values per `a_*` column (just above a power of two), each repeated 8 times
so DuckDB dictionary-encodes it; `b_i64` with 2*n distinct values, where n is
an ndv at which Arrow C++ rounds to twice the parquet crate's size (pyarrow
is told ndv = n, so its filter is overfull and does not fold); `c_i64` (the
a values) with pyarrow's ndv set to 8192, so pyarrow folds it several times;
`s_f64` / `s_f32` with -0.0, NaNs of several bit patterns, infinities (no
+0.0), to see what writers do with them.
"""
import os
import struct
import subprocess
import sys
import venv

PINNED = ["duckdb==2.0.1", "pyarrow==26.0.1"]
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
VENV = os.path.join(ROOT, "target", "parquet-venv")

ROWS = 1032
REPEAT = 8
DISTINCT = ROWS // REPEAT  # 129
# ndv at which floor(m)/8 is exactly a power of two (m = -8 ndv / ln(1 - fpp^(1/8))):
# Arrow C++ rounds the bit count up and plans twice the parquet crate's bytes.
SPECIAL_NDV = {0.01: 53, 0.05: 75}
ABSENT_PROBES = 400
F64_SPECIALS = [0x8000000000000000, 0x7FF8000000000000, 0x7FF0000000000001, 0xFFF8000000000000,
                0x3FF8000000000000, 0x7FF0000000000000, 0xFFF0000000000000]
F32_SPECIALS = [0x80000000, 0x7FC00000, 0x7F800001, 0xFFC00000, 0x3FC00000, 0x7F800000, 0xFF800000]


def ensure_venv(script=__file__):
    """Re-runs `script` inside the pinned virtual environment (creating it)."""
    if os.environ.get("SKETCHES_PARQUET_VENV") == "1":
        return
    python = os.path.join(VENV, "bin", "python")
    if not os.path.exists(python):
        venv.create(VENV, with_pip=True)
    subprocess.check_call([python, "-m", "pip", "install", "--quiet", *PINNED])
    env = dict(os.environ, SKETCHES_PARQUET_VENV="1")
    sys.exit(subprocess.call([python, os.path.abspath(script), *sys.argv[1:]], env=env))


def columns(fpp):
    """Column name -> (Parquet physical type, list of per-row PLAIN bytes)."""
    k = [r // REPEAT for r in range(ROWS)]
    n2 = 2 * SPECIAL_NDV[fpp]
    cols = {
        "a_i32": ("int32", [struct.pack("<i", v * 7919 - 500_000) for v in k]),
        "a_i64": ("int64", [struct.pack("<q", v * 1_000_000_007 - 30_000_000_000) for v in k]),
        "a_f32": ("float", [struct.pack("<f", v * 0.75 - 40.0) for v in k]),
        "a_f64": ("double", [struct.pack("<d", v * 1.25e-3 - 0.07) for v in k]),
        "a_str": ("string", [f"user-{v}".encode() for v in k]),
        "a_bin": ("binary", [struct.pack("<Q", (v * 2654435761) % 2**64)[:5] + bytes([v % 7]) for v in k]),
        "b_i64": ("int64", [struct.pack("<q", ((r // 4) % n2) * 17 + 5) for r in range(ROWS)]),
        "c_i64": ("int64", [struct.pack("<q", v * 1_000_000_007 - 30_000_000_000) for v in k]),
        "s_f64": ("double", [struct.pack("<Q", F64_SPECIALS[r % len(F64_SPECIALS)]) for r in range(ROWS)]),
        "s_f32": ("float", [struct.pack("<I", F32_SPECIALS[r % len(F32_SPECIALS)]) for r in range(ROWS)]),
    }
    return cols


def arrow_table(cols):
    import pyarrow as pa

    numeric = {"int32": pa.int32(), "int64": pa.int64(), "float": pa.float32(), "double": pa.float64()}
    arrays = {}
    for name, (kind, values) in cols.items():
        if kind in numeric:
            # From the exact bytes: NaN payloads survive (no float conversion).
            buf = pa.py_buffer(b"".join(values))
            arrays[name] = pa.Array.from_buffers(numeric[kind], len(values), [None, buf])
        elif kind == "string":
            arrays[name] = pa.array([v.decode() for v in values], pa.string())
        else:
            arrays[name] = pa.array(values, pa.binary())
    return pa.table(arrays)


def sql_literal(kind, plain):
    if kind == "int32":
        return f"{struct.unpack('<i', plain)[0]}::INTEGER"
    if kind == "int64":
        return f"{struct.unpack('<q', plain)[0]}::BIGINT"
    if kind == "float":
        return f"{repr_float(struct.unpack('<f', plain)[0])}::FLOAT"
    if kind == "double":
        return f"{repr_float(struct.unpack('<d', plain)[0])}::DOUBLE"
    if kind == "string":
        return "'" + plain.decode().replace("'", "''") + "'"
    return "'" + "".join(f"\\x{b:02X}" for b in plain) + "'::BLOB"


def repr_float(x):
    if x != x:
        return "'nan'"
    if x in (float("inf"), float("-inf")):
        return "'inf'" if x > 0 else "'-inf'"
    return f"'{x!r}'"


def absent_probes(kind, count):
    """Values written nowhere in the table (tests/tests/parquet.rs makes the same)."""
    if kind == "int32":
        return [struct.pack("<i", 2_000_000 + 13 * i) for i in range(count)]
    if kind == "int64":
        return [struct.pack("<q", 9_000_000_000_000 + 13 * i) for i in range(count)]
    if kind == "float":
        return [struct.pack("<f", 1.0e6 + 0.5 * i) for i in range(count)]
    if kind == "double":
        return [struct.pack("<d", 1.0e9 + 0.25 * i) for i in range(count)]
    if kind == "string":
        return [f"absent-{i}".encode() for i in range(count)]
    return [b"\xfe\xed" + struct.pack("<I", i) for i in range(count)]


def main():
    ensure_venv()
    import duckdb
    import pyarrow
    import pyarrow.parquet as pq

    con = duckdb.connect()
    out = [
        "# written by tests/parquet/generate.py with "
        + f"duckdb {duckdb.__version__}, pyarrow {pyarrow.__version__}; do not edit",
        "# file NAME WRITER FPP; filter FILE COLUMN TYPE OFFSET LENGTH NDV_OPTION DISTINCT",
        "# values FPP|* COLUMN hex,... (the table's distinct PLAIN values, first-seen order; * = both tables)",
        "# DuckDB's reader (parquet_bloom_probe) on each filter: present FILE COLUMN MAYBE_COUNT PROBED;",
    "# absent FILE COLUMN PROBED hex,... (the absent_probes() values it answered maybe for);",
    "# special FILE COLUMN hex MAYBE(0/1)",
    ]
    tables = {fpp: columns(fpp) for fpp in (0.01, 0.05)}
    for col in tables[0.01]:
        same = tables[0.01][col] == tables[0.05][col]
        for fpp in ("*",) if same else (0.01, 0.05):
            values = tables[0.01 if fpp == "*" else fpp][col][1]
            out.append(f"values {fpp} {col} " + ",".join(v.hex() for v in dict.fromkeys(values)))
    for fpp in (0.01, 0.05):
        cols = tables[fpp]
        table = arrow_table(cols)
        tag = "01" if fpp == 0.01 else "05"
        # pyarrow: ndv = the exact distinct count, except b_i64 (told n, holds 2n) and c_i64 (told 8192).
        ndv_option = {name: len(set(v)) for name, (_, v) in cols.items()}
        ndv_option["b_i64"] = SPECIAL_NDV[fpp]
        ndv_option["c_i64"] = 8192
        files = {}
        path = os.path.join(HERE, f"pyarrow_fpp{tag}.parquet")
        pq.write_table(
            table, path, row_group_size=ROWS, compression="zstd",
            bloom_filter_options={c: {"ndv": ndv_option[c], "fpp": fpp} for c in cols},
        )
        files[path] = ("pyarrow", ndv_option)
        path = os.path.join(HERE, f"duckdb_fpp{tag}.parquet")
        con.register("fixture", table)
        con.execute(
            f"COPY (SELECT * FROM fixture) TO '{path}' "
            f"(FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE {ROWS}, BLOOM_FILTER_FALSE_POSITIVE_RATIO {fpp})"
        ).fetchall()
        con.unregister("fixture")
        files[path] = ("duckdb", None)
        for path, (writer, ndv_opt) in files.items():
            name = os.path.basename(path)
            out.append(f"file {name} {writer} {fpp}")
            meta = pq.ParquetFile(path).metadata
            assert meta.num_row_groups == 1, (name, meta.num_row_groups)
            rg = meta.row_group(0)
            for i in range(rg.num_columns):
                cc = rg.column(i)
                col = cc.path_in_schema
                kind, values = cols[col]
                if cc.bloom_filter_offset is None or cc.bloom_filter_offset <= 0:
                    out.append(f"# {name} {col}: no bloom filter ({', '.join(cc.encodings)})")
                    continue
                distinct = list(dict.fromkeys(values))
                ndv = ndv_opt[col] if ndv_opt else "-"
                out.append(
                    f"filter {name} {col} {kind} {cc.bloom_filter_offset} {cc.bloom_filter_length} {ndv} {len(distinct)}"
                )
                def maybe(v):
                    rows = con.execute(
                        f"SELECT bloom_filter_excludes FROM parquet_bloom_probe('{path}', '{col}', {sql_literal(kind, v)})"
                    ).fetchall()
                    assert len(rows) == 1, (name, col, rows)
                    return not rows[0][0]

                present = sum(maybe(v) for v in distinct)
                out.append(f"present {name} {col} {present} {len(distinct)}")
                absent = absent_probes(kind, ABSENT_PROBES)
                hits = [v.hex() for v in absent if maybe(v)]
                out.append(f"absent {name} {col} {len(absent)} {','.join(hits)}")
                if col.startswith("s_"):
                    # Each special value, and +0.0, which the table does not hold.
                    zero = struct.pack("<d", 0.0) if kind == "double" else struct.pack("<f", 0.0)
                    for v in dict.fromkeys(values + [zero]):
                        out.append(f"special {name} {col} {v.hex()} {int(maybe(v))}")
    with open(os.path.join(HERE, "writers.manifest"), "w") as f:
        f.write("\n".join(out) + "\n")
    print("wrote", len(out), "manifest lines")


if __name__ == "__main__":
    main()
