"""The Disruptor effect's counts (games.new_order.game._effect_counts) against a plain
loop over the drafts: the counts are what every drafter-lift estimate is made of, so the
vectorised version (bincount over one flat index, categorical codes) must equal the
obvious one exactly."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pandas as pd

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


def test_effect_counts_find_seat_rows_by_key_where_match_ids_repeat_or_are_sparse(tmp_path):
    """A point's match ids are dense and unique: a lookup array finds each draft's seat row.
    Tables whose ``(match, seat)`` repeats (two points, here the same run twice under other
    chunk numbers) or whose ids are sparse take the ``(chunk, match, seat)`` keys; both ways
    give the loop's counts."""
    scn = load_scenario(Path("scenarios/baseline.toml"),
                        ["run.matches=120", "run.chunk=40", "run.log_sample=0"])
    run_scenario(scn, tmp_path / "run", workers=1)
    t = load_tables(tmp_path / "run")
    seats, drafts = t["seats"], t["drafts"]
    twice_s = pd.concat([seats, seats.assign(chunk=seats["chunk"] + 1000)], ignore_index=True)
    twice_d = pd.concat([drafts, drafts.assign(chunk=drafts["chunk"] + 1000)],
                        ignore_index=True)
    sparse_s = seats.assign(match=seats["match"] * 10_000)
    sparse_d = drafts.assign(match=drafts["match"] * 10_000)
    for s, d in ((twice_s, twice_d), (sparse_s, sparse_d), (seats, drafts)):
        chunks = np.unique(s["chunk"].to_numpy())
        fast, slow = _effect_counts(s, d, chunks), _by_loop(s, d, chunks)
        assert fast[0] == slow[0]
        for a, b in zip(fast[1:], slow[1:], strict=True):
            assert a.shape == b.shape and np.array_equal(a, b)
        assert fast[1].sum() == len(d)


def test_the_summary_reads_only_its_columns_and_says_the_same(tmp_path, monkeypatch):
    """summary.md reads the columns the game names (Game.summary_columns): the same bytes as
    reading every column, so no column it needs is left out."""
    from nop_sim.games import get_game
    from nop_sim.results.summary import write_summary

    scn = load_scenario(Path("scenarios/baseline.toml"),
                        ["run.matches=200", "run.chunk=50", "run.log_sample=0"])
    run_scenario(scn, tmp_path / "run", workers=1)
    game = get_game(scn.kind)
    assert set(game.summary_columns) == {"matches", "seats", "drafts"}
    projected = write_summary(tmp_path / "run").read_bytes()
    monkeypatch.setattr("nop_sim.results.summary.run_game",
                        lambda out: dataclasses.replace(game, summary_columns={}))
    assert write_summary(tmp_path / "run").read_bytes() == projected
