"""The statement rule for values (issue 36, part 4): "worth v (a to b)" only where two or
more fields with no shared training seed agree within 3 points and every 95% interval is
within +-2; otherwise "depends on the field" (or "not settled"), and one field never
settles a value. Then nop-sim value against two fields writes the columns the rule needs.
"""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import pandas as pd
from click.testing import CliRunner

from nop_sim.cli import main
from nop_sim.studies.train.verdict import field_seeds, settle, shared_seeds, with_range

ROOT = Path(__file__).resolve().parents[1]


def _table(*rows):
    return pd.DataFrame([{"mechanic": m, "loss": v, "loss_low": lo, "loss_high": hi}
                         for m, v, lo, hi in rows])


def test_fields_that_agree_settle_a_value():
    s = settle([_table(("hedging", 10.0, 8.5, 11.5)), _table(("hedging", 12.5, 11.0, 14.0))])
    r = s.iloc[0]
    assert r["settled"] and r["fields"] == 2
    assert (r["range_low"], r["range_high"]) == (10.0, 12.5)
    assert r["value"] == 11.25 and (r["low"], r["high"]) == (8.5, 14.0)
    assert r["verdict"].startswith("worth +11.2 points (+8.5 to +14.0)")


def test_fields_that_disagree_read_depends_on_the_field():
    s = settle([_table(("hedging", 10.0, 9.0, 11.0), ("drafting", 0.0, -1.0, 1.0)),
                _table(("hedging", 16.0, 15.0, 17.0), ("drafting", 0.5, -0.5, 1.5))])
    s = s.set_index("mechanic")
    assert not s.at["hedging", "settled"]
    assert s.at["hedging", "verdict"] == ("depends on the field: from +10.0 to +16.0 points "
                                          "across 2 fields")
    assert s.at["drafting", "settled"]        # the other mechanic agrees: settled
    # a disagreement of exactly 3 points still agrees; just over it does not
    edge = settle([_table(("x", 0.0, -1, 1)), _table(("x", 3.0, 2, 4))]).iloc[0]
    over = settle([_table(("x", 0.0, -1, 1)), _table(("x", 3.01, 2, 4))]).iloc[0]
    assert edge["settled"] and not over["settled"]


def test_a_wide_interval_or_one_field_never_settles():
    wide = settle([_table(("x", 5.0, 2.9, 7.1)), _table(("x", 5.0, 4.0, 6.0))]).iloc[0]
    assert not wide["settled"] and wide["verdict"].startswith("not settled: from +5.0 to +5.0")
    one = settle([_table(("x", 5.0, 4.5, 5.5))]).iloc[0]
    assert not one["settled"] and "a second field" in one["verdict"]
    # in another unit (Kuhn's chips, scale 1) the thresholds scale with it
    chips = settle([_table(("betting", 0.10, 0.09, 0.11)), _table(("betting", 0.12, 0.11, 0.13))],
                   scale=1.0, digits=3, unit="chips").iloc[0]
    assert chips["settled"] and chips["verdict"].startswith("worth +0.110 chips")


def test_seeds_of_fields_and_those_they_share():
    assert field_seeds({"seed": 24}) == {24}
    assert field_seeds({"seed": 24, "pool": {"seeds": [1, 2]}}) == {1, 2}
    assert field_seeds({"pool": {"seeds": [1, 2], "hardened": {"seed": 5}}}) == {1, 2, 5}
    assert field_seeds({}) == set()
    assert shared_seeds([{"pool": {"seeds": [1, 2]}}, {"pool": {"seeds": [3, 4]}}]) == set()
    assert shared_seeds([{"seed": 3}, {"pool": {"seeds": [3, 4]}}]) == {3}


def test_with_range_marks_a_mechanic_not_measured_across_fields_unsettled():
    own = _table(("hedging", 10.0, 9.0, 11.0), ("bluffing", 0.0, 0.0, 0.0))
    s = settle([_table(("hedging", 10.0, 9.0, 11.0)), _table(("hedging", 11.0, 10.0, 12.0))])
    out = with_range(own, s).set_index("mechanic")
    assert out.at["hedging", "settled"] and not out.at["bluffing", "settled"]
    assert list(out.columns[:3]) == ["loss", "loss_low", "loss_high"]   # its own columns kept


def test_value_against_two_fields_writes_the_range_columns(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for d in (a, b):
        shutil.copytree(ROOT / "scenarios" / "fields" / "baseline", d)
    r = CliRunner().invoke(main, ["value", str(ROOT / "scenarios" / "baseline.toml"),
                                  "--strong", str(a), "--strong", str(b), "--mechanic",
                                  "hedging", "--budget-matches", "8000", "--seed", "3", "-q"],
                           catch_exceptions=False)
    assert r.exit_code == 0, r.output
    for d in (a, b):
        t = pd.read_parquet(d / "value.parquet").set_index("mechanic")
        assert {"loss", "loss_low", "loss_high", "range_low", "range_high",
                "settled", "verdict"} <= set(t.columns)
        assert t.at["hedging", "fields"] == 2
    # copies of one field share its training seed: the output says so, and the two
    # measurements (the same seeds on the same field) agree to the bit
    training = tomllib.loads((a / "strong.toml").read_text())["training"]
    seeds = ([*training["pool"]["seeds"], training["pool"]["hardened"]["seed"]]
             if "pool" in training else [training["seed"]])  # a pool: its PSRO's seed too
    assert f"share training seed(s) [{', '.join(map(str, seeds))}]" in r.output, r.output
    ta, tb = (pd.read_parquet(d / "value.parquet").set_index("mechanic") for d in (a, b))
    assert ta.at["hedging", "loss"] == tb.at["hedging", "loss"]
    assert ta.at["hedging", "range_low"] == ta.at["hedging", "range_high"]
