"""``nop-sim train --method cfr``: a field learned by regret minimisation, in a folder.

The game's :class:`~nop_sim.games.registry.RegretTrainer` does the learning (Kuhn
poker: full-width Discounted CFR over the true infosets, :mod:`nop_sim.games.kuhn.cfr`);
this module keeps the folder: a checkpoint after every slice of iterations
(``regret_state.npz`` and ``state.json``), so that ``--resume`` goes on bit-identically
after a crash or with more iterations; the field as ``strong.toml`` (the average
strategy, one row of weight 1, a seat like any other: ``@strong.toml``) with the game's
own files beside it (Kuhn: ``policy.csv``); ``curve.csv``, the field's exact
exploitability after each slice where the game computes it (``iteration, seconds,
nash_conv, gain_per_seat``); and ``manifest.json``.

No random number is drawn by a full-width trainer, so the result depends on the
iterations alone: the same on any number of workers.
"""

from __future__ import annotations

import datetime as dt
import io
import json
import textwrap
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from nop_sim.games.registry import policy_of
from nop_sim.reporting import atomic_write
from nop_sim.run.provenance import versions
from nop_sim.studies.train.errors import TrainError
from nop_sim.studies.train.trainer import rules_key, training_checkpoint

__all__ = ["RegretResult", "regret_folder"]

STATE_VERSION = 1
TABLE_FILE = "strong_table.npz"   # a field's betting table, beside strong.toml
SLICES = 20          # checkpoints per training (at most): a crash loses a twentieth


@dataclass
class RegretResult:
    """What ``train --method cfr`` prints: the field's row, the iterations done, the
    seconds they took (every session of the training), the abstraction's size, and the
    exact figures where the game has them (else None)."""

    row: np.ndarray
    iterations: int
    seconds: float
    method: str
    infosets: int
    actions: int
    exact: dict | None
    curve: list[dict]
    updates: int = 0          # information-set updates (sampled decisions, or full width)


def _identity(scn, settings) -> dict:
    return {"fingerprint": scn.fingerprint(), "rules": rules_key(settings), "method": "cfr",
            "seed": scn.seed, "version": STATE_VERSION,
            # [train] is not in the fingerprint (a run does not play it): a trainer's is
            **({"train": scn.train.identity()} if hasattr(scn.train, "identity") else {})}


def _checkpoint(out: Path, identity: dict, resume: bool, iterations: int) -> dict | None:
    """The saved state to go on from (None: start afresh); :class:`TrainError` where
    ``out`` cannot take this training."""
    saved = training_checkpoint(out, identity)
    if saved is None:
        return None
    done, goal = saved.get("iteration", 0), saved.get("goal", 0)
    if not resume and done < goal:
        raise TrainError(f"{out} holds an unfinished training ({done:,} of {goal:,} "
                         f"iterations): add --resume to finish it, or train into another --out")
    if not resume and iterations > goal:
        raise TrainError(f"{out} holds a finished training of {goal:,} iterations: add "
                         f"--resume to go on to {iterations:,}, or train into another --out")
    try:
        with np.load(out / "regret_state.npz") as z:
            saved["_arrays"] = {k: z[k] for k in z.files}
    except (OSError, ValueError) as exc:
        raise TrainError(f"{out / 'regret_state.npz'}: the checkpoint cannot be read ({exc}); "
                         f"remove the folder and train again") from None
    return saved


