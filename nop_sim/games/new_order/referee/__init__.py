"""Replay New Order Poker event logs in plain Python and check every rule.

The referee shares nothing with the match kernels but the log format
(:mod:`nop_sim.games.new_order.history`): it keeps its own chips, pots, column, dart, tokens,
hands, piles and Disruptors, and checks each logged transition against the
SPEC (sections 3-7):

- each hand's effects, derived from the Disruptor catalog as data: every
  card's amount and its ``stack`` rule (SPEC R6, R8), checked against the
  logged hand flags;
- antes (exemptions, double_ante, short stacks all-in);
- cards: no card more often than ``decks`` copies among hands, board and the
  discard pile; discards come from the hand; the stock counted card by card
  (``decks`` x 52 at the deal, every card dealt or drawn comes from it),
  rebuilt from the whole discard pile only when it ran out;
- betting: turn order (first able player left of the dealer, round over when
  everyone able has acted and matched), legal actions and amounts for limit,
  pot-limit and no-limit, raise caps, all-ins;
- manipulation: only with a bet, call or raise, at most
  ``promotions_per_action``, never the top category, never in a frozen
  market, the fee (dart, price ceiling, brokers) paid in full to the pot or the
  bank, the dart's step (inflation) and cap;
- hedging: on the player's turn, before the action, paying the cost, moving
  only to another category; payouts at showdown on the main pot's winning
  category, in seat order, from the pot (partial) or the bank, doubled by
  hedge_fund / hedge_boom, for folded players too;
- showdown: shown hands re-scored by the referee's own best-of-five search
  under the column, elevation and inversion, wild cards and several decks
  included (:func:`score_hand`), mucks only by beaten hands, side pots and
  their winners, odd chips;
- the draft: k + 1 reveals (fewer when the piles run dry) drawn from the
  Disruptor deck, its discard pile reshuffled in only when the deck ran out,
  every Disruptor card in the deck, its discard pile or play; pick order, mucked
  hands skipped, mandatory picks, Personal (2) and Community (2) limits, and
  every effect's result;
- eliminations (safety_net), chips after every hand against the log, chip
  conservation with bank flows, the button, the match end and its winner.

Use :func:`check_results` on the output of ``play_matches(..., log_every=k)``.

The referee is a small package, one part per job, joined in :class:`~.match._Referee`:

- :mod:`.scoring`: the referee's own best-of-five search and the stacking of effects;
- :mod:`.state`: the per-hand state and the one way to report a broken rule;
- :mod:`.piles`: the stock, the discard pile, the deal, the draw and the board;
- :mod:`.betting`: antes, turn order, actions, hedges, promotions, dead money (R1, R4);
- :mod:`.showdown`: shown hands, side and dead-money pots, hedge payouts and awards;
- :mod:`.draft`: the Disruptors in play, the draft, effects, discards, safety nets (R2);
- :mod:`.match`: the hand and match lifecycle and the dispatch of events.
"""

from __future__ import annotations

from nop_sim.core.errors import RuleViolation
from nop_sim.core.hand_reference import classify_ranks  # noqa: F401  (shared with the Ordered referee)
from nop_sim.games.new_order.referee.match import _Referee, check_log, check_results  # noqa: F401
from nop_sim.games.new_order.referee.scoring import _stacked, score_hand  # noqa: F401  (tests use _stacked)

__all__ = ["RuleViolation", "check_log", "check_results", "score_hand"]

ACTIONS = ("fold", "check", "call", "bet", "raise")
