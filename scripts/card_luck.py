"""How far a chance-event control variate of card luck goes (issue 36's noise goal).

Issue 36 asks for five times fewer matches per interval on a deviation's gain, through
terms of known mean zero subtracted at chance events (AIVAT, Burch et al. 2018). This
script measures the best such a correction does when its value of a state is the cards'
showdown equity: each live seat's share of the pot if the hand were shown down with the
community cards still to come dealt at random (ties split; the seat's wild ranks and
Elevator, the column and Inversion as they stand). At each chance event of a hand,

* the deal (every seat's five cards),
* each draw (the cards a seat draws),
* each community card,

a seat's term is its equity after the event minus its expectation before (over the
event's outcomes, drawn from the stock as the engine draws them), alone and times the pot.
Each has mean zero whatever the policies, so any fixed combination is an unbiased
correction of a match's outcome. Summed over a match, per seat, the terms are regressed
on the seat's win, with coefficients from one half of the matches and the variance kept
measured on the other (cross-fitted): ``factor`` is how many times fewer matches the
corrected win needs for the same interval.

Equities are averages over ``--runouts`` random run-outs, and a draw's or the deal's
expectation over ``--draws`` other outcomes: estimates, but unbiased ones, so the terms
keep their mean of zero. The referee (``games.new_order.referee``) replays each logged
match to give the state at each event.

    nop-sim run S --out RUN --no-report    # S: the field in every seat, log_sample = 1
    python scripts/card_luck.py RUN [--matches N] [--csv OUT]

Measured (5 December 2026, the shipped baseline field in every seat, 1,000 matches
logged, seed 7; the 896 complete logs, 8 minutes): the community cards' terms alone keep
0.815 of the win's variance (1.23 times fewer matches), with the draws' 0.771 (1.30
times), with the deal's too 0.765 (1.31 times). The Disruptor reveals and the players'
own random choices are chance too, and a value of a hand's cards says nothing of what
follows it: five times needs a value of the whole match state (stacks, column, Disruptor
cards held and to come), not of one hand's cards.

A value that foresees the betting still to come weighs a change of equity by the chips at
stake, not by the pot: the most a seat can still win or lose in the hand, its chips and
its bet this hand against the largest such sum of another live seat (``*_stake``, the set
"+ chips at stake"; the weight is known before the event, so each term keeps its mean of
zero). Measured (6 December 2026, the field shipped since stop 52, which plays shorter
matches: 1,000 matches logged, seed 7, 43,791 hands): the three chance events' terms keep
0.827 of the win's variance (1.21 times fewer matches), with the chips at stake too 0.824
(1.21 times): foreseeing the stakes adds nothing. On the first 400 of those matches
with 120 run-outs an equity, not 24, the terms give 1.20 times (1.14 with 24), so the
run-outs' own noise hides little.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from nop_sim.core.errors import RunError
from nop_sim.evaluator import evaluate
from nop_sim.games.new_order import types as T
from nop_sim.games.new_order.history import EVENT_COLUMNS, to_records
from nop_sim.games.new_order.referee.match import _Referee
from nop_sim.results.match_log import load_match_log
from nop_sim.results.store import load_tables

FEATURES = ("deal", "deal_pot", "draw", "draw_pot", "board", "board_pot")
STAKES = ("deal_stake", "draw_stake", "board_stake")  # weighted by at_stake: not zero-sum
SETS = {"community cards": ("board", "board_pot"),
        "+ draws": ("draw", "draw_pot", "board", "board_pot"),
        "+ deal": FEATURES,
        "+ chips at stake": FEATURES + STAKES}


class Equity:
    """Showdown equities of a replayed hand's live seats (see the module)."""

    def __init__(self, settings, rng: np.random.Generator, runouts: int, draws: int):
        self.settings, self.rng, self.runouts, self.draws = settings, rng, runouts, draws

    def shares(self, ref: _Referee, live: list[int], hands: list[np.ndarray],
               runs: np.ndarray) -> np.ndarray:
        """``(len(live),)`` mean pot shares: ``hands[i]`` ``(m, c)`` the cards of seat
        ``live[i]`` (board included) for each of the ``m`` run-outs ``runs``."""
        h, m = ref.h, runs.shape[0]
        seats = [h.seats[p] for p in live]
        cards = np.concatenate([np.concatenate([hd, runs], axis=1) for hd in hands])
        wild = np.repeat([s.wild_ranks for s in seats], m)
        elev = np.repeat([sum(1 << c for c in range(13) if s.elevation[c] > 0)
                          for s in seats], m)
        score = evaluate(cards, np.array(ref.column), wild_ranks=wild, elevated=elev,
                         inverted=bool(h.inverted), decks=self.settings.decks)
        score = score.reshape(len(live), m)
        win = score == score.max(axis=0)
        return (win / win.sum(axis=0)).mean(axis=1)

    def runs(self, stock: np.ndarray, n: int) -> np.ndarray:
        if n == 0:
            return np.zeros((1, 0), np.int64)
        return np.stack([self.rng.choice(stock, n, replace=False) for _ in range(self.runouts)])

    def now(self, ref: _Referee, live: list[int], to_come: int) -> np.ndarray:
        """Each live seat's equity with its cards now and ``to_come`` community cards."""
        h = ref.h
        runs = self.runs(_stock(ref), to_come)
        return self.shares(ref, live, [_rows(h.hole[p] + h.board, runs) for p in live], runs)

    def before_draw(self, ref: _Referee, live: list[int], seat: int, kept: list[int],
                    n_new: int, to_come: int) -> np.ndarray:
        """The expectation, over the cards seat ``seat`` may draw, of :meth:`now` after it."""
        h, stock, total = ref.h, _stock(ref), np.zeros(len(live))
        for _ in range(self.draws):
            order = self.rng.permutation(stock.size)
            drawn, rest = stock[order[:n_new]], stock[order[n_new:]]
            runs = self.runs(rest, to_come)
            hands = [_rows((kept + drawn.tolist() if p == seat else h.hole[p]) + h.board, runs)
                     for p in live]
            total += self.shares(ref, live, hands, runs)
        return total / self.draws

    def before_deal(self, ref: _Referee, live: list[int], to_come: int) -> np.ndarray:
        """The expectation, over every deal the stock allowed, of :meth:`now` after it."""
        h = ref.h
        stock = np.concatenate([_stock(ref), np.concatenate([h.hole[p] for p in live])])
        total = np.zeros(len(live))
        for _ in range(self.draws):
            order = self.rng.permutation(stock.size)
            dealt, rest = stock[order[:5 * len(live)]], stock[order[5 * len(live):]]
            runs = self.runs(rest, to_come)
            total += self.shares(ref, live, [_rows(dealt[5 * i:5 * i + 5], runs)
                                             for i in range(len(live))], runs)
        return total / self.draws


