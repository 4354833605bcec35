"""SPEC section 8b, the Ordered Hand rulings R14 and R15: each test finds the situation
in seeded, logged games of the advanced rules and checks it there; the tamper tests
alter a real log so that it breaks the ruling and expect the referee to refuse it, and
the referee replays many such games without finding a violation (New Order's rulings:
tests/test_rulings.py)."""

from __future__ import annotations

import numpy as np
import pytest

from nop_sim.core.cards import parse_cards
from nop_sim.games.ordered_hand import OrderedSettings, play_matches
from nop_sim.games.ordered_hand.agents import PRESETS, agent_table
from nop_sim.games.ordered_hand.kernels import play as K
from nop_sim.games.ordered_hand.referee import (
    RuleViolation,
    check_game,
    check_result,
    py_classify_block,
)
from nop_sim.kernels.rng import seed_states

TWO_BET = OrderedSettings(players=2, betting=True)
# Both seat line-ups of the advanced rules' presets, and the random policy against each.
LINE_UPS = [("bettor", "raiser"), ("raiser", "bettor"), ("random", "random"),
            ("bettor", "random"), ("random", "raiser")]


@pytest.fixture(scope="module")
def logged():
    """{line-up: 400 logged games}; the referee accepts every one of them."""
    out = {}
    for line_up in LINE_UPS:
        r = play_matches(TWO_BET, list(line_up), 400, seed=21, log=True)
        assert check_result(r) == 400
        out[line_up] = r
    return out


def _replay(settings, deck, events):
    """Yield ``(i, (player, kind, a, b), sequences, middle)`` before each event acts.

    A bare replay (the referee checks the rules): the deal, plays, draws, moves and
    clears change the sequences and the middle ``(category, tie-break ranks)``.
    """
    n = settings.players
    first = int(events[0][0])
    seqs: list[list[int]] = [[] for _ in range(n)]
    for k in range(settings.hand_size * n):
        seqs[(first + k) % n].append(int(deck[k]))
    middle = None
    for i, (p, kind, a, b) in enumerate(events.tolist()):
        yield i, (p, kind, a, b), seqs, middle
        if kind == K.EV_PLAY:
            middle = py_classify_block(seqs[p][a : a + b])
            del seqs[p][a : a + b]
        elif kind == K.EV_DRAW:
            seqs[p].insert(b, a)
        elif kind == K.EV_MOVE:
            seqs[p].insert(b, seqs[p].pop(a))
        elif kind == K.EV_CLEAR:
            middle = None


def _strongest_beating(row, middle, pos) -> tuple | None:
    """Sort key of the strongest block of ``row`` that beats ``middle``, or None."""
    best = None
    for s in range(len(row)):
        for ln in range(1, min(5, len(row) - s) + 1):
            block = py_classify_block(row[s : s + ln])
            if block is None:
                continue
            key = (-pos[block[0]], block[1])
            if middle is None or key > (-pos[middle[0]], middle[1]):
                best = key if best is None or key > best else best
    return best


# -- R14 ------------------------------------------------------------------------------------
def test_r14_every_raise_moves_a_card_elsewhere_and_still_beats_the_middle(logged):
    """A Raise's move takes a card to a different position, after which a block beats the
    middle (the raise plays one); the raiser, when a block already beat the middle, keeps
    one as strong. A Call moves a card or none: both occur."""
    pos = TWO_BET.column.positions().tolist()
    raises = kept = 0
    call_moves = {True: 0, False: 0}
    for line_up, r in logged.items():
        for g in range(r.n_games):
            events = r.log.game_events(g)
            response = None
            for _, (p, kind, a, b), seqs, middle in _replay(TWO_BET, r.log.decks[g], events):
                if kind in (K.EV_CALL, K.EV_RAISE):
                    response = kind
                if kind != K.EV_MOVE:
                    continue
                if response == K.EV_CALL:
                    call_moves[a != b] += 1
                    continue
                raises += 1
                assert a != b, (line_up, g)
                row = list(seqs[p])
                before = _strongest_beating(row, middle, pos)
                row.insert(b, row.pop(a))
                after = _strongest_beating(row, middle, pos)
                assert after is not None, (line_up, g)
                if line_up[p] == "raiser" and before is not None:
                    assert after >= before, (line_up, g)
                    kept += 1
    total = sum(int(y.games[:, K.F_RAISES].sum()) for y in logged.values())
    assert raises == total and raises >= 5000 and kept >= 3000
    assert call_moves[True] >= 1000 and call_moves[False] >= 500


