"""Commands of strong play: ``train`` a field, ``value`` each mechanic against it,
``exploit`` it (fresh best-response checks)."""

from __future__ import annotations

import contextlib
from pathlib import Path

import click
import numpy as np

from nop_sim.cli.common import (
    _holding,
    _load,
    _mechanics,
    _Progress,
    _train_options,
    _trainable,
    command,
)

# Imports inside functions: each command imports its study, the runner or the
# kernels (numba) where it runs, so `nop-sim --help` and a usage error answer
# in a fraction of a second; only the core's light modules are imported here.


@command("train")
@click.argument("scenario", type=click.Path(path_type=Path))
@click.option("--out", "out_dir", type=click.Path(path_type=Path), default=None,
              help="Training folder [default: reports/<scenario file name>-train; with the "
                   "game's other --method, reports/<scenario file name>-<method>].")
@click.option("--epsilon", type=click.FloatRange(0, 100), default=None,
              help="Stop when the best deviation found gains less than this much, with 95% "
                   "confidence, in the game's unit [default: 1 win-rate point; Kuhn poker: "
                   "0.01 chips per hand].")
@click.option("--resume", is_flag=True, help="Finish a stopped training, keeping its rounds, "
                                            "or go on with a finished one given a larger "
                                            "--budget-matches or a smaller --epsilon (with "
                                            "--seeds: each training, then the pool). A "
                                            "finished one given more budget first admits "
                                            "the deviations nop-sim exploit kept against "
                                            "its field (deviations.json) to its population. "
                                            "A pool's field (--out OUT/pooled) goes on "
                                            "with its own seed; --seeds K --resume then "
                                            "writes OUT's fields from it.")
@click.option("--no-report", is_flag=True, help="Write strong.toml and the tables only.")
@click.option("--seeds", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Train this many times, with seeds --seed, --seed + 1, ..., each a full "
                   "training of --budget-matches into OUT/seed-<s>/, and pool them: OUT's "
                   "strong.toml is the field of their pooled population, half-a/ and half-b/ "
                   "the fields of each half of the seeds (two fields that share no seed); "
                   "each field is then hardened by PSRO rounds from the pool, one training's "
                   "budget for the pooled field (in pooled/) and half of one for each half, "
                   "with seeds --seed + K, + K + 1, + K + 2.")
@click.option("--method", type=click.Choice(["psro", "cfr"]), default=None,
              help="psro: a mixture over a population of searched policies (every game with "
                   "a policy space); cfr: counterfactual regret minimisation, the average "
                   "strategy over the game's information sets (Kuhn poker: full-width "
                   "Discounted CFR over the true infosets; New Order: outcome-sampling MCCFR "
                   "of the betting over [train]'s abstraction). [default: the game's stronger "
                   "trainer by the figures: cfr for Kuhn poker, psro elsewhere]")
@click.option("--iterations", type=click.IntRange(1, 10**9), default=None,
              help="--method cfr: iterations to run [default: the game's, Kuhn poker 1,000, "
                   "New Order 300].")
