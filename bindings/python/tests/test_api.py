"""The public API is documented and typed: docstrings on every public name,
the stubs list exactly the runtime classes, methods and functions, py.typed ships."""

from __future__ import annotations

import ast
from pathlib import Path

import sketches
import sketches.compat

PKG = Path(sketches.__file__).parent


def public(obj):
    return [n for n in dir(obj) if not n.startswith("_")]


def test_docstrings_everywhere() -> None:
    assert sketches.__doc__ and sketches.compat.__doc__ and sketches.status.__doc__
    for name in sketches.__all__:
        obj = getattr(sketches, name)
        if isinstance(obj, (int, str)):
            continue
        assert obj.__doc__, name
        if isinstance(obj, type) and not issubclass(obj, BaseException):
            for attr in public(obj):
                assert getattr(obj, attr).__doc__, f"{name}.{attr}"
    for attr in public(sketches.compat.BloomFilter):
        assert getattr(sketches.compat.BloomFilter, attr).__doc__ or attr in ("capacity", "error_rate", "filter"), attr


def test_stubs_match_runtime() -> None:
    tree = ast.parse((PKG / "_native.pyi").read_text())
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    functions = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert functions == {
        "hash",
        "hash_many",
        "status_str",
        "inspect",
        "parquet_hash_int32",
        "parquet_hash_int64",
        "parquet_hash_float",
        "parquet_hash_double",
        "parquet_hash_bytes",
        "parquet_hash_many",
    }
    shared = {n.name for n in classes["_Sketch"].body if isinstance(n, (ast.FunctionDef, ast.AnnAssign))
              for n in [n] if not isinstance(n, ast.AnnAssign)}
    for name, node in classes.items():
        if name == "_Sketch":
            continue
        stubbed = shared | {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
        stubbed |= {n.target.id for n in node.body if isinstance(n, ast.AnnAssign)}
        runtime = set(public(getattr(sketches, name)))
        assert runtime <= stubbed | {"nbytes", "seed", "writable"}, (name, runtime - stubbed)
    assert (PKG / "py.typed").exists()
