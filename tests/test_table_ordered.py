"""Ordered Hand at the table (issue 40): a person's seat played by the batch kernel from a
script (engine.play_scripted), the page's state from the person's view, every game the
referee's, and what nop-sim hands reads once saved."""

import json
import random
import re

import numpy as np
import pytest
from click.testing import CliRunner

from nop_sim.cli import main
from nop_sim.core.cards import format_card
from nop_sim.core.errors import IllegalAction
from nop_sim.games.ordered_hand.agents import agent_table, resolve_agents
from nop_sim.games.ordered_hand.engine import play_matches, play_scripted
from nop_sim.games.ordered_hand.kernels import play as K
from nop_sim.games.ordered_hand.referee import check_game
from nop_sim.games.ordered_hand.settings import OrderedSettings
from nop_sim.games.ordered_hand.table import OrderedHandTable
from nop_sim.kernels.rng import seed_states
from nop_sim.play.save import save_match
from nop_sim.run.scenario import load_scenario

CARD = re.compile(r"(?<![A-Za-z0-9])[2-9TJQKA][cdhs](?![A-Za-z0-9])")
SCENARIO = "scenarios/ordered_hand.toml"


def _table(players=4, betting=False, seat=0, seed=0, preset="random"):
    s = OrderedSettings(players=players, betting=betting)
    return OrderedHandTable(s, agent_table(resolve_agents(preset, players)[1]), seat,
                            seed=seed)


def _hidden(t: OrderedHandTable) -> set[str]:
    """The cards the person must not see now: the other seats' sequences and the stock."""
    view = t._view(None)   # every card: the referee's truth
    held = {format_card(c) for q in range(t.settings.players) if q != t.seat
            for c in view.seq[q]}
    stock = view.deck[view.top:]
    if t._game.paused == K.SK_INSERT:   # the person's drawn card, theirs to place
        stock = stock[1:]
    return held | {format_card(c) for c in stock}


def _play_out(t: OrderedHandTable, rnd: random.Random, check_hidden: bool = True):
    phases = set()
    st = t.state()
    while not st["done"]:
        phases.add(st["phase"])
        if check_hidden:
            text = json.dumps(st)
            assert not set(CARD.findall(text)) & _hidden(t), st["phase"]
        e = dict(rnd.choice(st["legal"]))
        if "min" in e:
            e["amount"] = rnd.randint(e["min"], e["max"])
        st = t.act(e)
    return phases


@pytest.mark.parametrize("players, betting", [(2, True), (3, False), (4, False)])
def test_a_person_plays_whole_games_that_the_referee_holds_to_the_rules(players, betting):
    phases = set()
    for seed in range(12):
        t = _table(players, betting, seat=seed % players, seed=seed)
        phases |= _play_out(t, random.Random(seed))
        g = t._game
        counts = check_game(t.settings, g.deck, g.events, g.record)
        st = t.state()
        assert st["done"] and st["winners"] == [q for q in range(players)
                                                  if (counts["winners"] >> q) & 1]
        held = [s_["count"] for s_ in st["seats"]]
        for q in range(players):   # winners first, then fewer cards held is better
            assert (st["places"][q] == 1) == (q in st["winners"])
            assert all(st["places"][q] <= st["places"][r] for r in range(players)
                       if r not in st["winners"] and q not in st["winners"] and held[q] <= held[r])
        # once over, every sequence is shown: the referee's
        assert [s["count"] for s in st["seats"]] == list(g.record[K.F_CARDS_LEFT:
                                                               K.F_CARDS_LEFT + players])
    want = {"turn", "insert"} | ({"response", "answer"} if betting else set())
    assert want <= phases


