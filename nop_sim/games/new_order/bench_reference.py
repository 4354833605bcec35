"""The engine bench's reference: OpenSpiel's four-player limit hold'em, random playouts.

``universal_poker`` loaded from an ACPC game definition (four players, limit betting,
blinds 5/10, raises 10/10/20/20, at most 3/4/4/4 raises, two hole cards, a 3/1/1
board), played from the initial state to the end with every action, chance's
included, drawn uniformly from ``legal_actions()``: the deals are uniform over the
cards left, so this is the random playout, by OpenSpiel's fastest route (drawing
chance from ``chance_outcomes()`` is the same distribution at about 0.65 times the
rate, and would flatter us by as much). Counted per CPU-second of this thread, as the
engine's hands are.

OpenSpiel is an optional extra (``pip install 'nop-sim[bench]'``, which ``make bench``
installs); without it :func:`playouts_per_s` returns None.
"""

from __future__ import annotations

import random
import time

__all__ = ["GAMEDEF", "available", "playouts_per_s"]

GAMEDEF = """\
GAMEDEF
limit
numPlayers = 4
numRounds = 4
blind = 5 10 0 0
raiseSize = 10 10 20 20
firstPlayer = 3 1 1 1
maxRaises = 3 4 4 4
numSuits = 4
numRanks = 13
numHoleCards = 2
numBoardCards = 0 3 1 1
stack = 20000 20000 20000 20000
END GAMEDEF
"""

_GAME = None


def available() -> bool:
    """Whether OpenSpiel (``pyspiel``) can be imported here."""
    try:
        import pyspiel  # noqa: F401  (an optional extra: only a bench imports it)
    except ImportError:
        return False
    return True


def playouts_per_s(seconds: float, seed: int = 0) -> float | None:
    """Complete random playouts per CPU-second over about ``seconds``; None without
    OpenSpiel."""
    global _GAME
    try:
        import pyspiel  # an optional extra: only a bench imports it
    except ImportError:
        return None
    if _GAME is None:
        _GAME = pyspiel.universal_poker.load_universal_poker_from_acpc_gamedef(GAMEDEF)
    rng = random.Random(seed)
    n = 0
    c0 = time.process_time()
    while time.process_time() - c0 < seconds:
        state = _GAME.new_initial_state()
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[rng.randrange(len(legal))])
        n += 1
    return n / (time.process_time() - c0)
