"""The round law's FFT convolution is scipy.signal.fftconvolve's, float for float.

``analytic.solver.distribution._fft_conv`` repeats fftconvolve's steps with
``scipy.fft`` so that the round's grid law (and every figure read from it)
does not change; the oracle here is scipy.signal.fftconvolve itself.
"""

import numpy as np
import pytest
from scipy.signal import fftconvolve

from analytic.solver.distribution import _fft_conv


@pytest.mark.parametrize("la, lb", [(1, 1), (1, 7), (9, 1), (2, 3), (300, 70_001), (65_536, 65_536),
                                    (12_345, 678), (131_071, 3)])
def test_fft_conv_is_fftconvolve_bit_for_bit(la, lb):
    rng = np.random.default_rng(la * 1_000_003 + lb)
    a, b = rng.random(la) ** 3, rng.random(lb) ** 8
    want, got = fftconvolve(a, b), _fft_conv(a, b)
    assert got.shape == want.shape and got.dtype == want.dtype
    assert np.array_equal(got.view(np.int64), want.view(np.int64))
