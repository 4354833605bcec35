"""Numba kernels of the Ordered Hand game (SPEC section 9).

Plain arrays and scalars only. The column arrives as ``position_of`` (int64
(13,), the column position of each category id), the agents as a float64
parameter table (one row per seat, columns ``A_*``), the random streams as
xoshiro256** states (uint64 (n_chunks, 4), one per chunk of games).

Each game writes one int32 row of ``out_games`` (columns ``F_*``); with
logging on it also writes the shuffled deck and a flat event log (int16 rows
``player, kind, a, b``, kinds ``EV_*``) that :mod:`nop_sim.ordered.referee`
replays.

Rules as played here (the choices SPEC section 9 leaves open are marked *):

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
- Round of checks: every turn without a play (a check, and in the advanced
  rules a Bet, Fold, Call or the bettor's Fold) extends a run of passes; a
  play ends it. When the run reaches the number of players the middle is
  cleared and the first passer of the last full round leads, which is always
  the next player in turn. *Inside a bet exchange (from the Bet to the
  bettor's answer) the middle is never cleared: the test waits until the
  exchange is over.* *A round of checks on an empty middle clears nothing and
  is not counted as a clear.*
- Advanced rules (2 players). *A Bet needs a non-empty middle; the bettor
  neither plays nor draws on that turn.* The opponent's response is a turn:
  Fold (no play, draw), Call (no play, no draw, move one card: *moving it
  back to its own place is allowed, i.e. the move is optional*) or Raise (move
  one card, *the same optional move*, play a block that beats the middle,
  draw; an empty sequence after the play wins at once). The bettor's answer is
  a turn: after a Fold, check (draw) or play a block beating the middle
  without drawing; after a Call or Raise, fold (draw) or play a block beating
  the middle (after a Raise, the raise) without drawing, and after a Raise
  the raiser then draws one extra card at once. *A bet is won when the bettor
  plays on the answer turn.* A Bet cannot be answered by another Bet.
"""

from __future__ import annotations

import numpy as np
from numba import prange

from nop_sim.kernels._jit import jit, pjit
from nop_sim.kernels.blocks import _block_beats, _classify_block, _classify_five

MAX_PLAYERS = 6
DECK_SIZE = 52
MAX_SEQ = DECK_SIZE  # a sequence never holds more than the deck
MAX_BLOCKS = 5 * MAX_SEQ
N_CATEGORIES = 13

# ---- agent parameter table: one float64 row per seat -------------------------
A_PLAY = 0  # PLAY_*: which block to play
A_CHECK_PROB = 1  # chance to check although a play exists (non-random policies)
A_INSERT = 2  # INSERT_*: where a drawn card goes
A_BET = 3  # 1: bet when holding a block that beats a non-empty middle
A_BET_PROB = 4  # chance to bet when the bet condition holds
A_RESPOND = 5  # RESPOND_*: answer to the opponent's Bet
A_TAKE_WIN = 6  # 1: always play a block that empties the sequence
N_AGENT_PARAMS = 7

PLAY_RANDOM = 0  # uniform over the legal moves (every beating block, check, bet)
PLAY_LOW = 1  # the weakest block that beats the middle
PLAY_HIGH = 2  # the block with most cards (weakest among those)
PLAY_STRONG = 3  # the strongest block (used for raises)

INSERT_RANDOM = 0  # uniform over the positions 0..len
INSERT_END = 1  # at the end of the sequence
INSERT_BUILDER = 2  # next to cards of the same rank, a neighbouring rank, or suit

RESPOND_RANDOM = 0  # uniform over Fold, Call, Raise (when a raise is possible)
RESPOND_FOLD = 1
RESPOND_RAISE_ELSE_CALL = 2  # raise when a block (after a one-card move) beats the middle
RESPOND_RAISE_ELSE_FOLD = 3

# ---- actions and responses -----------------------------------------------------
ACT_PLAY = 0
ACT_CHECK = 1
ACT_BET = 2
RESP_FOLD = 0
RESP_CALL = 1
RESP_RAISE = 2

