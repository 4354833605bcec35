"""The reporting toolkit: every report of nop-sim is built with it.

A report is a list of :class:`SectionSpec` (id, title, intro, build
function). Each build function takes one context object and returns the
section's blocks: :class:`Figure` (from :func:`png`), :class:`Table`,
:class:`Note`, :class:`Bullets` (items may link to section ids),
:class:`Csv` (a file only). :func:`build_sections` builds them (one broken
section becomes a warning, not a crash), :func:`write_report` renders the
:class:`Report` once to a self-contained ``report.html`` and once to
``report.md``, with ``figures/*.png`` and ``tables/*.csv``, every file
written atomically. One style (:data:`STYLE`) and one colour-blind-safe
palette (:data:`PALETTE`, Okabe-Ito); figures are drawn without pyplot.

Example::

    import pandas as pd
    from nop_sim import reporting as R

    def wins(run):                                   # one small section function
        fig, axes = R.figure(2.4)
        R.hbar_ci(axes[0, 0], ["seat 0", "seat 1"], [0.52, 0.48], [0.47, 0.43],
                  [0.57, 0.53], ref=0.5, ref_label="fair share")
        t = pd.DataFrame({"seat": ["0", "1"], "win rate": [R.pct(0.52), R.pct(0.48)]})
        return [R.png(fig, "wins", "Win rate per seat, 95% interval."),
                R.Table(t, "Wins per seat", csv="wins.csv", full=run)]

    SECTIONS = [R.SectionSpec("wins", "Seat fairness", "Does a seat win more?", wins),
                R.SectionSpec("notes", "Notes", "", lambda run: [R.Note("**All** fair.")])]
    sections = R.build_sections(SECTIONS, pd.DataFrame({"wins": [52, 48]}), number_from=1)
    R.write_report(R.Report("demo: report", f"{len(sections)} sections", sections), "out")

Findings link to sections by id (``Bullets(items, links=["wins"])``);
:func:`write_report` refuses a link to an id that is no section. Number
sections from ``len(...)`` of the spec list, never from a constant.
"""

import importlib

from nop_sim.reporting.format import cell, count, isnum, num, num_ci, pct, pct_ci, pval
from nop_sim.reporting.model import Bullets, Csv, Figure, Note, Report, Section, SectionSpec, Table
from nop_sim.reporting.render import md_table, render_html, render_md

# What draws needs matplotlib (about 0.3 s to import): those names load on first use
# (PEP 562), so a summary's tables do not pay for it.
_LAZY = {
    **dict.fromkeys(("CYCLE", "DIVERGING", "DPI", "PAD", "PALETTE", "SEQUENTIAL", "STYLE",
                     "TICK", "WIDTH", "figure", "margins", "png", "styled", "text_size"),
                    "style"),
    **dict.fromkeys(("annotate_heat", "hbar_ci", "hbar_legend", "hide_unused",
                     "interval_err", "percent_axis"), "figures"),
    **dict.fromkeys(("build_blocks", "build_sections", "check_links"), "build"),
    **dict.fromkeys(("atomic_write", "write_report"), "write"),
}


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    # PEP 562: what draws loads matplotlib on first use (see _LAZY)
    value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    globals()[name] = value
    return value


__all__ = ["CYCLE", "DIVERGING", "DPI", "PAD", "PALETTE", "SEQUENTIAL", "STYLE", "TICK", "WIDTH",
           "Bullets", "Csv", "Figure", "Note", "Report", "Section", "SectionSpec", "Table",
           "annotate_heat", "atomic_write", "build_blocks", "build_sections", "cell",
           "check_links", "count", "figure", "hbar_ci", "hbar_legend", "hide_unused",
           "interval_err", "isnum", "margins", "md_table", "num", "num_ci", "pct", "pct_ci",
           "percent_axis", "png", "pval", "render_html", "render_md", "styled", "text_size",
           "write_report"]
