"""Who wins: the sections on seat fairness and strategies (presets, mixtures, trained
agents, head to head)."""

from __future__ import annotations

import matplotlib
import numpy as np
import pandas as pd

from nop_sim import reporting as R
from nop_sim.core.stats import ALPHA
from nop_sim.games.new_order import analysis as A
from nop_sim.games.new_order.agents import training_text
from nop_sim.games.new_order.report.common import HOLM, _cis, _Point, _pts
from nop_sim.games.registry import seat_name
from nop_sim.reporting import PALETTE, Note, Table, count, num, num_ci, pct, pval


# -- seats ------------------------------------------------------------------
def _seats(p: _Point) -> list:
    s = p.get("seat", A.seat_fairness)
    chi = A.seat_chi_square(p.run)
    c = chi.iloc[0] if len(chi) else None
    title = (f"chi-square = {c['chi2']:.1f}, {int(c['dof'])} df, p = {pval(c['p_value'])}"
             if c is not None else "")
    fig, axes = R.figure(max(2.2, 0.42 * len(s) + 1.2))
    ax = axes[0, 0]
    R.hbar_ci(ax, [f"seat {int(x)}" for x in s["seat"]], s["win_rate"], s["holm_low"],
              s["holm_high"], ref=float(s["fair"].iloc[0]), ref_label="fair share",
              highlight=s["outside"].to_numpy())
    ax.set_xlabel("matches won (%)")
    ax.set_title(title, loc="left", fontweight="normal", fontsize=10)
    R.hbar_legend(ax)
    t = pd.DataFrame({
        "seat": s["seat"].astype(int).astype(str),
        "wins": [count(x) for x in s["wins"]], "matches": [count(x) for x in s["seats"]],
        f"win rate ({HOLM})": _cis(s, "win_rate", "holm_low", "holm_high"),
        "fair": [pct(x) for x in s["fair"]],
        "advantage": _pts(s["advantage"]),
        "Holm p": [pval(x) for x in s["p_holm"]],
        "unfair": ["yes" if x else "" for x in s["outside"]],
    })
    blocks = [R.png(fig, "seats", f"Win rate per seat (dot) with its {HOLM} (Wilson, at the "
                    "level Holm's correction across the seats holds it to: it leaves the fair "
                    "share out exactly when Holm p < 0.05); dashed: the fair 1/players. "
                    "Vermillion: outside fairness after Holm correction."),
              Table(t, "Wins per seat", csv="seats.csv", full=s)]
    if c is not None:
        verdict = ("the seats differ" if c["p_value"] < ALPHA else
                   "no evidence that the seats differ")
        blocks.append(Note(f"Chi-square test of equal wins per seat: {title} — {verdict} "
                           f"at the 5% level."))
    return blocks


# -- strategies -------------------------------------------------------------
def _strategies(p: _Point) -> list:
    pr = p.get("preset", A.preset_results)
    has_net = "net_chips" in pr.columns
    fig, axes = R.figure(max(2.4, 0.42 * len(pr) + 1.3), ncols=2 if has_net else 1)
    labels = list(pr["preset"].astype(str))
    R.hbar_ci(axes[0, 0], labels, pr["win_rate"], pr["holm_low"], pr["holm_high"],
              ref=float(pr["fair"].iloc[0]), ref_label="fair share",
              highlight=pr["outside"].to_numpy())
    axes[0, 0].set_xlabel("matches won (%)")
    if has_net:
        R.hbar_ci(axes[0, 1], labels, pr["net_chips"], pr["net_chips_low"],
                  pr["net_chips_high"], ref=0.0, percent=False)
        axes[0, 1].set_xlabel("net chips per seat and match (chips)")
        axes[0, 1].set_yticklabels([])
    t = pd.DataFrame({
        "preset": labels, "seats": [count(x) for x in pr["seats"]],
        f"win rate ({HOLM})": _cis(pr, "win_rate", "holm_low", "holm_high"),
        "advantage": _pts(pr["advantage"]),
        "Holm p": [pval(x) for x in pr["p_holm"]],
        "mean place": [num(x, 2) for x in pr["mean_place"]],
    })
    if has_net:
        t["net chips (95% CI)"] = _cis(pr, "net_chips", "net_chips_low", "net_chips_high",
                                       num_ci, 1)
    blocks = [R.png(fig, "presets", f"Left: win rate per preset ({HOLM}, Wilson: it leaves "
                    "the fair share out exactly when Holm p < 0.05; dashed: fair 1/players; "
                    "vermillion: unfair after Holm). Right: mean chips won or lost per seat "
                    "and match (95% t interval)."),
              Table(t, "Results per preset", csv="presets.csv", full=pr),
              *_mixture_rows(p)]
    sk = A.skill_matrix(p.run)
    if len(sk) and sk["preset"].nunique() > 1:
        blocks += _skill(sk)
        if not p.run.rotated:
            blocks.append(Note("Presets do not rotate across seats in this scenario, so a "
                               "preset's results include its seats' advantage.", "muted"))
    else:
        blocks.append(Note("No head-to-head matrix: every seat plays the same preset.",
                           "muted"))
    return _trained_agents(p) + blocks


