"""The tools beside the designer's path: ``eval`` and ``frequencies`` (the evaluator
on its own), ``compile`` (the kernels into numba's cache) and the ``bench`` group."""

from __future__ import annotations

import json
import time
from pathlib import Path

import click
import numpy as np

from nop_sim.cli.common import (
    CONTEXT,
    _column_option,
    _parse_column,
    _parse_wild,
    _wild_option,
    command,
    command_group,
)
from nop_sim.core.cards import parse_cards
from nop_sim.core.column import DEFAULT_COLUMN, Category
from nop_sim.core.stats import wilson_interval

# Imports inside functions: each command imports its study, the runner or the
# kernels (numba) where it runs, so `nop-sim --help` and a usage error answer
# in a fraction of a second; only the core's light modules are imported here.


@command("eval")
@click.argument("cards")
@_column_option
@_wild_option
@click.option("--decks", default=1, show_default=True, type=click.IntRange(1, 4),
              help="Decks in play (repeated cards allowed up to this many copies).")
def eval_cmd(cards: str, column_text: str, wild_text: str, decks: int):
    """Show the best five-card hand of CARDS under a Ranking Column.

    CARDS are 5 to 8 cards such as "As Ks 7d 7h 2c Qs Qd" (10 or T for tens).

    \b
    Example:
      nop-sim eval "Ks Kd Kh 7c 7d Qs 2c" --column "Two Pair > Full House"
    """
    from nop_sim.evaluator import best_hand

    try:
        hand = parse_cards(cards)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="CARDS") from None
    column = _parse_column(column_text)
    wild = _parse_wild(wild_text)
    try:
        best = best_hand(hand, column, wild_ranks=wild, decks=decks)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="CARDS") from None
    click.echo(str(best))
    click.echo(f"column: {column}")


@command()
@click.option("--hands", "n_hands", default=1_000_000, show_default=True,
              type=click.IntRange(1000, 50_000_000), help="Random seven-card hands to deal.")
@click.option("--moved", "moved_text", default="Two Pair > Full House", show_default=True,
              help="The moved column to compare with the default (same syntax as --column).")
@_wild_option
@click.option("--seed", default=0, show_default=True, type=int, help="Random seed.")
def frequencies(n_hands: int, moved_text: str, wild_text: str, seed: int):
    """How often each category is the best hand, default column vs a moved one.

    Deals random seven-card hands (5 hole + 2 community, one deck) and shows
    which category each plays as its best hand under the default column and
    under the moved column, with the moved share's 95% Wilson interval: what a
    promotion does to the hands that win.

    \b
    Example:
      nop-sim frequencies --hands 2000000 --moved "Two Pair > Full House" --wild 2
    """
    from nop_sim.evaluator import best_category
    from nop_sim.studies.bench import random_hands

    moved = _parse_column(moved_text)
    wild = _parse_wild(wild_text)
    hands = random_hands(n_hands, 7, seed)
    base = np.bincount(best_category(hands, DEFAULT_COLUMN, wild_ranks=wild, parallel=True),
                       minlength=13)
    new = np.bincount(best_category(hands, moved, wild_ranks=wild, parallel=True), minlength=13)
    click.echo(f"{n_hands:,} random seven-card hands, seed {seed}"
               + (f", wild mask {wild:#x}" if wild else ""))
    click.echo(f"moved column: {moved}")
    click.echo(f"{'category':<16}{'default %':>12}{'moved %':>12}{'change':>10}"
               f"   moved: 95% interval (Wilson)")
    # Wilson, not Wald: a category never seen still has a non-zero upper bound
    low, high = wilson_interval(new, n_hands)
    for cat in Category:
        p0, p1 = base[cat] / n_hands, new[cat] / n_hands
        click.echo(f"{cat.label:<16}{100 * p0:>11.3f}%{100 * p1:>11.3f}%"
                   f"{100 * (p1 - p0):>+9.3f}%   [{100 * low[cat]:.3f}%, {100 * high[cat]:.3f}%]")


@command("compile")
@click.option("--workers", type=click.IntRange(1, 64), default=None,
              help="Processes compiling at once [default: all cores].")
@click.option("--runs", is_flag=True,
              help="Only the groups a New Order run and its report need (make run's "
                   "first report comes sooner); the rest compile on first use or with a "
                   "plain nop-sim compile, which loads these.")
def compile_cmd(workers, runs):
    """Compile every simulation kernel into numba's cache now, in parallel.

    Numba otherwise compiles each kernel on first use, so the first run after
    an install or an update waits for it. A cold compile of the six kernel
    groups takes 40 s to 4 minutes on 2 cores (measured: 42 to 105 s with both
    cores free, 135 to 245 s with other work running); make install runs it once
    (--runs first, the groups make run needs), and afterwards a run loads the
    kernels in about a second. A line says when each group
    starts and ends (with its time and how many are done), and every 15 s
    what is still compiling. Running it again only loads them (seconds).

    \b
    Examples:
      nop-sim compile
      nop-sim compile --runs     # what nop-sim run needs, first (make run)
    """
    from nop_sim.run.compiling import COMPILE_TIME, compile_all

    click.echo(f"compiling the simulation kernels into numba's cache, once ({COMPILE_TIME}; "
               f"runs then load them in about a second)...", err=True)
    t0 = time.perf_counter()
    times = compile_all(workers, progress=lambda e: click.echo(_compile_line(e), err=True),
                        runs=runs)
    click.echo(f"kernels ready in {time.perf_counter() - t0:.1f} s ({len(times)} groups); "
               f"runs now load them from the cache")


