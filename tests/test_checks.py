"""Checks that agree with themselves (issue 36, part 2): duplicate deals estimate what
plain matches estimate, a check states its held-out gain, and ``nop-sim exploit
--checks K`` lists K independent checks and states the largest.

Oracles: plain independent matches of each side (no pairing, no blocks) for the
duplicate-deal estimate; a single ``exploit --seed s+i`` for check ``i`` of ``--checks``.
"""

from __future__ import annotations

import json
import math
import shutil
import tomllib
from pathlib import Path
from types import SimpleNamespace

import numpy as np
from click.testing import CliRunner

from nop_sim.cli import main
from nop_sim.core.stats import mean_interval
from nop_sim.games.new_order.agents import agent_row
from nop_sim.games.new_order.settings import Settings
from nop_sim.studies.train import Engine, Field, SearchConfig
from nop_sim.studies.train.play import duel, effective_matches
from nop_sim.studies.train.search import check_gain

ROOT = Path(__file__).resolve().parents[1]
FREE_HEDGE = Settings(players=4, chips=40, max_hands=40, hedge_cost=0, hedge_payout=50,
                      promotions_per_action=0, disruptors="none")
NEVER = agent_row({"preset": "balanced", "hedge": 0.0})
ALWAYS = agent_row({"preset": "balanced", "hedge": 1.0})


def test_a_duplicate_deal_check_estimates_what_plain_matches_estimate():
    """A planted field (nobody hedges where a hedge is free and pays 50) and a known
    deviation (hedge every hand): its gain, measured by plain independent matches of
    each side, lies within the held-out check's interval and the plain one's."""
    engine = Engine()
    fld = Field.pure(NEVER)
    n = 12_000
    dev = duel(engine, FREE_HEDGE, fld, ALWAYS, n, (1, 1), reference=False, duplicate=False)
    own = duel(engine, FREE_HEDGE, fld, NEVER, n, (1, 2), reference=False, duplicate=False)
    plain = dev.won[0].mean() - own.won[0].mean()
    se_plain = math.sqrt(dev.won[0].var() / n + own.won[0].var() / n)
    cfg = SearchConfig(check_batch=2048, check_max=4096)
    res = check_gain(engine, FREE_HEDGE, fld, ALWAYS, (1, 3), cfg, float("nan"))
    se_check = (res.high - res.low) / (2 * 1.96)
    assert res.gain > 0.05 and res.low <= res.gain <= res.high   # a real, planted gain
    assert abs(res.gain - plain) <= 3 * math.hypot(se_plain, se_check), (res.gain, plain)
    assert res.n_check == 4096 and res.effective > 0


def test_effective_matches_are_the_plain_matches_of_the_same_interval():
    """Without blocks or a reference, a duel is plain: as many effective matches as real."""
    engine = Engine()
    d = duel(engine, FREE_HEDGE, Field.pure(NEVER), ALWAYS, 2000, (2,), reference=False,
             duplicate=False)
    d.ref_won = np.zeros_like(d.won[0])  # the gain is the win itself: a plain estimate
    assert math.isclose(effective_matches(d), 2000, rel_tol=1e-9)
    # a copy of the field plays the reference's match: no noise at all
    same = duel(engine, FREE_HEDGE, Field.pure(NEVER), NEVER, 400, (3,))
    assert math.isinf(effective_matches(same))
    s = mean_interval(same.block_gain()[0])
    assert s["mean"] == 0 and s["sd"] == 0


def _field(tmp_path: Path) -> Path:
    """A copy of the shipped field, without the checks its file keeps."""
    from nop_sim.games.new_order.agents import read_agent_file, write_agent_file

    out = tmp_path / "field"
    shutil.copytree(ROOT / "scenarios" / "fields" / "baseline", out)
    f = read_agent_file(out / "strong.toml")
    write_agent_file(out / "strong.toml", f.rows, f.weights,
                     {k: v for k, v in f.training.items() if k != "checks"})
    return out


def _cli(args):
    return CliRunner().invoke(main, args, catch_exceptions=False)


def test_exploit_checks_lists_each_check_and_states_the_largest(tmp_path):
    field = _field(tmp_path)
    scenario = str(ROOT / "scenarios" / "baseline.toml")
    out = tmp_path / "checks.json"
    r = _cli(["exploit", scenario, "--strong", str(field), "--budget-matches", "6000",
              "--seed", "40", "--checks", "2", "--json", str(out), "-q"])
    assert r.exit_code == 0, r.output
    doc = json.loads(out.read_text())
    checks = doc["checks"]
    assert [c["seed"] for c in checks] == [40, 41]
    for c in checks:
        assert set(c) >= {"seed", "matches", "effective_matches", "gain", "low", "high"}
        assert c["low"] <= c["gain"] <= c["high"] and 0 < c["matches"] <= 6000 * 1.1
        assert c["effective_matches"] > 0
    assert doc["largest"] == max(c["gain"] for c in checks)
    assert "largest of 2 checks" in r.output and "held-out matches" in r.output
    # every check is kept in the field's file, as the report and exploit's lines say it
    kept = tomllib.loads((field / "strong.toml").read_text())["training"]["checks"]
    assert [(c["seed"], c["budget"]) for c in kept] == [(40, 6000), (41, 6000)]
    assert [c["gain"] for c in kept] == [round(c["gain"], 1 + 2) for c in checks]
    assert "recorded in" in r.output and "these 2 checks" in r.output
    # check 1 alone is exploit --seed 41: the same search, the same held-out figure
    again = tmp_path / "again.json"
    r = _cli(["exploit", scenario, "--strong", str(_field(tmp_path / "b")),
              "--budget-matches", "6000", "--seed", "41", "--json", str(again), "-q"])
    assert r.exit_code == 0, r.output
    assert json.loads(again.read_text())["checks"][0] == checks[1]


