"""With ``NUMBA_DISABLE_JIT=1`` the package imports and every kernel runs as plain
Python (slowly), so that a debugger can step through it; results are the JIT's.

One subprocess (the flag is read when numba is imported) evaluates hands
against the oracle of tests/reference.py and plays a few Ordered Hand games and
New Order matches; this process plays the same with the JIT and compares bytes.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from nop_sim.games import ordered_hand
from nop_sim.games.new_order.engine import play_matches
from nop_sim.games.new_order.settings import Settings
from nop_sim.games.ordered_hand import OrderedSettings

TESTS = Path(__file__).parent

ORDERED = [(dict(), "random", 12), (dict(players=2, betting=True), ["bettor", "raiser"], 12)]
MATCHES = [(dict(), 3), (dict(disruptors="chaos", decks=2, players=5, fee_to="bank"), 3)]


def digest(*arrays) -> str:
    h = hashlib.sha1()
    for a in arrays:
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()


def ordered_digests() -> list[str]:
    out = []
    for kw, agents, n in ORDERED:
        r = ordered_hand.play_matches(OrderedSettings(**kw), agents, n, seed=7, log=True)
        out.append(digest(r.games, r.log.decks, r.log.events, r.log.starts))
    return out


def match_digests(threads: int | None = None) -> list[str]:
    out = []
    for kw, n in MATCHES:
        r = play_matches(Settings(**kw), n_matches=n, seed=3, chunk_size=2, check=True,
                         log_every=1, threads=threads)
        assert r.count("invariant_errors") == 0
        out.append(digest(r.match, r.player, r.drafted, r.column, r.counts, r.categories,
                          r.time, r.disruptors, r.events))
    return out


SCRIPT = """
import inspect, json, sys
import numba
import numpy as np
assert numba.config.DISABLE_JIT
import nop_sim
from nop_sim.kernels import evaluate as k
import reference as ref
import test_nojit as t

# the kernels are the plain Python functions: a debugger steps into them
assert inspect.isfunction(k.score_batch), type(k.score_batch)

rng = np.random.default_rng(0)
checked = 0
for decks, wild, inverted in ((1, 0, False), (1, 1, True), (2, 0, False), (2, 1 << 12, True)):
    n = 60
    deck = np.tile(np.arange(52), decks)
    hands = np.array([rng.choice(deck, 7, replace=False) for _ in range(n)], np.int8)
    column = rng.permutation(13)
    elevated = rng.integers(0, 8192, n) * (rng.random(n) < 0.3)
    kw = dict(wild_ranks=wild, elevated=elevated, inverted=inverted, decks=decks)
    scores = nop_sim.evaluate(hands, column, **kw)
    cats = nop_sim.best_category(hands, column, **kw)
    best = [ref._best(h, column.tolist(), wild, int(e), inverted)
            for h, e in zip(hands.tolist(), elevated.tolist())]
    assert cats.tolist() == [c for _, c in best], (cats, best)
    keys = [key for key, _ in best]
    order = sorted(range(n), key=keys.__getitem__)
    for a, b in zip(order, order[1:]):
        ok = scores[a] == scores[b] if keys[a] == keys[b] else scores[a] < scores[b]
        assert ok, (hands[a], hands[b], scores[a], scores[b])
    checked += n
try:
    nop_sim.evaluate(np.array([[0, 5, 10, 15, 52, -1, -1]], np.int8))
    raise AssertionError("a bad card was accepted")
except ValueError as exc:
    assert "52" in str(exc), exc
print(json.dumps(dict(hands=checked, ordered=t.ordered_digests(), matches=t.match_digests())))
"""


def test_package_runs_without_the_jit():
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1",
           "PYTHONPATH": os.pathsep.join([str(TESTS.parent), str(TESTS)])}
    # an overflow warning would be a NumPy scalar wrapping where compiled code widens
    proc = subprocess.run([sys.executable, "-W", "error::RuntimeWarning", "-c", SCRIPT],
                          env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["hands"] == 240
    assert got["ordered"] == ordered_digests()
    # the subprocess ran the parallel driver (prange as range), this one the serial one
    assert got["matches"] == match_digests(threads=1)
