"""Strong play against a field that bets by a table (a field trained by --method cfr):
the duel seats the table for the field's rows and the candidate's own row alone, the
field file loads with its table, and nop-sim exploit checks such a field.

Oracle: a field that folds to every bet is beaten by its own row betting as the row
says, by many points; the same row as a field without the table is no deviation (a
gain of exactly 0 on every match).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from click.testing import CliRunner

from nop_sim.cli import main
from nop_sim.games.new_order.abstraction import Abstraction
from nop_sim.games.new_order.agents import agent_row
from nop_sim.games.new_order.settings import Settings
from nop_sim.studies.train.known import field_key
from nop_sim.studies.train.play import Engine, Field, duel
from nop_sim.studies.train.value import load_strong
from tests.test_betting_seats import fold_table, tabular_file

SMALL = Abstraction(strength_buckets=3, odds_buckets=2, stack_buckets=1)


def _field(table_of: int) -> Field:
    row = agent_row("balanced")
    return Field.of(row[None], [1.0], tables=(SMALL.to_train(), fold_table(SMALL)[None]),
                    table_of=[table_of])


def test_a_field_that_folds_to_every_bet_is_beaten_by_its_own_row():
    s = Settings(players=3, max_hands=60)
    row = agent_row("balanced")
    d = duel(Engine(threads=1), s, _field(0), row[None], 120, (7, 1))
    gain = d.block_gain()[0]
    assert gain.mean() > 0.25, gain.mean()           # won 25 points more than the occupant
    alone = duel(Engine(threads=1), s, _field(-1), row[None], 120, (7, 1))
    assert (alone.gain() == 0).all()                 # the row alone is the field: no deviation


def test_the_field_file_loads_with_its_table_and_its_table_is_in_its_key(tmp_path):
    tabular_file(tmp_path, "fold")
    (tmp_path / "fold.toml").rename(tmp_path / "strong.toml")
    fld, _ = load_strong(tmp_path, Settings(players=3))
    assert fld.table_of.tolist() == [0]
    train, weights = fld.tables
    assert Abstraction.from_train(train) == SMALL
    assert np.array_equal(weights[0], fold_table(SMALL))
    plain = Field.of(fld.rows, fld.weights)
    assert field_key(plain) != field_key(fld)


def _scenario_and_field(tmp_path) -> tuple[Path, Path]:
    """A 3-player scenario over SMALL's abstraction, and a training folder whose
    strong.toml is the balanced row betting by the table that folds to every bet."""
    scn = tmp_path / "s.toml"
    scn.write_text('[game]\nkind = "new-order"\nplayers = 3\nmax_hands = 60\n\n'
                   '[run]\nmatches = 40\nseed = 5\nchunk = 10\n\n[train]\n'
                   'strength_buckets = 3\nodds_buckets = 2\nstack_buckets = 1\n')
    folder = tmp_path / "field"
    folder.mkdir()
    tabular_file(folder, "fold")
    (folder / "fold.toml").rename(folder / "strong.toml")
    return scn, folder


def test_exploit_checks_a_tabular_field(tmp_path):
    scn, folder = _scenario_and_field(tmp_path)
    res = CliRunner().invoke(main, ["exploit", str(scn), "--strong", str(folder),
                                    "--budget-matches", "3000", "--workers", "1", "-q",
                                    "--json", str(tmp_path / "checks.json")])
    assert res.exit_code == 0, res.output
    import json

    checks = json.loads((tmp_path / "checks.json").read_text())
    assert checks["largest"] > 20, checks            # folding to every bet is far from strong
    (check,) = checks["checks"]
    answer = check["table_response"]                 # the in-abstraction best response
    assert answer["low"] > 20 and answer["held_out_matches"] >= 750, answer
    assert check["gain"] == max(answer["gain"], check["search"]["gain"])
    assert check["by"] == ("table response" if answer["gain"] > check["search"]["gain"]
                           else "search")
    assert "a best response within the field's betting abstraction" in res.output
    assert "[betting]" in (folder / "strong.toml").read_text()


def test_value_measures_mechanics_against_a_tabular_field(tmp_path):
    import pandas as pd

    scn, folder = _scenario_and_field(tmp_path)
    res = CliRunner().invoke(main, ["value", str(scn), "--strong", str(folder),
                                    "--mechanic", "bluffing", "--budget-matches", "6000",
                                    "--workers", "1", "-q"])
    assert res.exit_code == 0, res.output
    table = pd.read_parquet(folder / "value.parquet")
    assert "bluffing" in set(table["mechanic"]), table
