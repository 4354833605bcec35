"""New Order Poker's layouts and ids, which Python and its kernels share (one place, no logic).

Kernels see only flat arrays and scalars. Every index into those arrays is
named here, once, so that :mod:`nop_sim.games.new_order.settings`,
:mod:`nop_sim.games.new_order.disruptors`, :mod:`nop_sim.games.new_order.agents`,
:mod:`nop_sim.games.new_order.engine` and the kernels agree. Module level
integer constants are frozen into the kernels at compile time.

The dtypes and category ids every game shares are defined in
:mod:`nop_sim.core.types` and re-exported here, so New Order code reads all its
constants from one module (``from nop_sim.games.new_order import types as T``).
"""

from __future__ import annotations

from nop_sim.core.types import (  # noqa: F401  (re-exported: see above)
    CARD_DTYPE,
    COUNT_DTYPE,
    FIVE_OF_A_KIND,
    FLUSH,
    FLUSH_FIVE,
    FLUSH_HOUSE,
    FOUR_OF_A_KIND,
    FULL_HOUSE,
    HIGH_CARD,
    N_CATEGORIES,
    ONE_PAIR,
    PARAM_DTYPE,
    ROYAL_FLUSH,
    SEED_DTYPE,
    STRAIGHT,
    STRAIGHT_FLUSH,
    THREE_OF_A_KIND,
    TWO_PAIR,
)

MAX_PLAYERS = 8
MIN_PLAYERS = 2
MAX_DECKS = 4
MAX_HAND_CARDS = 8          # 5 hole + up to 3 community cards (third_card)
MAX_PERSONAL = 2            # Personal Disruptors per player
MAX_COMMUNITY = 2           # Community Disruptors in play

# -- settings array (int64, see rules.Settings.to_arrays) ------------------------
S_PLAYERS = 0
S_CHIPS = 1                 # resolved ('auto' already turned into a number)
S_DECKS = 2
S_DART_START = 3
S_DART_STEP = 4
S_DART_CAP = 5
S_ANTE = 6
S_MAX_DISCARD = 7
S_BETTING = 8               # BET_LIMIT / BET_POT_LIMIT / BET_NO_LIMIT
S_SMALL_BET = 9
S_BIG_BET = 10
S_MAX_RAISES = 11
S_FEE_TO = 12               # TO_POT / TO_BANK
S_PROMOTIONS = 13           # promotions_per_action
S_DART_RESET = 14           # RESET_NEVER / RESET_HAND
S_HEDGE_COST = 15
S_HEDGE_PAYOUT = 16
S_HEDGE_FROM = 17           # TO_POT / TO_BANK (pot or bank)
S_HEDGE_SCOPE = 18          # SCOPE_HAND / SCOPE_MATCH
S_DRAFT_NO_SHOWDOWN = 19    # 0/1
S_MAX_HANDS = 20
S_STREAMS = 21              # 0: one RNG stream a chunk; 1: a chance stream re-seeded each hand
                            # and one decision stream per seat (engine.play_field's streams)
S_SCRIPTED = 22             # seat + 1 whose decisions come from a script (0: none); -(seat + 1):
                            # the seat's agent decides and each decision is written to the script
                            # (engine.play_scripted, kernels.script)
N_SETTINGS = 23

BET_LIMIT = 0
BET_POT_LIMIT = 1
BET_NO_LIMIT = 2
BETTING_NAMES = ("limit", "pot-limit", "no-limit")

TO_POT = 0
TO_BANK = 1
POT_OR_BANK = ("pot", "bank")

RESET_NEVER = 0
RESET_HAND = 1
DART_RESET_NAMES = ("never", "hand")

SCOPE_HAND = 0
SCOPE_MATCH = 1
HEDGE_SCOPE_NAMES = ("hand", "match")

