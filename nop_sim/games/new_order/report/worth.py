"""A sweep's section under strong play (sweep --train --value): what each mechanic is
worth at every point, against each swept knob (:data:`WORTH_SECTION`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from nop_sim import reporting as R
from nop_sim.core.stats import pool_estimates
from nop_sim.games.new_order.report.sweep import _flags, _pair_heat, _sorted_values, _Sweep
from nop_sim.reporting import PALETTE, Bullets, Note, SectionSpec, Table, interval_err, num_ci
from nop_sim.results.store import UNSETTLED, load_strong_drafts


def _point_text(s: _Sweep, point: int) -> str:
    params = s.run.params(point)
    return f"point {point} (" + ", ".join(f"{k} = {v}" for k, v in params.items()) + ")"


def _worth_answer(s: _Sweep, values: pd.DataFrame, flags: dict[int, str]) -> list[str]:
    """A sentence per mechanic: where it pays (interval above 0), where it cannot be told
    from 0, its largest value; flagged points set aside."""
    lines = []
    for mech, g in values.groupby("mechanic", sort=False):
        ok = g[~g["point"].isin(list(flags))]
        if not len(ok):
            lines.append(f"**{mech}**: every point is flagged; nothing can be read.")
            continue
        pays, zero = ok[ok["low"] > 0], ok[(ok["low"] <= 0) & (ok["high"] >= 0)]
        top = ok.loc[ok["value"].idxmax()]
        text = (f"**{mech}** pays a strong player (95% interval above 0) at {len(pays)} of "
                f"{len(ok)} points and cannot be told from 0 at {len(zero)}; ")
        text += (f"most at {_point_text(s, int(top['point']))}: {top['value']:+.1f} points "
                 f"({top['low']:+.1f} to {top['high']:+.1f})." if len(pays) else
                 f"its largest estimate is {top['value']:+.1f} points "
                 f"({top['low']:+.1f} to {top['high']:+.1f}).")
        lines.append(text)
    return lines


def _worth(s: _Sweep) -> list:
    trained, values = s.run.strong_play
    flags = _flags(s)
    halves = (values["high"] - values["low"]) / 2
    blocks: list = [Bullets(_worth_answer(s, values, flags)), Note(
        f"A mechanic's value is what the best deviation against the point's trained field "
        f"gains over the best deviation that may not use it (restricted play, Jaffe et al. "
        f"2012): two equal searches, checked on the same matches. About 0: dead weight to a "
        f"strong player; large: it dominates. 95% intervals: ±{halves.median():.1f} points "
        f"typically, ±{halves.max():.1f} at most. "
        f"Each field was trained with its own budget, so a value also reads what its "
        f"field gets wrong: a point is flagged when its training did not settle "
        f"(exploitability {UNSETTLED:g} points or more) or most matches were unresolved.",
        "muted")]
    if flags:
        blocks.append(Note("Flagged, drawn hollow and left out of the pooled lines: "
                           + "; ".join(f"{_point_text(s, p)}: {why}"
                                       for p, why in flags.items()) + ".", "warning"))
    for name in s.run.swept:
        blocks.append(_worth_figure(s, name, values, flags))
    numeric = [k for k in s.run.swept
               if np.issubdtype(np.asarray(pd.unique(s.metrics[k])).dtype, np.number)]
    if len(numeric) >= 2:
        blocks.append(_worth_heat(s, numeric[0], numeric[1], values, flags))
    leads = _lead_table(s, flags)
    if leads is not None:
        blocks.append(leads)
    table = values.pivot(index="point", columns="mechanic", values="value")
    t = pd.DataFrame({"point": [str(p) for p in table.index]})
    for k in s.run.swept:
        t[k] = [str(s.run.params(p).get(k)) for p in table.index]
    ex = trained.set_index("point")
    t["exploitability"] = [num_ci(ex.loc[p, "exploitability"], ex.loc[p, "exploitability_low"],
                                  ex.loc[p, "exploitability_high"], 1) for p in table.index]
    by = values.set_index(["point", "mechanic"])
    for mech in pd.unique(values["mechanic"]):
        t[mech] = [num_ci(by.loc[(p, mech), "value"], by.loc[(p, mech), "low"],
                          by.loc[(p, mech), "high"], 1) if (p, mech) in by.index else "–"
                   for p in table.index]
    t["flag"] = [flags.get(int(p), "") for p in table.index]
    highlight = [i for i, p in enumerate(table.index) if int(p) in flags]
    blocks.append(Table(t.head(60), "Each point's field and mechanic values (win-rate points, "
                        "95% interval); flagged rows highlighted" +
                        (f" (first 60 of {len(t)})" if len(t) > 60 else ""),
                        highlight[:60], "values_by_point.csv", values))
    return blocks


def _lead_table(s: _Sweep, flags: dict[int, str]) -> Table | None:
    """The Disruptor whose drafters lead most under each point's field (drafts.csv)."""
    drafts = load_strong_drafts(s.run.folder) if s.run.folder is not None else None
    if drafts is None or not len(drafts):
        return None
    top = drafts.loc[drafts.groupby("point")["lead"].idxmax()].sort_values("point")
    t = pd.DataFrame({"point": top["point"].astype(int).astype(str)})
    for k in s.run.swept:
        t[k] = [str(s.run.params(int(p)).get(k)) for p in top["point"]]
    t["card"] = top["card"].to_numpy()
    t["lead, points (95%)"] = [num_ci(v, lo, hi, 1) for v, lo, hi in zip(
        top["lead"], top["low"], top["high"], strict=True)]
    t["flag"] = [flags.get(int(p), "") for p in top["point"]]
    return Table(t.head(60), "The Disruptor whose drafters lead most under each point's "
                 "field: win rate of a seat that drafted it minus one that did not (Newcombe "
                 "95% interval; an association, not an effect: drafting needs a won showdown)",
                 csv="drafted_leads.csv", full=drafts)


