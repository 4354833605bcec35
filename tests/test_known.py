"""Deviations known to beat a strong field (nop_sim.studies.train.known): kept beside the
field by train and exploit, dropped when the field changes, and every value search starts
from them (issue 20: value's own searches found a deviation gaining -2.3 points against a
field its training's final search had beaten by +8.1).
"""

from __future__ import annotations

import json
import shutil

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from nop_sim.cli import main
from nop_sim.games.new_order import types as T
from nop_sim.games.new_order.agents import agent_row
from nop_sim.games.new_order.settings import Settings
from nop_sim.run.scenario import load_scenario
from nop_sim.studies.train import Engine, Field, SearchConfig
from nop_sim.studies.train.errors import TrainError
from nop_sim.studies.train.known import FILE, MOST, field_key, known_rows, record_deviation
from nop_sim.studies.train.value import free_search, load_strong

NAMES = T.AGENT_PARAM_NAMES
FIELD = Field.pure(agent_row({"preset": "balanced", "hedge": 0.0}))
OTHER = Field.pure(agent_row({"preset": "rock"}))


def _row(**changes) -> np.ndarray:
    return agent_row({"preset": "balanced", **changes})


def test_deviations_are_kept_largest_first_and_only_for_their_field(tmp_path):
    a, b = _row(bluff=0.9), _row(hedge=20.0)
    assert known_rows(tmp_path, FIELD, NAMES).shape == (0, len(NAMES))   # no file: none
    assert record_deviation(tmp_path, FIELD, NAMES, a, 3.0, 2.0, 4.0, "exploit")
    assert record_deviation(tmp_path, FIELD, NAMES, b, 7.0, 6.0, 8.0, "train")
    rows = known_rows(tmp_path, FIELD, NAMES)
    assert np.array_equal(rows, np.stack([b, a]))                          # largest first
    # the same row again: kept once, with the larger gain
    assert not record_deviation(tmp_path, FIELD, NAMES, a, 2.5, 1.0, 4.0, "again")
    assert record_deviation(tmp_path, FIELD, NAMES, a, 9.0, 8.0, 10.0, "larger")
    saved = json.loads((tmp_path / FILE).read_text())
    assert [e["found_by"] for e in saved["deviations"]] == ["larger", "train"]
    assert saved["field"] == field_key(FIELD) and set(saved["deviations"][0]["row"]) == set(NAMES)
    # another field (trained again, edited) reads none, and its first deviation replaces them
    assert known_rows(tmp_path, OTHER, NAMES).shape == (0, len(NAMES))
    assert record_deviation(tmp_path, OTHER, NAMES, a, 1.0, 0.5, 1.5, "other")
    assert len(known_rows(tmp_path, OTHER, NAMES)) == 1
    assert len(known_rows(tmp_path, FIELD, NAMES)) == 0
    # at most MOST, the largest gains
    for i in range(MOST + 3):
        record_deviation(tmp_path, OTHER, NAMES, _row(noise=i / 100), float(i), 0.1, 50.0, "x")
    gains = [e["gain"] for e in json.loads((tmp_path / FILE).read_text())["deviations"]]
    assert len(gains) == MOST and gains == sorted(gains, reverse=True) and min(gains) > 1.0


def test_a_field_read_back_with_its_last_bits_moved_is_the_same_field():
    """strong.toml's weights are normalised again on every read, which can move a last
    bit; exploit's rewrite of its [training] must not make the kept deviations another
    field's (a 2M field's training deviation was dropped that way)."""
    rows = np.stack([_row(bluff=0.1), _row(bluff=0.2), _row(bluff=0.3)])
    w = np.array([0.07, 0.14, 0.79])
    nudged = w * (1 + 2.0**-52)
    assert not np.array_equal(w, nudged)
    assert field_key(Field(rows, w)) == field_key(Field(rows, nudged))
    assert field_key(Field(rows, w)) != field_key(Field(rows, np.array([0.08, 0.13, 0.79])))
    assert field_key(Field(rows, w)) != field_key(Field(rows[::-1], w))


