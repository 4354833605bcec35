"""Settings, Disruptor mixes and agent tables: defaults, arrays, bad input."""

from __future__ import annotations

import numpy as np
import pytest

from nop_sim.games.new_order import types as T
from nop_sim.games.new_order.agents import PRESETS, AgentError, agent_row, agent_table
from nop_sim.games.new_order.disruptors import MixError, load_catalog, mix_arrays, resolve_mix
from nop_sim.games.new_order.settings import Settings, SettingsError, auto_chips, load_settings


def test_defaults_are_the_specs():
    s = Settings()
    assert (s.players, s.chips, s.decks, s.dart_start, s.dart_step, s.dart_cap) == (
        4, "auto", 1, 1, 1, 20)
    assert (s.ante, s.max_discard, s.betting, s.small_bet, s.big_bet, s.max_raises) == (
        1, 3, "limit", 2, 4, 3)
    assert (s.fee_to, s.promotions_per_action, s.dart_reset) == ("pot", 1, "never")
    assert (s.hedge_cost, s.hedge_payout, s.hedge_from, s.hedge_scope) == (5, 20, "pot", "hand")
    assert (s.draft_without_showdown, s.max_hands, s.disruptors) == (False, 1000, "default")


@pytest.mark.parametrize("players, chips", [(2, 75), (3, 75), (4, 75), (5, 60), (6, 50),
                                            (7, 42), (8, 40)])
def test_auto_chips(players, chips):
    assert auto_chips(players) == chips
    assert Settings(players=players).starting_chips == chips


def test_arrays_layout():
    s = Settings(players=6, chips=100, betting="no-limit", fee_to="bank", hedge_scope="match",
                 dart_reset="hand", draft_without_showdown=True)
    arr, mix = s.to_arrays()
    assert arr.dtype == np.int64 and arr.shape == (T.N_SETTINGS,)
    assert arr[T.S_PLAYERS] == 6 and arr[T.S_CHIPS] == 100
    assert arr[T.S_BETTING] == T.BET_NO_LIMIT and arr[T.S_FEE_TO] == T.TO_BANK
    assert arr[T.S_HEDGE_SCOPE] == T.SCOPE_MATCH and arr[T.S_DART_RESET] == T.RESET_HAND
    assert arr[T.S_DRAFT_NO_SHOWDOWN] == 1 and arr[T.S_MAX_HANDS] == 1000
    assert mix.deck.shape == (85,)


@pytest.mark.parametrize("changes, words", [
    ({"players": 1}, ["players", "1", "2 to 8"]),
    ({"players": 9}, ["players", "9", "2 to 8"]),
    ({"chips": 0}, ["chips", "0", ">= 1"]),
    ({"chips": "lots"}, ["chips", "lots", "auto"]),
    ({"dart_start": 5, "dart_cap": 3}, ["dart_cap", "3", "dart_start"]),
    ({"hedge_cost": -1}, ["hedge_cost", "-1", ">= 0"]),
    ({"betting": "no_limit"}, ["betting", "no_limit", "no-limit"]),
    ({"fee_to": "table"}, ["fee_to", "table", "'pot'"]),
    ({"decks": 5}, ["decks", "5"]),
    ({"max_discard": 6}, ["max_discard", "6", "0 to 5"]),
    ({"draft_without_showdown": "yes"}, ["draft_without_showdown", "yes"]),
    ({"players": True}, ["players", "True"]),
    ({"disruptors": "chaotic"}, ["disruptors", "chaotic", "chaos"]),
    ({"disruptors": {"windfal": 2}}, ["disruptors", "windfal", "windfall"]),
    ({"disruptors": {"windfall": -2}}, ["disruptors", "windfall", "-2"]),
])
def test_bad_values_name_field_value_and_allowed(changes, words):
    with pytest.raises(SettingsError) as err:
        Settings.from_mapping(changes, source="scenario.toml")
    text = str(err.value)
    assert "scenario.toml" in text
    for w in words:
        assert w in text, (w, text)


def test_unknown_key_did_you_mean():
    with pytest.raises(SettingsError, match="did you mean 'hedge_cost'|Did you mean 'hedge_cost'"):
        Settings.from_mapping({"hedge_costs": 3})
    with pytest.raises(SettingsError, match="Did you mean 'players'"):
        Settings().replace(player=3)


def test_replace_and_hash():
    s = Settings().replace(players=3, disruptors={"windfall": 2})
    assert s.players == 3 and s.disruptor_mix == {"windfall": 2}
    assert hash(s) == hash(Settings(players=3, disruptors={"windfall": 2}))
    assert isinstance(SettingsError("x"), ValueError)


