"""The training report: how exploitable the field was, round by round, and what it plays.

Built with the shared toolkit (:mod:`nop_sim.reporting`) from a training
folder: ``manifest.json``, ``state.json``, ``history.parquet`` and, once
``nop-sim value`` has run, ``value.parquet`` and ``drafts.parquet``.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np
import pandas as pd

from nop_sim import reporting as R
from nop_sim.games import DEFAULT_KIND, get_game
from nop_sim.games.agent_files import PLAYS_ALIKE, checked_bound, plays_alike, search_gap
from nop_sim.studies.train.pooled import HALVES, KIND, source_statement
from nop_sim.studies.train.search import statement

__all__ = ["POOL_SECTIONS", "REGRET_SECTIONS", "SECTIONS", "write_train_report"]


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
        return pd.DataFrame([{k: v for k, v in r.items() if k not in ("members", "sigma")}
                             for r in self.state["rounds"]])

    @property
    def epsilon(self) -> float:
        return float(self.manifest["training"]["epsilon"])

    @cached_property
    def policy(self):
        """The game's policy space: the unit its gains are stated in."""
        return get_game(self.manifest["scenario"].get("kind", DEFAULT_KIND)).policy

    @property
    def unit(self) -> str:
        return "win-rate points" if self.policy.unit == "points" else self.policy.unit

    def exact_gain(self, members, weights) -> float:
        """The exact gain per seat of the best deviation from the field of these population
        members and weights, where the game computes it (Kuhn poker); NaN elsewhere."""
        hook = self.policy.exact_exploitability
        if hook is None:
            return float("nan")
        game = dict(tomllib.loads(self.manifest["scenario"]["text"]).get("game", {}))
        game.pop("kind", None)
        settings = get_game(self.manifest["scenario"]["kind"]).settings.from_mapping(game)
        pop = np.asarray(self.state["population"], float)
        return float(hook(settings, pop[list(members)], np.asarray(weights, float))
                     ["gain_per_seat"])

    @cached_property
    def checked_training(self) -> dict:
        """strong.toml's ``[training]``: the training's claim and any independent check
        ``nop-sim exploit`` recorded since (the manifest holds only the first)."""
        try:
            return tomllib.loads((self.folder / "strong.toml").read_text()).get("training", {})
        except (OSError, ValueError):
            return dict(self.manifest.get("training", {}))

    def strong(self) -> tuple[list[str], np.ndarray, np.ndarray]:
        """The strong field: each row's label, its weight, and the rows."""
        fin = self.state["final"]
        pop = np.asarray(self.state["population"], float)
        labels = self.state.get("labels", [])
        members = fin["members"]
        names = [labels[m] if m < len(labels) else f"member {m}" for m in members]
        return names, np.asarray(fin["weights"]), pop[members]


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
def _statement(tr: dict, policy) -> str:
    scale = policy.scale
    said = statement(tr["exploitability"] / scale, tr["exploitability_low"] / scale,
                     tr["exploitability_high"] / scale, tr.get("search_matches", 0),
                     tr.get("search_starts", 0), policy)
    pooled = tr.get("searches_pooled", 1)
    return said + (f" ({pooled} searches pooled: the free one and one per mechanic)"
                   if pooled > 1 else "")


def _checked(t: _Training) -> str:
    """What an independent check (``nop-sim exploit``) found since, where it found more
    than the training's own search: a sentence, or ''."""
    checked = checked_bound(t.checked_training)
    if checked is None:
        return ""
    c, lo, hi, by = checked
    d = t.policy.digits
    said = f"{c:.{d}f} {t.policy.unit}"
    if lo is not None:
        said += f" (95% {lo:.{d}f} to {float('nan') if hi is None else hi:.{d}f})"
    by = f", by {by}" if by else ""
    return (f"An independent check found more since: a deviation gains at least {said}{by}. "
            f"That is the largest known lower bound.")


