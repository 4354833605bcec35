"""nop-sim train and value: the search's pieces, known best responses, PSRO's meta-game,
determinism, resuming after SIGKILL, extending a training, restricted play, bad input.

Oracles: common random numbers make a candidate equal to the field's occupant gain
exactly 0 on those matches; a rule set where hedging is free and pays 50 has a known
best response (hedge every hand), checked from the event log, not from a parameter;
a field that never bets and folds to any bet is beaten by a far deviation (bet
everything) that a search from the field must find; meta-games with a known
equilibrium (a dominant member, a cycle); where no promotion is allowed,
manipulation's value must hold 0; the same seed must give the same bytes with 1 or 2
threads and after a kill.
"""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from nop_sim.cli import main
from nop_sim.games.new_order import types as T
from nop_sim.games.new_order.agents import agent_row, agent_table
from nop_sim.games.new_order.engine import play_matches
from nop_sim.games.new_order.policy import MECHANICS
from nop_sim.games.new_order.settings import Settings
from nop_sim.run.scenario import load_scenario
from nop_sim.studies.train import (
    Engine,
    Field,
    SearchConfig,
    TrainConfig,
    best_response,
    duel,
    match_states,
    space_for,
    train_folder,
)

NEVER_HEDGE = {"preset": "balanced", "hedge": 0.0}

# Hedging is free and pays 50: placing a token every hand is best. Short matches
# (40 chips, at most 40 hands, then the chip leader wins) keep the test fast.
FREE_HEDGE = """
name = "free-hedge"
[game]
players = 4
chips = 40
max_hands = 40
hedge_cost = 0
hedge_payout = 50
[seats]
all = {preset = "balanced", hedge = 0.0}
[run]
seed = 11
"""

SMALL = SearchConfig(runs=2, generations=4, random_starts=4, screen=(16, 32), race=(16, 32),
                     select=64, check_batch=256, check_max=512)


