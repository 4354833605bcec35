"""Agents' choices under the live column, called on hand-built states."""

from __future__ import annotations

import numpy as np

from nop_sim.core.cards import parse_cards
from nop_sim.core.column import Category, Column
from nop_sim.games.new_order import types as T
from nop_sim.games.new_order.abstraction import no_tables
from nop_sim.games.new_order.agents import agent_table
from nop_sim.games.new_order.engine import strength_tables
from nop_sim.games.new_order.kernels import state as S
from nop_sim.games.new_order.kernels.common import evaluator_address
from nop_sim.games.new_order.kernels.decide import choose_keep
from nop_sim.games.new_order.kernels.policy import single_strength
from nop_sim.games.new_order.settings import Settings
from nop_sim.kernels.rng import seed_states


def _state(hole_text: str, column: Column, agents="balanced"):
    settings = Settings()
    arr, mix = settings.to_arrays()
    g = np.zeros(S.N_G, np.int64)
    g[S.G_N] = 4
    g[S.G_COLVER] = 1
    g[S.G_EVAL_FN] = evaluator_address()
    ps = np.zeros((T.MAX_PLAYERS, S.N_P), np.int64)
    ps[:4, S.P_ALIVE] = 1
    ps[:4, S.P_INHAND] = 1
    ps[:, S.P_CAT_KEY] = -1
    ps[:, S.P_READ_KEY] = -1
    ps[:, S.P_HFUND] = 1
    col = column.to_array().astype(np.int64)
    colpos = column.positions()
    hole = np.full((T.MAX_PLAYERS, 5), -1, np.int8)
    hole[0] = parse_cards(hole_text)
    tmp = np.zeros(S.N_TMP, np.int64)
    tmp[S.TMP_TVER:S.TMP_TVER + S.N_TABLES] = -1
    tmp[S.TMP_WKEY:S.TMP_WKEY + 9] = -1
    st = (g, ps, col, colpos, hole, np.full(3, -1, np.int8), np.full(8, -1, np.int8),
          np.zeros(52, np.int8), np.zeros(52, np.int8), np.zeros(85, np.int64),
          np.zeros(85, np.int64), np.full(2, -1, np.int64),
          np.zeros((S.N_TABLES, 13)), np.zeros((S.N_TABLES, 14)),
          np.full(9, -1, np.int64), mix.deck, tmp, np.zeros(S.N_FTMP),
          np.zeros((T.MAX_PLAYERS + 1, 4), np.uint64), np.zeros(T.N_PAUSE, np.int64),
          np.zeros((0, S.N_TR)))
    tab_start, tab_mask, tab_freq = strength_tables()
    policy, policy_seat, abstraction, _ = no_tables()  # every seat plays its agent row
    items = dict(settings=arr, dtype=mix.type, damount=mix.amount, dstack=mix.stack,
                 agents=agent_table(agents, 4), tab_start=tab_start,
                 tab_mask=tab_mask, tab_freq=tab_freq, policy=policy, policy_seat=policy_seat[0],
                 abstraction=abstraction)
    cfg = tuple(items[name] for name, *_ in S.CFG_ITEMS)  # in the declared order
    return st, cfg


def _kept(hole_text, column, max_discard=3):
    st, cfg = _state(hole_text, column)
    keep = choose_keep(st, cfg, 0, seed_states(1, 1)[0], max_discard)
    cards = hole_text.split()
    return sorted(cards[i] for i in range(5) if (keep >> i) & 1)


def test_draws_chase_what_the_column_rewards():
    hand = "9h 9c 2h 5h Kh"
    flush_top = Column.parse("Flush > Flush Five")
    flush_bottom = Column([c for c in range(13) if c != Category.FLUSH] + [Category.FLUSH])
    assert _kept(hand, flush_top) == sorted(["9h", "2h", "5h", "Kh"])
    assert _kept(hand, flush_bottom) == sorted(["9h", "9c"])


def test_strength_follows_the_live_column():
    hand = "9h 9c 2d 5s Kh"  # One Pair
    pair_top = Column.parse("One Pair > Flush Five")
    pair_bottom = Column([c for c in range(13) if c != Category.ONE_PAIR]
                         + [Category.ONE_PAIR])
    st, cfg = _state(hand, pair_top)
    s_top, cat, e = single_strength(st, cfg, 0)
    assert cat == Category.ONE_PAIR and e == 0 and s_top > 0.5
    st, cfg = _state(hand, pair_bottom)
    s_bottom, cat, e = single_strength(st, cfg, 0)
    # five cards have one classification: still One Pair, now the weakest category
    assert cat == Category.ONE_PAIR and e == 12 and s_bottom < 0.25 < s_top