def _findings(t: _Training):
    tr = t.manifest["training"]
    state = "reached" if tr["converged"] else "not reached (the budget ended first)"
    checked = _checked(t)
    items = [
        f"**Exploitability: {_statement(tr, t.policy)}.** It is what one seat can gain by "
        f"deviating from the strong field, as far as that search could find: a lower bound."
        + (f" **{checked}**" if checked else ""),
        f"{tr['rounds']} rounds of PSRO, {tr['matches']:,} matches; the target of "
        f"{t.epsilon:g} {t.policy.unit} was {state}. The strong field is a mixture of "
        f"{tr.get('mixture', 1)} of the population's {tr.get('population', 1)} policies.",
    ]
    links = ["exploitability", "exploitability"]
    exact = t.manifest.get("exact")
    if exact:  # the game computes its fields' figures exactly (Kuhn poker)
        say = t.policy.amount
        items.append(f"**Exactly** (the game is solved by enumeration): the best single-seat "
                     f"deviation gains {say(exact['gain_per_seat'] / t.policy.scale)} per hand, "
                     f"averaged over the seats; the field's NashConv is "
                     f"{say(exact['nash_conv'] / t.policy.scale)} (0 at a Nash equilibrium). "
                     f"The search's lower bound above estimates the first from below.")
        links.append("exploitability")
    if t.value is not None and len(t.value):
        v = t.value
        clear = v[v["loss_low"] > 0].sort_values("loss", ascending=False)
        if "verdict" in v and v["verdict"].notna().any():  # measured against several fields
            items.append("Each mechanic's value, across the fields it was measured against "
                         "(settled only where they agree within 3 points and each 95% "
                         "interval is within +-2): " + "; ".join(
                             f"**{m}** {text}" for m, text in zip(v["mechanic"], v["verdict"],
                                                                  strict=True)
                             if isinstance(text, str)) + ".")
        elif len(clear):
            top = clear.iloc[0]
            items.append(f"The mechanic worth most under strong play is **{top['mechanic']}**: "
                         f"{top['loss']:+.1f} points (95% {top['loss_low']:+.1f} to "
                         f"{top['loss_high']:+.1f}).")
        else:
            items.append("No mechanic is clearly worth anything under strong play: every "
                         "value's interval holds 0 (a larger value budget narrows them).")
        links.append("value")
    return [R.Bullets(items, links=links)]


def _exploitability(t: _Training):
    r = t.rounds
    fin = t.state["final"]
    fig, axes = R.figure(3.2)
    ax = axes[0, 0]
    x = r["round"].to_numpy() if len(r) else np.zeros(0, int)
    y = r["exploitability"].to_numpy() if len(r) else np.zeros(0)
    if len(r):
        ax.errorbar(x, y, yerr=R.interval_err(y, r["low"], r["high"]), fmt="o-",
                    color=R.PALETTE["blue"], capsize=3, label="best deviation, checked")
    xf = (x.max() + 1) if len(x) else 0
    exact = [t.exact_gain(rd["members"], rd["sigma"]) for rd in t.state["rounds"]]
    if t.policy.exact_exploitability is not None:  # what the searches estimate from below
        ax.plot([*x.tolist(), xf], [*exact, t.exact_gain(fin["members"], fin["weights"])],
                "x", color=R.PALETTE["black"], ms=7, label="exact best deviation")
    ax.errorbar([xf], [fin["exploitability"]],
                yerr=R.interval_err([fin["exploitability"]], [fin["low"]], [fin["high"]]),
                fmt="s", color=R.PALETTE["vermillion"], capsize=3,
                label="the strong field, final search")
    checked = checked_bound(t.checked_training)
    if checked is not None:
        ce, lo, hi, _ = checked
        lo, hi = ce if lo is None else lo, ce if hi is None else hi
        ax.errorbar([xf], [ce], yerr=R.interval_err([ce], [lo], [hi]), fmt="D",
                    color=R.PALETTE["black"], capsize=3,
                    label="the strong field, largest independent check")
    ax.axhline(t.epsilon, color=R.PALETTE["grey"], ls="--", lw=1, label=f"epsilon {t.epsilon:g}")
    ax.axhline(0, color="black", lw=0.6)
    if len(x) <= 20:
        ax.set_xticks([*x.tolist(), xf], [*map(str, x.tolist()), "final"])
    else:  # many rounds: a few integer ticks, and the final check named where it stands
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(10, integer=True))
        ax.annotate("final", (xf, fin["high"]), textcoords="offset points", xytext=(0, 6),
                    ha="center", fontsize=8)
    ax.set_xlabel("round (the mixture of that round's population)")
    ax.set_ylabel(f"gain of one deviating seat\n({t.unit})")
    ax.legend(loc="upper right", fontsize=8)
    table = pd.DataFrame({
        "round": r["round"] if len(r) else [],
        f"exploitability ({t.policy.unit})": [R.num_ci(a, b, c, t.policy.digits) for a, b, c in
                                    zip(r.get("exploitability", []), r.get("low", []),
                                        r.get("high", []), strict=True)],
        **({f"exact gain ({t.policy.unit})": [R.num(v, t.policy.digits) for v in exact]}
           if t.policy.exact_exploitability is not None else {}),
        "mixture size": [R.count(v) for v in r.get("mixture_size", [])],
        f"meta-game regret ({t.policy.unit})": [R.num(v, t.policy.digits)
                                                for v in r.get("meta_regret", [])],
        "search size": [f"x{v:g}" for v in r.get("scale", [1] * len(r))],
        "starts": [R.count(v) for v in r.get("starts", [])],
        "check matches": [R.count(v) for v in r.get("check_matches", [])],
        "matches": [R.count(v) for v in r.get("matches", [])],
    })
    tr = t.manifest["training"]
    final = (f"The strong field is the mixture after round {fin.get('round', '?')}. Against "
             f"a final search with a new seed: {_statement(tr, t.policy)} "
             f"({fin['check_matches']:,} check matches).")
    checked = _checked(t)
    if checked:
        final += f" {checked}"
    shown = table
    if len(table) > 25:  # the first and last rounds; every round in the CSV
        keep = set(range(10)) | set(range(len(table) - 10, len(table)))
        shown = table.iloc[sorted(keep)]
    caption = "Rounds" if len(shown) == len(table) else "Rounds: the first 10 and the last 10"
    return [R.png(fig, "exploitability", "Each round's field: the checked gain of the best "
                  "deviation the round's search found against it, 95% interval (a lower "
                  "bound on what a deviation can gain); the square is the final search, a diamond the "
                  "largest independent check (nop-sim exploit), where one found more."),
            R.Note(final), R.Table(shown, caption, csv="rounds.csv", full=table)]


