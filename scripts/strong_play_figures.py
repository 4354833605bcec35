"""The figures issue #12 asks of a trained agent, as JSON on stdout.

    python scripts/strong_play_figures.py scenarios/baseline.toml reports/baseline-train

1. ``vs_balanced``: the strong agent's win rate from every seat against three
   ``balanced`` seats (Wilson 95% intervals), ``--matches`` per seat.
2. ``random_search``: the issue's "Why" experiment turned on the strong field:
   30 random candidates (uniform over the search space), 1,500 matches each
   from seat 0 against three strong seats on the same seeds; the best one is
   then checked on fresh seeds against the strong agent in the same seat.
3. ``throughput``: matches and hands per second of training's batches
   (:func:`nop_sim.train.duel`) against :func:`nop_sim.engine.play_matches` with
   the same threads and agents, medians of ``--repeats`` runs in this process.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import numpy as np

from nop_sim import types as T
from nop_sim.agents import agent_row, agent_table, load_agent_file
from nop_sim.engine import play_field, play_matches
from nop_sim.scenario import load_scenario
from nop_sim.stats import mean_interval, wilson_interval
from nop_sim.train import Engine, duel, match_states, space_for


def vs_balanced(settings, strong, n, seed):
    out = []
    players = settings.players
    for seat in range(players):
        specs = ["balanced"] * players
        specs[seat] = dict(zip(T.AGENT_PARAM_NAMES, strong.tolist(), strict=True))
        r = play_matches(settings, specs, n, seed + seat)
        k = int((r.player[:, seat, T.PL_PLACE] == 1).sum())
        lo, hi = wilson_interval(k, n)
        out.append({"seat": seat, "matches": n, "win_rate": k / n, "low": float(lo),
                    "high": float(hi)})
    return out


def random_search(settings, strong, n_cand, n, seed):
    players = settings.players
    space = space_for(settings)
    rng = np.random.default_rng(seed)
    cands = space.to_rows(rng.random((n_cand, space.dim)), strong)
    table = np.repeat(strong[None, None, :], players, axis=1)  # (1, players, P)
    tables = np.concatenate([table.copy() for _ in range(n_cand + 1)])
    tables[:n_cand, 0] = cands  # candidate c in seat 0; the last table: strong everywhere
    states = match_states((seed, 1), n)
    table_of = np.repeat(np.arange(n_cand + 1), n)
    r = play_field(settings, tables, table_of, np.tile(states, (n_cand + 1, 1)))
    won = (r.player[:, 0, T.PL_PLACE] == 1).reshape(n_cand + 1, n)
    rates = won.mean(axis=1)
    best = int(np.argmax(rates[:n_cand]))
    # the winner, checked on fresh seeds against the strong agent in seat 0
    fresh = match_states((seed, 2), 4 * n)
    chk = play_field(settings, tables[[best, n_cand]], np.repeat([0, 1], 4 * n),
                     np.tile(fresh, (2, 1)))
    cw = (chk.player[:, 0, T.PL_PLACE] == 1).reshape(2, 4 * n)
    gain = mean_interval(cw[0].astype(float) - cw[1])
    return {"candidates": n_cand, "matches_each": n, "strong_win_rate_seat0": float(rates[-1]),
            "best_win_rate": float(rates[best]), "mean_candidate_win_rate":
            float(rates[:n_cand].mean()),
            "best_checked": {"matches": 4 * n, "win_rate": float(cw[0].mean()),
                             "strong_win_rate": float(cw[1].mean()),
                             "gain_points": 100 * gain["mean"],
                             "gain_low": 100 * gain["ci_low"], "gain_high": 100 * gain["ci_high"]}}


def throughput(settings, strong, n, repeats, threads):
    players = settings.players
    field = np.repeat(strong[None, None, :], players, axis=1)
    eng = Engine(threads=threads)
    rows = []
    for rep in range(repeats):
        t = time.perf_counter()
        d = duel(eng, settings, field, strong[None, :], n // 2, (rep, 5))
        t_duel = time.perf_counter() - t
        t = time.perf_counter()
        r = play_matches(settings, agent_table([dict(zip(T.AGENT_PARAM_NAMES, strong.tolist(),
                                                          strict=True))] * players, players),
                         d.matches, 1000 + rep, threads=threads)
        t_pm = time.perf_counter() - t
        rows.append({"train_matches_s": d.matches / t_duel, "train_hands_s": d.hand_total / t_duel,
                     "engine_matches_s": r.n_matches / t_pm,
                     "engine_hands_s": r.count("hands") / t_pm})
    med = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
    med["ratio_hands"] = med["train_hands_s"] / med["engine_hands_s"]
    med["repeats"] = repeats
    med["threads"] = threads
    return med


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("scenario")
    ap.add_argument("train_dir")
    ap.add_argument("--matches", type=int, default=2000, help="per seat against balanced")
    ap.add_argument("--candidates", type=int, default=30)
    ap.add_argument("--candidate-matches", type=int, default=1500)
    ap.add_argument("--throughput-matches", type=int, default=8000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--seed", type=int, default=12)
    ap.add_argument("--skip", nargs="*", default=[], choices=["balanced", "random", "throughput"])
    a = ap.parse_args()
    scn = load_scenario(a.scenario)
    settings = scn.settings_at(scn.points()[0])
    params, training = load_agent_file(Path(a.train_dir) / "strong.toml")
    strong = agent_row(params)
    out = {"scenario": scn.name, "training": training}
    if "balanced" not in a.skip:
        out["vs_balanced"] = vs_balanced(settings, strong, a.matches, a.seed)
    if "random" not in a.skip:
        out["random_search"] = random_search(settings, strong, a.candidates,
                                             a.candidate_matches, a.seed)
    if "throughput" not in a.skip:
        import numba

        threads = a.threads or numba.config.NUMBA_NUM_THREADS
        out["throughput"] = throughput(settings, strong, a.throughput_matches, a.repeats,
                                       threads)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
