"""A person at a New Order table: one seat of a whole match, played by the batch kernel.

The engine gains a step mode by deterministic replay (kernels.script): the match is
played from its seed by the batch kernel with the person's decisions so far as the
script of their seat; the kernel stops where the script runs out and says which
decision it asks for, with its bounds. Each action the person takes adds a row to the
script and replays the match (a few milliseconds): the person plays exactly the rules,
kernel and settings the batch runs play, and nothing is simulated twice in two codes.

What the page shows comes from the match's event log up to the pause, replayed by the
referee (its own chips, pots, column, dart, tokens and Disruptors; nop_sim.games.new_order.referee)
and rendered by :func:`~nop_sim.games.new_order.history.render_history`, with the other
seats' unshown cards taken out first: :meth:`NewOrderTable.state` never holds them,
nor the deck.

The JSON names (``seat``, ``phase``, ``column``, ``hand``, ``board``, ``pot``, ``seats``,
``showdown``, ``legal``, ``log``, ``done``) are fixed (issue 40): tests and tools drive a
table with them. Each ``legal`` entry is itself an action :meth:`NewOrderTable.act`
accepts as it stands (with an ``amount`` where it has ``min`` and ``max``).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from nop_sim.core.cards import format_card, parse_card
from nop_sim.core.column import Category, Column, parse_category
from nop_sim.core.errors import IllegalAction
from nop_sim.evaluator import best_hand
from nop_sim.games.new_order import types as T
from nop_sim.games.new_order.agents import agent_row, agent_table
from nop_sim.games.new_order.engine import ScriptedMatch, match_states, play_scripted
from nop_sim.games.new_order.history import EVENT_COLUMNS, render_history, to_records
from nop_sim.games.new_order.referee.match import _Referee
from nop_sim.games.new_order.seats import mix_rows, row_spec, seat_label
from nop_sim.games.new_order.settings import Settings
from nop_sim.games.registry import seat_names

__all__ = ["NewOrderReplay", "NewOrderTable", "open_replay", "open_table", "table_view",
           "visible_records"]

CATEGORY_NAMES = tuple(Category(c).label for c in range(T.N_CATEGORIES))
ACTION_CODES = {"fold": 0, "check": 1, "call": 2, "bet": 3, "raise": 4}
_PHASES = {T.SK_KEEP: "draw", T.SK_MUCK: "showdown", T.SK_PICK: "draft",
           T.SK_PERSONAL_DROP: "draft", T.SK_COMMUNITY_DROP: "draft", T.SK_TIP: "draft",
           T.SK_SHORT: "draft", T.SK_SWAP: "draft", T.SK_ELEVATOR: "draft",
           T.SK_PURGE: "draft"}
# the keys that tell one legal entry from another of the same action (the rest are bounds
# or information: min, max, cost, fee, card names)
_IDENTITY = ("action", "category", "index", "slot", "positions")


def _category_name(c: int) -> str:
    return CATEGORY_NAMES[int(c)]


def _category_id(value) -> int:
    try:
        return int(parse_category(value))
    except (ValueError, KeyError):
        raise IllegalAction(f"unknown category {value!r}; one of {', '.join(CATEGORY_NAMES)}") from None


class NewOrderTable:
    """One match of New Order Poker with seat ``seat`` played by a person.

    Parameters
    ----------
    settings : the rules
    table : float64 (players, N_AGENT_PARAMS) the agents of every seat (``seat``'s row is
        replaced: the person decides)
    seat : the person's seat
    seed : the match's seed (:func:`~nop_sim.games.new_order.engine.match_states`)
    labels : each seat's agent as the stores name it (``balanced``, ``trained(baseline)``);
        the person's is ``you``
    rows : the mixture row each seat plays (-1: none), as ``seats.mix_row`` stores it
    """

    kind = "new-order"

    def __init__(self, settings: Settings, table: np.ndarray, seat: int, seed: int = 0,
                 labels: list[str] | None = None, rows: list[int] | None = None):
        if not 0 <= seat < settings.players:
            raise IllegalAction(f"seat {seat} is not a seat of this {settings.players}-player "
                                f"match: use 0 to {settings.players - 1}")
        self.settings = settings
        self.seat = int(seat)
        self.seed = int(seed)
        self.table = np.array(table, dtype=T.PARAM_DTYPE)
        # the person's row is read for its random flag only: a random row judges no strength
        self.table[seat] = agent_row("random")
        self.labels = list(labels) if labels else ["agent"] * settings.players
        self.labels[seat] = "you"
        self.rows = [int(r) for r in rows] if rows is not None else [-1] * settings.players
        self.names = seat_names(self.labels, self.rows)
        self.rng_state = match_states(self.seed, 1)[0]
        self.script = np.zeros((0, T.SCRIPT_WIDTH), np.int64)
        self._match = self._play(self.script)
        self._cache: dict[str, Any] | None = None
        self._ref: _Referee | None = None  # the referee after the events fed so far (_fed)
        self._records: list[dict] = []
        self._fed = np.zeros((0, T.EV_WIDTH), np.int64)
        self._past_ref: tuple[_Referee, int] | None = None  # _past's referee, events fed

    # -- the kernel ------------------------------------------------------------------------
    def _play(self, script: np.ndarray) -> ScriptedMatch:
        return play_scripted(self.settings, self.table, self.rng_state, self.seat, script)

    def _ahead(self, rows: list[tuple[int, int, int]]) -> ScriptedMatch:
        """The match with ``rows`` added to the script (nothing kept)."""
        return self._play(np.vstack([self.script, _rows(rows)]))

    @property
    def done(self) -> bool:
        return not self._match.paused

    @property
    def events(self) -> np.ndarray:
        """The event rows played so far (the whole match once done)."""
        return self._match.events

    def tables(self) -> dict[str, pd.DataFrame]:
        """The match as a run stores a logged match: its ``events`` (all cards: the match
        is over, or the person is looking back at it) and its ``seats``, point 0, match 0
        (what ``nop-sim hands FOLDER --match 0`` reads)."""
        events = pd.DataFrame(self._match.events, columns=list(EVENT_COLUMNS))
        events.insert(0, "point", 0)
        seats = pd.DataFrame({"point": 0, "match": 0, "seat": range(self.settings.players),
                              "preset": self.labels, "mix_row": self.rows})
        return {"events": events, "seats": seats}

    # -- what the person sees ---------------------------------------------------------------
    def _referee(self) -> tuple[_Referee, list[dict]]:
        """The referee after the events so far, and their records. A replay with a longer
        script logs the same events up to the old pause, then more: only the new ones are
        replayed (an action late in a long match cost a replay of its whole log)."""
        events = self._match.events
        fed = self._fed
        if (self._ref is None or len(events) < len(fed)
                or not np.array_equal(events[:len(fed)], fed)):
            self._ref, self._records, fed = _Referee(self.settings), [], events[:0]
            self._past_ref = None
        new = list(to_records(events[len(fed):]))
        for r in new:
            self._ref.event(r)
        self._records.extend(new)
        self._fed = events
        return self._ref, self._records

    def records(self, *, hidden: bool = True) -> list[dict]:
        """The log so far as records; ``hidden``: without the other seats' unshown cards."""
        records = list(to_records(self._match.events))
        return visible_records(records, self.seat) if hidden else records

    def state(self, step: int | None = None) -> dict[str, Any]:
        """The table as the person's seat sees it (JSON-ready; names fixed, see the module).

        ``step``: the table as it was after the first ``step + 1`` events of the log so far
        (the page shows the agents' play event by event, at a pace), seen from the same
        seat; it takes no action (``legal`` empty). None: now."""
        if step is not None and 0 <= step < len(self._match.events) - 1:
            return self._past(int(step))
        if self._cache is None:
            self._cache = self._state()
        return self._cache

    def _past(self, step: int) -> dict[str, Any]:
        _, records = self._referee()
        records = records[:step + 1]
        # the page asks the steps in order: a second referee walks forward with them
        ref, fed = self._past_ref if self._past_ref is not None else (None, 0)
        if ref is None or fed > len(records):
            ref, fed = _Referee(self.settings), 0
        for r in records[fed:]:
            ref.event(r)
        self._past_ref = (ref, len(records))
        state = table_view(self.settings, ref, records, self.names, self.seat)
        h = getattr(ref, "h", None)
        state.update(phase=h.phase if h is not None else "start", decision=None, legal=[],
                     done=False, step=step, events=len(self._match.events))
        return state

    def _state(self) -> dict[str, Any]:
        ref, records = self._referee()
        m = self._match
        state = table_view(self.settings, ref, records, self.names, self.seat)
        state["phase"] = self._phase(m, getattr(ref, "h", None))
        state["decision"] = T.SCRIPT_KINDS[m.kind] if m.paused else None
        state["legal"] = self._legal(ref) if m.paused else []
        state["done"] = self.done
        state["events"] = len(m.events)  # GET /api/state?step=N shows the table after event N
        if self.done:
            state["places"] = [int(x) for x in m.player[:, T.PL_PLACE]]
        return state

    def _phase(self, m: ScriptedMatch, h) -> str:
        if not m.paused:
            return "over"
        if m.kind in _PHASES:
            return _PHASES[m.kind]
        return ("bet I", "bet II", "bet III")[max(h.rnd, 0)] if h is not None else "bet I"

    # -- what the person may do -------------------------------------------------------------
    def _legal(self, ref: _Referee) -> list[dict]:
        return [entry for entry, _ in self._options(ref)]

    def _options(self, ref: _Referee) -> list[tuple[dict, list]]:
        """Each legal entry with the script rows it adds (an amount filled in later)."""
        m = self._match
        a = [int(x) for x in m.pause[T.PAUSE_ARGS:]]
        k = m.kind
        column = list(ref.column)
        if k == T.SK_HEDGE:
            current, cost = a[0], a[1]
            opts = [({"action": "hedge", "category": _category_name(c), "cost": cost},
                     [(T.SK_HEDGE, c, 0)]) for c in range(13) if c != current]
            # not hedging is no button of its own: the betting actions of this turn say it
            turn = self._ahead([(T.SK_HEDGE, -1, 0)])
            for entry, rows in _betting_options(turn.pause):
                opts.append((entry, [(T.SK_HEDGE, -1, 0), *rows]))
            return opts
        if k == T.SK_ACTION:
            return _betting_options(m.pause)
        if k == T.SK_SIZE:
            return [({"action": "size", "min": a[0], "max": a[1]}, [(T.SK_SIZE, None, 0)])]
        if k == T.SK_PROMOTE:
            fee = a[0]
            return [({"action": "promote", "category": _category_name(c), "fee": fee,
                      "above": _category_name(column[column.index(c) - 1])},
                     [(T.SK_PROMOTE, c, 0)]) for c in column[1:]] + [
                ({"action": "skip"}, [(T.SK_PROMOTE, -1, 0)])]
        if k == T.SK_KEEP:
            return [({"action": "discard", "cards": [], "max_cards": a[0]},
                     [(T.SK_KEEP, None, 0)])]
        if k == T.SK_MUCK:
            return [({"action": "show"}, [(T.SK_MUCK, 0, 0)]),
                    ({"action": "muck"}, [(T.SK_MUCK, 1, 0)])]
        if k == T.SK_PICK:
            n = a[0]
            return [({"action": "pick", "index": i, "card": T.DISRUPTOR_IDS[a[1 + i]]},
                     [(T.SK_PICK, i, 0)]) for i in range(n) if not a[10 + i]]
        if k in (T.SK_PERSONAL_DROP, T.SK_COMMUNITY_DROP):
            return [({"action": "drop", "slot": s, "card": T.DISRUPTOR_IDS[a[s]]},
                     [(k, s, 0)]) for s in range(2) if a[s] >= 0]
        if k == T.SK_TIP:
            return [({"action": "tip", "category": _category_name(c)}, [(k, c, 0)])
                    for c in column[1:]]
        if k == T.SK_SHORT:
            return [({"action": "short", "category": _category_name(c)}, [(k, c, 0)])
                    for c in column[:-1]]
        if k == T.SK_ELEVATOR:
            return [({"action": "elevate", "category": _category_name(c)}, [(k, c, 0)])
                    for c in column]
        if k == T.SK_SWAP:
            return [({"action": "swap", "positions": [i, j],
                      "categories": [_category_name(column[i]), _category_name(column[j])]},
                     [(k, i, j)]) for i in range(13) for j in range(i + 1, 13)]
        if k == T.SK_PURGE:
            n = a[0]
            return [({"action": "purge", "index": i, "card": T.DISRUPTOR_IDS[a[37 + i]],
                      "owner": a[1 + i]}, [(k, i, 0)]) for i in range(n)]
        raise IllegalAction(f"the match cannot go on: {T.SCRIPT_KINDS[k]} "
                            f"(decision {int(m.pause[T.PAUSE_BAD])} of the script)")

    def act(self, action: dict[str, Any]) -> dict[str, Any]:
        """Play ``action`` (one of :meth:`state`'s ``legal``, an ``amount`` set where it has
        ``min`` and ``max``) and the agents after it, up to the person's next decision or
        the match's end; returns the new state. An action that is not legal raises
        :class:`IllegalAction` and changes nothing."""
        if self.done:
            raise IllegalAction("the match is over")
        if not isinstance(action, dict) or not isinstance(action.get("action"), str):
            raise IllegalAction('an action is an object with "action": one of the legal ones')
        ref, _ = self._referee()
        options = self._options(ref)
        chosen = [(e, rows) for e, rows in options if _same(e, action)]
        if not chosen:
            names = sorted({e["action"] for e, _ in options})
            raise IllegalAction(f"{_describe(action)} is not legal now; legal: {', '.join(names)}")
        entry, rows = chosen[0]
        if "min" in entry:
            _amount(entry, action)  # in bounds even where the rules leave no choice (limit)
        rows = [self._fill(entry, action, ref, r) for r in rows]
        m = self._play(np.vstack([self.script, _rows(rows)]))
        if m.kind == T.SK_ERROR:  # the kernel has the last word on what is legal
            raise IllegalAction(f"{_describe(action)} was refused by the rules (decision "
                                f"{int(m.pause[T.PAUSE_BAD])} of the script)")
        self.script = np.vstack([self.script, _rows(rows)])
        self._match = m
        self._cache = None
        return self.state()

    def _fill(self, entry: dict, action: dict, ref: _Referee, row: tuple) -> tuple:
        """A row's value from the person's action: the amount of a sized bet, the cards kept."""
        kind, value, b = row
        if value is not None:
            return row
        if kind in (T.SK_SIZE,):
            return (kind, _amount(entry, action), b)
        if kind == T.SK_KEEP:
            return (kind, self._keep_mask(entry, action, ref), b)
        raise AssertionError(row)

    def _keep_mask(self, entry: dict, action: dict, ref: _Referee) -> int:
        hole = list(ref.h.hole[self.seat])
        gone = action.get("cards", [])
        if not isinstance(gone, list):
            raise IllegalAction('"cards" is a list of the cards to discard, e.g. ["2c", "7d"]')
        if len(gone) > entry["max_cards"]:
            raise IllegalAction(f"at most {entry['max_cards']} cards may be discarded")
        keep = 31
        for text in gone:
            try:
                card = parse_card(str(text))
            except ValueError as exc:
                raise IllegalAction(str(exc)) from None
            slots = [i for i, c in enumerate(hole) if c == card and (keep >> i) & 1]
            if not slots:
                raise IllegalAction(f"{text} is not in your hand")
            keep &= ~(1 << slots[0])
        return keep


