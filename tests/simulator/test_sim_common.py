"""Helpers shared by the simulator's feature players (analytic.simulator.features.common)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from analytic.errors import ModelError
from analytic.model.loader import load_model
from analytic.simulator.evaluate import candidate_line_pays, compile_tables, evaluate_windows, line_symbols
from analytic.simulator.features.common import (
    BLOCK,
    block_sizes,
    capped_spins,
    feature_params,
    fixed_spin_blocks,
    reel_expansion_pays,
    retire_limited,
)

MODELS = Path(__file__).resolve().parents[2] / "models"


@pytest.fixture(scope="module")
def bop():
    return load_model(MODELS / "book_of_power.toml")


def test_feature_params_names_the_reel_set_key(bop):
    name, spec = next(iter(bop.features.items()))
    p, key = feature_params(bop, spec)
    assert key == f"features.{name}" and isinstance(p, dict)
    bad = dataclasses.replace(spec, reel_set="nope")
    with pytest.raises(ModelError, match=r"reels.*needs a known reel set, got 'nope'"):
        feature_params(bop, bad)
    with pytest.raises(ModelError, match=r"reel_set.*free spins need a known reel set"):
        feature_params(bop, bad, reel_key="reel_set", need="free spins need a known reel set")


def test_capped_spins():
    spins, limited = capped_spins([3, 10, 11], 10)
    assert spins.tolist() == [3, 10, 10] and limited.tolist() == [False, False, True]


def test_fixed_spin_blocks_cover_every_spin_in_order(bop):
    tables = compile_tables(bop)
    reel_set = next(iter(bop.reel_sets))
    spins = np.array([BLOCK - 1, 0, 3])
    got = list(fixed_spin_blocks(tables, reel_set, spins, np.random.default_rng(1)))
    owners = np.concatenate([o for o, _ in got])
    assert [o.size for o, _ in got] == [BLOCK, 2]
    assert owners.tolist() == [0] * (BLOCK - 1) + [2] * 3
    assert all(w.shape == (o.size, tables.reels, tables.rows) for o, w in got)
    # the windows are the ones drawn block by block from the same generator
    rng = np.random.default_rng(1)
    assert np.array_equal(got[0][1], tables.spin(reel_set, BLOCK, rng))
    assert np.array_equal(got[1][1], tables.spin(reel_set, 2, rng))


def test_block_sizes_and_retire_limited():
    active = np.array([0, 1, 2])
    left = np.array([5, 100, 1])
    played = np.array([0, 7, 0])
    assert block_sizes(active, left, played, 10).tolist() == [5, 3, 1]
    assert block_sizes(active, left, played, 10, most=2).tolist() == [2, 2, 1]
    played += np.array([5, 3, 1])
    left -= np.array([5, 3, 1])
    limited = np.zeros(3, bool)
    assert retire_limited(active, left, played, limited, 10).tolist() == []
    assert limited.tolist() == [False, True, False] and left.tolist() == [0, 0, 0]


def test_reel_expansion_pays(bop):
    tables = compile_tables(bop)
    names = ("ten", "explorer")
    pay, kmin = reel_expansion_pays(tables, names)
    for i, n in enumerate(names):
        pt = tables.paytable[n]
        assert kmin[i] == min(k for k, v in pt.items() if v > 0)
        for k in range(tables.reels + 1):
            want = pt.get(k, 0) * tables.n_lines * tables.denom if k >= kmin[i] else 0
            assert pay[i, k] == want


def test_candidate_line_pays_make_up_the_line_win(bop):
    tables = compile_tables(bop)
    w = tables.spin(next(iter(bop.reel_sets)), 500, np.random.default_rng(3))
    per_reel, mults = line_symbols(tables, w)
    best = np.stack([candidate_line_pays(tables, c, per_reel, mults) for c in range(len(tables.cand_names))]).max(axis=0)
    assert np.array_equal(best.sum(axis=1), evaluate_windows(tables, w).line_win)
