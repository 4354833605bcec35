"""nop-sim train --method cfr on three-player Kuhn poker (issue 39, its Kuhn part): the
regret trainer against OpenSpiel's published CFR figure and the exact NashConv oracle,
resumed bit-identically, and its field a seat like any other."""

from __future__ import annotations

import json

import numpy as np
import pytest
from click.testing import CliRunner

from nop_sim.cli import main
from nop_sim.games.kuhn import cfr, exact
from nop_sim.games.kuhn.policy import read_policy_csv

KUHN = "scenarios/kuhn3.toml"


def test_plain_cfr_matches_openspiels_published_figure():
    # OpenSpiel's CFRSolver (alternating updates, uniform averaging) on 3-player Kuhn has
    # NashConv 0.0126 after 300 iterations; any slip in reach, regret or averaging moves it
    _, curve = cfr.run(300, alpha=None)
    assert curve[-1][0] == 300
    assert round(curve[-1][1], 4) == 0.0126


def test_discounted_cfr_converges_faster_than_plain():
    _, plain = cfr.run(300, alpha=None)
    _, dcfr = cfr.run(300)
    assert dcfr[-1][1] < plain[-1][1] / 5


def test_the_average_strategy_is_the_strategy_sums_ratio():
    st = cfr.CFRState.new()
    st.strategy_sum[:, 0], st.strategy_sum[:, 1] = 3.0, 1.0
    st.strategy_sum[5] = 0.0   # never reached with weight: even chances
    avg = cfr.average(st)
    assert avg[0] == pytest.approx(0.25) and avg[5] == 0.5
    st.regret[:, 0], st.regret[:, 1] = -1.0, 2.0
    st.regret[7] = (1.0, 3.0)
    now = cfr.current(st.regret)
    assert now[0] == 1.0 and now[7] == pytest.approx(0.75)
    st.regret[9] = (-1.0, -2.0)   # no positive regret: even chances
    assert cfr.current(st.regret)[9] == 0.5


def _train(tmp_path, name, *args):
    out = tmp_path / name
    res = CliRunner().invoke(main, ["train", KUHN, "--method", "cfr", "--out", str(out), "-q",
                                    *args])
    return out, res


def test_train_method_cfr_writes_a_field_within_the_issue_figure(tmp_path):
    out, res = _train(tmp_path, "cfr")
    assert res.exit_code == 0, res.output
    assert "48 information sets, 2 actions each" in res.output
    row = read_policy_csv(out / "policy.csv")
    nash = exact.nash_conv(row)
    assert nash <= 0.005   # issue 39: at most 0.005 within 60 s (it takes about a second)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["method"] == "cfr" and manifest["iterations"] == cfr.ITERATIONS
    assert manifest["exact"]["nash_conv"] == pytest.approx(nash, abs=1e-12)
    text = (out / "strong.toml").read_text()
    assert 'method = "cfr"' in text and "Discounted CFR" in text
    curve = (out / "curve.csv").read_text().splitlines()
    assert curve[0] == "iteration,seconds,nash_conv,gain_per_seat"
    last = curve[-1].split(",")
    assert int(last[0]) == cfr.ITERATIONS and float(last[2]) == pytest.approx(nash, abs=1e-12)
    # the training report: the exact figure and the curve of the bound over wall time
    md = (out / "report.md").read_text()
    assert f"NashConv {nash:.6f} chips per hand" in md and "48 information sets" in md
    assert (out / "figures" / "curve.png").stat().st_size > 0 and "report.html" in res.output


def test_a_stopped_training_goes_on_bit_identically(tmp_path):
    whole, res = _train(tmp_path, "whole", "--iterations", "400")
    assert res.exit_code == 0, res.output
    part, res = _train(tmp_path, "part", "--iterations", "150")
    assert res.exit_code == 0, res.output
    again, res2 = _train(tmp_path, "part", "--iterations", "400")
    assert res2.exit_code == 1 and "--resume" in res2.output   # finished at 150: says how
    _, res = _train(tmp_path, "part", "--iterations", "400", "--resume")
    assert res.exit_code == 0, res.output
    with np.load(whole / "regret_state.npz") as a, np.load(part / "regret_state.npz") as b:
        for k in a.files:
            assert np.array_equal(a[k], b[k]), k
    assert (whole / "policy.csv").read_text() == (part / "policy.csv").read_text()


def test_the_cfr_field_is_a_seat_like_any_other(tmp_path):
    out, res = _train(tmp_path, "cfr", "--iterations", "300")
    assert res.exit_code == 0, res.output
    assert "Not measured yet" in (out / "report.md").read_text()
    res = CliRunner().invoke(main, ["value", KUHN, "--strong", str(out), "--budget-matches",
                                    "20000", "-q"])
    assert res.exit_code == 0, res.output
    assert "Restricted play" in (out / "report.md").read_text()   # the value in its report
    res = CliRunner().invoke(main, ["run", KUHN, "--set", f"seats.all=@{out}/strong.toml",
                                    "--matches", "2000", "--out", str(tmp_path / "run"),
                                    "--no-report", "-q"])
    assert res.exit_code == 0, res.output
    assert "by regret minimisation (300 CFR iterations)" in res.output
    assert "NashConv" in res.output


