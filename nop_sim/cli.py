"""The ``nop-sim`` command line: parse, call one function, say where output went.

User errors become click exceptions (exit 2, one line, no traceback).
"""

from __future__ import annotations

import json
import sys

import click
import numpy as np

from nop_sim import __version__

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def _column_option(f):
    return click.option(
        "--column", "column_text", default="default", show_default=True,
        help="Ranking Column: 'default', all 13 categories top first separated by '>', "
             "or a chain such as 'Two Pair > Full House' (each placed directly above the next).",
    )(f)


def _wild_option(f):
    return click.option(
        "--wild", "wild_text", default="", metavar="RANKS",
        help="Wild ranks, e.g. '2' (deuces wild) or '2,J'.",
    )(f)


def _parse_column(text: str):
    from nop_sim.column import Column

    try:
        return Column.parse(text)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--column") from None


def _parse_wild(text: str) -> int:
    from nop_sim.cards import RANK_CHARS

    mask = 0
    for token in [t for t in text.replace(" ", ",").split(",") if t]:
        t = token.upper()
        t = "T" if t == "10" else t
        if len(t) != 1 or t not in RANK_CHARS:
            raise click.BadParameter(
                f"rank {token!r} is not one of 2-9, T (or 10), J, Q, K, A", param_hint="--wild")
        mask |= 1 << RANK_CHARS.index(t)
    return mask


@click.group(context_settings=CONTEXT)
@click.version_option(__version__, "-V", "--version", prog_name="nop-sim")
def main():
    """Monte Carlo balance analysis for New Order Poker.

    \b
    Start with:
      nop-sim eval "As Ks 7d 7h 2c Qs Qd" --column "Two Pair > Flush"
      nop-sim frequencies --moved "Two Pair > Full House"
      nop-sim bench evaluator
    """


@main.command("eval", context_settings=CONTEXT)
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
    from nop_sim.cards import parse_cards
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


@main.command(context_settings=CONTEXT)
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
    under the moved column, with 95% intervals: what a promotion does to the
    hands that win.

    \b
    Example:
      nop-sim frequencies --hands 2000000 --moved "Two Pair > Full House" --wild 2
    """
    from nop_sim.bench import random_hands
    from nop_sim.column import DEFAULT_COLUMN, Category
    from nop_sim.evaluator import best_category

    moved = _parse_column(moved_text)
    wild = _parse_wild(wild_text)
    hands = random_hands(n_hands, 7, seed)
    base = np.bincount(best_category(hands, DEFAULT_COLUMN, wild_ranks=wild, parallel=True),
                       minlength=13)
    new = np.bincount(best_category(hands, moved, wild_ranks=wild, parallel=True), minlength=13)
    click.echo(f"{n_hands:,} random seven-card hands, seed {seed}"
               + (f", wild mask {wild:#x}" if wild else ""))
    click.echo(f"moved column: {moved}")
    click.echo(f"{'category':<16}{'default %':>12}{'moved %':>12}{'change':>10}   95% half-width")
    for cat in Category:
        p0, p1 = base[cat] / n_hands, new[cat] / n_hands
        half = 1.96 * np.sqrt(max(p1 * (1 - p1), 1e-12) / n_hands)
        click.echo(f"{cat.label:<16}{100 * p0:>11.3f}%{100 * p1:>11.3f}%"
                   f"{100 * (p1 - p0):>+9.3f}%   ±{100 * half:.3f}%")


@main.group(context_settings=CONTEXT)
def bench():
    """Speed benchmarks (medians, with a peer measured in the same run)."""


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
    from nop_sim.bench import bench_evaluator

    click.echo(json.dumps(bench_evaluator(n_hands, repeats, compile_time=not no_compile),
                          indent=2))


def run():  # pragma: no cover - console entry for python -m
    main(prog_name="nop-sim")


if __name__ == "__main__":  # pragma: no cover
    sys.exit(run())
