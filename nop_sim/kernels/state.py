"""Layout of one match's working state inside the kernels (private to kernels).

``g`` is an int64 vector of match/hand scalars (``G_*``), ``ps`` an int64
``(MAX_PLAYERS, N_P)`` table of per-seat fields (``P_*``). Keeping the state
in two arrays lets small kernels share it without long argument lists.
"""

# -- g: match and hand scalars ---------------------------------------------------
G_N = 0            # seats in the match
G_DART = 1
G_BUTTON = 2
G_HAND = 3         # hands started (1-based number of the current hand)
G_DEAD = 4         # chips in the pot that are not bets: fees, hedge costs
G_LEVEL = 5        # highest round bet this betting round
G_N_RAISES = 6
G_LAST_RAISE = 7   # size of the last bet or raise (no-limit minimum raise)
G_ROUND = 8        # 0, 1, 2 = Bet I, II, III
G_BANK_IN = 9
G_BANK_OUT = 10
G_TOTAL0 = 11      # chips at the start of the match
G_STOCK_TOP = 12
G_STOCK_N = 13
G_DISC_N = 14
G_BOARD_N = 15
G_DTOP = 16        # Disruptor deck: next card index, cards in deck
G_DN = 17
G_DDISC_N = 18
G_INVERTED = 19    # Inversion in play this hand
G_BETTING = 20     # structure this hand (no_limit card overrides)
G_THIRD = 21       # cards at Community Card I
G_FROZEN = 22
G_DEUCES = 23      # deuces_wild in play
G_INFLATION = 24   # dart step multiplier
G_CEILING = 25     # fee ceiling (0 = none)
G_ANTE_MULT = 26
G_HEDGE_MULT = 27  # hedge_boom multiplier
G_COLVER = 28      # bumped on every column or reading change
G_DISTVER = 29     # unused (strength tables keep their versions in TMP_TVER)
G_CARDVER = 30     # bumped on every change of cards in play
G_ALIVE = 31
G_LOG = 32         # 1: write events for this match
G_MATCH = 33       # global match index
G_UNIT = 34        # limit bet size this round
G_EVN = 35         # events written (this chunk)
G_EV_LOST = 36     # events dropped because the buffer was full
G_ERRORS = 37      # invariant failures this match
G_EVAL_FN = 38     # address of the compiled evaluator entry (common.evaluator_address)
G_DRAFT_FN = 39    # address of the compiled draft (disruptor.draft_address)
G_FULL_SEQ = 40    # full bets and raises this betting round (R4: who may raise)
G_TICK = 41        # clock of this hand's all-ins and dead-money pots (their formation order)
G_SIDE_DEAD_N = 42  # dead-money pots formed after an all-in this hand (R1)
G_ELEV_LIFT = 43   # positions an Elevator raises its category (the card's amount, R8)
N_G = 44

# -- ps: per seat ------------------------------------------------------------------
P_CHIPS = 0
P_ALIVE = 1
P_INHAND = 2       # dealt into this hand
P_FOLDED = 3
P_ALLIN = 4
P_COMMITTED = 5    # ante + bets this hand
P_ROUND_BET = 6
P_ACTED = 7
P_HEDGE = 8        # category of the token, -1 = not placed
P_START_CHIPS = 9  # chips at the hand's start
P_WILDS = 10       # wild rank mask this hand
P_ELEV = 11        # elevated category mask this hand
P_PERS0 = 12       # Personal Disruptor ids (-1 = empty)
P_PERS1 = 13
P_ARG0 = 14        # the Elevator's named category, per slot
P_ARG1 = 15
P_CAT = 16         # cached best category
P_CAT_KEY = 17     # (colver, cardver) the cache is valid for
P_MUCKED = 18
P_SCORE = 19
P_ELIM_HAND = 20
P_ELIM_KEY = 21    # orders players eliminated in the same hand
P_BROKERS = 22     # brokers held this hand
P_DEEP = 23
P_EXEMPT = 24
P_HFUND = 25       # hedge payout multiplier (hedge_fund)
P_SHOWN = 26
P_LAST_CAT = 27    # category shown at the last showdown (-1 none)
P_SCORE_C = 28     # cached score of the best hand (valid with P_CAT_KEY)
P_LV_A = 29        # the evaluator's reading of the column for this player (kernels.evaluate)
P_LV_B = 30
P_ORDER = 31
P_READ_KEY = 32    # colver the reading was made for (-1 none)
P_READ_ELEV = 33   # elevated mask it was made with
P_ACT_SEQ = 34     # G_FULL_SEQ when this seat last acted (R4)
P_ALLIN_TICK = 35  # G_TICK when this seat went all-in this hand
P_GOT0 = 36        # hand in which each Personal slot's card was drafted (R2)
P_GOT1 = 37
N_P = 38

# actions
ACT_FOLD = 0
ACT_CHECK = 1
ACT_CALL = 2
ACT_BET = 3
ACT_RAISE = 4

# strength tables (rows of nop_sim/data/strength_tables.csv, in this order)
TAB_R5 = 0
TAB_R7 = 2
SH_NOTHING = 4
SH_HIGH1 = 5
SH_HIGH2 = 6
SH_PAIR = 7
SH_TWO_PAIR = 8
SH_TRIPS = 9
SH_QUADS = 10
SH_FULL_HOUSE = 11
SH_FLUSH3 = 12
SH_FLUSH4 = 13
SH_FLUSH5 = 14
SH_OESD = 15
SH_GUTSHOT = 16
SH_STRAIGHT5 = 17
SH_SF_DRAW = 18
N_TABLES = 19

# -- scratch: regions of the int64 array st[16] (kernels without NRT cannot allocate) --
TMP_ORDER = 0       # 8: seats of the hand, left of the dealer first
TMP_PICKERS = 8     # 8: draft order
TMP_LEVELS = 16     # 8: side-pot levels
TMP_GONE = 40       # 5: discarded cards
TMP_TAKEN = 48      # 9: revealed Disruptors already picked
TMP_OWNERS = 60     # 18: purge targets
TMP_SLOTS = 80      # 18
TMP_RANKS = 100     # 5
TMP_SUITS = 105     # 5
TMP_RCOUNT = 110    # 15
TMP_SCOUNT = 125    # 4
TMP_OPTS = 130      # 3
TMP_SEEN = 140      # 52
TMP_DSEEN = 200     # 25
TMP_PLACES = 230    # 8
TMP_TVER = 240      # 19: column version each strength table was computed for
TMP_CATAT = 260     # 13: category at each effective position
TMP_WKEY = 273      # 9: key of the cached winner-position distribution, per m
# showdown pots: up to 8 layers of bets, then the dead-money pots (R1)
TMP_POTS = 288      # 24: chips in each pot
TMP_ELIG = 312      # 24: seats that may win it (bit mask)
TMP_PTICK = 336     # 24: when it formed (G_TICK; -1 the main pot)
TMP_PORDER = 360    # 24: pots in the order they formed
TMP_DPOT_AMT = 384  # 16: dead money paid after an all-in, per pot
TMP_DPOT_MASK = 400  # 16: seats neither folded nor all-in when it was paid
TMP_DPOT_TICK = 416  # 16
MAX_POTS = 24
MAX_DEAD_POTS = 16
N_TMP = 432

# -- float scratch st[17] ---------------------------------------------------------------
F_WIN = 0           # 9 x 13: chance the best of m random hands sits at each position (row m)
N_FTMP = 117
