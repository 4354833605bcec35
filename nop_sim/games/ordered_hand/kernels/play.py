"""Numba kernels of the Ordered Hand game (SPEC section 9).

Plain arrays and scalars only. The column arrives as ``position_of`` (int64
(13,), the column position of each category id), the agents as a float64
parameter table (one row per seat, columns ``A_*``), the random streams as
xoshiro256** states (uint64 (n_chunks, 4), one per chunk of games).

Each game writes one int32 row of ``out_games`` (columns ``F_*``); with
logging on it also writes the shuffled deck and a flat event log (int16 rows
``player, kind, a, b``, kinds ``EV_*``) that :mod:`nop_sim.games.ordered_hand.referee`
replays.

Rules as played here; the choices that SPEC section 9 and its rulings R14 and R15
(section 8b) leave open are marked *:

- Deal one card at a time starting with the first player (a seeded random
  seat); each hand is a sequence in the order dealt.
- A turn is a play (a block that beats the middle), a check, or (advanced
  rules) a Bet. After a play: an empty sequence wins at once, otherwise the
  player draws one card, if the stock has one, and inserts it anywhere. After a
  check: draw and insert.
- A game ends the moment the last stock card is drawn and inserted: fewest
  cards wins, then the best five-card hand under the default column (*with
  fewer than five cards, all of them are ranked as a short poker hand: Four of
  a Kind, Three of a Kind, Two Pair, One Pair, High Card, then the group ranks
  and kickers highest first; tied players always hold the same number of
  cards*), then a shared win. *A deal that leaves no stock means nobody draws.*
  *A game still running after ``max_turns`` turns ends as ``capped`` and is
  decided the same way.* One deck: no card code repeats.
- Round of checks (R15): every turn without a play (a check, and in the
  advanced rules a Bet, the response Fold or Call, and the bettor's check or
  Fold) extends a run of passes; a play (a Raise's, a bettor's answer) ends it.
  When the run reaches the number of players the middle is cleared and the
  first player who did not play in that round leads: *that round is the last
  full round of passes*, so the leader is always the next player in turn.
  Inside a bet exchange (from the Bet to the bettor's answer) the middle is
  never cleared: the test waits until the exchange is over (R15). *A round of
  checks on an empty middle clears nothing and is not counted as a clear.*
- Advanced rules (2 players). *A Bet needs a non-empty middle.* The Bet
  replaces the bettor's play and draw for that turn (R15). The opponent's
  response is a turn: Fold (no play, draw), Call (no play, no draw, and one
  card may move to another position, or none: R14; a Call logs its MOVE
  either way, from a position to itself when nothing moves) or Raise (one card
  moves to a different position, R14: putting it back where it was is not a
  move, so a one-card sequence cannot raise; then a block that beats the
  middle is played, and a card drawn; an empty sequence after the play wins at
  once). The bettor's answer is a turn: after a Fold, check (draw) or play a
  block beating the middle without drawing; after a Call or Raise, fold (draw)
  or play a block beating the middle (after a Raise, the raise) without
  drawing, and after a Raise the raiser then draws one extra card at once. *A
  bet is won when the bettor plays on the answer turn.* A Bet cannot be
  answered by another Bet.

Why one module of about 1,300 lines (issue 38 lets a kernel file pass 1,000
lines where it says why): it is one game of SPEC section 9 and its drivers, and
the rules above are read against it in one pass: the sequence edits, the legal
blocks, the seats' choices (turn, answer, insert, response) and a person's (the
scripted seat of ``nop-sim play``, checked against the same legal blocks and
moves), the bet exchange,
the stock-out ranking and the game loop, the hot helpers inlined into
``_play_game`` (``inline='always'``). The block rules, which the game and its
agents both read, already live apart (:mod:`nop_sim.games.ordered_hand.kernels.blocks`),
as do the random streams (:mod:`nop_sim.kernels.rng`).
"""

from __future__ import annotations

import numpy as np

from nop_sim.games.ordered_hand.kernels.blocks import (
    FLUSH,
    FOUR_OF_A_KIND,
    FULL_HOUSE,
    HIGH_CARD,
    ONE_PAIR,
    ROYAL_FLUSH,
    STRAIGHT,
    STRAIGHT_FLUSH,
    THREE_OF_A_KIND,
    TWO_PAIR,
    _block_beats,
    _classify_block,
)
from nop_sim.games.ordered_hand.types import (  # noqa: F401  (re-exported as K.*)
    DECK_SIZE,
    END_CAPPED,
    END_EMPTIED,
    END_NAMES,
    END_SHARED,
    END_STOCK_OUT,
    EV_BET,
    EV_CALL,
    EV_CHECK,
    EV_CLEAR,
    EV_DRAW,
    EV_END,
    EV_FOLD,
    EV_MOVE,
    EV_NAMES,
    EV_PLAY,
    EV_RAISE,
    F_BETS,
    F_BETS_WON,
    F_CALLS,
    F_CARDS_LEFT,
    F_CAT,
    F_CHECKS,
    F_CLEARS,
    F_DRAWN,
    F_END,
    F_FIRST,
    F_FOLDS,
    F_N_WINNERS,
    F_PLAYS,
    F_RAISES,
    F_SIZE,
    F_TURNS,
    F_WINNERS,
    MAX_PLAYERS,
    N_CATEGORIES,
    N_FIELDS,
)
from nop_sim.kernels.jit import jit, twin
from nop_sim.kernels.rng import below, uniform

MAX_SEQ = DECK_SIZE  # a sequence never holds more than the deck
MAX_BLOCKS = 5 * MAX_SEQ
WHEEL_MASK = (1 << 14) | (1 << 2) | (1 << 3) | (1 << 4) | (1 << 5)

# ---- agent parameter table: one float64 row per seat -------------------------
A_PLAY = 0  # PLAY_*: which block to play
A_CHECK_PROB = 1  # chance to check although a play exists (non-random policies)
A_INSERT = 2  # INSERT_*: where a drawn card goes
A_BET = 3  # 1: bet when holding a block that beats a non-empty middle
A_BET_PROB = 4  # chance to bet when the bet condition holds
A_RESPOND = 5  # RESPOND_*: answer to the opponent's Bet
A_TAKE_WIN = 6  # 1: always play a block that empties the sequence
# read under RESPOND_CHANCE only (the other answers are fixed rules):
A_RAISE_PROB = 7  # chance to raise when a raise is found
A_CALL_PROB = 8  # chance to call, when not raising (else fold)
A_CALL_MOVE = 9  # 1: a call moves a card (the first move a raise search tried); 0: none
N_AGENT_PARAMS = 10

PLAY_RANDOM = 0  # uniform over the legal moves (every beating block, check, bet)
PLAY_LOW = 1  # the weakest block that beats the middle
PLAY_HIGH = 2  # the block with most cards (weakest among those)
PLAY_STRONG = 3  # the strongest block (used for raises)

INSERT_RANDOM = 0  # uniform over the positions 0..len
INSERT_END = 1  # at the end of the sequence
INSERT_BUILDER = 2  # next to cards of the same rank, a neighbouring rank, or suit