def _stock(ref: _Referee) -> np.ndarray:
    return np.array(sorted(ref.stock.elements()), np.int64)


def _rows(cards, runs: np.ndarray) -> np.ndarray:
    cards = np.asarray(cards, np.int64)
    return np.broadcast_to(cards, (runs.shape[0], cards.size))


def at_stake(reach: dict[int, int], live: list[int]) -> list[int]:
    """The chips each seat of ``live`` can still win or lose in the hand: its ``reach``
    (chips left and bet this hand) against the largest reach of another live seat."""
    return [min(reach[p], max(reach[q] for q in live if q != p)) for p in live]


def match_terms(settings, records: list[dict], eq: Equity) -> pd.DataFrame:
    """One row per seat of a complete logged match: ``won``, ``total`` (the chips at the
    start) and each of :data:`FEATURES` and :data:`STAKES` summed over the match (chips
    for ``*_pot`` and ``*_stake``)."""
    ref = _Referee(settings)
    n = settings.players
    terms = {k: np.zeros(n) for k in FEATURES + STAKES}
    winner, total = -1, 0.0

    def add(kind: str, live: list[int], before, after, pot: float) -> None:
        # a card changes no chips: the stakes after the event are those before it
        stake = at_stake({q: ref.chips[q] + ref.h.committed[q] for q in live}, live)
        for i, p in enumerate(live):
            terms[kind][p] += after[i] - before[i]
            terms[f"{kind}_pot"][p] += pot * (after[i] - before[i])
            terms[f"{kind}_stake"][p] += stake[i] * (after[i] - before[i])

    for r in records:
        event, h = r["event"], getattr(ref, "h", None)
        live = [p for p in h.order if not h.folded[p]] if h is not None else []
        quiet = ref.restock is None  # a restock's new stock is not the one drawn from
        if event == "board" and len(live) >= 2 and quiet:
            pot, later = ref.pot_total(), 0 if h.board else 1
            before = eq.now(ref, live, len(r["cards"]) - len(h.board) + later)
            ref.event(r)
            add("board", live, before, eq.now(ref, live, later), pot)
            continue
        if event == "hole" and len(live) >= 2 and quiet and ref.pending_keep[2] > 0:
            seat, kept, n_new, _ = ref.pending_keep
            pot, to_come = ref.pot_total(), h.third + 1
            before = eq.before_draw(ref, live, seat, list(kept), n_new, to_come)
            ref.event(r)
            add("draw", live, before, eq.now(ref, live, to_come), pot)
            continue
        ref.event(r)
        h = getattr(ref, "h", None)
        if event == "deal" and len(h.hole) == len(h.order) and quiet:
            to_come = h.third + 1
            add("deal", list(h.order), eq.before_deal(ref, list(h.order), to_come),
                eq.now(ref, list(h.order), to_come), ref.pot_total())
        elif event == "match_start":
            total = float(sum(ref.chips))
        elif event == "match_end":
            winner = r["winner"]
    return pd.DataFrame({"seat": np.arange(n), "won": (np.arange(n) == winner).astype(float),
                         "total": total, **terms})