# ---- event log: int16 rows (player, kind, a, b) ---------------------------------
EV_PLAY = 1  # a = start index, b = length
EV_CHECK = 2
EV_DRAW = 3  # a = card, b = insert position
EV_BET = 4
EV_FOLD = 5  # the opponent's Fold response, or the bettor's fold answer
EV_CALL = 6
EV_RAISE = 7
EV_MOVE = 8  # a = from index, b = to index (in the sequence after removal)
EV_CLEAR = 9  # player = who leads next
EV_END = 10  # a = END_* kind, b = winners bit mask
EV_NAMES = {
    EV_PLAY: "play", EV_CHECK: "check", EV_DRAW: "draw", EV_BET: "bet", EV_FOLD: "fold",
    EV_CALL: "call", EV_RAISE: "raise", EV_MOVE: "move", EV_CLEAR: "clear", EV_END: "end",
}

# ---- how a game ended -------------------------------------------------------------
END_EMPTIED = 0  # a player emptied their sequence by a play
END_STOCK_OUT = 1  # the last stock card was drawn; one winner
END_SHARED = 2  # the last stock card was drawn; several players share the win
END_CAPPED = 3  # max_turns reached; decided like a stock-out
END_NAMES = ("emptied", "stock_out", "shared", "capped")

# ---- per-game record: int32 columns of out_games ------------------------------------
F_FIRST = 0  # seat that played first
F_WINNERS = 1  # bit mask of winning seats
F_N_WINNERS = 2
F_END = 3  # END_*
F_TURNS = 4
F_DRAWN = 5  # cards drawn from the stock after the deal
F_CLEARS = 6  # times the middle was cleared by a round of checks
F_PLAYS = 7
F_CHECKS = 8
F_FOLDS = 9  # responses to bets
F_CALLS = 10
F_RAISES = 11
F_SIZE = 12  # + length - 1: plays by block size 1..5
F_CAT = F_SIZE + 5  # + category id: plays by category
F_CARDS_LEFT = F_CAT + N_CATEGORIES  # + seat: cards held at the end (-1: no seat)
F_BETS = F_CARDS_LEFT + MAX_PLAYERS  # + seat: bets made
F_BETS_WON = F_BETS + MAX_PLAYERS  # + seat: bets won
N_FIELDS = F_BETS_WON + MAX_PLAYERS

# ---- mutable scalars of a game --------------------------------------------------------
ST_TOP = 0  # next stock card index in the deck
ST_MID_CAT = 1  # category of the block in the middle, -1 empty
ST_MID_TB = 2
ST_PASS = 3  # turns without a play since the last play or clear
N_STATE = 4


# ==== random numbers: xoshiro256** (one state per chunk) ================================
@jit
def _rotl(x, k):
    return (x << np.uint64(k)) | (x >> np.uint64(64 - k))


@jit
def _next_u64(state):
    """Next 64 random bits; advances ``state`` (uint64 (4,)) in place."""
    s0 = state[0]
    s1 = state[1]
    s2 = state[2]
    s3 = state[3]
    result = _rotl(s1 * np.uint64(5), 7) * np.uint64(9)
    t = s1 << np.uint64(17)
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, 45)
    state[0] = s0
    state[1] = s1
    state[2] = s2
    state[3] = s3
    return result


@jit
def _rand_below(state, n):
    """Uniform int in 0..n-1 for 1 <= n < 2**31 (multiply-shift on 32 random bits)."""
    x = _next_u64(state) >> np.uint64(32)
    return np.int64((x * np.uint64(n)) >> np.uint64(32))