RESPOND_RANDOM = 0  # a uniform real move; Fold, Call, or Raise if a block then beats
RESPOND_FOLD = 1
RESPOND_RAISE_ELSE_CALL = 2  # raise when a block beats the middle after a real move (R14)
RESPOND_RAISE_ELSE_FOLD = 3
RESPOND_CHANCE = 4  # raise with A_RAISE_PROB, else call with A_CALL_PROB, else fold

# ---- actions and responses -----------------------------------------------------
ACT_PLAY = 0
ACT_CHECK = 1
ACT_BET = 2
RESP_FOLD = 0
RESP_CALL = 1
RESP_RAISE = 2

# ---- a person's seat (nop-sim play): decisions from a script -----------------------------
# A scripted seat decides nothing itself and draws no random number: each of its
# decisions is the next row (kind, x, y, z) of ``script``, checked against the rules. Where
# the script runs out, the decision's kind and bounds are written to ``sc`` with the event
# count so far (the pause: the caller keeps the log up to it) and a legal default is
# played to the game's end, which the caller throws away. ``sc`` (int64, SC_ARGS + args):
SC_SEAT = 0  # the scripted seat, -1 none (the batch runs)
SC_CURSOR = 1  # next script row
SC_PAUSED = 2  # the kind (SK_*) asked where the script ran out, -1 none
SC_PAUSE_EV = 3  # events logged before the pause
SC_REFUSED = 4  # the first script row the rules refused, -1 none
SC_ARGS = 8  # the pause's bounds (below), then
N_SC = SC_ARGS + 3 + 3 * MAX_BLOCKS
# script kinds and their rows (x, y, z); a pause's bounds at sc[SC_ARGS:]:
SK_TURN = 0  # x ACT_*, y block start, z block length; bounds: can_bet, n, then n blocks
SK_INSERT = 1  # x position 0..length; bounds: length, the drawn card
SK_RESPONSE = 2  # x RESP_*, y move from, z move to; bounds: length
SK_RAISE_BLOCK = 3  # x block start, y length (after a Raise's move); bounds: 0, n, blocks
SK_ANSWER = 4  # x block start (-1: check or fold), y length; bounds: folded, n, blocks
SCRIPT_WIDTH = 4

# ---- mutable scalars of a game --------------------------------------------------------
ST_TOP = 0  # next stock card index in the deck
ST_MID_CAT = 1  # category of the block in the middle, -1 empty
ST_MID_TB = 2
ST_PASS = 3  # turns without a play since the last play or clear
N_STATE = 4

# ---- legal blocks: int64 rows of a (MAX_BLOCKS, 4) table -------------------------------
B_START = 0
B_LEN = 1
B_CAT = 2
B_TB = 3

# Sequences live in one int8 (MAX_PLAYERS + 1, MAX_SEQ + 1) array; the last row is
# scratch for trying a one-card move. Helpers take (seq, seat) rather than a row
# view, and (out_games, game) rather than a record view, and the helpers of every
# turn are inlined (``inline="always"``): each array crossing a call boundary
# costs atomic reference-count updates, which made up a third of a turn.
SCRATCH_ROW = MAX_PLAYERS


# ==== random numbers: xoshiro256** (one state per chunk) ================================
# one implementation of the generator for every kernel: nop_sim.kernels.rng (below, uniform)
_rand_unit = uniform


# ==== sequences =========================================================================
@jit
def _insert(seq, p, length, pos, card):
    """Insert ``card`` at ``pos`` (0..length) of ``seq[p, :length]``, shifting right."""
    for i in range(length, pos, -1):
        seq[p, i] = seq[p, i - 1]
    seq[p, pos] = card


@jit
def _remove(seq, p, length, start, n):
    """Remove ``seq[p, start:start + n]`` from ``seq[p, :length]``, shifting left."""
    for i in range(start, length - n):
        seq[p, i] = seq[p, i + n]
    for i in range(length - n, length):
        seq[p, i] = -1


@jit
def _move(seq, p, length, src, dst):
    """Move the card at ``src`` so that it ends at index ``dst`` (both 0..length-1)."""
    card = seq[p, src]
    _remove(seq, p, length, src, 1)
    _insert(seq, p, length - 1, dst, card)


@jit
def _copy_row(seq, src, dst, length):
    for i in range(length):
        seq[dst, i] = seq[src, i]


# ==== legal blocks ======================================================================
@jit
def _store(blocks, n, s, ln, cat, tb):
    blocks[n, B_START] = s
    blocks[n, B_LEN] = ln
    blocks[n, B_CAT] = cat
    blocks[n, B_TB] = tb
    return n + 1


@jit
def _threshold(cat, mid_cat, mid_tb, position_of):
    """A block of ``cat`` beats the middle iff its tie-break exceeds this value."""
    if mid_cat < 0:
        return np.int64(-1)
    p = position_of[cat]
    q = position_of[mid_cat]
    if p < q:
        return np.int64(-1)
    if p == q:
        return np.int64(mid_tb)
    return np.int64(1) << 40  # above every tie-break: never beats


@jit
def _five_block_one_deck(m, flush, two_ranks, run, r0, r1, r2, r3, r4):
    """Category and tie-break of a five-card block of distinct cards, or (-1, 0).

    ``m`` is the rank bit mask; ``flush``: one suit; ``two_ranks``: at most two
    ranks; ``run``: five consecutive ranks (or the wheel). With one deck a
    flush holds five ranks, so Flush Five, Flush House and Five of a Kind
    cannot occur (:func:`nop_sim.games.ordered_hand.kernels.blocks._classify_five` handles
    repeated codes).
    """
    if run:
        top = np.int64(5)
        if m != WHEEL_MASK:
            top = max(max(max(r0, r1), max(r2, r3)), r4)
        if flush:
            if top == 14:
                return np.int64(ROYAL_FLUSH), np.int64(0)
            return np.int64(STRAIGHT_FLUSH), top
        return np.int64(STRAIGHT), top
    if flush:
        tb = np.int64(0)
        for r in range(14, 1, -1):
            if (m >> r) & 1:
                tb = (tb << 4) | r
        return np.int64(FLUSH), tb
    if two_ranks:
        k = 1 + (r1 == r0) + (r2 == r0) + (r3 == r0) + (r4 == r0)
        other = r1 if r1 != r0 else (r2 if r2 != r0 else (r3 if r3 != r0 else r4))
        if k == 3:
            return np.int64(FULL_HOUSE), (r0 << 4) | other
        if k == 2:
            return np.int64(FULL_HOUSE), (other << 4) | r0
    return np.int64(-1), np.int64(0)


