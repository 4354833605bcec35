"""Constants every game and the shared kernels read (one place, no logic).

The dtypes and the 13 category ids. Module level integer constants are frozen
into the kernels at compile time, so this file is in the kernel cache digest
(:mod:`nop_sim.kernels.jit`). Each game's own layouts live in its package
(:mod:`nop_sim.games.new_order.types`, :mod:`nop_sim.games.ordered_hand.types`).
"""

from __future__ import annotations

import numpy as np

# -- dtypes -------------------------------------------------------------------
CARD_DTYPE = np.int8        # card codes, -1 = no card
COUNT_DTYPE = np.int64      # chips, counters, settings
PARAM_DTYPE = np.float64    # agent parameters
SEED_DTYPE = np.uint64      # RNG state words

N_CATEGORIES = 13
# Category ids: their one definition. nop_sim.core.column.Category names these values and
# the kernels read them as plain ints; the id is the category's place in the default
# column. (Here, not in column.py: this file is in the kernels' cache digest.)
FLUSH_FIVE = 0
FLUSH_HOUSE = 1
FIVE_OF_A_KIND = 2
ROYAL_FLUSH = 3
STRAIGHT_FLUSH = 4
FOUR_OF_A_KIND = 5
FULL_HOUSE = 6
FLUSH = 7
STRAIGHT = 8
THREE_OF_A_KIND = 9
TWO_PAIR = 10
ONE_PAIR = 11
HIGH_CARD = 12