@jit
def _rand_unit(state):
    """Uniform float in [0, 1)."""
    return np.float64(_next_u64(state) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


# ==== sequences =========================================================================
@jit
def _insert(row, length, pos, card):
    """Insert ``card`` at ``pos`` (0..length) of ``row[:length]``, shifting right."""
    for i in range(length, pos, -1):
        row[i] = row[i - 1]
    row[pos] = card


@jit
def _remove(row, length, start, n):
    """Remove ``row[start:start + n]`` from ``row[:length]``, shifting left."""
    for i in range(start, length - n):
        row[i] = row[i + n]
    for i in range(length - n, length):
        row[i] = -1


@jit
def _move(row, length, src, dst):
    """Move the card at ``src`` so that it ends at index ``dst`` (both 0..length-1)."""
    card = row[src]
    _remove(row, length, src, 1)
    _insert(row, length - 1, dst, card)


@jit
def _legal_blocks(row, length, mid_cat, mid_tb, position_of, b_start, b_len, b_cat, b_tb):
    """Every block of ``row[:length]`` that is valid and beats the middle.

    Writes start, length, category, tie-break of each into ``b_*`` (in order of
    start, then length) and returns their count.
    """
    n = 0
    for s in range(length):
        top = min(5, length - s)
        for ln in range(1, top + 1):
            cat, tb = _classify_block(row, s, ln)
            if cat >= 0 and _block_beats(cat, tb, mid_cat, mid_tb, position_of):
                b_start[n] = s
                b_len[n] = ln
                b_cat[n] = cat
                b_tb[n] = tb
                n += 1
    return n


@jit
def _strength(cat, tb, position_of):
    """One int64 that orders blocks under the column (larger is stronger)."""
    return ((N_CATEGORIES - 1 - position_of[cat]) << 24) | tb


# ==== agents ============================================================================
@jit
def _pick_block(policy, n, b_len, b_cat, b_tb, position_of, rng):
    """Index of the block ``policy`` plays among ``n >= 1`` legal blocks."""
    if policy == PLAY_RANDOM:
        return _rand_below(rng, n)
    best = 0
    best_key = np.int64(0)
    for i in range(n):
        s = _strength(b_cat[i], b_tb[i], position_of)
        if policy == PLAY_LOW:
            key = -s
        elif policy == PLAY_HIGH:
            key = (np.int64(b_len[i]) << 32) - s
        else:
            key = s
        if i == 0 or key > best_key:
            best = i
            best_key = key
    return best


@jit
def _winning_block(n, length, b_len):
    """Index of a block that empties the sequence, or -1."""
    for i in range(n):
        if b_len[i] == length:
            return i
    return -1


@jit
def _choose_turn(agent, n, length, can_bet, b_len, b_cat, b_tb, position_of, rng):
    """(ACT_*, block index) for an ordinary turn with ``n`` legal blocks."""
    policy = np.int64(agent[A_PLAY])
    if policy == PLAY_RANDOM:
        k = n + 1 + (1 if can_bet else 0)
        r = _rand_below(rng, k)
        if r < n:
            return ACT_PLAY, r
        if r == n:
            return ACT_CHECK, np.int64(-1)
        return ACT_BET, np.int64(-1)
    if n > 0 and agent[A_TAKE_WIN] > 0:
        w = _winning_block(n, length, b_len)
        if w >= 0:
            return ACT_PLAY, w
    if can_bet and n > 0 and agent[A_BET] > 0 and _rand_unit(rng) < agent[A_BET_PROB]:
        return ACT_BET, np.int64(-1)
    if n > 0 and not (agent[A_CHECK_PROB] > 0 and _rand_unit(rng) < agent[A_CHECK_PROB]):
        return ACT_PLAY, _pick_block(policy, n, b_len, b_cat, b_tb, position_of, rng)
    return ACT_CHECK, np.int64(-1)


@jit
def _choose_answer(agent, n, length, b_len, b_cat, b_tb, position_of, rng):
    """The bettor's answer: a block index to play without drawing, or -1 to check/fold."""
    policy = np.int64(agent[A_PLAY])
    if policy == PLAY_RANDOM:
        r = _rand_below(rng, n + 1)
        return r if r < n else np.int64(-1)
    if n == 0:
        return np.int64(-1)
    if agent[A_TAKE_WIN] > 0:
        w = _winning_block(n, length, b_len)
        if w >= 0:
            return w
    return _pick_block(policy, n, b_len, b_cat, b_tb, position_of, rng)


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


@jit
def _choose_insert(policy, row, length, card, rng):
    """Insert position 0..length for a drawn ``card``."""
    if policy == INSERT_RANDOM:
        return _rand_below(rng, length + 1)
    if policy == INSERT_END:
        return np.int64(length)
    rank = _rank(card)
    suit = np.int64(card) & 3
    best = np.int64(length)
    best_score = 0
    for pos in range(length + 1):
        score = 0
        if pos > 0:
            score += _affinity(row[pos - 1], rank, suit)
        if pos < length:
            score += _affinity(row[pos], rank, suit)
            # Never split a pair or longer group of one rank.
            if pos > 0 and _rank(row[pos - 1]) == _rank(row[pos]) and _rank(row[pos]) != rank:
                score -= 8
        if score > best_score:
            best = pos
            best_score = score
    return best


@jit
def _choose_response(agent, row, length, mid_cat, mid_tb, position_of, rng, tmp,
                     b_start, b_len, b_cat, b_tb):
    """The opponent's answer to a Bet: (RESP_*, move from, move to).

    A Raise is only returned when, after the move, some block beats the middle.
    ``tmp`` is scratch (int8, at least ``length``).
    """
    policy = np.int64(agent[A_RESPOND])
    if policy == RESPOND_FOLD:
        return RESP_FOLD, np.int64(0), np.int64(0)
    if policy == RESPOND_RANDOM:
        src = _rand_below(rng, length)
        dst = _rand_below(rng, length)
        for i in range(length):
            tmp[i] = row[i]
        _move(tmp, length, src, dst)
        n = _legal_blocks(tmp, length, mid_cat, mid_tb, position_of, b_start, b_len, b_cat, b_tb)
        r = _rand_below(rng, 3 if n > 0 else 2)
        return r, src, dst
    if _legal_blocks(row, length, mid_cat, mid_tb, position_of, b_start, b_len, b_cat, b_tb) > 0:
        return RESP_RAISE, np.int64(0), np.int64(0)
    # Look for a move that puts a card next to one of its rank and makes a raise.
    call_src = np.int64(0)
    call_dst = np.int64(0)
    found = False
    for i in range(length):
        ri = _rank(row[i])
        for j in range(length):
            if j == i or j == i - 1 or j == i + 1 or _rank(row[j]) != ri:
                continue
            jj = j - 1 if j > i else j  # index of card j once card i is taken out
            for dst in (jj, jj + 1):
                for k in range(length):
                    tmp[k] = row[k]
                _move(tmp, length, i, dst)
                if _legal_blocks(tmp, length, mid_cat, mid_tb, position_of,
                                 b_start, b_len, b_cat, b_tb) > 0:
                    return RESP_RAISE, np.int64(i), np.int64(dst)
                if not found:
                    found = True
                    call_src = np.int64(i)
                    call_dst = np.int64(dst)
    if policy == RESPOND_RAISE_ELSE_CALL:
        return RESP_CALL, call_src, call_dst
    return RESP_FOLD, np.int64(0), np.int64(0)


# ==== one game ==========================================================================
@jit
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


@jit
def _play_block(p, idx, seq, slen, b_start, b_len, b_cat, b_tb, st, row, log, ev, ev_n):
    """Player ``p`` plays legal block ``idx``: it leaves the sequence for the middle."""
    s = b_start[idx]
    ln = b_len[idx]
    cat = b_cat[idx]
    _log(log, ev, ev_n, p, EV_PLAY, s, ln)
    _remove(seq[p], slen[p], s, ln)
    slen[p] -= ln
    st[ST_MID_CAT] = cat
    st[ST_MID_TB] = b_tb[idx]
    st[ST_PASS] = 0
    row[F_PLAYS] += 1
    row[F_SIZE + ln - 1] += 1
    row[F_CAT + cat] += 1


@jit
def _draw(p, agent, seq, slen, deck, st, rng, row, log, ev, ev_n):
    """Player ``p`` draws the next stock card, if any, and inserts it.

    Returns True when this draw took the last card of the stock (the game ends).
    """
    top = st[ST_TOP]
    if top >= DECK_SIZE:
        return False
    card = deck[top]
    st[ST_TOP] = top + 1
    pos = _choose_insert(np.int64(agent[A_INSERT]), seq[p], slen[p], card, rng)
    _insert(seq[p], slen[p], pos, card)
    slen[p] += 1
    row[F_DRAWN] += 1
    _log(log, ev, ev_n, p, EV_DRAW, card, pos)
    return top + 1 == DECK_SIZE


@jit
def _end_round_of_checks(n_players, leader, st, row, log, ev, ev_n):
    """Clear the middle once every player has passed in turn since the last play."""
    if st[ST_PASS] >= n_players:
        st[ST_PASS] = 0
        if st[ST_MID_CAT] >= 0:
            st[ST_MID_CAT] = -1
            st[ST_MID_TB] = 0
            row[F_CLEARS] += 1
            _log(log, ev, ev_n, leader, EV_CLEAR, 0, 0)


@jit
def _short_hand_strength(row, n, counts):
    """Default-column strength of all ``n <= 4`` cards as a short poker hand.

    Groups (by size, then rank, highest first) give the category and the
    tie-break: Four of a Kind, Three of a Kind, Two Pair, One Pair, High Card.
    ``counts`` is int64 scratch of length >= 15.
    """
    for r in range(15):
        counts[r] = 0
    for i in range(n):
        counts[_rank(row[i])] += 1
    n_pairs = 0
    biggest = 0
    for r in range(2, 15):
        if counts[r] == 2:
            n_pairs += 1
        if counts[r] > biggest:
            biggest = counts[r]
    if biggest == 4:
        cat = 5
    elif biggest == 3:
        cat = 9
    elif n_pairs == 2:
        cat = 10
    elif n_pairs == 1:
        cat = 11
    else:
        cat = 12
    tb = np.int64(0)
    for size in range(4, 0, -1):
        for r in range(14, 1, -1):
            if counts[r] == size:  # a group's rank counts once, kickers one by one
                tb = (tb << 4) | r
    return (np.int64(N_CATEGORIES - 1 - cat) << 24) | tb


@jit
def _hand_strength(row, n, five, counts):
    """Strength of the best poker hand from ``row[:n]`` under the default column.

    Five or more cards: the best five-card subset (every subset tried).
    Fewer: :func:`_short_hand_strength`. Larger is better.
    """
    if n < 5:
        return _short_hand_strength(row, n, counts)
    best = np.int64(-1)
    for i0 in range(n - 4):
        five[0] = row[i0]
        for i1 in range(i0 + 1, n - 3):
            five[1] = row[i1]
            for i2 in range(i1 + 1, n - 2):
                five[2] = row[i2]
                for i3 in range(i2 + 1, n - 1):
                    five[3] = row[i3]
                    for i4 in range(i3 + 1, n):
                        five[4] = row[i4]
                        cat, tb = _classify_five(five, 0)
                        s = (np.int64(N_CATEGORIES - 1 - cat) << 24) | tb
                        if s > best:
                            best = s
    return best


@jit
def _stock_out_winners(n_players, seq, slen, five, counts):
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
            s = _hand_strength(seq[p], slen[p], five, counts)
            if s > best:
                best = s
                mask = 1 << p
            elif s == best:
                mask |= 1 << p
    return mask


@jit
def _bet_exchange(b, position_of, agents, rng, deck, seq, slen, b_start, b_len, b_cat, b_tb,
                  tmp, st, row, log, ev, ev_n):
    """Seat ``b`` bets; the opponent responds; ``b`` answers (2 players).

    Returns (END_* or -1 to play on, seat that emptied its sequence or -1).
    """
    o = 1 - b
    _log(log, ev, ev_n, b, EV_BET, 0, 0)
    row[F_BETS + b] += 1
    st[ST_PASS] += 1
    # The opponent's response (a turn).
    row[F_TURNS] += 1
    oagent = agents[o]
    resp, src, dst = _choose_response(oagent, seq[o], slen[o], st[ST_MID_CAT], st[ST_MID_TB],
                                      position_of, rng, tmp, b_start, b_len, b_cat, b_tb)
    if resp == RESP_FOLD:
        _log(log, ev, ev_n, o, EV_FOLD, 0, 0)
        row[F_FOLDS] += 1
        st[ST_PASS] += 1
        if _draw(o, oagent, seq, slen, deck, st, rng, row, log, ev, ev_n):
            return END_STOCK_OUT, np.int64(-1)
    elif resp == RESP_CALL:
        _log(log, ev, ev_n, o, EV_CALL, 0, 0)
        _log(log, ev, ev_n, o, EV_MOVE, src, dst)
        row[F_CALLS] += 1
        _move(seq[o], slen[o], src, dst)
        st[ST_PASS] += 1
    else:
        _log(log, ev, ev_n, o, EV_RAISE, 0, 0)
        _log(log, ev, ev_n, o, EV_MOVE, src, dst)
        row[F_RAISES] += 1
        _move(seq[o], slen[o], src, dst)
        n = _legal_blocks(seq[o], slen[o], st[ST_MID_CAT], st[ST_MID_TB], position_of,
                          b_start, b_len, b_cat, b_tb)
        policy = PLAY_RANDOM if np.int64(oagent[A_PLAY]) == PLAY_RANDOM else PLAY_STRONG
        idx = _pick_block(policy, n, b_len, b_cat, b_tb, position_of, rng)
        if oagent[A_TAKE_WIN] > 0:
            w = _winning_block(n, slen[o], b_len)
            if w >= 0:
                idx = w
        _play_block(o, idx, seq, slen, b_start, b_len, b_cat, b_tb, st, row, log, ev, ev_n)
        if slen[o] == 0:
            return END_EMPTIED, np.int64(o)
        if _draw(o, oagent, seq, slen, deck, st, rng, row, log, ev, ev_n):
            return END_STOCK_OUT, np.int64(-1)
    # The bettor's answer (a turn).
    row[F_TURNS] += 1
    bagent = agents[b]
    n = _legal_blocks(seq[b], slen[b], st[ST_MID_CAT], st[ST_MID_TB], position_of,
                      b_start, b_len, b_cat, b_tb)
    idx = _choose_answer(bagent, n, slen[b], b_len, b_cat, b_tb, position_of, rng)
    if idx >= 0:
        _play_block(b, idx, seq, slen, b_start, b_len, b_cat, b_tb, st, row, log, ev, ev_n)
        row[F_BETS_WON + b] += 1
        if slen[b] == 0:
            return END_EMPTIED, np.int64(b)
        if resp == RESP_RAISE:
            if _draw(o, oagent, seq, slen, deck, st, rng, row, log, ev, ev_n):
                return END_STOCK_OUT, np.int64(-1)
    else:
        if resp == RESP_FOLD:
            _log(log, ev, ev_n, b, EV_CHECK, 0, 0)
            row[F_CHECKS] += 1
        else:
            _log(log, ev, ev_n, b, EV_FOLD, 0, 0)
        st[ST_PASS] += 1
        if _draw(b, bagent, seq, slen, deck, st, rng, row, log, ev, ev_n):
            return END_STOCK_OUT, np.int64(-1)
    _end_round_of_checks(2, o, st, row, log, ev, ev_n)
    return np.int64(-1), np.int64(-1)


@jit
def _play_game(n_players, hand_size, betting, max_turns, position_of, agents, rng, deck, seq,
               slen, b_start, b_len, b_cat, b_tb, tmp, counts, st, row, log, ev, ev_n):
    """Play one game; write its record into ``row`` (int32 (N_FIELDS,), zeroed)."""
    # Shuffle (Fisher-Yates) and deal one card at a time from the first player.
    for i in range(DECK_SIZE):
        deck[i] = i
    for i in range(DECK_SIZE - 1, 0, -1):
        j = _rand_below(rng, i + 1)
        c = deck[i]
        deck[i] = deck[j]
        deck[j] = c
    first = _rand_below(rng, n_players)
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
    row[F_FIRST] = first
    end = -1
    winners = 0
    p = first
    while True:
        if row[F_TURNS] >= max_turns:
            end = END_CAPPED
            break
        row[F_TURNS] += 1
        agent = agents[p]
        length = slen[p]
        n = _legal_blocks(seq[p], length, st[ST_MID_CAT], st[ST_MID_TB], position_of,
                          b_start, b_len, b_cat, b_tb)
        can_bet = betting and st[ST_MID_CAT] >= 0
        action, idx = _choose_turn(agent, n, length, can_bet, b_len, b_cat, b_tb,
                                   position_of, rng)
        if action == ACT_PLAY:
            _play_block(p, idx, seq, slen, b_start, b_len, b_cat, b_tb, st, row, log, ev, ev_n)
            if slen[p] == 0:
                end = END_EMPTIED
                winners = 1 << p
                break
            if _draw(p, agent, seq, slen, deck, st, rng, row, log, ev, ev_n):
                end = END_STOCK_OUT
                break
        elif action == ACT_CHECK:
            _log(log, ev, ev_n, p, EV_CHECK, 0, 0)
            row[F_CHECKS] += 1
            st[ST_PASS] += 1
            if _draw(p, agent, seq, slen, deck, st, rng, row, log, ev, ev_n):
                end = END_STOCK_OUT
                break
            _end_round_of_checks(n_players, (p + 1) % n_players, st, row, log, ev, ev_n)
        else:
            code, emptied = _bet_exchange(p, position_of, agents, rng, deck, seq, slen,
                                          b_start, b_len, b_cat, b_tb, tmp, st, row,
                                          log, ev, ev_n)
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
        winners = _stock_out_winners(n_players, seq, slen, tmp, counts)
    n_winners = 0
    for q in range(n_players):
        if (winners >> q) & 1:
            n_winners += 1
    if end == END_STOCK_OUT and n_winners > 1:
        end = END_SHARED
    row[F_WINNERS] = winners
    row[F_N_WINNERS] = n_winners
    row[F_END] = end
    for q in range(MAX_PLAYERS):
        row[F_CARDS_LEFT + q] = slen[q] if q < n_players else -1
    _log(log, ev, ev_n, -1, EV_END, end, winners)


@jit
def _play_chunk(lo, hi, n_players, hand_size, betting, max_turns, position_of, agents, rng,
                out_games, log, ev, ev_n, out_ev_start, out_decks):
    """Play games ``lo..hi-1`` with one random stream ``rng`` (uint64 (4,), advanced).

    Scratch is allocated here, once per chunk, so chunks share nothing mutable.
    """
    deck = np.empty(DECK_SIZE, dtype=np.int8)
    seq = np.full((MAX_PLAYERS, MAX_SEQ + 1), -1, dtype=np.int8)
    slen = np.zeros(MAX_PLAYERS, dtype=np.int64)
    b_start = np.empty(MAX_BLOCKS, dtype=np.int64)
    b_len = np.empty(MAX_BLOCKS, dtype=np.int64)
    b_cat = np.empty(MAX_BLOCKS, dtype=np.int64)
    b_tb = np.empty(MAX_BLOCKS, dtype=np.int64)
    tmp = np.empty(MAX_SEQ + 1, dtype=np.int8)
    counts = np.zeros(15, dtype=np.int64)
    st = np.zeros(N_STATE, dtype=np.int64)
    for g in range(lo, hi):
        row = out_games[g]
        row[:] = 0
        if log:
            out_ev_start[g] = ev_n[0]
        _play_game(n_players, hand_size, betting, max_turns, position_of, agents, rng, deck,
                   seq, slen, b_start, b_len, b_cat, b_tb, tmp, counts, st, row, log, ev, ev_n)
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
    for c in range(rng_states.shape[0]):
        lo = c * chunk_size
        hi = min(n_games, lo + chunk_size)
        _play_chunk(lo, hi, n_players, hand_size, betting, max_turns, position_of, agents,
                    rng_states[c], out_games, log, ev, ev_n, out_ev_start, out_decks)
    if log:
        out_ev_start[n_games] = ev_n[0]


@pjit
def _play_games_parallel(chunk_size, n_players, hand_size, betting, max_turns, position_of,
                         agents, rng_states, out_games):
    """Like :func:`_play_games` without logging, chunks spread over threads.

    Each chunk owns its random stream and its rows, so the result equals the
    serial driver's whatever the thread count.
    """
    n_games = out_games.shape[0]
    ev = np.zeros((0, 4), dtype=np.int16)
    ev_n = np.zeros(1, dtype=np.int64)
    ev_start = np.zeros(1, dtype=np.int64)
    decks = np.zeros((0, DECK_SIZE), dtype=np.int8)
    for c in prange(rng_states.shape[0]):
        lo = c * chunk_size
        hi = min(n_games, lo + chunk_size)
        _play_chunk(lo, hi, n_players, hand_size, betting, max_turns, position_of, agents,
                    rng_states[c], out_games, False, ev, ev_n, ev_start, decks)
