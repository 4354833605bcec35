"""Exact values of three-player Kuhn poker: expected payoffs, best responses, NashConv.

The game is small enough to enumerate: 24 deals, 12 decision histories and 13
terminal ones (:mod:`.tree`). A *profile* is the chance to bet (or call) at each
of the 48 infosets, float ``(48,)`` (every seat reads its own columns of one row)
or ``(3, 48)`` (seat ``s`` reads row ``s``: seats given different rows).

* :func:`expected_payoffs` -- each seat's expected chips per hand.
* :func:`best_response` -- a seat's best reply to the others, exactly: walked from
  the leaves up, each of its infosets chooses the action whose value, weighted by
  the chance of each deal and the others' play to reach it (the reach of the
  hidden cards), is larger. The seat's own earlier choices weigh every deal of an
  infoset alike (perfect recall), so they never change a choice.
* :func:`nash_conv` -- the sum over seats of what a best response gains over the
  profile: 0 exactly at a Nash equilibrium. Uniform play has 2.0625 (OpenSpiel's
  published figure); OpenSpiel's CFR reaches 0.0126 after 300 iterations.
* :func:`behaviour` -- the behaviour policy of a symmetric mixture of rows (a field:
  each seat draws its row from the weights, independently), which plays exactly as
  the mixture does (Kuhn's theorem: perfect recall).

A training's field is a symmetric mixture, and ``nop-sim exploit`` puts one row in
each seat in turn: the most a row gains there, averaged over seats, is
``nash_conv / 3`` (:func:`exploitability`), since a row holds a separate choice for
every seat's infosets. ``tests/kuhn_reference.py`` checks the best response
against a brute-force search of every pure policy of a seat.
"""

from __future__ import annotations

import numpy as np

from nop_sim.games.kuhn.tree import (
    CARDS,
    DEALS,
    HISTORIES,
    N_DEALS,
    N_INFOSETS,
    NODE_OF,
    PLAYERS,
    TERMINAL_PAYOFF,
    TERMINALS,
    actor,
    column,
)

__all__ = ["behaviour", "best_response", "expected_payoffs", "exploitability", "nash_conv",
           "per_seat"]

_TERMINAL_OF = {h: i for i, h in enumerate(TERMINALS)}
_DEEPEST_FIRST = sorted(HISTORIES, key=len, reverse=True)


def per_seat(profile) -> np.ndarray:
    """A profile as float ``(3, 48)``: a single row is every seat's."""
    p = np.asarray(profile, dtype=np.float64)
    if p.shape == (N_INFOSETS,):
        p = np.repeat(p[None, :], PLAYERS, axis=0)
    if p.shape != (PLAYERS, N_INFOSETS):
        raise ValueError(f"a Kuhn profile is float ({N_INFOSETS},) or ({PLAYERS}, "
                         f"{N_INFOSETS}), got shape {p.shape}")
    if not ((p >= 0) & (p <= 1)).all():
        raise ValueError("a Kuhn profile's chances to bet must lie in [0, 1]")
    return p


def _bet_chance(p: np.ndarray, history: str) -> np.ndarray:
    """float ``(24,)``: the chance the player to act after ``history`` bets, in each deal."""
    seat = actor(history)
    return p[seat, column(NODE_OF[history], 0) + DEALS[:, seat].astype(np.int64)]


