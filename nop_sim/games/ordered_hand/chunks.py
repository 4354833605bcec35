"""One runner chunk of Ordered Hand as the store's tables, the registry's ``play_chunk``:
``matches`` (one row per game), ``seats``, ``counts``, ``events`` (rows, appended) and
``arrays`` (blocks played by category and size, summed); see :func:`play_chunk`.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from nop_sim.core.column import Category
from nop_sim.core.profiling import phase
from nop_sim.games.ordered_hand.engine import DECK_EVENT
from nop_sim.games.ordered_hand.kernels import play as K
from nop_sim.games.ordered_hand.policy import play_seats
from nop_sim.games.ordered_hand.seats import seat_label

__all__ = ["play_chunk"]


_BET_COLUMNS = ("bets_made", "bets_won", "folds", "calls", "raises")


def _places(won: np.ndarray, cards_left: np.ndarray) -> np.ndarray:
    """int8 (n, players) finishing places: winners 1 (a shared win: all 1), the
    others after them by cards left (fewer is better, equal counts share a place)."""
    n_winners = won.sum(axis=1, keepdims=True)
    left = np.where(won, np.iinfo(np.int32).max, cards_left.astype(np.int64))
    better = (left[:, None, :] < left[:, :, None]).sum(axis=2)  # losers holding fewer cards
    return np.where(won, 1, n_winners + 1 + better).astype(np.int8)


def play_chunk(scn, chunk) -> dict[str, pd.DataFrame]:
    """Play one runner chunk of an ``ordered-hand`` scenario; the store's tables.

    Game ``g`` of the run seats rotation ``g % R`` of ``[seats] rotate``; each
    rotation's games of the chunk are one serial call seeded from ``chunk.seed``
    (see :meth:`nop_sim.run.planning.Chunk.rotation_batches`), so a chunk's rows never
    depend on the worker count or the order chunks finish in.

    Tables
    ------
    matches : one row per game: ``point, chunk, match, rotation``, the swept
        settings, ``players, hand_size, betting``, ``first_player``, ``winner``
        (seat, -1 for a shared win), ``winner_preset`` ("" when shared),
        ``n_winners, shared, end`` (emptied / stock_out / shared / capped),
        ``turns``, ``cards_drawn``, ``middle_clears``, ``plays``, ``checks``,
        ``plays_size_1..5``, ``plays_<category>``, the bet counts
        (``bets_made, bets_won, folds, calls, raises``; zero without the
        advanced rules).
    seats : one row per (game, seat): ``preset``, ``place`` (1 = winner, every
        sharer of a shared win is 1; then by cards left), ``won``,
        ``cards_left``, ``is_first``, ``bets_made``, ``bets_won``.
    counts : one row per chunk: ``n_matches``, sums of the game counters
        (``turns`` is the game's unit of work: the CLI's "turns/s"), and games
        by end kind.
    arrays : long table ``point, table, stat, index, label, value``: table
        ``plays``, stat ``category`` (index = category id) and ``size`` (index
        = block length). One deck makes the size a function of the category,
        so the two together give the size x category table.
    events : with ``[run] log_sample = N``, the log of every game whose id is a
        multiple of N: rows ``point, chunk, match, player, kind, a, b``, the
        game's 52-card deck first (kind :data:`DECK_EVENT`, a = position,
        b = card), then its events (kinds ``K.EV_*``) in order.
    """
    point = scn.points()[chunk.point]
    settings = scn.settings_at(point)
    n, players = chunk.n_matches, settings.players
    # Seats rotate per game, as New Order's rotate per match: game g sits
    # rotation g % R; each rotation's games are one serial batch with its own seed.
    rotation, batches = chunk.rotation_batches(scn.n_rotations)
    labels = [[seat_label(s) for s in scn.seat_specs(point, r)]
              for r in range(scn.n_rotations)]
    games = np.zeros((n, K.N_FIELDS), dtype=np.int32)
    logs = []
    res = None
    for r, idx, seed in batches:
        specs = scn.seat_specs(point, r)
        with phase("simulation"):
            res = play_seats(settings, specs, int(idx.size), seed, log=scn.log_sample > 0)
        games[idx] = res.games
        if res.log is not None:
            logs.append(_logged_games(res.log, chunk.first_match + idx, scn.log_sample))
    res = replace(res, games=games, agent_names=(), agents=())
    g = res.games
    game_labels = np.array(labels, dtype=object)[rotation]  # (n, players)
    match_ids = (chunk.first_match + np.arange(n)).astype(np.int64)
    base = {"point": np.full(n, chunk.point, dtype=np.int64),
            "chunk": np.full(n, chunk.index, dtype=np.int64),
            "match": match_ids, "rotation": rotation.astype(np.int64)}
    params = {k: [v] * n for k, v in point.items()}
    rec = res.records()
    won = res.winners()
    end = np.asarray(K.END_NAMES, dtype=object)[g[:, K.F_END]]
    winner = rec["winner"].to_numpy().astype(np.int64)
    bets = {c: (rec[c].to_numpy().astype(np.int32) if c in rec else np.zeros(n, np.int32))
            for c in _BET_COLUMNS}
    size_cols = [f"plays_size_{s}" for s in range(1, 6)]
    cat_cols = [f"plays_{cat.name.lower()}" for cat in Category]
    matches = pd.DataFrame({
        **base, **params,
        "players": np.full(n, players, dtype=np.int64),
        "hand_size": np.full(n, settings.hand_size, dtype=np.int64),
        "betting": np.full(n, settings.betting),
        "first_player": rec["first_player"].to_numpy().astype(np.int64),
        "winner": winner,
        "winner_preset": [game_labels[i, w] if w >= 0 else "" for i, w in enumerate(winner)],
        "n_winners": rec["n_winners"].to_numpy().astype(np.int64),
        "shared": rec["n_winners"].to_numpy() > 1,
        "end": end,
        **{c: rec[c].to_numpy().astype(np.int32)
           for c in ("turns", "cards_drawn", "middle_clears", "plays", "checks",
                     *size_cols, *cat_cols)},
        **bets,
    })
    cards_left = g[:, K.F_CARDS_LEFT : K.F_CARDS_LEFT + players]
    seat_bets = g[:, K.F_BETS : K.F_BETS + players]
    seat_bets_won = g[:, K.F_BETS_WON : K.F_BETS_WON + players]
    first = g[:, K.F_FIRST]
    seats = pd.DataFrame({
        "point": np.repeat(base["point"], players), "chunk": np.repeat(base["chunk"], players),
        "match": np.repeat(match_ids, players),
        "seat": np.tile(np.arange(players, dtype=np.int64), n),
        "preset": game_labels.reshape(-1),
        **{k: np.repeat(np.array(v, dtype=object), players) for k, v in params.items()},
        "place": _places(won, cards_left).reshape(-1),
        "won": won.reshape(-1),
        "cards_left": cards_left.reshape(-1).astype(np.int16),
        "is_first": (first[:, None] == np.arange(players)).reshape(-1),
        "bets_made": seat_bets.reshape(-1).astype(np.int32),
        "bets_won": seat_bets_won.reshape(-1).astype(np.int32),
    })
    counts = pd.DataFrame({
        "point": [chunk.point], "chunk": [chunk.index], "n_matches": [n],
        **{k: [v] for k, v in point.items()},
        **{c: [int(matches[c].sum())]
           for c in ("turns", "cards_drawn", "middle_clears", "plays", "checks", *_BET_COLUMNS)},
        **{f"end_{name}": [int((end == name).sum())] for name in K.END_NAMES},
    })
    by_cat = g[:, K.F_CAT : K.F_CAT + K.N_CATEGORIES].sum(axis=0).astype(np.int64)
    by_size = g[:, K.F_SIZE : K.F_SIZE + 5].sum(axis=0).astype(np.int64)
    arrays = pd.DataFrame({
        "point": chunk.point,
        "table": "plays",
        "stat": ["category"] * K.N_CATEGORIES + ["size"] * 5,
        "index": np.r_[np.arange(K.N_CATEGORIES), np.arange(1, 6)].astype(np.int64),
        "label": [Category(c).label for c in range(K.N_CATEGORIES)]
                 + [str(s) for s in range(1, 6)],
        "value": np.r_[by_cat, by_size],
    })
    rows = (np.concatenate(logs) if logs else np.zeros((0, 5), np.int64))
    rows = rows[np.argsort(rows[:, 0], kind="stable")]
    events = pd.DataFrame({"point": np.full(len(rows), chunk.point, np.int64),
                           "chunk": np.full(len(rows), chunk.index, np.int64),
                           **{c: rows[:, i] for i, c in enumerate(_EVENT_COLUMNS)}})
    return {"matches": matches, "seats": seats, "counts": counts,
            "arrays": arrays, "events": events}


_EVENT_COLUMNS = ("match", "player", "kind", "a", "b")


def _logged_games(log, match_ids: np.ndarray, every: int) -> np.ndarray:
    """int64 rows ``match, player, kind, a, b`` of the games whose run id is a multiple
    of ``every``: each game's deck first (kind :data:`DECK_EVENT`), then its events."""
    parts = []
    for i in np.flatnonzero(match_ids % every == 0):
        m = int(match_ids[i])
        deck = np.column_stack([np.full(K.DECK_SIZE, m), np.full(K.DECK_SIZE, -1),
                                np.full(K.DECK_SIZE, DECK_EVENT), np.arange(K.DECK_SIZE),
                                log.decks[i]])
        ev = log.game_events(i).astype(np.int64)
        parts += [deck, np.column_stack([np.full(len(ev), m), ev])]
    return np.concatenate(parts).astype(np.int64) if parts else np.zeros((0, 5), np.int64)
