"""Where a field's chips move: the ceiling of an all-in equity control variate (issue 36).

Issue 36 asks for five times fewer matches per interval, through a control variate
that subtracts, at chance events, a term of known mean zero (AIVAT). The cheapest such
term corrects a hand whose players are all in before its last community card: from
there no decision is left in the betting, and the chips each gets are their equity plus
luck. This script reads a run that logged every match (``[run] log_sample = 1``) and
says how much of the chips' movement such hands hold: the share of hands, and the share
of the sum of squared chip moves (each seat's change over a hand, in shares of all
chips), for

* hands that reached a showdown;
* hands with two or more players contesting and at most one able to bet when the last
  community card came (all in before the last card);
* the same before the first community card.

A correction of the all-in hands can remove at most their share (less, since their
outcome is only partly luck); the rest of the movement, showdowns that were bet to the
end, needs a value of every mid-hand state.

    nop-sim run S --out RUN --no-report    # S: the field in every seat, log_sample = 1
    python scripts/chip_luck.py RUN

Measured (5 December 2026, the shipped baseline field in every seat, 1,000 matches
logged, seed 7; 896 matches' logs complete, 64,252 hands): showdowns are 39.7% of
hands and 98.2% of the squared chip moves; all in before the last card, 9.8% of hands
and 40.0%; before the first card, 6.7% and 29.8%.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from nop_sim.core.errors import RunError
from nop_sim.games.new_order import types as T
from nop_sim.games.new_order.history import ACTIONS
from nop_sim.results.store import load_tables, read_manifest

FOLD = ACTIONS.index("fold")  # an action event's first argument


def hand_rows(events):
    """One dict a hand: ``showdown``, ``allin_last``, ``allin_first`` and ``moved`` (the
    sum over seats of the squared chip change, in shares of all chips)."""
    args = [f"a{i}" for i in range(T.EV_ARGS)]
    for _match, g in events.groupby("match", sort=True):
        start = g[g["kind"] == T.EV_MATCH_START]
        if start.empty or not (g["kind"] == T.EV_MATCH_END).any():
            continue  # a log cut short
        players, chips = int(start["a0"].iloc[0]), int(start["a1"].iloc[0])
        total = float(players * chips)
        held = np.full(players, float(chips))
        for hand, hg in g.groupby("hand", sort=False):
            if hand == 0:
                continue
            kind, seat, a = hg["kind"].to_numpy(), hg["seat"].to_numpy(), hg[args].to_numpy()
            live = set(np.flatnonzero(held > 0).tolist())
            all_in: set[int] = set()
            folded: set[int] = set()
            at_board = []  # (contesting, able to bet) as each community card comes
            for i in range(len(kind)):
                if kind[i] == T.EV_ANTE and a[i, 1] == 1:
                    all_in.add(int(seat[i]))
                elif kind[i] == T.EV_ACTION:
                    if a[i, 0] == FOLD:
                        folded.add(int(seat[i]))
                    if a[i, 4] == 1:
                        all_in.add(int(seat[i]))
                elif kind[i] == T.EV_BOARD:
                    contest = live - folded
                    at_board.append((len(contest), len(contest - all_in)))
            end = np.flatnonzero(kind == T.EV_HAND_END)
            if not end.size:
                continue
            after = np.maximum(a[end[-1], :players].astype(float), 0.0)
            moved = float((((after - held) / total) ** 2).sum())
            last = at_board[-1] if at_board else (0, 0)
            first = at_board[0] if at_board else (0, 0)
            yield {"showdown": bool((kind == T.EV_SHOW).any()),
                   "allin_last": last[0] >= 2 and last[1] <= 1,
                   "allin_first": first[0] >= 2 and first[1] <= 1, "moved": moved}
            held = after


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run", type=Path, help="a run folder that logged every match")
    a = ap.parse_args()
    try:
        read_manifest(a.run)
        events = load_tables(a.run, ("events",))["events"]
    except RunError as exc:  # a folder that is not a run, or has no event log: one line
        raise SystemExit(str(exc)) from None
    rows = list(hand_rows(events))
    if not rows:
        raise SystemExit(f"{a.run}: no logged match (run it with [run] log_sample = 1)")
    moved = np.array([r["moved"] for r in rows])
    print(f"{len(rows):,} hands of {events['match'].nunique():,} logged matches")
    for key, what in (("showdown", "reached a showdown"),
                      ("allin_last", "all in before the last community card"),
                      ("allin_first", "all in before the first community card")):
        mask = np.array([r[key] for r in rows])
        print(f"{what}: {mask.mean():.1%} of hands, {moved[mask].sum() / moved.sum():.1%} "
              f"of the squared chip moves")


if __name__ == "__main__":
    main()
