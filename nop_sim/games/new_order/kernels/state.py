"""Layout of one match's working state inside the kernels (private to kernels).

Everything here is declared once, as data, and the index constants are
generated from the declarations (:func:`_layout`), so that no offset is kept
by hand:

* the three tuples the match kernels pass around, ``st`` (the match state),
  ``cfg`` (read-only inputs) and ``out`` (outputs), item by item with dtype
  and dimensions (:data:`ST_ITEMS`, :data:`CFG_ITEMS`, :data:`OUT_ITEMS` ->
  ``ST_G``, ``CFG_SETTINGS``, ``OUT_EVENTS``...); the compile firewall derives
  its signatures from them (kernels.firewall);
* ``g``, an int64 vector of match/hand scalars (``G_*``), and ``ps``, an int64
  ``(MAX_PLAYERS, N_P)`` table of per-seat fields (``P_*``). Keeping the state
  in two arrays lets small kernels share it without long argument lists;
* the int64 scratch ``st[ST_TMP]`` (``TMP_*``, kernels without NRT cannot
  allocate) and the float64 scratch ``st[ST_FTMP]`` (``F_*``): regions with
  their sizes (``N_TMP_*``), offsets laid out one after the other.

Numba reads these module-level ints as compile-time constants: ``st[ST_G]``
compiles to the same static tuple access as ``st[0]``.
"""

from __future__ import annotations


def _layout(prefix: str, fields) -> dict[str, int]:
    """``{prefix_NAME: offset}`` for fields ``(NAME, size, comment)`` laid out in order,
    ``N_prefix_NAME: size`` for the fields wider than one, and ``N_prefix`` the total."""
    names: dict[str, int] = {}
    offset = 0
    for name, size, _ in fields:
        names[f"{prefix}_{name}"] = offset
        if size > 1:
            names[f"N_{prefix}_{name}"] = size
        offset += size
    names[f"N_{prefix}"] = offset
    return names


def _items(prefix: str, items) -> dict[str, int]:
    """``{prefix_NAME: index}`` for the items ``(name, dtype, ndim, comment)`` of a tuple."""
    return {f"{prefix}_{name.upper()}": i for i, (name, *_rest) in enumerate(items)}


# -- the state tuples: (name, dtype, ndim, what) -----------------------------------------
ST_ITEMS = (
    ("g", "int64", 1, "match and hand scalars (G_*)"),
    ("ps", "int64", 2, "(MAX_PLAYERS, N_P) per-seat fields (P_*)"),
    ("col", "int64", 1, "(13,) category at each position of the column"),
    ("colpos", "int8", 1, "(13,) position of each category"),
    ("hole", "int8", 2, "(MAX_PLAYERS, 5) hole cards"),
    ("board", "int8", 1, "(3,) community cards"),
    ("buf", "int8", 1, "(8,) one player's cards for the evaluator"),
    ("stock", "int8", 1, "(52 * decks,) the stock"),
    ("disc", "int8", 1, "(52 * decks,) the discard pile"),
    ("ddeck", "int64", 1, "Disruptor deck"),
    ("ddisc", "int64", 1, "Disruptor discards"),
    ("comm", "int64", 1, "(2,) community Disruptors in play (-1 empty)"),
    ("dist", "float64", 2, "(N_TABLES, 13) strength distributions"),
    ("tail", "float64", 2, "(N_TABLES, 14) their tails"),
    ("reveal", "int64", 1, "(MAX_PLAYERS + 1,) Disruptors revealed for the draft"),
    ("deck0", "int64", 1, "the mix's Disruptor cards, unshuffled"),
    ("tmp", "int64", 1, "(N_TMP,) int scratch (TMP_*)"),
    ("ftmp", "float64", 1, "(N_FTMP,) float scratch (F_*)"),
    ("srng", "uint64", 2, "(MAX_PLAYERS + 1, 4) each seat's decision stream and, in row "
                          "MAX_PLAYERS, the match's first state (used when S_STREAMS)"),
    ("script", "int64", 1, "a scripted seat's pause record and decisions (types.PAUSE_*, "
                           "kernels.script); N_PAUSE zeros when no seat is scripted"),
    ("trace", "float64", 2, "(cap, N_TR) this chunk's tabular decisions (TR_*, kernels.table); "
                            "cap 0 when off"),
)
CFG_ITEMS = (
    ("settings", "int64", 1, "(N_SETTINGS,) nop_sim.games.new_order.types S_*"),
    ("dtype", "int64", 1, "(25,) type of each Disruptor"),
    ("damount", "int64", 1, "(25,) the number of each Disruptor's effect"),
    ("dstack", "int64", 1, "(25,) how its copies combine (types.STACK_*, the catalog's stack)"),
    ("agents", "float64", 2, "(players, N_AGENT_PARAMS) this match's policies (its table)"),
    ("tab_start", "int64", 1, "strength tables (kernels.strength)"),
    ("tab_mask", "int64", 1, ""),
    ("tab_freq", "float64", 1, ""),
    ("policy", "float64", 3, "(n_policies, n_infosets, n_actions) betting tables (kernels.table)"),
    ("policy_seat", "int64", 1, "(MAX_PLAYERS,) each seat's betting table, -1 its agent row "
                                "(this match's row of the drivers' (n_tables, MAX_PLAYERS))"),
    ("abstraction", "float64", 1, "(N_AB,) the abstraction the tables are over (AB_*)"),
)
OUT_ITEMS = (
    ("counts", "int64", 1, "(N_COUNTS,) C_*"),
    ("cat", "int64", 2, "(N_CAT_STATS, 13) K_*"),
    ("time", "int64", 2, "(horizon, N_TIME_STATS) T_*"),
    ("dis", "int64", 2, "(N_DISRUPTOR_STATS, 25) DS_*"),
    ("player", "int64", 2, "(MAX_PLAYERS, N_PLAYER_FIELDS) this match's PL_* rows"),
    ("drafted", "int64", 2, "(MAX_PLAYERS, 25) this match's drafted cards"),
    ("events", "int64", 2, "(cap, EV_WIDTH) this chunk's event rows"),
)

