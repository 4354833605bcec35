"""The match event log: schema, JSON lines, and a readable hand history.

The kernel writes int64 rows ``(match, hand, kind, seat, a0 .. a9)`` for the
matches picked by ``play_matches(log_every=k)`` (every k-th match; off by
default and one branch per event when off). :data:`EVENT_SCHEMA` names each
kind's arguments; :func:`to_records` turns rows into dicts with readable
values (card text, category and Disruptor names) and :func:`write_json_lines`
writes them one JSON object per line:

``{"match": 0, "hand": 3, "event": "action", "seat": 2, "action": "raise",
"chips": 4, "round_bet": 4, "level": 4, "all_in": 0, "stack": 61}``

Seats are 0-based; ``seat`` is -1 for table events. Hands count from 1
(0 = before the first hand). Amounts are chips.

Kinds and their fields:

=================  =============================================================
match_start        players, chips (each), button, dart, disruptor_cards (deck size)
hand_start         button, dart, inverted, betting, community_cards_i (cards at
                   Community Card I), ante (per player before exemptions), frozen,
                   fee_ceiling (0 none), dart_step_mult, hedge_mult
ante               amount, all_in
deal               cards (5 hole cards)
hedge              category, cost, previous (category or null), all_in (the cost
                   was the last chip, SPEC R5: no action follows this turn)
action             action (fold/check/call/bet/raise), chips (put in now),
                   round_bet, level (highest round bet after), all_in, stack
promote            category, fee, dart (after the move), fee_to, swapped_with
discard            n, cards
hole               cards (the hand after the draw)
board              cards (community cards so far)
show               score, category, elevated
muck               --
hedge_pay          paid, from, category, due
pot                index (0 = main), amount, eligible (seats), winners (seats)
award              chips, pot
fold_win           chips
uncalled           chips (the part of the round's highest bet nobody matched, back to
                   its bettor when the round ends, SPEC R10)
reveal             cards (Disruptor ids revealed)
pick               card, index (in the reveal), order (0 = first pick)
effect             card, a, b, dart -- for instants: market_crash / bull_run a =
                   dart after; insider_tip / short_sell a = category, b = its
                   column position after the move (R13); windfall a = chips;
                   levy a = chips collected; swap_any a, b = the two
                   categories; purge a = card removed, b = its owner (-1
                   community). For Personal / Community cards: a = the named
                   category (Elevator) or -1, b = slot taken.
disruptor_discard  card, why (leftover, personal_room, community_room, purged,
                   eliminated, safety_net, instant), named (an Elevator's category id),
                   slot (the Personal or Community slot it left; -1 for a revealed card)
eliminated         hand
safety_net         chips, slot (of the net that saved)
reshuffle          pile (stock / disruptors), cards
hand_end           chips (per seat), dart, bank_net (bank in - out so far)
match_end          winner, hands, unresolved
=================  =============================================================
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from nop_sim.core.cards import format_card
from nop_sim.core.column import DEFAULT_COLUMN, Category, Column
from nop_sim.games.new_order import types as T
from nop_sim.games.registry import seat_name

__all__ = ["EVENT_COLUMNS", "EVENT_SCHEMA", "render_history", "to_records", "write_json_lines"]

# the columns of a run's ``events`` table (besides ``point``): a row of the kernel's log
EVENT_COLUMNS = ("match", "hand", "kind", "seat", *(f"a{i}" for i in range(T.EV_ARGS)))

ACTIONS = ("fold", "check", "call", "bet", "raise")
DISCARD_WHY = ("leftover", "personal_room", "community_room", "purged", "eliminated",
               "safety_net", "instant")

# kind -> (name, argument names); names ending in '*' collect the rest as a list
EVENT_SCHEMA: dict[int, tuple[str, tuple[str, ...]]] = {
    T.EV_MATCH_START: ("match_start", ("players", "chips", "button", "dart", "disruptor_cards")),
    T.EV_HAND_START: ("hand_start", ("button", "dart", "inverted", "betting", "community_cards_i",
                                     "ante", "frozen", "fee_ceiling", "dart_step_mult",
                                     "hedge_mult")),
    T.EV_ANTE: ("ante", ("amount", "all_in")),
    T.EV_DEAL: ("deal", ("cards*",)),
    T.EV_HEDGE: ("hedge", ("category", "cost", "previous", "all_in")),
    T.EV_ACTION: ("action", ("action", "chips", "round_bet", "level", "all_in", "stack")),
    T.EV_PROMOTE: ("promote", ("category", "fee", "dart", "fee_to", "swapped_with")),
    T.EV_DISCARD: ("discard", ("n", "cards*")),
    T.EV_DRAWN: ("hole", ("cards*",)),
    T.EV_BOARD: ("board", ("cards*",)),
    T.EV_SHOW: ("show", ("score", "category", "elevated")),
    T.EV_MUCK: ("muck", ()),
    T.EV_HEDGE_PAY: ("hedge_pay", ("paid", "from", "category", "due")),
    T.EV_POT: ("pot", ("index", "amount", "eligible", "winners")),
    T.EV_AWARD: ("award", ("chips", "pot")),
    T.EV_FOLD_WIN: ("fold_win", ("chips",)),
    T.EV_REVEAL: ("reveal", ("n", "cards*")),
    T.EV_PICK: ("pick", ("card", "index", "order")),
    T.EV_EFFECT: ("effect", ("card", "a", "b", "dart")),
    T.EV_DISRUPTOR_DISCARD: ("disruptor_discard", ("card", "why", "named", "slot")),
    T.EV_ELIMINATED: ("eliminated", ("hand",)),
    T.EV_SAFETY: ("safety_net", ("chips", "slot")),
    T.EV_MATCH_END: ("match_end", ("winner", "hands", "unresolved")),
    T.EV_RESHUFFLE: ("reshuffle", ("pile", "cards")),
    T.EV_HAND_END: ("hand_end", ("chips*",)),
    T.EV_UNCALLED: ("uncalled", ("chips",)),
}
assert len(EVENT_SCHEMA) == T.N_EVENT_KINDS


def _category(v: int) -> str | None:
    return Category(int(v)).label if v >= 0 else None


def _card_id(v: int) -> str | None:
    return T.DISRUPTOR_IDS[int(v)] if v >= 0 else None


def _seats(mask: int) -> list[int]:
    return [s for s in range(T.MAX_PLAYERS) if (int(mask) >> s) & 1]


def to_records(events: np.ndarray) -> Iterator[dict[str, Any]]:
    """Readable dicts of event rows (int64 ``(n, EV_WIDTH)``), in order."""
    for row in np.asarray(events, dtype=np.int64).tolist():
        match, hand, kind, seat = row[:4]
        args = row[4:]
        name, fields = EVENT_SCHEMA[kind]
        rec: dict[str, Any] = {"match": match, "hand": hand, "event": name, "seat": seat}
        if name in ("deal", "hole"):
            rec["cards"] = [format_card(c) for c in args[:5]]
        elif name == "board":
            rec["cards"] = [format_card(c) for c in args[:3] if c >= 0]
        elif name == "discard":
            rec["n"] = args[0]
            rec["cards"] = [format_card(c) for c in args[1:6] if c >= 0]
        elif name == "reveal":
            rec["cards"] = [_card_id(c) for c in args[1:1 + args[0]]]
        elif name == "hand_end":
            rec["chips"] = [c for c in args[:8] if c >= 0]
            rec["dart"] = args[8]
            rec["bank_net"] = args[9]
        else:
            for f, v in zip(fields, args, strict=False):
                rec[f] = v
            if name == "hand_start":
                rec["betting"] = T.BETTING_NAMES[args[3]]
            elif name == "action":
                rec["action"] = ACTIONS[args[0]]
            elif name in ("hedge", "promote", "show", "hedge_pay"):
                rec["category"] = _category(args[{"show": 1, "hedge_pay": 2}.get(name, 0)])
                if name == "hedge":
                    rec["previous"] = _category(args[2])
                elif name == "promote":
                    rec["fee_to"] = T.POT_OR_BANK[args[3]]
                    rec["swapped_with"] = _category(args[4])
                elif name == "hedge_pay":
                    rec["from"] = T.POT_OR_BANK[args[1]]
                    rec["category"] = _category(args[2])
            elif name == "pot":
                rec["eligible"] = _seats(args[2])
                rec["winners"] = _seats(args[3])
            elif name in ("pick", "effect", "disruptor_discard"):
                rec["card"] = _card_id(args[0])
                if name == "disruptor_discard":
                    rec["why"] = DISCARD_WHY[args[1]]
            elif name == "reshuffle":
                rec["pile"] = ("stock", "disruptors")[args[0]]
        yield rec


def write_json_lines(events: np.ndarray, path: str | Path) -> Path:
    """Write the log as JSON lines; returns the path."""
    path = Path(path)
    with path.open("w", encoding="utf-8") as fh:
        for rec in to_records(events):
            fh.write(json.dumps(rec) + "\n")
    return path


def render_history(records: Iterable[dict[str, Any]], names: list[str] | None = None) -> str:
    """A poker-room style hand history of logged records (dicts of :func:`to_records`)."""

    lines: list[str] = []
    column = list(DEFAULT_COLUMN.order)
    dart = 0

    def who(seat: int) -> str:
        return names[seat] if names and 0 <= seat < len(names) else seat_name(seat)

    def col_text() -> str:
        return " > ".join(c.label for c in column)

    for r in records:
        ev, seat = r["event"], r["seat"]
        if ev == "match_start":
            column = list(DEFAULT_COLUMN.order)
            dart = r["dart"]
            lines.append(f"=== Match {r['match']}: {r['players']} players, {r['chips']} chips "
                         f"each, dart {dart} ===")
        elif ev == "hand_start":
            dart = r["dart"]
            extras = [r["betting"]]
            if r["inverted"]:
                extras.append("INVERTED")
            if r["frozen"]:
                extras.append("frozen market")
            if r["community_cards_i"] > 1:
                extras.append("third card")
            lines.append("")
            lines.append(f"--- Hand #{r['hand']} (match {r['match']}) -- button {who(r['button'])}"
                         f", dart {dart}, ante {r['ante']}, {', '.join(extras)}")
            lines.append(f"Column: {col_text()}")
        elif ev == "ante":
            lines.append(f"{who(seat)} antes {r['amount']}" + (" and is all-in" if r["all_in"]
                                                                 else ""))
        elif ev == "deal":
            lines.append(f"Dealt to {who(seat)}: [{' '.join(r['cards'])}]")
        elif ev == "hedge":
            moved = f" (moved from {r['previous']})" if r["previous"] else ""
            lines.append(f"{who(seat)} hedges on {r['category']} for {r['cost']}{moved}")
        elif ev == "promote":
            c = Category[r["category"].upper().replace(" ", "_")]
            i = column.index(c)
            column[i - 1], column[i] = column[i], column[i - 1]
            dart = r["dart"]
            lines.append(f"{who(seat)} promotes {r['category']} above {r['swapped_with']} "
                         f"(fee {r['fee']} to the {r['fee_to']}); dart now {dart}")
        elif ev == "action":
            a = r["action"]
            text = {"fold": "folds", "check": "checks"}.get(a)
            if text is None:
                text = f"{a}s {r['chips']}" if a != "raise" else f"raises to {r['round_bet']}"
                if a == "bet":
                    text = f"bets {r['chips']}"
            if r["all_in"] and a not in ("fold", "check"):
                text += " and is all-in"
            lines.append(f"{who(seat)} {text}")
        elif ev == "discard":
            lines.append(f"{who(seat)} discards {r['n']}" + (
                f" [{' '.join(r['cards'])}]" if r["cards"] else ""))
        elif ev == "hole":
            lines.append(f"{who(seat)} now holds [{' '.join(r['cards'])}]")
        elif ev == "board":
            lines.append(f"*** BOARD *** [{' '.join(r['cards'])}]")
        elif ev == "show":
            lines.append(f"{who(seat)} shows {r['category']}" + (" (elevated)" if r["elevated"]
                                                                  else ""))
        elif ev == "muck":
            lines.append(f"{who(seat)} mucks")
        elif ev == "hedge_pay":
            lines.append(f"{who(seat)}'s hedge on {r['category']} pays {r['paid']} "
                         f"(from the {r['from']})")
        elif ev == "pot":
            kind = "Main pot" if r["index"] == 0 else f"Side pot {r['index']}"
            lines.append(f"{kind} {r['amount']}: {', '.join(who(s) for s in r['winners'])}")
        elif ev == "award":
            lines.append(f"{who(seat)} collects {r['chips']}")
        elif ev == "uncalled":
            lines.append(f"Uncalled bet ({r['chips']}) returned to {who(seat)}")
        elif ev == "fold_win":
            lines.append(f"{who(seat)} takes {r['chips']} uncontested")
        elif ev == "reveal":
            lines.append(f"Disruptors revealed: {', '.join(r['cards'])}")
        elif ev == "pick":
            lines.append(f"{who(seat)} drafts {r['card']}")
        elif ev == "effect":
            card = r["card"]
            if card in ("market_crash", "bull_run"):
                dart = r["a"]
                lines.append(f"  {card}: dart now {dart}")
            elif card in ("insider_tip", "short_sell"):
                c = Category(r["a"])
                i = column.index(c)
                j = i - 1 if card == "insider_tip" else i + 1
                if 0 <= j < 13:
                    column[i], column[j] = column[j], column[i]
                lines.append(f"  {card}: {c.label} moves {'up' if j < i else 'down'}")
            elif card == "swap_any":
                a, b = Category(r["a"]), Category(r["b"])
                i, j = column.index(a), column.index(b)
                column[i], column[j] = column[j], column[i]
                lines.append(f"  swap_any: {a.label} <-> {b.label}")
            elif card == "restore_order":
                column = list(DEFAULT_COLUMN.order)
                lines.append("  restore_order: the column is back to default")
            elif card == "windfall":
                lines.append(f"  windfall: {who(seat)} takes {r['a']} from the bank")
            elif card == "levy":
                lines.append(f"  levy: {who(seat)} collects {r['a']}")
            elif card == "purge":
                lines.append(f"  purge: {_card_id(r['a'])} discarded" if r["a"] >= 0 else
                             "  purge: nothing in play")
            elif card == "elevator":
                lines.append(f"  elevator names {Category(r['a']).label}")
            else:
                lines.append(f"  {card} comes into play")
        elif ev == "disruptor_discard" and r["why"] not in ("instant", "leftover"):
            lines.append(f"  {r['card']} discarded ({r['why'].replace('_', ' ')})")
        elif ev == "eliminated":
            lines.append(f"{who(seat)} is eliminated")
        elif ev == "safety_net":
            lines.append(f"{who(seat)} is saved by the safety net ({r['chips']} chips)")
        elif ev == "hand_end":
            lines.append("Chips: " + ", ".join(f"{who(s)} {c}" for s, c in enumerate(r["chips"]))
                         + f"; dart {r['dart']}")
        elif ev == "match_end":
            status = "unresolved (max hands), chip leader" if r["unresolved"] else "winner"
            lines.append(f"=== Match {r['match']} over after {r['hands']} hands: {status} "
                         f"{who(r['winner'])} ===")
    _ = Column  # the column shown is rebuilt from the events alone
    return "\n".join(lines)