@_train_options
def train_cmd(scenario, out_dir, epsilon, resume, no_report, seeds, method, iterations, budget,
              seed, workers, scheduler, overrides, quiet):
    """Train a strong field for SCENARIO's rules: a mixture over a population of policies.

    PSRO: the population starts with the scenario's seats; each round a
    best-response search (many starts over the whole policy box, CMA-ES
    restarts with a growing population, racing on common seeds) looks for
    the single-seat deviation that gains most against the field, a fresh
    check measures its gain, and the deviation joins the population; the
    field is the mixture that solves the population's meta-game. Training
    stops when the gain is below --epsilon (win-rate points, or the game's unit:
    Kuhn poker's chips per hand) with 95% confidence, or
    when the budget is spent; a final search with a new seed then measures
    the field: a deviation gains at least that much (a lower bound, stated
    with the search's size). The mixture goes to strong.toml, usable as a
    seat: [seats] all = "@reports/baseline-train/strong.toml".

    With --seeds K, K trainings (seeds --seed to --seed + K - 1) are pooled:
    every distinct policy of their populations in one meta-game, its table
    their tables and a tenth of their budget played anew, solved for the
    mixture of least regret found (the rule each training's field is solved
    by). Each half of the seeds is solved the same way on its own trainings'
    policies. Each of the three fields is then hardened by PSRO rounds that
    start from it, with a population of every policy of its trainings: one
    training's budget for the pooled field (pooled/, seed --seed + K), half
    of one for each half (half-a/ and half-b/, seeds --seed + K + 1 and
    + K + 2), each ending with the trainer's final search, which states its
    exploitability. The halves are fields nop-sim value and exploit take as
    --strong.

    --method cfr (New Order): the betting by outcome-sampling MCCFR over an
    abstraction the scenario's [train] table sets (strength_buckets 10,
    odds_buckets 3, stack_buckets 3, bet_sizes [0.5, 1.0]: 540 information
    sets x 4 actions), every other decision by its base row (base, a preset
    or "@agent file"; matches a seat an iteration, exploration; see
    docs/scenarios.md). strong.toml names the table it writes beside it,
    strong_table.npz.

    \b
    Examples:
      nop-sim train scenarios/baseline.toml
      nop-sim train scenarios/baseline.toml --seeds 4 --budget-matches 200000
      nop-sim train scenarios/baseline.toml --budget-matches 2000000 --epsilon 2
      nop-sim train scenarios/baseline.toml --resume          # after a crash or Ctrl-C
      nop-sim train scenarios/baseline.toml --budget-matches 4000000 --resume   # go on
      nop-sim exploit scenarios/baseline.toml --strong reports/baseline-train --checks 3
      nop-sim train scenarios/baseline.toml --budget-matches 8000000 --resume   # answer them
      nop-sim run scenarios/baseline.toml --set seats.all=@reports/baseline-train/strong.toml
      nop-sim train scenarios/kuhn3.toml      # Kuhn poker trains by CFR: reports/kuhn3-train
      nop-sim train scenarios/kuhn3.toml --method psro      # by PSRO: reports/kuhn3-psro
      nop-sim train scenarios/baseline.toml --method cfr --iterations 2000   # reports/baseline-cfr
    """
    from nop_sim.studies.train import TrainConfig, train_folder
    from nop_sim.studies.train.pooled import field_psro_seed
    from nop_sim.studies.train.report import write_train_report

    scn = _load(scenario, overrides, None, seed)
    _trainable(scn, "train")
    regret = scn.game_type.policy.regret
    default = "cfr" if regret is not None and regret.default else "psro"
    asked, method = method, method or default
    # the game's own trainer writes reports/<scenario>-train, the other -<method>
    out_dir = out_dir or Path("reports") / (
        f"{scn.name}-train" if method == default else f"{scn.name}-{method}")
    if method == "cfr":
        return _train_regret(scn, out_dir, iterations, resume, seeds, budget, epsilon, quiet,
                             no_report, asked is None, workers, scheduler)
    if iterations is not None:
        raise click.BadParameter("counts CFR iterations: give it with --method cfr "
                                 "(PSRO's budget is --budget-matches)",
                                 param_hint="--iterations")
    # a pooled training's field PSRO (OUT/pooled, half-a, half-b) goes on with its own seed,
    # drawn after the trainings', not the scenario's
    own = field_psro_seed(out_dir) if seed is None and seeds == 1 else None
    cfg = TrainConfig(budget=budget or 1_000_000, seed=scn.seed if own is None else own,
                      epsilon=scn.game_type.policy.epsilon if epsilon is None else epsilon)
    out = out_dir
    if seeds > 1:
        return _train_pool(scenario, overrides, scn, seeds, out, cfg, workers, scheduler,
                           resume, no_report, quiet)
    progress = _Progress(quiet, "matches", label="matches")
    with _holding(out):
        with contextlib.closing(progress):
            result = train_folder(scn, out, cfg, threads=workers, scheduler=scheduler,
                                  resume=resume, progress=lambda d, t: progress(d, t, d))
        report = None if no_report else write_train_report(out)
    _say_trained(scn, result, out, report)