# -- g: match and hand scalars: (NAME, size, what) ----------------------------------------
G_FIELDS = (
    ("N", 1, "seats in the match"),
    ("DART", 1, ""),
    ("BUTTON", 1, ""),
    ("HAND", 1, "hands started (1-based number of the current hand)"),
    ("DEAD", 1, "chips in the pot that are not bets: fees, hedge costs"),
    ("LEVEL", 1, "highest round bet this betting round"),
    ("N_RAISES", 1, ""),
    ("LAST_RAISE", 1, "size of the last bet or raise (no-limit minimum raise)"),
    ("ROUND", 1, "0, 1, 2 = Bet I, II, III"),
    ("BANK_IN", 1, ""),
    ("BANK_OUT", 1, ""),
    ("TOTAL0", 1, "chips at the start of the match"),
    ("STOCK_TOP", 1, ""),
    ("STOCK_N", 1, ""),
    ("DISC_N", 1, ""),
    ("BOARD_N", 1, ""),
    ("DTOP", 1, "Disruptor deck: next card index"),
    ("DN", 1, "Disruptor deck: cards in deck"),
    ("DDISC_N", 1, ""),
    ("INVERTED", 1, "Inversion in play this hand"),
    ("BETTING", 1, "structure this hand (no_limit card overrides)"),
    ("THIRD", 1, "cards at Community Card I"),
    ("FROZEN", 1, ""),
    ("DEUCES", 1, "deuces_wild in play"),
    ("INFLATION", 1, "dart step multiplier"),
    ("CEILING", 1, "fee ceiling (0 = none)"),
    ("ANTE_MULT", 1, ""),
    ("HEDGE_MULT", 1, "hedge_boom multiplier"),
    ("COLVER", 1, "bumped on every column or reading change"),
    ("DISTVER", 1, "unused (strength tables keep their versions in TMP_TVER)"),
    ("CARDVER", 1, "bumped on every change of cards in play"),
    ("ALIVE", 1, ""),
    ("LOG", 1, "1: write events for this match"),
    ("MATCH", 1, "global match index"),
    ("UNIT", 1, "limit bet size this round"),
    ("EVN", 1, "events written (this chunk)"),
    ("EV_LOST", 1, "events dropped because the buffer was full"),
    ("ERRORS", 1, "invariant failures this match"),
    ("EVAL_FN", 1, "address of the compiled evaluator entry (common.evaluator_address)"),
    ("DRAFT_FN", 1, "address of the compiled draft (disruptor.draft_address)"),
    ("FULL_SEQ", 1, "full bets and raises this betting round (R4: who may raise)"),
    ("TICK", 1, "clock of this hand's all-ins and dead-money pots (their formation order)"),
    ("SIDE_DEAD_N", 1, "dead-money pots formed after an all-in this hand (R1)"),
    ("SCRIPT_AT", 1, "decisions of the script read (or written) so far (kernels.script)"),
    ("TRN", 1, "trace rows written (this chunk, kernels.table)"),
    ("TR_LOST", 1, "trace rows dropped because the buffer was full"),
    ("TABLE_PUT", 1, "chips the last tabular bet or raise chose (kernels.table)"),
)

