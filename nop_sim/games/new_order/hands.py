"""New Order's hands to read and to check: fresh hands played from a scenario (``nop-sim
hands SCENARIO``), a run's stored ones (``nop-sim hands RUN --match N``) and the
referee's logged matches (``nop-sim referee``): the registry's ``fresh_hands``,
``stored_hands`` and ``referee``.
"""

from __future__ import annotations

import numpy as np

from nop_sim.games import registry
from nop_sim.games.new_order.engine import play_matches
from nop_sim.games.new_order.history import EVENT_COLUMNS, render_history, to_records
from nop_sim.games.new_order.referee import check_results
from nop_sim.games.new_order.seats import (
    match_tables,
    mix_rows,
    row_spec,
    seat_betting,
    seat_label,
)

__all__ = ["fresh_hands", "referee", "stored_hands"]


def fresh_hands(scn, count: int) -> tuple[str, list[dict]]:
    """``count`` hands of the scenario's first sweep point, played match by match from its seed."""
    point = scn.points()[0]
    settings = scn.settings_at(point)
    specs = scn.seat_specs(point, 0)
    betting = seat_betting([specs], np.zeros(1, np.int64))
    labels = [seat_label(s) for s in specs]
    records: list[dict] = []
    names: dict[int, list[str]] = {}  # match -> its seats' names (a mixture's row by match)
    match_seed = scn.seed
    while True:
        match = match_seed - scn.seed
        rows = mix_rows(scn.seed, specs, np.array([match]))[0]
        names[match] = registry.seat_names(labels, rows)
        res = play_matches(settings, [row_spec(s, r) for s, r in zip(specs, rows, strict=True)],
                           1, seed=match_seed, chunk_size=1, threads=1, log_every=1,
                           betting=betting)
        for rec in to_records(res.events):
            rec["match"] = match
            records.append(rec)
        n_hands = len({(r["match"], r["hand"]) for r in records if r["event"] == "hand_start"})
        if n_hands >= count:
            break
        match_seed += 1
    kept, seen = [], set()
    for rec in records:
        key = (rec["match"], rec["hand"])
        if rec["event"] == "hand_start":
            seen.add(key)
        if len(seen) > count:
            break
        kept.append(rec)
    # match by match, each with its seats' names (a history restarts its column and dart
    # at each match_start, so the parts join into the text of the whole)
    text = "\n".join(render_history([r for r in kept if r["match"] == m], names[m])
                     for m in dict.fromkeys(r["match"] for r in kept))
    return text, kept


def stored_hands(log) -> tuple[str, list[dict]]:
    records = list(to_records(log.events[list(EVENT_COLUMNS)].to_numpy(np.int64)))
    return render_history(records, log.names), records


def referee(settings, specs: list, n: int, seed: int) -> int:
    rows = mix_rows(seed, specs, np.arange(n))
    if (rows < 0).all():
        res = play_matches(settings, specs, n, seed=seed, chunk_size=n, threads=1, log_every=1,
                           betting=seat_betting([specs], np.zeros(1, np.int64)))
    else:  # a mixture: each match seats the rows drawn for it, as a run's would
        tables, table_of = match_tables([specs], np.zeros(n, np.int64), rows)
        res = play_matches(settings, tables, n, seed=seed, chunk_size=n, threads=1,
                           log_every=1, table_of=table_of,
                           betting=seat_betting([specs], np.zeros(len(tables), np.int64)))
    return check_results(res)