def regret_folder(scn, out: Path, iterations: int | None = None, *, resume: bool = False,
                  threads: int | None = None,
                  progress: Callable[[int, int], None] | None = None) -> RegretResult:
    """Train ``scn``'s rules by the game's regret trainer into ``out`` (see the module
    docstring); ``progress(done, total)`` in iterations; ``threads``: the engine's
    threads where the trainer plays matches (the result does not depend on them)."""
    out = Path(out)
    if len(scn.points()) > 1:
        raise ValueError(f"{scn.source}: has a [sweep] of {len(scn.points())} points; train "
                         f"one rule set (remove [sweep])")
    settings = scn.settings_at(scn.points()[0])
    policy = policy_of(settings)
    trainer = policy.regret
    if trainer is None:
        raise TrainError(f"{scn.source}: {scn.kind} has no regret-minimisation trainer yet "
                         f"(--method cfr); train it with --method psro")
    goal = trainer.iterations if iterations is None else int(iterations)
    identity = _identity(scn, settings)
    saved = _checkpoint(out, identity, resume, goal)
    out.mkdir(parents=True, exist_ok=True)
    now = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    started = saved.get("started", now) if saved else now
    seconds = float(saved.get("seconds", 0.0)) if saved else 0.0
    curve = list(saved.get("curve", [])) if saved else []
    arrays = saved["_arrays"] if saved else dict(trainer.new(settings, scn.train))
    first = trainer.done(arrays)
    goal = max(goal, first)
    step = max(1, -(-goal // SLICES))

    def exact_of(row) -> dict | None:
        if policy.exact_exploitability is None:
            return None
        return {k: float(v) for k, v in
                policy.exact_exploitability(settings, row[None], np.ones(1)).items()}

    def save() -> None:
        buf = io.BytesIO()
        np.savez(buf, **arrays)
        atomic_write(out / "regret_state.npz", buf.getvalue())
        atomic_write(out / "state.json", json.dumps(
            {"identity": identity, "started": started, "iteration": trainer.done(arrays),
             "goal": goal, "seconds": seconds, "curve": curve}, indent=1))

    done = first
    while done < goal:
        t0 = time.perf_counter()
        target = min(goal, (done // step + 1) * step)
        base = done
        arrays = dict(trainer.run(settings, scn.train, arrays, target,
                                  None if progress is None else
                                  (lambda d, b=base: progress(b - first + d, goal - first)),
                                  seed=scn.seed, threads=threads))
        seconds += time.perf_counter() - t0
        done = trainer.done(arrays)
        figures = exact_of(trainer.row(arrays))
        point = {"iteration": done, "seconds": round(seconds, 3),
                 **({k: figures[k] for k in ("nash_conv", "gain_per_seat")}
                    if figures else {})}
        if figures is None and trainer.bound is not None:
            # no exact figure: a small best response against the average so far, a lower
            # bound on what a deviation gains (its seconds are not the training's)
            b = trainer.bound(settings, scn.train, arrays, seed=scn.seed + done,
                              threads=threads)
            point.update({k: round(float(policy.scale * b[k]), 4) for k in ("gain", "low", "high")},
                         bound_matches=int(b["matches"]))
        curve.append(point)
        save()
    if saved is not None and done == first:  # nothing more to do: the files are rewritten
        save()
    row = np.asarray(trainer.row(arrays), float)
    exact = exact_of(row)
    infosets, actions = trainer.size(settings, scn.train)
    updates = (trainer.decisions(arrays) if trainer.decisions is not None
               else done * infosets)
    # the betting table the field's seats play, where the trainer learns one (New Order)
    betting = (None if trainer.betting is None
               else trainer.betting(arrays, scn.train, out / TABLE_FILE))
    _write_field(out, scn, settings, policy, trainer, row, done, seconds, exact,
                 infosets, actions, betting)
    if curve:
        cols = list(curve[0])
        atomic_write(out / "curve.csv", ",".join(cols) + "\n" + "".join(
            ",".join(repr(c[k]) if isinstance(c[k], float) else str(c[k]) for k in cols) + "\n"
            for c in curve))
    atomic_write(out / "manifest.json", json.dumps({
        "kind": "train", "method": "cfr",
        "scenario": {"name": scn.name, "source": scn.source, "kind": scn.kind,
                     "text": scn.text, "fingerprint": scn.fingerprint()},
        "trainer": trainer.method, "iterations": done,
        "abstraction": {"infosets": infosets, "actions": actions,
                        **({"describe": betting, "train": scn.train.describe()}
                           if betting is not None else {})},
        "exact": exact, "throughput": {"seconds": seconds, "updates": int(updates),
                                       "updates_per_s": (updates / seconds
                                                         if seconds > 0 else None)},
        "versions": versions(), "started": started,
        "ended": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), "status": "finished",
    }, indent=1, default=float))
    return RegretResult(row=row, iterations=done, seconds=seconds, method=trainer.method,
                        infosets=infosets, actions=actions, exact=exact, curve=curve,
                        updates=int(updates))


def _write_field(out, scn, settings, policy, trainer, row, done, seconds, exact,
                 infosets, actions, betting=None) -> None:
    """strong.toml (one row of weight 1), the betting table it names where the trainer
    learns one (``strong_table.npz``), and the game's own files of the field."""
    training = {
        "scenario": scn.name, "fingerprint": scn.fingerprint(), "rules": rules_key(settings),
        "method": "cfr", "trainer": trainer.method, "iterations": int(done),
        "infosets": int(infosets), "actions": int(actions), "seconds": round(seconds, 2),
        **({"unit": policy.unit, "unit_digits": policy.digits}
           if (policy.unit, policy.scale) != ("points", 100.0) else {}),
        **{f"exact_{k}": round(float(v), 6) for k, v in (exact or {}).items()},
    }
    exactly = "" if not exact else (
        f"Exactly: NashConv {exact['nash_conv']:.6f} {policy.unit} per hand; the best "
        f"single-seat deviation gains {exact['gain_per_seat']:.6f} {policy.unit} per hand.\n")
    if betting is None:
        what = (f"the average strategy of {done:,} iterations of {trainer.method} "
                f"({infosets} information sets, {actions} actions each), one row every "
                f"seat plays.")
        extra = {}
    else:  # the row plays what the table does not: the betting is the table's
        training["base"] = scn.train.base
        what = (f"every seat bets by the average strategy of {done:,} iterations of "
                f"{trainer.method}, in {TABLE_FILE} ({betting}); the row below "
                f"({scn.train.base}) plays every other decision.")
        extra = {"betting": {"table": TABLE_FILE}}
    policy.write_agent_file(
        out / "strong.toml", [row], [1.0], training,
        textwrap.fill(f"The strong field for {scn.name}, written by nop-sim train --method "
                      f"cfr: {what}", 86) + "\n"
        f"{exactly}"
        f"Use it as a seat: [seats] all = \"@<path of this file>\", or\n"
        f"nop-sim run SCENARIO --set seats.all=@<path of this file>", **extra)
    if policy.write_extra is not None:  # the game's own files of the field (Kuhn: policy.csv)
        policy.write_extra(out, row[None], np.ones(1))
