"""The balance report of New Order Poker: figures and tables of a finished run.

:func:`write_report` reads a results folder (see :mod:`nop_sim.results.store`),
computes the statistics of :mod:`nop_sim.games.new_order.analysis` and writes, with the
toolkit of :mod:`nop_sim.reporting`, in the same folder:

- ``report.html``: one self-contained file, figures embedded as base64 PNG,
  no external assets, no script;
- ``report.md``: the same text and tables, figures as ``figures/*.png``;
- ``tables/*.csv``: the full tables behind each section.

A run of one point gets the numbered sections of :data:`POINT_SECTIONS`
(headline, match length, seats, strategies, the Ranking Column, the Ledger,
hedging, Disruptors, chips, matches to replay). A sweep (more than one point) first gets
:data:`SWEEP_SECTIONS` (targets ranking, each metric against each swept
parameter, heat maps for pairs) and then the point sections for its best
point (by the targets, or point 0 without targets). Each section is one
small function of a context (:class:`~.common._Point` or :class:`~.sweep._Sweep`);
findings link to sections by id.

The sections live in modules by subject, and this one assembles them:

- :mod:`~.common`: the point context and the formats every section shares;
- :mod:`~.point`: the list of point sections and the headline that opens it;
- :mod:`~.scorecard`: the headline's scorecard figure;
- :mod:`~.match`: match length and chips (how fast the table thins out);
- :mod:`~.players`: seat fairness and strategies;
- :mod:`~.column`: the Ranking Column;
- :mod:`~.ledger`: manipulation (the Ledger) and hedging;
- :mod:`~.disruptors`: the Disruptor cards;
- :mod:`~.sweep`: a sweep's ranking, parameters and pairs;
- :mod:`~.worth`: what each mechanic is worth across a sweep, under strong play;
- :mod:`~.strong`: the run's [strong] field in every seat, beside the run;
- :mod:`~.replays`: logged matches worth watching, with their ``nop-sim replay`` lines.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from nop_sim import reporting as R
from nop_sim.games.new_order import analysis as A
from nop_sim.games.new_order.report.common import _Point
from nop_sim.games.new_order.report.point import POINT_SECTIONS
from nop_sim.games.new_order.report.strong import STRONG_SECTION, _Strong, strong_run
from nop_sim.games.new_order.report.sweep import SWEEP_SECTIONS, _Sweep
from nop_sim.games.new_order.report.worth import WORTH_SECTION
from nop_sim.reporting import PALETTE, STYLE
from nop_sim.reporting import forked as renderer
from nop_sim.results.run_data import RunData

__all__ = ["PALETTE", "POINT_SECTIONS", "STYLE", "SWEEP_SECTIONS", "build_report",
           "write_report"]


# ---------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------
# Sections a forked copy of this process builds while this one builds the others
# (nop_sim.reporting.forked), about half the work each. Measured on the baseline (s; the
# tables the headline needs are computed here anyway): headline 0.60, length 0.15,
# seats 0.07, Disruptors 0.40 here; strategies 0.26, the column 0.50, the ledger
# 0.18, hedging 0.18, chips 0.15 there, their tables computed again (the headline's
# 0.2 s Disruptor table stays here with its section).
ELSEWHERE = ("strategies", "column", "ledger", "hedging", "chips")


def _build_elsewhere(run: RunData, point: int, strict: bool) -> dict[str, list | None]:
    """The blocks of the point sections of :data:`ELSEWHERE` (in the forked copy)."""
    p = _Point(run, point)
    return {spec.id: R.build_blocks(spec, p, strict=strict, unavailable=(A.MissingData,))
            for spec in POINT_SECTIONS if spec.id in ELSEWHERE}


def _elsewhere(run: RunData, point: int, strict: bool) -> dict[str, Callable]:
    """Fork a copy to build :data:`ELSEWHERE`, where forking is on and the run is small
    (:func:`nop_sim.reporting.forked.small_run`): spec id -> a callable waiting for its blocks
    (for :func:`~nop_sim.reporting.build_sections`)."""
    matches = int(run.manifest.get("totals", {}).get("matches", 0))
    forked = (renderer.fork(_build_elsewhere, run, point, strict)
              if renderer.small_run(matches) else None)
    if forked is None:
        return {}
    return {i: (lambda i=i: forked.result()[i]) for i in ELSEWHERE}


def build_report(run: RunData, point: int | None = None, strict: bool = False) -> R.Report:
    """The report of a loaded run, built but not written (see :func:`write_report`).

    Where forking is on (:func:`nop_sim.reporting.forked.enable`), a forked copy of
    this process builds the sections of :data:`ELSEWHERE` meanwhile.
    """
    sections: list[R.Section] = []
    sweep = _Sweep(run) if len(run.points) > 1 else None
    if sweep is not None:
        point = sweep.best if point is None else point
    point = run.points[0] if point is None else int(point)
    elsewhere = _elsewhere(run, point, strict)
    if sweep is not None:
        strong = run.strong_play
        specs = SWEEP_SECTIONS[:1] + ([WORTH_SECTION] if strong is not None and len(strong[1])
                                      else []) + SWEEP_SECTIONS[1:]
        sections += R.build_sections(specs, sweep, strict=strict)
    sweeping = sweep is not None
    strong = None if sweeping else strong_run(run.folder)
    shared = _Point(run, point)  # the strong section's tables of this run, the point's too
    if strong is not None:
        sections += R.build_sections([STRONG_SECTION], _Strong(shared, strong),
                                     strict=strict, unavailable=(A.MissingData,))
    sections += R.build_sections(POINT_SECTIONS, shared, strict=strict,
                                 prefix=f"p{point}_" if sweeping else "", number_from=1,
                                 suffix=f" (point {point})" if sweeping else "",
                                 unavailable=(A.MissingData,), elsewhere=elsewhere)
    m = run.manifest
    meta = (f"{'sweep' if sweeping else 'run'} of {len(run.points)} point(s), "
            f"{m.get('matches_per_point', '?')} matches per point, seed {m.get('seed')}; "
            f"finished {m.get('ended')}.")
    if sweeping:
        meta += f" Sections 1–{len(POINT_SECTIONS)} describe point {point}."
    return R.Report(f"{m.get('scenario', {}).get('name', 'run')}: balance report", meta,
                    sections)


def write_report(results_dir, *, point: int | None = None, strict: bool = False) -> Path:
    """Write ``report.html`` (self-contained), ``report.md`` with ``figures/*.png`` and
    ``tables/*.csv`` into a finished results folder; return the HTML path.

    ``point`` chooses the sweep point of the numbered sections (default: the
    best by the targets, else point 0). ``strict`` re-raises a section's
    error instead of writing a note in its place (for tests).
    """
    t0 = time.perf_counter()
    folder = Path(results_dir)
    report = build_report(A.load_run(folder), point=point, strict=strict)
    report.meta += f" Report built in {time.perf_counter() - t0:.1f} s."
    return R.write_report(report, folder)
