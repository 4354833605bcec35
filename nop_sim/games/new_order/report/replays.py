"""Matches to replay: the report's logged matches worth watching, each with the ``nop-sim
replay`` command that steps through it (issue 40, item 5)."""

from __future__ import annotations

import shlex

import numpy as np
import pandas as pd

from nop_sim.games.new_order import analysis as A
from nop_sim.games.new_order.report.common import _Point
from nop_sim.reporting import Bullets, Csv, Note, count
from nop_sim.results.store import logged_matches, no_match_logged, replayable

RULE = ("Among the run's matches (any can be played again from its seed; a run of an older "
        "nop-sim: those it logged), one per rule: the match whose length is closest "
        "to the run's median (the typical match of the Match length section), the shortest, "
        "the longest, and the one with the most Disruptor effects per hand; ties go to the "
        "lower match number, and a match picked by two rules is listed once with both "
        "reasons. Each command opens the match on the play page, every card shown; run it "
        "where the report was made (the run folder's path is relative to there).")


def replay_command(folder, match: int, point: int | None = None) -> str:
    """The ``nop-sim replay`` line of a logged match (``point``: a sweep's point)."""
    where = f" --point {point}" if point is not None else ""
    return f"nop-sim replay {shlex.quote(str(folder))} --match {match}{where}"


def pick_replays(p: _Point) -> pd.DataFrame:
    """The matches worth watching at the point of ``p``, by :data:`RULE`: one row
    per match picked, ``match, hands, why, command``, in the rules' order; no rows where
    no match can be watched (an older run that logged none).

    A match's Disruptor effects are its cards drafted (the drafts table): each card taken
    applies its effect once (the engine's ``take_card`` logs one effect a card)."""
    folder, columns = p.run.folder, ["match", "hands", "why", "command"]
    if folder is None:
        raise A.MissingData("the run was not read from a folder")
    m = p.run.table("matches", "match", "hands", "unresolved").sort_values("match")
    every = replayable(p.run.manifest)
    if not every:
        m = m[m["match"].isin(logged_matches(folder, p.point))]
    if not len(m):
        return pd.DataFrame(columns=columns)
    drafts = p.run.table("drafts", "match", "count")
    effects = drafts["count"].groupby(drafts["match"]).sum()
    ids = m["match"].to_numpy(np.int64)
    hands = m["hands"].to_numpy(np.int64)
    median = float(p.get("length", A.match_length).iloc[0]["median_hands"])
    per_hand = effects.reindex(ids, fill_value=0).to_numpy(float) / np.maximum(hands, 1)
    n = len(ids)
    among = " matches" if every else " logged"
    # argmin/argmax take the first of equals: ids are sorted, so ties go to the lower number
    picks = [
        (int(np.argmin(np.abs(hands - median))),
         f"its length is closest to the run's median ({median:g} hands)"),
        (int(np.argmin(hands)), f"the shortest of the {count(n)}{among}"),
        (int(np.argmax(hands)), f"the longest of the {count(n)}{among}"
         + (", stopped unresolved at max_hands" if m["unresolved"].to_numpy()[
             int(np.argmax(hands))] else "")),
        (int(np.argmax(per_hand)), f"the most Disruptor effects per hand of the "
         f"{count(n)}{among} ({per_hand.max():.2f}: {count(effects.get(ids[int(np.argmax(per_hand))], 0))} "
         f"effects)"),
    ]
    sweeping = len(p.full.points) > 1
    rows: dict[int, dict] = {}
    for i, why in picks:
        row = rows.setdefault(i, {"match": int(ids[i]), "hands": int(hands[i]), "why": [],
                                  "command": replay_command(folder, int(ids[i]),
                                                            p.point if sweeping else None)})
        row["why"].append(why)
    return pd.DataFrame([{**r, "why": "; ".join(r["why"])} for r in rows.values()],
                        columns=columns)


def _replays(p: _Point) -> list:
    picked = pick_replays(p)
    if not len(picked):
        return [Note(no_match_logged(p.run.folder))]
    # a list, not a table: a command and a sentence read left to right, where a table
    # right-aligns every column but the first
    return [Note(RULE),
            Bullets([f"**{r.command}**: match {r.match}, {count(r.hands)} hands; {r.why}."
                     for r in picked.itertuples()]),
            Csv("replays.csv", picked)]