def _say_trained(scn, result, out: Path, report) -> None:
    """A PSRO training's lines: rounds, the field, its exploitability, where it went."""
    state = "converged" if result.converged else "budget spent"
    rate = result.matches / result.seconds if result.seconds > 0 else 0.0
    click.echo(f"{scn.name}: {result.rounds} rounds ({state}), {result.matches:,} matches in "
               f"{result.seconds:.1f} s ({rate:,.0f} matches/s)")
    click.echo(f"strong field: a mixture of {len(result.weights)} of {result.population} "
               f"policies (weights " + ", ".join(f"{w:.2f}" for w in result.weights) + "): "
               f"{result.kept}")
    click.echo(f"exploitability: {result.statement}"
               + (f"; re-scored on {result.check_matches:,} held-out matches, as precise as "
                  f"{result.effective_matches:,.0f} plain"
                  if result.check_matches and result.effective_matches is not None else ""))
    if result.exact:  # the game knows the field's figures exactly (Kuhn poker)
        say = result.policy.amount
        click.echo(f"exactly: NashConv {say(result.exact['nash_conv'] / result.policy.scale)} "
                   f"per hand; the best single-seat deviation gains "
                   f"{say(result.exact['gain_per_seat'] / result.policy.scale)} per hand")
    bounds = result.space.at_bounds(result.row)
    if bounds:
        shown = [f"{k} ({v})" for k, v in bounds.items()]
        click.echo("at the edge of the legal range: " + ", ".join(shown[:8])
                   + (f" and {len(shown) - 8} more" if len(shown) > 8 else ""))
    click.echo(f"strong.toml:  {out / 'strong.toml'}")
    if report:
        click.echo(f"report:       {report}")


def _train_regret(scn, out_dir, iterations, resume, seeds, budget, epsilon, quiet,
                  no_report, by_default=False, workers=None, scheduler=None):
    """``train --method cfr``: the game's regret trainer into a folder
    (:mod:`nop_sim.studies.train.regret`)."""
    from nop_sim.studies.train.regret import regret_folder
    from nop_sim.studies.train.report import write_train_report

    for given, name in ((seeds > 1, "--seeds"), (budget is not None, "--budget-matches"),
                        (epsilon is not None, "--epsilon"),
                        (scheduler is not None, "--scheduler")):
        if given:
            raise click.BadParameter(
                "is PSRO's; --method cfr " + ("plays on this machine's --workers threads"
                                              if name == "--scheduler" else
                                              "runs --iterations") + (
                    f" ({scn.kind} trains by cfr unless --method psro is given)"
                    if by_default else ""), param_hint=name)
    if scn.game_type.policy.regret is None:
        raise click.UsageError(f"{scn.source}: {scn.kind} has no regret-minimisation "
                               f"trainer yet; train it with --method psro (the default)")
    out = out_dir
    progress = _Progress(quiet, "iterations", label="CFR iterations")
    with _holding(out):
        with contextlib.closing(progress):
            result = regret_folder(scn, out, iterations, resume=resume, threads=workers,
                                   progress=lambda d, t: progress(d, t, d))
        report = None if no_report else write_train_report(out)
    rate = result.iterations / result.seconds if result.seconds > 0 else 0.0
    updates = result.updates / result.seconds if result.seconds > 0 else 0.0
    click.echo(f"{scn.name}: {result.iterations:,} iterations of {result.method} in "
               f"{result.seconds:.1f} s ({rate:,.1f} iterations/s, "
               f"{updates:,.0f} information-set updates/s); abstraction: "
               f"{result.infosets} information sets, {result.actions} actions each")
    if result.exact:  # the game knows the field's figures exactly (Kuhn poker)
        unit = scn.game_type.policy.unit
        click.echo(f"exactly: NashConv {result.exact['nash_conv']:.6f} {unit} per hand; the "
                   f"best single-seat deviation gains {result.exact['gain_per_seat']:.6f} "
                   f"{unit} per hand")
    click.echo(f"strong.toml:  {out / 'strong.toml'}")
    if (out / "curve.csv").exists():
        click.echo(f"curve:        {out / 'curve.csv'}")
    if report:
        click.echo(f"report:       {report}")


