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
    res = CliRunner().invoke(main, ["run", KUHN, "--set", f"seats.all=@{out}/strong.toml",
                                    "--matches", "2000", "--out", str(tmp_path / "run"),
                                    "--no-report", "-q"])
    assert res.exit_code == 0, res.output
    assert "by regret minimisation (300 CFR iterations)" in res.output
    assert "NashConv" in res.output


@pytest.mark.parametrize("args, needle", [
    (["scenarios/baseline.toml", "--method", "cfr"], "no regret-minimisation trainer yet"),
    ([KUHN, "--iterations", "5"], "give it with --method cfr"),
    ([KUHN, "--method", "cfr", "--budget-matches", "1000"], "--method cfr runs --iterations"),
    ([KUHN, "--method", "cfr", "--seeds", "2"], "--method cfr runs --iterations"),
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
