"""Replay logged Kuhn poker hands in plain Python and check every rule.

The referee reads only the log (:mod:`.types`) and the rows the seats played, and
keeps its own account of the hand: who is to act, when the hand is over, who
folded, what each seat put in and who takes the pot. It checks

- the deal: each seat one card, three different cards from 0 to 3;
- the turn order: seat 0 first, then round the table; after three passes the
  hand is over, after a bet each other seat answers once, then it is over;
- each action's place in the history and its infoset (the card, then the
  history so far, in OpenSpiel's spelling);
- each action against the seat's row: a chance of 0 never bets, 1 always does;
- the result: the highest card among the seats that did not fold takes the pot,
  every seat's net chips (the chips sum to 0) and places (1 the winner, else 2).
"""

from __future__ import annotations

from collections.abc import Sequence

from nop_sim.core.errors import RuleViolation
from nop_sim.games.kuhn.tree import INFOSETS
from nop_sim.games.kuhn.types import EV_BET, EV_DEAL, EV_PASS, EV_RESULT

__all__ = ["RuleViolation", "check_hand"]

SEATS = 3


def _require(ok: bool, what: str) -> None:
    if not ok:
        raise RuleViolation(what)


def check_hand(events, rows: Sequence[Sequence[float]]) -> None:
    """Check one logged hand: ``events`` rows ``player, kind, a, b``; ``rows`` the chance to
    bet at each of the 48 infosets of each seat's row (3 lists). Raises
    :class:`~nop_sim.core.errors.RuleViolation` at the first broken rule."""
    events = [tuple(int(x) for x in e) for e in events]
    deal = {p: a for p, k, a, _ in events if k == EV_DEAL}
    _require(sorted(deal) == list(range(SEATS)) and len(deal) == sum(
        1 for e in events if e[1] == EV_DEAL), f"the deal must give each seat one card: {deal}")
    _require(len(set(deal.values())) == SEATS and all(0 <= c <= 3 for c in deal.values()),
             f"three different cards from 0 to 3 are dealt, got {deal}")
    history, to_act, bettor, over = "", 0, None, False
    put, folded = [1] * SEATS, [False] * SEATS
    for p, kind, a, b in (e for e in events if e[1] in (EV_PASS, EV_BET)):
        _require(not over, f"an action after the hand was over (history {history})")
        _require(p == to_act, f"seat {p} acted where seat {to_act} was to act "
                              f"(history {history!r})")
        _require(a == len(history), f"action {a} logged as the {len(history)}th")
        seen = f"{deal[p]}{history}"
        _require(0 <= b < len(INFOSETS) and INFOSETS[b] == seen,
                 f"the action's infoset is {seen!r}, logged as column {b}")
        chance = float(rows[p][b])
        bets = kind == EV_BET
        _require(not (chance == 0.0 and bets) and not (chance == 1.0 and not bets),
                 f"seat {p} {'bet' if bets else 'passed'} at {seen!r} with a chance to bet "
                 f"of {chance}")
        if bets:
            put[p] += 1
            if bettor is None:
                bettor = p
        elif bettor is not None:
            folded[p] = True
        history += "b" if bets else "p"
        to_act = (to_act + 1) % SEATS
        over = (len(history) == SEATS) if bettor is None else to_act == bettor
    _require(over, f"the hand stopped before its end (history {history!r})")
    live = [s for s in range(SEATS) if not folded[s]]
    winner = max(live, key=lambda s: deal[s])
    net = [-put[s] + (sum(put) if s == winner else 0) for s in range(SEATS)]
    result = {p: (a, b) for p, k, a, b in events if k == EV_RESULT}
    _require(sorted(result) == list(range(SEATS)), f"each seat needs one result: {result}")
    for s in range(SEATS):
        _require(result[s][0] == net[s], f"seat {s} ends with {result[s][0]:+d} chips, the "
                                         f"rules say {net[s]:+d} (history {history!r})")
        _require(result[s][1] == (1 if s == winner else 2),
                 f"seat {s}'s place is {result[s][1]}; seat {winner} takes the pot")
    _require(sum(r[0] for r in result.values()) == 0, "chips are not conserved")