def _train_pool(scenario, overrides, scn, seeds, out, cfg, workers, scheduler, resume,
                no_report, quiet):
    """``train --seeds K``: K trainings pooled (:mod:`nop_sim.studies.train.pooled`)."""
    from nop_sim.studies.train.pooled import pool_folder
    from nop_sim.studies.train.report import write_train_report

    if scn.seed + seeds + 2 > 2**63 - 1:  # the trainings' seeds, then their fields' PSROs'
        raise click.BadParameter(f"seeds {scn.seed} to {scn.seed + seeds + 2} (the trainings' "
                                 f"and their fields' PSROs'): the last is above 2**63 - 1; "
                                 f"give a smaller --seed", param_hint="--seeds")
    scns = [_load(scenario, overrides, None, scn.seed + i) for i in range(seeds)]
    progress = _Progress(quiet, "matches", label=f"{seeds} trainings and their pool")
    with _holding(out):
        with contextlib.closing(progress):
            r = pool_folder(scns, out, cfg, threads=workers, scheduler=scheduler,
                            resume=resume, progress=lambda d, t: progress(d, t, d))
        reports = [] if no_report else [write_train_report(f)
                                         for f in [*r.trained, *r.hardened, out]]
    p = r.policy
    rate = r.matches / r.seconds if r.seconds > 0 else 0.0
    click.echo(f"{scn.name}: a field pooled from {seeds} trainings (seeds {r.seeds[0]} to "
               f"{r.seeds[-1]}), {r.matches:,} matches in {r.seconds:.1f} s "
               f"({rate:,.0f} matches/s); {len(r.trained)} trained now, "
               f"{seeds - len(r.trained)} read; {len(r.hardened)} of 3 fields' PSROs trained "
               f"now")
    d = p.digits
    for s in r.sources:
        e = (f"exploitability at training {s['exploitability']:+.{d}f} {p.unit} (95% "
             f"{s['exploitability_low']:+.{d}f} to {s['exploitability_high']:+.{d}f})"
             if "exploitability" in s else "exploitability unknown")
        click.echo(f"  seed {s['seed']}: a mixture of {s['mixture']} of {s['population']} "
                   f"policies; {e}"
                   + (f"; an independent check: at least {s['checked_exploitability']:.{d}f}"
                      if "checked_exploitability" in s else ""))
    h = r.harden
    click.echo(f"pooled field: a mixture of {len(r.weights)} (weights "
               + ", ".join(f"{w:.2f}" for w in r.weights) + f"), hardened by "
               f"{h['rounds']} PSRO round(s) (seed {h['seed']}, {h['matches']:,} matches) from "
               f"the pool's solution over {r.meta_members} of its {r.population} distinct "
               f"policies")
    click.echo(f"exploitability: {r.statement}")
    if r.exact:  # the game knows the field's figures exactly (Kuhn poker)
        click.echo(f"exactly: NashConv {p.amount(r.exact['nash_conv'] / p.scale)} per hand; "
                   f"the best single-seat deviation gains "
                   f"{p.amount(r.exact['gain_per_seat'] / p.scale)} per hand (the pool's "
                   f"solution it started from: NashConv "
                   f"{p.amount(h['exact_start']['nash_conv'] / p.scale)})")
    for name, h in r.halves.items():
        click.echo(f"{name}: seeds {', '.join(map(str, h['seeds']))}, a mixture of "
                   f"{len(h['weights'])} (weights "
                   + ", ".join(f"{w:.2f}" for w in h["weights"]) + f"), hardened by "
                   f"{h['rounds']} PSRO round(s) (seed {h['seed']}); its exploitability: "
                   f"{h['statement']}"
                   + (f"; exactly: NashConv {p.amount(h['exact']['nash_conv'] / p.scale)}"
                      if h["exact"] else ""))
    click.echo(f"strong.toml:  {r.path}")
    for name, h in r.halves.items():
        click.echo(f"{name + ':':<13} {h['path']}")
    click.echo(f"trainings:    {', '.join(str(f) for f in r.folders)}")
    psros = [r.harden, *r.halves.values()]
    click.echo(f"PSROs:        {', '.join(str(h['folder']) for h in psros)}")
    if reports:
        click.echo(f"report:       {reports[-1]}")