@jit(inline="always")
def _legal_blocks(seq, p, length, mid_cat, mid_tb, position_of, blocks):
    """Every block of ``seq[p, :length]`` that is valid and beats the middle.

    Writes (start, length, category, tie-break) rows into ``blocks`` (int64
    (MAX_BLOCKS, 4)), in order of start, then length, and returns their count.
    One deck is assumed (no repeated codes), as in the game.

    The obvious version is ``legal_blocks_reference`` in
    ``tests/ordered_reference.py`` (classify every window with ``_classify_block``,
    compared with this one by ``tests/test_ordered.py``); this one reads each card once per
    window, turns "beats the middle" into one comparison with a per-category
    threshold, stores singles without a branch, and only classifies five
    cards that are one suit, hold at most two ranks, or form a run of five.
    """
    t1 = _threshold(HIGH_CARD, mid_cat, mid_tb, position_of)
    t2 = _threshold(ONE_PAIR, mid_cat, mid_tb, position_of)
    t3 = _threshold(THREE_OF_A_KIND, mid_cat, mid_tb, position_of)
    t4q = _threshold(FOUR_OF_A_KIND, mid_cat, mid_tb, position_of)
    t4p = _threshold(TWO_PAIR, mid_cat, mid_tb, position_of)
    mid_pos = position_of[mid_cat] if mid_cat >= 0 else np.int64(N_CATEGORIES)
    ok5 = False
    for cat in range(9):
        if cat != FOUR_OF_A_KIND and position_of[cat] <= mid_pos:
            ok5 = True
    n = 0
    for s in range(length):
        c0 = np.int64(seq[p, s])
        r0 = (c0 >> 2) + 2
        # Singles: always valid; store, then keep only if it beats.
        blocks[n, B_START] = s
        blocks[n, B_LEN] = 1
        blocks[n, B_CAT] = HIGH_CARD
        blocks[n, B_TB] = r0
        n += r0 > t1
        if s + 1 >= length:
            continue
        c1 = np.int64(seq[p, s + 1])
        r1 = (c1 >> 2) + 2
        if r0 == r1:
            if r0 > t2:
                n = _store(blocks, n, s, 2, ONE_PAIR, r0)
            if s + 2 < length:
                r2 = (np.int64(seq[p, s + 2]) >> 2) + 2
                if r2 == r0 and r0 > t3:
                    n = _store(blocks, n, s, 3, THREE_OF_A_KIND, r0)
        if s + 3 >= length:
            continue
        c2 = np.int64(seq[p, s + 2])
        c3 = np.int64(seq[p, s + 3])
        r2 = (c2 >> 2) + 2
        r3 = (c3 >> 2) + 2
        if (r0 == r1) & (r2 == r3) | (r0 == r2) & (r1 == r3) | (r0 == r3) & (r1 == r2):
            if r0 == r1 and r1 == r2 and r2 == r3:
                if r0 > t4q:
                    n = _store(blocks, n, s, 4, FOUR_OF_A_KIND, r0)
            else:
                hi = r0
                lo = r1 if r1 != r0 else r2
                if lo > hi:
                    hi, lo = lo, hi
                tb = (hi << 4) | lo
                if tb > t4p:
                    n = _store(blocks, n, s, 4, TWO_PAIR, tb)
        if s + 4 >= length or not ok5:
            continue
        c4 = np.int64(seq[p, s + 4])
        r4 = (c4 >> 2) + 2
        suits = ((1 << (c0 & 3)) | (1 << (c1 & 3)) | (1 << (c2 & 3)) | (1 << (c3 & 3))
                 | (1 << (c4 & 3)))
        m = (1 << r0) | (1 << r1) | (1 << r2) | (1 << r3) | (1 << r4)
        m2 = m & (m - 1)
        low = m & -m
        flush = (suits & (suits - 1)) == 0
        two_ranks = (m2 & (m2 - 1)) == 0
        run = (m == low * 31) | (m == WHEEL_MASK)
        if flush | two_ranks | run:
            cat, tb = _five_block_one_deck(m, flush, two_ranks, run, r0, r1, r2, r3, r4)
            if cat >= 0 and _block_beats(cat, tb, mid_cat, mid_tb, position_of):
                n = _store(blocks, n, s, 5, cat, tb)
    return n


@jit
def _beats_around(seq, p, length, at, span, mid_cat, mid_tb, position_of):
    """True when a valid block holding all of ``seq[p, at:at + span]`` beats the middle."""
    row = seq[p]
    for s in range(max(0, at + span - 5), at + 1):
        for ln in range(at + span - s, min(5, length - s) + 1):
            cat, tb = _classify_block(row, s, ln)
            if cat >= 0 and _block_beats(cat, tb, mid_cat, mid_tb, position_of):
                return True
    return False


# ==== agents ============================================================================
@jit
def _strength(cat, tb, position_of):
    """One int64 that orders blocks under the column (larger is stronger)."""
    return ((N_CATEGORIES - 1 - position_of[cat]) << 24) | tb


@jit(inline="always")
def _pick_block(policy, n, blocks, position_of, rng):
    """Index of the block ``policy`` plays among ``n >= 1`` legal blocks."""
    if policy == PLAY_RANDOM:
        return below(rng, n)
    best = 0
    best_key = np.int64(0)
    for i in range(n):
        s = _strength(blocks[i, B_CAT], blocks[i, B_TB], position_of)
        if policy == PLAY_LOW:
            key = -s
        elif policy == PLAY_HIGH:
            key = (blocks[i, B_LEN] << 32) - s
        else:
            key = s
        if i == 0 or key > best_key:
            best = i
            best_key = key
    return best


@jit(inline="always")
def _winning_block(n, length, blocks):
    """Index of a block that empties the sequence, or -1."""
    for i in range(n):
        if blocks[i, B_LEN] == length:
            return i
    return -1


@jit(inline="always")
def _choose_turn(agents, p, n, length, can_bet, blocks, position_of, rng):
    """(ACT_*, block index) for seat ``p``'s ordinary turn with ``n`` legal blocks."""
    policy = np.int64(agents[p, A_PLAY])
    if policy == PLAY_RANDOM:
        k = n + 1 + (1 if can_bet else 0)
        r = below(rng, k)
        if r < n:
            return ACT_PLAY, r
        if r == n:
            return ACT_CHECK, np.int64(-1)
        return ACT_BET, np.int64(-1)
    if n > 0 and agents[p, A_TAKE_WIN] > 0:
        w = _winning_block(n, length, blocks)
        if w >= 0:
            return ACT_PLAY, w
    if can_bet and n > 0 and agents[p, A_BET] > 0 and _rand_unit(rng) < agents[p, A_BET_PROB]:
        return ACT_BET, np.int64(-1)
    check_prob = agents[p, A_CHECK_PROB]
    if n > 0 and not (check_prob > 0 and _rand_unit(rng) < check_prob):
        return ACT_PLAY, _pick_block(policy, n, blocks, position_of, rng)
    return ACT_CHECK, np.int64(-1)


@jit
def _choose_answer(agents, p, n, length, blocks, position_of, rng):
    """The bettor's answer: a block index to play without drawing, or -1 to check/fold."""
    policy = np.int64(agents[p, A_PLAY])
    if policy == PLAY_RANDOM:
        r = below(rng, n + 1)
        return r if r < n else np.int64(-1)
    if n == 0:
        return np.int64(-1)
    if agents[p, A_TAKE_WIN] > 0:
        w = _winning_block(n, length, blocks)
        if w >= 0:
            return w
    return _pick_block_call(policy, n, blocks, position_of, rng)


