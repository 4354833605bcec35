"""A test-only third game, "high card wins": one module plus its registration line.

Each match deals one card to every seat from a shuffled deck; the highest
rank wins, and equal ranks share the win. It exists to prove that a game
needs nothing outside its own module: ``tests/test_games.py`` covers it
exactly as it covers the shipped games. Plain NumPy, no kernels.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from pathlib import Path

import numpy as np
import pandas as pd

from nop_sim.games import Game, register_game
from nop_sim.games.registry import seat_name

RANKS = "23456789TJQKA"


@dataclass(frozen=True)
class HighCardSettings:
    players: int = 3

    def __post_init__(self):
        if isinstance(self.players, bool) or not isinstance(self.players, int) \
                or not 2 <= self.players <= 8:
            raise ValueError(f"players={self.players!r} is not allowed: use 2 to 8")

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))

    @classmethod
    def from_mapping(cls, values, source: str = "") -> HighCardSettings:
        unknown = sorted(set(values) - set(cls.field_names()))
        if unknown:
            raise ValueError(f"{source}: unknown high-card setting(s) {', '.join(unknown)}")
        try:
            return cls(**dict(values))
        except ValueError as exc:
            raise ValueError(f"{source}: {exc}") from None

    def to_dict(self) -> dict:
        return asdict(self)


def check_seat(spec) -> None:
    if spec != "plain":
        raise ValueError(f"unknown preset {spec!r}; presets: plain")


def check_seats(specs, players) -> None:
    for spec in specs:
        check_seat(spec)


def _deal(n: int, players: int, seed: int) -> np.ndarray:
    """int64 (n, players) cards 0..51 (rank = card // 4), one shuffled deck per match."""
    rng = np.random.default_rng(seed)
    return np.argsort(rng.random((n, 52)), axis=1)[:, :players]


def _winners(cards: np.ndarray) -> np.ndarray:
    ranks = cards // 4
    return ranks == ranks.max(axis=1, keepdims=True)


def play_chunk(scn, chunk) -> dict[str, pd.DataFrame]:
    point = scn.points()[chunk.point]
    players = scn.settings_at(point).players
    rotation, batches = chunk.rotation_batches(scn.n_rotations)
    cards = np.zeros((chunk.n_matches, players), np.int64)
    for _r, idx, seed in batches:
        cards[idx] = _deal(idx.size, players, seed)
    won = _winners(cards)
    n = chunk.n_matches
    ids = chunk.first_match + np.arange(n)
    matches = pd.DataFrame({"point": chunk.point, "chunk": chunk.index, "match": ids,
                            "rotation": rotation, "n_winners": won.sum(axis=1)})
    seats = pd.DataFrame({"point": chunk.point, "chunk": chunk.index,
                          "match": np.repeat(ids, players), "seat": np.tile(np.arange(players), n),
                          "preset": "plain", "card": cards.reshape(-1),
                          "place": np.where(won, 1, 2).reshape(-1)})
    counts = pd.DataFrame({"point": [chunk.point], "chunk": [chunk.index], "n_matches": [n],
                           "deals": [n]})
    top = np.bincount((cards // 4).max(axis=1), minlength=13)
    arrays = pd.DataFrame({"point": chunk.point, "table": "top_rank", "stat": "matches",
                           "index": np.arange(13), "label": list(RANKS), "value": top})
    logged = np.flatnonzero(ids % scn.log_sample == 0) if scn.log_sample else np.zeros(0, int)
    events = pd.DataFrame({"point": chunk.point, "chunk": chunk.index,
                           "match": np.repeat(ids[logged], players),
                           "seat": np.tile(np.arange(players), logged.size),
                           "card": cards[logged].reshape(-1)})
    return {"matches": matches, "seats": seats, "counts": counts, "arrays": arrays,
            "events": events.astype(np.int64)}


def _show(cards, names) -> tuple[str, list[dict]]:
    won = _winners(np.asarray(cards)[None])[0]
    card = [RANKS[c // 4] + "cdhs"[c % 4] for c in cards]
    text = "  ".join(f"{name}: {c}{' *' if w else ''}" for name, c, w in zip(names, card, won,
                                                                           strict=True))
    return text, [{"seat": s, "card": int(c), "won": bool(w)}
                  for s, (c, w) in enumerate(zip(cards, won, strict=True))]


def fresh_hands(scn, count: int):
    players = scn.settings.players
    names = [seat_name(i) for i in range(players)]
    shown = [_show(row, names) for row in _deal(count, players, scn.seed)]
    return "\n".join(t for t, _ in shown), [r for _, recs in shown for r in recs]


def stored_hands(log):
    return _show(log.events.sort_values("seat")["card"].to_numpy(), log.names)


def referee(settings, specs, n: int, seed: int) -> int:
    for row in _deal(n, settings.players, seed):
        best = max(int(c) // 4 for c in row)
        sharers = {s for s, c in enumerate(row) if int(c) // 4 == best}
        assert sharers == set(np.flatnonzero(_winners(row[None])[0])), row
    return n


def point_metrics(matches, counts) -> dict:
    return {"matches": len(matches), "shared_share": float((matches["n_winners"] > 1).mean())}


def fair_win_rate(matches, players: int) -> float:
    return float(matches["n_winners"].mean()) / players


def write_report(out) -> Path:
    path = Path(out) / "report.md"
    path.write_text("# High card wins\n\nSee summary.md.\n")
    return path


GAME = register_game(Game(
    kind="high-card", title="High card wins", settings=HighCardSettings,
    sweep_fields=HighCardSettings.field_names(), default_seat="plain",
    check_seat=check_seat, check_seats=check_seats, seat_label=str,
    tables=("matches", "seats", "counts", "events"), work="deals",
    point_metrics=point_metrics, fair_win_rate=fair_win_rate, play_chunk=play_chunk,
    fresh_hands=fresh_hands, stored_hands=stored_hands, referee=referee,
    write_report=write_report,
))