@command("exploit")
@click.argument("scenario", type=click.Path(path_type=Path))
@click.option("--strong", "strong_dir", type=click.Path(path_type=Path), required=True,
              help="A training folder (nop-sim train's --out) holding strong.toml.")
@click.option("--checks", type=click.IntRange(min=1), default=1, show_default=True,
              help="Independent checks, each a search of --budget-matches with a seed of its "
                   "own (--seed, --seed + 1, ...); the largest held-out gain is stated.")
@click.option("--json", "json_out", type=click.Path(path_type=Path, dir_okay=False),
              default=None, help="Also write every check's figures here, for scripts.")
@_train_options
def exploit_cmd(scenario, strong_dir, checks, json_out, budget, seed, workers, scheduler,
                overrides, quiet):
    """Check a strong field: fresh best-response searches against it.

    Each check is the trainer's final search (a free search from many starts
    over the whole policy box, CMA-ES restarts and racing on duplicate deals)
    with its own seed and the budget given; its pick is then re-scored on
    held-out deals no part of the search saw, and that held-out gain, with
    its 95% interval, is the figure stated (the search's own best reading is
    the maximum of many noisy candidates and reads high: it is never stated).
    It is a lower bound: a larger search may find more. Each line also says
    how many plain matches would give the same interval.

    Checks with other seeds find other deviations and can differ by several
    points: --checks K runs K of them (seeds --seed, --seed + 1, ...; check i
    alone is --seed + i) and states the largest. When that is more than
    strong.toml claims, it is written into the file's [training] table, so
    every run that seats the field and the training's own report state the
    largest known bound. A deviation that beats the field is kept in the
    folder's deviations.json, where nop-sim value's searches start from it.

    \b
    Example:
      nop-sim train scenarios/baseline.toml --budget-matches 2000000
      nop-sim exploit scenarios/baseline.toml --strong reports/baseline-train \\
          --seed 7 --budget-matches 2000000 --checks 3 --json checks.json
    """
    import dataclasses

    from nop_sim.studies.train.checks import checks_json, largest, record_largest, run_checks
    from nop_sim.studies.train.value import record_checks, record_found

    scn = _load(scenario, overrides, None, seed)
    _trainable(scn, "exploit")
    budget = budget or 200_000
    policy = scn.game_type.policy
    progress = _Progress(quiet, "matches", label="matches")
    with contextlib.closing(progress):
        found = run_checks(scn, strong_dir, budget=budget, checks=checks, threads=workers,
                           scheduler=scheduler, progress=lambda d, t: progress(d, t, d))
        _, training = _strong_training(strong_dir, scn)
    top = largest(found)
    _say_checks(scn, found, checks, top, training)
    if record_largest(scn, strong_dir, top, budget):
        click.echo(f"recorded in {strong_dir / 'strong.toml'}: it found more than the file "
                   f"claimed, so every run seating the field now states this bound")
        # a PSRO training's folder: its report too (a CFR training's has no rounds)
        if (strong_dir / "history.parquet").is_file():
            from nop_sim.studies.train.report import write_train_report

            click.echo(f"report:       {write_train_report(strong_dir)}")
    if record_checks(scn, strong_dir, found, budget):
        click.echo(f"recorded in {strong_dir / 'strong.toml'}: "
                   f"{'this check' if len(found) == 1 else f'these {len(found)} checks'}, "
                   f"which every run seating the field states beside its bound")
    for c in found:
        if record_found(dataclasses.replace(scn, seed=c.seed), strong_dir, c.result,
                        budget):
            click.echo(f"kept in {strong_dir / 'deviations.json'}: nop-sim value starts "
                       f"its searches from seed {c.seed}'s deviation")
    if json_out is not None:
        checks_json(json_out, found, scenario=scn.name, folder=strong_dir, budget=budget,
                    unit=policy.unit)
        click.echo(f"checks:       {json_out}")


