"""Defects found by reviewing the binding as a user; each test failed before its fix."""

from __future__ import annotations

import subprocess
import sys

import pytest

import sketches


def _in_child(code: str) -> subprocess.CompletedProcess:
    # A child process: before the fix the statement never returned.
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=20)


@pytest.mark.parametrize("stmt", ["'a' in c", "list(c)", "for k in c: pass"])
def test_countmin_membership_and_iteration_raise_instead_of_looping_forever(stmt: str) -> None:
    code = (
        "import sketches\n"
        "c = sketches.CountMinSketch(0.01)\n"
        "c.add('a')\n"
        "try:\n"
        f"    exec({stmt!r})\n"
        "except TypeError as e:\n"
        "    print('TypeError', e)\n"
    )
    try:
        r = _in_child(code)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{stmt!r} on a CountMinSketch did not return")
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("TypeError"), r.stdout
    c = sketches.CountMinSketch(0.01)
    c.add("a", 3)
    assert c["a"] == 3 and c.estimate("b") == 0