# -- ps: per seat ---------------------------------------------------------------------------
P_FIELDS = (
    ("CHIPS", 1, ""),
    ("ALIVE", 1, ""),
    ("INHAND", 1, "dealt into this hand"),
    ("FOLDED", 1, ""),
    ("ALLIN", 1, ""),
    ("COMMITTED", 1, "ante + bets this hand"),
    ("ROUND_BET", 1, ""),
    ("ACTED", 1, ""),
    ("HEDGE", 1, "category of the token, -1 = not placed"),
    ("START_CHIPS", 1, "chips at the hand's start"),
    ("WILDS", 1, "wild rank mask this hand"),
    ("ELEV", 1, "elevated category mask this hand"),
    ("PERS0", 1, "Personal Disruptor ids (-1 = empty), slot 0"),
    ("PERS1", 1, "slot 1 (code indexes P_PERS0 + slot)"),
    ("ARG0", 1, "the Elevator's named category, per slot"),
    ("ARG1", 1, ""),
    ("CAT", 1, "cached best category"),
    ("CAT_KEY", 1, "(colver, cardver) the cache is valid for"),
    ("MUCKED", 1, ""),
    ("SCORE", 1, ""),
    ("ELIM_HAND", 1, ""),
    ("ELIM_KEY", 1, "orders players eliminated in the same hand"),
    ("FEE_OFF", 1, "taken off the Ledger fee this hand (brokers held, stacked)"),
    ("MAX_DISCARD", 1, "most cards discarded in the Draw this hand (deep_draw or the rules)"),
    ("EXEMPT", 1, ""),
    ("HFUND", 1, "hedge payout multiplier (hedge_fund)"),
    ("SHOWN", 1, ""),
    ("LAST_CAT", 1, "category shown at the last showdown (-1 none)"),
    ("SCORE_C", 1, "cached score of the best hand (valid with P_CAT_KEY)"),
    ("LV_A", 1, "the evaluator's reading of the column for this player (kernels.evaluate)"),
    ("LV_B", 1, ""),
    ("ORDER", 1, ""),
    ("READ_KEY", 1, "colver the reading was made for (-1 none)"),
    ("READ_ELEV", 1, "elevated mask it was made with"),
    ("ACT_SEQ", 1, "G_FULL_SEQ when this seat last acted (R4)"),
    ("ALLIN_TICK", 1, "G_TICK when this seat went all-in this hand"),
    ("GOT0", 1, "hand in which each Personal slot's card was drafted (R2)"),
    ("GOT1", 1, ""),
    ("ELEV_LIFT", 1, "positions its Elevators raise the categories they name (R6, R8)"),
)

MAX_POTS = 24       # showdown pots: up to 8 layers of bets, then the dead-money pots (R1)
MAX_DEAD_POTS = 16

# -- scratch: regions of the int64 array st[ST_TMP] --------------------------------------
TMP_FIELDS = (
    ("ORDER", 8, "seats of the hand, left of the dealer first"),
    ("PICKERS", 8, "draft order"),
    ("LEVELS", 8, "side-pot levels"),
    ("GONE", 5, "discarded cards"),
    ("TAKEN", 9, "revealed Disruptors already picked"),
    ("OWNERS", 18, "purge targets"),
    ("SLOTS", 18, ""),
    ("RANKS", 5, ""),
    ("SUITS", 5, ""),
    ("RCOUNT", 15, ""),
    ("SCOUNT", 4, ""),
    ("OPTS", 3, ""),
    ("SEEN", 52, ""),
    ("DSEEN", 25, ""),
    ("PLACES", 8, ""),
    ("TVER", 19, "column version each strength table was computed for"),
    ("EPOS", 13, "effective position of each category (strength tables)"),
    ("SVER", 19, "column version each shape value (F_SHAPE) was computed for"),
    ("WKEY", 9, "key of the cached winner-position distribution, per m"),
    ("POTS", MAX_POTS, "chips in each pot"),
    ("ELIG", MAX_POTS, "seats that may win it (bit mask)"),
    ("PTICK", MAX_POTS, "when it formed (G_TICK; -1 the main pot)"),
    ("PORDER", MAX_POTS, "pots in the order they formed"),
    ("DPOT_AMT", MAX_DEAD_POTS, "dead money paid after an all-in, per pot"),
    ("DPOT_MASK", MAX_DEAD_POTS, "seats neither folded nor all-in when it was paid"),
    ("DPOT_TICK", MAX_DEAD_POTS, ""),
)

