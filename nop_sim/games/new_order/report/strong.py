"""Under strong play: the scenario's [strong] field in every seat, beside the run
(:data:`STRONG_SECTION`)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from nop_sim.games.agent_files import PLAYS_ALIKE, plays_alike, search_gap
from nop_sim.games.new_order import analysis as A
from nop_sim.games.new_order.agents import training_text
from nop_sim.games.new_order.report.common import (
    HOLM,
    STRONG_KEYS,
    _cis,
    _metric_text,
    _Point,
    _pts,
)
from nop_sim.games.new_order.report.disruptors import _disruptor_table
from nop_sim.reporting import Note, SectionSpec, Table, count, isnum, num_ci, pval
from nop_sim.results.run_data import RunData
from nop_sim.results.store import STRONG_FOLDER


def strong_run(folder: Path | None) -> RunData | None:
    """The finished run of a scenario's ``[strong]`` field inside a run folder, or None."""
    if folder is None:
        return None
    sub = Path(folder) / STRONG_FOLDER
    try:
        manifest = json.loads((sub / "manifest.json").read_text())
    except (OSError, ValueError):
        return None
    return A.load_run(sub) if manifest.get("status") == "finished" else None


@dataclass
class _Strong:
    """What the strong-play section reads: this run (the styles) and the field's run."""

    styles: _Point
    strong: RunData

    @property
    def field(self) -> dict:
        files = self.strong.manifest.get("agent_files") or [{}]
        return files[0]


def _under_strong(c: _Strong) -> list:
    f = c.field
    rows = len(f.get("rows") or [1])
    matches = int(c.strong.manifest.get("totals", {}).get("matches", 0))
    blocks: list = [Note(
        f"Every seat played the strong field of {f.get('given', '?')} (a mixture of {rows} "
        f"policy row{'s' * (rows > 1)}: {training_text(f.get('training') or {})}) in "
        f"{count(matches)} matches of these rules, seed {c.strong.manifest.get('seed')}. "
        f"The other sections describe the styles this scenario seats. The field is as strong "
        f"as its stated exploitability says: where a deviation gains several points, what "
        f"it does is strong play as far as its training got.")]
    keys = [k for k in A.METRICS if k not in STRONG_KEYS and k != "max_preset_advantage"]
    # the styles' tables the point sections read too, computed once
    both = [A.point_metrics(c.styles.run, n_boot=300, cache=c.styles.metric_cache()).iloc[0],
            A.point_metrics(c.strong, n_boot=300).iloc[0]]
    t = pd.DataFrame({"metric": [A.METRICS[k][0] for k in keys]})
    for label, m in zip(("styles (this run)", "strong field"), both, strict=True):
        t[label] = [_metric_ci(k, m) for k in keys]
    blocks.append(Table(t, "What strong players do, beside the styles (95% intervals)",
                        csv="strong_metrics.csv"))
    s = A.seat_fairness(c.strong)
    blocks.append(Table(pd.DataFrame({
        "seat": s["seat"].astype(int).astype(str),
        f"win rate ({HOLM})": _cis(s, "win_rate", "holm_low", "holm_high"),
        "advantage": _pts(s["advantage"]), "Holm p": [pval(x) for x in s["p_holm"]],
        "unfair": ["yes" if x else "" for x in s["outside"]]}),
        "Seat fairness under strong play: every seat the same field",
        csv="strong_seats.csv", full=s))
    values = _field_values(f)
    if values is not None:
        blocks.append(Table(pd.DataFrame({
            "mechanic": values["mechanic"],
            "value, points (95%)": [num_ci(v, lo, hi, 1) for v, lo, hi in zip(
                values["loss"], values["loss_low"], values["loss_high"], strict=True)],
            "reading": [PLAYS_ALIKE if plays_alike(lo, hi) else
                        "cannot be told from 0" if lo <= 0 <= hi else
                        "pays against this field" if lo > 0 else "below 0 (noise)"
                        for lo, hi in zip(values["loss_low"], values["loss_high"],
                                          strict=True)],
            "across fields": _across_fields(values)}),
            "What each mechanic is worth to a strong player (nop-sim value against this "
            "field: the best deviation's gain minus the best deviation's without it, both "
            "searched from the deviations known to beat the field as well)",
            csv="strong_values.csv", full=values))
        blocks.append(Note(
            "A value is a property of the rules only where fields trained with other seeds "
            "agree on it: it reads \"worth v (a to b)\" only where two or more such fields "
            "give values within 3 points of each other, each 95% interval within +-2; "
            "otherwise \"depends on the field\" or \"not settled\". Against one field "
            "it is that field's value (nop-sim value --strong A --strong B measures two).",
            "muted"))
        gap = search_gap(values, f.get("training") or {})
        if gap:
            blocks.append(Note(f"**Read these values with care:** {gap}.", "warning"))
    else:
        blocks.append(Note(f"No values beside {f.get('given', 'the field')}: measure them with "
                           f"nop-sim value SCENARIO --strong <its training folder>.", "muted"))
    d = A.disruptor_stats(c.strong)
    if not d.empty:
        d = d.reindex(d["adjusted_lift"].abs().sort_values(ascending=False).index).head(8)
        short = _disruptor_table(d.reset_index(drop=True))[[
            "card", "pick rate", "drafters / others win", f"adjusted lift, pts ({HOLM})",
            "Holm p (adjusted)", "outlier"]]
        blocks.append(Table(short,
                            "Disruptors under strong play: the 8 largest adjusted leads of "
                            "drafters over seats that drafted as many other cards (Holm "
                            "intervals; an association, not an effect)",
                            list(np.nonzero(d["outlier"].to_numpy())[0]),
                            "strong_disruptors.csv", d))
    return blocks


def _across_fields(values: pd.DataFrame) -> list[str]:
    """Each value's verdict across the fields it was measured against (nop-sim value with
    several fields, or a pooled training's halves): "worth v (a to b)" only where they
    agree (nop_sim.studies.train.verdict); one field cannot settle a value."""
    one = "one field: not settled"
    if "verdict" not in values:
        return [one] * len(values)
    return [v if isinstance(v, str) and n >= 2 else one
            for v, n in zip(values["verdict"], values["fields"].fillna(1), strict=True)]


def _metric_ci(key: str, m: pd.Series) -> str:
    v, lo, hi = m.get(key), m.get(f"{key}_low"), m.get(f"{key}_high")
    if not isnum(v):
        return "–"
    if isnum(lo) and isnum(hi):
        return f"{_metric_text(key, v)} ({_metric_text(key, lo)} to {_metric_text(key, hi)})"
    return _metric_text(key, v)


def _field_values(field: dict) -> pd.DataFrame | None:
    """``value.parquet`` beside the field's file (``nop-sim value`` writes it into the
    training folder), or None."""
    path = Path(field.get("file") or "").parent / "value.parquet"
    try:
        return pd.read_parquet(path) if field.get("file") and path.is_file() else None
    except (OSError, ValueError):
        return None


STRONG_SECTION = SectionSpec(
    "strong", "Under strong play",
    "The same rules with a strong field (the scenario's [strong], trained by nop-sim train) "
    "in every seat: what strong players do, how fair the seats are, what each mechanic is "
    "worth to them, which Disruptors lead.", _under_strong)
