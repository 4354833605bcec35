"""Three-player Kuhn poker: the exact oracle against published figures, a best response
worked out by hand and a brute-force search; the engine against the oracle; policy.csv;
bad input; train and exploit end to end.

The oracle is what tells whether the lab's bounds are right: a training's field has an
exact NashConv, and ``nop-sim exploit``'s gain per seat estimates ``NashConv / 3`` from
below (a search may miss the best deviation).
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import kuhn_reference as ref
import numpy as np
import pytest
import tomli_w
from click.testing import CliRunner

from nop_sim.cli import main
from nop_sim.core.stats import normal_quantile
from nop_sim.games import get_game
from nop_sim.games.kuhn import exact, policy, tree
from nop_sim.games.kuhn.engine import play_hands
from nop_sim.games.kuhn.policy import (
    NAMES,
    POLICY_CSV,
    PRESETS,
    agent_row,
    read_policy_csv,
    write_policy_csv,
)
from nop_sim.kernels.rng import keyed_states
from nop_sim.studies.train.meta import payoffs
from nop_sim.studies.train.play import Engine
from nop_sim.studies.train.trainer import _Population, first_state

SCENARIO = Path(__file__).resolve().parents[1] / "scenarios" / "kuhn3.toml"


def _cli(*args) -> tuple[int, str]:
    res = CliRunner().invoke(main, [str(a) for a in args])
    return res.exit_code, res.output


def _error(output: str) -> str:
    """The one ``Error:`` line of a refused command (click's usage lines may precede it)."""
    lines = [line for line in output.splitlines() if line.startswith("Error:")]
    assert len(lines) == 1 and "Traceback" not in output, output
    return lines[0]


# -- the rules -----------------------------------------------------------------------------
def test_the_tree_is_openspiels():
    assert len(tree.DEALS) == 24 and len(tree.HISTORIES) == 12 and len(tree.TERMINALS) == 13
    assert tree.N_INFOSETS == 48 == len(set(tree.INFOSETS))
    assert tree.INFOSETS[:4] == ("0", "1", "2", "3")
    for name in ("0", "2pb", "1ppb", "3ppbp"):
        assert tree.INFOSETS[tree.column_of_infoset(name)] == name
    # every seat has 16 infosets; the player to act after h is len(h) % 3
    seats = [tree.actor(h) for h in tree.HISTORIES for _ in range(4)]
    assert np.bincount(seats).tolist() == [16, 16, 16]
    assert tree.payoff([3, 1, 0], "ppp").tolist() == [2, -1, -1]
    assert tree.payoff([0, 2, 1], "pbbp").tolist() == [-1, 3, -2]   # seat 0 folds last
    assert tree.payoff([1, 2, 3], "bpp").tolist() == [2, -1, -1]    # everyone folds
    assert (tree.TERMINAL_PAYOFF.sum(axis=2) == 0).all()


# -- the exact oracle ----------------------------------------------------------------------
def test_uniform_play_has_the_published_nash_conv():
    assert exact.nash_conv(np.full(48, 0.5)) == pytest.approx(2.0625, abs=1e-12)
    assert exact.nash_conv(PRESETS["check-fold"]) == pytest.approx(6.0)


def test_openspiels_cfr_reaches_its_published_nash_conv():
    """OpenSpiel's plain CFR, 300 iterations: NashConv 0.0126 (the tree is OpenSpiel's)."""
    assert exact.nash_conv(ref.cfr(300)) == pytest.approx(0.0126, abs=5e-5)


def test_a_best_response_worked_out_by_hand():
    """Seat 0 against seats that bet and call everything. Betting first makes a showdown
    of three for a pot of 6 (win +4, lose -2); passing lets seat 1 bet and seat 2 call,
    then seat 0 calls into the same showdown or folds for -1. Card 3 wins it (+4),
    card 2 wins one time in three (4/3 - 4/3 = 0), cards 1 and 0 never win. So seat 0
    calls with 2 and 3 and folds 0 and 1 (-1), and passes first with 0 and 1 (-1 beats
    -2); with 2 and 3 both are worth the same (a tie passes). Value (4 + 0 - 1 - 1) / 4."""
    value, choice = exact.best_response(PRESETS["always-bet"], 0)
    assert value == pytest.approx(0.5)
    col = tree.column_of_infoset
    assert [choice[col(f"{c}")] for c in range(4)] == [0, 0, 0, 0]
    assert [choice[col(f"{c}pbb")] for c in range(4)] == [0, 0, 1, 1]
    assert np.isnan(choice[col("0p")])             # another seat's infoset
    # seat 2 against seats that never bet and fold to a bet: betting after two passes
    # takes the 3 antes (+2) whatever the card; with card 3 passing wins the showdown
    # just as well (a tie: it passes)
    value, choice = exact.best_response(PRESETS["check-fold"], 2)
    assert value == pytest.approx(2.0)
    assert [choice[col(f"{c}pp")] for c in range(4)] == [1, 1, 1, 0]


def test_expected_payoffs_against_a_plain_walk_of_the_rules():
    rng = np.random.default_rng(3)
    for _ in range(3):
        p = rng.random((3, 48))
        assert np.allclose(exact.expected_payoffs(p), ref.expected_payoffs(p), atol=1e-12)
        assert exact.expected_payoffs(p).sum() == pytest.approx(0.0, abs=1e-12)


def test_the_infoset_best_response_is_the_best_of_every_pure_policy():
    rng = np.random.default_rng(7)
    profiles = [rng.random((3, 48)), (rng.random((3, 48)) < 0.5).astype(float),
                np.full((3, 48), 0.5)]
    for p in profiles:
        for seat in range(3):
            value, choice = exact.best_response(p, seat)
            assert value == pytest.approx(ref.brute_force_best_response(p, seat), abs=1e-12)
            # the response played is worth what it says
            played = p.copy()
            mine = ~np.isnan(choice)
            played[seat, mine] = choice[mine]
            assert exact.expected_payoffs(played)[seat] == pytest.approx(value, abs=1e-12)


def test_a_mixtures_behaviour_plays_as_the_mixture():
    """Two pure rows mixed: each seat drawing a row is the behaviour policy (Kuhn's
    theorem); an infoset only one row reaches takes that row's choice."""
    a, b = PRESETS["tight"], PRESETS["always-bet"]
    w = np.array([0.25, 0.75])
    mixed = exact.behaviour(np.stack([a, b]), w)
    col = tree.column_of_infoset
    assert mixed[col("0")] == pytest.approx(0.75)          # both reach the root
    # card 0 after seat 0 passed: only tight passes with 0, so only tight reaches it
    assert mixed[col("0pbp")] == pytest.approx(a[col("0pbp")])
    # the exact value of the mixture: the average over the 8 row draws of the seats
    draws = [(i, j, k) for i in range(2) for j in range(2) for k in range(2)]
    rows = np.stack([a, b])
    value = sum(w[i] * w[j] * w[k] * exact.expected_payoffs(rows[[i, j, k]])
                for i, j, k in draws)
    assert np.allclose(exact.expected_payoffs(mixed), value, atol=1e-12)


# -- the engine against the oracle ---------------------------------------------------------
def test_play_field_agrees_with_the_exact_payoffs():
    """200,000 hands of a random profile: each seat's mean chips within a 99.9% interval
    of its exact expectation."""
    rng = np.random.default_rng(11)
    p = rng.random((3, 48))
    n = 200_000
    out = policy.play_field(get_game("kuhn3").settings(), p[None], np.zeros(n, np.int64),
                            keyed_states((5,), n))
    score = out.score
    assert (score.sum(axis=1) == 0).all() and ((out.place == 1).sum(axis=1) == 1).all()
    z = normal_quantile(0.999)
    half = z * score.std(axis=0, ddof=1) / np.sqrt(n)
    assert (np.abs(score.mean(axis=0) - exact.expected_payoffs(p)) < half).all()


def test_a_hand_is_its_rows_and_its_state():
    rng = np.random.default_rng(2)
    tables = rng.random((4, 3, 48))
    table_of = np.arange(300) % 4
    states = keyed_states((9,), 300)
    whole = play_hands(tables, table_of, states)
    alone = play_hands(tables, table_of[17:18], states[17:18])
    assert whole.terminal[17] == alone.terminal[0] and whole.deal[17] == alone.deal[0]
    # a row that plays as another where it is asked gives the same hand (common numbers)
    same = play_hands(tables[[0]], np.zeros(300, np.int64), states)
    again = play_hands(tables[[0]], np.zeros(300, np.int64), states)
    assert np.array_equal(same.terminal, again.terminal)


# -- policy.csv ----------------------------------------------------------------------------
def test_policy_csv_round_trip(tmp_path):
    row = np.random.default_rng(4).random(48)
    path = write_policy_csv(tmp_path / POLICY_CSV, row)
    lines = path.read_text().splitlines()
    assert lines[0] == "infoset,p_bet" and lines[1].startswith("0,") and len(lines) == 49
    assert np.array_equal(read_policy_csv(path), row)
    # a seat reads it as an agent file
    f = get_game("kuhn3").agent_file(path)
    assert np.array_equal(agent_row(f.rows[0]), row)


@pytest.mark.parametrize("change, said", [
    (lambda t: t.replace("\n2pb,0.25\n", "\n2pb,1.5\n"), "2pb"),
    (lambda t: t.replace("\n1,0.25\n", "\n9,0.25\n"), "'9'"),
    (lambda t: "\n".join(t.splitlines()[:-1]), "missing"),
    (lambda t: t.replace("infoset,p_bet", "infoset,chance"), "header"),
])
def test_a_bad_policy_csv_is_one_line_naming_the_file(tmp_path, change, said):
    good = write_policy_csv(tmp_path / "good.csv", np.full(48, 0.25)).read_text()
    bad = tmp_path / "bad.csv"
    bad.write_text(change(good))
    with pytest.raises(ValueError) as info:
        read_policy_csv(bad)
    message = str(info.value)
    assert "\n" not in message and str(bad) in message and said in message, message


def test_a_probability_outside_0_1_names_the_row_and_the_range(tmp_path):
    path = write_policy_csv(tmp_path / "p.csv", np.full(48, 0.5))
    text = path.read_text().replace("\n3pb,0.5\n", "\n3pb,-0.2\n")
    path.write_text(text)
    with pytest.raises(ValueError, match=r"line \d+: p_bet = '-0.2' for infoset '3pb'.*0 to 1"):
        read_policy_csv(path)


def test_a_bad_policy_csv_seat_is_one_line_and_writes_nothing(tmp_path):
    path = write_policy_csv(tmp_path / "p.csv", np.full(48, 0.5))
    path.write_text(path.read_text().replace("\n0,0.5\n", "\n0,2\n"))
    out = tmp_path / "run"
    code, output = _cli("run", SCENARIO, "--set", f"seats.all=@{path}", "--out", out,
                        "--matches", 10)
    assert code in (1, 2), output
    line = _error(output)
    assert "p.csv, line 2" in line and "0 to 1" in line, line
    assert not out.exists()


# -- the scenario --------------------------------------------------------------------------
def test_a_setting_kuhn_does_not_have_is_one_line_naming_it(tmp_path):
    data = tomllib.loads(SCENARIO.read_text())
    data["game"]["ante"] = 2
    path = tmp_path / "ante.toml"
    path.write_text(tomli_w.dumps(data))
    out = tmp_path / "run"
    code, output = _cli("run", path, "--out", out)
    assert code == 2, output
    line = _error(output)
    assert "ante.toml" in line and "ante" in line and "Allowed: players" in line, line
    assert not out.exists()
    code, output = _cli("run", SCENARIO, "--set", "players=4", "--out", out)
    assert code == 2 and "players=4" in _error(output) and "3 seats" in output, output


def test_agent_tables_and_presets():
    assert agent_row({"preset": "tight", "bet_2pb": 0.5})[NAMES.index("bet_2pb")] == 0.5
    with pytest.raises(ValueError, match="bet_2pc.*Did you mean"):
        agent_row({"bet_2pc": 0.5})
    with pytest.raises(ValueError, match="out of range"):
        agent_row({"bet_0": 1.5})
    with pytest.raises(ValueError, match="Presets"):
        agent_row("tigth")


# -- train and exploit, end to end ---------------------------------------------------------
def test_train_writes_policy_csv_and_states_the_exact_nash_conv(tmp_path):
    out = tmp_path / "train"
    code, output = _cli("train", SCENARIO, "--method", "psro", "--budget-matches", 4000,
                        "--out", out,
                        "--no-report", "-q", "--workers", 1)
    assert code == 0, output
    assert "chips" in output and "exactly: NashConv " in output, output
    strong = get_game("kuhn3").agent_file(out / "strong.toml")
    rows = np.stack([agent_row(r) for r in strong.rows])
    behaviour = read_policy_csv(out / POLICY_CSV)
    assert np.allclose(behaviour, exact.behaviour(rows, strong.weights))
    figures = exact.exploitability(rows, strong.weights)
    training = strong.training
    assert training["unit"] == "chips"
    assert training["exact_nash_conv"] == pytest.approx(figures["nash_conv"], abs=1e-6)
    assert f"{figures['nash_conv']:.3f}" in output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["exact"]["gain_per_seat"] == pytest.approx(figures["nash_conv"] / 3)
    # the exploit check states its gain in chips, and a seat plays policy.csv
    code, output = _cli("exploit", SCENARIO, "--strong", out, "--budget-matches", 3000,
                        "--seed", 7, "-q", "--workers", 1)
    assert code == 0, output
    assert "chips" in output and "points" not in output, output
    code, output = _cli("run", SCENARIO, "--set", f"seats.all=@{out / POLICY_CSV}",
                        "--matches", 30, "--set", "run.chunk=30", "--out", tmp_path / "run",
                        "-q", "--no-report")
    assert code == 0, output


# -- the strong field is the least exploitable field the training solved -------------------
def _fields(state: dict) -> list[tuple[int, np.ndarray, np.ndarray]]:
    """Every field a training solved: each round's, and the mixture after the last round
    (the last round's field again where that round found nothing, so not listed twice)."""
    pop = np.asarray(state["population"], float)
    fields = [(r["round"], r["members"], r["sigma"]) for r in state["rounds"]]
    now = (state["round"], state["members"], state["sigma"])
    if fields[-1][1:] != now[1:]:
        fields.append(now)
    return [(r, pop[m], np.asarray(w)) for r, m, w in fields]


def test_the_strong_field_is_the_least_exploitable_field_the_training_solved(tmp_path):
    """A game that computes a field's exploitability exactly keeps the field of least exact
    NashConv among every round's field and the last mixture. This seed's 30,000-match
    training is one where the last mixture is not the least exploitable: keeping it (or any
    other field) breaks the test."""
    out = tmp_path / "train"
    code, output = _cli("train", SCENARIO, "--method", "psro", "--budget-matches", 30_000,
                        "--out", out,
                        "--no-report", "-q", "--workers", 1)
    assert code == 0, output
    state = json.loads((out / "state.json").read_text())
    figures = {r: exact.nash_conv(exact.behaviour(rows, w)) for r, rows, w in _fields(state)}
    least = min(figures.values())
    last = max(figures)
    assert figures[last] > least + 0.01  # the last mixture is not the least exploitable
    kept = [r for r, f in figures.items() if f == least][-1]
    assert state["final"]["round"] == kept != last
    strong = get_game("kuhn3").agent_file(out / "strong.toml")
    rows = np.stack([agent_row(r) for r in strong.rows])
    assert exact.exploitability(rows, strong.weights)["nash_conv"] == pytest.approx(least)
    assert strong.training["kept"] == "least exact"
    said = f"round {kept}'s field, the least exploitable exactly of the {len(figures)} fields"
    assert said in output
    assert said.replace(" ", "") in (out / "strong.toml").read_text().replace("\n# ", " ") \
        .replace(" ", "")


def _payoff_against(row: np.ndarray, rows: np.ndarray, weights: np.ndarray) -> float:
    """``f(row)`` against a mixture field, exactly: ``row`` in one seat (each seat alike),
    the other two seats playing the mixture's behaviour (each draws independently)."""
    field = exact.behaviour(rows, weights)
    total = 0.0
    for seat in range(tree.PLAYERS):
        profile = np.repeat(field[None, :], tree.PLAYERS, axis=0)
        profile[seat] = row
        total += exact.expected_payoffs(profile)[seat]
    return total / tree.PLAYERS


def test_the_meta_games_payoffs_against_the_field_are_the_exact_ones():
    """The trainer's meta-game, sampled where its field is read (every member in one seat
    against the field's draws), gives each member's payoff against the field within its
    interval of the exact value: a table that gave a cell's payoff to the wrong member or
    seat, or weighed its cells wrongly, misses by tenths of a chip (the presets' exact
    payoffs span 0.76)."""
    names = list(PRESETS)
    rows = np.stack([PRESETS[name] for name in names])
    sigma = np.zeros(len(names))
    sigma[[names.index("uniform"), names.index("tight"), names.index("bluffer")]] = \
        [0.5, 0.3, 0.2]
    state = first_state((rows, names, sigma))
    pop = _Population(state, tree.PLAYERS, scale=1.0)
    played = pop.sample(Engine(threads=1), get_game("kuhn3").settings(), 36_000, (5, 0, 7))
    estimate = payoffs(pop.table.tensor(state["members"]), sigma)
    truth = np.array([_payoff_against(row, rows, sigma) for row in rows])
    # each member and the field's reference play a share; a seat's payoff lies in [-2, 4]
    # chips, so its standard deviation is at most 3 (Popoviciu): a 3-sigma bound
    per_member = played / (len(names) + 1)
    bound = 3 * 3.0 / np.sqrt(per_member)
    assert np.ptp(truth) > 5 * bound  # the test tells members apart
    assert np.abs(estimate - truth).max() < bound, (estimate, truth, bound)


def test_the_default_training_reaches_the_issues_nash_conv(tmp_path):
    """Issue 36: ``nop-sim train scenarios/kuhn3.toml`` gives a field of exact NashConv at
    most 0.05 chips per hand. Kuhn poker trains by CFR unless told otherwise (about a
    second); PSRO's default training reaches 0.11 to 0.15 (seeds 20261203, 1, 2: its
    meta-game's estimated table is the limit), and the figures decide which one ships."""
    out = tmp_path / "train"
    code, output = _cli("train", SCENARIO, "--out", out, "--no-report", "-q")
    assert code == 0, output
    strong = get_game("kuhn3").agent_file(out / "strong.toml")
    rows = np.stack([agent_row(r) for r in strong.rows])
    assert exact.exploitability(rows, strong.weights)["nash_conv"] <= 0.05
    assert "Discounted CFR" in output and (out / POLICY_CSV).is_file()


def test_the_hands_log_writes_what_the_event_schema_says():
    """Issue 38, item 4: every logged row is a kind of types.EVENT_SCHEMA, writes 0 where
    the schema names no field, and the records name the schema's fields."""
    from nop_sim.games.kuhn.game import _events, play_seats
    from nop_sim.games.kuhn.history import hand_records
    from nop_sim.games.kuhn.types import EVENT_SCHEMA

    ids = np.arange(400, dtype=np.int64)
    hands, _, _ = play_seats(["uniform", "bluffer", "always-bet"], ids, 5, 5)
    rows = _events(hands, ids, 1)
    assert {int(k) for k in rows[:, 2]} == set(EVENT_SCHEMA)
    for _m, _p, k, a, b in rows.tolist():
        n = len(EVENT_SCHEMA[k][1])
        assert (a, b)[n:] == (0, 0)[n:], (EVENT_SCHEMA[k], a, b)
    ev = rows[rows[:, 0] == 7][:, 1:]
    for rec, (_, k, a, b) in zip(hand_records(ev, 7), ev.tolist(), strict=True):
        name, fields = EVENT_SCHEMA[k]
        assert rec["event"] == name and [rec[f] for f in fields] == [a, b][:len(fields)]