@pytest.mark.parametrize("args, needle", [
    (["scenarios/ordered_hand.toml", "--method", "cfr"], "no regret-minimisation trainer yet"),
    (["scenarios/baseline.toml", "--iterations", "5"], "give it with --method cfr"),
    ([KUHN, "--method", "psro", "--iterations", "5"], "give it with --method cfr"),
    ([KUHN, "--budget-matches", "1000"], "kuhn3 trains by cfr unless --method psro"),
    ([KUHN, "--method", "cfr", "--budget-matches", "1000"], "--method cfr runs --iterations"),
    ([KUHN, "--method", "cfr", "--seeds", "2"], "--method cfr runs --iterations"),
    ([KUHN, "--method", "cfr", "--scheduler", "tcp://127.0.0.1:9"], "--workers threads"),
])
def test_cfr_options_out_of_place_get_one_line(tmp_path, args, needle):
    out = tmp_path / "never"
    res = CliRunner().invoke(main, ["train", *args, "--out", str(out)])
    assert res.exit_code == 2 and needle in res.output, res.output
    assert "Traceback" not in res.output and not out.exists()


def test_a_folder_with_another_training_is_not_written_over(tmp_path):
    psro = tmp_path / "psro"
    psro.mkdir()
    (psro / "strong.toml").write_text("# someone's field\n")
    _, res = _train(tmp_path, "psro")
    assert res.exit_code == 1 and "not empty" in res.output, res.output
    assert (psro / "strong.toml").read_text() == "# someone's field\n"


def test_regret_matching_self_play_reaches_a_matrix_games_known_equilibrium():
    # zero-sum, row payoffs [[2, -1], [-1, 1]]: each side's equilibrium mixes 0.4 / 0.6,
    # value 0.2; regret matching in self-play converges to it on average
    from nop_sim.core.regret import regret_matching

    a = np.array([[2.0, -1.0], [-1.0, 1.0]])
    r_row, r_col = np.zeros(2), np.zeros(2)
    avg_row, avg_col = np.zeros(2), np.zeros(2)
    for _ in range(20_000):
        x, y = regret_matching(r_row), regret_matching(r_col)
        avg_row += x
        avg_col += y
        row_values, col_values = a @ y, -(x @ a)
        r_row += row_values - x @ row_values
        r_col += col_values - y @ col_values
    avg_row, avg_col = avg_row / avg_row.sum(), avg_col / avg_col.sum()
    assert np.allclose(avg_row, [0.4, 0.6], atol=0.01)
    assert np.allclose(avg_col, [0.4, 0.6], atol=0.01)
    assert avg_row @ a @ avg_col == pytest.approx(0.2, abs=0.01)
    assert np.array_equal(regret_matching(np.array([[-1.0, -2.0], [0.0, 3.0]])),
                          [[0.5, 0.5], [0.0, 1.0]])


def test_the_cfr_field_file_round_trips_and_workers_change_nothing(tmp_path):
    from nop_sim.games.kuhn.policy import agent_row, read_agent_file

    one, res = _train(tmp_path, "one", "--iterations", "200", "--workers", "1")
    assert res.exit_code == 0, res.output
    two, res = _train(tmp_path, "two", "--iterations", "200", "--workers", "2")
    assert res.exit_code == 0, res.output
    f = read_agent_file(one / "strong.toml")
    assert f.weights == (1.0,) and len(f.rows) == 1
    row = agent_row(f.rows[0])
    with np.load(one / "regret_state.npz") as z:   # the average strategy, bit for bit
        assert np.array_equal(row, cfr.TRAINER.row({k: z[k] for k in z.files}))
    assert np.allclose(row, read_policy_csv(one / "policy.csv"), rtol=1e-12, atol=0)
    assert f.training["method"] == "cfr" and f.training["iterations"] == 200
    with np.load(one / "regret_state.npz") as a, np.load(two / "regret_state.npz") as b:
        assert all(np.array_equal(a[k], b[k]) for k in a.files)
    assert (one / "policy.csv").read_text() == (two / "policy.csv").read_text()


def test_a_check_never_states_more_than_the_exact_gain_of_a_field_known_exactly(tmp_path):
    # A search of a field the game solves exactly can read more than the exact gain only by
    # its noise: nop-sim exploit printed "at least +0.004 chips" over a CFR field whose
    # best deviation gains 0.000008, and wrote it into strong.toml as a bound.
    from nop_sim.run.scenario import load_scenario
    from nop_sim.studies.train.value import record_check

    out, res = _train(tmp_path, "cfr", "--iterations", "200")
    assert res.exit_code == 0, res.output
    before = (out / "strong.toml").read_text()

    class Found:  # what nop-sim exploit's search returns, as far as the record reads
        matches, starts, gain, low, high = 150_000, 26, 0.05, 0.04, 0.06

    assert not record_check(load_scenario(KUHN, ["run.seed=7"]), out, Found(), 200_000)
    assert (out / "strong.toml").read_text() == before
