"""Seats given a mixture agent file: they play the rows drawn per match, alike on any
executor, chunking, log, extension or resume; results name the row each seat played; an
agent file as the base of a table with overrides.

Oracles: rows that play visibly differently (never hedge, never manipulate) so the tables
show which row really played; the documented draw (:func:`nop_sim.games.new_order.agents.draw_rows`); the
same parameters given inline; and the draw's stated proportions, checked with a Wilson
interval.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from nop_sim.cli import main
from nop_sim.core.stats import wilson_interval
from nop_sim.games import SeatFile, get_game
from nop_sim.games.new_order import analysis as A
from nop_sim.games.new_order.agents import (
    AgentError,
    agent_row,
    draw_rows,
    training_text,
    write_agent_file,
)
from nop_sim.games.new_order.game import MIX_TAG, mix_rows
from nop_sim.results.store import load_tables
from nop_sim.run.runner import run_scenario
from nop_sim.run.scenario import ScenarioError, load_scenario

TRAINING = {"scenario": "baseline", "matches": 5000, "exploitability": 0.8,
            "exploitability_low": 0.2, "exploitability_high": 1.4, "converged": True}

# Three rows that leave different marks in the seats table: row 0 never hedges nor
# manipulates, row 1 hedges and never manipulates, row 2 manipulates and never hedges.
ROWS = [{"preset": "balanced", "hedge": 0.0, "manipulate": 0.0},
        {"preset": "hedger", "hedge": 3.0, "manipulate": 0.0},
        {"preset": "manipulator", "hedge": 0.0, "manipulate": 5.0}]
WEIGHTS = [0.5, 0.3, 0.2]

SCENARIO = """
name = "mix"
[game]
players = {players}
max_hands = 12
[seats]
{seats}
[run]
matches = {matches}
chunk = {chunk}
seed = 7
log_sample = {log_sample}
"""


def scenario(tmp_path: Path, seats: str, *, players: int = 3, matches: int = 24,
             chunk: int = 6, log_sample: int = 0, name: str = "s.toml") -> Path:
    path = tmp_path / name
    path.write_text(SCENARIO.format(players=players, seats=seats, matches=matches, chunk=chunk,
                                    log_sample=log_sample))
    return path


@pytest.fixture
def mix(tmp_path) -> Path:
    (tmp_path / "train").mkdir()
    return write_agent_file(tmp_path / "train" / "strong.toml", ROWS, WEIGHTS, TRAINING,
                            "a test mixture")


def sorted_tables(out: Path, names=("matches", "seats", "drafts", "counts", "arrays", "events")
                  ) -> dict[str, pd.DataFrame]:
    keys = {"matches": ["point", "chunk", "match"], "seats": ["point", "chunk", "match", "seat"],
            "drafts": ["point", "chunk", "match", "seat", "card"], "counts": ["point", "chunk"],
            "arrays": ["point", "table", "stat", "index"], "events": ["point", "match"]}
    tables = load_tables(out, names)
    return {n: t.sort_values(keys[n]).reset_index(drop=True) for n, t in tables.items()}


def assert_same_tables(a: Path, b: Path) -> None:
    ta, tb = sorted_tables(a), sorted_tables(b)
    for name in ta:
        pd.testing.assert_frame_equal(ta[name], tb[name], obj=name)


def invoke(*args):
    res = CliRunner().invoke(main, [str(a) for a in args])
    return res.exit_code, res.output


# ---------------------------------------------------------------------------
# Seats and runs
# ---------------------------------------------------------------------------
def test_a_mixture_seat_holds_its_rows_and_records_them(tmp_path, mix):
    scn = load_scenario(scenario(tmp_path, 'seat = ["@train/strong.toml", "rock", "rock"]'))
    seat = scn.seat_specs({}, 0)[0]
    assert isinstance(seat, SeatFile) and seat.is_mixture and len(seat) == 0
    assert seat.rows == tuple(ROWS) and seat.weights == tuple(WEIGHTS)
    assert get_game(scn.kind).seat_label(seat) == "trained(baseline)"
    record = seat.record()
    assert record["rows"] == ROWS and record["weights"] == WEIGHTS and "params" not in record
    # a mixture is no one row: whatever cannot draw rows refuses it, naming the file
    with pytest.raises(AgentError, match="mixture of 3 rows"):
        agent_row(seat)
    # the fingerprint follows the rows and the weights
    before = scn.fingerprint()
    write_agent_file(mix, ROWS, [0.4, 0.4, 0.2], TRAINING)
    assert load_scenario(tmp_path / "s.toml").fingerprint() != before


def test_a_mixture_seat_plays_its_rows_in_the_stated_proportions(tmp_path, mix):
    # 4 seats x 900 matches: 3,600 draws of the mixture
    out = tmp_path / "out"
    run_scenario(load_scenario(scenario(tmp_path, 'all = "@train/strong.toml"', players=4,
                                        matches=900, chunk=100)), out, workers=1)
    seats = load_tables(out)["seats"]
    assert seats["mix_row"].dtype == np.int64 and (seats["preset"] == "trained(baseline)").all()
    counts = np.bincount(seats["mix_row"], minlength=3)
    # three rows tested at once: each at 99.9%; a wrong weight (0.3 for 0.5: 45 standard
    # errors off) or a row off by one falls far outside
    low, high = wilson_interval(counts, counts.sum(), 0.999)
    assert counts.sum() == 3600 and ((low <= WEIGHTS) & (np.array(WEIGHTS) <= high)).all(), counts
    # each seat played the row it names: only row 1 hedges, only row 2 manipulates
    by_row = seats.groupby("mix_row")[["hedges_placed", "manipulations"]].sum()
    assert by_row.loc[0].tolist() == [0, 0]
    assert by_row.loc[1, "hedges_placed"] > 0 and by_row.loc[1, "manipulations"] == 0
    assert by_row.loc[2, "hedges_placed"] == 0 and by_row.loc[2, "manipulations"] > 0
    # the rows are those of the documented draw: (run seed, MIX_TAG), match id, seat
    for seat in range(4):
        at = seats[seats["seat"] == seat].sort_values("match")
        np.testing.assert_array_equal(
            at["mix_row"], draw_rows(WEIGHTS, (7, MIX_TAG), at["match"].to_numpy(), seat))
    mx = A.mixture_rows(A.load_run(out))
    assert mx["row"].tolist() == [0, 1, 2] and mx["seats"].tolist() == counts.tolist()
    assert np.allclose(mx["weight"], WEIGHTS) and np.allclose(mx["share"], counts / 3600)
    np.testing.assert_allclose(mx[["share_low", "share_high"]].to_numpy().T,
                               wilson_interval(counts, 3600))


def test_a_one_row_file_plays_exactly_as_its_parameters_given_inline(tmp_path):
    params = {"preset": "hedger", "hedge": 2.5, "bluff": 0.1}
    (tmp_path / "train").mkdir()
    write_agent_file(tmp_path / "train" / "one.toml", [params], [1.0], TRAINING)
    (tmp_path / "train" / "aot.toml").write_text(
        "[[agent]]\nweight = 3\n" + "".join(f"{k} = {v!r}\n".replace("'", '"')
                                            for k, v in params.items()))
    inline = "{" + ", ".join(f'{k} = {json.dumps(v)}' for k, v in params.items()) + "}"
    runs = {}
    for name, seat in (("inline", inline), ("file", '"@train/one.toml"'),
                       ("aot", '"@train/aot.toml"')):
        path = scenario(tmp_path, f'rotate = [{seat}, "rock", "maniac"]', log_sample=5,
                        name=f"{name}.toml")
        spec = load_scenario(path).seats[0]
        assert not getattr(spec, "is_mixture", False)
        runs[name] = tmp_path / name
        run_scenario(load_scenario(path), runs[name], workers=1)
    plain = sorted_tables(runs["inline"])
    for name in ("file", "aot"):
        other = sorted_tables(runs[name])
        for table in plain:  # the same bytes but the label of the seat
            a, b = plain[table], other[table]
            for col in ("preset", "winner_preset"):
                if col in a:
                    a, b = a.drop(columns=col), b.drop(columns=col)
            pd.testing.assert_frame_equal(a, b, obj=f"{name} {table}")
        label = "trained(baseline)" if name == "file" else "trained(aot)"  # no [training]
        assert set(other["seats"]["preset"]) == {label, "rock", "maniac"}
    assert (plain["seats"]["mix_row"] == -1).all()


def test_mixture_runs_are_the_same_bytes_with_any_workers_log_chunking_or_extension(
        tmp_path, mix, real_workers, monkeypatch):
    from nop_sim.run import planning

    seats = 'rotate = ["@train/strong.toml", "balanced", "@train/strong.toml", "rock"]'
    path = scenario(tmp_path, seats, players=3, matches=36, chunk=6, log_sample=5)
    scn = load_scenario(path)
    one, two = tmp_path / "one", tmp_path / "two"
    run_scenario(scn, one, workers=1)
    run_scenario(scn, two, workers=2)
    assert_same_tables(one, two)
    s = sorted_tables(one)["seats"]
    assert (s["mix_row"] >= 0).any() and set(s.loc[s["mix_row"] >= 0, "preset"]) == {
        "trained(baseline)"}
    assert (s.loc[s["preset"] != "trained(baseline)", "mix_row"] == -1).all()
    # the log changes nothing: logged batches play the rows the others do
    plain = tmp_path / "plain"
    run_scenario(load_scenario(path, ["run.log_sample=0"]), plain, workers=1)
    for name in ("matches", "seats", "drafts", "counts"):
        pd.testing.assert_frame_equal(sorted_tables(one)[name], sorted_tables(plain)[name])
    assert len(sorted_tables(one)["events"])
    # other chunks play other cards, but every match draws the same rows
    rechunked = tmp_path / "rechunked"
    run_scenario(load_scenario(path, ["run.chunk=5"]), rechunked, workers=1)
    r = sorted_tables(rechunked)["seats"]
    np.testing.assert_array_equal(r.sort_values(["match", "seat"])["mix_row"],
                                  s.sort_values(["match", "seat"])["mix_row"])
    # extended with more matches: the first run's chunks are kept, the whole is as fresh
    monkeypatch.setattr(planning, "PART_SECONDS", 0.0)  # a chunk a part
    grown = tmp_path / "grown"
    run_scenario(load_scenario(path, ["run.matches=18"]), grown, workers=1)
    res = run_scenario(load_scenario(path), grown, workers=1)
    assert res.reused == 3 and res.computed == 3
    assert_same_tables(grown, one)
    # resumed after losing a part: the same bytes
    parts = sorted((grown / "chunks").glob("p*"))
    shutil.rmtree(parts[1])
    res = run_scenario(scn, grown, workers=1, resume=True)
    assert res.computed == 1
    assert_same_tables(grown, one)


def test_mixture_runs_on_dask_are_the_local_bytes(tmp_path, mix, dask_cluster):
    path = scenario(tmp_path, 'rotate = ["@train/strong.toml", "rock"]', matches=24, chunk=4,
                    log_sample=7)
    scn = load_scenario(path)
    run_scenario(scn, tmp_path / "dask", scheduler=dask_cluster)
    run_scenario(scn, tmp_path / "local", workers=1)
    assert_same_tables(tmp_path / "dask", tmp_path / "local")
    assert (sorted_tables(tmp_path / "local")["seats"]["mix_row"] >= 0).any()


# ---------------------------------------------------------------------------
# Reading: hands, summary, report
# ---------------------------------------------------------------------------
def test_hands_name_the_row_each_mixture_seat_played(tmp_path, mix):
    path = scenario(tmp_path, 'seat = ["rock", "@train/strong.toml", "@train/strong.toml"]',
                    matches=40, chunk=10, log_sample=3)
    out = tmp_path / "out"
    code, output = invoke("run", path, "--out", out, "--workers", 1, "-q", "--no-report")
    assert code == 0, output
    seats = load_tables(out)["seats"]
    for match in (0, 3, 39):
        res = CliRunner().invoke(main, ["hands", str(out), "--match", str(match)])
        assert res.exit_code == 0, res.output
        rows = seats[seats["match"] == match].sort_values("seat")["mix_row"].tolist()
        assert rows[0] == -1 and min(rows[1:]) >= 0
        assert "Dealt to Seat 0 (rock):" in res.output
        for seat in (1, 2):
            assert f"Dealt to Seat {seat} (trained(baseline) row {rows[seat]}):" in res.output
    # fresh hands of the scenario: each match's rows, drawn as a run draws them
    res = CliRunner().invoke(main, ["hands", str(path), "--count", "30"])  # 12 hands a match at most
    assert res.exit_code == 0, res.output
    scn = load_scenario(path)
    parts = re.split(r"(?m)^=== Match (\d+): ", res.output)
    assert len(parts) > 3  # more than one match: rows drawn match by match
    for match, block in zip(map(int, parts[1::2]), parts[2::2], strict=True):
        rows = mix_rows(scn.seed, scn.seat_specs({}, 0), np.array([match]))[0]
        assert f"Dealt to Seat 1 (trained(baseline) row {rows[1]})" in block
        assert f"Dealt to Seat 2 (trained(baseline) row {rows[2]})" in block
    # the referee replays matches of a mixture, each seating the rows drawn for it
    assert get_game(scn.kind).referee(scn.settings, scn.seat_specs({}, 0), 3, scn.seed) == 3


def test_the_summary_and_the_report_name_the_rows_beside_their_weights(tmp_path, mix):
    path = scenario(tmp_path, 'seat = ["rock", "@train/strong.toml", "@train/strong.toml"]',
                    matches=40, chunk=10)
    out = tmp_path / "out"
    code, output = invoke("run", path, "--out", out, "--workers", 1, "-q")
    assert code == 0, output
    assert "trained(baseline): " in output and "a mixture of 3 rows, weights 0.5, 0.3, 0.2" in output
    summary = (out / "summary.md").read_text()
    assert "Mixture rows" in summary and "| trained(baseline) | 0 | 0.500 |" in summary
    report = (out / "report.md").read_text()
    assert "Mixture rows" in report and "| agent | row | weight | seats played |" in report
    assert "a mixture of 3 rows drawn per match (weights 0.5, 0.3, 0.2" in report
    assert "exploitability at training: 0.8" in report  # the file as trained: it applies
    csv = pd.read_csv(out / "tables" / "mixture_rows.csv")
    assert csv["seats"].sum() == 80 and csv["row"].tolist() == [0, 1, 2]
    (record,) = json.loads((out / "manifest.json").read_text())["agent_files"]
    assert record["rows"] == ROWS and record["weights"] == WEIGHTS


def test_a_run_without_a_mixture_says_nothing_of_mixtures(tmp_path):
    path = scenario(tmp_path, 'rotate = ["rock", "balanced"]', matches=8, chunk=4)
    out = tmp_path / "out"
    assert invoke("run", path, "--out", out, "--workers", 1, "-q")[0] == 0
    assert "Mixture rows" not in (out / "summary.md").read_text()
    assert "Mixture rows" not in (out / "report.md").read_text()
    assert A.mixture_rows(A.load_run(out)).empty


# ---------------------------------------------------------------------------
# An agent file as the base of a table
# ---------------------------------------------------------------------------
def test_an_agent_file_with_overrides_plays_every_row_changed_and_claims_no_exploitability(
        tmp_path, mix):
    seats = 'seat = [{preset = "@train/strong.toml", manipulate = 0}, "@train/strong.toml", "rock"]'
    path = scenario(tmp_path, seats, matches=60, chunk=20)
    scn = load_scenario(path)
    changed, plain, _ = scn.seat_specs({}, 0)
    assert changed.label == "trained(baseline)(manipulate=0)" and plain.label == "trained(baseline)"
    assert changed.is_mixture and changed.weights == tuple(WEIGHTS)
    assert all(row["manipulate"] == 0 for row in changed.rows)
    assert [row["hedge"] for row in changed.rows] == [r["hedge"] for r in ROWS]
    assert [f.label for f in scn.agent_files] == ["trained(baseline)(manipulate=0)",
                                                  "trained(baseline)"]
    text = training_text(changed.training, changed.overrides)
    assert "manipulate=0" in text and "does not apply" in text and "0.8" not in text
    out = tmp_path / "out"
    code, output = invoke("run", path, "--out", out, "--workers", 1, "-q")
    assert code == 0, output
    line = next(x for x in output.splitlines() if x.startswith("trained(baseline)(manipulate=0)"))
    assert "does not apply" in line and "exploitability at training" not in line
    seats_t = load_tables(out)["seats"]
    at0 = seats_t[seats_t["seat"] == 0]
    assert (at0["preset"] == "trained(baseline)(manipulate=0)").all()
    assert at0["manipulations"].sum() == 0 and (at0["mix_row"] == 2).any()
    at1 = seats_t[(seats_t["seat"] == 1) & (seats_t["mix_row"] == 2)]
    assert at1["manipulations"].sum() > 0  # the file's own row 2 does manipulate
    records = {r["label"]: r for r in json.loads((out / "manifest.json").read_text())[
        "agent_files"]}
    record = records["trained(baseline)(manipulate=0)"]
    assert record["overrides"] == {"manipulate": 0} and record["exploitability_applies"] is False
    assert "overrides" not in records["trained(baseline)"]
    report = (out / "report.md").read_text()
    note = next(x for x in report.splitlines() if "**trained(baseline)(manipulate=0)**" in x)
    assert "does not apply" in note and "exploitability at training" not in note
    # a one-row file with an override: the row changed, the label says so
    one = write_agent_file(tmp_path / "train" / "one.toml", [ROWS[2]], [1], TRAINING)
    scn = load_scenario(path, [f'seats.all={{preset = "@{one}", hedge = 1.5}}'])
    (seat,) = scn.seats
    assert seat.label == "trained(baseline)(hedge=1.5)" and seat["hedge"] == 1.5
    assert seat["manipulate"] == 5.0 and seat.record()["params"]["hedge"] == 1.5
    # a bad override names the parameter and the file
    with pytest.raises(ScenarioError, match=r"manipulat'.*Did you mean 'manipulate'"):
        load_scenario(path, ['seats.all={preset = "@train/strong.toml", manipulat = 0}'])
    with pytest.raises(ScenarioError, match="agent file nowhere.toml not found"):
        load_scenario(path, ['seats.all={preset = "@nowhere.toml", hedge = 1}'])


def test_the_tables_of_a_part_are_told_apart_as_numpy_tells_rows_apart():
    # match_tables reads each (rotation, mixture rows) record as one number: the distinct
    # records and each match's one must be np.unique(axis=0)'s, in its order, for any
    # number of seats and rows (and the records too wide for one number)
    from nop_sim.games.new_order.seats import _distinct_rows

    rng = np.random.default_rng(5)
    cases = [np.column_stack([rng.integers(0, 4, n), rng.integers(-1, k, (n, p))])
             for n, p, k in [(0, 4, 3), (1, 1, 1), (500, 4, 6), (300, 8, 40), (50, 2, 1)]]
    wide = np.full((6, 9), 2000, np.int64)
    wide[::2, 3] = -1
    for rows in [*cases, wide]:
        rows = rows.astype(np.int64)
        want, want_of = np.unique(rows, axis=0, return_inverse=True)
        got, got_of = _distinct_rows(rows)
        assert np.array_equal(got, want)
        assert np.array_equal(got_of.reshape(-1), want_of.reshape(-1))
