"""Which categories would win if nobody moved the column: the default-column baseline.

New Order's winning categories (:func:`nop_sim.games.new_order.analysis.winning_categories`)
are read beside the shares of random showdowns under the DEFAULT column, with no draw,
no wild and no Disruptor: shipped in ``data/showdown_baseline.csv`` for one deck
(``scripts/make_baseline_table.py`` writes it), simulated otherwise.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from nop_sim.core.column import DEFAULT_COLUMN, N_CATEGORIES, Category
from nop_sim.core.stats import rate_columns

__all__ = ["CATEGORY_LABELS", "default_baseline", "simulate_baseline_wins"]

CATEGORY_LABELS = tuple(c.label for c in Category)


def simulate_baseline_wins(players: int, n_deals: int, seed: int = 0,
                           decks: int = 1) -> np.ndarray:
    """Winning-category counts (13,) of ``n_deals`` random ``players``-way showdowns.

    Each deal: five hole cards per player and two community cards from
    ``decks`` shuffled decks; everyone shows down under the DEFAULT column,
    no draw, no wild, no Disruptor; the winner's category is the best
    (lowest id) among the players' best categories.
    """
    # the evaluator loads numba; a finished run's analysis needs it only here
    from nop_sim.evaluator import best_category

    rng = np.random.default_rng(seed)
    wins = np.zeros(N_CATEGORIES, np.int64)
    k = int(players)
    block = max(1, 400_000 // k)
    for start in range(0, n_deals, block):
        n = min(block, n_deals - start)
        deck = (np.argsort(rng.random((n, 52 * decks)), axis=1)[:, :5 * k + 2] % 52)
        deck = deck.astype(np.int8)
        hole = deck[:, :5 * k].reshape(n, k, 5)
        board = np.broadcast_to(deck[:, None, 5 * k:], (n, k, 2))
        hands = np.ascontiguousarray(np.concatenate([hole, board], axis=2).reshape(n * k, 7))
        cats = np.asarray(best_category(hands, DEFAULT_COLUMN, decks=decks)).reshape(n, k)
        wins += np.bincount(cats.min(axis=1), minlength=N_CATEGORIES)
    return wins


def _baseline_table() -> pd.DataFrame | None:
    path = Path(__file__).with_name("data") / "showdown_baseline.csv"
    return pd.read_csv(path) if path.exists() else None


def default_baseline(players: float = 4.0, *, decks: int = 1, n_deals: int | None = None,
                     seed: int = 0) -> pd.DataFrame:
    """Winning-category shares of random showdowns under the DEFAULT column.

    The reference for "which categories would win if nobody moved the
    column": ``players``-way showdowns of random seven-card hands (five hole
    + two community cards, one deck), no draw, no wild, no Disruptor (see
    :func:`simulate_baseline_wins`). A fractional ``players`` mixes the two
    neighbouring table sizes so that the mean matches, e.g. 2.3 = 70%
    two-way and 30% three-way showdowns. With one deck and ``n_deals`` None
    the shares come from the shipped table ``data/showdown_baseline.csv``
    (1 000 000 deals per table size, ``scripts/make_baseline_table.py``);
    otherwise they are simulated. The draw makes real showdown hands
    stronger than this baseline.
    """
    players = float(np.clip(players, 2, 8))
    lo = int(np.floor(players))
    frac = players - lo if lo < 8 else 0.0
    table = _baseline_table() if (decks == 1 and n_deals is None) else None
    if table is not None:
        def counts(k: int):
            t = table[table["players"] == k].sort_values("category")
            return t["wins"].to_numpy(float), float(t["deals"].iloc[0])
    else:
        n_deals = n_deals or 40_000

        def counts(k: int):
            return simulate_baseline_wins(k, n_deals, seed=seed + k, decks=decks), n_deals
    w_lo, n_lo = counts(lo)
    shares = w_lo / n_lo
    deals = n_lo
    if frac > 0:
        w_hi, n_hi = counts(lo + 1)
        shares = (1 - frac) * shares + frac * w_hi / n_hi
        deals = min(n_lo, n_hi)
    frame = pd.DataFrame({"category": np.arange(N_CATEGORIES), "label": CATEGORY_LABELS,
                          "wins": shares * deals, "deals": deals})
    return rate_columns(frame, "wins", "deals", "share")
