"""The Disruptor effect's counts (games.new_order.game._effect_counts) against a plain
loop over the drafts: the counts are what every drafter-lift estimate is made of, so the
vectorised version (bincount over one flat index, categorical codes) must equal the
obvious one exactly."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from nop_sim.games.new_order.game import _effect_counts
from nop_sim.results.store import load_tables
from nop_sim.run.runner import run_scenario
from nop_sim.run.scenario import load_scenario


def _by_loop(seats, drafts, chunks):
    """Row by row: each seat's cards drafted in its match, the stratum (cards drafted,
    capped at the 99th percentile), per chunk."""
    where = {(int(c), int(m), int(s)): i for i, (c, m, s) in
             enumerate(zip(seats["chunk"], seats["match"], seats["seat"], strict=True))}
    count = np.zeros(len(seats))
    rows = []
    for c, m, s, card, k in zip(drafts["chunk"], drafts["match"], drafts["seat"],
                                drafts["card"], drafts["count"], strict=True):
        i = where.get((int(c), int(m), int(s)))
        if i is not None:
            count[i] += k
            rows.append((i, str(card)))
    strata = np.minimum(count.astype(np.int64), int(np.percentile(count, 99)))
    k = int(strata.max()) + 1
    cards = list(dict.fromkeys(card for _, card in rows))
    win = (seats["place"].to_numpy() == 1)
    chunk = np.searchsorted(chunks, seats["chunk"].to_numpy())
    total, wins = np.zeros((len(chunks), k)), np.zeros((len(chunks), k))
    for i in range(len(seats)):
        total[chunk[i], strata[i]] += 1
        wins[chunk[i], strata[i]] += win[i]
    drafted = np.zeros((len(chunks), len(cards), k))
    drafted_wins = np.zeros_like(drafted)
    for i, card in rows:
        drafted[chunk[i], cards.index(card), strata[i]] += 1
        drafted_wins[chunk[i], cards.index(card), strata[i]] += win[i]
    return cards, drafted, drafted_wins, total, wins


def test_effect_counts_equal_a_loop_over_the_drafts(tmp_path):
    scn = load_scenario(Path("scenarios/baseline.toml"),
                        ["run.matches=300", "run.chunk=50", "run.log_sample=0"])
    run_scenario(scn, tmp_path / "run", workers=1)
    t = load_tables(tmp_path / "run")
    seats, drafts = t["seats"], t["drafts"]
    chunks = np.unique(seats["chunk"].to_numpy())
    fast = _effect_counts(seats, drafts, chunks)
    slow = _by_loop(seats, drafts, chunks)
    assert fast[0] == slow[0] and len(fast[0]) > 5
    for a, b in zip(fast[1:], slow[1:], strict=True):
        assert a.shape == b.shape and np.array_equal(a, b)
    assert fast[1].sum() == len(drafts)   # every draft row counted once