def _say_checks(scn, found, checks: int, top, training) -> None:
    """nop-sim exploit's lines: each check's held-out gain, the largest, and what the
    field's file claims."""
    # here: the agent files' module loads pandas, and --help need not wait
    from nop_sim.games.agent_files import training_text

    policy = scn.game_type.policy
    for c in found:
        eff = (f"as precise as {c.effective_matches:,.0f} plain matches"
               if np.isfinite(c.effective_matches) else "no noise: it plays as the field")
        click.echo(f"{scn.name}, seed {c.seed}: {c.result.statement()}; re-scored on "
                   f"{c.held_out:,} held-out matches ({eff})")
        if c.table is not None:  # the field bets by a table: the in-abstraction answer
            t, d = c.table, policy.digits
            click.echo(f"{scn.name}, seed {c.seed}: a best response within the field's "
                       f"betting abstraction ({t['matches'] - t['held_out_matches']:,} "
                       f"matches of regret minimisation) gains {t['gain']:+.{d}f} "
                       f"{policy.unit} (95% {t['low']:+.{d}f} to {t['high']:+.{d}f}) on "
                       f"{t['held_out_matches']:,} held-out matches; the check states "
                       f"{c.gain:+.{d}f}, the {c.by}'s")
    if checks > 1:
        gains = ", ".join(f"{c.gain:+.{policy.digits}f}" for c in found)
        click.echo(f"largest of {checks} checks: {top.gain:+.{policy.digits}f} {policy.unit} "
                   f"(95% {top.low:+.{policy.digits}f} to {top.high:+.{policy.digits}f}), "
                   f"seed {top.seed}; every check: {gains}")
    click.echo(f"strong.toml says: {training_text(training)}")


def _strong_training(folder: Path, scn):
    from nop_sim.studies.train.value import load_strong

    return load_strong(folder, scn.settings_at(scn.points()[0]))


@command("value")
@click.argument("scenario", type=click.Path(path_type=Path))
@click.option("--strong", "strong_dirs", type=click.Path(path_type=Path), required=True,
              multiple=True,
              help="A training folder (nop-sim train's --out) holding strong.toml; repeat it "
                   "for fields trained with other seeds. A pooled training (nop-sim train "
                   "--seeds) is measured against its two halves.")
@click.option("--mechanic", "mechanics", multiple=True, metavar="NAME",
              help="Restrict only these (repeatable): the game's mechanics, New Order's "
                   "manipulation, hedging, drafting, drawing, bluffing; Ordered Hand's betting, "
                   "raising, repositioning [default: all].")
@click.option("--precision", type=click.FloatRange(0, min_open=True), default=None,
              help="Points: each value's check plays on until its 95% interval is at most "
                   "this wide on each side (at most 6 times its size; matches beyond "
                   "--budget-matches) [default: 2 points against two or more fields, so that "
                   "a value can settle; else the check's size alone].")
