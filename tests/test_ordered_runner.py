"""The Ordered Hand game through the runner, the CLI and its report."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from nop_sim.cli import main
from nop_sim.games.ordered_hand.chunks import _places
from nop_sim.games.ordered_hand.game import GAME
from nop_sim.games.ordered_hand.report import SECTIONS
from nop_sim.games.ordered_hand.settings import OrderedSettings
from nop_sim.results.store import load_tables
from nop_sim.run.runner import plan_chunks, run_chunk, run_scenario
from nop_sim.run.scenario import ScenarioError, load_scenario

ROOT = Path(__file__).resolve().parents[1]
TABLES = (*GAME.tables, *GAME.summed_tables)  # the Ordered Hand store, and nothing else
SCENARIO = ROOT / "scenarios" / "ordered_hand.toml"
SWEEP = ROOT / "scenarios" / "ordered_hand_sweep.toml"
BETTING = ["players=2", "betting=true", 'seats.rotate=["bettor", "raiser"]']


def _cli(*args: str):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def _sets(items):
    return [x for item in items for x in ("--set", item)]


def test_settings_named_like_the_new_order_settings():
    assert "hand_size" in OrderedSettings.field_names()
    s = OrderedSettings.from_mapping({"players": 3}, source="x.toml: [game]")
    assert s.to_dict()["players"] == 3
    with pytest.raises(ValueError, match=r"^x\.toml: \[game\]: unknown .*hand_sise.*hand_size"):
        OrderedSettings.from_mapping({"hand_sise": 3}, source="x.toml: [game]")


def test_both_scenarios_load():
    scn = load_scenario(SCENARIO)
    assert scn.kind == "ordered-hand" and scn.rotate and scn.settings.players == 4
    sweep = load_scenario(SWEEP)
    points = sweep.points()
    assert {p["hand_size"] for p in points} == {3, 5, 7}
    assert {p["players"] for p in points} == {2, 3, 4, 5, 6}


def test_chunk_tables_have_the_store_shapes():
    scn = load_scenario(SCENARIO, ["run.matches=40", "run.chunk=20"])
    chunk = plan_chunks(scn)[1]
    tables = run_chunk(scn, chunk)
    assert set(tables) == set(TABLES) and "drafts" not in tables
    m, s = tables["matches"], tables["seats"]
    assert len(m) == 20 and len(s) == 80
    assert m["match"].tolist() == list(range(20, 40))
    assert (m["point"] == 0).all() and (m["rotation"] == m["match"] % 4).all()
    assert set(m["end"]) <= {"emptied", "stock_out", "shared", "capped"}
    # exactly the winners hold place 1
    assert ((s["place"] == 1) == s["won"]).all()
    assert s.groupby("match")["won"].sum().tolist() == m["n_winners"].tolist()
    c = tables["counts"]
    assert c["turns"].iloc[0] == m["turns"].sum() and c["n_matches"].iloc[0] == 20
    assert not {"hands", "unresolved"} & set(m)  # no New Order stand-ins
    a = tables["arrays"]
    per_cat = a[a["stat"] == "category"]["value"].sum()
    assert per_cat == a[a["stat"] == "size"]["value"].sum() == m["plays"].sum()
    # same chunk, same rows
    again = run_chunk(scn, chunk)
    for name in TABLES:
        pd.testing.assert_frame_equal(tables[name], again[name])


def test_places():
    won = np.array([[False, True, False], [True, True, False]])
    left = np.array([[5, 2, 3], [1, 1, 4]])
    assert _places(won, left).tolist() == [[3, 1, 2], [1, 1, 3]]


def test_worker_count_changes_nothing(tmp_path, real_workers):
    scn = load_scenario(SCENARIO, ["run.matches=240", "run.chunk=60"])
    run_scenario(scn, tmp_path / "one", workers=1)
    run_scenario(scn, tmp_path / "two", workers=2)
    one, two = load_tables(tmp_path / "one", TABLES), load_tables(tmp_path / "two", TABLES)
    for name in TABLES:
        keys = [k for k in ("point", "chunk", "match", "seat", "table", "stat", "index")
                if k in one[name]]
        a = one[name].sort_values(keys, ignore_index=True) if keys else one[name]
        b = two[name].sort_values(keys, ignore_index=True) if keys else two[name]
        pd.testing.assert_frame_equal(a, b)


def _report_checks(out: Path, sections):
    html = (out / "report.html").read_text()
    md = (out / "report.md").read_text()
    for key in sections:
        assert f'id="{key}"' in html
    n_images = html.count("data:image/png;base64,")
    figures = sorted((out / "figures").glob("ordered_*.png"))
    assert n_images == len(figures) >= len(sections) - 1  # the overview has no figure
    for fig in figures:
        assert fig.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert f"figures/{fig.name}" in md


def test_run_scenario_through_the_cli_with_report(tmp_path):
    out = tmp_path / "oh"
    r = _cli("run", SCENARIO, "--matches", 120, "--set", "run.chunk=60", "--workers", 1,
             "--out", out, "-q")
    assert r.exit_code == 0, r.output
    assert "120 matches" in r.output and "report:" in r.output
    assert json.loads((out / "manifest.json").read_text())["scenario"]["kind"] == "ordered-hand"
    _report_checks(out, [s for s in SECTIONS if s != "betting"])
    assert 'id="betting"' not in (out / "report.html").read_text()
    assert "Win rate by preset" in (out / "summary.md").read_text()
    # the report command rebuilds it
    r = _cli("report", out)
    assert r.exit_code == 0 and "report.html" in r.output


def test_betting_run_reports_the_bettor(tmp_path):
    out = tmp_path / "bet"
    r = _cli("run", SCENARIO, "--matches", 100, *_sets(BETTING + ["run.chunk=50"]),
             "--workers", 1, "--out", out, "-q")
    assert r.exit_code == 0, r.output
    _report_checks(out, SECTIONS)
    assert "made good" in (out / "report.md").read_text()


def test_sweep_scenario_through_the_cli(tmp_path):
    out = tmp_path / "sweep"
    r = _cli("sweep", SWEEP, "--matches", 8, "--workers", 1, "--out", out, "-q")
    assert r.exit_code == 0, r.output
    m = load_tables(out)["matches"]
    assert m["point"].nunique() == 15 and len(m) == 15 * 8
    assert set(zip(m["hand_size"], m["players"], strict=True)) == {
        (h, p) for h in (3, 5, 7) for p in (2, 3, 4, 5, 6)}
    _report_checks(out, [s for s in SECTIONS if s != "betting"])


def test_hands_prints_ordered_histories(tmp_path):
    log = tmp_path / "events.jsonl"
    r = _cli("hands", SCENARIO, "--count", 2, "--json", log)
    assert r.exit_code == 0, r.output
    assert r.stdout.count("Game ") == 2 and "moves first" in r.output
    assert "End after" in r.output
    events = [json.loads(line) for line in log.read_text().splitlines()]
    assert {e["game"] for e in events} == {0, 1} and events[-1]["event"] == "end"
    r = _cli("hands", SCENARIO, "--count", 1, *_sets(BETTING), "--seed", 3)
    assert r.exit_code == 0 and "advanced rules" in r.output


@pytest.mark.parametrize("override, words", [
    ("hand_size=0", "hand_size=0"),
    ("players=1", "players=1"),
    ("players=7", "players=7"),
    ("betting=true", "players=2"),
    ('column="Two Pair > Nothing"', "column="),
    ("hand_sise=5", "hand_size"),
    ('seats.rotate=["low", "sneaky"]', "sneaky"),
])
def test_bad_input_is_one_clear_line(tmp_path, override, words):
    r = CliRunner().invoke(main, ["run", str(SCENARIO), "--set", override, "--out",
                                  str(tmp_path / "x"), "-q"])
    assert r.exit_code == 2, r.output
    errors = [line for line in r.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and words in errors[0], r.output
    assert "Traceback" not in r.output
    assert not (tmp_path / "x").exists()
    with pytest.raises(ScenarioError):
        load_scenario(SCENARIO, [override])


@pytest.mark.parametrize("chunk", [1, 2, 3, 4, 5, 8, 10])
def test_every_preset_sits_in_every_seat_equally_often(chunk):
    # The shipped chunk sizes are multiples of 4: a rotation per chunk would
    # leave every preset in one seat. Seats rotate per game, whatever the chunk.
    scn = load_scenario(SCENARIO, ["run.matches=10", f"run.chunk={chunk}"])
    seats = pd.concat([run_chunk(scn, c)["seats"] for c in plan_chunks(scn)])
    counts = pd.crosstab(seats["seat"], seats["preset"])
    assert counts.shape == (4, 4)
    assert counts.to_numpy().min() >= 2 and counts.to_numpy().max() <= 3, counts
    # game g seats rotation g % 4, recorded beside it
    matches = pd.concat([run_chunk(scn, c)["matches"] for c in plan_chunks(scn)])
    assert (matches["rotation"] == matches["match"] % 4).all()
