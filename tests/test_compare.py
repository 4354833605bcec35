"""nop-sim compare: two runs side by side, with intervals, Holm and thresholds."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from nop_sim.cli import main
from nop_sim.core.stats import newcombe_interval, wilson_interval
from nop_sim.games.new_order import analysis as A
from nop_sim.run.runner import run_scenario
from nop_sim.run.scenario import load_scenario
from nop_sim.studies.compare import COLUMNS, CompareError, compare, compare_runs, parse_min_effect

HEDGE = """
name = "hedge{cost}"
[game]
players = 3
hedge_cost = {cost}
[seats]
rotate = ["balanced", "hedger", "rock"]
[run]
matches = {matches}
chunk = 100
seed = 13
"""


def _run(folder: Path, text: str, overrides=()) -> Path:
    scenario = folder / "s.toml"
    folder.mkdir(parents=True, exist_ok=True)
    scenario.write_text(text)
    run_scenario(load_scenario(scenario, list(overrides)), folder / "out", workers=1)
    return folder / "out"


@pytest.fixture(scope="module")
def hedge_runs(tmp_path_factory):
    """hedge_cost 5 and 15, same seed and chunks: 600 three-player matches each."""
    root = tmp_path_factory.mktemp("compare")
    return (_run(root / "cost5", HEDGE.format(cost=5, matches=600)),
            _run(root / "cost15", HEDGE.format(cost=15, matches=600)))


def test_a_run_compared_with_itself_differs_by_nothing(hedge_runs):
    run = A.load_run(hedge_runs[0])
    cmp = compare_runs(run, run, n_boot=200)
    t = cmp.table
    assert cmp.pairable
    assert not t["finding"].any()
    # a Disruptor never drafted in 600 matches has no effect to compare (NaN); all else is 0
    defined = t["family"] != "disruptor_effect"
    assert np.isfinite(t.loc[defined, "difference"]).all()
    finite = np.isfinite(t["difference"])
    assert finite[~defined].sum() > 10
    assert (t.loc[finite, "difference"] == 0).all()
    assert (t.loc[finite, "a"] == t.loc[finite, "b"]).all()
    for family in ("median_hands", "mean_hands", "unresolved_share", "seat_win_rate",
                   "preset_win_rate", "fee_share", "manipulations_per_hand",
                   "hedge_hit_rate", "hedge_net_per_placement", "disruptor_effect",
                   "hedges_per_hand", "bluffs_per_hand",
                   "stack_gini", "category_share"):
        assert (t["family"] == family).any(), family


def test_hedge_cost_5_against_15_finds_the_hedgers_win_rate(hedge_runs):
    a, b = (A.load_run(f) for f in hedge_runs)
    cmp = compare_runs(a, b, n_boot=200)
    row = cmp.table.set_index("metric").loc["preset_win_rate.hedger"]
    assert row["difference"] < 0                    # dearer hedges: the hedger wins less
    assert row["ci_high"] < 0                       # ... and the interval excludes 0
    assert row["finding"]
    assert cmp.pairable and "pair up" in cmp.pairing_reason
    # the same table from the notebook API
    table = compare(a, b, n_boot=200)
    pd.testing.assert_frame_equal(table[list(COLUMNS)], cmp.csv)


def test_the_cli_writes_the_csv_with_exactly_its_columns_and_a_report(hedge_runs, tmp_path):
    out = tmp_path / "cmp"
    res = CliRunner().invoke(main, ["compare", str(hedge_runs[0]), str(hedge_runs[1]),
                                    "--out", str(out), "--min-effect", "preset_win_rate=0.03"])
    assert res.exit_code == 0, res.output
    csv = pd.read_csv(out / "compare.csv")
    assert tuple(csv.columns) == COLUMNS
    assert "preset_win_rate.hedger" in res.output      # a top finding is printed
    assert (out / "report.html").exists() and (out / "report.md").exists()
    assert "Pairing used" in (out / "report.md").read_text()
    assert f"report:  {out / 'report.html'}" in res.output


def test_newcombe_interval_matches_the_published_example():
    lo, hi = newcombe_interval(56, 70, 48, 80)       # Newcombe (1998), table II, method 10
    assert (float(lo), float(hi)) == pytest.approx((0.0524, 0.3339), abs=5e-5)
    # paired with phi = 0 is the unpaired interval; a positive correlation narrows it
    lo0, hi0 = newcombe_interval(30, 100, 20, 100)
    lo1, hi1 = newcombe_interval(30, 100, 20, 100, phi=0.5)
    assert hi1 - lo1 < hi0 - lo0
    # a zero difference of equal rates sits inside the Wilson-built interval
    lo2, hi2 = newcombe_interval(10, 50, 10, 50)
    wl, wh = wilson_interval(10, 50)
    assert lo2 < 0 < hi2 and hi2 <= wh - wl


def test_min_effect_overrides_parse_and_refuse_nonsense():
    assert parse_min_effect(["seat_win_rate=0.03", "median_hands=10%"]) == {
        "seat_win_rate": (0.03, False), "median_hands": (0.1, True)}
    assert parse_min_effect(["preset_win_rate.hedger=0.05"]) == {
        "preset_win_rate.hedger": (0.05, False)}
    for bad in ("seat_winrate=0.02", "seat_win_rate", "seat_win_rate=x", "fee_share=-1"):
        with pytest.raises(CompareError):
            parse_min_effect([bad])


def _one_line_exit_2(args) -> str:
    res = CliRunner().invoke(main, ["compare", *map(str, args)])
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), res.output
    assert "Traceback" not in res.output
    return lines[0]


def test_bad_input_is_one_line_and_exit_2(hedge_runs, tmp_path):
    good = hedge_runs[0]
    assert "no such" in _one_line_exit_2([tmp_path / "missing", good])
    (tmp_path / "empty").mkdir()
    assert "no manifest.json" in _one_line_exit_2([good, tmp_path / "empty"])
    unfinished = tmp_path / "unfinished"
    shutil.copytree(good, unfinished)
    manifest = json.loads((unfinished / "manifest.json").read_text())
    manifest["status"] = "running"
    (unfinished / "manifest.json").write_text(json.dumps(manifest))
    assert "did not finish" in _one_line_exit_2([good, unfinished])
    assert "--point-b 3" in _one_line_exit_2([good, good, "--point-b", "3"])
    assert "unknown metric" in _one_line_exit_2([good, good, "--min-effect", "nope=1",
                                                 "--out", tmp_path / "o"])


def test_two_player_counts_are_refused(hedge_runs, tmp_path):
    two = _run(tmp_path / "two", HEDGE.format(cost=5, matches=20), ["players=2",
               'seats.rotate=["balanced", "hedger"]'])
    line = _one_line_exit_2([hedge_runs[0], two, "--out", tmp_path / "o"])
    assert "3 players" in line and "2 players" in line
    with pytest.raises(CompareError, match="player count"):
        compare_runs(A.load_run(hedge_runs[0]), A.load_run(two))


ORDERED = """
name = "ordered"
[game]
kind = "ordered-hand"
players = 3
[run]
matches = 20
chunk = 10
seed = 5
"""


def test_a_game_without_compare_metrics_is_refused_in_one_line_naming_it(tmp_path):
    # the registry says which games declare compare metrics: Ordered Hand declares none
    from nop_sim.games import get_game

    assert get_game("ordered-hand").compare is None
    run = _run(tmp_path / "ordered", ORDERED)
    line = _one_line_exit_2([run, run, "--out", tmp_path / "o"])
    assert "Ordered Hand" in line and "'ordered-hand'" in line, line
    assert "no compare metrics" in line and "new-order" in line, line
    # a scenario file of that game is refused before it runs
    scenario = tmp_path / "ordered.toml"
    scenario.write_text(ORDERED)
    line = _one_line_exit_2([scenario, run, "--out", tmp_path / "o2"])
    assert "no compare metrics" in line and not (tmp_path / "o2" / "a").exists(), line
    # and the notebook API says the same
    from nop_sim.results.run_data import load_run

    with pytest.raises(CompareError, match="Ordered Hand runs"):
        compare_runs(load_run(run), load_run(run))


def test_the_compare_report_has_a_section_per_group_of_the_games_metrics(hedge_runs, tmp_path):
    from nop_sim.games import get_game
    from nop_sim.studies.compare_report import sections

    metrics = get_game("new-order").compare()
    ids = [s.id for s in sections(metrics)]
    assert ids == ["findings", "runs", *[g for g, _t, _f in metrics.groups], "method"]


def test_scenario_files_run_on_the_fly_with_the_same_seed(tmp_path):
    a, b = tmp_path / "a.toml", tmp_path / "b.toml"
    a.write_text(HEDGE.format(cost=5, matches=100))
    b.write_text(HEDGE.format(cost=15, matches=100).replace("seed = 13", "seed = 99"))
    out = tmp_path / "cmp"
    res = CliRunner().invoke(main, ["compare", str(a), str(b), "--out", str(out),
                                    "--workers", "1", "--matches", "60"])
    assert res.exit_code == 0, res.output
    ma = json.loads((out / "a" / "manifest.json").read_text())
    mb = json.loads((out / "b" / "manifest.json").read_text())
    assert ma["seed"] == mb["seed"] == 13 and ma["matches_per_point"] == 60
    assert "pairing used" in res.output


def _excludes_0(lo, hi) -> np.ndarray:
    return (np.asarray(lo) > 0) | (np.asarray(hi) < 0)


def test_an_interval_and_the_p_value_beside_it_never_contradict():
    # A designer read "-0.05 pts (-0.10 to -0.01), Holm p 1.000": a 95% interval of the
    # metric alone beside a p-value corrected for the whole table. Constructed: 30 metrics
    # with no difference and one of 4.5 points out of 1000, which alone is significant
    # (its 95% interval excludes 0) and, one of 31 tests, is not after Holm.
    from nop_sim.core.differences import rate_difference
    from nop_sim.studies.compare import adjust_for_the_table

    rows = ([rate_difference(500, 1000, 500, 1000) for _ in range(30)]
            + [rate_difference(500, 1000, 545, 1000)])
    t = adjust_for_the_table(pd.DataFrame(rows))
    last = t.iloc[-1]
    assert last["ci_low"] > 0 and last["p_value"] < 0.05        # alone: a difference
    assert last["p_holm"] >= 0.05                               # among 31: not shown to be
    assert last["holm_low"] < 0 < last["holm_high"]             # and its interval says so
    # the same test gives each pair: 95% interval and p alone, Holm interval and Holm p
    assert (_excludes_0(t["ci_low"], t["ci_high"]) == (t["p_value"] < 0.05)).all()
    assert (_excludes_0(t["holm_low"], t["holm_high"]) == (t["p_holm"] < 0.05)).all()
    # a large effect stays a finding, with an interval that excludes 0
    big = adjust_for_the_table(pd.DataFrame(rows[:30] + [rate_difference(500, 1000, 600, 1000)]))
    assert big.iloc[-1]["p_holm"] < 0.05 and big.iloc[-1]["holm_low"] > 0


def test_every_row_of_a_real_comparison_agrees_with_itself(hedge_runs, tmp_path):
    a, b = (A.load_run(f) for f in hedge_runs)
    t = compare_runs(a, b, n_boot=200).table
    ok = np.isfinite(t["p_value"]).to_numpy()
    assert ok.sum() > 20
    for lo, hi, p in (("ci_low", "ci_high", "p_value"), ("holm_low", "holm_high", "p_holm")):
        agree = _excludes_0(t[lo], t[hi]) == (t[p] < 0.05).to_numpy()
        assert agree[ok].all(), t.loc[~agree & ok, ["metric", lo, hi, p, "method"]]
    # the report and the terminal show the Holm pair, labelled as such
    out = tmp_path / "cmp"
    res = CliRunner().invoke(main, ["compare", str(hedge_runs[0]), str(hedge_runs[1]),
                                    "--out", str(out)])
    assert res.exit_code == 0, res.output
    md = (out / "report.md").read_text()
    assert "B - A (Holm-adjusted 95% interval)" in md and "| Holm p |" in md
    assert "Holm-adjusted" in res.output
    assert "could not be built" not in md


def test_a_difference_with_no_bound_at_holms_level_still_draws_its_section(tmp_path):
    # two seeds of the same rules: the medians' bootstrap cannot bound their difference at
    # the level Holm holds it to among 50-odd metrics, (-inf, inf); drawn as the largest
    # float, it made the Match length section fail ("could not be built (LinAlgError:
    # Singular matrix)") in most comparisons of runs that do not differ
    from nop_sim import reporting as R
    from nop_sim.core.errors import MissingData
    from nop_sim.studies.compare_report import sections

    runs = [A.load_run(_run(tmp_path / f"s{seed}", HEDGE.format(cost=5, matches=200),
                            [f"run.seed={seed}"])) for seed in (1, 2)]
    cmp = compare_runs(*runs, n_boot=200)
    median = cmp.table.set_index("metric").loc["median_hands"]
    assert np.isinf(median["holm_low"]) and np.isinf(median["holm_high"])
    built = R.build_sections(sections(cmp.metrics), cmp, strict=True,
                             unavailable=(MissingData,))
    assert "length" in [b.id for b in built]
