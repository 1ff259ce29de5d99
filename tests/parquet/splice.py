#!/usr/bin/env python3
"""Splice attempt (not run by CI): can a bloom filter built by sketches-core
be put into a file another writer produced, without editing bytes by hand,
so that that writer's reader answers as our filter does?

    python3 tests/parquet/splice.py

For each DuckDB and pyarrow fixture, the `splice` binary of
tests/parquet/generator copies every column chunk into a new file with the
parquet crate's public append_column, attaching to a_i64 and a_str a filter
built by sketches-core (a different size than the writer's), and records our
answers for every written value and 400 absent probes. Then DuckDB's reader
(parquet_bloom_probe) is asked the same questions on the new file, and
pyarrow and DuckDB read the data back, which must equal the original's.
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import generate  # noqa: E402


def main():
    generate.ensure_venv(__file__)
    import duckdb
    import pyarrow.parquet as pq

    root = generate.ROOT
    env = dict(os.environ, CARGO_TARGET_DIR=os.path.join(root, "target", "parquet-generator"))
    manifest = os.path.join(HERE, "generator", "Cargo.toml")
    subprocess.check_call(["cargo", "build", "--release", "--quiet", "--manifest-path", manifest, "--bin", "splice"], env=env)
    splice = os.path.join(env["CARGO_TARGET_DIR"], "release", "splice")
    con = duckdb.connect()
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, fpp in [("duckdb_fpp01.parquet", 0.01), ("pyarrow_fpp01.parquet", 0.01),
                          ("duckdb_fpp05.parquet", 0.05), ("pyarrow_fpp05.parquet", 0.05)]:
            src = os.path.join(HERE, name)
            out = os.path.join(tmp, "spliced_" + name)
            answers = os.path.join(tmp, name + ".answers")
            subprocess.check_call([splice, src, out, answers, str(fpp), "a_i64", "a_str"])
            a, b = pq.read_table(src), pq.read_table(out)
            # Compared column by column on the raw bytes: NaN != NaN in equals().
            def raw(t, c):
                return [x.to_pybytes() if x else None for x in t.column(c).combine_chunks().buffers()[1:]]

            same_data = a.schema == b.schema and all(raw(a, c) == raw(b, c) for c in a.schema.names)
            if not same_data:
                print("schemas:", a.schema, b.schema, sep="\n")
            same_duck = con.execute(
                f"SELECT count(*) FROM (SELECT * FROM '{src}' EXCEPT ALL SELECT * FROM '{out}')").fetchall()[0][0] == 0
            meta = {r[0]: r[1] for r in con.execute(
                f"SELECT path_in_schema, bloom_filter_length FROM parquet_metadata('{out}')").fetchall()}
            agree = disagree = 0
            for line in open(answers):
                f = line.split()
                if f[0] == "filter":
                    print(f"{name}: {f[1]} filter of {f[2]} bytes spliced (file says {meta[f[1]]} with header)")
                    continue
                col, value, ours = f[1], bytes.fromhex(f[2]), f[3] == "1"
                kind = "int64" if col.endswith("i64") else "string"
                lit = generate.sql_literal(kind, value)
                rows = con.execute(
                    f"SELECT bloom_filter_excludes FROM parquet_bloom_probe('{out}', '{col}', {lit})").fetchall()
                theirs = not rows[0][0]
                agree += theirs == ours
                disagree += theirs != ours
            print(f"{name}: data equal (pyarrow {same_data}, DuckDB {same_duck}); "
                  f"DuckDB's reader agrees with our filter on {agree} probes, disagrees on {disagree}")
            failures += disagree + (not same_data) + (not same_duck)
    print("splice:", "OK" if failures == 0 else f"{failures} failures")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
