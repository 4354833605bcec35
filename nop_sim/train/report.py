"""The training report: how exploitable the field was, round by round, and what it plays.

Built with the shared toolkit (:mod:`nop_sim.reporting`) from a training
folder: ``manifest.json``, ``state.json``, ``history.parquet`` and, once
``nop-sim value`` has run, ``value.parquet`` and ``drafts.parquet``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from nop_sim import reporting as R
from nop_sim import types as T

__all__ = ["SECTIONS", "write_train_report"]


@dataclass
class _Training:
    folder: Path
    manifest: dict
    state: dict
    history: pd.DataFrame
    value: pd.DataFrame | None
    drafts: pd.DataFrame | None

    @property
    def rounds(self) -> pd.DataFrame:
        return pd.DataFrame([{k: v for k, v in r.items() if k != "theta"}
                             for r in self.state["rounds"]])

    @property
    def strong(self) -> list:
        return self.state.get("strong", self.state["theta"])

    @property
    def epsilon(self) -> float:
        return float(self.manifest["training"]["epsilon"])


def _load(folder: Path) -> _Training:
    manifest = json.loads((folder / "manifest.json").read_text())
    state = json.loads((folder / "state.json").read_text())
    history = pd.read_parquet(folder / "history.parquet")

    def opt(name):
        p = folder / name
        return pd.read_parquet(p) if p.exists() else None

    return _Training(folder, manifest, state, history, opt("value.parquet"),
                     opt("drafts.parquet"))


# -- sections ------------------------------------------------------------------------------
def _findings(t: _Training):
    tr = t.manifest["training"]
    state = "reached" if tr["converged"] else "not reached (the budget ended first)"
    items = [
        f"**Exploitability {tr['exploitability']:+.1f} win-rate points** (95% interval "
        f"{tr['exploitability_low']:+.1f} to {tr['exploitability_high']:+.1f}): what the best "
        f"single-seat deviation a fresh search found gains over the strong agent in its seat.",
        f"{tr['rounds']} rounds of best response, {tr['matches']:,} matches; the target of "
        f"{t.epsilon:g} points was {state}. The strong agent is the field of round "
        f"{tr.get('round', '?')}, the least exploitable one checked.",
    ]
    links = ["exploitability", "exploitability"]
    bounds = t.manifest.get("at_bounds") or {}
    if bounds:
        items.append("Parameters at a search bound (the policy may want more room there): "
                     + ", ".join(f"{k} ({v})" for k, v in bounds.items()) + ".")
        links.append("parameters")
    if t.value is not None and len(t.value):
        top = t.value.sort_values("loss", ascending=False).iloc[0]
        items.append(f"The mechanic worth most under strong play is **{top['mechanic']}**: "
                     f"without it the best agent loses {top['loss']:+.1f} points.")
        links.append("value")
    return [R.Bullets(items, links=links)]


def _exploitability(t: _Training):
    r = t.rounds
    fin = t.state["final"]
    fig, axes = R.figure(3.2)
    ax = axes[0, 0]
    x = r["round"].to_numpy()
    y = r["exploitability"].to_numpy()
    ax.errorbar(x, y, yerr=R.interval_err(y, r["low"], r["high"]), fmt="o-",
                color=R.PALETTE["blue"], capsize=3, label="best deviation, checked")
    xf = (x.max() + 1) if len(x) else 0
    ax.errorbar([xf], [fin["exploitability"]],
                yerr=R.interval_err([fin["exploitability"]], [fin["low"]], [fin["high"]]),
                fmt="s", color=R.PALETTE["vermillion"], capsize=3, label="final, fresh search")
    ax.axhline(t.epsilon, color=R.PALETTE["grey"], ls="--", lw=1, label=f"epsilon {t.epsilon:g}")
    ax.axhline(0, color="black", lw=0.6)
    if len(x) <= 20:
        ax.set_xticks([*x.tolist(), xf], [*map(str, x.tolist()), "final"])
    else:  # many rounds: a few integer ticks, and the final check named where it stands
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(10, integer=True))
        ax.annotate("final", (xf, fin["high"]), textcoords="offset points", xytext=(0, 6),
                    ha="center", fontsize=8)
    ax.set_xlabel("round (the field of that round)")
    ax.set_ylabel("gain of one deviating seat\n(win-rate points)")
    ax.legend(loc="upper right", fontsize=8)
    table = pd.DataFrame({
        "round": r["round"],
        "exploitability (points)": [R.num_ci(a, b, c, 1) for a, b, c in
                                    zip(r["exploitability"], r["low"], r["high"], strict=True)],
        "check matches": [R.count(v) for v in r["check_matches"]],
        "matches": [R.count(v) for v in r["matches"]],
    })
    chosen = t.state.get("strong_round")
    if chosen is not None and chosen in set(r["round"]):
        k = int(np.flatnonzero(r["round"].to_numpy() == chosen)[0])
        ax.plot([x[k]], [y[k]], "o", ms=12, mfc="none", mec=R.PALETTE["vermillion"],
                label="the strong agent's field")
        ax.legend(loc="upper right", fontsize=8)
    final = (f"The strong agent is the field of round {chosen} (the lowest upper bound). "
             f"Against a fresh search (a new seed): "
             f"**{fin['exploitability']:+.1f} points** (95% interval {fin['low']:+.1f} to "
             f"{fin['high']:+.1f}, {fin['check_matches']:,} check matches).")
    shown = table
    if len(table) > 25:  # the first and last rounds and the chosen one; every round in the CSV
        keep = set(range(10)) | set(range(len(table) - 10, len(table)))
        if chosen is not None:
            keep |= set(np.flatnonzero(r["round"].to_numpy() == chosen).tolist())
        shown = table.iloc[sorted(keep)]
    caption = "Rounds" if len(shown) == len(table) else (
        f"Rounds: the first 10, the last 10 and round {chosen}")
    return [R.png(fig, "exploitability", "Each round's field: the checked gain of the best "
                  "deviation found against it, 95% interval; the square is the final check."),
            R.Note(final), R.Table(shown, caption, csv="rounds.csv", full=table)]


def _parameters(t: _Training):
    space = t.manifest["space"]
    names = space["names"]
    lo, hi = np.array(space["low"]), np.array(space["high"])
    idx = [T.AGENT_PARAM_NAMES.index(n) for n in names]
    thetas = [np.asarray(r["theta"])[idx] for r in t.state["rounds"]]
    thetas.append(np.asarray(t.strong)[idx])
    units = (np.array(thetas) - lo) / (hi - lo)
    fig, axes = R.figure(1.2 + 0.22 * len(names))
    ax = axes[0, 0]
    im = ax.imshow(units.T, aspect="auto", cmap=R.SEQUENTIAL, vmin=0, vmax=1,
                   interpolation="nearest")
    ax.set_yticks(range(len(names)), names, fontsize=7)
    labels = [str(r) for r in range(units.shape[0] - 1)] + ["strong"]
    ax.set_xticks(range(units.shape[0]), labels)
    ax.set_xlabel("the field of each round (last: the strong agent)")
    ax.grid(False)
    cb = fig.colorbar(im, ax=ax, shrink=0.6)
    cb.set_label("0 = search low bound, 1 = high")
    final = np.asarray(t.strong)[idx]
    bounds = t.manifest.get("at_bounds") or {}
    table = pd.DataFrame({"parameter": names, "strong agent": [R.num(v, 3) for v in final],
                          "search low": [R.num(v, 2) for v in lo],
                          "search high": [R.num(v, 2) for v in hi],
                          "at bound": [bounds.get(n, "") for n in names]})
    return [R.png(fig, "parameters", "The field's parameters round by round, scaled to the "
                  "search bounds (0 = low, 1 = high)."),
            R.Table(table, "The strong agent's parameters", csv="strong_agent.csv")]


def _value(t: _Training):
    if t.value is None:
        return [R.Note("Not measured yet: run `nop-sim value SCENARIO --strong "
                       f"{t.folder}` to add restricted play here.", "muted")]
    v = t.value
    fig, axes = R.figure(0.5 + 0.45 * len(v))
    R.hbar_ci(axes[0, 0], list(v["mechanic"]), v["loss"] / 100, v["loss_low"] / 100,
              v["loss_high"] / 100, ref=0.0, ref_label="no loss")
    axes[0, 0].set_xlabel("win-rate loss of the best agent without the mechanic")
    table = pd.DataFrame({
        "mechanic": v["mechanic"], "taken away by": v["pinned"],
        "loss (points)": [R.num_ci(a, b, c, 1) for a, b, c in
                          zip(v["loss"], v["loss_low"], v["loss_high"], strict=True)],
        "check matches": [R.count(x) for x in v["check_matches"]]})
    tr = t.manifest["training"]
    blocks = [R.png(fig, "value", "Loss of the best restricted agent to the strong agent, "
                    "95% interval (about 0: the mechanic is dead weight)."),
              R.Note(f"Read a loss against the field's exploitability "
                     f"({tr['exploitability']:+.1f} points): an unrestricted best response gains "
                     f"about that much, so a mechanic is worth about the exploitability plus its "
                     f"loss, and a negative loss means the strong field is exploitable without "
                     f"that mechanic; train longer before reading it."),
              R.Table(table, "Restricted play", csv="value.csv", full=v)]
    d = t.drafts
    if d is not None and len(d):
        d = d.sort_values("difference", ascending=False)
        dt = pd.DataFrame({
            "card": d["card"],
            "win rate, drafted": [R.pct_ci(a, b, c) for a, b, c in
                                  zip(d["win_drafted"], d["win_drafted_low"],
                                      d["win_drafted_high"], strict=True)],
            "win rate, not drafted": [R.pct_ci(a, b, c) for a, b, c in
                                      zip(d["win_not"], d["win_not_low"], d["win_not_high"],
                                          strict=True)],
            "matches drafted": [R.count(x) for x in d["matches_drafted"]]})
        blocks += [R.Note("Per Disruptor: the strong agent's win rate in the matches where it "
                          "drafted the card and where it did not (all seats strong). A seat that "
                          "lives longer drafts more, so read a gap as a lead, not an effect."),
                   R.Table(dt, "Disruptors under strong play", csv="drafts.csv", full=d)]
    return blocks


def _throughput(t: _Training):
    tp = t.manifest["throughput"]
    sec, eng = tp["seconds"], tp["engine_seconds"]
    share = 1 - eng / sec if sec > 0 else float("nan")
    return [R.Note(f"{tp['matches']:,} matches ({tp['hands']:,} hands) in {sec:.1f} s: "
                   f"{tp['matches'] / max(sec, 1e-9):,.0f} matches/s; the engine ran "
                   f"{eng:.1f} s of it, so orchestration took {100 * share:.1f}%.")]


SECTIONS = [
    R.SectionSpec("findings", "Findings", "", _findings),
    R.SectionSpec("exploitability", "Exploitability", "How much one seat gains by deviating "
                  "from the field, round by round: 0 is an equilibrium of the policy space.",
                  _exploitability),
    R.SectionSpec("parameters", "Parameters", "Where the search moved the policy.", _parameters),
    R.SectionSpec("value", "What each mechanic is worth", "Restricted play (Jaffe et al., "
                  "2012): the best agent that may not use a mechanic, against strong seats.",
                  _value),
    R.SectionSpec("throughput", "Throughput", "", _throughput),
]


def write_train_report(folder: str | Path) -> Path:
    """Write ``report.html`` and ``report.md`` of a training folder; the HTML path."""
    folder = Path(folder)
    t = _load(folder)
    sections = R.build_sections(SECTIONS, t, number_from=1)
    tr = t.manifest["training"]
    meta = (f"scenario {tr['scenario']} (fingerprint {tr['fingerprint']}), seed {tr['seed']}, "
            f"{tr['matches']:,} matches, {len(sections)} sections")
    return R.write_report(R.Report(f"nop-sim train: {tr['scenario']}", meta, sections), folder)