def test_r14_one_card_cannot_raise():
    """With one card no move is possible: such a responder folds or calls (moving
    nothing), never raises, however often a random responder would like to."""
    short = OrderedSettings(players=2, betting=True, hand_size=2)
    answers = {K.EV_FOLD: 0, K.EV_CALL: 0, K.EV_RAISE: 0}
    for line_up in (("random", "random"), ("bettor", "random")):
        r = play_matches(short, list(line_up), 400, seed=21, log=True)
        assert check_result(r) == 400
        for g in range(r.n_games):
            events = r.log.game_events(g)
            previous = None
            for i, (p, kind, _, _), seqs, _ in _replay(short, r.log.decks[g], events):
                if previous == K.EV_BET and len(seqs[p]) == 1:
                    answers[kind] += 1
                    if kind == K.EV_CALL:
                        assert tuple(events[i + 1, 1:]) == (K.EV_MOVE, 0, 0)
                previous = kind
    assert answers[K.EV_RAISE] == 0
    assert answers[K.EV_FOLD] >= 50 and answers[K.EV_CALL] >= 10


def _respond(preset: str, cards: str, mid_cat: int, mid_tb: int, seed: int = 0):
    """The kernel's answer of ``preset`` holding ``cards`` to a Bet on the middle."""
    row = parse_cards(cards)
    seq = np.full((K.MAX_PLAYERS + 1, K.MAX_SEQ + 1), -1, dtype=np.int8)
    seq[0, : row.size] = row
    blocks = np.zeros((K.MAX_BLOCKS, 4), dtype=np.int64)
    rng = seed_states(seed, 1)[0]
    got = K._choose_response(agent_table([PRESETS[preset]]), 0, seq, row.size, mid_cat,
                             mid_tb, TWO_BET.column.positions().astype(np.int64), rng, blocks)
    return tuple(int(x) for x in got)


def test_r14_the_responders_moves():
    # A pair of kings already beats a pair of fives: the first real move that keeps it,
    # the kings changing places (the move of before, (0, 0), put a card back).
    assert _respond("raiser", "Ks Kh 3d", K.ONE_PAIR, 5) == (K.RESP_RAISE, 0, 1)
    # Only the ace beats the king, and takes its strength anywhere: the first move.
    assert _respond("raiser", "As 3h 7d", K.HIGH_CARD, 13) == (K.RESP_RAISE, 0, 1)
    # A lone ace would beat the king, but one card cannot move: no raise.
    assert _respond("raiser", "As", K.HIGH_CARD, 13) == (K.RESP_CALL, 0, 0)
    assert _respond("low", "As", K.HIGH_CARD, 13) == (K.RESP_FOLD, 0, 0)
    # random: the card, then one of the other positions, uniformly
    moves = set()
    for seed in range(400):
        resp, src, dst = _respond("random", "As Kh 7d", K.HIGH_CARD, 2, seed)
        assert src != dst
        moves.add((src, dst))
        assert _respond("random", "As", K.HIGH_CARD, 2, seed)[0] != K.RESP_RAISE
    assert moves == {(s, d) for s in range(3) for d in range(3) if s != d}


def test_r14_the_referee_refuses_a_raise_that_puts_the_card_back(logged):
    r = logged["bettor", "raiser"]
    for g in range(r.n_games):
        events = r.log.game_events(g)
        raises = np.flatnonzero(events[:, 1] == K.EV_RAISE)
        if raises.size:
            break
    move = raises[0] + 1
    assert events[move, 1] == K.EV_MOVE
    bad = events.copy()
    bad[move, 3] = bad[move, 2]  # back to its own place
    with pytest.raises(RuleViolation, match=r"own place.*R14"):
        check_game(TWO_BET, r.log.decks[g], bad, game=g)
    check_game(TWO_BET, r.log.decks[g], events, r.games[g], game=g)  # as logged: fine


