"""The best-response search's coordinate polish, against three-player Kuhn poker's exact
oracle.

Oracles: the exact value of any row in one seat of a field (:mod:`nop_sim.games.kuhn.exact`),
so a search's pick is measured without noise; a best response is pure, so a row that
differs from one at a single infoset is one coordinate move from it, and that move's gain
is known exactly.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from nop_sim.games.kuhn import exact
from nop_sim.games.kuhn.policy import NAMES, PRESETS
from nop_sim.games.kuhn.settings import KuhnSettings
from nop_sim.studies.train import Engine, Field, SearchConfig, best_response, space_for
from nop_sim.studies.train.search import _moves

SETTINGS = KuhnSettings()
UNIFORM = Field.pure(PRESETS["uniform"])


def _gain(row: np.ndarray, fld: Field) -> float:
    """The exact chips a hand ``row`` gains in one seat of ``fld`` over the seat's
    occupant, averaged over the seats (what a search's gain estimates)."""
    b = exact.behaviour(fld.rows, fld.weights)
    now = exact.expected_payoffs(b)
    gains = []
    for seat in range(3):
        p = np.repeat(b[None, :], 3, axis=0)
        p[seat] = row
        gains.append(exact.expected_payoffs(p)[seat] - now[seat])
    return float(np.mean(gains))


def _best_row(fld: Field) -> np.ndarray:
    """A best response of every seat, as one row (each seat reads its own columns)."""
    b = exact.behaviour(fld.rows, fld.weights)
    row = np.zeros(len(NAMES))
    for seat in range(3):
        choice = exact.best_response(b, seat)[1]
        row[~np.isnan(choice)] = choice[~np.isnan(choice)]
    return row


def _presets() -> np.ndarray:
    return np.stack(list(PRESETS.values()))


def test_moves_set_one_coordinate_to_each_end_of_its_range():
    space = space_for(SETTINGS)
    row = PRESETS["uniform"].copy()
    row[3] = 1.0
    moves, cols = _moves(space, row, (0.0, 1.0))
    # every coordinate to 0 and to 1, but the one already at 1 only to 0
    assert len(moves) == 2 * space.dim - 1 and len(cols) == len(moves)
    changed = moves != row[None, :]
    assert (changed.sum(axis=1) == 1).all()
    assert (np.flatnonzero(changed.any(axis=0)) == np.arange(space.dim)).all()
    assert set(np.unique(moves[changed])) == {0.0, 1.0}


def test_the_polish_takes_back_the_one_move_a_best_response_lacks():
    """Against the uniform field a best response gains 0.6875 chips a seat. The row that
    calls a bet with card 0 in seat 1 (``bet_0b``) instead of folding gains 1/24 less;
    a search that only screens its starts and polishes (no CMA-ES) takes the move back."""
    fld = UNIFORM
    best = _best_row(fld)
    assert _gain(best, fld) == pytest.approx(0.6875)
    worse = best.copy()
    worse[NAMES.index("bet_0b")] = 1.0
    assert _gain(worse, fld) == pytest.approx(0.6875 - 1 / 24)
    cfg = SearchConfig(runs=0, random_starts=0, screen=(48,), select=480, polish=0.9,
                       polish_race=(48, 96, 192), check_batch=1536, check_max=1536)
    space = space_for(SETTINGS)
    res = best_response(Engine(), SETTINGS, space, fld, worse[None, :], (5,), cfg,
                        float("nan"), switches=False)
    assert res.row[NAMES.index("bet_0b")] == 0.0
    assert _gain(res.row, fld) >= _gain(worse, fld) + 1 / 24 - 1e-12
    assert "polish" in {h["phase"] for h in res.history}
    assert res.matches <= cfg.cost(space.dim, 3, 1, mechanics=len(space.mechanics))


@pytest.mark.parametrize("seed", [1, 2])
def test_a_small_search_finds_most_of_the_best_response_against_the_uniform_field(seed):
    """What issue 36 asks of ``nop-sim exploit``: 90% of the exact best-response gain. At
    200,000 matches the search without its polish picks ``always-bet`` (0.5417 of
    0.6875, 79%); with it, each of the seeds 1 to 11 found 97% or more."""
    space = space_for(SETTINGS)
    starts = np.concatenate([UNIFORM.rows, _presets()])

    def cost(s: SearchConfig) -> int:
        return s.cost(space.dim, 3, len(starts), mechanics=len(space.mechanics))

    cfg = SearchConfig().fitted(cost, 200_000)
    res = best_response(Engine(), SETTINGS, space, UNIFORM, starts, (seed, 4 * 10**9), cfg,
                        float("nan"))
    assert res.matches <= cost(cfg) <= 200_000
    truth = exact.exploitability(UNIFORM.rows, UNIFORM.weights)["gain_per_seat"]
    assert _gain(res.row, UNIFORM) >= 0.9 * truth, (seed, _gain(res.row, UNIFORM))
    # the held-out check reads the pick's gain, within its interval
    assert res.low <= _gain(res.row, UNIFORM) <= res.high
    without = best_response(Engine(), SETTINGS, space, UNIFORM, starts, (seed, 4 * 10**9),
                            replace(cfg, polish=0.0), float("nan"))
    assert _gain(without.row, UNIFORM) < 0.85 * truth


def test_a_pooled_search_hands_on_the_polished_row_first():
    """Without its own check (a pooled search) the polished row leads the pool the
    caller checks, and the search's gain is the polish's estimate of it."""
    space = space_for(SETTINGS)
    starts = np.concatenate([UNIFORM.rows, _presets()])

    def cost(s: SearchConfig) -> int:
        return s.cost(space.dim, 3, len(starts), mechanics=len(space.mechanics), check=False)

    cfg = SearchConfig().fitted(cost, 60_000)
    res = best_response(Engine(), SETTINGS, space, UNIFORM, starts, (3,), cfg, float("nan"),
                        check=False)
    assert res.matches <= cost(cfg)
    assert np.array_equal(res.pool[0], res.row)
    assert _gain(res.row, UNIFORM) > exact.nash_conv(PRESETS["uniform"]) / 3 * 0.8


def test_a_mixture_of_rows_that_always_bet_bets_with_chance_1_exactly():
    """The polish makes pure rows (chances 0 and 1 exactly) common in a trained field; a
    weighted mean of 1s can round to 1 + 2**-52, which the exact oracle refused as no
    chance (a training's report of its rounds' exact figures failed on one)."""
    weights = [0.8972138009695755, 0.7756856902451935, 0.22520718999059186,
               0.30016628491122543, 0.8735534453962619]
    rows = np.ones((5, len(NAMES)))
    assert (exact.behaviour(rows, weights) == 1.0).all()
    assert exact.exploitability(rows, weights)["nash_conv"] == pytest.approx(1.5)