@jit
def _rank(card):
    return (np.int64(card) >> 2) + 2


@jit
def _affinity(other, rank, suit):
    """How much a neighbour ``other`` helps a card of ``rank``/``suit`` form a block."""
    r = _rank(other)
    if r == rank:
        return 4
    d = r - rank
    if d == 1 or d == -1 or (r == 14 and rank == 2) or (r == 2 and rank == 14):
        return 2
    if (np.int64(other) & 3) == suit:
        return 1
    return 0


@jit(inline="always")
def _choose_insert(policy, seq, p, length, card, rng):
    """Insert position 0..length for a drawn ``card`` in seat ``p``'s sequence."""
    if policy == INSERT_RANDOM:
        return below(rng, length + 1)
    if policy == INSERT_END:
        return np.int64(length)
    rank = _rank(card)
    suit = np.int64(card) & 3
    best = np.int64(length)
    best_score = 0
    for pos in range(length + 1):
        score = 0
        if pos > 0:
            score += _affinity(seq[p, pos - 1], rank, suit)
        if pos < length:
            score += _affinity(seq[p, pos], rank, suit)
            # Never split a pair or longer group of one rank.
            if pos > 0 and _rank(seq[p, pos - 1]) == _rank(seq[p, pos]) and \
                    _rank(seq[p, pos]) != rank:
                score -= 8
        if score > best_score:
            best = pos
            best_score = score
    return best


@jit
def _strongest(n, blocks, position_of):
    """Strength (:func:`_strength`) of the strongest of ``n >= 1`` blocks."""
    best = _strength(blocks[0, B_CAT], blocks[0, B_TB], position_of)
    for i in range(1, n):
        s = _strength(blocks[i, B_CAT], blocks[i, B_TB], position_of)
        if s > best:
            best = s
    return best


@jit
def _keeping_move(seq, o, length, mid_cat, mid_tb, position_of, blocks):
    """A Raise's move for seat ``o`` when a block already beats the middle (R14).

    Returns the first real move ``(from, to)``, ``from != to``, in order of
    ``from`` then ``to``, after which the strongest block beating the middle
    is as strong as before the move; ``(-1, -1)`` when there is none. There
    is one whenever the sequence holds 2+ cards and a block beats the middle:
    a move inside that block keeps its cards together, and a single card
    beats wherever it stands. The scratch row of ``seq`` is used.
    """
    n = _legal_blocks_call(seq, o, length, mid_cat, mid_tb, position_of, blocks)
    if n == 0:
        return np.int64(-1), np.int64(-1)
    want = _strongest(n, blocks, position_of)
    for src in range(length):
        for dst in range(length):
            if dst == src:
                continue
            _copy_row(seq, o, SCRATCH_ROW, length)
            _move(seq, SCRATCH_ROW, length, src, dst)
            m = _legal_blocks_call(seq, SCRATCH_ROW, length, mid_cat, mid_tb, position_of,
                                   blocks)
            if m > 0 and _strongest(m, blocks, position_of) >= want:
                return np.int64(src), np.int64(dst)
    return np.int64(-1), np.int64(-1)


@jit(inline="always")
def _chance(rng, p):
    """True with probability ``p``; 0 and 1 draw nothing (a rule, not a coin)."""
    if p >= 1.0:
        return True
    if p <= 0.0:
        return False
    return _rand_unit(rng) < p


@jit
def _choose_response(agents, o, seq, length, mid_cat, mid_tb, position_of, rng, blocks):
    """Seat ``o``'s answer to a Bet: (RESP_*, move from, move to).

    A Raise is only returned with a real move (from != to, R14) after which
    some block beats the middle; a sequence of one card cannot raise. A Call
    moves the card or, with from == to, nothing. The scratch row of ``seq``
    is used to try moves.

    ``RESPOND_CHANCE`` decides first (coins only for chances strictly between 0
    and 1) whether it may raise (``A_RAISE_PROB``) and else call (``A_CALL_PROB``);
    a call moves the first card the raise search tried (``A_CALL_MOVE`` 1) or
    none. With (1, 1, 1) it plays as ``RESPOND_RAISE_ELSE_CALL``, with (1, 0, 0)
    as ``RESPOND_RAISE_ELSE_FOLD``, with (0, 0, 0) as ``RESPOND_FOLD``.
    """
    policy = np.int64(agents[o, A_RESPOND])
    may_raise = True
    may_call = policy == RESPOND_RAISE_ELSE_CALL
    call_move = True
    if policy == RESPOND_CHANCE:
        may_raise = _chance(rng, agents[o, A_RAISE_PROB])
        may_call = _chance(rng, agents[o, A_CALL_PROB])
        call_move = agents[o, A_CALL_MOVE] > 0
        if not may_raise and not may_call:
            return RESP_FOLD, np.int64(0), np.int64(0)
    if policy == RESPOND_FOLD:
        return RESP_FOLD, np.int64(0), np.int64(0)
    if policy == RESPOND_RANDOM:
        if length < 2:  # no card can change place: Fold, or Call without a move
            return below(rng, 2), np.int64(0), np.int64(0)
        # A uniform real move: the card, then one of the other positions.
        src = below(rng, length)
        dst = below(rng, length - 1)
        if dst >= src:
            dst += 1
        _copy_row(seq, o, SCRATCH_ROW, length)
        _move(seq, SCRATCH_ROW, length, src, dst)
        n = _legal_blocks_call(seq, SCRATCH_ROW, length, mid_cat, mid_tb, position_of, blocks)
        r = below(rng, 3 if n > 0 else 2)
        return r, src, dst
    if may_raise:
        src, dst = _keeping_move(seq, o, length, mid_cat, mid_tb, position_of, blocks)
        if src >= 0:
            return RESP_RAISE, src, dst
    elif not call_move:  # a call that moves nothing: no move to look for
        return RESP_CALL, np.int64(0), np.int64(0)
    # Look for a move that puts a card next to one of its rank and makes a raise.
    # (Every such move is real: the card lands beside a card it was not next to.)
    call_src = np.int64(0)
    call_dst = np.int64(0)
    found = False
    for i in range(length):
        ri = _rank(seq[o, i])
        for j in range(length):
            if j == i or j == i - 1 or j == i + 1 or _rank(seq[o, j]) != ri:
                continue
            jj = j - 1 if j > i else j  # index of card j once card i is taken out
            for dst in (jj, jj + 1):
                if not may_raise:  # the first move tried is the call's
                    return RESP_CALL, np.int64(i), np.int64(dst)
                _copy_row(seq, o, SCRATCH_ROW, length)
                _move(seq, SCRATCH_ROW, length, i, dst)
                # No block beat the middle before the move, so a new one must hold
                # the moved card or join the two cards it stood between.
                seam = i - 1 + (1 if dst <= i - 1 else 0)
                if (_beats_around(seq, SCRATCH_ROW, length, dst, 1, mid_cat, mid_tb,
                                  position_of)
                        or (0 < i < length - 1 and _beats_around(
                            seq, SCRATCH_ROW, length, seam, 2, mid_cat, mid_tb,
                            position_of))):
                    return RESP_RAISE, np.int64(i), np.int64(dst)
                if not found:
                    found = True
                    call_src = np.int64(i)
                    call_dst = np.int64(dst)
    if may_call and not call_move:
        return RESP_CALL, np.int64(0), np.int64(0)
    if may_call:
        # The first move tried, or none (from == to) when no card has a partner to join.
        return RESP_CALL, call_src, call_dst
    return RESP_FOLD, np.int64(0), np.int64(0)