def _mixture_rows(p: _Point) -> list:
    """The rows of each mixture seated: weight, seats played, share and win rate."""
    mx = A.mixture_rows(p.run)
    if not len(mx):
        return []
    t = pd.DataFrame({
        "agent": mx["preset"].astype(str), "row": mx["row"].astype(str),
        "weight": [pct(x) for x in mx["weight"]],
        "seats played": [count(x) for x in mx["seats"]],
        "share of its seats (95% CI)": _cis(mx, "share", "share_low", "share_high"),
        "win rate (95% CI)": _cis(mx, "win_rate", "ci_low", "ci_high"),
        "fair": [pct(x) for x in mx["fair"]],
    })
    off = mx[(mx["weight"] < mx["share_low"]) | (mx["weight"] > mx["share_high"])]
    drawn = ("Every row's share of its seats holds its weight (95% Wilson interval)."
             if off.empty else
             f"Rows whose share of seats misses their weight: "
             f"{', '.join(f'{a} row {r}' for a, r in zip(off['preset'], off['row'], strict=True))}"
             f" (1 in 20 rows may, by chance).")
    return [Table(t, "Mixture rows", csv="mixture_rows.csv", full=mx),
            Note("A seat given a mixture agent file plays one of its rows per match, drawn "
                 "with the file's weights from the run's seed and the match number (the "
                 "seats table's mix_row). " + drawn, "muted")]


def _trained_agents(p: _Point) -> list:
    """A note per agent file seated (``@path`` in ``[seats]``): where it sits, what it
    was trained for, and how exploitable it was at training."""
    m = p.full.manifest
    labels = next((q.get("seats", []) for q in m.get("points", [])
                   if int(q["point"]) == p.point), [])
    notes = []
    for f in m.get("agent_files") or []:
        if m.get("rotation"):
            who = "In rotation, every seat in turn plays"
        else:
            seats = [i for i, label in enumerate(labels) if label == f["label"]]
            if not seats:  # another sweep point's agent (nop-sim sweep --train)
                continue
            who = ("Every seat plays" if len(seats) == len(labels) else
                   f"{seat_name(seats[0])} plays" if len(seats) == 1 else
                   f"Seats {', '.join(map(str, seats))} play")
        rows = f.get("weights") or [1.0]
        mixture = (f", a mixture of {len(rows)} rows drawn per match (weights "
                   f"{', '.join(f'{w:.3g}' for w in rows)}; see Mixture rows)"
                   if len(rows) > 1 else "")
        notes.append(Note(f"{who} a trained agent, **{f['label']}** (file {f['file']}"
                          f"{mixture}), "
                          f"{training_text(f.get('training') or {}, f.get('overrides'))}."))
    return notes


def _skill(sk: pd.DataFrame) -> list:
    names = sorted(set(sk["preset"].astype(str)) | set(sk["opponent"].astype(str)))
    n = len(names)
    mat = np.full((n, n), np.nan)
    for r in sk.itertuples():
        mat[names.index(str(r.preset)), names.index(str(r.opponent))] = r.rate
    fig, axes = R.figure(1.4 + 0.7 * n, width=min(R.WIDTH, 2.2 + 0.95 * n))
    ax = axes[0, 0]
    dev = np.nanmax(np.abs(mat - 0.5)) if np.isfinite(mat).any() else 0.5
    dev = max(dev, 0.05)
    norm = matplotlib.colors.Normalize(0.5 - dev, 0.5 + dev)
    im = ax.imshow(mat, cmap=R.DIVERGING, norm=norm)
    R.annotate_heat(ax, mat, lambda v: f"{100 * v:.0f}%", norm=norm, cmap=R.DIVERGING)
    for i in range(n):
        ax.text(i, i, "—", ha="center", va="center", color=PALETTE["grey"])
    ax.set_xticks(range(n), names, rotation=30, ha="right")
    ax.set_yticks(range(n), names)
    ax.set_xlabel("opponent")
    ax.set_ylabel("preset")
    ax.grid(False)
    cb = fig.colorbar(im, ax=ax, shrink=0.85)
    R.percent_axis(cb.ax.yaxis, 0)
    cb.set_label("finished above (%)")
    first = sk[sk["preset"].astype(str) < sk["opponent"].astype(str)]
    t = pd.DataFrame({
        "preset": first["preset"].astype(str), "opponent": first["opponent"].astype(str),
        "meetings": [count(x) for x in first["meetings"]],
        f"preset ahead ({HOLM})": _cis(first, "rate", "holm_low", "holm_high"),
        "Holm p": [pval(x) for x in first["p_holm"]],
    })
    return [R.png(fig, "skill_matrix", "Head to head: share of matches in which the row "
                  "preset finished above the column preset. 50% = even; purple: the row does "
                  "better, orange: worse."),
            Table(t, "Head to head (each pair once)", csv="skill_matrix.csv", full=sk)]
