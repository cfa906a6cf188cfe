"""numba loaded without its BLAS check (analytic.engine.jit): the kernels run, scipy.linalg stays usable."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_SCRIPT = """
import sys
from analytic.engine.jit import load
load()
assert "scipy.linalg" not in sys.modules, "scipy.linalg was imported"
import numba.np.arraymath as am
assert am._HAVE_BLAS is False
import numpy as np
from analytic.engine.linewalk_kernel import cross_merge
keys, w = cross_merge(np.array([0, 0]), np.array([0, 4]), np.array([2, 3]), np.array([0, 2]),
                      np.array([1, 4]), np.array([5, 7]))
assert sorted(zip(keys.tolist(), w.tolist())) == [(1, 10), (4, 14), (5, 15), (8, 21)], (keys, w)
import scipy.linalg
assert scipy.linalg.solve(np.array([[2.0]]), np.array([4.0]))[0] == 2.0
print("ok")
"""


def test_load_skips_blas_and_leaves_scipy_linalg_importable():
    # a fresh process: in this one scipy.linalg may already be imported (then load() changes nothing)
    out = subprocess.run([sys.executable, "-c", _SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