# -- Disruptor cards ------------------------------------------------------------
# Card ids are the index of the card in the shipped catalog
# (nop_sim/games/new_order/data/disruptors.toml); each id has its own effect, coded in the
# kernels by these constants. disruptors.py checks that the catalog agrees.
D_MARKET_CRASH = 0
D_INSIDER_TIP = 1
D_SHORT_SELL = 2
D_WINDFALL = 3
D_LEVY = 4
D_BULL_RUN = 5
D_RESTORE_ORDER = 6
D_SWAP_ANY = 7
D_PURGE = 8
D_ELEVATOR = 9
D_WILD_DEUCES = 10
D_BROKER = 11
D_DEEP_DRAW = 12
D_HEDGE_FUND = 13
D_ANTE_EXEMPT = 14
D_SAFETY_NET = 15
D_DEUCES_WILD = 16
D_INFLATION = 17
D_PRICE_CEILING = 18
D_DOUBLE_ANTE = 19
D_THIRD_CARD = 20
D_FROZEN_MARKET = 21
D_HEDGE_BOOM = 22
D_INVERSION = 23
D_NO_LIMIT = 24
N_DISRUPTORS = 25

DISRUPTOR_IDS = (
    "market_crash", "insider_tip", "short_sell", "windfall", "levy", "bull_run",
    "restore_order", "swap_any", "purge", "elevator", "wild_deuces", "broker",
    "deep_draw", "hedge_fund", "ante_exempt", "safety_net", "deuces_wild",
    "inflation", "price_ceiling", "double_ante", "third_card", "frozen_market",
    "hedge_boom", "inversion", "no_limit",
)

TYPE_INSTANT = 0
TYPE_PERSONAL = 1
TYPE_COMMUNITY = 2
TYPE_NAMES = ("instant", "personal", "community")

# How copies of one card in play (or held by one player) combine: the catalog's
# `stack` per card (SPEC 7, ruling R6), passed to the kernels as one code per id.
STACK_MULTIPLY = 0   # amount ** copies
STACK_ADD = 1        # amount * copies
STACK_ONCE = 2       # amount, however many copies
STACK_EACH = 3       # every copy acts on its own (instants, safety_net)
STACK_NAMES = ("multiply", "add", "once", "each")

# The one number of each card's effect (its `amount` in the catalog), e.g.
# market_crash's 3, windfall's 5, broker's 2, price_ceiling's 10. Kernels read
# `disruptor_amount[card_id]`; cards without a number carry 0.

# -- agent parameter table (float64, one row per seat) --------------------------
A_RANDOM = 0          # 1: uniform over legal choices (the `random` preset); 0: heuristic
A_CALL_MARGIN = 1     # call when strength >= pot odds + margin (negative = looser)
A_BET_THRESHOLD = 2   # bet / raise when strength >= this
A_BLUFF = 3           # probability of a bet / raise whatever the strength
A_STATION = 4         # 1: never fold, never raise (calls everything)
A_BET_FRACTION = 5    # pot-limit / no-limit bet size as a fraction of the pot
A_MANIPULATE = 6      # weight on a promotion's gain against its fee (0 = never)
A_HEDGE = 7           # weight on a hedge's expected payout against its cost (0 = never)
A_DRAW_AIM = 8        # probability of drawing for the column's best plan (else keep pairs)
A_MUCK = 9            # probability of mucking a hand that cannot win
A_DRAFT_SKILL = 10    # probability of drafting by value (else uniformly)
A_NOISE = 11          # width of uniform noise added to judged strength
A_MANIPULATE_STREET = 12  # promote only once at least this many board cards are dealt
A_MANIPULATE_HURT = 13    # weight on pushing down the likeliest opposing category
A_HEDGE_STREET = 14   # place or move the token only once this many board cards are dealt
A_HEDGE_MOVE = 15     # weight on moving a placed token (0 = never move)
A_HEDGE_OWN = 16      # weight on the own category's chance in the hedge estimate
A_SIZE_STRENGTH = 17  # pot-limit / no-limit size: + size_strength * (strength - 0.5) pots
A_NL_SCALE = 18       # multiplies the bet size under no-limit
A_DRAFT0 = 19         # draft value of Disruptor id c is column A_DRAFT0 + c
N_AGENT_PARAMS = A_DRAFT0 + N_DISRUPTORS

AGENT_PARAM_NAMES = (
    "random", "call_margin", "bet_threshold", "bluff", "station", "bet_fraction",
    "manipulate", "hedge", "draw_aim", "muck", "draft_skill", "noise",
    "manipulate_street", "manipulate_hurt", "hedge_street", "hedge_move", "hedge_own",
    "size_strength", "nl_scale",
) + tuple(f"draft_{card}" for card in DISRUPTOR_IDS)