def test_the_state_holds_the_fixed_names_and_only_the_persons_cards():
    t = _table(seed=3, seat=1)
    st = t.state()
    for key in ("seat", "phase", "column", "hand", "board", "seats", "showdown", "legal",
                "log", "done", "middle", "stock"):
        assert key in st, key
    assert "pot" not in st and "chips" not in st["seats"][0]   # a game without chips
    assert st["seat"] == 1 and len(st["column"]) == 13 and not st["done"]
    view = t._view(None)
    assert st["hand"] == [format_card(c) for c in view.seq[1]]
    assert all(s["cards"] == [] for s in st["seats"])
    assert [s["count"] for s in st["seats"]] == [len(r) for r in view.seq]
    for e in st["legal"]:   # every entry is an action the table takes as it stands
        t2 = _table(seed=3, seat=1)
        t2.act({**e, "amount": e["min"]} if "min" in e else e)


def test_an_illegal_action_is_refused_and_changes_nothing():
    t = _table(seed=5, seat=0)
    st = t.state()
    with pytest.raises(IllegalAction, match="not legal now"):
        t.act({"action": "raise", "from": 0, "to": 1})
    with pytest.raises(IllegalAction, match="not legal now"):
        t.act({"action": "play", "start": 99, "length": 1})
    assert t.state() == st
    while t.state()["phase"] != "insert":
        t.act(next(e for e in t.state()["legal"] if e["action"] in ("check", "play")))
    e = t.state()["legal"][0]
    before = t.state()
    with pytest.raises(IllegalAction, match="from 0 to"):
        t.act({**e, "amount": e["max"] + 1})
    assert t.state() == before


def test_the_kernel_refuses_a_script_row_against_the_rules():
    s = OrderedSettings()
    table = agent_table(resolve_agents("random", s.players)[1])
    state = seed_states(4, 1)[0]
    g = play_scripted(s, table, state, 0, np.zeros((0, K.SCRIPT_WIDTH), np.int64))
    seat_first = int(g.record[K.F_FIRST]) == 0
    while not seat_first:   # a seed where seat 0 moves first: its first decision is a turn
        state = seed_states(int(state[0] % 1000) + 7, 1)[0]
        g = play_scripted(s, table, state, 0, np.zeros((0, K.SCRIPT_WIDTH), np.int64))
        seat_first = int(g.record[K.F_FIRST]) == 0
    assert g.paused == K.SK_TURN and len(g.events) == 0
    bad = np.array([[K.SK_TURN, K.ACT_PLAY, 0, 4]], np.int64)   # four cards: never all alike
    n_blocks = int(g.bounds[1])
    starts = {(int(g.bounds[2 + 3 * i]), int(g.bounds[3 + 3 * i])) for i in range(n_blocks)}
    if (0, 4) not in starts:
        assert play_scripted(s, table, state, 0, bad).refused == 0
    bet = np.array([[K.SK_TURN, K.ACT_BET, 0, 0]], np.int64)    # no bets in the basic rules
    assert play_scripted(s, table, state, 0, bet).refused == 0
    ok = np.array([[K.SK_TURN, K.ACT_CHECK, 0, 0]], np.int64)
    assert play_scripted(s, table, state, 0, ok).refused == -1


def _script_of(events: np.ndarray, seat: int) -> np.ndarray:
    """Seat ``seat``'s decisions in a logged game, as the script rows that make them."""
    rows, last = [], None
    for p, kind, a, b in events.tolist():
        if p == seat:
            if kind == K.EV_PLAY:
                rows.append([K.SK_RAISE_BLOCK, a, b, 0] if last == K.EV_MOVE
                            else [K.SK_TURN, K.ACT_PLAY, a, b])
            elif kind == K.EV_CHECK:
                rows.append([K.SK_TURN, K.ACT_CHECK, 0, 0])
            elif kind == K.EV_DRAW:
                rows.append([K.SK_INSERT, b, 0, 0])
            elif kind == K.EV_FOLD:
                rows.append([K.SK_RESPONSE, K.RESP_FOLD, 0, 0])
            elif kind == K.EV_MOVE:
                rows.append([K.SK_RESPONSE, K.RESP_RAISE if last == K.EV_RAISE else K.RESP_CALL,
                             a, b])
            last = kind
    return np.array(rows, np.int64).reshape(-1, K.SCRIPT_WIDTH)