# -- R15 ------------------------------------------------------------------------------------
def _exchanges(events):
    """Each bet exchange of a game that reaches the bettor's answer: (index of the Bet,
    of the response, of the answer, of the first event after the answer's draws)."""
    kinds = events[:, 1]
    for i in np.flatnonzero(kinds == K.EV_BET).tolist():
        resp = i + 1
        j = resp + 1
        if kinds[resp] == K.EV_RAISE:  # its move, its play, its draw
            j = resp + 3
            while j < len(kinds) and kinds[j] == K.EV_DRAW:
                j += 1
        else:
            while kinds[j] in (K.EV_MOVE, K.EV_DRAW):
                j += 1
        if kinds[j] == K.EV_END:
            continue  # the game ended inside the exchange (an emptied sequence, the stock)
        after = j + 1
        while after < len(kinds) and kinds[after] == K.EV_DRAW:
            after += 1
        yield i, resp, j, after


def test_r15_the_bet_exchange(logged):
    """The Bet replaces the bettor's play and draw; a Bet, a Fold and a Call count as not
    playing; the middle is cleared only once the exchange has ended, and then the first
    player who did not play in that round leads (the next player in turn)."""
    cleared_after = answered_by_play = 0
    for line_up, r in logged.items():
        for g in range(r.n_games):
            events = r.log.game_events(g)
            kinds = events[:, 1]
            for bet, resp, answer, after in _exchanges(events):
                b = events[bet, 0]
                o = 1 - b
                # the Bet's turn holds no play and no draw: the opponent answers at once
                assert events[resp, 0] == o and kinds[resp] in (K.EV_FOLD, K.EV_CALL,
                                                                K.EV_RAISE), (line_up, g)
                assert events[answer, 0] == b and kinds[answer] in (K.EV_PLAY, K.EV_CHECK,
                                                                    K.EV_FOLD), (line_up, g)
                # never cleared inside the exchange
                assert not (kinds[bet:after] == K.EV_CLEAR).any(), (line_up, g)
                if kinds[answer] == K.EV_PLAY:  # a play ends the run of passes
                    answered_by_play += 1
                    assert kinds[after] != K.EV_CLEAR
                    continue
                if kinds[resp] == K.EV_RAISE or kinds[after] == K.EV_END:
                    continue  # the raise played: one pass since; or the stock ran out
                # Bet, Fold or Call, then the bettor's check or fold: three turns without
                # a play, a full round reached inside the exchange; the middle waits until
                # the exchange has ended, is cleared, and the responder (next in turn) leads.
                assert kinds[after] == K.EV_CLEAR and events[after, 0] == o, (line_up, g)
                assert events[after + 1, 0] == o
                cleared_after += 1
    assert cleared_after >= 1500 and answered_by_play >= 3000


def test_r15_a_round_of_checks_completed_by_the_bet_waits_for_the_exchange(logged):
    """The opponent checked, then the Bet: a full round without a play (the Bet counts as
    not playing), yet the middle stays for the response, and a Raise must beat it."""
    pos = TWO_BET.column.positions().tolist()
    found = raised = 0
    for r in logged.values():
        for g in range(r.n_games):
            events = r.log.game_events(g)
            turns = [i for i, k in enumerate(events[:, 1].tolist())
                     if k in (K.EV_PLAY, K.EV_CHECK, K.EV_BET, K.EV_CLEAR)]
            after_check = {j for i, j in zip(turns, turns[1:], strict=False)
                           if events[i, 1] == K.EV_CHECK and events[j, 1] == K.EV_BET}
            if not after_check:
                continue
            for i, (p, kind, _, _), seqs, middle in _replay(TWO_BET, r.log.decks[g], events):
                if i - 1 in after_check:  # the response to such a Bet
                    found += 1
                    assert kind != K.EV_CLEAR and middle is not None
                    if kind == K.EV_RAISE:
                        raised += 1
                        row = list(seqs[p])
                        _, _, src, dst = events[i + 1].tolist()
                        row.insert(dst, row.pop(src))
                        assert _strongest_beating(row, middle, pos) is not None
    assert found >= 1000 and raised >= 300