def _compile_line(e) -> str:
    """One line of ``nop-sim compile``'s progress (a :class:`nop_sim.run.compiling.CompileEvent`)."""
    clock = f"[{int(e.elapsed) // 60:2d}:{int(e.elapsed) % 60:02d}]"
    if e.kind == "start":
        return f"{clock} start  {e.group}   ({e.done}/{e.total} done, {len(e.running)} compiling)"
    if e.kind == "done":
        return f"{clock} done   {e.group} in {e.seconds:.1f} s   ({e.done}/{e.total} done)"
    queued = f"; {e.queued} more to start" if e.queued else ""
    return (f"{clock} still compiling {', '.join(e.running)}{queued}   "
            f"({e.done}/{e.total} done)")


@command_group()
def bench():
    """Speed benchmarks (medians, with a peer measured in the same run), as JSON.

    They ship with the package: an installed nop-sim measures itself.

    \b
    Examples:
      nop-sim bench evaluator --hands 1000000
      nop-sim bench engine --seconds 5 --cold
      nop-sim bench runner --matches 100000 --workers 2
      nop-sim bench ordered --games 50000
    """


@bench.command("evaluator", context_settings=CONTEXT)
@click.option("--hands", "n_hands", default=2_000_000, show_default=True,
              type=click.IntRange(10_000, 100_000_000), help="Pre-generated random hands.")
@click.option("--repeats", default=5, show_default=True, type=click.IntRange(1, 50))
@click.option("--no-compile", is_flag=True, help="Skip the cold-cache compile measurement.")
def bench_evaluator_cmd(n_hands: int, repeats: int, no_compile: bool):
    """Hands per second of the evaluator, as JSON on stdout.

    Single-core rates for the default column, a random column and deuces
    wild; the all-core rate; compile time with an empty numba cache; and
    eval7's compiled rate with the ratio, when eval7 is installed.

    \b
    Example:
      nop-sim bench evaluator --hands 1000000
    """
    from nop_sim.studies.bench import bench_evaluator

    click.echo(json.dumps(bench_evaluator(n_hands, repeats, compile_time=not no_compile),
                          indent=2))


@bench.command("engine", context_settings=CONTEXT)
@click.option("--seconds", default=5.0, show_default=True, type=click.FloatRange(0.001, 3600),
              help="Time per measurement.")
@click.option("--cold", is_flag=True, help="Time a full compile (an empty numba cache).")
@click.option("--rounds", default=5, show_default=True, type=click.IntRange(1, 100),
              help="Rounds of a second each (or --seconds, if less), OpenSpiel's playouts "
                   "then the engine's hands, for the median ratio (with OpenSpiel installed).")
def bench_engine_cmd(seconds: float, cold: bool, rounds: int):
    """Hands and matches per second of the New Order engine, as JSON on stdout.

    One core and all cores, balanced then random agents, and the compile
    time of a fresh process (loading the cache, or a full compile with
    --cold). With OpenSpiel installed (pip install 'nop-sim[bench]', as make
    bench does), the engine's hands per CPU-second against OpenSpiel's
    4-player limit hold'em random playouts on the same thread, interleaved:
    ratio_vs_openspiel, the median of --rounds rounds.

    \b
    Examples:
      nop-sim bench engine
      nop-sim bench engine --seconds 5 --cold
    """
    from nop_sim.studies.bench import bench_game

    click.echo(json.dumps(bench_game("engine", seconds=seconds, cold=cold, rounds=rounds)))


@bench.command("runner", context_settings=CONTEXT)
@click.option("--scenario", type=click.Path(path_type=Path, dir_okay=False),
              help="A New Order scenario without a [sweep]  [default: the baseline's game "
                   "and seats]")
@click.option("--matches", "n_matches", default=21_000, show_default=True,
              type=click.IntRange(1, None), help="Matches per repeat.")
@click.option("--workers", default=2, show_default=True, type=click.IntRange(1, 256))
@click.option("--repeats", default=3, show_default=True, type=click.IntRange(1, 50))
def bench_runner_cmd(scenario: Path | None, n_matches: int, workers: int, repeats: int):
    """The runner's rate against the in-process engine's on the same cores
    (runner_share), a whole `nop-sim run` command's in a fresh process (command_share),
    the machine's CPU while each ran (cpu_share: the engine's CPU per hand over the
    command's; command_busy: near 1, the command is bound by CPU), its phases and
    start-up cost, as JSON on stdout. Run it on an otherwise quiet machine.

    \b
    Examples:
      nop-sim bench runner
      nop-sim bench runner --matches 100000 --workers 2
    """
    from nop_sim.studies.bench import bench_runner

    figures = bench_runner(scenario, n_matches, workers, repeats)
    click.echo(json.dumps(figures, indent=2))


@bench.command("ordered", context_settings=CONTEXT)
@click.option("--games", "n_games", default=200_000, show_default=True,
              type=click.IntRange(1, None), help="Games per set-up (half for the extra mixes).")
@click.option("--no-compile", is_flag=True, help="Skip the cold-cache compile measurement.")
def bench_ordered_cmd(n_games: int, no_compile: bool):
    """Games per second of the Ordered Hand engine on one core, as JSON on stdout.

    \b
    Examples:
      nop-sim bench ordered
      nop-sim bench ordered --games 50000 --no-compile
    """
    from nop_sim.studies.bench import bench_game

    click.echo(json.dumps(bench_game("ordered", n_games=n_games, compile_time=not no_compile)))


COMMANDS = [eval_cmd, frequencies, compile_cmd, bench]
"""What this module adds to ``nop-sim`` (:mod:`nop_sim.cli` lists the modules)."""