@pytest.mark.parametrize("players, betting, agents", [
    (3, False, ["random", "low", "random"]),
    (4, False, ["random", "builder", "random", "high"]),
    (2, True, ["random", "raiser"]),
])
def test_a_scripted_seat_plays_the_batch_game_event_for_event(players, betting, agents):
    """The step mode is the batch kernel: seat 1's agent draws no random number (its
    choices are rules), so a script of its logged decisions replays each batch game
    exactly, every other seat's random play included, over 200 games of a batch."""
    s = OrderedSettings(players=players, betting=betting)
    names, policies = resolve_agents(agents, players)
    table = agent_table(policies)
    res = play_matches(s, policies, 200, seed=11, log=True)
    states = seed_states(11, 1)   # chunk 0's stream: game g starts where game g - 1 ended
    state = states[0].copy()
    responses = 0
    for g in range(200):
        events = res.log.game_events(g).astype(np.int64)
        script = _script_of(events, 1)
        responses += int((script[:, 0] == K.SK_RESPONSE).sum())
        out = play_scripted(s, table, state, 1, script)
        assert out.paused == -1 and out.refused == -1, g
        assert np.array_equal(out.deck, res.log.decks[g]), g
        assert np.array_equal(out.events, events), g
        assert np.array_equal(out.record, res.games[g]), g
        # the next game's stream: this game played once more by the batch kernel, which
        # advances ``state`` in place (play_scripted plays from a copy)
        one = np.zeros((1, K.N_FIELDS), np.int32)
        K._play_games(1, players, s.hand_size, s.betting, s.max_turns,
                      s.column.positions().astype(np.int64), table, state[None], one, False,
                      np.zeros((0, 4), np.int16), np.zeros(1, np.int64),
                      np.zeros(2, np.int64), np.zeros((1, K.DECK_SIZE), np.int8))
    assert not betting or responses > 0


def test_a_saved_game_is_what_nop_sim_hands_reads(tmp_path):
    scn = load_scenario(SCENARIO)
    t = scn.game_type.open_table(scn, 0, 3)
    _play_out(t, random.Random(3), check_hidden=False)
    folder = save_match(tmp_path / "m", scn, t)
    res = CliRunner().invoke(main, ["hands", str(folder), "--match", "0"])
    assert res.exit_code == 0, res.output
    assert "Seat 0 (you)" in res.output and "End after" in res.output


def test_a_runs_logged_game_replays_step_by_step(tmp_path):
    """nop-sim replay on an Ordered Hand run: every step shows every sequence; the last
    step's cards held are the run's seats table's, and the stock falls by the draws."""
    from nop_sim.games import get_game
    from nop_sim.results.match_log import load_match_log

    out = tmp_path / "run"
    res = CliRunner().invoke(main, ["run", SCENARIO, "--matches", "512", "--out", str(out),
                                    "--set", "run.log_sample=100", "--no-report", "-q"])
    assert res.exit_code == 0, res.output
    log = load_match_log(out, 200, 0)
    replay = get_game(log.kind).open_replay(log)
    assert replay.page == "ordered.html" and replay.n_steps > 10
    last = replay.state(replay.n_steps - 1)
    assert last["done"] and last["event"]["event"] == "end"
    stored = _stored_seats(out, 200)
    assert [s["count"] for s in last["seats"]] == stored
    first = replay.state(0)
    assert all(len(s["cards"]) == s["count"] for s in first["seats"])   # every card shown
    draws = sum(1 for k in range(replay.n_steps)
                if replay.state(k)["event"]["event"] == "draw")
    assert first["stock"] - last["stock"] == draws - (first["event"]["event"] == "draw")


def _stored_seats(out, match: int) -> list[int]:
    from nop_sim.results.store import read_rows

    rows = read_rows(out, "seats", 0, match).sort_values("seat")
    return [int(x) for x in rows["cards_left"]]
