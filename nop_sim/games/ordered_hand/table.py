"""A person at an Ordered Hand table: one seat of a whole game, played by the batch kernel.

The same step mode as New Order's table (:mod:`nop_sim.games.new_order.table`): the game
is played from its seed by the batch kernel with the person's decisions so far as the
script of their seat (:func:`~nop_sim.games.ordered_hand.engine.play_scripted`); the
kernel stops where the script runs out and says which decision it asks for, with its
bounds (the legal blocks, the insert positions). Each action adds a script row and plays
the game again (a millisecond): the person plays exactly the kernel the batch runs play.

What the page shows is built from the game's event log up to the pause and the deck,
seen from the person's seat: their own sequence in order, the block in the middle, each
other seat's number of cards (their cards stay hidden, as does the stock, until the game
ends), and the log in the words ``nop-sim hands`` uses, the other seats' drawn cards left
out. The JSON names are New Order's where they apply (``seat``, ``phase``, ``column``,
``hand``, ``board``: the block in the middle, ``seats``, ``showdown``: the game is over and
every sequence shown, ``legal``, ``log``, ``done``); the game has no chips, so no ``pot``
and no seat's ``chips``. Its own: ``middle`` (the block's category), ``stock`` (cards
left), a seat's ``count`` (cards held), ``drawn`` (the card to place, when asked where),
``winners``. Every ``legal`` entry is itself an action
:meth:`OrderedHandTable.act` accepts as it stands (an ``amount`` set where it has ``min``
and ``max``: the insert position, 0 for the front).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from nop_sim.core.cards import format_card
from nop_sim.core.column import Category
from nop_sim.core.errors import IllegalAction
from nop_sim.games.ordered_hand.chunks import _places
from nop_sim.games.ordered_hand.engine import (
    DECK_EVENT,
    ScriptedGame,
    play_scripted,
    stored_game,
)
from nop_sim.games.ordered_hand.history import _END_TEXT
from nop_sim.games.ordered_hand.kernels import play as K
from nop_sim.games.ordered_hand.policy import seat_table
from nop_sim.games.ordered_hand.referee import py_classify_block
from nop_sim.games.ordered_hand.seats import seat_label
from nop_sim.games.ordered_hand.settings import OrderedSettings
from nop_sim.games.ordered_hand.types import EV_NAMES
from nop_sim.games.registry import seat_names
from nop_sim.kernels.rng import seed_states

__all__ = ["OrderedHandReplay", "OrderedHandTable", "open_replay", "open_table"]

_PHASES = {K.SK_TURN: "turn", K.SK_INSERT: "insert", K.SK_RESPONSE: "response",
           K.SK_RAISE_BLOCK: "raise", K.SK_ANSWER: "answer"}
_IDENTITY = ("action", "start", "length", "from", "to")


def _cards(cards) -> list[str]:
    return [format_card(int(c)) for c in cards]


class _View:
    """The game replayed from its deck and events: every seat's sequence, the middle and
    the stock, and the log as lines (each event's line from ``seat``'s view)."""

    def __init__(self, settings: OrderedSettings, deck: np.ndarray, first: int,
                 names: list[str], seat: int | None):
        self.s, self.n, self.names, self.seat = settings, settings.players, names, seat
        self.deck = [int(c) for c in deck]
        self.seq: list[list[int]] = [[] for _ in range(self.n)]
        k = 0
        for _ in range(settings.hand_size):
            for q in range(self.n):
                self.seq[(first + q) % self.n].append(self.deck[k])
                k += 1
        self.top = k
        self.middle: list[int] = []
        self.middle_key: tuple[int, tuple[int, ...]] | None = None
        self.lines: list[str] = [f"{names[first]} moves first"]
        self.positions = settings.column.positions()
        self.end: tuple[int, int] | None = None

    def _own(self, p: int) -> bool:
        return self.seat is None or p == self.seat or self.end is not None

    def event(self, p: int, kind: int, a: int, b: int) -> None:
        who = self.names[p] if p >= 0 else ""
        if kind == K.EV_PLAY:
            cards = self.seq[p][a:a + b]
            block = py_classify_block(cards)
            del self.seq[p][a:a + b]
            self.middle, self.middle_key = cards, block
            label = Category(block[0]).label if block else "?"
            self.lines.append(f"{who} plays {label} [{' '.join(_cards(cards))}] from "
                              f"position {a + 1}")
        elif kind == K.EV_DRAW:
            self.seq[p].insert(b, a)
            self.top += 1
            card = format_card(a) if self._own(p) else "a card"
            self.lines.append(f"{who} draws {card} into position {b + 1}")
        elif kind == K.EV_MOVE:
            row = self.seq[p]
            card = row.pop(a)
            row.insert(b, card)
            if a != b:
                shown = format_card(card) if self._own(p) else "a card"
                self.lines.append(f"{who} moves {shown} from position {a + 1} to {b + 1}")
            else:
                self.lines.append(f"{who} moves no card")
        elif kind == K.EV_CLEAR:
            self.middle, self.middle_key = [], None
            self.lines.append(f"a full round of checks clears the middle; {who} leads")
        elif kind == K.EV_END:
            self.end = (a, b)
            won = [self.names[q] for q in range(self.n) if (b >> q) & 1]
            self.lines.append(f"End: {_END_TEXT.get(a, str(a))}; winner"
                              f"{'s' if len(won) > 1 else ''}: {', '.join(won)}")
        else:
            word = {K.EV_CHECK: "checks", K.EV_BET: "BETS to beat the middle next turn",
                    K.EV_FOLD: "folds", K.EV_CALL: "calls", K.EV_RAISE: "raises"}[kind]
            self.lines.append(f"{who} {word}")

    def beats(self, cards: list[int]) -> bool:
        """Do ``cards`` make a block that beats the middle (the referee's rule)?"""
        block = py_classify_block(cards)
        if block is None:
            return False
        if self.middle_key is None:
            return True
        p, q = self.positions[block[0]], self.positions[self.middle_key[0]]
        return bool(p < q or (p == q and block[1] > self.middle_key[1]))

    def can_raise_after(self, row: list[int], src: int, dst: int) -> bool:
        moved = list(row)
        moved.insert(dst, moved.pop(src))
        return any(self.beats(moved[i:i + ln]) for i in range(len(moved))
                   for ln in range(1, min(5, len(moved) - i) + 1))


class OrderedHandTable:
    """One game of Ordered Hand with seat ``seat`` played by a person.

    Parameters
    ----------
    settings : the rules
    table : float64 (players, K.N_AGENT_PARAMS), every seat's agent (``seat``'s row is
        not read: the person decides)
    seat : the person's seat
    seed : the game's seed (the stream of game 0 of ``play_matches(seed=seed)``)
    labels : each seat's agent as the stores name it; the person's is ``you``
    """

    kind = "ordered-hand"
    page = "ordered.html"  # the page nop-sim play serves for this game

    def __init__(self, settings: OrderedSettings, table: np.ndarray, seat: int, seed: int = 0,
                 labels: list[str] | None = None):
        if not 0 <= seat < settings.players:
            raise IllegalAction(f"seat {seat} is not a seat of this {settings.players}-player "
                                f"game: use 0 to {settings.players - 1}")
        self.settings = settings
        self.seat = int(seat)
        self.seed = int(seed)
        self.table = np.array(table, dtype=np.float64)
        self.labels = list(labels) if labels else ["agent"] * settings.players
        self.labels[seat] = "you"
        self.names = list(seat_names(self.labels))
        self.rng_state = seed_states(self.seed, 1)[0]
        self.script = np.zeros((0, K.SCRIPT_WIDTH), np.int64)
        self._game = self._play(self.script)
        self._cache: dict[str, Any] | None = None

    def _play(self, script: np.ndarray) -> ScriptedGame:
        return play_scripted(self.settings, self.table, self.rng_state, self.seat, script)

    @property
    def done(self) -> bool:
        return self._game.paused < 0

    @property
    def events(self) -> np.ndarray:
        """The event rows played so far (the whole game once done)."""
        return self._game.events

    def _view(self, seat: int | None, upto: int | None = None) -> _View:
        g = self._game
        view = _View(self.settings, g.deck, int(g.record[K.F_FIRST]), self.names, seat)
        for p, kind, a, b in g.events[:upto].astype(np.int64).tolist():
            view.event(p, kind, a, b)
        return view

    def tables(self) -> dict[str, pd.DataFrame]:
        """The game as a run stores a logged game (its deck rows, kind ``DECK_EVENT``, then
        its events; and its seats), point 0, match 0: what ``nop-sim hands FOLDER --match
        0`` reads."""
        g = self._game
        deck = np.column_stack([np.full(K.DECK_SIZE, -1), np.full(K.DECK_SIZE, DECK_EVENT),
                                np.arange(K.DECK_SIZE), g.deck.astype(np.int64)])
        rows = np.vstack([deck, g.events.astype(np.int64)])
        events = pd.DataFrame({"point": 0, "chunk": 0, "match": 0, "player": rows[:, 0],
                               "kind": rows[:, 1], "a": rows[:, 2], "b": rows[:, 3]})
        seats = pd.DataFrame({"point": 0, "chunk": 0, "match": 0,
                              "seat": range(self.settings.players), "preset": self.labels})
        return {"events": events, "seats": seats}

    # -- what the person sees ---------------------------------------------------------------
    def state(self, step: int | None = None) -> dict[str, Any]:
        """The table as the person's seat sees it (JSON-ready; names fixed, see the module).
        ``step``: as it was after the log's event ``step`` (no actions); None: now."""
        if step is not None and 0 <= step < len(self._game.events) - 1:
            view = self._view(self.seat, step + 1)
            state = _table_view(self.settings, view, self.seat)
            state.update(phase="play", decision=None, legal=[], done=False, step=step,
                         events=len(self._game.events))
            return state
        if self._cache is None:
            view = self._view(self.seat)
            state = _table_view(self.settings, view, self.seat)
            g = self._game
            state["phase"] = _PHASES.get(g.paused, "over")
            state["decision"] = state["phase"] if g.paused >= 0 else None
            state["legal"] = [e for e, _ in self._options(view)] if g.paused >= 0 else []
            state["done"] = self.done
            state["events"] = len(g.events)
            if g.paused == K.SK_INSERT:  # drawn from the stock, not yet placed (or logged)
                state["drawn"] = format_card(int(g.bounds[2]))
                state["stock"] -= 1
            if self.done:
                n = self.settings.players
                winners = int(g.record[K.F_WINNERS])
                won = np.array([[(winners >> q) & 1 for q in range(n)]], bool)
                left = g.record[K.F_CARDS_LEFT:K.F_CARDS_LEFT + n][None]
                state["winners"] = [q for q in range(n) if won[0, q]]
                # as a run's seats table places them: winners 1, then by cards left
                state["places"] = [int(x) for x in _places(won, left)[0]]
            self._cache = state
        return self._cache

    # -- what the person may do -------------------------------------------------------------
    def _options(self, view: _View) -> list[tuple[dict, list[int]]]:
        """Each legal entry with its script row (an amount filled in by :meth:`act`)."""
        g = self._game
        a = [int(x) for x in g.bounds]
        row = view.seq[self.seat]

        def blocks() -> list[tuple[dict, list[int]]]:
            out = []
            for i in range(a[1]):
                start, length, cat = a[2 + 3 * i:5 + 3 * i]
                out.append(({"action": "play", "start": start, "length": length,
                             "cards": _cards(row[start:start + length]),
                             "category": Category(cat).label},
                            [g.paused, start, length, 0]))
            return out

        if g.paused == K.SK_TURN:
            opts = [(e, [K.SK_TURN, K.ACT_PLAY, r[1], r[2]]) for e, r in blocks()]
            opts.append(({"action": "check"}, [K.SK_TURN, K.ACT_CHECK, 0, 0]))
            if a[0]:
                opts.append(({"action": "bet"}, [K.SK_TURN, K.ACT_BET, 0, 0]))
            return opts
        if g.paused == K.SK_INSERT:
            return [({"action": "insert", "min": 0, "max": a[0], "card": format_card(a[2])},
                     [K.SK_INSERT, -1, 0, 0])]
        if g.paused == K.SK_RESPONSE:
            n = len(row)
            opts = [({"action": "fold"}, [K.SK_RESPONSE, K.RESP_FOLD, 0, 0]),
                    ({"action": "call"}, [K.SK_RESPONSE, K.RESP_CALL, 0, 0])]
            moves = [(i, j) for i in range(n) for j in range(n) if i != j]
            opts += [({"action": "call", "from": i, "to": j},
                      [K.SK_RESPONSE, K.RESP_CALL, i, j]) for i, j in moves]
            opts += [({"action": "raise", "from": i, "to": j},
                      [K.SK_RESPONSE, K.RESP_RAISE, i, j]) for i, j in moves
                     if view.can_raise_after(row, i, j)]
            return opts
        if g.paused == K.SK_RAISE_BLOCK:
            return [(e, [K.SK_RAISE_BLOCK, r[1], r[2], 0]) for e, r in blocks()]
        if g.paused == K.SK_ANSWER:
            opts = [(e, [K.SK_ANSWER, r[1], r[2], 0]) for e, r in blocks()]
            opts.append(({"action": "check" if a[0] else "fold"}, [K.SK_ANSWER, -1, 0, 0]))
            return opts
        raise IllegalAction("the game is over")

    def act(self, action: dict[str, Any]) -> dict[str, Any]:
        """Play ``action`` (one of :meth:`state`'s ``legal``, an ``amount`` set where it has
        ``min`` and ``max``) and the agents after it, up to the person's next decision or
        the game's end; returns the new state. An action that is not legal raises
        :class:`IllegalAction` and changes nothing."""
        if self.done:
            raise IllegalAction("the game is over")
        if not isinstance(action, dict) or not isinstance(action.get("action"), str):
            raise IllegalAction('an action is an object with "action": one of the legal ones')
        options = self._options(self._view(self.seat))
        chosen = [(e, r) for e, r in options
                  if all(action.get(k) == e[k] for k in _IDENTITY if k in e)
                  and all(k not in action for k in ("from", "to") if k not in e)]
        if not chosen:
            names = sorted({e["action"] for e, _ in options})
            text = " ".join(str(v) for v in action.values())[:80]
            raise IllegalAction(f"{text} is not legal now; legal: {', '.join(names)}")
        entry, row = chosen[0]
        row = list(row)
        if "min" in entry:
            amount = action.get("amount")
            if isinstance(amount, bool) or not isinstance(amount, int | float) or \
                    amount != int(amount) or not entry["min"] <= amount <= entry["max"]:
                raise IllegalAction(f"{entry['action']} needs a whole \"amount\" (the "
                                    f"position) from {entry['min']} to {entry['max']}")
            row[1] = int(amount)
        script = np.vstack([self.script, np.array([row], np.int64)])
        game = self._play(script)
        if game.refused >= 0:  # the kernel has the last word on what is legal
            raise IllegalAction(f"{entry['action']} was refused by the rules")
        self.script, self._game, self._cache = script, game, None
        return self.state()


def open_table(scn, seat: int, seed: int) -> OrderedHandTable:
    """A table where a person plays ``seat`` of one game of the scenario's first sweep
    point, the other seats the scenario's (a mixture's row drawn for game 0)."""
    point = scn.points()[0]
    settings = scn.settings_at(point)
    specs = scn.seat_specs(point, 0)
    return OrderedHandTable(settings, seat_table(specs, seed), seat, seed=seed,
                            labels=[seat_label(s) for s in specs])


def _table_view(settings: OrderedSettings, view: _View, seat: int | None) -> dict[str, Any]:
    """The table of ``view`` as ``seat`` sees it (None: every card, a replay)."""
    over = view.end is not None
    return {
        "kind": OrderedHandTable.kind,
        "seat": seat,
        "column": [Category(int(c)).label for c in settings.column.order],
        "hand": _cards(view.seq[seat]) if seat is not None else [],
        "board": _cards(view.middle),
        "middle": (Category(view.middle_key[0]).label if view.middle_key else None),
        "stock": len(view.deck) - view.top,
        "seats": [{"name": view.names[q], "count": len(view.seq[q]),
                   "cards": _cards(view.seq[q]) if over or seat is None else []}
                  for q in range(settings.players)],
        "showdown": over,
        "log": list(view.lines),
    }


class OrderedHandReplay:
    """A logged game step by step, every card shown (``nop-sim replay``): step ``k`` is the
    table after the game's first ``k + 1`` logged events.

    Parameters
    ----------
    settings : the rules the game was played under
    deck : (52,) its shuffled deck; events : (n, 4) its events ``player, kind, a, b``
    names : one name per seat
    """

    kind = OrderedHandTable.kind
    page = OrderedHandTable.page

    def __init__(self, settings: OrderedSettings, deck, events, names: list[str]):
        self.settings = settings
        self.deck = np.asarray(deck)
        self.events = np.asarray(events, np.int64).reshape(-1, 4)
        self.names = list(names)
        self.n_steps = len(self.events)
        # the first event is the first player's first turn
        self.first = int(self.events[0, 0]) if self.n_steps else 0

    def state(self, step: int | None = None) -> dict[str, Any]:
        """The table at ``step`` (0 .. n_steps - 1; None: the last), JSON-ready."""
        n = self.n_steps
        step = n - 1 if step is None else min(max(int(step), 0), n - 1)
        view = _View(self.settings, self.deck, self.first, self.names, None)
        for p, kind, a, b in self.events[:step + 1].tolist():
            view.event(p, kind, a, b)
        p, kind = (int(x) for x in self.events[step, :2])
        state = _table_view(self.settings, view, None)
        state.update(replay=True, step=step, n_steps=n, phase="play", decision=None,
                     legal=[], done=step == n - 1,
                     event={"event": EV_NAMES.get(kind, str(kind)), "seat": p})
        return state


def open_replay(log) -> OrderedHandReplay:
    """A logged game of a run (a ``results.match_log.MatchLog``), step by step."""
    deck, rows = stored_game(log.events)
    return OrderedHandReplay(log.settings, deck, rows, log.names)