def visible_records(records: list[dict], seat: int) -> list[dict]:
    """``records`` as seat ``seat`` saw them: without the other seats' deal and hole
    events, their discards without the cards (shown hands are in the state's seats)."""
    out = []
    for r in records:
        if r["seat"] != seat and r["event"] in ("deal", "hole"):
            continue
        if r["seat"] != seat and r["event"] == "discard":
            r = {**r, "cards": []}
        out.append(r)
    return out


def table_view(settings: Settings, ref: _Referee, records: list[dict], names: list[str],
               me: int | None) -> dict[str, Any]:
    """The table after ``records`` (the referee ``ref`` has replayed them), as seat ``me``
    sees it, or with every card shown (``me`` None: a replay). JSON-ready."""
    h = getattr(ref, "h", None)
    shown = _last_showdown(records, h)
    seats = []
    for p in range(settings.players):
        if me is None:
            cards = [format_card(c) for c in h.hole.get(p, [])] if h is not None else []
        else:
            cards = shown["cards"].get(p, []) if shown and shown["hand"] == ref.hand_no else []
        seats.append({
            "seat": p, "name": names[p], "chips": ref.chips[p], "alive": ref.alive[p],
            "folded": bool(h.folded[p]) if h is not None else False,
            "all_in": bool(h.allin[p]) if h is not None else False,
            "bet": h.committed[p] if h is not None else 0,
            "token": _category_name(ref.hedge[p]) if ref.hedge[p] >= 0 else None,
            "personal": [_personal(card, arg) for card, arg in ref.personal[p]],
            "cards": cards,
            "button": h is not None and p == h.button,
        })
    log = records if me is None else visible_records(records, me)
    return {
        "game": "new-order",
        "seat": me,
        "hand_number": ref.hand_no,
        "column": [_category_name(c) for c in ref.column],
        "inverted": bool(h.inverted) if h is not None else False,
        "hand": ([format_card(c) for c in h.hole.get(me, [])]
                 if h is not None and me is not None else []),
        "best": _best(settings, ref, h, me),
        "board": [format_card(c) for c in h.board] if h is not None else [],
        "pot": ref.pot_total() if h is not None else 0,
        "pots": _pots(ref, h),
        "dart": ref.dart,
        "ledger_fee": ref.fee(me) if h is not None and me is not None else ref.dart,
        "betting": h.betting if h is not None else settings.betting,
        "disruptors": [T.DISRUPTOR_IDS[c] for c in ref.community],
        "frozen": bool(h.frozen) if h is not None else False,
        "seats": seats,
        "showdown": bool(shown) and shown["hand"] == ref.hand_no,
        "last_showdown": shown,
        "log": render_history(log, names).splitlines(),
    }