def _field(t: _Training):
    space = t.manifest["space"]
    names = space["names"]
    lo, hi = np.array(space["low"]), np.array(space["high"])
    idx = [space["columns"].index(n) for n in names]
    labels, weights, rows = t.strong()
    power = np.asarray(space.get("power") or np.ones(len(names)))
    units = np.clip((rows[:, idx] - lo) / (hi - lo), 0, 1) ** (1 / power)  # the search's cube
    fig, axes = R.figure(1.2 + 0.22 * len(names))
    ax = axes[0, 0]
    im = ax.imshow(units.T, aspect="auto", cmap=R.SEQUENTIAL, vmin=0, vmax=1,
                   interpolation="nearest")
    ax.set_yticks(range(len(names)), names, fontsize=7)
    ax.set_xticks(range(len(labels)), [f"{n}\n{w:.2f}" for n, w in zip(labels, weights,
                                                                       strict=True)],
                  fontsize=7)
    ax.set_xlabel("the strong field's rows and their weights")
    ax.grid(False)
    cb = fig.colorbar(im, ax=ax, shrink=0.6)
    cb.set_label("0 = lowest legal value, 1 = highest\n(the search's scale)")
    mix = pd.DataFrame({"row": labels, "weight": [R.num(w, 3) for w in weights]})
    table = pd.DataFrame({"parameter": names,
                          **{f"{n} ({w:.2f})": [R.num(v, 3) for v in rows[i, idx]]
                             for i, (n, w) in enumerate(zip(labels, weights, strict=True))},
                          "lowest": [R.num(v, 2) for v in lo],
                          "highest": [R.num(v, 2) for v in hi]})
    bounds = t.manifest.get("at_bounds") or {}
    edge = ("" if not bounds else " Parameters of the heaviest row at the edge of their legal "
            "range: " + ", ".join(f"{k} ({v})" for k, v in bounds.items()) + ".")
    return [R.Note("A seat given strong.toml draws one of these rows for each match, by "
                   "weight; the report of a run names the row each seat played." + edge),
            R.Table(mix, "The strong field's mixture", csv="mixture.csv"),
            R.png(fig, "field", "Each row's parameters on the search's scale of their legal "
                  "range (weights such as hedge and manipulate on a cube-root scale)."),
            R.Table(table, "The strong field's parameters", csv="strong_field.csv")]