def _walk(p: np.ndarray, br_seat: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Every seat's expected chips from the root in each deal, float ``(24, 3)``, with
    ``br_seat`` (if given) playing its best response; and that response, float ``(48,)``
    (its infosets 0 or 1, the others NaN)."""
    reach = {"": np.full(N_DEALS, 1.0 / N_DEALS)}   # chance and the others' play
    for h in HISTORIES:                             # shorter first: parents before children
        q = _bet_chance(p, h)
        mine = actor(h) == br_seat
        reach[h + "p"] = reach[h] * (1.0 if mine else 1.0 - q)
        reach[h + "b"] = reach[h] * (1.0 if mine else q)
    value = {t: TERMINAL_PAYOFF[:, i].astype(np.float64) for t, i in _TERMINAL_OF.items()}
    choice = np.full(N_INFOSETS, np.nan)
    for h in _DEEPEST_FIRST:
        seat = actor(h)
        passed, bet = value[h + "p"], value[h + "b"]
        if seat != br_seat:
            q = _bet_chance(p, h)[:, None]
            value[h] = (1.0 - q) * passed + q * bet
            continue
        out = passed.copy()
        for card in range(CARDS):
            deals = DEALS[:, seat] == card
            gain = np.dot(reach[h][deals], bet[deals, seat] - passed[deals, seat])
            takes = gain > 1e-12        # a tie passes
            choice[column(NODE_OF[h], card)] = float(takes)
            if takes:
                out[deals] = bet[deals]
        value[h] = out
    return value[""], choice


def expected_payoffs(profile) -> np.ndarray:
    """float ``(3,)``: each seat's expected net chips per hand under ``profile``."""
    return _walk(per_seat(profile))[0].mean(axis=0)


def best_response(profile, seat: int) -> tuple[float, np.ndarray]:
    """``seat``'s best response to the others' play in ``profile``: its expected chips per
    hand, and the response as float ``(48,)``: 1 (bet or call) or 0 (pass or fold) at the
    seat's 16 infosets, NaN elsewhere. Where both actions are worth the same (an infoset
    no deal reaches, or a true tie) it passes."""
    if seat not in range(PLAYERS):
        raise ValueError(f"seat must be 0, 1 or 2, got {seat!r}")
    values, choice = _walk(per_seat(profile), seat)
    return float(values[:, seat].mean()), choice


def nash_conv(profile) -> float:
    """The sum over seats of (best response value - the profile's value), in chips per
    hand: 0 exactly at a Nash equilibrium."""
    p = per_seat(profile)
    now = expected_payoffs(p)
    return float(sum(best_response(p, s)[0] - now[s] for s in range(PLAYERS)))


def behaviour(rows, weights) -> np.ndarray:
    """The behaviour policy, float ``(48,)``, of a symmetric mixture: ``rows`` float
    ``(K, 48)``, ``weights`` ``(K,)``, each seat drawing its row independently.

    At each infoset, each row's chance to bet weighs by the row's weight times the row's
    own chance of reaching the infoset (the product of its seat's earlier choices in the
    history, with that card); where no row reaches it, by the weights alone.
    """
    rows = np.atleast_2d(np.asarray(rows, dtype=np.float64))
    w = np.asarray(weights, dtype=np.float64)
    if rows.shape[1:] != (N_INFOSETS,) or w.shape != (rows.shape[0],):
        raise ValueError(f"behaviour: rows must be (K, {N_INFOSETS}) and weights (K,), got "
                         f"{rows.shape} and {w.shape}")
    w = w / w.sum()
    out = np.empty(N_INFOSETS)
    for h in HISTORIES:
        seat = actor(h)
        for card in range(CARDS):
            own = np.ones(rows.shape[0])
            for i in range(seat, len(h), PLAYERS):  # the seat's own earlier actions
                q = rows[:, column(NODE_OF[h[:i]], card)]
                own = own * (q if h[i] == "b" else 1.0 - q)
            col = column(NODE_OF[h], card)
            reach = w * own
            weight = reach if reach.sum() > 0 else w
            out[col] = float(np.dot(weight, rows[:, col]) / weight.sum())
    # a weighted mean of chances that are all 1 can round to 1 + 2**-52: still a chance
    return np.clip(out, 0.0, 1.0)


def exploitability(rows, weights) -> dict[str, float]:
    """The exact figures of a symmetric mixture field (chips per hand): ``nash_conv``,
    ``gain_per_seat`` (``nash_conv / 3``: what the best single row gains in one seat,
    averaged over the seats, which ``nop-sim exploit`` searches for) and each seat's
    ``value_<s>`` and ``best_<s>`` (the field's and a best response's)."""
    p = behaviour(rows, weights)
    now = expected_payoffs(p)
    best = [best_response(p, s)[0] for s in range(PLAYERS)]
    total = float(sum(b - v for b, v in zip(best, now, strict=True)))
    return {"nash_conv": total, "gain_per_seat": total / PLAYERS,
            **{f"value_{s}": float(now[s]) for s in range(PLAYERS)},
            **{f"best_{s}": float(best[s]) for s in range(PLAYERS)}}