# -- per-match outputs ------------------------------------------------------------
# out_match[m, M_*] int64
M_WINNER = 0
M_HANDS = 1
M_UNRESOLVED = 2
M_DART = 3            # final dart
M_BUTTON_START = 4
M_INVERTED = 5        # Inversion in play at the end
M_BANK_IN = 6         # chips the bank paid into the game
M_BANK_OUT = 7        # chips that left the game to the bank
M_INVARIANT_ERRORS = 8  # hands after which chips or cards did not add up (0 expected)
N_MATCH_FIELDS = 9

# out_player[m, seat, PL_*] int64
PL_PLACE = 0          # 1 = winner
PL_ELIMINATED_HAND = 1  # hand number (1-based) of elimination, 0 = never
PL_FINAL_CHIPS = 2
PL_MANIPULATIONS = 3
PL_FEES = 4
PL_HEDGES_PLACED = 5
PL_HEDGES_WON = 6
PL_HEDGE_CHIPS = 7    # chips collected from hedges
PL_POTS_WON = 8       # pots (main or side) won or shared
PL_SHOWDOWNS = 9
PL_SAFETY_SAVES = 10
PL_BLUFFS = 11        # bets and raises on the bluff draw (C_BLUFFS, by seat)
N_PLAYER_FIELDS = 12

# -- merged per-hand counters (sum over chunks) -----------------------------------
# out_counts[chunk, C_*] int64
C_HANDS = 0
C_SHOWDOWNS = 1
C_FOLDED_WINS = 2     # hands won without showdown
C_POT_SUM = 3         # chips awarded from pots (after hedge payouts)
C_POT_SQ = 4
C_FEES = 5
C_FEES_TO_BANK = 6
C_MANIPULATIONS = 7
C_HEDGES = 8          # tokens placed or moved
C_HEDGE_COST = 9
C_HEDGE_HITS = 10     # payouts made
C_HEDGE_PAID = 11     # chips paid out for hedges
C_SPLITS = 12         # pots split between two or more hands
C_SIDE_POTS = 13      # pots beyond the main one
C_ALL_INS = 14
C_ELEVATED_WINS = 15  # main pot won by an elevated hand
C_DRAWN = 16          # cards drawn in the Draw
C_STOCK_RESHUFFLES = 17
C_DISRUPTOR_RESHUFFLES = 18
C_ELIMINATIONS = 19
C_BETS = 20
C_RAISES = 21
C_CALLS = 22
C_FOLDS = 23
C_CHECKS = 24
C_MUCKS = 25
C_INVARIANT_ERRORS = 26
C_INVERTED_HANDS = 27
C_WILD_HANDS = 28     # hands where someone had wilds
C_MATCHES = 29
C_UNRESOLVED = 30
C_BLUFFS = 31         # bets and raises made on the bluff draw (strength below the threshold)
N_COUNTS = 32

# out_cat[chunk, K_*, category] int64
K_WINS = 0            # main pot won with this category (natural)
K_WINS_ELEVATED = 1   # ... with an elevated hand of this category
K_MANIPULATIONS = 2   # promotions of this category
K_HEDGES = 3          # tokens placed on it
K_HEDGE_HITS = 4      # hedge payouts on it
K_SHOWDOWN_HANDS = 5  # hands shown down with this category
N_CAT_STATS = 6

# out_time[chunk, hand_index, T_*] int64 (hand_index 0 = first hand of a match)
T_POS0 = 0            # T_POS0 + category: sum of the category's column position
T_DART = 13           # sum of the dart at the hand's start
T_DART_SQ = 14
T_MATCHES = 15        # matches that played this hand
T_ALIVE = 16          # sum of players still in
N_TIME_STATS = 17

# out_disruptor[chunk, DS_*, card_id] int64
DS_REVEALED = 0
DS_PICKS = 1
DS_PICKS_FIRST = 2    # taken by the best hand
DS_APPLIED = 3        # instants resolved, personals/communities put in play
DS_DISCARDED = 4      # left over after a draft, discarded to make room, purged
DS_HANDS_IN_PLAY = 5  # hands a personal / community copy was in play (per copy)
DS_OWNER_WINS = 6     # main pots won by a personal card's owner while it was in play
N_DISRUPTOR_STATS = 7