# ==== a scripted seat's decisions (nop-sim play) =========================================
@jit
def _script_next(sc, script):
    """Index of the scripted seat's next script row; -1 where the script has just run out
    (the caller writes the pause), -2 once a pause or a refusal stands (a default is
    played)."""
    if sc[SC_PAUSED] >= 0 or sc[SC_REFUSED] >= 0:
        return np.int64(-2)
    i = sc[SC_CURSOR]
    if i >= script.shape[0]:
        return np.int64(-1)
    sc[SC_CURSOR] = i + 1
    return i


@jit
def _pause(sc, kind, ev_n, a0, n, blocks):
    """Write the pause: its kind, the events logged so far, ``a0``, ``n`` and ``n`` legal
    blocks (start, length, category) as its bounds."""
    sc[SC_PAUSED] = kind
    sc[SC_PAUSE_EV] = ev_n[0]
    sc[SC_ARGS] = a0
    sc[SC_ARGS + 1] = n
    for i in range(n):
        sc[SC_ARGS + 2 + 3 * i] = blocks[i, B_START]
        sc[SC_ARGS + 3 + 3 * i] = blocks[i, B_LEN]
        sc[SC_ARGS + 4 + 3 * i] = blocks[i, B_CAT]


@jit
def _find_block(n, blocks, start, length):
    """Index of the legal block at ``start`` of ``length`` cards, or -1."""
    for i in range(n):
        if blocks[i, B_START] == start and blocks[i, B_LEN] == length:
            return np.int64(i)
    return np.int64(-1)


@jit
def _scripted_turn(sc, script, n, can_bet, blocks, ev_n):
    """(ACT_*, block index) from the script; a check where it ran out or was refused."""
    i = _script_next(sc, script)
    if i >= 0:
        if script[i, 0] == SK_TURN:
            a = script[i, 1]
            if a == ACT_CHECK:
                return ACT_CHECK, np.int64(-1)
            if a == ACT_BET and can_bet:
                return ACT_BET, np.int64(-1)
            if a == ACT_PLAY:
                k = _find_block(n, blocks, script[i, 2], script[i, 3])
                if k >= 0:
                    return ACT_PLAY, k
        sc[SC_REFUSED] = i
    elif i == -1:
        _pause(sc, SK_TURN, ev_n, 1 if can_bet else 0, n, blocks)
    return ACT_CHECK, np.int64(-1)


@jit
def _scripted_insert(sc, script, length, card, ev_n, blocks):
    """Where the drawn ``card`` goes, from the script; the end where it ran out."""
    i = _script_next(sc, script)
    if i >= 0:
        if script[i, 0] == SK_INSERT and 0 <= script[i, 1] <= length:
            return script[i, 1]
        sc[SC_REFUSED] = i
    elif i == -1:
        _pause(sc, SK_INSERT, ev_n, length, 0, blocks)
        sc[SC_ARGS + 2] = card
    return np.int64(length)


@jit
def _scripted_response(sc, script, seq, o, length, mid_cat, mid_tb, position_of, blocks,
                       ev_n):
    """(RESP_*, move from, move to) from the script: a Raise needs a real move after which
    a block beats the middle (R14), a Call moves a card or none (from == to); a Fold where
    the script ran out."""
    i = _script_next(sc, script)
    if i >= 0:
        r, a, b = script[i, 1], script[i, 2], script[i, 3]
        if script[i, 0] == SK_RESPONSE:
            if r == RESP_FOLD:
                return RESP_FOLD, np.int64(0), np.int64(0)
            if r == RESP_CALL and 0 <= a < length and 0 <= b < length:
                return RESP_CALL, a, b
            if r == RESP_RAISE and a != b and 0 <= a < length and 0 <= b < length:
                _copy_row(seq, o, SCRATCH_ROW, length)
                _move(seq, SCRATCH_ROW, length, a, b)
                if _legal_blocks_call(seq, SCRATCH_ROW, length, mid_cat, mid_tb, position_of,
                                      blocks) > 0:
                    return RESP_RAISE, a, b
        sc[SC_REFUSED] = i
    elif i == -1:
        _pause(sc, SK_RESPONSE, ev_n, length, 0, blocks)
    return RESP_FOLD, np.int64(0), np.int64(0)


@jit
def _scripted_block(sc, script, kind, a0, n, blocks, ev_n):
    """A Raise's block (``kind`` SK_RAISE_BLOCK, never -1) or the bettor's answer
    (SK_ANSWER: -1 checks or folds) from the script; the first block, or -1 for an
    answer, where it ran out."""
    i = _script_next(sc, script)
    if i >= 0:
        if script[i, 0] == kind:
            if kind == SK_ANSWER and script[i, 1] == -1:
                return np.int64(-1)
            k = _find_block(n, blocks, script[i, 1], script[i, 2])
            if k >= 0:
                return k
        sc[SC_REFUSED] = i
    elif i == -1:
        _pause(sc, kind, ev_n, a0, n, blocks)
    return np.int64(0) if kind == SK_RAISE_BLOCK else np.int64(-1)


# ==== one game ==========================================================================
@jit(inline="always")
def _log(log, ev, ev_n, player, kind, a, b):
    """Append one event when logging; past the capacity only the count grows."""
    if not log:
        return
    i = ev_n[0]
    if i < ev.shape[0]:
        ev[i, 0] = player
        ev[i, 1] = kind
        ev[i, 2] = a
        ev[i, 3] = b
    ev_n[0] = i + 1


@jit(inline="always")
def _play_block(p, idx, seq, slen, blocks, st, out, g, log, ev, ev_n):
    """Seat ``p`` plays legal block ``idx``: it leaves the sequence for the middle."""
    s = blocks[idx, B_START]
    ln = blocks[idx, B_LEN]
    cat = blocks[idx, B_CAT]
    _log(log, ev, ev_n, p, EV_PLAY, s, ln)
    _remove(seq, p, slen[p], s, ln)
    slen[p] -= ln
    st[ST_MID_CAT] = cat
    st[ST_MID_TB] = blocks[idx, B_TB]
    st[ST_PASS] = 0
    out[g, F_PLAYS] += 1
    out[g, F_SIZE + ln - 1] += 1
    out[g, F_CAT + cat] += 1


