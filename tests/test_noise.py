"""Noise is never shown as signal (issue 21, section 3): sensitivity verdicts against dummy
knobs, the sweep ranking's intervals, heat maps within noise."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from nop_sim.core.stats import (
    best_points,
    rank_points,
    ranking_lines,
)
from nop_sim.games.new_order.report import sweep as sweep_sections
from nop_sim.run.runner import run_scenario
from nop_sim.run.scenario import load_scenario
from nop_sim.studies import sensitivity as S


# -- sensitivity: the noise level ------------------------------------------------------------
def test_dummy_estimator_equals_salibs():
    """The vectorised estimator the dummies go through is SALib's, number for number."""
    from SALib.analyze import delta

    rng = np.random.default_rng(4)
    for n in (40, 50, 97):
        y = np.round(rng.normal(30, 5, n))  # ties, as integer medians have
        x = rng.permutation(n).astype(float)
        exp = 2.0 / (7.0 + np.tanh((1500.0 - n) / 500.0))
        m = np.linspace(0, n, int(np.round(min(int(np.ceil(n ** exp)), 48))) + 1)
        grid = np.linspace(y.min(), y.max(), 100)
        idx = rng.integers(n, size=(3, n))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = [delta.calc_delta(y[i], grid, x[i], m) for i in idx]
            first = [delta.sobol_first(y[i], x[i], m) for i in idx]
        np.testing.assert_allclose(S._delta_hat(y[idx], x[idx], grid, m), theirs, atol=1e-12)
        np.testing.assert_allclose([S._first_order(y[i], x[i], m) for i in idx], first,
                                   atol=1e-12)


def _study(y: np.ndarray, x: np.ndarray, seed: int = 1) -> S.Study:
    metrics = pd.DataFrame({"y": y})
    nan = pd.Series({"y": np.nan})
    return S.Study(Path("."), "synthetic", "lhs", "delta", ["a", "b"], x, metrics, nan, nan,
                   0, 60, False, seed)


def test_pure_noise_is_called_matters_at_most_five_percent_of_the_time():
    """Points whose metric is noise only: the noise level is a test at 5% for the whole
    study (every metric and knob together), so over 10 studies at most 2 call any knob
    "matters" (a rule that took any interval above 0 would call one in nearly every
    study; binomial(10, 0.05) reaches 3 with probability 1.2%). The others say the metric
    is too noisy to tell, and the noise level is what the dummies reach, well above 0."""
    studies_with_a_finding = 0
    for seed in range(10):
        rng = np.random.default_rng(seed)
        x = rng.random((50, 2))
        study = _study(rng.normal(size=50), x, seed)
        s = S.Sensitivity(study, *S.sensitivity_indices(study, resamples=20))
        level = s.table.loc[s.table["index"] == "delta", "noise_level"]
        assert (level > 0.1).all(), level
        if (s.table["verdict"] == "matters").any():
            studies_with_a_finding += 1
        else:
            assert s.findings()[0].startswith("y: too noisy to tell"), s.findings()
    assert studies_with_a_finding <= 2


def test_the_noise_level_is_reproducible():
    rng = np.random.default_rng(0)
    x, y = rng.random((45, 2)), rng.normal(size=45)
    a, _ = S.sensitivity_indices(_study(y, x), resamples=10)
    b, _ = S.sensitivity_indices(_study(y, x), resamples=10)
    pd.testing.assert_frame_equal(a, b)


def test_a_clear_effect_still_matters_beside_its_noise_level():
    rng = np.random.default_rng(3)
    x = rng.random((50, 2))
    s = S.Sensitivity(_study(5 * x[:, 0] + rng.normal(0, 0.5, 50), x),
                      *S.sensitivity_indices(_study(5 * x[:, 0] + rng.normal(0, 0.5, 50), x),
                                             resamples=20))
    t = s.table.set_index(["knob", "index"])
    assert t.loc[("a", "delta"), "verdict"] == "matters"
    assert t.loc[("a", "delta"), "ci_low"] > t.loc[("a", "delta"), "noise_level"]
    assert t.loc[("b", "delta"), "verdict"] != "matters"
    assert s.findings()[0].startswith("a matters most for y")
    assert "noise level" in s.findings()[0]


INERT = """
name = "inert"
[game]
players = {players}
[seats]
rotate = {rotate}
[run]
matches = {matches}
chunk = {chunk}
seed = 5
[sweep]
mode = "lhs"
samples = {samples}
chips = {{from = 20, to = 120}}
max_hands = {{from = 2000, to = 4000}}
{more}
"""


def _inert_run(tmp_path, *, samples, matches, chunk, players=3,
               rotate='["balanced", "maniac", "hedger"]', more="") -> Path:
    path = tmp_path / "inert.toml"
    path.write_text(INERT.format(samples=samples, matches=matches, chunk=chunk,
                                 players=players, rotate=rotate, more=more))
    out = tmp_path / "inert"
    run_scenario(load_scenario(path), out, workers=1)
    return out


def _check_inert(s: S.Sensitivity):
    t = s.table
    assert (t["knob"] == "max_hands").any()
    assert not ((t["knob"] == "max_hands") & (t["verdict"] == "matters")).any(), \
        t[t["knob"] == "max_hands"]
    chips = t.set_index(["metric", "knob", "index"]).loc[("median_hands", "chips", "delta")]
    assert chips["verdict"] == "matters", chips


