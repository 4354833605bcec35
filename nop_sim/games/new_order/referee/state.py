"""The referee's per-hand state: each seat's effects and the hand in progress."""

from __future__ import annotations

from dataclasses import dataclass, field

from nop_sim.core.errors import RuleViolation
from nop_sim.games.new_order.settings import Settings


@dataclass(frozen=True)
class _Seat:
    """One player's Personal cards as this hand's effects (read at the hand's start)."""

    wild_ranks: int  # bit rank - 2 per wild rank (deuces_wild counted in)
    elevation: tuple[int, ...]  # positions each category is elevated (elevator)
    fee_off: int  # taken off the Ledger fee (broker)
    max_discard: int  # cards that may be discarded in the Draw (deep_draw)
    ante_exempt: bool
    hedge_fund: int  # hedge payout multiplier


# -- state -------------------------------------------------------------------------------------
@dataclass
class _Hand:
    number: int
    button: int
    order: list[int]
    ante: int
    betting: str
    inverted: bool
    third: int
    frozen: bool
    ceiling: int
    inflation: int
    hedge_mult: int
    seats: list[_Seat]
    committed: list[int]
    folded: list[bool]
    allin: list[bool]
    in_hand: list[bool]
    hole: dict[int, list[int]] = field(default_factory=dict)
    board: list[int] = field(default_factory=list)
    dead: int = 0
    dead_pots: list[list] = field(default_factory=list)  # [chips, seats, tick] (R1)
    tick: int = 0  # formation clock of all-ins and dead-money pots
    allin_tick: dict[int, int] = field(default_factory=dict)
    phase: str = "ante"
    # betting round
    rnd: int = -1
    level: int = 0
    n_raises: int = 0
    last_raise: int = 0
    full_seq: int = 0  # full bets and raises this round (R4)
    act_seq: list[int] = field(default_factory=list)
    round_bet: list[int] = field(default_factory=list)
    acted: list[bool] = field(default_factory=list)
    last_actor: int = -1
    turn_seat: int = -1
    turn_promotions: int = 0
    turn_hedged: bool = False
    drew: set = field(default_factory=set)
    # showdown
    shown: dict[int, tuple] = field(default_factory=dict)
    scores: dict[int, int] = field(default_factory=dict)
    cats: dict[int, int] = field(default_factory=dict)
    mucked: set = field(default_factory=set)
    best_shown: int = -1
    pots: list[list] = field(default_factory=list)  # [amount, eligible set]
    pot_i: int = 0
    awards_due: list = field(default_factory=list)
    hedge_due: list = field(default_factory=list)
    k_showdown: int = 0
    pickers: list[int] = field(default_factory=list)
    reveal: list[int] = field(default_factory=list)
    taken: list[bool] = field(default_factory=list)
    n_picks: int = 0
    drafting: bool = False


class _Checker:
    """What every part of the referee shares: the settings, where in the log it is, and
    the one way to report a broken rule."""

    s: Settings
    where: str

    def fail(self, msg: str) -> None:
        raise RuleViolation(f"{self.where}: {msg}")

    def expect(self, cond: bool, msg: str) -> None:
        if not cond:
            self.fail(msg)