@jit(inline="always")
def _draw(p, agents, seq, slen, deck, st, rng, out, g, log, ev, ev_n, who, sc, script,
          blocks):
    """Seat ``p`` draws the next stock card, if any, and inserts it.

    Returns True when this draw took the last card of the stock (the game ends).
    """
    top = st[ST_TOP]
    if top >= DECK_SIZE:
        return False
    card = deck[top]
    st[ST_TOP] = top + 1
    length = slen[p]
    if script is not None and p == who:
        pos = _scripted_insert(sc, script, length, card, ev_n, blocks)
    else:
        pos = _choose_insert(np.int64(agents[p, A_INSERT]), seq, p, length, card, rng)
    _insert(seq, p, length, pos, card)
    slen[p] = length + 1
    out[g, F_DRAWN] += 1
    _log(log, ev, ev_n, p, EV_DRAW, card, pos)
    return top + 1 == DECK_SIZE


@jit(inline="always")
def _end_round_of_checks(n_players, leader, st, out, g, log, ev, ev_n):
    """Clear the middle once every player has passed in turn since the last play."""
    if st[ST_PASS] >= n_players:
        st[ST_PASS] = 0
        if st[ST_MID_CAT] >= 0:
            st[ST_MID_CAT] = -1
            st[ST_MID_TB] = 0
            out[g, F_CLEARS] += 1
            _log(log, ev, ev_n, leader, EV_CLEAR, 0, 0)


# Not-inlined twins of the per-turn helpers for the rare paths (a bet exchange):
# inlining them there too would double the compile time for little speed.
_legal_blocks_call = twin(_legal_blocks)
_pick_block_call = twin(_pick_block)
_play_block_call = twin(_play_block)
_draw_call = twin(_draw)
_end_round_of_checks_call = twin(_end_round_of_checks)


# ==== the stock-out ranking: best poker hand under the default column ===================
@jit
def _short_hand_strength(seq, p, n, counts):
    """Default-column strength of all ``n <= 4`` cards as a short poker hand.

    Groups (by size, then rank, highest first) give the category and the
    tie-break: Four of a Kind, Three of a Kind, Two Pair, One Pair, High Card.
    ``counts`` is int64 scratch of length >= 15.
    """
    for r in range(15):
        counts[r] = 0
    for i in range(n):
        counts[_rank(seq[p, i])] += 1
    n_pairs = 0
    biggest = 0
    for r in range(2, 15):
        if counts[r] == 2:
            n_pairs += 1
        if counts[r] > biggest:
            biggest = counts[r]
    if biggest == 4:
        cat = FOUR_OF_A_KIND
    elif biggest == 3:
        cat = THREE_OF_A_KIND
    elif n_pairs == 2:
        cat = TWO_PAIR
    elif n_pairs == 1:
        cat = ONE_PAIR
    else:
        cat = HIGH_CARD
    tb = np.int64(0)
    for size in range(4, 0, -1):
        for r in range(14, 1, -1):
            if counts[r] == size:  # a group's rank counts once, kickers one by one
                tb = (tb << 4) | r
    return (np.int64(N_CATEGORIES - 1 - cat) << 24) | tb


@jit
def _straight_top(mask):
    """Top rank of the highest run of five ranks in a rank bit mask, or 0."""
    for top in range(14, 5, -1):
        run = np.int64(31) << (top - 4)
        if mask & run == run:
            return np.int64(top)
    wheel = np.int64(WHEEL_MASK)
    if mask & wheel == wheel:
        return np.int64(5)
    return np.int64(0)


@jit
def _top_ranks(mask, k, skip1, skip2):
    """The ``k`` highest ranks of ``mask`` other than ``skip1``/``skip2``, packed 4 bits each."""
    tb = np.int64(0)
    got = 0
    for r in range(14, 1, -1):
        if got == k:
            break
        if (mask >> r) & 1 and r != skip1 and r != skip2:
            tb = (tb << 4) | r
            got += 1
    return tb


@jit
def _hand_strength(seq, p, n, counts):
    """Strength of the best poker hand from ``seq[p, :n]`` (one deck, default column).

    Equal to ``hand_strength_reference`` in ``tests/ordered_reference.py`` (every
    five-card subset; ``tests/test_ordered.py`` compares them) without
    trying every subset: rank counts and per-suit rank masks find the best
    hand of each category, top of the column first. ``counts`` is int64
    scratch of length >= 23.
    """
    if n < 5:
        return _short_hand_strength(seq, p, n, counts)
    for i in range(23):
        counts[i] = 0
    ranks = np.int64(0)  # rank bit mask
    for i in range(n):
        c = np.int64(seq[p, i])
        r = (c >> 2) + 2
        counts[r] += 1
        counts[15 + (c & 3)] |= np.int64(1) << r
        counts[19 + (c & 3)] += 1
        ranks |= np.int64(1) << r
    best_sf = np.int64(0)
    for su in range(4):
        if counts[19 + su] >= 5:
            top = _straight_top(counts[15 + su])
            if top > best_sf:
                best_sf = top
    if best_sf == 14:
        return np.int64(N_CATEGORIES - 1 - ROYAL_FLUSH) << 24
    if best_sf > 0:
        return (np.int64(N_CATEGORIES - 1 - STRAIGHT_FLUSH) << 24) | best_sf
    quad = 0
    trip = 0
    pair1 = 0
    pair2 = 0
    for r in range(14, 1, -1):
        k = counts[r]
        if k == 4 and quad == 0:
            quad = r
        elif k == 3 and trip == 0:
            trip = r
        elif k >= 2:
            # A second triple serves as the pair of a full house.
            if pair1 == 0:
                pair1 = r
            elif pair2 == 0:
                pair2 = r
    if quad > 0:
        kicker = _top_ranks(ranks, 1, quad, -1)
        return (np.int64(N_CATEGORIES - 1 - FOUR_OF_A_KIND) << 24) | (quad << 4) | kicker
    if trip > 0 and pair1 > 0:
        return (np.int64(N_CATEGORIES - 1 - FULL_HOUSE) << 24) | (trip << 4) | pair1
    best_flush = np.int64(-1)
    for su in range(4):
        if counts[19 + su] >= 5:
            tb = _top_ranks(counts[15 + su], 5, -1, -1)
            if tb > best_flush:
                best_flush = tb
    if best_flush >= 0:
        return (np.int64(N_CATEGORIES - 1 - FLUSH) << 24) | best_flush
    top = _straight_top(ranks)
    if top > 0:
        return (np.int64(N_CATEGORIES - 1 - STRAIGHT) << 24) | top
    if trip > 0:
        tb = (trip << 8) | _top_ranks(ranks, 2, trip, -1)
        return (np.int64(N_CATEGORIES - 1 - THREE_OF_A_KIND) << 24) | tb
    if pair2 > 0:
        tb = (pair1 << 8) | (pair2 << 4) | _top_ranks(ranks, 1, pair1, pair2)
        return (np.int64(N_CATEGORIES - 1 - TWO_PAIR) << 24) | tb
    if pair1 > 0:
        tb = (pair1 << 12) | _top_ranks(ranks, 3, pair1, -1)
        return (np.int64(N_CATEGORIES - 1 - ONE_PAIR) << 24) | tb
    return (np.int64(N_CATEGORIES - 1 - HIGH_CARD) << 24) | _top_ranks(ranks, 5, -1, -1)