def _value(t: _Training):
    if t.value is None:
        return [R.Note("Not measured yet: run `nop-sim value SCENARIO --strong "
                       f"{t.folder}` to add restricted play here.", "muted")]
    v = t.value
    d, points = t.policy.digits, t.policy.scale == 100  # points: drawn as win-rate percent
    per = 100 if points else 1
    fig, axes = R.figure(0.5 + 0.45 * len(v))
    R.hbar_ci(axes[0, 0], list(v["mechanic"]), v["loss"] / per, v["loss_low"] / per,
              v["loss_high"] / per, ref=0.0, ref_label="worth nothing", percent=points)
    axes[0, 0].set_xlabel("value: gain of the best deviation minus that of the best one "
                          "without the mechanic")
    has_gains = "gain_full" in v
    table = pd.DataFrame({
        "mechanic": v["mechanic"], "taken away by": v["pinned"],
        f"value ({t.policy.unit})": [R.num_ci(a, b, c, d) for a, b, c in
                           zip(v["loss"], v["loss_low"], v["loss_high"], strict=True)],
        "can tell from 0?": ["yes" if lo > 0 or hi < 0 else
                             f"no: {PLAYS_ALIKE}" if plays_alike(lo, hi) else "no"
                             for lo, hi in zip(v["loss_low"], v["loss_high"], strict=True)],
        **({"best deviation gains": [R.num_ci(a, b, c, d) for a, b, c in
                                     zip(v["gain_full"], v["gain_full_low"],
                                         v["gain_full_high"], strict=True)],
            "without it": [R.num_ci(a, b, c, d) for a, b, c in
                           zip(v["gain_restricted"], v["gain_restricted_low"],
                               v["gain_restricted_high"], strict=True)]} if has_gains else {}),
        "check matches": [R.count(x) for x in v["check_matches"]],
        **({"as precise as, plain a side": [R.count(x) if np.isfinite(x) else "exact"
                                            for x in v["effective_matches"]]}
           if "effective_matches" in v else {}),
        **({"across fields": [x if isinstance(x, str) else "–" for x in v["verdict"]]}
           if "verdict" in v else {})})
    gap = search_gap(v, t.checked_training)
    blocks = [*([R.Note(f"**Read with care:** {gap}.", "warning")] if gap else []),
              R.png(fig, "value", "Each mechanic's value under strong play, 95% interval "
                    "(about 0: the mechanic is dead weight)."),
              R.Note("Two equal searches against the strong field, one free and one that may "
                     "not use the mechanic, both started from the deviations known to beat "
                     "the field too (its training's final pick, nop-sim exploit's), pool "
                     "their best deviations. The best that leaves "
                     "the mechanic off is a legal free deviation too, so the free pick is the "
                     "better of it and the pool's best, on matches of their own; both picks "
                     "are then played on the same fresh matches, and the value is the "
                     "difference of their gains (Jaffe et al. 2012). So a value is below 0 "
                     "only by noise; each gain is "
                     "a lower bound (a larger search may find more), so a value is an "
                     "estimate for a player who searches this hard, and one whose interval "
                     "holds 0 cannot be told from nothing. A known deviation found by a far "
                     "larger search than this one is re-tuned without the mechanic only as "
                     "long as the free search improves it, so such a value leans high."),
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
        blocks += [R.Note("Per Disruptor: a strong seat's win rate in the matches where it "
                          "drafted the card and where it did not (all seats strong). A seat that "
                          "lives longer drafts more, so read a gap as a lead, not an effect."),
                   R.Table(dt, "Disruptors under strong play", csv="drafts.csv", full=d)]
    return blocks


def _work_unit(manifest: dict) -> str:
    """The game's unit of work (``hands``, ``turns``): the engine counts it."""

    try:
        return get_game(manifest["scenario"].get("kind") or DEFAULT_KIND).work
    except (KeyError, AttributeError):
        return "hands"


def _throughput(t: _Training):
    tp = t.manifest["throughput"]
    sec, eng = tp["seconds"], tp["engine_seconds"]
    share = 1 - eng / sec if sec > 0 else float("nan")
    unit = _work_unit(t.manifest)
    return [R.Note(f"{tp['matches']:,} matches ({tp['hands']:,} {unit}) in {sec:.1f} s: "
                   f"{tp['matches'] / max(sec, 1e-9):,.0f} matches/s; the engine ran "
                   f"{eng:.1f} s of it, so orchestration took {100 * share:.1f}%.")]


SECTIONS = [
    R.SectionSpec("findings", "Findings", "", _findings),
    R.SectionSpec("exploitability", "Exploitability", "How much one seat gains by deviating "
                  "from the field, round by round: 0 is an equilibrium of the policy space.",
                  _exploitability),
    R.SectionSpec("field", "The strong field", "The mixture of policies the training ends "
                  "with.", _field),
    R.SectionSpec("value", "What each mechanic is worth", "Restricted play (Jaffe et al., "
                  "2012): the best deviation with and without a mechanic, against the strong "
                  "field.", _value),
    R.SectionSpec("throughput", "Throughput", "", _throughput),
]


def write_train_report(folder: str | Path) -> Path:
    """Write ``report.html`` and ``report.md`` of a training folder (or of a pooled
    training's: :data:`POOL_SECTIONS`; of a CFR training's: :data:`REGRET_SECTIONS`); the
    HTML path."""
    folder = Path(folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    if manifest.get("kind") == KIND:
        return _write_pool_report(folder)
    if manifest.get("method") == "cfr":
        return _write_regret_report(folder)
    t = _load(folder)
    sections = R.build_sections(SECTIONS, t, number_from=1)
    tr = t.manifest["training"]
    meta = (f"scenario {tr['scenario']} (fingerprint {tr['fingerprint']}), seed {tr['seed']}, "
            f"{tr['matches']:,} matches, {len(sections)} sections")
    return R.write_report(R.Report(f"nop-sim train: {tr['scenario']}", meta, sections), folder)


# -- a pooled training (nop-sim train --seeds K) ----------------------------------------------
@dataclass
class _Pool:
    """A pooled training's folder: its manifest, strong.toml's ``[training]`` (with any
    check recorded since) and, once ``nop-sim value`` has measured its halves, the values."""

    folder: Path
    manifest: dict
    value: pd.DataFrame | None

    @cached_property
    def policy(self):
        return get_game(self.manifest["scenario"].get("kind", DEFAULT_KIND)).policy

    @cached_property
    def checked_training(self) -> dict:
        try:
            return tomllib.loads((self.folder / "strong.toml").read_text()).get("training", {})
        except (OSError, ValueError):
            return dict(self.manifest.get("training", {}))

    @property
    def pool(self) -> dict:
        return self.manifest["training"]["pool"]

    @property
    def fields(self) -> dict:
        return self.manifest["pool"]["fields"]

    @property
    def hardened(self) -> dict:
        """Each field's PSRO from the pool (:data:`~.pooled.FIELD_DIRS`)."""
        return self.manifest["pool"].get("hardened", {})


def _pool_findings(t: _Pool):
    tr, pool, p = t.manifest["training"], t.pool, t.policy
    checked = _checked(t)
    seeds = ", ".join(str(s) for s in pool["seeds"])
    stated = [s.get("checked_exploitability", s.get("exploitability"))
              for s in pool["sources"]]
    stated = [x for x in stated if x is not None]
    items = [
        f"**Exploitability of the pooled field: {_statement(tr, p)}.** What one seat can gain "
        f"by deviating from it, as far as that search could find: a lower bound."
        + (f" **{checked}**" if checked else ""),
        f"Pooled from {len(pool['seeds'])} trainings (seeds {seeds}), whose own fields' "
        f"largest stated gains range from {min(stated):.{p.digits}f} to "
        f"{max(stated):.{p.digits}f} {p.unit}." if stated else
        f"Pooled from {len(pool['seeds'])} trainings (seeds {seeds}).",
        f"The field is the mixture of a PSRO ({pool['hardened']['rounds']} round(s), seed "
        f"{pool['hardened']['seed']}, {pool['hardened']['matches']:,} matches) that started "
        f"from the pool's solution, {pool['rule']}, over {pool['meta_members']} of the "
        f"pool's policies (regret {pool['meta_regret']:.{p.digits + 1}f} {p.unit} on its "
        f"table); its population grew to {tr['population']}: a mixture of {tr['mixture']}.",
        "Its halves, " + " and ".join(f"{h} (seeds {', '.join(map(str, t.fields[h]['seeds']))}, "
                                      f"PSRO seed {t.hardened[h]['seed']})" for h in HALVES)
        + ", share no seed: two fields to measure a value against.",
    ]
    links = ["pool-exploitability", "sources", "pool", "fields"]
    if t.value is not None and "verdict" in t.value:
        items.append("Each mechanic's value, against the two halves: " + "; ".join(
            f"**{m}** {v}" for m, v in zip(t.value["mechanic"], t.value["verdict"], strict=True)
            if isinstance(v, str)) + ".")
        links.append("pool-value")
    return [R.Bullets(items, links=links)]


def _pool_exploitability(t: _Pool):
    fin, p = t.manifest["pool"]["final"], t.policy
    text = (f"The pooled field is measured as a training's field is, by one free search "
            f"with a seed of its own from every policy of the pool and the presets: "
            f"{_statement(t.manifest['training'], p)} ({fin['check_matches']:,} check "
            f"matches).")
    checked = _checked(t)
    halves = "; ".join(
        f"{h}: " + statement(t.hardened[h]["exploitability"] / p.scale,
                             t.hardened[h]["low"] / p.scale, t.hardened[h]["high"] / p.scale,
                             t.hardened[h]["search_matches"], t.hardened[h]["search_starts"], p)
        for h in HALVES)
    return [R.Note(text + (f" {checked}" if checked else "")),
            R.Note(f"Each half is measured as a training is, by its PSRO's final search: "
                   f"{halves}. `nop-sim exploit SCENARIO --strong {t.folder / HALVES[0]}` "
                   f"checks one again.", "muted")]


def _sources(t: _Pool):
    p, d = t.policy, t.policy.digits
    src = t.pool["sources"]
    frame = pd.DataFrame({
        "seed": [str(s["seed"]) for s in src],
        "folder": [s["folder"] for s in src],
        "rounds": [R.count(s["rounds"]) for s in src],
        "matches": [R.count(s["matches"]) for s in src],
        "field": [f"{s['mixture']} of {s['population']}" for s in src],
        f"exploitability at training ({p.unit})": [
            R.num_ci(s["exploitability"], s["exploitability_low"], s["exploitability_high"], d)
            if "exploitability" in s else "unknown" for s in src],
        f"independent check ({p.unit})": [
            R.num(s["checked_exploitability"], d) if "checked_exploitability" in s else ""
            for s in src],
        "converged": ["yes" if s["converged"] else "no" for s in src]})
    return [R.Note("Each training is an ordinary training folder, with its own report; its "
                   "stated exploitability is its final search's checked gain (a lower bound), "
                   "or an independent check's where one found more since: "
                   + "; ".join(f"seed {s['seed']}: {source_statement(s, p)}" for s in src)
                   + "."),
            R.Table(frame, "The trainings pooled", csv="sources.csv")]


def _pool_rule(t: _Pool):
    p, pool = t.policy, t.pool
    rows = [{"field": name, "seeds": ", ".join(map(str, f["seeds"])),
             "meta-game members": R.count(len(f["members"])),
             "mixture": R.count(sum(w > 0 for w in f["sigma"])),
             f"regret on the table ({p.unit})": R.num(f["meta_regret"], p.digits + 1),
             "matches played for it": R.count(f["matches"]),
             "its PSRO": (f"{t.hardened[name]['folder']}/: seed {t.hardened[name]['seed']}, "
                          f"{t.hardened[name]['rounds']} round(s), "
                          f"{R.count(t.hardened[name]['matches'])} matches")
             if name in t.hardened else ""}
            for name, f in t.fields.items()]
    cap = t.manifest["pool"].get("meta_cap", "?")
    return [R.Note(f"**Rule:** {pool['rule']}. A meta-game holds at most {cap} policies: the "
                   f"members of its trainings' fields first, heaviest in the mean of those "
                   f"fields, then each training's newest responses in turn. Its table holds "
                   f"{pool['table_matches']:,} matches: every training's own, and matches "
                   f"played where each field's solution is read (every member in one seat "
                   f"against the solution's draws), solved again after each of three "
                   f"samples. Each field is then hardened: {pool.get('hardening', '')}."),
            R.Table(pd.DataFrame(rows), "Each field's meta-game in the pool, where its PSRO "
                                        "started")]


def _pool_fields(t: _Pool):
    weights: dict[str, dict[str, float]] = {}
    for name, h in t.hardened.items():
        for label, w in zip(h["labels"], h["weights"], strict=True):
            if w > 0:
                weights.setdefault(f"{h['folder']}/ {label}" if not label.startswith("seed ")
                                   else label, {})[name] = w
    order = sorted(weights, key=lambda m: -weights[m].get("pool", 0.0))
    frame = pd.DataFrame({
        "policy": order,
        **{("pooled" if name == "pool" else name): [R.num(weights[m].get(name, 0.0), 3)
                                                     for m in order]
           for name in t.hardened}})
    return [R.Note("Every policy with weight in a field, and its weights: a seat given the "
                   "field's strong.toml draws one row for each match, by weight. A policy of "
                   "the trainings is named by the trainings that hold it (the scenario's "
                   "seats, which start every training, may be in both halves); one a field's "
                   "PSRO found, by its folder. A half's policies come from its own trainings "
                   "and its own PSRO alone."),
            R.Table(frame, "The pooled field and its halves", csv="fields.csv")]


def _pool_value(t: _Pool):
    if t.value is None or not len(t.value):
        return [R.Note("Not measured yet: `nop-sim value SCENARIO --strong "
                       f"{t.folder}` measures each mechanic against both halves.", "muted")]
    v, p = t.value, t.policy
    frame = pd.DataFrame({
        "mechanic": v["mechanic"],
        f"value ({p.unit})": [R.num_ci(a, b, c, p.digits) for a, b, c in
                              zip(v["loss"], v["loss_low"], v["loss_high"], strict=True)],
        **({"reading": list(v["verdict"])} if "verdict" in v else {})})
    return [R.Table(frame, "What each mechanic is worth, against the halves",
                    csv="pool_value.csv", full=v)]


def _pool_throughput(t: _Pool):
    tp = t.manifest["throughput"]
    return [R.Note(f"{tp['matches']:,} matches in all, the trainings' and the pool's, in "
                   f"{tp['seconds']:.1f} s of training time ({tp['engine_seconds']:.1f} s in "
                   f"the engine).")]


POOL_SECTIONS = [
    R.SectionSpec("findings", "Findings", "", _pool_findings),
    R.SectionSpec("pool-exploitability", "Exploitability", "How much one seat gains by "
                  "deviating from the pooled field.", _pool_exploitability),
    R.SectionSpec("sources", "The trainings", "The trainings pooled, each with its own "
                  "seed.", _sources),
    R.SectionSpec("pool", "The pool and its rule", "How the fields are solved from the "
                  "pooled population.", _pool_rule),
    R.SectionSpec("fields", "The fields", "The pooled field and the fields of each half "
                  "of the seeds.", _pool_fields),
    R.SectionSpec("pool-value", "What each mechanic is worth", "Restricted play against "
                  "the two halves.", _pool_value),
    R.SectionSpec("throughput", "Throughput", "", _pool_throughput),
]


def _write_pool_report(folder: Path) -> Path:
    manifest = json.loads((folder / "manifest.json").read_text())
    value = folder / "value.parquet"
    t = _Pool(folder, manifest, pd.read_parquet(value) if value.exists() else None)
    sections = R.build_sections(POOL_SECTIONS, t, number_from=1)
    tr = manifest["training"]
    meta = (f"scenario {tr['scenario']} (fingerprint {tr['fingerprint']}), seeds "
            f"{', '.join(map(str, tr['pool']['seeds']))}, {tr['matches']:,} matches, "
            f"{len(sections)} sections")
    return R.write_report(R.Report(f"nop-sim train --seeds: {tr['scenario']}", meta,
                                   sections), folder)


# -- a regret-minimisation training (nop-sim train --method cfr) ----------------------------
@dataclass
class _Regret:
    """A CFR training's folder: its manifest, the curve after each slice, the field's row."""

    folder: Path
    manifest: dict
    curve: pd.DataFrame
    field: dict
    value: pd.DataFrame | None      # nop-sim value's, once measured (as a PSRO field's)
    drafts: pd.DataFrame | None

    @cached_property
    def policy(self):
        return get_game(self.manifest["scenario"].get("kind", DEFAULT_KIND)).policy

    @property
    def checked_training(self) -> dict:
        return self.field.get("training", {})


def _load_regret(folder: Path) -> _Regret:
    manifest = json.loads((folder / "manifest.json").read_text())
    curve_path = folder / "curve.csv"
    curve = pd.read_csv(curve_path) if curve_path.exists() else pd.DataFrame()
    strong = tomllib.loads((folder / "strong.toml").read_text())

    def opt(name):
        path = folder / name
        return pd.read_parquet(path) if path.exists() else None

    return _Regret(folder, manifest, curve, strong, opt("value.parquet"), opt("drafts.parquet"))


def _regret_findings(t: _Regret):
    m, unit = t.manifest, t.policy.unit
    ab, tp = m["abstraction"], m["throughput"]
    items = [f"Trained by {m['trainer']}: {m['iterations']:,} iterations in "
             f"{tp['seconds']:.1f} s."]
    if m.get("exact"):
        e = m["exact"]
        items.append(f"**Exactly, NashConv {e['nash_conv']:.6f} {unit} per hand**: the best "
                     f"single-seat deviation from the field gains {e['gain_per_seat']:.6f} "
                     f"{unit} per hand, averaged over the seats (0 at a Nash equilibrium; "
                     f"enumerated, not estimated).")
    elif "checked_exploitability" in t.checked_training:
        c = t.checked_training
        items.append(f"**An independent check: a deviation gains at least "
                     f"{c['checked_exploitability']:.{t.policy.digits}f} {unit}** (95% "
                     f"{c['checked_low']:.{t.policy.digits}f} to "
                     f"{c['checked_high']:.{t.policy.digits}f}; {c['checked_by']}). A lower "
                     f"bound: a larger search may find more.")
    else:
        items.append("This game has no exact figure: check the field with nop-sim exploit, "
                     "whose gain is a lower bound on what a deviation can gain.")
    if ab.get("describe"):  # a betting abstraction (New Order), the trainer's settings
        items.append(f"The abstraction: {ab['describe']}; {ab['train']}.")
    else:
        items.append(f"The abstraction: {ab['infosets']:,} information sets, {ab['actions']} "
                     f"actions each.")
    if tp.get("updates_per_s"):
        items.append(f"Throughput: {tp['updates_per_s']:,.0f} information-set updates a "
                     f"second ({tp.get('updates', 0):,} in all, on this machine).")
    return [R.Bullets(items)]


def _regret_curve(t: _Regret):
    c = t.curve
    if len(c) and "gain" in c:  # no exact figure: each slice's small best response
        return _bound_curve(t)
    if not len(c) or "nash_conv" not in c:
        return [R.Note("No curve: this game has no exact figure to measure after each slice.",
                       "muted")]
    fig, axes = R.figure(3.0)
    ax = axes[0, 0]
    ax.plot(c["seconds"], c["nash_conv"], "o-", color=R.PALETTE["blue"], ms=3,
            label="the average strategy, exactly")
    ax.set_yscale("log")
    ax.set_xlabel("seconds of training (this machine)")
    ax.set_ylabel(f"NashConv ({t.policy.unit} per hand)")
    ax.legend(loc="upper right", fontsize=8)
    table = pd.DataFrame({"iteration": [R.count(v) for v in c["iteration"]],
                          "seconds": [R.num(v, 2) for v in c["seconds"]],
                          f"NashConv ({t.policy.unit})": [f"{v:.6f}" for v in c["nash_conv"]]})
    return [R.png(fig, "curve", "NashConv of the average strategy after each twentieth of "
                  "the iterations, by wall time: the exact distance from an equilibrium."),
            R.Table(table, "The curve", csv="curve.csv")]


def _bound_curve(t: _Regret):
    """The curve of a game without exact figures: after each slice, what a small best
    response within the abstraction gains against the average strategy so far."""
    c, unit, d = t.curve, t.policy.unit, t.policy.digits
    n = int(c["bound_matches"].iloc[-1])
    fig, axes = R.figure(3.0)
    ax = axes[0, 0]
    ax.errorbar(c["seconds"], c["gain"], yerr=[c["gain"] - c["low"], c["high"] - c["gain"]],
                fmt="o-", color=R.PALETTE["blue"], ms=3, capsize=2,
                label=f"a {n:,}-match best response's held-out gain (95%)")
    ax.axhline(0.0, color="0.6", lw=0.8)
    ax.set_xlabel("seconds of training (this machine; the checks not counted)")
    ax.set_ylabel(f"gain over the field ({unit})")
    ax.legend(loc="upper right", fontsize=8)
    table = pd.DataFrame({"iteration": [R.count(v) for v in c["iteration"]],
                          "seconds": [R.num(v, 2) for v in c["seconds"]],
                          f"gain ({unit})": [f"{v:+.{d}f}" for v in c["gain"]],
                          "95% interval": [f"{lo:+.{d}f} to {hi:+.{d}f}"
                                           for lo, hi in zip(c["low"], c["high"], strict=True)]})
    clear = int((c["low"] > 0).sum())
    said = (f"{clear} of {len(c)} points clearly gain (their 95% interval above 0)." if clear
            else "No point clearly gains: a best response of this size, learned from "
                 "nothing, finds no answer inside the abstraction that beats the table "
                 "(it plays worse than the table itself where its gain is below 0). That is "
                 "no bound on the field: nop-sim exploit's parametric search, which moves "
                 "every decision, is its check.")
    return [R.Note(said, "p" if clear else "muted"),
            R.png(fig, "curve", f"What a best response within the betting abstraction, "
                  f"learned in {n:,} matches against the average strategy after each "
                  f"twentieth of the iterations, gains on held-out deals (95% intervals): "
                  f"where an interval lies above 0, a small lower bound on a deviation's "
                  f"gain (nop-sim exploit checks the final field with the parametric search "
                  f"too)."),
            R.Table(table, "The curve", csv="curve.csv")]


def _regret_field(t: _Regret):
    row = t.field.get("agent", {})
    names = [k for k in row if k != "weight"]
    table = pd.DataFrame({"parameter": names, "value": [R.num(float(row[n]), 4)
                                                        for n in names]})
    table_file = t.field.get("betting", {}).get("table")
    note = ("One row every seat plays (each seat reads its own information sets): the "
            "average strategy, the part of CFR that converges." if not table_file else
            f"Every seat bets by the average strategy in {table_file} (the part of CFR "
            f"that converges); the row below plays every other decision.")
    return [R.Note(note),
            R.Table(table, "The strong field", csv="strong_field.csv")]


REGRET_SECTIONS = [
    R.SectionSpec("findings", "Findings", "", _regret_findings),
    R.SectionSpec("curve", "Exploitability over time", "How far from an equilibrium the "
                  "field was as the training went on.", _regret_curve),
    R.SectionSpec("field", "The strong field", "What strong.toml holds.", _regret_field),
    R.SectionSpec("value", "What each mechanic is worth", "Restricted play (Jaffe et al., "
                  "2012): the best deviation with and without a mechanic, against the strong "
                  "field.", _value),
]


def _write_regret_report(folder: Path) -> Path:
    t = _load_regret(folder)
    sections = R.build_sections(REGRET_SECTIONS, t, number_from=1)
    sc = t.manifest["scenario"]
    meta = (f"scenario {sc['name']} (fingerprint {sc['fingerprint']}), CFR, "
            f"{t.manifest['iterations']:,} iterations, {len(sections)} sections")
    return R.write_report(R.Report(f"nop-sim train --method cfr: {sc['name']}", meta,
                                   sections), folder)