@pytest.mark.parametrize("text", ["{", '{"field": "x"}', '{"field": "x", "deviations": [1]}',
                                  '{"field": 3, "deviations": []}'])
def test_an_unreadable_deviations_file_is_named_and_replaced_by_a_new_finding(tmp_path, text):
    (tmp_path / FILE).write_text(text)
    with pytest.raises(TrainError, match=FILE + ".*remove it"):
        known_rows(tmp_path, FIELD, NAMES)
    assert record_deviation(tmp_path, FIELD, NAMES, _row(bluff=0.9), 3.0, 2.0, 4.0, "exploit")
    assert len(known_rows(tmp_path, FIELD, NAMES)) == 1


def test_the_free_search_races_a_known_deviation_and_its_corners():
    """A known row joins the screen and the selection, so the search's pool holds it: a
    search too small to find it still ends with it."""
    s = Settings(players=4, chips=40, max_hands=40, hedge_cost=0, hedge_payout=50,
                 promotions_per_action=0, disruptors="none")
    tiny = SearchConfig(runs=1, generations=1, random_starts=0, screen=(8,), race=(4,),
                        select=16, check_batch=16, check_max=16)
    known = _row(hedge=37.0, bluff=0.61, noise=0.013)[None, :]  # nothing a search would make
    with_known = free_search(Engine(threads=1), s, FIELD, tiny, 3, known)
    without = free_search(Engine(threads=1), s, FIELD, tiny, 3)
    assert any(np.allclose(r, known[0]) for r in with_known.pool)
    assert not any(np.allclose(r, known[0]) for r in without.pool)


SMALL = """
name = "small"
[game]
players = 3
chips = 40
max_hands = 40
[seats]
all = "station"
[run]
matches = 60
seed = 5
chunk = 30
"""


def _cli(args):
    return CliRunner().invoke(main, args)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """A small training for SMALL's rules, from a field of calling stations that its
    final search beats by far: (scenario path, training folder)."""
    folder = tmp_path_factory.mktemp("known")
    path = folder / "small.toml"
    path.write_text(SMALL)
    r = _cli(["train", str(path), "--budget-matches", "2000", "--out", str(folder / "t"),
              "--quiet", "--no-report", "--workers", "1"])
    assert r.exit_code == 0, r.output
    return path, folder / "t"