@jit
def _stock_out_winners(n_players, seq, slen, counts):
    """Bit mask of the winners when the stock runs out (or the turn cap is hit)."""
    fewest = MAX_SEQ + 1
    for p in range(n_players):
        if slen[p] < fewest:
            fewest = slen[p]
    n_tied = 0
    mask = 0
    for p in range(n_players):
        if slen[p] == fewest:
            n_tied += 1
            mask |= 1 << p
    if n_tied == 1:
        return mask
    best = np.int64(-1)
    mask = 0
    for p in range(n_players):
        if slen[p] == fewest:
            s = _hand_strength(seq, p, slen[p], counts)
            if s > best:
                best = s
                mask = 1 << p
            elif s == best:
                mask |= 1 << p
    return mask


# ==== a game ============================================================================
@jit
def _bet_exchange(b, position_of, agents, rng, deck, seq, slen, blocks, st, out, g,
                  log, ev, ev_n, who, sc, script):
    """Seat ``b`` bets; the opponent responds; ``b`` answers (2 players).

    Returns (END_* or -1 to play on, seat that emptied its sequence or -1).
    """
    o = 1 - b
    _log(log, ev, ev_n, b, EV_BET, 0, 0)
    out[g, F_BETS + b] += 1
    st[ST_PASS] += 1
    # The opponent's response (a turn).
    out[g, F_TURNS] += 1
    if script is not None and o == who:
        resp, src, dst = _scripted_response(sc, script, seq, o, slen[o], st[ST_MID_CAT],
                                            st[ST_MID_TB], position_of, blocks, ev_n)
    else:
        resp, src, dst = _choose_response(agents, o, seq, slen[o], st[ST_MID_CAT],
                                          st[ST_MID_TB], position_of, rng, blocks)
    if resp == RESP_FOLD:
        _log(log, ev, ev_n, o, EV_FOLD, 0, 0)
        out[g, F_FOLDS] += 1
        st[ST_PASS] += 1
        if _draw_call(o, agents, seq, slen, deck, st, rng, out, g, log, ev, ev_n, who, sc,
                      script, blocks):
            return END_STOCK_OUT, np.int64(-1)
    elif resp == RESP_CALL:
        _log(log, ev, ev_n, o, EV_CALL, 0, 0)
        _log(log, ev, ev_n, o, EV_MOVE, src, dst)
        out[g, F_CALLS] += 1
        _move(seq, o, slen[o], src, dst)
        st[ST_PASS] += 1
    else:
        _log(log, ev, ev_n, o, EV_RAISE, 0, 0)
        _log(log, ev, ev_n, o, EV_MOVE, src, dst)
        out[g, F_RAISES] += 1
        _move(seq, o, slen[o], src, dst)
        n = _legal_blocks_call(seq, o, slen[o], st[ST_MID_CAT], st[ST_MID_TB], position_of, blocks)
        if script is not None and o == who:
            idx = _scripted_block(sc, script, SK_RAISE_BLOCK, 0, n, blocks, ev_n)
        else:
            policy = PLAY_RANDOM if np.int64(agents[o, A_PLAY]) == PLAY_RANDOM else PLAY_STRONG
            idx = _pick_block_call(policy, n, blocks, position_of, rng)
            if agents[o, A_TAKE_WIN] > 0:
                w = _winning_block(n, slen[o], blocks)
                if w >= 0:
                    idx = w
        _play_block_call(o, idx, seq, slen, blocks, st, out, g, log, ev, ev_n)
        if slen[o] == 0:
            return END_EMPTIED, np.int64(o)
        if _draw_call(o, agents, seq, slen, deck, st, rng, out, g, log, ev, ev_n, who, sc,
                      script, blocks):
            return END_STOCK_OUT, np.int64(-1)
    # The bettor's answer (a turn).
    out[g, F_TURNS] += 1
    n = _legal_blocks_call(seq, b, slen[b], st[ST_MID_CAT], st[ST_MID_TB], position_of, blocks)
    if script is not None and b == who:
        idx = _scripted_block(sc, script, SK_ANSWER, 1 if resp == RESP_FOLD else 0, n, blocks,
                              ev_n)
    else:
        idx = _choose_answer(agents, b, n, slen[b], blocks, position_of, rng)
    if idx >= 0:
        _play_block_call(b, idx, seq, slen, blocks, st, out, g, log, ev, ev_n)
        out[g, F_BETS_WON + b] += 1
        if slen[b] == 0:
            return END_EMPTIED, np.int64(b)
        if resp == RESP_RAISE:
            if _draw_call(o, agents, seq, slen, deck, st, rng, out, g, log, ev, ev_n, who, sc,
                      script, blocks):
                return END_STOCK_OUT, np.int64(-1)
    else:
        if resp == RESP_FOLD:
            _log(log, ev, ev_n, b, EV_CHECK, 0, 0)
            out[g, F_CHECKS] += 1
        else:
            _log(log, ev, ev_n, b, EV_FOLD, 0, 0)
        st[ST_PASS] += 1
        if _draw_call(b, agents, seq, slen, deck, st, rng, out, g, log, ev, ev_n, who, sc,
                      script, blocks):
            return END_STOCK_OUT, np.int64(-1)
    _end_round_of_checks_call(2, o, st, out, g, log, ev, ev_n)
    return np.int64(-1), np.int64(-1)


@jit
def _play_game(n_players, hand_size, betting, max_turns, position_of, agents, rng, deck, seq,
               slen, blocks, counts, st, out, g, log, ev, ev_n, who, sc, script):
    """Play game ``g``; write its record into ``out[g]`` (int32 (N_FIELDS,), zeroed).
    ``who``: the scripted seat, ``sc`` and ``script`` its state and its decisions; the
    batch runs pass -1, None and None, and numba prunes the scripted branches from their
    specialisation (``script is not None`` on a None argument): their code is as before."""
    # Shuffle (Fisher-Yates) and deal one card at a time from the first player.
    for i in range(DECK_SIZE):
        deck[i] = i
    for i in range(DECK_SIZE - 1, 0, -1):
        j = below(rng, i + 1)
        c = deck[i]
        deck[i] = deck[j]
        deck[j] = c
    first = below(rng, n_players)
    for p in range(n_players):
        slen[p] = 0
    k = 0
    for _ in range(hand_size):
        for q in range(n_players):
            p = (first + q) % n_players
            seq[p, slen[p]] = deck[k]
            slen[p] += 1
            k += 1
    st[ST_TOP] = k
    st[ST_MID_CAT] = -1
    st[ST_MID_TB] = 0
    st[ST_PASS] = 0
    out[g, F_FIRST] = first
    end = -1
    winners = 0
    turns = 0
    p = first
    while True:
        if turns >= max_turns:
            end = END_CAPPED
            break
        turns += 1
        out[g, F_TURNS] += 1
        length = slen[p]
        n = _legal_blocks(seq, p, length, st[ST_MID_CAT], st[ST_MID_TB], position_of, blocks)
        can_bet = betting and st[ST_MID_CAT] >= 0
        if script is not None and p == who:
            action, idx = _scripted_turn(sc, script, n, can_bet, blocks, ev_n)
        else:
            action, idx = _choose_turn(agents, p, n, length, can_bet, blocks, position_of, rng)
        if action == ACT_PLAY:
            _play_block(p, idx, seq, slen, blocks, st, out, g, log, ev, ev_n)
            if slen[p] == 0:
                end = END_EMPTIED
                winners = 1 << p
                break
            if _draw(p, agents, seq, slen, deck, st, rng, out, g, log, ev, ev_n, who, sc,
                     script, blocks):
                end = END_STOCK_OUT
                break
        elif action == ACT_CHECK:
            _log(log, ev, ev_n, p, EV_CHECK, 0, 0)
            out[g, F_CHECKS] += 1
            st[ST_PASS] += 1
            if _draw(p, agents, seq, slen, deck, st, rng, out, g, log, ev, ev_n, who, sc,
                     script, blocks):
                end = END_STOCK_OUT
                break
            _end_round_of_checks(n_players, (p + 1) % n_players, st, out, g, log, ev, ev_n)
        else:
            code, emptied = _bet_exchange(p, position_of, agents, rng, deck, seq, slen, blocks,
                                          st, out, g, log, ev, ev_n, who, sc, script)
            turns += 2
            if code == END_EMPTIED:
                end = END_EMPTIED
                winners = 1 << emptied
                break
            if code >= 0:
                end = code
                break
            # The exchange was three turns (bet, response, answer): the opponent is next.
        p = (p + 1) % n_players
    if end != END_EMPTIED:
        winners = _stock_out_winners(n_players, seq, slen, counts)
    n_winners = 0
    for q in range(n_players):
        if (winners >> q) & 1:
            n_winners += 1
    if end == END_STOCK_OUT and n_winners > 1:
        end = END_SHARED
    out[g, F_WINNERS] = winners
    out[g, F_N_WINNERS] = n_winners
    out[g, F_END] = end
    for q in range(MAX_PLAYERS):
        out[g, F_CARDS_LEFT + q] = slen[q] if q < n_players else -1
    _log(log, ev, ev_n, -1, EV_END, end, winners)


