"""Every registered game through the whole pipeline, one test body for all of them.

The pattern of OpenSpiel's ``games_sim_test.py``: the tests are parametrized
over the registry, so a new game is covered by registering it. The
test-only game ``high card wins`` (``tests/highcard_game.py``) is registered
here by importing its module, and proves that a game needs nothing else.
"""

from __future__ import annotations

import hashlib
import json
import pickle
from pathlib import Path

import highcard_game  # noqa: F401  (registers the test-only game "high-card")
import pandas as pd
import pytest
import tomli_w
from click.testing import CliRunner

from nop_sim.cli import main
from nop_sim.games import get_game, registered_games
from nop_sim.results.match_log import run_game
from nop_sim.results.store import load_tables
from nop_sim.results.summary import write_summary
from nop_sim.run.runner import run_scenario
from nop_sim.run.scenario import Scenario, load_scenario

GAMES = [g.kind for g in registered_games()]
# 24 matches: the Ordered Hand report fails on fewer (a degenerate first-player interval)
RUN = {"matches": 24, "chunk": 8, "seed": 11, "log_sample": 2}


def test_the_shipped_games_and_the_test_game_are_registered():
    assert {"new-order", "ordered-hand", "high-card"} <= set(GAMES)


@pytest.fixture(scope="module", params=GAMES)
def tiny(request, tmp_path_factory) -> tuple[Scenario, Path]:
    """A tiny scenario of each game with its defaults, as a file."""
    kind = request.param
    folder = tmp_path_factory.mktemp(kind)
    path = folder / "tiny.toml"
    path.write_text(tomli_w.dumps({"name": f"tiny-{kind}", "game": {"kind": kind}, "run": RUN}))
    return load_scenario(path), folder


def _bytes(out: Path) -> dict[str, str]:
    """sha256 of every table of a run folder as read back, column by column (its parts
    are cut by the time chunks take, so its chunks/ folder may differ between runs)."""
    game = run_game(out)
    tables = load_tables(out, (*game.tables, *game.summed_tables))
    digests = {}
    for name, frame in tables.items():
        h = hashlib.sha256(repr((list(frame.columns), list(map(str, frame.dtypes)))).encode())
        for column in frame.columns:
            values = frame[column]
            if isinstance(values.dtype, pd.CategoricalDtype):
                h.update(repr(list(values.cat.categories)).encode())
                values = values.cat.codes
            elif not pd.api.types.is_numeric_dtype(values.dtype):  # text: its values' hash
                values = pd.util.hash_pandas_object(values, index=False)
            h.update(values.to_numpy().tobytes())
        digests[name] = h.hexdigest()
    return digests


def _cli(*args) -> tuple[int, str]:
    res = CliRunner().invoke(main, [str(a) for a in args])
    return res.exit_code, res.output


def test_settings_and_scenario_survive_a_pickle_round_trip(tiny):
    scn, _ = tiny
    assert pickle.loads(pickle.dumps(scn.settings)) == scn.settings
    again = pickle.loads(pickle.dumps(scn))
    assert again.settings_at(again.points()[0]) == scn.settings
    assert pickle.loads(pickle.dumps(scn.game_type.play_chunk)) is scn.game_type.play_chunk


def test_run_store_summary_report_and_hands(tiny):
    scn, folder = tiny
    game = scn.game_type
    out = folder / "one"
    result = run_scenario(scn, out, workers=1)
    assert result.n_matches == RUN["matches"] and result.work == game.work
    # the store holds exactly the game's tables, each row once: in the parts
    declared = {*game.tables, *game.summed_tables}
    assert not list(out.glob("*.parquet"))
    for chunk in (out / "chunks").iterdir():
        assert {p.stem for p in chunk.glob("*.parquet")} == declared
    tables = load_tables(out)
    assert set(tables) == set(game.result_tables)
    assert len(tables["matches"]) == RUN["matches"]
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["scenario"]["kind"] == game.kind
    assert manifest["totals"][game.work] == result.n_work
    # summary and report, through the command line
    code, output = _cli("report", out)
    assert code == 0, output
    summary = write_summary(out)
    assert "fair" in summary.read_text()
    assert "report:" in output
    # hand histories: fresh from the scenario file, and stored in the folder
    code, output = _cli("hands", folder / "tiny.toml", "--count", 2)
    assert code == 0 and output.strip(), output
    code, output = _cli("hands", out, "--match", 0)
    assert code == 0 and output.strip(), output
    if game.replay_chunk is not None:  # any match plays again from the run's seed
        code, output = _cli("hands", out, "--match", 1)
        assert code == 0 and output.strip(), output
        code, output = _cli("hands", out, "--match", RUN["matches"])  # past the last
    else:
        code, output = _cli("hands", out, "--match", 1)  # not logged
    assert code == 1 and len(output.strip().splitlines()) == 1, output


def test_same_seed_same_bytes_and_worker_count_changes_nothing(tiny, real_workers):
    scn, folder = tiny
    one, again, two = folder / "a", folder / "b", folder / "c"
    run_scenario(scn, one, workers=1)
    run_scenario(scn, again, workers=1)
    run_scenario(scn, two, workers=2)
    assert _bytes(one) == _bytes(again) == _bytes(two)
    assert len(_bytes(one)) > len(scn.game_type.tables)


def test_the_referee_replays_the_game(tiny):
    scn, _ = tiny
    point = scn.points()[0]
    specs = scn.seat_specs(point, 0)
    assert scn.game_type.referee(scn.settings_at(point), specs, 3, scn.seed) == 3


def test_a_bad_setting_is_one_line_exit_2(tiny):
    scn, folder = tiny
    path = folder / "bad.toml"
    path.write_text(tomli_w.dumps({"game": {"kind": scn.kind, "players": 99}}))
    code, output = _cli("run", path, "--out", folder / "bad")
    assert code == 2 and "players" in output, output
    assert get_game(scn.kind).kind == scn.kind