def _pots(ref: _Referee, h) -> list[dict]:
    """The main pot and the side pots as they stand (the referee's layers, R9), each with
    the seats that may still win it; one pot where no all-in cuts a layer."""
    if h is None or not any(h.committed) and not h.dead:
        return []
    among = h.shown.keys() if h.shown else ref.live()
    return [{"amount": int(a), "eligible": sorted(int(p) for p in e)}
            for a, e, _ in ref.side_pots(among) if a > 0]


def _best(settings: Settings, ref: _Referee, h, seat: int | None) -> dict | None:
    """Seat ``seat``'s best five under the column now (wilds and elevation counted)."""
    if h is None or seat is None or seat not in h.hole:
        return None
    cards = list(h.hole[seat]) + list(h.board)
    eff = h.seats[seat]
    elevated = sum(1 << c for c in range(13) if eff.elevation[c] > 0)
    best = best_hand(np.array(cards, np.int8), Column(ref.column), wild_ranks=eff.wild_ranks,
                     elevated=elevated, inverted=bool(h.inverted), decks=settings.decks)
    return {"category": best.category.label, "elevated": best.elevated,
            "cards": [format_card(c) for c in best.cards], "text": str(best)}


def _personal(card: int, arg: int) -> str:
    name = T.DISRUPTOR_IDS[card]
    return f"{name} ({_category_name(arg)})" if arg is not None and arg >= 0 else name