@jit
def _scratch():
    """A game's scratch arrays: the deck, the sequences (and the scratch row), their
    lengths, the legal blocks, the hand-strength counts and the game's scalars."""
    deck = np.empty(DECK_SIZE, dtype=np.int8)
    seq = np.full((MAX_PLAYERS + 1, MAX_SEQ + 1), -1, dtype=np.int8)
    slen = np.zeros(MAX_PLAYERS + 1, dtype=np.int64)
    blocks = np.zeros((MAX_BLOCKS, 4), dtype=np.int64)
    counts = np.zeros(23, dtype=np.int64)
    st = np.zeros(N_STATE, dtype=np.int64)
    return deck, seq, slen, blocks, counts, st


@jit
def _play_chunk(lo, hi, n_players, hand_size, betting, max_turns, position_of, agents, rng,
                out_games, log, ev, ev_n, out_ev_start, out_decks):
    """Play games ``lo..hi-1`` with one random stream ``rng`` (uint64 (4,), advanced).

    Scratch is allocated here, once per chunk, so chunks share nothing mutable.
    """
    deck, seq, slen, blocks, counts, st = _scratch()
    for g in range(lo, hi):
        for f in range(N_FIELDS):
            out_games[g, f] = 0
        if log:
            out_ev_start[g] = ev_n[0]
        _play_game(n_players, hand_size, betting, max_turns, position_of, agents, rng, deck,
                   seq, slen, blocks, counts, st, out_games, g, log, ev, ev_n, -1, None, None)
        if log:
            for i in range(DECK_SIZE):
                out_decks[g, i] = deck[i]


@jit
def _play_games(chunk_size, n_players, hand_size, betting, max_turns, position_of, agents,
                rng_states, out_games, log, ev, ev_n, out_ev_start, out_decks):
    """Serial driver: chunk ``c`` plays games ``c*chunk_size ..`` with ``rng_states[c]``.

    Parameters
    ----------
    rng_states : (n_chunks, 4) uint64, advanced in place
    out_games : (n_games, N_FIELDS) int32, written in place
    log : bool; when True ``ev`` (cap, 4) int16 receives events, ``ev_n`` (1,) int64
        their count (it may exceed ``cap``: then the caller retries bigger),
        ``out_ev_start`` (n_games + 1,) int64 each game's first event and
        ``out_decks`` (n_games, 52) int8 each game's shuffled deck.
    """
    n_games = out_games.shape[0]
    # Threads may call this on disjoint slices of chunks (it releases the GIL).
    for c in range(rng_states.shape[0]):
        lo = c * chunk_size
        hi = min(n_games, lo + chunk_size)
        _play_chunk(lo, hi, n_players, hand_size, betting, max_turns, position_of, agents,
                    rng_states[c], out_games, log, ev, ev_n, out_ev_start, out_decks)
    if log:
        out_ev_start[n_games] = ev_n[0]


@jit
def _play_tables(chunk_size, n_players, hand_size, betting, max_turns, position_of, tables,
                 table_of, rng_states, out_games):
    """Like :func:`_play_games` (unlogged), but game ``g`` seats the parameter table
    ``tables[table_of[g]]`` (float64 (k, n_players, N_AGENT_PARAMS)): mixture seats, and
    with ``chunk_size`` 1 one RNG state per game (training's common random numbers).

    Parameters
    ----------
    table_of : (n_games,) int64, each game's table
    rng_states : (n_chunks, 4) uint64, advanced in place
    out_games : (n_games, N_FIELDS) int32, written in place
    """
    n_games = out_games.shape[0]
    ev = np.zeros((0, 4), dtype=np.int16)
    ev_n = np.zeros(1, dtype=np.int64)
    deck, seq, slen, blocks, counts, st = _scratch()
    for c in range(rng_states.shape[0]):
        for g in range(c * chunk_size, min(n_games, (c + 1) * chunk_size)):
            for f in range(N_FIELDS):
                out_games[g, f] = 0
            _play_game(n_players, hand_size, betting, max_turns, position_of,
                       tables[table_of[g]], rng_states[c], deck, seq, slen, blocks, counts, st,
                       out_games, g, False, ev, ev_n, -1, None, None)


@jit
def _play_scripted(n_players, hand_size, betting, max_turns, position_of, agents, rng,
                   out_games, ev, ev_n, out_decks, sc, script):
    """One logged game (``out_games`` (1, N_FIELDS)) with seat ``sc[SC_SEAT]`` deciding by
    ``script`` (int64 (k, SCRIPT_WIDTH)); ``sc`` (int64 (N_SC,)) as the module says, its
    cursor 0 and its pause and refusal -1 on entry. The game is played to its end (past a
    pause with defaults); the caller keeps the events before ``sc[SC_PAUSE_EV]``."""
    deck, seq, slen, blocks, counts, st = _scratch()
    for f in range(N_FIELDS):
        out_games[0, f] = 0
    _play_game(n_players, hand_size, betting, max_turns, position_of, agents, rng, deck, seq,
               slen, blocks, counts, st, out_games, 0, True, ev, ev_n, sc[SC_SEAT], sc, script)
    for i in range(DECK_SIZE):
        out_decks[0, i] = deck[i]
