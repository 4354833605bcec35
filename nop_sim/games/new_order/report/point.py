"""The numbered sections of one point, in order (:data:`POINT_SECTIONS`), and the
headline that opens them: the scorecard, the findings linked to their sections, the run's
facts."""

from __future__ import annotations

import pandas as pd

from nop_sim.games.new_order import analysis as A
from nop_sim.games.new_order.report.column import _column
from nop_sim.games.new_order.report.common import HOLM, _Point
from nop_sim.games.new_order.report.disruptors import _disruptors
from nop_sim.games.new_order.report.ledger import _hedging, _ledger
from nop_sim.games.new_order.report.match import _chips, _match_length
from nop_sim.games.new_order.report.players import _seats, _strategies
from nop_sim.games.new_order.report.replays import _replays
from nop_sim.games.new_order.report.scorecard import _scorecard
from nop_sim.reporting import Bullets, Csv, Note, SectionSpec, Table, count


# -- headline ---------------------------------------------------------------
def _headline(p: _Point) -> list:
    findings = A.findings(p.run, cache=p.tables(
        ("seat", A.seat_fairness), ("preset", A.preset_results),
        ("disruptor", A.disruptor_stats), ("length", A.match_length),
        ("winning", A.winning_categories), ("ledger", A.ledger_summary)))
    metrics = A.point_metrics(p.run, cache=p.metric_cache(("length", A.match_length))).iloc[0]
    blocks: list = [_scorecard(p, metrics), *_finding_blocks(findings),
                    Table(_run_facts(p), "The run")]
    changed = A.settings_changed(p.run, p.point)
    if len(changed):
        blocks.append(Table(changed, "Settings that differ from the SPEC defaults"))
    else:
        blocks.append(Note("Every game setting is at its SPEC default."))
    blocks.append(Csv("findings.csv", findings))
    return blocks


def _finding_blocks(findings: pd.DataFrame) -> list:
    """Warnings as a list linked to their sections, notes as muted lines."""
    titles = {s.id: s.title for s in POINT_SECTIONS}
    warn = findings[findings["severity"] == "warning"]
    if len(warn):
        blocks = [Note(f"{len(warn)} finding(s) need a look:", "warning"),
                  Bullets([f"{titles.get(r.section, r.section)}: {r.finding}"
                           for r in warn.itertuples()], "warning",
                          [r.section if r.section in titles else None
                           for r in warn.itertuples()])]
    else:
        blocks = [Note("No automatic finding: seats and presets within their fairness "
                       "intervals, no outlier Disruptor, unresolved matches under 1%, every "
                       "reachable category wins, the ledger's cap is reached in some matches "
                       "but not all.")]
    for r in findings[findings["severity"] == "note"].itertuples():
        blocks.append(Note(f"Note ({titles.get(r.section, r.section)}): {r.finding}.", "muted"))
    return blocks


def _run_facts(p: _Point) -> pd.DataFrame:
    run, m = p.run, p.run.manifest
    length = p.get("length", A.match_length).iloc[0]
    params = run.params(p.point)
    return pd.DataFrame([
        ("scenario", f"{m['scenario'].get('name', '?')} ({m['scenario'].get('source', '')})"),
        ("sweep point", f"{p.point} of {len(p.full.points)}: " + ", ".join(
            f"{k} = {v}" for k, v in params.items()) if params else "single run"),
        ("matches", count(length["matches"])),
        ("hands", count(length["hands"])),
        ("seed", str(m.get("seed"))),
        ("players", str(run.players(p.point))),
        ("seats", ", ".join((run._points_by_id.get(p.point) or {}).get("seats", [])) +
         (" (rotated)" if run.rotated else "")),
        ("started / ended", f"{m.get('started')} / {m.get('ended')}"),
        ("nop-sim, git", f"{m.get('versions', {}).get('nop_sim', '?')}, "
                         f"{(m.get('git_revision') or 'no git')[:10]}"),
    ], columns=["what", "value"])


POINT_SECTIONS = [
    SectionSpec("headline", "Headline",
                "What was run, what differs from the SPEC defaults, and what looks broken. "
                "Findings are flagged automatically; each links to its section below.",
                _headline),
    SectionSpec("length", "Match length",
                "How many hands a match lasts. Unresolved matches hit max_hands and were "
                "stopped; their chip leader is counted as the winner.", _match_length),
    SectionSpec("seats", "Seat fairness",
                "Does sitting in a given seat win more than 1/players? The chi-square test asks "
                "whether the seats differ at all; each seat's win rate is tested against "
                "1/players (the score test its Wilson interval inverts), Holm-corrected across "
                f"the seats, and shown with its {HOLM}, which leaves 1/players out exactly "
                "when the seat is flagged.", _seats),
    SectionSpec("strategies", "Strategies",
                "Win rate and chips per agent preset. With presets rotated across seats, seat "
                "and style are not confounded.", _strategies),
    SectionSpec("column", "The Ranking Column",
                "Where each category ends up and which categories win, against a column "
                "nobody moved.", _column),
    SectionSpec("ledger", "The Ledger",
                "Manipulation: how often players pay to promote a category, what the dart "
                "does over a match, and how much of the money is fees.", _ledger),
    SectionSpec("hedging", "Hedging",
                "Hedging tokens: how often players place them, how often they pay, and "
                "whether they pay for themselves.", _hedging),
    SectionSpec("disruptors", "Disruptors",
                "Per Disruptor card: how often it is seen and taken, and whether the players "
                "who take it win more.", _disruptors),
    SectionSpec("chips", "Chips",
                "How fast the table thins out, and how unequal stacks are.", _chips),
    SectionSpec("replays", "Matches to replay",
                "Matches worth watching, each with the command that steps through it "
                "in the browser (nop-sim replay): the chips, pot and column of every step, "
                "every card shown.", _replays),
]
"""The sections of one point, in order; :func:`analysis.findings` names them by id."""
