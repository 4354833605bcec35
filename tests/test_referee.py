"""Logged matches replayed by the plain-Python referee, and the log's readable forms."""

from __future__ import annotations

import json

import numpy as np
import pytest

from nop_sim import types as T
from nop_sim.engine import play_matches
from nop_sim.events import render_history, to_records, write_json_lines
from nop_sim.referee import RuleViolation, check_log, check_results
from nop_sim.rules import Settings

CASES = [
    ({"players": 2}, "random"),
    ({"players": 3, "betting": "pot-limit"}, "random"),
    ({"players": 5, "betting": "no-limit"}, "random"),
    ({"players": 8}, "random"),
    ({"players": 6, "betting": "no-limit"}, "maniac"),
    ({"players": 7, "betting": "pot-limit"}, "balanced"),
    ({"fee_to": "bank", "hedge_from": "bank"}, "random"),
    ({"hedge_scope": "match"}, "hedger"),
    ({"hedge_scope": "match"}, "random"),
    ({"decks": 2, "players": 6}, "random"),
    ({"disruptors": "chaos"}, "random"),
    ({"dart_reset": "hand", "promotions_per_action": 3}, "random"),
    ({"draft_without_showdown": True}, "maniac"),
    ({"max_discard": 5, "disruptors": "none"}, "random"),
    ({"chips": 3, "ante": 2}, "random"),
    ({}, ["random", "station", "rock", "maniac"]),
    ({"players": 7}, ["random", "station", "rock", "maniac", "manipulator", "hedger",
                      "balanced"]),
]


def _play(changes, agents, n, max_hands, seed=3):
    s = Settings().replace(max_hands=max_hands, **changes)
    return play_matches(s, agents, n_matches=n, seed=seed, log_every=1,
                        log_capacity=2_000_000, check=True, chunk_size=4)


@pytest.mark.parametrize("changes, agents", CASES, ids=[f"{c}-{a}" for c, a in CASES])
def test_referee_accepts_logged_matches(changes, agents):
    r = _play(changes, agents, n=16, max_hands=80)
    assert check_results(r) == 16


@pytest.mark.parametrize("card", T.DISRUPTOR_IDS)
def test_referee_checks_every_effect(card):
    r = _play({"disruptors": {card: 12}}, "random", n=10, max_hands=60)
    assert check_results(r) == 10
    assert any(rec["event"] == "pick" and rec["card"] == card for rec in to_records(r.events))


@pytest.mark.slow
@pytest.mark.parametrize("changes, agents", CASES + [({"disruptors": {c: 12}}, "random")
                                                     for c in T.DISRUPTOR_IDS])
def test_referee_thousands_of_matches(changes, agents):
    r = _play(changes, agents, n=100, max_hands=300, seed=17)
    assert check_results(r) == 100


def test_referee_catches_tampering():
    r = _play({}, "random", n=2, max_hands=30)
    records = list(to_records(r.events))
    check_log(records, r.settings)
    for i, rec in enumerate(records):
        if rec["event"] == "award":
            bad = [dict(x) for x in records]
            bad[i]["chips"] += 1
            with pytest.raises(RuleViolation, match="award"):
                check_log(bad, r.settings)
            break
    for i, rec in enumerate(records):
        if rec["event"] == "action" and rec["action"] == "call":
            bad = [dict(x) for x in records]
            bad[i]["seat"] = (bad[i]["seat"] + 1) % r.settings.players
            with pytest.raises(RuleViolation):
                check_log(bad, r.settings)
            break


def test_log_is_off_by_default_and_sampled():
    r = play_matches(Settings(max_hands=40), "random", n_matches=6, seed=1)
    assert r.events.shape == (0, T.EV_WIDTH)
    r = play_matches(Settings(max_hands=40), "random", n_matches=6, seed=1, log_every=3)
    assert set(np.unique(r.events[:, 0]).tolist()) == {0, 3}
    quiet = play_matches(Settings(max_hands=40), "random", n_matches=6, seed=1)
    assert quiet.match.tobytes() == r.match.tobytes()  # logging changes nothing


def test_json_lines_and_history(tmp_path):
    r = _play({"players": 3}, "balanced", n=1, max_hands=20)
    path = write_json_lines(r.events, tmp_path / "log.jsonl")
    lines = path.read_text().splitlines()
    assert len(lines) == r.events.shape[0]
    first = json.loads(lines[0])
    assert first["event"] == "match_start" and first["players"] == 3
    text = render_history(to_records(r.events), names=["Ann", "Bob", "Cy"])
    assert "Hand #1" in text and "Column:" in text and "dart" in text
    assert "=== Match 0 over" in text