def _worth_figure(s: _Sweep, name: str, values: pd.DataFrame, flags: dict[int, str]
                  ) -> R.Figure:
    mechs = list(pd.unique(values["mechanic"]))
    ncols = 3 if len(mechs) > 4 else 2
    nrows = -(-len(mechs) // ncols)
    fig, axes = R.figure(2.5 * nrows + 0.4, ncols=ncols, nrows=nrows)
    x_of = {int(p): s.run.params(int(p)).get(name) for p in s.metrics["point"]}
    order = _sorted_values(x_of.values())
    categorical = not all(isinstance(v, int | float) for v in order)
    pos = {v: (i if categorical else float(v)) for i, v in enumerate(order)}
    spread = 0.08 if categorical else 0.015 * (np.ptp([pos[v] for v in order]) or 1)
    ok = values[~values["point"].isin(list(flags))]
    groups = pd.Series({p: order.index(v) for p, v in x_of.items()})
    pooled = pool_estimates(ok, groups, "value", "low", "high", by=["mechanic"])
    for ax, mech in zip(axes.ravel(), mechs, strict=False):
        g = values[values["mechanic"] == mech]
        x = np.array([pos[x_of[int(p)]] for p in g["point"]], float)
        x += np.random.default_rng(0).uniform(-spread, spread, x.size)
        hollow = g["point"].isin(list(flags)).to_numpy()
        for sel, face in ((~hollow, PALETTE["grey"]), (hollow, "none")):
            if sel.any():
                ax.errorbar(x[sel], g["value"].to_numpy()[sel],
                            yerr=interval_err(g["value"].to_numpy()[sel], g["low"].to_numpy()[sel],
                                              g["high"].to_numpy()[sel]),
                            fmt="o", ms=3.5, color=PALETTE["grey"], mfc=face, lw=0.8,
                            alpha=0.7, zorder=2)
        pm = pooled[pooled["mechanic"] == mech]
        if len(pm):
            px = np.array([pos[order[int(i)]] for i in pm["point"]], float)
            y, lo, hi = (pm[c].to_numpy(float) for c in ("value", "low", "high"))
            if categorical:
                ax.errorbar(px, y, yerr=interval_err(y, lo, hi), fmt="o",
                            color=PALETTE["blue"], ms=5, zorder=3)
            else:
                ax.fill_between(px, lo, hi, color=PALETTE["blue"], alpha=0.22, lw=0, zorder=1)
                ax.plot(px, y, "-o", color=PALETTE["blue"], ms=4, zorder=3)
        ax.axhline(0, color=PALETTE["black"], lw=0.8, ls="--")
        ax.set_title(f"value of {mech} (points)", loc="left", fontsize=9.5)
        ax.set_xlabel(name)
        if categorical:
            ax.set_xlim(-0.5, len(order) - 0.5)
            ax.set_xticks(range(len(order)), [str(v) for v in order])
        elif len(order) <= 12:  # the swept values themselves, not ticks between them
            ax.set_xticks([float(v) for v in order], [str(v) for v in order])
    R.hide_unused(axes, len(mechs))
    return R.png(fig, f"worth_{name}", f"What each mechanic is worth to a strong player "
                 f"against {name}: grey = single points with their 95% interval (hollow: "
                 f"flagged); blue = the points with that {name} pooled, with the interval of "
                 f"their mean; dashed = 0, where a mechanic is worth nothing.")


def _worth_heat(s: _Sweep, a: str, b: str, values: pd.DataFrame, flags: dict[int, str]
                ) -> R.Figure:
    """Each mechanic's value for each ``a`` (rows) x ``b`` (columns), pooled over the other
    knobs, unflagged points only; a cell whose interval holds 0 is marked."""
    mechs = list(pd.unique(values["mechanic"]))
    ys = _sorted_values(s.run.params(int(p))[a] for p in s.metrics["point"])
    xs = _sorted_values(s.run.params(int(p))[b] for p in s.metrics["point"])
    cells = {int(p): ys.index(s.run.params(int(p))[a]) * len(xs)
             + xs.index(s.run.params(int(p))[b]) for p in s.metrics["point"]}
    ok = values[~values["point"].isin(list(flags))]
    pooled = pool_estimates(ok, pd.Series(cells), "value", "low", "high", by=["mechanic"])
    nrows = -(-len(mechs) // 2)
    fig, axes = R.figure((0.32 * len(ys) + 1.3) * nrows + 0.3, ncols=2, nrows=nrows)
    notes = []
    for ax, mech in zip(axes.ravel(), mechs, strict=False):
        mat, low, high = (np.full((len(ys), len(xs)), np.nan) for _ in range(3))
        for _, r in pooled[pooled["mechanic"] == mech].iterrows():
            at = divmod(int(r["point"]), len(xs))
            mat[at], low[at], high[at] = r["value"], r["low"], r["high"]
        notes.append(_pair_heat(fig, ax, mat, low, high, f"value_{mech}"))
        for (i, j), v in np.ndenumerate(mat):
            if np.isfinite(v) and low[i, j] <= 0 <= high[i, j]:
                ax.text(j, i + 0.32, "≈0", ha="center", va="center", fontsize=6.5,
                        color=PALETTE["grey"])
            elif not np.isfinite(v) and i * len(xs) + j in set(cells.values()):
                ax.text(j, i, "flagged", ha="center", va="center", fontsize=7,
                        color=PALETTE["vermillion"])
        ax.set_xticks(range(len(xs)), [str(v) for v in xs])
        ax.set_yticks(range(len(ys)), [str(v) for v in ys])
        ax.set_xlabel(b)
        ax.set_ylabel(a)
    R.hide_unused(axes, len(mechs))
    return R.png(fig, f"worth_{a}_x_{b}", f"What each mechanic is worth (points) for each "
                 f"{a} (rows) × {b} (columns), pooled over the other knobs (flagged points "
                 f"left out); ≈0 marks a cell whose 95% interval holds 0. " + " ".join(notes))


WORTH_SECTION = SectionSpec(
    "worth", "What each mechanic is worth",
    "Under strong play: at every point, each mechanic's value to a player who searches as "
    "hard as the point's training, against each swept knob.", _worth)