def factor(frame: pd.DataFrame, features) -> tuple[float, float]:
    """``(variance kept, times fewer matches)`` of the win corrected by ``features`` (in
    shares of the chips), coefficients cross-fitted over two halves of the matches."""
    y = frame["won"].to_numpy()
    x = frame[list(features)].to_numpy() / frame[["total"]].to_numpy()
    half = frame["match"].to_numpy() % 2
    left = np.empty_like(y)
    for k in (0, 1):
        fit, use = half != k, half == k
        beta, *_ = np.linalg.lstsq(x[fit] - x[fit].mean(axis=0), y[fit] - y[fit].mean(),
                                   rcond=None)
        left[use] = y[use] - x[use] @ beta  # every term has mean 0: nothing to centre
    kept = float(left.var() / y.var())
    return kept, 1.0 / kept


def luck_table(run: Path, matches: int, runouts: int, draws: int, seed: int) -> pd.DataFrame:
    """:func:`match_terms` of the first ``matches`` complete logs of a one-point run."""
    events = load_tables(run, ("events",))["events"]
    if events.empty:
        raise RunError(f"{run}: no logged match (run it with [run] log_sample = 1)")
    settings = load_match_log(run, int(events["match"].iloc[0])).settings
    eq = Equity(settings, np.random.default_rng(seed), runouts, draws)
    frames = []
    for match, g in events.groupby("match", sort=True):
        kinds = g["kind"].to_numpy()
        if not ((kinds == T.EV_MATCH_START).any() and (kinds == T.EV_MATCH_END).any()):
            continue  # a log cut short
        rows = g[list(EVENT_COLUMNS)].to_numpy(np.int64)
        frames.append(match_terms(settings, list(to_records(rows)), eq).assign(match=match))
        if len(frames) == matches:
            break
    return pd.concat(frames, ignore_index=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("run", type=Path, help="a one-point run folder that logged every match")
    ap.add_argument("--matches", type=int, default=10**9, help="at most this many logs")
    ap.add_argument("--runouts", type=int, default=24, help="run-outs an equity averages")
    ap.add_argument("--draws", type=int, default=12, help="outcomes a draw's or deal's "
                                                          "expectation averages")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--csv", type=Path, help="write each match's and seat's terms here")
    a = ap.parse_args()
    try:
        table = luck_table(a.run, a.matches, a.runouts, a.draws, a.seed)
    except RunError as exc:  # not a run, no log: one line
        raise SystemExit(str(exc)) from None
    if a.csv:
        table.to_csv(a.csv, index=False)
    print(f"{table['match'].nunique():,} complete logged matches, {len(table):,} seats; "
          f"the win's variance {table['won'].var():.4f}")
    for name, features in SETS.items():
        kept, times = factor(table, features)
        print(f"corrected by the {name} terms: {kept:.3f} of it kept, "
              f"{times:.2f} times fewer matches")


if __name__ == "__main__":
    main()