def _rows(rows) -> np.ndarray:
    out = np.zeros((len(rows), T.SCRIPT_WIDTH), np.int64)
    for i, (kind, a, b) in enumerate(rows):
        out[i, :3] = (kind, a, b)
    return out


def _betting_options(pause: np.ndarray) -> list[tuple[dict, list]]:
    """The betting actions of an SK_ACTION pause, each with its script rows."""
    a = [int(x) for x in pause[T.PAUSE_ARGS:]]
    if int(pause[T.PAUSE_KIND]) != T.SK_ACTION:
        return []
    to_call, can_check, can_bet, can_raise, _pot, chips = a[:6]
    opts: list[tuple[dict, list]] = []
    if can_check:
        opts.append(({"action": "check"}, [(T.SK_ACTION, 1, 0)]))
    else:
        opts.append(({"action": "fold"}, [(T.SK_ACTION, 0, 0)]))
        opts.append(({"action": "call", "amount": min(to_call, chips)}, [(T.SK_ACTION, 2, 0)]))
    for name, code, ok, lo, hi in (("bet", 3, can_bet, a[6], a[7]),
                                    ("raise", 4, can_raise, a[8], a[9])):
        if ok:
            rows = [(T.SK_ACTION, code, 0)]
            if hi > lo:  # the kernel asks a size only when there is a choice (pot-, no-limit)
                rows.append((T.SK_SIZE, None, 0))
            opts.append(({"action": name, "min": lo, "max": hi}, rows))
    return opts


