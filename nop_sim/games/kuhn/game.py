"""Three-player Kuhn poker as a registered game (OpenSpiel's ``kuhn_poker``, ``players=3``).

A match is one hand. The store: ``matches`` (one row per hand), ``seats`` (one per
hand and seat), ``counts`` (one per chunk), ``events`` (the logged hands) and
``arrays`` (how often each infoset was reached and bet at, summed); see
:func:`play_chunk`. A seat's result is its net chips (``chips``); ``place`` 1 is
the pot's winner, so the win rates the summary states are shares of pots won,
and the report states chips per hand.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

import numpy as np

from nop_sim.core.profiling import phase
from nop_sim.games import registry
from nop_sim.games.agent_files import draw_rows
from nop_sim.games.kuhn import exact
from nop_sim.games.kuhn.engine import Hands, play_hands
from nop_sim.games.kuhn.history import hand_records, render_hand
from nop_sim.games.kuhn.policy import POLICY, agent_row, check_spec, read_agent_file
from nop_sim.games.kuhn.referee import check_hand
from nop_sim.games.kuhn.settings import KuhnSettings
from nop_sim.games.kuhn.tree import (
    INFOSETS,
    N_INFOSETS,
    NODE_OF,
    PLAYERS,
    TERMINALS,
    column,
)
from nop_sim.games.kuhn.types import EV_BET, EV_DEAL, EV_PASS, EV_RESULT, EVENT_COLUMNS
from nop_sim.games.registry import Game, SeatFile, register_game

if TYPE_CHECKING:  # pandas loads where a function needs it (the kernels' compile does not)
    import pandas as pd

# Imports inside functions: nop_sim.kernels loads numba, which registering the game must
# not (the report, which loads matplotlib, is named by its dotted name).

__all__ = ["GAME", "MIX_TAG", "play_chunk", "play_seats", "seat_label"]

# a mixture seat's row for hand g of a run with seed s, at seat k:
# ``draw_rows(weights, (s, MIX_TAG), [g], k)``; the deals come from (batch seed, DEAL_TAG)
MIX_TAG = 0x6D6978   # "mix"
DEAL_TAG = 0x6B756E  # "kun"

# a table without ``preset`` starts from ``uniform`` (:func:`~.policy.agent_row`)
seat_label = partial(registry.seat_label, default_preset="uniform")


def _per_terminal() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """int64 ``(13, 3)`` chips each seat put in, bool ``(13, 3)`` it folded, and the
    decisions of each terminal history as ``(13, 5, 3)`` (node, seat, bet), -1 past the end."""
    put = np.ones((len(TERMINALS), PLAYERS), np.int64)
    folded = np.zeros((len(TERMINALS), PLAYERS), bool)
    steps = np.full((len(TERMINALS), max(map(len, TERMINALS)), 3), -1, np.int64)
    for t, h in enumerate(TERMINALS):
        for i, a in enumerate(h):
            seat, facing = i % PLAYERS, "b" in h[:i]
            put[t, seat] += a == "b"
            folded[t, seat] |= facing and a == "p"
            steps[t, i] = (NODE_OF[h[:i]], seat, a == "b")
    return put, folded, steps


PUT, FOLDED, STEPS = _per_terminal()


def check_seat(spec) -> None:
    """Every spec is checked per sweep point by :func:`check_seats`."""


def check_seats(specs: list, players: int) -> None:
    for spec in specs:
        check_spec(spec)


def _seat_rows(specs: list, match_ids: np.ndarray, run_seed: int
               ) -> tuple[np.ndarray, np.ndarray]:
    """float ``(n, 3, 48)`` the rows each hand's seats play and int64 ``(n, 3)`` the mixture
    row of each seat given a mixture file (-1 elsewhere)."""
    n = len(match_ids)
    tables = np.empty((n, PLAYERS, N_INFOSETS))
    mix_row = np.full((n, PLAYERS), -1, np.int64)
    for seat, spec in enumerate(specs):
        if isinstance(spec, SeatFile) and spec.is_mixture:
            rows = np.stack([agent_row(r) for r in spec.rows])
            mix_row[:, seat] = draw_rows(spec.weights, (run_seed, MIX_TAG), match_ids, seat)
            tables[:, seat] = rows[mix_row[:, seat]]
        else:
            tables[:, seat] = agent_row(spec)
    return tables, mix_row


def play_seats(specs: list, match_ids: np.ndarray, batch_seed: int, run_seed: int
               ) -> tuple[Hands, np.ndarray, np.ndarray]:
    """One batch of a run: the hands of ``match_ids`` with these seat specs, their deals
    from ``(batch_seed, DEAL_TAG)``; also the rows played ``(n, 3, 48)`` and the mixture
    rows ``(n, 3)``."""
    match_ids = np.asarray(match_ids, np.int64)
    tables, mix_row = _seat_rows(specs, match_ids, run_seed)
    # start-up: nop_sim.kernels loads numba, which importing a game (or a referee) must not
    from nop_sim.kernels.rng import keyed_states

    states = keyed_states((int(batch_seed), DEAL_TAG), len(match_ids))
    return play_hands(tables, np.arange(len(match_ids)), states), tables, mix_row


def _expected_chips(tables: np.ndarray) -> np.ndarray:
    """float ``(n, 3)``: each seat's exact expected chips under its hand's rows (one
    enumeration per distinct set of rows)."""
    flat = tables.reshape(len(tables), -1)
    uniq, inv = np.unique(flat, axis=0, return_inverse=True)
    values = np.stack([exact.expected_payoffs(u.reshape(PLAYERS, N_INFOSETS)) for u in uniq])
    return values[inv.reshape(-1)]


def _infoset_counts(hands: Hands) -> tuple[np.ndarray, np.ndarray]:
    """int64 ``(48,)`` how often each infoset was reached and bet at in ``hands``."""
    reached, bets = np.zeros(N_INFOSETS, np.int64), np.zeros(N_INFOSETS, np.int64)
    cards = hands.cards.astype(np.int64)
    for t in range(len(TERMINALS)):
        at = hands.terminal == t
        for node, seat, bet in STEPS[t]:
            if node < 0:
                break
            cols = column(node, 0) + cards[at, seat]
            reached += np.bincount(cols, minlength=N_INFOSETS)
            if bet:
                bets += np.bincount(cols, minlength=N_INFOSETS)
    return reached, bets


def _events(hands: Hands, match_ids: np.ndarray, every: int) -> np.ndarray:
    """int64 rows ``match, player, kind, a, b`` of the hands whose run id is a multiple of
    ``every`` (:mod:`.types`)."""
    rows = []
    score, cards = hands.score, hands.cards
    for i in np.flatnonzero(match_ids % every == 0):
        m, h = int(match_ids[i]), hands.history(i)
        rows += [(m, s, EV_DEAL, int(cards[i, s]), 0) for s in range(PLAYERS)]
        for step, a in enumerate(h):
            seat = step % PLAYERS
            rows.append((m, seat, EV_BET if a == "b" else EV_PASS, step,
                         column(NODE_OF[h[:step]], int(cards[i, seat]))))
        rows += [(m, s, EV_RESULT, int(score[i, s]), 1 if score[i, s] > 0 else 2)
                 for s in range(PLAYERS)]
    return np.array(rows, np.int64).reshape(-1, len(EVENT_COLUMNS))


def play_chunk(scn, chunk) -> dict[str, pd.DataFrame]:
    """Play one runner chunk of a ``kuhn3`` scenario; the store's tables.

    Hand ``g`` of the run seats rotation ``g % R`` of ``[seats] rotate``; each rotation's
    hands of the chunk are one batch with its own seed (see
    :meth:`nop_sim.run.planning.Chunk.rotation_batches`).

    Tables
    ------
    matches : one row per hand: ``point, chunk, match, rotation``, the swept settings,
        ``card_0..card_2``, ``history`` (OpenSpiel's, e.g. ``pbp``), ``showdown`` (more
        than one player left), ``winner`` (the pot's seat), ``winner_preset``, ``pot``
        (chips), ``bets`` (bets and calls).
    seats : one row per (hand, seat): ``preset``, ``mix_row`` (the row of a mixture
        agent file it played, else -1), ``card``, ``place`` (1 the pot's winner, else 2),
        ``won``, ``chips`` (net), ``expected_chips`` (the exact expectation of ``chips``
        under the hand's rows, before the deal: :func:`~.exact.expected_payoffs`),
        ``put`` (chips put in), ``folded``.
    counts : one row per chunk: ``n_matches``, ``hands`` (the unit of work), ``showdowns``.
    arrays : long table ``point, table, stat, index, label, value``: table ``infosets``,
        stat ``reached`` and ``bet`` (index = the policy row's column, label = the
        infoset): how often each infoset was reached and bet (or called) at.
    events : with ``[run] log_sample = N``, every hand whose id is a multiple of N: rows
        ``point, chunk, match, player, kind, a, b`` (:mod:`.types`).
    """
    import pandas as pd  # not at import: the kernels' compile must not need it (install_order.py)
    point = scn.points()[chunk.point]
    n = chunk.n_matches
    rotation, batches = chunk.rotation_batches(scn.n_rotations)
    labels = [[seat_label(s) for s in scn.seat_specs(point, r)] for r in range(scn.n_rotations)]
    match_ids = (chunk.first_match + np.arange(n)).astype(np.int64)
    deal = np.zeros(n, np.int64)
    terminal = np.zeros(n, np.int64)
    tables = np.zeros((n, PLAYERS, N_INFOSETS))
    mix_row = np.full((n, PLAYERS), -1, np.int64)
    for r, idx, seed in batches:
        with phase("simulation"):
            hands, tables[idx], mix_row[idx] = play_seats(scn.seat_specs(point, r),
                                                          match_ids[idx], seed, scn.seed)
        deal[idx], terminal[idx] = hands.deal, hands.terminal
    hands = Hands(deal=deal, terminal=terminal)
    score, cards = hands.score, hands.cards
    winner = np.argmax(score, axis=1)
    seat_labels = np.array(labels, dtype=object)[rotation]          # (n, players)
    base = {"point": np.full(n, chunk.point, np.int64), "chunk": np.full(n, chunk.index, np.int64),
            "match": match_ids}
    params = {k: [v] * n for k, v in point.items()}
    folded = FOLDED[terminal]
    matches = pd.DataFrame({
        **base, "rotation": rotation.astype(np.int64), **params,
        **{f"card_{s}": cards[:, s].astype(np.int64) for s in range(PLAYERS)},
        "history": np.asarray(TERMINALS, dtype=object)[terminal],
        "showdown": (~folded).sum(axis=1) > 1,
        "winner": winner.astype(np.int64),
        "winner_preset": seat_labels[np.arange(n), winner],
        "pot": PUT[terminal].sum(axis=1),
        "bets": PUT[terminal].sum(axis=1) - PLAYERS,
    })
    seats = pd.DataFrame({
        **{k: np.repeat(v, PLAYERS) for k, v in base.items()},
        "seat": np.tile(np.arange(PLAYERS, dtype=np.int64), n),
        "preset": seat_labels.reshape(-1),
        **{k: np.repeat(np.array(v, dtype=object), PLAYERS) for k, v in params.items()},
        "mix_row": mix_row.reshape(-1),
        "card": cards.reshape(-1).astype(np.int64),
        "place": np.where(score > 0, 1, 2).reshape(-1).astype(np.int8),
        "won": (score > 0).reshape(-1),
        "chips": score.reshape(-1).astype(np.int64),
        "expected_chips": _expected_chips(tables).reshape(-1),
        "put": PUT[terminal].reshape(-1),
        "folded": folded.reshape(-1),
    })
    counts = pd.DataFrame({"point": [chunk.point], "chunk": [chunk.index], "n_matches": [n],
                           **{k: [v] for k, v in point.items()},
                           "hands": [n], "showdowns": [int(matches["showdown"].sum())]})
    reached, bets = _infoset_counts(hands)
    arrays = pd.DataFrame({"point": chunk.point, "table": "infosets",
                           "stat": ["reached"] * N_INFOSETS + ["bet"] * N_INFOSETS,
                           "index": np.tile(np.arange(N_INFOSETS, dtype=np.int64), 2),
                           "label": list(INFOSETS) * 2, "value": np.r_[reached, bets]})
    rows = (_events(hands, match_ids, scn.log_sample) if scn.log_sample
            else np.zeros((0, len(EVENT_COLUMNS)), np.int64))
    events = pd.DataFrame({"point": np.full(len(rows), chunk.point, np.int64),
                           "chunk": np.full(len(rows), chunk.index, np.int64),
                           **{c: rows[:, i] for i, c in enumerate(EVENT_COLUMNS)}})
    return {"matches": matches, "seats": seats, "counts": counts, "arrays": arrays,
            "events": events}


def point_metrics(matches: pd.DataFrame, counts: pd.DataFrame) -> dict:
    return {"hands": len(matches), "showdown_share": float(matches["showdown"].mean()),
            "mean_pot": float(matches["pot"].mean()),
            "bet_share": float((matches["bets"] > 0).mean())}


def fresh_hands(scn, count: int) -> tuple[str, list[dict]]:
    """``count`` hands of the first sweep point, seats as its first rotation."""
    point = scn.points()[0]
    specs = scn.seat_specs(point, 0)
    ids = np.arange(count, dtype=np.int64)
    hands, _, mix_row = play_seats(specs, ids, scn.seed, scn.seed)
    rows = _events(hands, ids, 1)
    texts, records = [], []
    for i in range(count):
        ev = rows[rows[:, 0] == i][:, 1:]
        names = registry.seat_names(map(seat_label, specs), mix_row[i])
        texts.append(render_hand(ev, names, i + 1))
        records += hand_records(ev, i)
    return "\n\n".join(texts), records


def stored_hands(log) -> tuple[str, list[dict]]:
    """A stored hand: its event rows, read back from a run folder."""
    rows = log.events[["player", "kind", "a", "b"]].to_numpy(np.int64)
    return render_hand(rows, log.names, log.match + 1), hand_records(rows, log.match)


def referee(settings, specs: list, n: int, seed: int) -> int:
    """Play ``n`` logged hands with these seats and replay each in plain Python."""
    ids = np.arange(n, dtype=np.int64)
    hands, tables, _ = play_seats(specs, ids, seed, seed)
    rows = _events(hands, ids, 1)
    for i in range(n):
        check_hand(rows[rows[:, 0] == i][:, 1:], tables[i].tolist())
    return n


GAME = register_game(Game(
    kind="kuhn3",
    title="Three-player Kuhn poker",
    settings=KuhnSettings,
    sweep_fields=KuhnSettings.field_names(),
    default_seat="uniform",
    check_seat=check_seat,
    check_seats=check_seats,
    seat_label=seat_label,
    tables=("matches", "seats", "counts", "events"),
    work="hands",
    point_metrics=point_metrics,
    play_chunk=play_chunk,
    fresh_hands=fresh_hands,
    stored_hands=stored_hands,
    referee=referee,
    write_report="nop_sim.games.kuhn.report:write_report",  # matplotlib: named, not imported
    agent_file=read_agent_file,
    policy=POLICY,
))