def test_train_and_exploit_keep_their_deviation_and_value_starts_from_it(tmp_path, trained):
    """train keeps its final pick, exploit its check's pick (where they beat the field);
    value's saved rows name the deviations they started from, and are measured again when
    a new one is known."""
    from nop_sim.studies.train.value import record_check, record_found

    path, src = trained
    out = tmp_path / "t"
    shutil.copytree(src, out)
    scn = load_scenario(path, ["run.seed=7"])
    settings = scn.settings_at(scn.points()[0])
    fld, training = load_strong(out, settings)
    kept = known_rows(out, fld, NAMES)
    state = json.loads((out / "state.json").read_text())
    assert training["exploitability_low"] > 10 and len(kept) == 1
    assert np.allclose(kept[0], state["final"]["deviation"])
    r = _cli(["value", str(path), "--strong", str(out), "--budget-matches", "3000",
              "--mechanic", "hedging", "--quiet", "--workers", "1"])
    assert r.exit_code == 0, r.output
    said = json.loads((out / "value.json").read_text())["identity"]
    assert np.allclose(said["known"], kept)
    # the kept deviation is in the pool: the free pick gains about as much, up to noise
    assert pd.read_parquet(out / "value.parquet")["gain_full_high"].iloc[0] >= \
        training["exploitability_low"] - 5

    class Found:  # what nop-sim exploit's search returns, as far as the record reads
        matches, starts = 123_456, 42

        def __init__(self, row, points):
            self.row = row
            self.gain, self.low, self.high = points / 100, (points - 1) / 100, (points + 1) / 100

    planted = _row(hedge=30.0, bluff=0.7)
    assert not record_found(scn, out, Found(planted, 0.5), 500_000)   # cannot tell from 0
    # as nop-sim exploit does: strong.toml's [training] states the larger bound, then the
    # deviation is kept beside the training's (the field read back is the same field)
    assert record_check(scn, out, Found(planted, 60.0), 500_000)
    assert record_found(scn, out, Found(planted, 60.0), 500_000)
    saved = json.loads((out / FILE).read_text())["deviations"]
    assert len(saved) == 2 and saved[0]["gain"] == 60.0
    assert "--seed 7 --budget-matches 500000" in saved[0]["found_by"]
    assert "nop-sim train" in saved[1]["found_by"]
    # the saved value is measured again, from the new deviation too
    r = _cli(["value", str(path), "--strong", str(out), "--budget-matches", "3000",
              "--mechanic", "hedging", "--quiet", "--workers", "1"])
    assert r.exit_code == 0, r.output
    assert "replaced the saved values of hedging" in r.output and "known deviations" in r.output
    said = json.loads((out / "value.json").read_text())["identity"]
    assert np.allclose(said["known"][0], planted)
    assert list(pd.read_parquet(out / "value.parquet")["mechanic"]) == ["hedging"]
    # the training report value rewrote leads with the largest known bound, not the training's
    report = (out / "report.md").read_text()
    assert "An independent check found more since: a deviation gains at least 60.0 points" \
        in report and "--seed 7 --budget-matches 500000" in report
    # a broken file is one line, naming it, and nothing saved is lost
    (out / FILE).write_text("{")
    r = _cli(["value", str(path), "--strong", str(out), "--budget-matches", "3000",
              "--quiet", "--workers", "1"])
    assert r.exit_code == 1 and FILE in r.output and "Traceback" not in r.output, r.output
    assert list(pd.read_parquet(out / "value.parquet")["mechanic"]) == ["hedging"]


def test_a_field_copied_without_its_deviations_is_valued_from_its_own_starts(tmp_path,
                                                                              trained):
    """A strong.toml alone (shipped, copied) has no deviations.json: value runs as before."""
    path, src = trained
    bare = tmp_path / "bare"
    bare.mkdir()
    shutil.copyfile(src / "strong.toml", bare / "strong.toml")
    r = _cli(["value", str(path), "--strong", str(bare), "--budget-matches", "3000",
              "--mechanic", "hedging", "--quiet", "--workers", "1"])
    assert r.exit_code == 0, r.output
    assert json.loads((bare / "value.json").read_text())["identity"]["known"] == []


def test_exploit_that_finds_more_rewrites_the_training_report(tmp_path, trained):
    """The training report never lags behind strong.toml: a check that found more than the
    file claimed is stated there at once (a report that led with the training's bound while
    strong.toml held a check's twice as large promised less than was known)."""
    import tomllib

    import tomli_w

    path, src = trained
    out = tmp_path / "t"
    shutil.copytree(src, out)
    # lower the file's claim so that whatever this small check finds is more
    f = tomllib.loads((out / "strong.toml").read_text())
    f["training"]["exploitability"] = -90.0
    (out / "strong.toml").write_text(tomli_w.dumps(f))
    assert not (out / "report.md").exists()  # trained with --no-report
    r = _cli(["exploit", str(path), "--strong", str(out), "--budget-matches", "3000",
              "--seed", "3", "--quiet", "--workers", "1"])
    assert r.exit_code == 0, r.output
    assert "recorded in" in r.output and "report:" in r.output
    found = tomllib.loads((out / "strong.toml").read_text())["training"]
    report = (out / "report.md").read_text()
    assert (f"An independent check found more since: a deviation gains at least "
            f"{found['checked_exploitability']:.1f} points") in report
    assert "--seed 3 --budget-matches 3000" in report