def _game_with(r, want):
    """The first game of ``r`` holding an exchange for which ``want(events, ex)`` holds."""
    for g in range(r.n_games):
        events = r.log.game_events(g)
        for ex in _exchanges(events):
            if want(events, ex):
                return g, events.copy(), ex
    raise AssertionError("no such exchange")


def test_r15_the_referee_refuses_a_clear_inside_the_exchange(logged):
    r = logged["random", "random"]
    # an exchange Bet, Fold, check, cleared after it: the clear moved before the answer
    g, events, (bet, resp, answer, after) = _game_with(
        r, lambda e, x: e[x[1], 1] == K.EV_FOLD and e[x[3], 1] == K.EV_CLEAR)
    check_game(TWO_BET, r.log.decks[g], events, game=g)
    clear = events[after].copy()
    bad = np.insert(np.delete(events, after, axis=0), answer, clear, axis=0)
    with pytest.raises(RuleViolation, match=r"inside a bet exchange.*R15"):
        check_game(TWO_BET, r.log.decks[g], bad, game=g)
    # a clear right after the Bet
    bad = np.insert(np.delete(events, after, axis=0), bet + 1, clear, axis=0)
    with pytest.raises(RuleViolation, match=r"after the Bet, inside a bet exchange.*R15"):
        check_game(TWO_BET, r.log.decks[g], bad, game=g)
    # no clear at all once the exchange has ended: the Bet and the Fold were passes
    bad = np.delete(events, after, axis=0)
    with pytest.raises(RuleViolation, match=r"not cleared"):
        check_game(TWO_BET, r.log.decks[g], bad, game=g)
    # the bettor leading after the clear, not the first player who did not play
    bad = events.copy()
    bad[after, 0] = events[bet, 0]
    with pytest.raises(RuleViolation, match=r"out of turn"):
        check_game(TWO_BET, r.log.decks[g], bad, game=g)


def test_r15_the_referee_refuses_a_bettor_who_plays_or_draws_in_the_bets_turn(logged):
    r = logged["bettor", "raiser"]
    g, events, (bet, resp, answer, after) = _game_with(r, lambda e, x: True)
    b = events[bet, 0]
    deck = r.log.decks[g]
    # the next stock card, as a draw of the bettor's would take it
    top = int(np.flatnonzero(events[:bet, 1] == K.EV_DRAW).size) + TWO_BET.hand_size * 2
    draw = np.array([b, K.EV_DRAW, deck[top], 0], dtype=events.dtype)
    bad = np.insert(events, bet + 1, draw, axis=0)
    with pytest.raises(RuleViolation, match=r"draws in the turn of its Bet.*R15"):
        check_game(TWO_BET, deck, bad, game=g)
    play = np.array([b, K.EV_PLAY, 0, 1], dtype=events.dtype)
    bad = np.insert(events, bet + 1, play, axis=0)
    with pytest.raises(RuleViolation, match=r"plays in the turn of its Bet.*R15"):
        check_game(TWO_BET, deck, bad, game=g)


def test_r15_the_referee_refuses_a_clear_before_a_full_round(logged):
    r = logged["random", "random"]
    # a Raise answered by a fold: one pass since the raise's play
    g, events, (bet, resp, answer, after) = _game_with(
        r, lambda e, x: e[x[1], 1] == K.EV_RAISE and e[x[2], 1] == K.EV_FOLD
        and x[3] < len(e) - 1)
    clear = np.array([1 - events[bet, 0], K.EV_CLEAR, 0, 0], dtype=events.dtype)
    bad = np.insert(events, after, clear, axis=0)
    with pytest.raises(RuleViolation, match=r"round of checks needs 2 \(R15\)"):
        check_game(TWO_BET, r.log.decks[g], bad, game=g)


# -- the referee over many games of the advanced rules -----------------------------------
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_referee_finds_no_violation_in_advanced_rule_games(seed):
    for line_up in [*LINE_UPS, ("raiser", "random")]:
        r = play_matches(TWO_BET, list(line_up), 200, seed=seed, log=True)
        assert check_result(r) == 200
