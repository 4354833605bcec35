"""Readable histories of logged Kuhn poker hands (what ``nop-sim hands`` prints), rebuilt
from the event rows alone (:mod:`.types`)."""

from __future__ import annotations

from collections.abc import Sequence

from nop_sim.games.kuhn.types import EV_BET, EV_DEAL, EV_PASS, EV_RESULT, EVENT_SCHEMA

__all__ = ["hand_records", "render_hand"]


def render_hand(events, names: Sequence[str], number: int = 1) -> str:
    """One hand as text: the cards, each action in words, who takes the pot and each
    seat's chips.

    ``events``: rows ``player, kind, a, b`` of the hand (:mod:`.types`); ``names``: a
    label per seat (``Seat 0 (uniform)``); ``number``: the hand's number in the header.
    """
    rows = [tuple(int(x) for x in e) for e in events]
    players = len(names)
    cards = {p: a for p, k, a, _ in rows if k == EV_DEAL}
    width = max(len(s) for s in names)
    lines = [f"Hand {number}: three-player Kuhn poker (cards 0 to 3, ante 1, bet 1); "
             f"{names[0]} acts first"]
    lines += [f"  {names[p]:<{width}}  card {cards.get(p, '?')}" for p in range(players)]
    history, live, pot = "", set(range(players)), players   # every seat antes 1
    for p, kind, _, _ in rows:
        if kind not in (EV_PASS, EV_BET):
            continue
        facing = "b" in history
        if kind == EV_BET:
            word = "calls 1" if facing else "bets 1"
            pot += 1
        else:
            word = "folds" if facing else "passes"
            if facing:
                live.discard(p)
        infoset = f"{cards.get(p, '?')}{history}"
        history += "b" if kind == EV_BET else "p"
        lines.append(f"  {len(history)}. {names[p]:<{width}}  {word:<8} (infoset {infoset})")
    result = {p: (a, b) for p, k, a, b in rows if k == EV_RESULT}
    winner = next((p for p, (_, place) in result.items() if place == 1), None)
    if winner is not None:
        how = ("everyone else folded" if len(live) == 1 else "showdown of " + ", ".join(
            f"{names[p]} with {cards.get(p, '?')}" for p in sorted(live)))
        lines.append(f"History {history}: {names[winner]} takes the pot of {pot} ({how})")
    lines += [f"  {names[p]:<{width}}  {result[p][0]:+d} chips"
              for p in range(players) if p in result]
    return "\n".join(lines)


def hand_records(events, match: int) -> list[dict]:
    """The raw events of one hand as JSON-ready dicts."""
    out = []
    for p, k, a, b in events:
        name, fields = EVENT_SCHEMA[int(k)]
        out.append({"match": match, "player": int(p), "event": name,
                    **dict(zip(fields, (int(a), int(b)), strict=False))})
    return out