def _same(entry: dict, action: dict) -> bool:
    """``action`` names ``entry`` (categories by any spelling, positions as a list)."""
    for key in _IDENTITY:
        if key not in entry:
            continue
        want, got = entry[key], action.get(key)
        if key == "category":
            try:
                if got is None or int(parse_category(got)) != int(parse_category(want)):
                    return False
            except (ValueError, KeyError):
                return False
        elif key == "positions":
            if not isinstance(got, list) or sorted(got) != want:
                return False
        elif got != want:
            return False
    return True


def _amount(entry: dict, action: dict) -> int:
    amount = action.get("amount", entry["min"] if entry["min"] == entry["max"] else None)
    if isinstance(amount, bool) or not isinstance(amount, int | float) or amount != int(amount):
        raise IllegalAction(f"{entry['action']} needs a whole \"amount\" from {entry['min']} "
                            f"to {entry['max']}")
    if not entry["min"] <= amount <= entry["max"]:
        raise IllegalAction(f"{entry['action']} {int(amount)} is out of bounds: from "
                            f"{entry['min']} to {entry['max']}")
    return int(amount)


def _describe(action: dict) -> str:
    return " ".join(str(v) for v in action.values())[:80] or "an empty action"


def _last_showdown(records: list[dict], h) -> dict | None:
    """The last showdown so far: its hand, each shown seat's cards and category, the pots."""
    hand = None
    for r in reversed(records):
        if r["event"] == "show":
            hand = r["hand"]
            break
    if hand is None:
        return None
    holes: dict[int, list[str]] = {}
    shown: dict[int, str] = {}
    pots = []
    for r in records:
        if r["hand"] != hand:
            continue
        if r["event"] in ("deal", "hole"):
            holes[r["seat"]] = r["cards"]
        elif r["event"] == "show":
            shown[r["seat"]] = r["category"]
        elif r["event"] == "pot":
            pots.append({"index": r["index"], "amount": r["amount"], "winners": r["winners"]})
    board = next((r["cards"] for r in reversed(records)
                  if r["hand"] == hand and r["event"] == "board"), [])
    return {"hand": hand, "board": board, "cards": {p: holes.get(p, []) for p in shown},
            "categories": shown, "pots": pots}