# -- strength tables (nop_sim/games/new_order/data/strength_tables.csv, kernel order) -------------
STRENGTH_TABLES = (
    "random5", "random6", "random7", "random8", "keep_nothing", "keep_high1",
    "keep_high2", "keep_pair", "keep_two_pair", "keep_trips", "keep_quads",
    "keep_full_house", "keep_flush3", "keep_flush4", "keep_flush5", "keep_oesd",
    "keep_gutshot", "keep_straight5", "keep_sf_draw",
)

# -- a scripted seat (kernels.script, engine.play_scripted) ------------------------
# One int64 array: the pause record (PAUSE_*), then the decisions, SCRIPT_WIDTH each:
# (kind SK_*, a, b, 0). What a and b are, and what the pause's arguments hold, per kind:
SK_NONE = 0               # no pause: the match played to its end on the script
SK_ACTION = 1             # a: ACT_* (ACT_BLUFF added when an agent bluffed) | args: to_call,
                          #    can_check, can_bet, can_raise, pot, chips, limit unit, betting
SK_SIZE = 2               # a: chips put in by a pot- or no-limit bet or raise | args: lo, hi, pot
SK_PROMOTE = 3            # a: category promoted with the action, -1 none | args: fee, chips
SK_HEDGE = 4              # a: category the token goes on, -1 none | args: token now, cost, chips
SK_KEEP = 5               # a: bit mask of the hole cards kept | args: most cards discarded
SK_MUCK = 6               # a: 1 muck, 0 show
SK_PICK = 7               # a: index in the reveal | args: n revealed, 9 cards, 9 taken flags
SK_PERSONAL_DROP = 8      # a: Personal slot given up (0, 1) | args: the two cards
SK_COMMUNITY_DROP = 9     # a: Community slot discarded (0, 1) | args: the two cards
SK_TIP = 10               # a: category insider_tip promotes (not the top one)
SK_SHORT = 11             # a: category short_sell demotes (not the bottom one)
SK_SWAP = 12              # a, b: the two column positions swap_any swaps
SK_ELEVATOR = 13          # a: category an Elevator names
SK_PURGE = 14             # a: index of the target | args: n, 18 owners (-1 community), 18 slots,
                          #    18 cards
SK_ERROR = 15             # a decision refused (wrong kind or out of bounds): PAUSE_BAD names it
SCRIPT_KINDS = ("none", "action", "size", "promote", "hedge", "keep", "muck", "pick",
                "personal_drop", "community_drop", "tip", "short", "swap", "elevator",
                "purge", "error")
SCRIPT_WIDTH = 4
PAUSE_KIND = 0            # SK_* of the decision where the script ran out (0: it did not)
PAUSE_SEAT = 1
PAUSE_EVN = 2             # event rows written before the decision (the log up to the pause)
PAUSE_HAND = 3
PAUSE_AT = 4              # decisions of the script used (at the pause, else at the match's end)
PAUSE_BAD = 5             # index of the decision refused (SK_ERROR)
PAUSE_ARGS = 6            # what the decision is asked with (per kind, above)
N_PAUSE_ARGS = 56
N_PAUSE = PAUSE_ARGS + N_PAUSE_ARGS

# -- event log (int64 rows: match, hand, kind, seat, then EV_ARGS arguments) -------
# The meaning of each kind's arguments is in nop_sim/games/new_order/history.py (EVENT_SCHEMA).
EV_WIDTH = 14
EV_ARGS = EV_WIDTH - 4
EV_MATCH_START = 0
EV_HAND_START = 1
EV_ANTE = 2
EV_DEAL = 3
EV_HEDGE = 4
EV_ACTION = 5
EV_PROMOTE = 6
EV_DISCARD = 7
EV_DRAWN = 8
EV_BOARD = 9
EV_SHOW = 10
EV_MUCK = 11
EV_HEDGE_PAY = 12
EV_POT = 13
EV_AWARD = 14
EV_FOLD_WIN = 15
EV_REVEAL = 16
EV_PICK = 17
EV_EFFECT = 18
EV_DISRUPTOR_DISCARD = 19
EV_ELIMINATED = 20
EV_SAFETY = 21
EV_MATCH_END = 22
EV_RESHUFFLE = 23
EV_HAND_END = 24
EV_UNCALLED = 25
N_EVENT_KINDS = 26