# -- float scratch st[ST_FTMP] ------------------------------------------------------------
MAX_BET_SIZES = 3   # a tabular policy's bet sizes at most (AB_SIZES)
F_FIELDS = (
    ("WIN", 9 * 13, "chance the best of m random hands sits at each position (row m of 13)"),
    ("WIN_CAT", 9 * 13, "the same rows in category order: WIN's chance at each category's position"),
    ("SHAPE", 19, "strength.shape_value per table (its version in TMP_SVER)"),
    ("BEAT_ALL", 1, "the turn's chance to beat every live opponent (policy.judge_turn)"),
    ("SIGMA", 2 + MAX_BET_SIZES, "a tabular decision's chance of each action (kernels.table)"),
    ("SAMPLE", 2 + MAX_BET_SIZES, "the chances it is sampled with, exploration included"),
)

# -- a tabular betting policy: the abstraction, float64 cfg[CFG_ABSTRACTION] -----------------
# (nop_sim.games.new_order.abstraction builds it; kernels.table reads it)
AB_FIELDS = (
    ("STRENGTH", 1, "buckets of the judged strength (equal slices of [0, 1])"),
    ("ODDS", 1, "buckets of the pot odds faced (equal slices of [0, 1/2))"),
    ("STACK", 1, "buckets of the chip-stack ratio (a factor of two wide, even in the middle)"),
    ("N_SIZES", 1, "bet or raise sizes (actions 2 .. 2 + N_SIZES - 1)"),
    ("SIZES", MAX_BET_SIZES, "each size as a fraction of the pot after calling"),
    ("EPSILON", 1, "exploration of the traced seat: it samples from eps/legal + (1-eps) sigma"),
    ("TRACE_SEAT", 1, "seat whose tabular decisions are traced (-1: none)"),
)

# -- the trace: one row per traced decision, float64 st[ST_TRACE] ------------------------
TR_FIELDS = (
    ("MATCH", 1, "global match index"),
    ("HAND", 1, "hand number (1-based)"),
    ("SEAT", 1, ""),
    ("INFOSET", 1, "the abstraction's information set"),
    ("LEGAL", 1, "bit mask of the legal actions (bit a: action a)"),
    ("ACTION", 1, "the action taken"),
    ("SAMPLE_P", 1, "the chance it was sampled with (exploration included)"),
    ("POLICY_P", 1, "the chance the table gives it (sigma)"),
    ("STRENGTH", 1, "the judged strength the strength bucket was read from"),
    ("PAYOFF", 1, "the seat's chips at the hand's end less at its start (written at its end)"),
)

globals().update(_items("ST", ST_ITEMS))
globals().update(_items("CFG", CFG_ITEMS))
globals().update(_items("OUT", OUT_ITEMS))
globals().update(_layout("G", G_FIELDS))
globals().update(_layout("P", P_FIELDS))
globals().update(_layout("TMP", TMP_FIELDS))
globals().update(_layout("F", F_FIELDS))
globals().update(_layout("AB", AB_FIELDS))
globals().update(_layout("TR", TR_FIELDS))
N_FTMP = N_F  # noqa: F821 (generated above)

# actions
ACT_FOLD = 0
ACT_CHECK = 1
ACT_CALL = 2
ACT_BET = 3
ACT_RAISE = 4
# added to a bet or raise that :func:`~.policy.choose_action` chose on the bluff draw (the
# strength alone was below the bet threshold); the caller counts it and takes it off
ACT_BLUFF = 8

# strength tables (rows of nop_sim/games/new_order/data/strength_tables.csv, in this order)
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
