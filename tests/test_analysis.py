"""Statistics of nop_sim.core.stats and nop_sim.games.new_order.analysis against published numbers, scipy and hand-made runs."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from nop_sim.core.stats import (
    benjamini_hochberg,
    bootstrap_median,
    gini,
    gini_rows,
    holm,
    holm_intervals,
    holm_levels,
    mantel_haenszel,
    mean_interval,
    poisson_interval,
    rank_points,
    rate_columns,
    ratio_interval,
    wilson_interval,
)
from nop_sim.games.new_order import analysis as A
from nop_sim.results.run_data import RunData

# ---------------------------------------------------------------------------
# Intervals and tests against known numbers
# ---------------------------------------------------------------------------
# Newcombe (1998), "Two-sided confidence intervals for the single proportion",
# Statistics in Medicine 17, table I, method 3 (Wilson score, no correction).
NEWCOMBE = [(81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605), (0, 20, 0.0, 0.1611),
            (1, 29, 0.0061, 0.1718)]


@pytest.mark.parametrize("k,n,low,high", NEWCOMBE)
def test_wilson_matches_newcombe_table(k, n, low, high):
    lo, hi = wilson_interval(k, n)
    assert lo == pytest.approx(low, abs=6e-5) and hi == pytest.approx(high, abs=6e-5)


def test_wilson_matches_scipy_and_is_vectorised():
    rng = np.random.default_rng(1)
    n = rng.integers(1, 5000, 40)
    k = rng.integers(0, n + 1)
    lo, hi = wilson_interval(k, n)
    for kk, nn, a, b in zip(k, n, lo, hi, strict=True):
        ci = stats.binomtest(int(kk), int(nn)).proportion_ci(method="wilson")
        assert a == pytest.approx(ci.low, abs=1e-12) and b == pytest.approx(ci.high, abs=1e-12)
    lo0, hi0 = wilson_interval(0, 0)
    assert np.isnan(lo0) and np.isnan(hi0)


def test_poisson_interval_matches_garwood():
    lo, hi = poisson_interval([0, 10], [1, 1])
    assert lo[0] == 0 and hi[0] == pytest.approx(3.6889, abs=1e-4)
    assert lo[1] == pytest.approx(4.7954, abs=1e-4) and hi[1] == pytest.approx(18.3904, abs=1e-4)


def test_rate_columns_switch_to_poisson_when_a_unit_counts_twice():
    f = rate_columns(pd.DataFrame({"k": [3, 12], "n": [10, 10]}), "k", "n", "hit")
    assert f["hit"].tolist() == [0.3, 1.2]
    wl, wh = wilson_interval(3, 10)
    assert (f["hit_low"][0], f["hit_high"][0]) == (pytest.approx(wl), pytest.approx(wh))
    pl, ph = poisson_interval(12, 10)
    assert (f["hit_low"][1], f["hit_high"][1]) == (pytest.approx(pl), pytest.approx(ph))


def test_mean_interval_is_the_student_t_interval():
    x = np.array([3.0, 7, 8, 1, 9, 4, 4])
    got = mean_interval(x)
    lo, hi = stats.t.interval(0.95, len(x) - 1, loc=x.mean(), scale=stats.sem(x))
    assert got["mean"] == pytest.approx(x.mean())
    assert (got["ci_low"], got["ci_high"]) == (pytest.approx(lo), pytest.approx(hi))


def test_holm_by_hand():
    # sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1 -> 0.02, 0.03, 0.06, 0.04,
    # running maximum 0.02, 0.03, 0.06, 0.06, back in input order
    got = holm([0.01, 0.04, 0.03, 0.005])
    np.testing.assert_allclose(got, [0.03, 0.06, 0.06, 0.02])
    got = holm([0.5, np.nan, 0.01])           # NaN is not part of the family
    np.testing.assert_allclose(got, [0.5, np.nan, 0.02])
    assert holm([0.9, 0.8]).max() <= 1


def test_benjamini_hochberg_by_hand_and_against_scipy():
    np.testing.assert_allclose(benjamini_hochberg([0.01, 0.04, 0.03, 0.005]),
                               [0.02, 0.04, 0.04, 0.02])
    p = np.random.default_rng(2).uniform(0, 0.2, 30)
    np.testing.assert_allclose(benjamini_hochberg(p), stats.false_discovery_control(p))


def test_ratio_interval_with_equal_denominators_is_the_mean_interval():
    # Student's t interval of the mean, as scipy gives it (t at 5 degrees of freedom)
    from scipy import stats

    y = np.array([2.0, 5, 3, 8, 1, 4])
    got = ratio_interval(y, np.ones_like(y))
    low, high = stats.t.interval(0.95, y.size - 1, loc=y.mean(), scale=stats.sem(y))
    assert got["ratio"] == pytest.approx(y.mean())
    assert (got["ci_low"], got["ci_high"]) == pytest.approx((low, high))
    assert (got["ci_low"], got["ci_high"]) == pytest.approx(
        (mean_interval(y)["ci_low"], mean_interval(y)["ci_high"]))
    got = ratio_interval([3, 1], [10, 30])
    assert got["ratio"] == pytest.approx(4 / 40)


def test_a_ratio_over_few_units_covers_its_value_nearer_its_level():
    # 8 units (a fee share over the chunks of a 1,000-match run), overdispersed counts over
    # skewed denominators, true ratio 0.3: the normal quantile covered it in 85.5% of
    # samples, Student's t at 7 degrees of freedom in 90.5% (the delta method's own
    # skew is the rest)
    rng = np.random.default_rng(5)
    cover = []
    for _ in range(3000):
        x = rng.gamma(2.0, 20.0, 8).round() + 1
        y = rng.poisson(0.3 * x * rng.gamma(4, 0.25, 8))
        r = ratio_interval(y, x)
        cover.append(r["ci_low"] <= 0.3 <= r["ci_high"])
    assert 0.885 <= np.mean(cover) <= 0.96, np.mean(cover)


def test_bootstrap_median_equals_a_plain_bootstrap():
    rng = np.random.default_rng(3)
    x = rng.geometric(0.05, 301)
    med, lo, hi = bootstrap_median(x, n_boot=4000, seed=1)
    assert med == np.median(x) and lo <= med <= hi
    naive = np.median(rng.choice(x, (4000, x.size)), axis=1)
    nlo, nhi = np.quantile(naive, [0.025, 0.975])
    assert lo == pytest.approx(nlo, abs=2) and hi == pytest.approx(nhi, abs=2)
    # even sizes: the median of a resample is the mean of the two middle values
    med, lo, hi = bootstrap_median([1, 2, 3, 4], n_boot=2000, seed=0)
    assert med == 2.5 and 1 <= lo <= hi <= 4


def test_gini_by_hand():
    assert gini([5, 5, 5, 5]) == 0
    assert gini([0, 0, 0, 300]) == pytest.approx(0.75)
    x = np.array([1.0, 2, 3, 4])
    brute = sum(abs(a - b) for a, b in itertools.product(x, x)) / (2 * x.size ** 2 * x.mean())
    assert gini(x) == pytest.approx(brute)
    np.testing.assert_allclose(gini_rows(np.array([[1, 2, 3, 4], [0, 0, 0, 9]])),
                               [brute, 0.75])


def test_mantel_haenszel_one_stratum_is_the_plain_difference():
    rng = np.random.default_rng(4)
    has = rng.random(4000) < 0.3
    win = rng.random(4000) < np.where(has, 0.4, 0.25)
    diff, se = mantel_haenszel(win, has, np.zeros(4000, int))
    p1, p0 = win[has].mean(), win[~has].mean()
    assert diff == pytest.approx(p1 - p0)
    # one stratum: the Wald standard error of a difference of two rates
    assert se == pytest.approx(np.sqrt(p1 * (1 - p1) / has.sum() + p0 * (1 - p0) / (~has).sum()))
    # no noise to measure (every rate 0 or 1): no interval, no test, rather than a sure one
    assert np.isnan(mantel_haenszel(has, has, np.zeros(4000, int))[1])


def test_mantel_haenszel_matches_a_published_sato_interval():
    """R cardx's ci_prop_diff_mh_strata example (Sato variance): 7 of 10 against 5 of 10
    in one stratum, 5 of 10 against 4 of 10 in the other: 0.15, 95% interval -0.1528
    to 0.4528 (variance 0.024)."""
    from nop_sim.core.stats import symmetric_test

    strata = np.repeat([0, 1], 20)
    has = np.tile(np.repeat([True, False], 10), 2)
    win = np.concatenate([np.arange(10) < 7, np.arange(10) < 5,
                          np.arange(10) < 5, np.arange(10) < 4])
    diff, se = mantel_haenszel(win, has, strata)
    assert diff == pytest.approx(0.15)
    assert se ** 2 == pytest.approx(0.023875)
    interval, _p = symmetric_test(np.array([diff]), np.array([se]))
    low, high = interval(0.05)
    assert (round(float(low[0]), 4), round(float(high[0]), 4)) == (-0.1528, 0.4528)


def test_mantel_haenszel_holds_its_level_in_thin_strata():
    """No effect of the card, winning decided mostly by the stratum (seats that drafted
    more cards won more showdowns), 80 seats in 10 strata: most strata's rates sit at 0
    or 1. A test at 5% must reject about 5% of such samples; the per-stratum binomial
    variance rejected 11.6%, and a 20-match report read a lead at p = 1e-71."""
    from nop_sim.core.stats import symmetric_test

    rng = np.random.default_rng(11)
    p = []
    for _ in range(2000):
        strata = rng.integers(0, 10, 80)
        win = rng.random(80) < 0.025 + 0.95 * strata / 9
        has = rng.random(80) < 0.2 + 0.05 * strata
        diff, se = mantel_haenszel(win, has, strata)
        p.append(symmetric_test(np.array([diff]), np.array([se]))[1][0])
    p = np.array(p)
    assert 0.035 <= np.mean(p < 0.05) <= 0.075, np.mean(p < 0.05)
    assert np.mean(p < 0.001) <= 0.006


def test_stratified_mean_difference_in_one_stratum_is_welchs_interval():
    from scipy import stats

    from nop_sim.core.stats import stratified_mean_difference

    rng = np.random.default_rng(8)
    values = np.concatenate([rng.gamma(2.0, 12.0, 9), rng.gamma(2.0, 20.0, 30)])
    has = np.arange(39) < 9
    effect, low, high = stratified_mean_difference(values, has, np.zeros(39, int))
    welch = stats.ttest_ind(values[has], values[~has], equal_var=False)
    ci = welch.confidence_interval(0.95)
    assert effect == pytest.approx(values[has].mean() - values[~has].mean())
    assert (low, high) == pytest.approx((ci.low, ci.high))


def test_stratified_mean_difference_covers_no_effect_at_its_level_in_thin_strata():
    # match lengths grow with the cards drafted (the strata), skewed; the card does
    # nothing; 60 matches in 8 strata: the normal quantile covered 0 in 93% of samples
    from nop_sim.core.stats import stratified_mean_difference

    rng = np.random.default_rng(3)
    cover = []
    for _ in range(2000):
        strata = rng.integers(0, 8, 60)
        hands = rng.gamma(2.0, 10 + 5 * strata)
        has = rng.random(60) < 0.15 + 0.06 * strata
        _effect, low, high = stratified_mean_difference(hands, has, strata)
        if np.isfinite(low):
            cover.append(low <= 0 <= high)
    assert len(cover) > 1900
    assert 0.94 <= np.mean(cover) <= 0.965, np.mean(cover)


def test_each_test_is_its_interval_inverted():
    from nop_sim.core.stats import newcombe_test, symmetric_test, wilson_test

    rng = np.random.default_rng(5)
    n = rng.integers(1, 3000, 300)
    k = rng.binomial(n, rng.uniform(0.05, 0.6, 300))
    p0 = rng.uniform(0.1, 0.5, 300)
    alpha = rng.choice([0.05, 0.01, 0.05 / 7, 0.001], 300)
    interval, p = wilson_test(k, n, p0)
    lo, hi = interval(alpha)
    np.testing.assert_array_equal((lo > p0) | (hi < p0), p < alpha)
    lo, hi = interval(0.05)          # one level for all: the 95% Wilson interval
    np.testing.assert_allclose(np.c_[lo, hi], np.c_[wilson_interval(k, n)], atol=1e-12)
    # the score test; scipy's exact binomial test is close with this many trials
    assert p[0] == pytest.approx(2 * stats.norm.sf(abs(k[0] - n[0] * p0[0])
                                                   / np.sqrt(n[0] * p0[0] * (1 - p0[0]))))
    interval, p = newcombe_test(k, n, k[::-1], n[::-1])
    lo, hi = interval(alpha)
    np.testing.assert_array_equal((lo > 0) | (hi < 0), p < alpha)
    est, se = rng.normal(0, 1, 300), rng.uniform(0.1, 1, 300)
    interval, p = symmetric_test(est, se)
    lo, hi = interval(alpha)
    np.testing.assert_array_equal((lo > 0) | (hi < 0), p < alpha)


def test_holm_intervals_agree_with_holm_within_each_family():
    from nop_sim.core.stats import symmetric_test

    est = np.array([2.2, 0.3, 3.5, -2.4, 0.1, 2.1])
    interval, p = symmetric_test(est, np.ones(6))
    groups = np.array([0, 0, 0, 1, 1, 1])
    p_holm, lo, hi = holm_intervals(p, interval, groups)
    np.testing.assert_allclose(p_holm[:3], holm(p[:3]))
    np.testing.assert_allclose(p_holm[3:], holm(p[3:]))
    np.testing.assert_array_equal((lo > 0) | (hi < 0), p_holm < 0.05)
    # 2.2 alone is significant (p = 0.028), one of three it is not: its interval says so
    assert p[0] < 0.05 and p_holm[0] >= 0.05 and lo[0] < 0 < hi[0]
    # the interval at Holm's level of the step, alpha / (m - i)
    levels = holm_levels(p[:3])
    assert hi[2] - est[2] == pytest.approx(stats.norm.isf(levels[2] / 2))
    interval, p = symmetric_test([np.nan, 2.7], [1.0, 1.0])
    p_holm, lo, hi = holm_intervals(p, interval)      # NaN: in no family
    assert np.isnan([p_holm[0], lo[0], hi[0]]).all() and p_holm[1] == pytest.approx(p[1])


# ---------------------------------------------------------------------------
# Tables built by hand
# ---------------------------------------------------------------------------
def fake_run(wins_by_seat, players=4, presets=None, hands=None, unresolved=None,
             dart=None, dart_cap=20) -> RunData:
    """A run whose seat ``s`` wins ``wins_by_seat[s]`` matches (in that order)."""
    winners = np.repeat(np.arange(players), wins_by_seat)
    n = winners.size
    presets = presets or [f"p{s}" for s in range(players)]
    seats = []
    for m, w in enumerate(winners):
        for s in range(players):
            seats.append({"point": 0, "chunk": 0, "match": m, "seat": s, "preset": presets[s],
                          "place": 1 if s == w else 2 + (s - w - 1) % players,
                          "eliminated_hand": 0 if s == w else 10, "final_chips": 300 * (s == w),
                          "manipulations": 1, "fees": 2, "hedges_placed": 0, "hedges_won": 0,
                          "hedge_chips": 0, "showdowns": 1})
    hands = np.full(n, 40) if hands is None else np.asarray(hands)
    matches = pd.DataFrame({"point": 0, "chunk": 0, "match": np.arange(n), "rotation": 0,
                            "players": players, "winner": winners, "hands": hands,
                            "unresolved": np.zeros(n, int) if unresolved is None else unresolved,
                            "dart": np.full(n, 5) if dart is None else dart,
                            "column": " ".join(map(str, range(13)))})
    wins = np.zeros(13, int)
    wins[11] = n
    arrays = pd.DataFrame({"point": 0, "table": "category", "stat": "wins",
                           "index": np.arange(13), "label": [str(i) for i in range(13)],
                           "value": wins})
    counts = pd.DataFrame({"point": [0], "chunk": [0], "n_matches": [n], "hands": [hands.sum()],
                           "showdowns": [n], "pot_sum": [1000], "fees": [2 * n * players],
                           "hedges": [0], "hedge_hits": [0]})
    manifest = {"points": [{"point": 0, "params": {},
                            "settings": {"players": players, "dart_cap": dart_cap,
                                         "max_hands": 1000, "chips": 75}}],
                "rotation": presets, "chunk": 1}
    return RunData(manifest, {"matches": matches, "seats": pd.DataFrame(seats),
                                "drafts": pd.DataFrame(columns=["point", "chunk", "match", "seat",
                                                                "card", "count"]),
                                "counts": counts, "arrays": arrays})


def test_seat_chi_square_by_hand_and_against_scipy():
    run = fake_run([30, 20, 25, 25])
    got = A.seat_chi_square(run).iloc[0]
    # expected 25 each: (25 + 25 + 0 + 0) / 25 = 2.0 on 3 degrees of freedom
    assert got["chi2"] == pytest.approx(2.0) and got["dof"] == 3
    assert got["p_value"] == pytest.approx(stats.chi2.sf(2.0, 3))
    assert got["p_value"] == pytest.approx(stats.chisquare([30, 20, 25, 25]).pvalue)


def test_seat_fairness_flags_the_unfair_seat_after_holm():
    run = fake_run([130, 90, 90, 90])
    s = A.seat_fairness(run)
    assert s["win_rate"].tolist() == [0.325, 0.225, 0.225, 0.225]
    assert s["outside"].tolist()[0] and not s["outside"].iloc[1:].any()
    np.testing.assert_allclose(s["p_holm"], holm(s["p_value"]))
    # the score test, which the Wilson interval inverts (z = 30 / sqrt(75) = 3.46)
    assert s["p_value"].iloc[0] == pytest.approx(2 * stats.norm.sf(30 / np.sqrt(75)))
    lo, hi = wilson_interval(130, 400)
    assert (s["ci_low"].iloc[0], s["ci_high"].iloc[0]) == (pytest.approx(lo), pytest.approx(hi))
    # the smallest of four p-values is held to 0.05 / 4: the 98.75% Wilson interval
    lo, hi = wilson_interval(130, 400, 1 - 0.05 / 4)
    assert (s["holm_low"].iloc[0], s["holm_high"].iloc[0]) == (pytest.approx(lo),
                                                               pytest.approx(hi))
    f = A.findings(run)
    assert (f["section"] == "seats").sum() == 1
    text = f.loc[f["section"] == "seats", "finding"].iloc[0]
    assert "seat 0 wins 32.5% (Holm-adjusted 95% interval" in text


def test_presets_net_chips_and_head_to_head():
    run = fake_run([60, 20, 10, 10], presets=["shark", "fish", "rock", "rock2"])
    pr = A.preset_results(run).set_index("preset")
    assert pr.loc["shark", "win_rate"] == pytest.approx(0.6)
    # the winner ends with 300 of 4 x 75 chips: +225; the others lose 75
    assert pr.loc["shark", "net_chips"] == pytest.approx(0.6 * 225 - 0.4 * 75)
    sk = A.skill_matrix(run).set_index(["preset", "opponent"])
    a, b = sk.loc[("shark", "fish"), "rate"], sk.loc[("fish", "shark"), "rate"]
    assert a + b == pytest.approx(1) and a > 0.5
    assert sk.loc[("shark", "fish"), "p_holm"] == sk.loc[("fish", "shark"), "p_holm"]


def test_findings_unresolved_cap_and_never_winning_categories():
    n = 100
    unresolved = np.zeros(n, int)
    unresolved[:3] = 1
    run = fake_run([25, 25, 25, 25], unresolved=unresolved, dart=np.full(n, 20), dart_cap=20)
    run.tables["counts"]["mucks"] = 0
    cache = {"winning": A.winning_categories(run)}
    f = A.findings(run, cache=cache)
    text = " | ".join(f["finding"])
    assert "3.0% of matches unresolved" in text
    # every one of 100: the bound says how much of the time that is (Wilson, 100 / 103.84)
    assert ("the dart ends every one of 100 matches at its cap (20) (so at least 96.3% of "
            "matches, 95% Wilson bound)") in text
    # only One Pair wins in this run: Two Pair, Flush, ... never do although expected
    assert "Two Pair never wins" in text
    assert "presets sat in only 1 of 4 seat orders" in text
    notes = f[f["severity"] == "note"]["finding"].str.cat()
    assert "Flush Five" in notes                       # impossible with one deck, no wilds


def test_a_cap_never_reached_in_few_matches_says_how_rare_that_shows_it_to_be():
    # 0 of 20 matches at the cap: the cap may still end 16% of matches (Wilson's upper
    # bound, 3.84 / 23.84); 0 of 400 pins it under 1%
    for n, bound in ((20, "16.1%"), (400, "1.0%")):
        run = fake_run([n // 4] * 4, dart=np.full(n, 7), dart_cap=20)
        text = " | ".join(A.findings(run)["finding"])
        assert (f"the dart never ends a match at its cap (20) in {n:,} matches (so in at "
                f"most {bound} of matches, 95% Wilson bound); the mean final dart is 7.0"
                ) in text


def test_findings_name_report_sections_by_id():
    from nop_sim.games.new_order.report import POINT_SECTIONS

    run = fake_run([130, 90, 90, 90], unresolved=np.r_[np.ones(5, int), np.zeros(395, int)],
                   dart=np.full(400, 20), dart_cap=20)
    run.tables["counts"]["mucks"] = 0
    f = A.findings(run, cache={"winning": A.winning_categories(run)})
    assert set(f["section"]) == {"seats", "strategies", "length", "column", "ledger"}
    assert set(f["section"]) <= {s.id for s in POINT_SECTIONS}


def test_match_length_and_survival():
    hands = np.array([10, 20, 30, 40, 1000])
    run = fake_run([2, 1, 1, 1], hands=hands, unresolved=np.array([0, 0, 0, 0, 1]))
    ml = A.match_length(run).iloc[0]
    assert ml["median_hands"] == 30 and ml["unresolved"] == 1
    assert ml["unresolved_share"] == pytest.approx(0.2)
    s = A.survival(run)
    assert s.loc[s["hands"] == 25, "share"].iloc[0] == pytest.approx(0.6)
    assert s.loc[s["hands"] == 1000, "share"].iloc[0] == 0


def test_default_baseline_table_is_sane_and_mixes_linearly():
    two, three = A.default_baseline(2), A.default_baseline(3)
    for b in (two, three):
        assert b["share"].sum() == pytest.approx(1, abs=1e-9)
        assert b.loc[b["label"] == "Flush Five", "share"].iloc[0] == 0   # one deck, no wild
    # heads-up, one pair and two pair win about a third each
    assert 0.3 < two.loc[two["label"] == "One Pair", "share"].iloc[0] < 0.4
    mix = A.default_baseline(2.25)
    np.testing.assert_allclose(mix["share"], 0.75 * two["share"] + 0.25 * three["share"])


def test_simulated_baseline_agrees_with_the_shipped_table():
    sim = A.default_baseline(3, n_deals=20_000, seed=7)
    table = A.default_baseline(3)
    # every category within its simulated 95% interval, widened a little
    slack = 0.004
    assert ((table["share"] >= sim["share_low"] - slack)
            & (table["share"] <= sim["share_high"] + slack)).all()


def test_time_stats_are_read_under_either_name():
    run = fake_run([1, 1, 1, 1])
    rows = [("pos0", 0, 0, 4), ("time_1", 0, 1, 4), ("pos2", 0, 2, 4), ("matches", 0, 0, 4),
            ("dart", 0, 0, 4), ("dart_sq", 0, 0, 4), ("alive", 0, 0, 16)]
    extra = pd.DataFrame([{"point": 0, "table": "time", "stat": s, "index": h, "label": str(h),
                           "value": v} for s, h, _, v in rows])
    run.tables["arrays"] = pd.concat([run.tables["arrays"], extra], ignore_index=True)
    oh = A.column_over_hands(run)
    assert set(oh["category"]) == {0, 1, 2}
    assert oh.loc[oh["category"] == 1, "mean_position"].iloc[0] == 1.0
    d = A.dart_over_hands(run).iloc[0]
    assert d["mean"] == 1 and d["sd"] == 0
    assert A.alive_over_hands(run)["mean_alive"].iloc[0] == 4


def test_missing_columns_raise_missing_data():
    run = fake_run([1, 1, 1, 1])
    run.tables["seats"] = run.tables["seats"].drop(columns=["place"])
    with pytest.raises(A.MissingData, match="place"):
        A.seat_fairness(run)
    run.tables["arrays"] = run.tables["arrays"].iloc[0:0]
    with pytest.raises(A.MissingData):
        A.dart_over_hands(run)


def test_rank_points_treats_max_targets_as_ceilings():
    m = pd.DataFrame({"point": [0, 1, 2], "median_hands": [60, 45, 90],
                      "max_seat_advantage": [0.05, 0.01, 0.02]})
    r = rank_points(m, {"median_hands": 60, "max_seat_advantage": 0.03})
    # point 0: 0 miss on hands, (0.05-0.03)/0.03 on the ceiling; point 1: 15/60, 0
    d = dict(zip(r["point"], r["distance"], strict=True))
    assert d[0] == pytest.approx(2 / 3) and d[1] == pytest.approx(0.25)
    assert r.iloc[0]["point"] == 1 and r.iloc[0]["rank"] == 1


# ---------------------------------------------------------------------------
# An interval beside a Holm p never contradicts it
# ---------------------------------------------------------------------------
def _excludes(lo, hi, value) -> np.ndarray:
    return (np.asarray(lo, float) > value) | (np.asarray(hi, float) < value)


def _drafted_run(lucky: int = 118) -> RunData:
    """400 four-seat matches, every seat drafting one of four Disruptor cards: card a by
    400 seats, ``lucky`` of them winners (29.5% against 23.5% for the 1,200 others: +6
    points, 95% interval +0.9 to +11.1 alone, p = 0.02); b, c and d by 400 each, 94
    winners each (-2 points, p = 0.44). One card of four: Holm p = 0.08."""
    run = fake_run([100, 100, 100, 100])
    won, lost = itertools.cycle("bcd"), itertools.cycle("bcd")
    rows = []
    for m, w in enumerate(run.tables["matches"]["winner"]):
        for seat in range(4):
            if seat == w:
                card = "a" if m < lucky else next(won)
            else:
                card = "a" if m >= lucky and seat == (w + 1) % 4 else next(lost)
            rows.append({"point": 0, "chunk": 0, "match": m, "seat": seat, "card": card,
                         "count": 1})
    run.tables["drafts"] = pd.DataFrame(rows)
    return run


def _shown(blocks, caption: str) -> pd.DataFrame:
    from nop_sim.reporting import Table

    return next(b.frame for b in blocks if isinstance(b, Table) and b.caption == caption)


def _bounds(cells) -> tuple[np.ndarray, np.ndarray]:
    """The interval of each "32.5% (28.0–37.3)" or "+6.0 (+0.9 to +11.1)" cell."""
    import re

    pairs = [re.search(r"\(([-+]?[\d.]+)(?:–| to )([-+]?[\d.]+)\)", c).groups() for c in cells]
    return np.array([float(a) for a, _ in pairs]), np.array([float(b) for _, b in pairs])


def _p(cells) -> np.ndarray:
    return np.array([0.0 if c.startswith("<") else float(c) for c in cells])


def _holm_p(frame: pd.DataFrame, adjusted: bool = False) -> str:
    """The column of Holm p-values ("p (Holm)", "Holm p", "p adj. (Holm)", ...)."""
    import re

    return next(c for c in frame.columns if re.fullmatch(r"Holm p.*|p.*\(Holm\)", c)
                and ("adj" in c) == adjusted)


def _agree(frame: pd.DataFrame, value: str, holm: str, at: float) -> None:
    """The interval of column ``value`` (as printed: percent, or points) leaves ``at``
    out exactly when the Holm p of column ``holm`` is below 0.05."""
    lo, hi = _bounds(frame[value])
    p = _p(frame[holm])
    assert (_excludes(lo, hi, at) == (p < 0.05)).all(), frame[[value, holm]]


def test_an_interval_beside_a_holm_p_never_contradicts_it():
    # A designer read "double_ante +13.4 (+6.7 to +20.0), Holm p 1.0": each row's own 95%
    # interval beside a p-value corrected for every card (and, for the lift, the interval
    # of one test beside another test's p). Constructed: seat 0 wins 121 of 400 against a
    # fair 100 (alone its 95% interval leaves 25% out, p = 0.015; one of four seats, Holm
    # p = 0.06), and card a's drafters win 6 points more (alone p = 0.02; Holm p = 0.08).
    from nop_sim.games.new_order.report import common, disruptors, players

    run = fake_run([121, 93, 93, 93])
    s = A.seat_fairness(run)
    r = s.iloc[0]
    assert _excludes(r["ci_low"], r["ci_high"], 0.25) and r["p_value"] < 0.05   # alone
    assert r["p_holm"] >= 0.05 and not r["outside"]                            # one of four
    point = common._Point(run, 0)
    seats = _shown(players._seats(point), "Wins per seat")
    value = next(c for c in seats.columns if c.startswith("win rate"))
    _agree(seats, value, _holm_p(seats), 25.0)
    assert "Holm-adjusted" in value
    presets = _shown(players._strategies(point), "Results per preset")
    _agree(presets, next(c for c in presets.columns if c.startswith("win rate")),
           _holm_p(presets), 25.0)
    skill = _shown(players._skill(A.skill_matrix(run)), "Head to head (each pair once)")
    _agree(skill, next(c for c in skill.columns if c.startswith("preset ahead")),
           _holm_p(skill), 50.0)

    run = _drafted_run()
    d = A.disruptor_stats(run).set_index("card")
    assert d.loc["a", "adjusted_lift"] == pytest.approx(0.06)
    assert d.loc["a", "p_adjusted"] < 0.05 and d.loc["a", "p_adjusted_holm"] >= 0.05
    assert not d["outlier"].any()    # 6 points, but not shown to differ from 0
    cards = _shown(disruptors._disruptors(common._Point(run, 0)),
                   "Disruptor cards (sorted by pick rate)")
    lift = next(c for c in cards.columns if c.startswith("adjusted lift"))
    _agree(cards, lift, _holm_p(cards, adjusted=True), 0.0)
    raw = [c for c in cards.columns if c.startswith("raw lift")]
    assert raw, "the raw comparison's Holm p needs the interval of its own test"
    _agree(cards, raw[0], _holm_p(cards), 0.0)


def test_the_largest_advantages_band_leaves_0_out_only_where_a_seat_is_flagged():
    # seat 0 wins 121 of 400: its own 95% interval leaves 25% out (p = 0.015), but one
    # of four seats, Holm p = 0.06, no seat is flagged; the headline's "largest seat
    # advantage" read 5.2 points "(1.0 to 9.9)", a band that said a seat was favoured
    for wins in ([121, 93, 93, 93], [130, 90, 90, 90], [100, 100, 100, 100],
                 [140, 100, 80, 80], [112, 96, 96, 96]):
        run = fake_run(wins)
        m = A.point_metrics(run, n_boot=20).iloc[0]
        flagged = A.seat_fairness(run)["outside"].any()
        assert (m["max_seat_advantage_low"] > 0) == flagged, wins
        assert m["max_seat_advantage_low"] <= m["max_seat_advantage"] \
            <= m["max_seat_advantage_high"]
    # the band holds every seat's advantage at once: Bonferroni's level (1 - 0.05 / 4)
    from nop_sim.core.stats import wilson_interval

    m = A.point_metrics(fake_run([121, 93, 93, 93]), n_boot=20).iloc[0]
    low, high = wilson_interval(121, 400, 1 - 0.05 / 4)
    assert m["max_seat_advantage_high"] == pytest.approx(high - 0.25)
    assert m["max_seat_advantage_low"] == 0.0


def test_the_largest_disruptor_effects_band_leaves_0_out_only_where_a_card_is_flagged():
    # card a's drafters win 6 points more: its own 95% interval leaves 0 out (p = 0.02),
    # one card of four, Holm p = 0.08: the headline's band read "(+0.9 to ...)"; at 130
    # lucky drafters it is an outlier, and the band leaves 0 out
    for lucky, flagged in ((118, False), (130, True)):
        run = _drafted_run(lucky=lucky)
        m = A.point_metrics(run, n_boot=20).iloc[0]
        d = A.disruptor_stats(run)
        assert (d["p_adjusted_holm"] < 0.05).any() == flagged
        assert (m["max_disruptor_effect_low"] > 0) == flagged, lucky
        a = d.set_index("card").loc["a"]
        half = 2.4977054 * a["adjusted_se"]  # z at 0.05 / (2 * 4 cards)
        assert m["max_disruptor_effect_high"] == pytest.approx(a["adjusted_lift"] + half)


def test_every_table_pairs_its_intervals_and_p_values_by_one_test():
    run = _drafted_run(lucky=130)        # card a: +10 points, Holm p < 0.05, an outlier
    tables = [(A.seat_fairness(run), "fair"), (A.preset_results(run), "fair"),
              (A.skill_matrix(fake_run([121, 93, 93, 93], presets=list("wxyz"))), 0.5)]
    d = A.disruptor_stats(run)
    for t, at in tables:
        at = t[at].to_numpy() if isinstance(at, str) else at
        assert (_excludes(t["ci_low"], t["ci_high"], at) == (t["p_value"] < 0.05)).all()
        assert (_excludes(t["holm_low"], t["holm_high"], at) == (t["p_holm"] < 0.05)).all()
    for lo, hi, p in (("lift_low", "lift_high", "p_value"),
                      ("lift_holm_low", "lift_holm_high", "p_holm"),
                      ("adjusted_low", "adjusted_high", "p_adjusted"),
                      ("adjusted_holm_low", "adjusted_holm_high", "p_adjusted_holm")):
        assert (_excludes(d[lo], d[hi], 0) == (d[p] < 0.05)).all(), (lo, d[[lo, hi, p]])
    a = d.set_index("card").loc["a"]
    assert a["outlier"] and a["adjusted_holm_low"] > 0
    # the headline's finding prints the interval that agrees with its Holm p
    text = A.findings(run).query("section == 'disruptors'")["finding"].iloc[0]
    assert (f"Holm-adjusted 95% interval {100 * a['adjusted_holm_low']:+.1f} to "
            f"{100 * a['adjusted_holm_high']:+.1f}") in text


def test_a_disruptors_interval_stays_within_what_a_difference_of_rates_can_be():
    # 398 of card a's 400 drafters win, 2 of the 1,200 others: +99.3 points, a Wald
    # interval to about +100.7; a difference of two win rates never passes +100
    d = A.disruptor_stats(_drafted_run(lucky=398)).set_index("card")
    a = d.loc["a"]
    assert a["adjusted_lift"] == pytest.approx(398 / 400 - 2 / 1200)
    for lo, hi in (("adjusted_low", "adjusted_high"),
                   ("adjusted_holm_low", "adjusted_holm_high")):
        assert -1.0 <= a[lo] < a["adjusted_lift"] < a[hi] == 1.0
    assert (d[["adjusted_low", "adjusted_holm_low"]].to_numpy() >= -1).all()


def test_the_summary_prints_the_pair_the_report_prints():
    # summary.md printed each seat's own 95% interval (seat 0 of this run: 26.0-34.9%, fair
    # 25%) while the report, among four seats, found nothing (Holm p = 0.06)
    from nop_sim.results.summary import _seat_table

    run = fake_run([121, 93, 93, 93])
    got = _seat_table(run.tables["seats"], "seat", 0.25)
    want = A.seat_fairness(run)
    for column in ("win_rate", "holm_low", "holm_high", "p_holm"):
        np.testing.assert_allclose(got[column], want[column], rtol=1e-12)
    assert got["holm_low"].iloc[0] < 0.25 and got["p_holm"].iloc[0] >= 0.05
    assert "ci_low" not in got
