"""The Disruptor catalog as data, and mixes -> the arrays the kernels take (SPEC 7).

The catalog ships as ``nop_sim/games/new_order/data/disruptors.toml``: one ``[[card]]`` per id
with its type, default copies, the number its effect uses and how copies of it
stack (:data:`STACK_RULES`). A *mix* says
which cards form the Disruptor deck and how many copies of each: the name of a
shipped mix (``default`` = the 85-card catalog, ``none``, ``chaos``) or an
explicit table ``{id: copies}``. An entry of the table may also be a table
``{copies = n, amount = a}``, which changes the card's number for this mix
(SPEC R8: every amount is read from the catalog or the mix), within the
card's ``amount_range``.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import numpy as np

from nop_sim.core.errors import MixError, did_you_mean
from nop_sim.games.new_order import types as T

# a card drafted by fewer seats (seat-matches) has no say in the largest Disruptor effect
# (the max_disruptor_effect target): one or two drafters' wins read as a lift of 50-100 points
EFFECT_MIN_DRAFTERS = 30

__all__ = [
    "EFFECT_MIN_DRAFTERS",
    "Catalog",
    "DisruptorCard",
    "DisruptorArrays",
    "SHIPPED_MIXES",
    "STACK_RULES",
    "load_catalog",
    "mix_arrays",
    "resolve_amounts",
    "resolve_mix",
]

SHIPPED_MIXES = ("default", "none", "chaos")
# How copies of one card in play (or held by one player) combine (SPEC 7, ruling R6):
# multiply: amount ** copies; add: amount * copies; once: a second copy changes
# nothing; each: every copy acts once on its own (safety_net, the instants).
STACK_RULES = T.STACK_NAMES
# The cards whose copies act one by one; every other card's effect is one number
# (or a flag) and stacks multiply, add or once.
_COPY_BY_COPY = ("safety_net",)
MAX_COPIES = 64


@dataclass(frozen=True)
class DisruptorCard:
    """One catalog entry."""

    id: str
    index: int
    type: str
    copies: int
    amount: int
    amount_range: tuple[int, int]
    stack: str
    text: str


@dataclass(frozen=True)
class Catalog:
    """The shipped catalog: cards in kernel-id order and the shipped mixes."""

    cards: tuple[DisruptorCard, ...]
    mixes: Mapping[str, Mapping[str, int]]

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(c.id for c in self.cards)

    def card(self, card_id: str) -> DisruptorCard:
        for c in self.cards:
            if c.id == card_id:
                return c
        raise MixError(_unknown_id_message(card_id, self.ids))


@dataclass(frozen=True)
class DisruptorArrays:
    """What the kernels take.

    deck : int64 (n_cards,)   card ids of the mix, copies repeated, unshuffled
    type : int64 (25,)        TYPE_INSTANT / TYPE_PERSONAL / TYPE_COMMUNITY per id
    amount : int64 (25,)      the number of each card's effect
    stack : int64 (25,)       how copies combine: STACK_MULTIPLY / _ADD / _ONCE / _EACH
    """

    deck: np.ndarray
    type: np.ndarray
    amount: np.ndarray
    stack: np.ndarray


def _unknown_id_message(card_id: object, ids: tuple[str, ...]) -> str:
    return (f"unknown Disruptor id {card_id!r}.{did_you_mean(card_id, ids)} "
            f"Allowed: {', '.join(ids)}")


@lru_cache(maxsize=1)
def load_catalog() -> Catalog:
    """Read and check ``nop_sim/games/new_order/data/disruptors.toml`` (once per process)."""
    raw = resources.files("nop_sim.games.new_order").joinpath("data/disruptors.toml").read_bytes()
    data = tomllib.loads(raw.decode("utf-8"))
    cards = []
    for index, entry in enumerate(data.get("card", [])):
        amount = int(entry.get("amount", 0))
        lo, hi = (int(v) for v in entry.get("amount_range", (amount, amount)))
        card = DisruptorCard(
            id=str(entry["id"]), index=index, type=str(entry["type"]),
            copies=int(entry["copies"]), amount=amount, amount_range=(lo, hi),
            stack=str(entry.get("stack", "")), text=str(entry.get("text", "")),
        )
        if not lo <= amount <= hi:
            raise RuntimeError(f"disruptors.toml: {card.id} amount {amount} outside {lo}..{hi}")
        # The effects are code: the data must list the ids in the kernels' order.
        if index >= T.N_DISRUPTORS or T.DISRUPTOR_IDS[index] != card.id:
            raise RuntimeError(
                f"disruptors.toml card {index} is {card.id!r}; the kernels expect "
                f"{T.DISRUPTOR_IDS[index] if index < T.N_DISRUPTORS else 'no more cards'}"
            )
        if card.type not in T.TYPE_NAMES:
            raise RuntimeError(f"disruptors.toml: {card.id} has unknown type {card.type!r}")
        if card.stack not in STACK_RULES:
            raise RuntimeError(f"disruptors.toml: {card.id} has stack {card.stack!r}; "
                               f"allowed: {', '.join(STACK_RULES)}")
        if (card.stack == "each") != (card.type == "instant" or card.id in _COPY_BY_COPY):
            raise RuntimeError(f"disruptors.toml: {card.id} cannot stack {card.stack!r}: "
                               "instants and safety_net act copy by copy ('each'), the "
                               "others multiply, add or act once")
        cards.append(card)
    if len(cards) != T.N_DISRUPTORS:
        raise RuntimeError(f"disruptors.toml lists {len(cards)} cards, expected {T.N_DISRUPTORS}")
    mixes = {"default": {c.id: c.copies for c in cards}}
    for name, table in data.get("mix", {}).items():
        mixes[name] = dict(table)
    catalog = Catalog(cards=tuple(cards), mixes=mixes)
    for name, table in mixes.items():
        _check_table(table, catalog.ids, where=f"shipped mix {name!r}")
    return catalog


def _check_table(table: Mapping, ids: tuple[str, ...], where: str
                 ) -> tuple[dict[str, int], dict[str, int]]:
    """Copies per id named in ``table`` (entries ``n`` or ``{copies = n, amount = a}``),
    and the amounts the table sets."""
    out = {}
    amounts = {}
    for key, copies in table.items():
        if key not in ids:
            raise MixError(f"{where}: " + _unknown_id_message(key, ids))
        if isinstance(copies, Mapping):
            copies, amount = _check_entry(copies, key, where)
            if amount is not None:
                amounts[key] = amount
        if isinstance(copies, bool) or not isinstance(copies, (int, np.integer)):
            raise MixError(
                f"{where}: copies of {key!r} must be an integer 0..{MAX_COPIES}, got {copies!r}"
            )
        if not 0 <= int(copies) <= MAX_COPIES:
            raise MixError(
                f"{where}: copies of {key!r} = {copies} is out of range; allowed 0..{MAX_COPIES}"
            )
        out[key] = int(copies)
    return out, amounts


def _check_entry(entry: Mapping, key: str, where: str) -> tuple[object, int | None]:
    """(copies, amount or None) of a table entry ``{copies = n, amount = a}``."""
    unknown = sorted(set(entry) - {"copies", "amount"})
    if unknown:
        raise MixError(
            f"{where}: {key} has unknown field {unknown[0]!r}; allowed: copies, amount"
        )
    card = next(c for c in load_catalog().cards if c.id == key)
    copies = entry.get("copies", card.copies)
    amount = entry.get("amount")
    if amount is not None:
        lo, hi = card.amount_range
        if isinstance(amount, bool) or not isinstance(amount, (int, np.integer)):
            raise MixError(f"{where}: amount of {key!r} must be an integer {lo}..{hi}, "
                           f"got {amount!r}")
        if not lo <= int(amount) <= hi:
            raise MixError(f"{where}: amount of {key!r} = {amount} is out of range; "
                           f"allowed {lo}..{hi}")
        amount = int(amount)
    return copies, amount


def resolve_amounts(mix: str | Mapping[str, int]) -> dict[str, int]:
    """The number of each card's effect under a mix: the catalog's, or the mix's own."""
    return _resolve(mix)[1]