def test_an_inert_knob_never_matters_small(tmp_path):
    """max_hands between 2,000 and 4,000, above every match's length, cannot matter; chips,
    which sets how long a match lasts, does (40 points, a small version of the slow test)."""
    out = _inert_run(tmp_path, samples=40, matches=12, chunk=6)
    _check_inert(S.sensitivity(out, resamples=20))


@pytest.mark.slow
def test_an_inert_knob_never_matters_at_60_matches(tmp_path):
    """The user's check: 50 Latin-hypercube points of 60 four-seat matches, presets rotated,
    the ledger knobs beside chips and an inert max_hands."""
    out = _inert_run(tmp_path, samples=50, matches=60, chunk=20, players=4,
                     rotate='["balanced", "manipulator", "hedger", "rock"]',
                     more="dart_cap = {from = 5, to = 40}\ndart_step = {from = 1, to = 4}\n"
                          "hedge_cost = {from = 1, to = 15}")
    _check_inert(S.sensitivity(out, resamples=200))


# -- sweep ranking ---------------------------------------------------------------------------
def _frame(hands, half):
    return pd.DataFrame({"point": range(len(hands)), "chips": [40 + 10 * i for i in
                                                                range(len(hands))],
                         "median_hands": hands,
                         "median_hands_low": np.asarray(hands, float) - half,
                         "median_hands_high": np.asarray(hands, float) + half})


def test_points_within_noise_are_named_as_a_set():
    """Distances 3.818 and 3.830 apart by far less than their noise: no single best."""
    r = rank_points(_frame([289.08, 289.8, 600.0], 20.0), {"median_hands": 60})
    assert list(r["point"]) == [0, 1, 2]
    assert r.loc[0, "distance_low"] <= r.loc[0, "distance"] <= r.loc[0, "distance_high"]
    assert best_points(r) == [0, 1]
    lines = ranking_lines(r, ["chips"])
    assert lines[0].startswith("no single best point: 2 of 3 points cannot be told apart")
    assert "points 0, 1" in lines[0]
    assert not any(line.startswith("best point") for line in lines)
    assert {"distance", "rank", "miss_median_hands"} <= set(r.columns)  # kept


def test_a_clearly_separated_best_point_is_named():
    r = rank_points(_frame([61.0, 75.0, 90.0], 1.0), {"median_hands": 60})
    assert best_points(r) == [0]
    assert r.loc[1, "behind_low"] > 0
    line = ranking_lines(r, ["chips"])[0]
    assert line.startswith("best point: 0 (chips = 40;") and "the next, point 1" in line


def test_ranking_without_intervals_tells_nothing_apart():
    m = pd.DataFrame({"point": [0, 1], "median_hands": [60, 45]})
    r = rank_points(m, {"median_hands": 60})
    assert r["distance_low"].isna().all() and r["with_best"].all()
    assert "no intervals" in ranking_lines(r, [])[0]


# -- heat maps -------------------------------------------------------------------------------
def _pooled(values, half):
    rows = []
    for i, (a, b) in enumerate([(a, b) for a in (1, 2, 3) for b in (10, 20)]):
        rows.append({"a": a, "b": b, "median_hands": values[i],
                     "median_hands_low": values[i] - half, "median_hands_high": values[i] + half})
    return pd.DataFrame(rows)


def test_heat_map_of_pure_noise_says_within_noise():
    noise = 34.5 + np.random.default_rng(2).uniform(-1.7, 1.7, 6)   # 33 to 36.5 hands
    fig = sweep_sections._pair_figure("a", "b", _pooled(noise, 4.0), ["median_hands"])
    assert "within noise" in fig.caption and "typical 95% interval ±4" in fig.caption
    signal = sweep_sections._pair_figure("a", "b", _pooled(np.arange(6) * 20.0 + 30, 4.0),
                                         ["median_hands"])
    assert "differ beyond noise" in signal.caption and "within noise" not in signal.caption
    # many cells of pure noise: their extremes lie far apart, yet no cell stands out
    many = np.random.default_rng(5).normal(34.5, 4.0 / 1.96, 6)
    assert sweep_sections.heat_noise(many.reshape(3, 2), many.reshape(3, 2) - 4,
                                     many.reshape(3, 2) + 4)["within"]


def test_the_terminal_names_the_tied_points_from_the_reports_table(tmp_path):
    """nop-sim sweep and nop-sim report print the ranking's verdict from the table the
    report wrote: the set of points when they are within noise."""
    import json

    from nop_sim.run.pipeline import sweep_verdict

    r = rank_points(_frame([289.08, 289.8, 600.0], 20.0), {"median_hands": 60})
    (tmp_path / "tables").mkdir()
    r.to_csv(tmp_path / "tables" / "sweep_points.csv", index=False)
    points = [{"params": {"chips": c}} for c in (40, 50, 60)]
    (tmp_path / "manifest.json").write_text(json.dumps({"points": points}))
    lines = sweep_verdict(tmp_path)
    assert lines[0].startswith("no single best point: 2 of 3") and "chips = 40" in lines[1]
    assert sweep_verdict(tmp_path / "elsewhere") == []