def test_exploit_refuses_zero_checks_and_writes_nothing(tmp_path):
    field = _field(tmp_path)
    before = (field / "strong.toml").read_text()
    out = tmp_path / "checks.json"
    r = CliRunner().invoke(main, ["exploit", str(ROOT / "scenarios" / "baseline.toml"),
                                  "--strong", str(field), "--checks", "0", "--json", str(out)])
    assert r.exit_code == 2
    assert "--checks" in r.output and "Traceback" not in r.output
    assert not out.exists() and (field / "strong.toml").read_text() == before


def _same_duel(a, b) -> bool:
    return (np.array_equal(a.won, b.won) and np.array_equal(a.ref_won, b.ref_won)
            and np.array_equal(a.winner, b.winner) and np.array_equal(a.hands, b.hands)
            and a.matches == b.matches)


def test_duplicate_deals_are_the_same_on_any_threads_and_on_dask(dask_cluster):
    """A duel's blocks of duplicate deals play the same whoever plays them: one thread, two,
    or a Dask cluster cutting the batch into slices that split blocks (3 tables a slice,
    a block of 4 seats and its reference being 5)."""
    fld = Field.of(np.stack([NEVER, ALWAYS]), [0.7, 0.3])
    cands = np.stack([ALWAYS, agent_row("hedger")])
    one = duel(Engine(threads=1), FREE_HEDGE, fld, cands, 40, (6,))
    two = duel(Engine(threads=2), FREE_HEDGE, fld, cands, 40, (6,))
    far = Engine(scheduler=dask_cluster, slice_size=3)
    try:
        dask = duel(far, FREE_HEDGE, fld, cands, 40, (6,))
    finally:
        far.close()
    assert _same_duel(one, two) and _same_duel(one, dask)


def test_a_fields_file_keeps_every_check_once_and_says_what_they_found(tmp_path):
    """record_checks: a check of the same seed and budget replaces the earlier one, others
    are added; the field's text (a run's report, exploit's lines) states how many checks,
    their size and the range of their held-out gains, beside the training's bound."""
    from nop_sim.games.agent_files import training_text
    from nop_sim.games.new_order.agents import read_agent_file
    from nop_sim.run.scenario import load_scenario
    from nop_sim.studies.train.value import record_checks

    field = _field(tmp_path)
    scn = load_scenario(ROOT / "scenarios" / "baseline.toml")
    rows = read_agent_file(field / "strong.toml").rows

    def check(seed, gain):
        return SimpleNamespace(seed=seed, gain=gain, low=gain - 0.2, high=gain + 0.2)

    assert record_checks(scn, field, [check(21, 1.7854), check(22, 0.52)], 2_000_000)
    assert not record_checks(scn, field, [check(22, 0.52)], 2_000_000)  # nothing new
    assert record_checks(scn, field, [check(22, 0.9), check(8, 0.78)], 2_000_000)
    f = read_agent_file(field / "strong.toml")
    assert np.array_equal(f.rows, rows)  # the field itself is untouched
    kept = f.training["checks"]
    assert [(c["seed"], c["gain"]) for c in kept] == [(8, 0.78), (21, 1.785), (22, 0.9)]
    assert kept[1] == {"seed": 21, "budget": 2_000_000, "gain": 1.785, "low": 1.585,
                       "high": 1.985}
    text = training_text(f.training)
    assert text.endswith("; 3 independent checks (nop-sim exploit, 2,000,000 matches each) "
                         "found from +0.8 to +1.8 points on held-out deals")
    assert "its exploitability at training: 1.9 points" in text
    # a file whose checks were edited by hand: the malformed entry goes, no traceback
    text = (field / "strong.toml").read_text().replace("seed = 8, ", "")
    (field / "strong.toml").write_text(text)
    assert record_checks(scn, field, [check(5, 3.0)], 300_000)
    assert [c["seed"] for c in read_agent_file(field / "strong.toml").training["checks"]] \
        == [5, 21, 22]
    assert "3 independent checks (nop-sim exploit, 300,000 to 2,000,000 matches each) " \
        "found from +0.9 to +3.0 points" in training_text(
            read_agent_file(field / "strong.toml").training)