def resolve_mix(mix: str | Mapping[str, int]) -> dict[str, int]:
    """The table id -> copies of a mix name or an explicit table (ids not named: 0).

    Raises
    ------
    MixError
        Unknown mix name, unknown card id, copies negative or not an integer, an
        amount outside the card's ``amount_range``.
    """
    return _resolve(mix)[0]


def _resolve(mix: str | Mapping[str, int]) -> tuple[dict[str, int], dict[str, int]]:
    """(copies, amount) per card id of a mix, checked once."""
    catalog = load_catalog()
    if isinstance(mix, str):
        if mix not in catalog.mixes:
            raise MixError(
                f"unknown Disruptor mix {mix!r}.{did_you_mean(mix, catalog.mixes)} Allowed: "
                f"{', '.join(catalog.mixes)}, or a table of card id -> copies"
            )
        table = catalog.mixes[mix]
        where = f"mix {mix!r}"
    elif isinstance(mix, Mapping):
        table = mix
        where = "disruptors table"
    else:
        raise MixError(
            f"disruptors must be a mix name ({', '.join(catalog.mixes)}) or a table of "
            f"card id -> copies, got {mix!r}"
        )
    checked, amounts = _check_table(table, catalog.ids, where)
    return ({c.id: checked.get(c.id, 0) for c in catalog.cards},
            {c.id: amounts.get(c.id, c.amount) for c in catalog.cards})


def mix_arrays(mix: str | Mapping[str, int]) -> DisruptorArrays:
    """Arrays of a mix for the kernels (see :class:`DisruptorArrays`)."""
    catalog = load_catalog()
    copies, amounts = _resolve(mix)
    deck = np.repeat(
        np.arange(T.N_DISRUPTORS, dtype=np.int64),
        [copies[c.id] for c in catalog.cards],
    )
    kind = np.array([T.TYPE_NAMES.index(c.type) for c in catalog.cards], dtype=np.int64)
    amount = np.array([amounts[c.id] for c in catalog.cards], dtype=np.int64)
    stack = np.array([T.STACK_NAMES.index(c.stack) for c in catalog.cards], dtype=np.int64)
    return DisruptorArrays(deck=deck, type=kind, amount=amount, stack=stack)