@_train_options
def value_cmd(scenario, strong_dirs, mechanics, precision, budget, seed, workers, scheduler,
              overrides, quiet):
    """What each mechanic is worth under strong play (restricted play).

    Against a strong field, two equal searches (the same starts, seeds and
    budget; the starts include every deviation known to beat the field, from
    its training's final search and from nop-sim exploit, kept in the folder's
    deviations.json), one free and one that may not use the mechanic, pool their best
    deviations: the best that leaves the mechanic off, and the free pick (the
    better of it and the pool's best, on matches of their own); the value is
    the difference of their gains, checked on the same duplicate deals (Jaffe
    et al. 2012), so it is below 0 only by noise.

    A value is a property of the rules only where fields trained with other
    seeds agree on it. With two or more fields (--strong repeated, or a pooled
    training's two halves), a value reads "worth v (a to b)" only where the
    fields' values lie within 3 points of each other and each 95% interval is
    within +-2; otherwise "depends on the field: from a to b" (or "not
    settled" where an interval is too wide to tell). Against one field, the
    value is stated with the note that a second field is needed.

    Also: a strong seat's win rate when it drafted each Disruptor, against
    when it did not. Results go into each training folder's value.parquet
    (with range_low, range_high and settled across the fields measured
    together) and its report.

    \b
    Example:
      nop-sim train scenarios/baseline.toml --seeds 4
      nop-sim value scenarios/baseline.toml --strong reports/baseline-train
      nop-sim value scenarios/baseline.toml --strong reports/a-train --strong reports/b-train
    """
    from nop_sim.studies.train.report import write_train_report
    from nop_sim.studies.train.value import value_fields

    scn = _load(scenario, overrides, None, seed)
    _trainable(scn, "value")
    MECHANICS = _mechanics(scn, mechanics)  # noqa: N806  (the game's, read once)
    policy = scn.game_type.policy
    progress = _Progress(quiet, "matches", label="matches")
    with contextlib.ExitStack() as held:
        for d in dict.fromkeys(strong_dirs):
            held.enter_context(_holding(d, "wait for it to finish"))
        # an AgentError is a ValueError: exit 2
        with contextlib.closing(progress):
            m = value_fields(scn, list(dict.fromkeys(strong_dirs)),
                             list(mechanics) or list(MECHANICS), budget=budget or 400_000,
                             threads=workers, scheduler=scheduler,
                             progress=lambda d, t: progress(d, t, d), precision=precision)
        # a folder holding only a strong.toml (copied, shipped) has no training to report
        reports = [write_train_report(d) for d in m.written if (d / "manifest.json").is_file()]
    _say_values(m, reports, policy)


def _say_values(m, reports, policy) -> None:
    """nop-sim value's lines: each mechanic's verdict, its value against each field, where
    the tables and reports went."""
    # here: the agent files' module loads pandas, and --help need not wait
    from nop_sim.games.agent_files import PLAYS_ALIKE, plays_alike, search_gap

    digits, unit = policy.digits, policy.unit
    if len(m.fields) > 1:
        click.echo(f"against {len(m.fields)} fields: {', '.join(map(str, m.fields))}")
    for row in m.settled.itertuples():
        click.echo(f"{row.mechanic:<12} {row.verdict}")
    for folder, table, training in zip(m.fields, m.tables, m.trainings, strict=True):
        if len(m.fields) > 1:
            click.echo(f"  against {folder}:")
        for row in table.itertuples():
            eff = getattr(row, "effective_matches", float("nan"))
            click.echo(f"  {row.mechanic:<12} {row.loss:+.{digits}f} {unit} (95% "
                       f"{row.loss_low:+.{digits}f} to {row.loss_high:+.{digits}f}): the best "
                       f"deviation gains {row.gain_full:+.{digits}f}, without it "
                       f"{row.gain_restricted:+.{digits}f}"
                       + (f"  ({PLAYS_ALIKE})" if plays_alike(row.loss_low, row.loss_high) else
                          "  (cannot tell from 0)" if row.loss_low <= 0 <= row.loss_high
                          else "")
                       + (f"; {int(row.check_matches):,} check matches, as precise as "
                          f"{eff:,.0f} plain a side" if np.isfinite(eff) else ""))
        gap = search_gap(table, training)
        if gap:
            click.echo(f"  read with care: {gap}")
    if m.shared:
        click.echo(f"note: these fields share training seed(s) {sorted(m.shared)}: their "
                   f"agreement is not an independent check")
    if m.replaced:
        click.echo(f"replaced the saved values of {', '.join(m.replaced)}: measured with another "
                   f"seed, budget, strong field or known deviations")
    click.echo("(values are estimates from the check matches above: a larger budget or "
               "--precision narrows them)")
    for d in m.written:
        click.echo(f"tables: {d / 'value.parquet'}"
                   + (f", {d / 'drafts.parquet'}" if (d / "drafts.parquet").exists() else ""))
    for r in reports:
        click.echo(f"report: {r}")
    if not reports:
        click.echo("report: none (the folders hold fields but no training to report on)")


COMMANDS = [train_cmd, value_cmd, exploit_cmd]
"""What this module adds to ``nop-sim`` (:mod:`nop_sim.cli` lists the modules)."""