def test_load_settings_toml(tmp_path):
    p = tmp_path / "s.toml"
    p.write_text('players = 3\nbetting = "pot-limit"\n[disruptors]\nlevy = 4\n')
    s = load_settings(p)
    assert s.players == 3 and s.betting == "pot-limit" and s.disruptor_mix == {"levy": 4}
    p.write_text("playerz = 3\n")
    with pytest.raises(SettingsError, match="playerz"):
        load_settings(p)
    p.write_text("players = 3\n[disruptors]\nlevy = 4\nlevy = 2\n")
    with pytest.raises(SettingsError, match=r"s\.toml: not valid TOML: duplicate key "
                                            r"\[disruptors\] levy at line 4 \(first given at line 3\)"):
        load_settings(p)


def test_catalog_is_the_specs():
    cat = load_catalog()
    assert cat.ids == T.DISRUPTOR_IDS
    by_type = {}
    for c in cat.cards:
        by_type[c.type] = by_type.get(c.type, 0) + c.copies
    assert by_type == {"instant": 35, "personal": 25, "community": 25}
    assert sum(resolve_mix("default").values()) == 85
    assert sum(resolve_mix("none").values()) == 0
    chaos = resolve_mix("chaos")
    default = resolve_mix("default")
    assert chaos["deuces_wild"] > default["deuces_wild"]
    assert chaos["wild_deuces"] > default["wild_deuces"]


def test_mix_arrays():
    m = mix_arrays({"levy": 3, "inversion": 1})
    assert sorted(m.deck.tolist()) == [T.D_LEVY] * 3 + [T.D_INVERSION]
    assert m.type[T.D_LEVY] == T.TYPE_INSTANT and m.type[T.D_INVERSION] == T.TYPE_COMMUNITY
    assert m.amount[T.D_WINDFALL] == 5 and m.amount[T.D_PRICE_CEILING] == 10
    with pytest.raises(MixError, match="levvy"):
        mix_arrays({"levvy": 1})
    with pytest.raises(MixError, match="-1"):
        mix_arrays({"levy": -1})


def test_agents():
    assert set(PRESETS) >= {"random", "station", "rock", "maniac", "manipulator", "hedger",
                            "balanced"}
    t = agent_table(["random", "balanced", {"preset": "rock", "bluff": 0.1}], 3)
    assert t.shape == (3, T.N_AGENT_PARAMS) and t.dtype == np.float64
    assert t[0, T.A_RANDOM] == 1.0 and t[2, T.A_BLUFF] == 0.1
    assert np.array_equal(agent_row(t[1]), t[1])
    with pytest.raises(AgentError, match="Did you mean 'maniac'"):
        agent_row("manic")
    with pytest.raises(AgentError, match="Did you mean 'bluff'"):
        agent_row({"bluf": 0.2})
    with pytest.raises(AgentError, match="bluff = 2"):
        agent_row({"bluff": 2})
    with pytest.raises(AgentError, match="one per seat"):
        agent_table(["rock"], 2)


def test_catalog_stacking_is_ruling_r6():
    stack = {c.id: c.stack for c in load_catalog().cards}
    for card in ("inflation", "hedge_boom", "double_ante", "hedge_fund"):
        assert stack[card] == "multiply", card
    assert stack["broker"] == "add"
    assert stack["safety_net"] == "each"
    for card in ("third_card", "price_ceiling", "frozen_market", "inversion", "no_limit",
                 "elevator", "deuces_wild", "wild_deuces", "deep_draw", "ante_exempt"):
        assert stack[card] == "once", card
    assert all(c.stack == "each" for c in load_catalog().cards if c.type == "instant")


def test_catalog_rejects_an_unknown_stacking_rule(monkeypatch):
    from importlib import resources

    import nop_sim.games.new_order.disruptors as D

    text = resources.files("nop_sim.games.new_order").joinpath("data/disruptors.toml").read_text("utf-8")
    bad = text.replace('stack = "add"', 'stack = "sum"', 1)

    class _Files:
        def joinpath(self, _):
            return self

        def read_bytes(self):
            return bad.encode("utf-8")

    monkeypatch.setattr(D.resources, "files", lambda _: _Files())
    D.load_catalog.cache_clear()
    try:
        with pytest.raises(RuntimeError, match="broker has stack 'sum'"):
            D.load_catalog()
    finally:
        monkeypatch.undo()
        D.load_catalog.cache_clear()