class NewOrderReplay:
    """A logged match step by step, every card shown (``nop-sim replay``): step ``k`` is the
    table after the match's first ``k + 1`` logged events, as the referee replays them.

    Parameters
    ----------
    settings : the rules the match was played under
    records : its events (``events.to_records``), in order
    names : one name per seat
    """

    kind = "new-order"

    def __init__(self, settings: Settings, records: list[dict], names: list[str]):
        self.settings = settings
        self.records = list(records)
        self.names = list(names)
        self.n_steps = len(self.records)

    def state(self, step: int | None = None) -> dict[str, Any]:
        """The table at ``step`` (0 .. n_steps - 1; None: the last), JSON-ready."""
        n = self.n_steps
        step = n - 1 if step is None else min(max(int(step), 0), n - 1)
        records = self.records[:step + 1]
        ref = _Referee(self.settings)
        for r in records:
            ref.event(r)
        state = table_view(self.settings, ref, records, self.names, None)
        h = getattr(ref, "h", None)
        state.update(replay=True, step=step, n_steps=n, event=self.records[step],
                     phase=h.phase if h is not None else "start", decision=None, legal=[],
                     done=step == n - 1)
        return state


def open_table(scn, seat: int, seed: int):
    """A table where a person plays ``seat`` of one match of the scenario's first sweep
    point, the other seats the scenario's (a mixture's row drawn for match 0)."""
    point = scn.points()[0]
    settings = scn.settings_at(point)
    specs = scn.seat_specs(point, 0)
    rows = mix_rows(seed, specs, np.array([0]))[0]
    table = agent_table([row_spec(s, r) for s, r in zip(specs, rows, strict=True)],
                        settings.players)
    return NewOrderTable(settings, table, seat, seed=seed,
                         labels=[seat_label(s) for s in specs], rows=rows.tolist())


def open_replay(log):
    """A logged match of a run (a ``run.match_log.MatchLog``), step by step."""
    records = list(to_records(log.events[list(EVENT_COLUMNS)].to_numpy(np.int64)))
    return NewOrderReplay(log.settings, records, log.names)