def _scenario(tmp_path: Path, text: str = FREE_HEDGE, name: str = "s.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


# -- pieces ----------------------------------------------------------------------------------
def test_space_follows_the_rules():
    limit = space_for(Settings(disruptors="none"))
    assert "bet_fraction" not in limit.names and "nl_scale" not in limit.names
    assert not any(n.startswith("draft_") for n in limit.names)
    nl = space_for(Settings(betting="no-limit"))
    assert {"bet_fraction", "size_strength", "nl_scale"} <= set(nl.names)
    assert "random" not in nl.names and "station" not in nl.names
    hedgeless = space_for(Settings(), MECHANICS["hedging"])
    assert "hedge" not in hedgeless.names
    rows = hedgeless.to_rows(np.full((3, hedgeless.dim), 0.5), agent_row("hedger"))
    assert (rows[:, T.A_HEDGE] == 0).all() and (rows[:, T.A_RANDOM] == 0).all()
    back = hedgeless.to_unit(rows[0])
    assert np.allclose(back, 0.5)


def test_a_smaller_search_plays_fewer_generations_before_fewer_matches_and_fits_its_budget():
    from nop_sim.studies.train.search import MIN_GENERATIONS

    base = SearchConfig()
    quarter = base.scaled(0.25)
    # a quarter of the generations, the same matches a candidate
    assert quarter.generations == base.generations // 4 and quarter.race == base.race
    tiny = base.scaled(0.01)  # generations stop at the floor; then matches shrink
    assert tiny.generations == MIN_GENERATIONS and sum(tiny.race) < sum(base.race)
    big = base.scaled(4)  # a larger search: more matches a candidate, the same generations
    assert big.generations == base.generations and big.race == tuple(4 * m for m in base.race)
    space = space_for(Settings())

    def cost(s):
        return s.cost(space.dim, 4, 20, mechanics=len(space.mechanics))

    for budget in (40_000, 90_000, 400_000, 3_000_000):
        fit = base.fitted(cost, budget)
        assert cost(fit) <= budget and cost(fit) > 0.8 * budget, (budget, cost(fit))
    # below the smallest search: every part shrinks in proportion, nothing to one match
    small = base.fitted(cost, 1_000)
    assert small.check_max > 10 * small.race[0] and small.generations == MIN_GENERATIONS


def test_match_states_are_keyed():
    a, b = match_states((1, 2), 50), match_states((1, 2), 50)
    assert a.dtype == np.uint64 and a.shape == (50, 4) and (a == b).all()
    assert len({tuple(r) for r in a}) == 50
    assert not (match_states((1, 3), 50) == a).all()


def test_a_copy_of_the_field_gains_exactly_nothing():
    """Common random numbers: where the seat's own draw is the candidate's row, the
    candidate plays the reference's match, card for card."""
    s = Settings(players=3, disruptors="none")
    rows = agent_table(["balanced", "rock", "hedger"], 3)
    fld = Field.of(rows, [0.5, 0.3, 0.2])
    d = duel(Engine(threads=1), s, fld, rows[:1], 60, (5,))
    same = d.draws[np.arange(60), d.seat] == 0  # the occupant drew balanced
    assert 10 < same.sum() < 50
    assert (d.won[0][same] == d.ref_won[same]).all()
    assert np.bincount(d.seat).tolist() == [20, 20, 20]
    assert d.matches == 60 + 20  # duplicate deals: one reference a block of 3
    # keyed: the same draws again, one a deal, each deal played once per seat
    assert np.array_equal(d.draws, np.repeat(fld.draw((5,), 20, 3), 3, axis=0))
    assert d.seat.tolist()[:6] == [0, 1, 2, 0, 1, 2]


def test_duplicate_deals_rotate_the_candidate_over_one_deal():
    """A block of duplicate deals plays one deal and one draw of the field, the candidate
    in each seat once: the reference's winner is the block's, and a candidate that is the
    field's only row wins exactly where the reference's seat does (split streams: its
    choices are the occupant's, noise included)."""
    s = Settings(players=3, disruptors="none")
    row = agent_row("balanced")
    d = duel(Engine(threads=1), s, Field.pure(row), row[None], 30, (8,))
    assert (d.won[0] == d.ref_won).all() and (d.block_gain() == 0).all()
    ref = d.ref_winner.reshape(10, 3)
    assert (ref == ref[:, :1]).all()           # one reference match a block
    assert (d.per_block(d.ref_won.astype(float)) == 1 / 3).all()  # one winner a match


def test_a_duel_without_duplicate_deals_plays_one_deal_a_match():
    s = Settings(players=2, disruptors="none")
    rows = agent_table(["rock", "maniac"], 2)
    fld = Field.of(rows, [0.5, 0.5])
    d = duel(Engine(threads=1), s, fld, agent_row("hedger")[None], 8, (9,), duplicate=False)
    assert d.block == 1 and d.matches == 16
    assert np.array_equal(d.draws, fld.draw((9,), 8, 2))


def test_duel_matches_play_field_with_the_drawn_seats():
    """A duel's reference matches are play_field's matches of the drawn tables."""
    s = Settings(players=2, disruptors="none")
    rows = agent_table(["rock", "maniac"], 2)
    fld = Field.of(rows, [0.5, 0.5])
    d = duel(Engine(threads=1), s, fld, agent_row("hedger")[None], 8, (9,))
    from nop_sim.games.new_order.engine import play_field

    # a block of 2 matches shares a deal: the reference is its deal's match, once
    r = play_field(s, rows[d.draws], np.arange(8), np.repeat(match_states((9,), 4), 2, axis=0),
                   streams=True)
    won = r.player[np.arange(8), d.seat, T.PL_PLACE] == 1
    assert (won == d.ref_won).all()
    assert (d.ref_winner == np.argmax(r.player[:, :, T.PL_PLACE] == 1, axis=1)).all()


def test_a_mixture_field_draws_its_rows_by_weight():
    fld = Field.of(np.zeros((3, T.N_AGENT_PARAMS)), [0.6, 0.3, 0.1])
    draws = fld.draw((1, 2), 20_000, 4)
    share = np.bincount(draws.reshape(-1), minlength=3) / draws.size
    assert np.allclose(share, [0.6, 0.3, 0.1], atol=0.01)
    assert not np.array_equal(draws[:, 0], draws[:, 1])  # seats draw independently


def test_search_finds_the_free_hedge(tmp_path):
    scn = load_scenario(_scenario(tmp_path))
    s = scn.settings_at(scn.points()[0])
    field = Field.pure(agent_row(NEVER_HEDGE))
    res = best_response(Engine(), s, space_for(s), field, field.rows, (3,), SMALL, 0.01)
    assert res.gain > 0.3 and res.low > 0.1
    assert res.row[T.A_HEDGE] > 0
    assert {h["phase"] for h in res.history} == {"screen", "search", "select", "polish-start",
                                                 "polish", "check"}
    assert res.starts == 1 + len(MECHANICS) + SMALL.random_starts  # each start, mechanics off too


# A field that never bets or raises and folds to any bet: whoever bets takes every pot.
# The deviation that beats it (bet everything) lies far from it in the box.
PASSIVE = {"preset": "balanced", "bet_threshold": 2.0, "bluff": 0.0, "call_margin": 1.0,
           "hedge": 0.0, "manipulate": 0.0}


def test_a_search_from_the_field_finds_a_far_deviation():
    s = Settings(players=4, chips=40, max_hands=60, disruptors="none")
    field = Field.pure(agent_row(PASSIVE))
    res = best_response(Engine(), s, space_for(s), field, field.rows, (4,), SMALL, 0.01)
    assert res.gain >= 0.15 and res.low > 0.10, res.gain
    bets = res.row[T.A_BLUFF] > 0.3 or res.row[T.A_BET_THRESHOLD] < 1.0
    assert bets, res.row


def test_a_pooled_free_pick_is_never_worse_than_the_restricted_one_it_was_decided_against():
    """Every restricted pick is a legal free deviation, so the free pick is the better of
    the two on matches of their own: a selection race too small to rank the pool (here 4
    matches a row) would pick a free row that loses to the restricted one, and a value
    below 0 beyond noise. Seeds 2 and 6 are such draws: there the value is 0 exactly."""
    from nop_sim.studies.train.pool import pooled_search

    s = Settings(players=4, chips=40, max_hands=40)
    tiny = SearchConfig(runs=1, generations=2, random_starts=2, screen=(4,), race=(4,),
                        select=4, check_batch=256, check_max=256)
    field = Field.pure(agent_row("balanced"))
    engine = Engine()
    for seed in (0, 2, 6):
        p = pooled_search(engine, s, space_for(s), field, field.rows, (seed,), tiny,
                          mechanics=["bluffing"])
        decided = duel(engine, s, field, p.rows, 256, (seed, 3 * 10**6 + 4)).gain()
        assert decided[0].mean() >= decided[1].mean(), seed
        if seed in (2, 6):
            assert np.array_equal(p.rows[0], p.rows[1]) and p.value("bluffing")["mean"] == 0


# -- PSRO's meta-game -----------------------------------------------------------------------
def _synthetic_table(players, k, strength, n, seed=0):
    from nop_sim.studies.train.meta import ProfileTable

    rng = np.random.default_rng(seed)
    table = ProfileTable(players)
    for _ in range(n):
        m = rng.integers(0, k, players)
        sc = np.array([strength(a, m) for a in m], float)
        table.add(m[None], np.array([rng.choice(players, p=sc / sc.sum())]))
    return table


def test_meta_game_a_dominant_member_takes_all():
    from nop_sim.studies.train.meta import regret, solve

    table = _synthetic_table(4, 3, lambda a, m: 3.0 if a == 1 else 1.0, 6000)
    u = table.tensor([0, 1, 2])
    sigma = solve(u)
    assert sigma[1] > 0.97 and regret(u, sigma) < 0.01


def test_meta_game_a_cycle_is_mixed():
    """Rock-paper-scissors at a table of four: each beats the next; the symmetric
    equilibrium mixes all three equally, and its regret is about 0."""
    from nop_sim.studies.train.meta import ProfileTable, regret, solve

    beats = {(0, 1), (1, 2), (2, 0)}
    table = _synthetic_table(4, 3, lambda a, m: 0.1 + sum((a, b) in beats for b in m), 20_000)
    u = table.tensor([0, 1, 2])
    sigma = solve(u)
    assert np.allclose(sigma, 1 / 3, atol=0.05) and regret(u, sigma) < 0.01
    again = ProfileTable.from_json(4, table.to_json()).tensor([0, 1, 2])
    assert np.array_equal(again, u)
    # a profile never played reads the fair share
    empty = ProfileTable(4).tensor([0, 1])
    assert np.allclose(empty, 0.25)


def test_meta_game_solution_is_an_equilibrium_of_a_random_table():
    """A random 12-member table at four seats: the mixture solve returns leaves no member
    more than half a point to gain (replicator dynamics alone, its first guess, leaves
    more than a point here: it cycles, and its time average is no equilibrium)."""
    from nop_sim.studies.train.meta import ProfileTable, regret, replicator, solve

    rng = np.random.default_rng(2)
    strength = rng.normal(0.0, 0.15, (12, 12))
    table = ProfileTable(4)
    for prof in itertools.combinations_with_replacement(range(12), 4):
        score = np.array([sum(strength[p, q] for q in prof if q != p) for p in prof])
        share = np.exp(score + rng.normal(0.0, 0.15, 4))
        table.add(np.tile(prof, (400, 1)), rng.choice(4, size=400, p=share / share.sum()))
    u = table.tensor(list(range(12)))
    assert regret(u, replicator(u)) > 0.01
    sigma = solve(u)
    assert regret(u, sigma) < 0.005
    assert sigma.sum() == pytest.approx(1.0) and ((sigma == 0) | (sigma >= 0.02)).all()
    assert np.array_equal(sigma, solve(u))


# -- the known best response ------------------------------------------------------------------
def _token_share(settings, row, n=60, seed=5):
    """Share of the hands the trained seat was dealt in which it placed a token, from the
    event log of ``n`` matches against three non-hedging seats (seat rotates)."""
    hands = tokens = wins = 0
    for seat in range(4):
        specs = [NEVER_HEDGE] * 4
        specs[seat] = dict(zip(T.AGENT_PARAM_NAMES, row.tolist(), strict=True))
        res = play_matches(settings, specs, n, seed + seat, log_every=1, log_capacity=2_000_000)
        assert res.events_lost == 0
        ev = res.events  # columns: match, hand, kind, seat, arguments
        wins += int((res.player[:, seat, T.PL_PLACE] == 1).sum())
        mine = ev[:, 3] == seat
        hand_ids = {tuple(r) for r in ev[mine & (ev[:, 2] == T.EV_DEAL)][:, :2].tolist()}
        hedged = {tuple(r) for r in ev[mine & (ev[:, 2] == T.EV_HEDGE)][:, :2].tolist()}
        hands += len(hand_ids)
        tokens += len(hedged & hand_ids)
    return tokens / hands, wins / (4 * n)


def _train_free_hedge(tmp_path, budget):
    scn = load_scenario(_scenario(tmp_path))
    result = train_folder(scn, tmp_path / "out", TrainConfig(budget=budget, seed=2))
    return scn.settings_at(scn.points()[0]), result


def test_known_best_response_fast(tmp_path):
    settings, result = _train_free_hedge(tmp_path, 25_000)
    share, win = _token_share(settings, result.row, n=20)
    assert share >= 0.9, share
    assert win >= 0.25 + 0.10, win


@pytest.mark.slow
def test_known_best_response(tmp_path):
    settings, result = _train_free_hedge(tmp_path, 80_000)
    share, win = _token_share(settings, result.row, n=100)
    assert share >= 0.95, share
    assert win >= 0.25 + 0.10, win


# -- folder, determinism, resume -------------------------------------------------------------
def _cli(args, **kw):
    return CliRunner().invoke(main, args, catch_exceptions=False, **kw)


def test_same_seed_same_strong_toml_on_1_and_2_threads(tmp_path):
    path = _scenario(tmp_path)
    outs = []
    for w in (1, 2):
        out = tmp_path / f"w{w}"
        r = _cli(["train", str(path), "--budget-matches", "4000", "--workers", str(w),
                  "--out", str(out), "--quiet", "--no-report"])
        assert r.exit_code == 0, r.output
        assert "exploitability:" in r.output and "strong.toml" in r.output
        outs.append((out / "strong.toml").read_bytes())
    assert outs[0] == outs[1]
    data = tomllib.loads(outs[0].decode())
    rows = data["agent"] if isinstance(data["agent"], list) else [data["agent"]]
    for agent in rows:
        params = {k: v for k, v in agent.items() if k != "weight"}
        agent_row(params)  # agent_row accepts it
        assert set(params) == set(T.AGENT_PARAM_NAMES)
    assert "found by a" in data["training"]["exploitability_is"] or data["training"]


@pytest.mark.slow  # the runner's fast Dask test covers the cluster path; this one the trainer's
def test_dask_gives_the_local_strong_toml(tmp_path, dask_cluster):
    path = _scenario(tmp_path)
    for name, extra in (("dask", ["--scheduler", dask_cluster]), ("local", ["--workers", "1"])):
        r = _cli(["train", str(path), "--budget-matches", "3000", "--out", str(tmp_path / name),
                  "--quiet", "--no-report", *extra])
        assert r.exit_code == 0, r.output
    assert ((tmp_path / "dask" / "strong.toml").read_bytes()
            == (tmp_path / "local" / "strong.toml").read_bytes())


def test_resume_after_sigkill_keeps_finished_rounds(tmp_path):
    path = _scenario(tmp_path)
    out = tmp_path / "killed"
    args = [sys.executable, "-m", "nop_sim", "train", str(path), "--budget-matches", "20000",
            "--out", str(out), "--quiet", "--no-report", "--workers", "1"]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    state = out / "state.json"
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and proc.poll() is None:
        if state.exists() and json.loads(state.read_text())["round"] >= 1:
            break
        time.sleep(0.05)
    assert proc.poll() is None, "training ended before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = json.loads(state.read_text())
    done = before["round"]
    assert done >= 1 and before["final"] is None
    r = _cli(["train", str(path), "--budget-matches", "20000", "--out", str(out), "--quiet",
              "--no-report", "--workers", "1"])
    assert r.exit_code == 1 and "--resume" in r.output  # unfinished: says how to go on
    r = _cli(["train", str(path), "--budget-matches", "20000", "--out", str(out), "--quiet",
              "--no-report", "--workers", "1", "--resume"])
    assert r.exit_code == 0, r.output
    after = json.loads(state.read_text())
    assert after["rounds"][:done] == before["rounds"][:done]
    assert after["sessions"][-1]["first_round"] == done  # the resumed session began there
    ref = tmp_path / "straight"
    r = _cli(["train", str(path), "--budget-matches", "20000", "--out", str(ref), "--quiet",
              "--no-report", "--workers", "1"])
    assert r.exit_code == 0, r.output
    assert (ref / "strong.toml").read_bytes() == (out / "strong.toml").read_bytes()


# -- value, report, bad input ----------------------------------------------------------------
def test_value_and_report(tmp_path):
    path = _scenario(tmp_path)
    out = tmp_path / "t"
    assert _cli(["train", str(path), "--budget-matches", "10000", "--out", str(out),
                 "--quiet"]).exit_code == 0
    r = _cli(["value", str(path), "--strong", str(out), "--budget-matches", "10000",
              "--mechanic", "hedging", "--mechanic", "bluffing", "--quiet"])
    assert r.exit_code == 0, r.output
    assert "hedging" in r.output and "against one field: a second field" in r.output
    import pandas as pd

    v = pd.read_parquet(out / "value.parquet")
    assert list(v["mechanic"]) == ["hedging", "bluffing"]
    assert (v["loss_low"] <= v["loss"]).all() and (v["loss"] <= v["loss_high"]).all()
    # the value is the paired difference of the two gains
    assert np.allclose(v["loss"], v["gain_full"] - v["gain_restricted"])
    # free hedging is worth a lot: the best deviation without it gains clearly less
    assert v.set_index("mechanic").loc["hedging", "loss_low"] > 5
    d = pd.read_parquet(out / "drafts.parquet")
    assert len(d) == 25 and ((d["matches_drafted"] + d["matches_not"]) == d["matches_not"].iloc[0]
                             + d["matches_drafted"].iloc[0]).all()
    # asked again, the saved rows are reused: same numbers, nothing replayed
    r = _cli(["value", str(path), "--strong", str(out), "--budget-matches", "10000",
              "--mechanic", "hedging", "--mechanic", "bluffing", "--quiet"])
    assert r.exit_code == 0
    pd.testing.assert_frame_equal(pd.read_parquet(out / "value.parquet"), v)
    html = (out / "report.html").read_text()
    for sid in ("findings", "exploitability", "field", "value", "throughput"):
        assert f'id="{sid}"' in html
    # an independent check: a fresh search with another seed
    r = _cli(["exploit", str(path), "--strong", str(out), "--budget-matches", "4000",
              "--seed", "5", "--quiet"])
    assert r.exit_code == 0, r.output
    assert "search from" in r.output and "strong.toml says" in r.output


@pytest.mark.parametrize("args, words", [
    (["--budget-matches", "0"], "budget-matches"),
    (["--epsilon", "-1"], "epsilon"),
])
def test_bad_numbers_exit_2(tmp_path, args, words):
    r = _cli(["train", str(_scenario(tmp_path)), *args])
    assert r.exit_code == 2 and words in r.output and "Traceback" not in r.output


def test_bad_mechanic_exit_2(tmp_path):
    r = _cli(["value", str(_scenario(tmp_path)), "--strong", str(tmp_path), "--mechanic",
              "hedgeing"])
    assert r.exit_code == 2 and "hedging" in r.output and "Allowed" in r.output


def test_bad_agent_files_exit_2(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("[agent]\nhedge = 3.0\nhedgee = 1.0\n")
    text = FREE_HEDGE.replace('all = {preset = "balanced", hedge = 0.0}', f'all = "@{bad}"')
    r = _cli(["train", str(_scenario(tmp_path, text, "bad_param.toml"))])
    assert r.exit_code == 2 and "hedgee" in r.output and "bad.toml" in r.output
    text = FREE_HEDGE.replace('all = {preset = "balanced", hedge = 0.0}',
                              f'all = "@{tmp_path / "missing.toml"}"')
    r = _cli(["train", str(_scenario(tmp_path, text, "missing.toml.scn"))])
    assert r.exit_code == 2 and "missing.toml" in r.output
    r = _cli(["value", str(_scenario(tmp_path)), "--strong", str(tmp_path / "nowhere")])
    assert r.exit_code == 2 and "strong.toml" in r.output


def test_train_refuses_a_game_without_parameter_agents(tmp_path):
    import highcard_game  # noqa: F401  (registers the test-only game "high-card": no policy)

    path = tmp_path / "hc.toml"
    path.write_text('[game]\nkind = "high-card"\n')
    r = _cli(["train", str(path), "--budget-matches", "100"])
    assert r.exit_code == 2 and "declare a policy space" in r.output
    assert "new-order" in r.output and "ordered-hand" in r.output


SWEEP = """
name = "sw"
[game]
players = 3
chips = 40
max_hands = 40
[seats]
all = "balanced"
[run]
matches = 12
seed = 3
chunk = 6
[sweep]
hedge_cost = [2, 8]
"""


def test_sweep_train_trains_each_point_once(tmp_path):
    path = _scenario(tmp_path, SWEEP, "sw.toml")
    cache = tmp_path / "cache"
    args = ["sweep", str(path), "--train", "--train-budget", "1000", "--train-cache", str(cache),
            "--out", str(tmp_path / "run"), "--workers", "1", "--quiet"]
    r = _cli(args)
    assert r.exit_code == 0, r.output
    folders = sorted(cache.iterdir())
    assert len(folders) == 2 and all((f / "strong.toml").exists() for f in folders)
    stamps = [(f / "state.json").stat().st_mtime_ns for f in folders]
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert [p["seats"] for p in manifest["points"]] == [["trained(point 0)"] * 3,
                                                        ["trained(point 1)"] * 3]
    report = (tmp_path / "run" / "report.md").read_text()
    assert "trained(point" in report and "exploitability at training" in report
    r = _cli([*args[:-5], "--out", str(tmp_path / "again"), "--workers", "1", "--quiet",
              "--no-report"])
    assert r.exit_code == 0, r.output
    assert [(f / "state.json").stat().st_mtime_ns for f in folders] == stamps  # reused


# -- extending a training, values run in parts ----------------------------------------------
def test_a_finished_training_goes_on_with_a_larger_budget(tmp_path):
    path = _scenario(tmp_path)
    out = tmp_path / "t"
    base = ["train", str(path), "--out", str(out), "--quiet", "--no-report", "--workers", "1"]
    assert _cli([*base, "--budget-matches", "8000"]).exit_code == 0
    first = json.loads((out / "state.json").read_text())
    r = _cli([*base, "--budget-matches", "30000"])
    assert r.exit_code == 1 and "--resume" in r.output and "8,000" in r.output
    r = _cli([*base, "--budget-matches", "30000", "--resume"])
    assert r.exit_code == 0, r.output
    after = json.loads((out / "state.json").read_text())
    assert after["round"] > first["round"] and after["spent"] > first["spent"]
    assert after["rounds"][:first["round"]] == first["rounds"]  # its rounds are kept
    assert after["sessions"][-1]["budget"] == 30000
    # asked again for no more, a finished training is read back as it is
    r = _cli([*base, "--budget-matches", "30000", "--resume"])
    assert r.exit_code == 0 and json.loads((out / "state.json").read_text()) == after


def test_a_resumed_training_admits_the_deviations_its_checks_found(tmp_path):
    """A deviation ``nop-sim exploit`` kept against the finished field joins the
    population when the training goes on (a stronger oracle's best response, as a round
    admits its own); the training's own pick and a deviation of another field do not,
    and a second resume admits nothing again."""
    from nop_sim.studies.train.known import record_deviation
    from nop_sim.studies.train.value import load_strong
    path = _scenario(tmp_path)
    out = tmp_path / "t"
    base = ["train", str(path), "--out", str(out), "--quiet", "--no-report", "--workers", "1"]
    assert _cli([*base, "--budget-matches", "8000"]).exit_code == 0
    scn = load_scenario(path)
    settings = scn.settings_at(scn.points()[0])
    fld, _ = load_strong(out, settings)
    (out / "deviations.json").unlink(missing_ok=True)  # the training's own pick: not admitted
    hedger = agent_row("hedger")
    own = agent_row("balanced")
    record_deviation(out, fld, T.AGENT_PARAM_NAMES, hedger, 12.0, 9.0, 15.0,
                     "nop-sim exploit --seed 5 --budget-matches 9000: a search")
    record_deviation(out, fld, T.AGENT_PARAM_NAMES, own, 3.0, 1.0, 5.0,
                     "nop-sim train --seed 2 --budget-matches 8000: its final search")
    # asked for no more budget, the finished training is read back as it is
    assert _cli([*base, "--budget-matches", "8000", "--resume"]).exit_code == 0
    assert "admitted" not in json.loads((out / "state.json").read_text())
    r = _cli([*base, "--budget-matches", "20000", "--resume"])
    assert r.exit_code == 0, r.output
    after = json.loads((out / "state.json").read_text())
    [admitted] = after["admitted"]
    assert admitted["found_by"].startswith("nop-sim exploit --seed 5")
    assert np.array_equal(after["population"][admitted["member"]], hedger)
    assert after["labels"][admitted["member"]].startswith("checked response")
    assert admitted["member"] in after["members"]
    # went on past the finished field: a new final search; the same file admits nothing new
    r = _cli([*base, "--budget-matches", "20000", "--resume"])
    assert r.exit_code == 0 and len(json.loads((out / "state.json").read_text())["admitted"]) == 1


NO_PROMOTION = FREE_HEDGE.replace("hedge_payout = 50", "hedge_payout = 50\npromotions_per_action = 0")


def test_values_merge_across_runs_and_need_only_the_same_rules(tmp_path):
    import pandas as pd

    path = _scenario(tmp_path, NO_PROMOTION, "np.toml")
    out = tmp_path / "t"
    assert _cli(["train", str(path), "--budget-matches", "6000", "--out", str(out), "--quiet",
                 "--no-report"]).exit_code == 0
    value = ["value", str(path), "--strong", str(out), "--budget-matches", "12000", "--quiet"]
    r = _cli([*value, "--mechanic", "manipulation"])
    assert r.exit_code == 0, r.output
    manip = pd.read_parquet(out / "value.parquet")
    r = _cli([*value, "--mechanic", "hedging"])
    assert r.exit_code == 0, r.output
    both = pd.read_parquet(out / "value.parquet").set_index("mechanic")
    assert list(both.index) == ["manipulation", "hedging"]  # the first run's row is kept
    pd.testing.assert_series_equal(both.loc["manipulation"],
                                   manip.set_index("mechanic").loc["manipulation"])
    # where no promotion is allowed, manipulation cannot matter: its value holds 0
    m = both.loc["manipulation"]
    assert m["loss_low"] <= 0 <= m["loss_high"]
    # another seed is the same rules: measured, not refused; other rules are refused
    r = _cli([*value, "--mechanic", "bluffing", "--seed", "99"])
    assert r.exit_code == 0, r.output
    assert "replaced the saved values of manipulation, hedging" in r.output
    r = _cli([*value, "--mechanic", "bluffing", "--set", "hedge_cost=3"])
    assert r.exit_code != 0 and "other rules" in r.output


def test_a_mixture_seat_brings_its_rows_into_the_first_population(tmp_path):
    from nop_sim.games.new_order.agents import write_agent_file

    mix = tmp_path / "mix.toml"
    write_agent_file(mix, [agent_row(NEVER_HEDGE), agent_row("hedger")], [0.75, 0.25],
                     {"scenario": "elsewhere"})
    text = FREE_HEDGE.replace('all = {preset = "balanced", hedge = 0.0}', f'all = "@{mix}"')
    scn = load_scenario(_scenario(tmp_path, text, "warm.toml"))
    from nop_sim.studies.train import start_population

    rows, labels, weights = start_population(scn)
    assert np.array_equal(rows, np.stack([agent_row(NEVER_HEDGE), agent_row("hedger")]))
    assert labels == ["trained(elsewhere) row 0", "trained(elsewhere) row 1"]
    assert np.allclose(weights, [0.75, 0.25])
    result = train_folder(scn, tmp_path / "out", TrainConfig(budget=6000, seed=2))
    state = json.loads((tmp_path / "out" / "state.json").read_text())
    assert state["labels"][:2] == labels and result.population >= 2
