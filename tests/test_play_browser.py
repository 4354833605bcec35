"""nop-sim play's page in a real browser (issue 40): Debian's Chromium, headless, driven
by Playwright with the system browser (no browser download). Skipped, saying why, where
Playwright or Chromium is missing."""

import contextlib
import json
import os
import shutil
import urllib.request

import numpy as np
import pytest
from reference import CARD_TEXT, known_cards

from nop_sim.core.cards import format_card
from nop_sim.games.new_order.agents import agent_table
from nop_sim.games.new_order.settings import Settings
from nop_sim.games.new_order.table import NewOrderReplay, NewOrderTable
from nop_sim.games.ordered_hand.agents import agent_table as ordered_agents
from nop_sim.games.ordered_hand.agents import resolve_agents
from nop_sim.games.ordered_hand.engine import play_matches
from nop_sim.games.ordered_hand.settings import OrderedSettings
from nop_sim.games.ordered_hand.table import OrderedHandReplay, OrderedHandTable
from nop_sim.play.server import TableServer

CHROMIUM = os.environ.get("NOP_CHROMIUM") or shutil.which("chromium") or shutil.which(
    "chromium-browser")
sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed "
                               "(pip install playwright; the system Chromium is used)")
if CHROMIUM is None:
    pytest.skip("no Chromium on this machine (Debian: apt-get install chromium)",
                allow_module_level=True)


@contextlib.contextmanager
def served(browser, table, pace_ms: int):
    """``table`` served on 127.0.0.1 and a page of ``browser``: (page, server, errors), the
    errors every console error and uncaught exception of the page; both closed after."""
    server = TableServer(table, pace_ms=pace_ms)
    server.start()
    errors: list[str] = []
    pg = browser.new_page()
    pg.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    pg.on("pageerror", lambda e: errors.append(str(e)))
    try:
        yield pg, server, errors
    finally:
        pg.close()
        server.close()


def _state(url: str) -> dict:
    with urllib.request.urlopen(url + "api/state", timeout=30) as r:
        return json.loads(r.read())


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                     args=["--no-sandbox"])
        yield browser
        browser.close()


@pytest.fixture()
def page(browser):
    s = Settings(chips=40, max_hands=40)
    table = NewOrderTable(s, agent_table("maniac", s.players), 1, seed=2,
                          labels=["maniac"] * 4)
    with served(browser, table, pace_ms=0) as (pg, server, errors):
        pg.goto(server.url)
        pg.wait_for_selector("#buttons button")
        yield pg, server.url, errors


def _screen_chips(pg) -> list[int]:
    return [int(t) for t in pg.locator(".seat .chips").all_inner_texts()]


def _click(pg, group: str) -> None:
    """Click ``group``'s (first) button and wait for the page to show the new state."""
    n = pg.evaluate("() => Number(document.body.dataset.renders)")
    pg.locator(f'#buttons .group[data-group="{group}"] button').first.click()
    pg.wait_for_function("(n) => Number(document.body.dataset.renders) > n", arg=n)
    assert not pg.locator("#error").inner_text(), (group, pg.locator("#error").inner_text())


def test_fold_call_and_raise_through_a_hand(page):
    pg, url, errors = page
    st = _state(url)
    for _ in range(15):  # the first hand in which the maniacs let the person do all three
        hand, done = st["hand_number"], set()
        while st["hand_number"] == hand and not st["done"]:
            legal = {e["action"] for e in st["legal"]}
            for want in ("raise", "call", "fold"):
                if want in legal and want not in done and (
                        want != "fold" or done >= {"raise", "call"}):
                    _click(pg, want)
                    done.add(want)
                    break
            else:
                _click(pg, next(a for a in ("check", "call", "skip", "discard", "show", "pick",
                                            "drop", "tip", "short", "elevate", "swap", "purge")
                                if a in legal))
            st = _state(url)
        if done == {"raise", "call", "fold"}:
            break
    assert done == {"raise", "call", "fold"}
    assert _screen_chips(pg) == [s["chips"] for s in st["seats"]]
    assert not errors


def test_an_illegal_amount_is_refused_with_a_message(page):
    pg, url, errors = page
    st = _state(url)
    sized = [e for e in st["legal"] if "min" in e]
    if not sized:
        _click(pg, next(e["action"] for e in st["legal"] if e["action"] in ("check", "call")))
        st = _state(url)
        sized = [e for e in st["legal"] if "min" in e]
    e = sized[0]
    box = pg.locator(f'#buttons .group[data-group="{e["action"]}"] input')
    box.fill(str(e["max"] + 50))
    pg.locator(f'#buttons .group[data-group="{e["action"]}"] button').click()
    pg.wait_for_function("() => document.querySelector('#error').innerText.length > 0")
    assert int(pg.evaluate("() => document.body.dataset.renders")) >= 2
    assert "out of bounds" in pg.locator("#error").inner_text()
    assert _state(url) == st
    assert not errors


def test_a_paid_ledger_move_reorders_the_column_on_screen(page):
    pg, url, errors = page
    st = _state(url)
    for _ in range(60):  # call until the Ledger offers a promotion with the call
        if st["decision"] == "promote" or st["done"]:
            break
        legal = {e["action"] for e in st["legal"]}
        _click(pg, next(a for a in ("call", "check", "skip", "discard", "show", "pick", "drop",
                                    "tip", "short", "elevate", "swap", "purge") if a in legal))
        st = _state(url)
    assert st["decision"] == "promote"
    offer = [e for e in st["legal"] if e["action"] == "promote"][-1]
    col = pg.locator("#column li").all_inner_texts()
    assert [c.split("token")[0].strip() for c in col] == st["column"]
    pg.locator('#buttons .group[data-group="promote"] select').select_option(
        str(len(st["legal"]) - 2))  # the last promote entry (skip comes after)
    chips = st["seats"][st["seat"]]["chips"]
    _click(pg, "promote")
    after = _state(url)
    i = st["column"].index(offer["category"])
    assert after["column"][i - 1] == offer["category"]  # one place up, on screen as in the engine
    assert [c.split("token")[0].strip() for c in pg.locator("#column li").all_inner_texts()] \
        == after["column"]
    log = pg.locator("#log").inner_text()
    assert f"promotes {offer['category']} above {offer['above']} (fee {offer['fee']}" in log
    assert after["seats"][after["seat"]]["chips"] <= chips - offer["fee"]
    assert not errors


def test_a_replay_steps_forward_and_back_on_screen(browser, tmp_path):

    s = Settings(chips=20, max_hands=10)
    table = NewOrderTable(s, agent_table("maniac", s.players), 0, seed=4)
    while not table.done:
        e = dict(table.state()["legal"][-1])
        table.act(dict(e, amount=e["min"]) if "min" in e else e)
    replay = NewOrderReplay(s, table.records(hidden=False), table.names)
    with served(browser, replay, pace_ms=0) as (pg, server, errors):
        pg.goto(server.url)
        pg.wait_for_function("() => document.querySelector('#step-text').innerText")
        assert pg.locator("#step-text").inner_text() == f"step 1 of {replay.n_steps}"
        for _ in range(12):
            n = pg.evaluate("() => Number(document.body.dataset.renders)")
            pg.locator("#forward").click()
            pg.wait_for_function("(n) => Number(document.body.dataset.renders) > n", arg=n)
        k = int(pg.locator("#slider").input_value())
        assert k == 12
        want = replay.state(k)
        assert _screen_chips(pg) == [seat["chips"] for seat in want["seats"]]
        shown = [pg.locator(f'.seat[data-seat="{p}"] .shown .card').all_inner_texts()
                 for p in range(s.players)]
        assert shown == [seat["cards"] for seat in want["seats"]]  # every card shown
        assert not pg.locator("#me").is_visible()  # no "Your cards" box: no seat is yours
        pg.locator("#back").click()
        pg.wait_for_function("() => document.querySelector('#step-text').innerText"
                             ".startsWith('step 12 ')")
        assert not errors


def test_the_agents_play_shows_event_by_event_at_the_pace(browser):
    s = Settings(chips=40, max_hands=40)
    table = NewOrderTable(s, agent_table("maniac", s.players), 1, seed=2)
    with served(browser, table, pace_ms=20) as (pg, server, errors):
        pg.goto(server.url)
        pg.wait_for_selector("#buttons button")
        n = pg.evaluate("() => Number(document.body.dataset.renders)")
        with pg.expect_response("**/api/action"):
            pg.locator('#buttons .group[data-group="fold"] button').click()
        st = _state(server.url)
        pg.wait_for_function("(e) => document.body.dataset.events == e", arg=st["events"])
        assert pg.evaluate("() => Number(document.body.dataset.renders)") > n + 2
        assert _screen_chips(pg) == [seat["chips"] for seat in st["seats"]]
        assert not errors


def test_no_response_of_a_whole_match_holds_an_unshown_card(browser):
    """Every /api/ answer the page received over a whole match played with its buttons
    holds no card but the person's own, the boards and the hands shown by then."""
    s = Settings(chips=12, max_hands=12)
    table = NewOrderTable(s, agent_table("maniac", s.players), 2, seed=5)
    bodies: list[dict] = []
    with served(browser, table, pace_ms=1) as (pg, server, errors):
        pg.on("response", lambda r: bodies.append(r.json()) if "/api/" in r.url else None)
        pg.goto(server.url)
        pg.wait_for_selector("#buttons button")
        while not table.done:
            group = pg.locator("#buttons .group").first.get_attribute("data-group")
            with pg.expect_response("**/api/action"):
                pg.locator(f'#buttons .group[data-group="{group}"] button').first.click()
            st = _state(server.url)
            pg.wait_for_function("(e) => document.body.dataset.events == e", arg=st["events"])
        records = table.records(hidden=False)
        assert len(bodies) > 10
        for body in bodies:
            n = body["step"] + 1 if body.get("step") is not None else body["events"]
            assert set(CARD_TEXT.findall(json.dumps(body))) <= known_cards(records[:n], 2)


def test_ordered_hand_is_played_to_the_end_on_its_page(browser):
    """Ordered Hand's page (ordered.html): the person's sequence in order, a button per
    legal block and per insert gap, the bet exchange's answers; played to the end with its
    buttons, the sequence on screen is the engine's at every step, and no response holds
    another seat's card or the stock before the end."""

    s = OrderedSettings(players=2, betting=True)
    table = OrderedHandTable(s, ordered_agents(resolve_agents(["bettor", "raiser"], 2)[1]),
                             1, seed=6, labels=["bettor", "raiser"])
    bodies: list[dict] = []
    groups = set()
    with served(browser, table, pace_ms=1) as (pg, server, errors):
        pg.on("response", lambda r: bodies.append(r.json()) if "/api/" in r.url else None)
        pg.goto(server.url)
        pg.wait_for_selector("#buttons button")
        assert pg.locator("h1").inner_text().startswith("Ordered Hand")
        for _ in range(400):
            if table.done:
                break
            st = _state(server.url)
            assert pg.locator("#hand .card").all_inner_texts() == st["hand"]
            group = pg.locator("#buttons .group").first.get_attribute("data-group")
            groups.add(group)
            with pg.expect_response("**/api/action"):
                pg.locator(f'#buttons .group[data-group="{group}"] button').first.click()
            st = _state(server.url)
            pg.wait_for_function("(e) => document.body.dataset.events == e", arg=st["events"])
        assert table.done
        pg.wait_for_selector("#end:not([hidden])")
        assert "Game over" in pg.locator("#end").inner_text()
        assert "Places: 1. " in pg.locator("#end").inner_text()
        assert {"play", "insert"} <= groups
        view = table._view(None)
        deck = view.deck
        for body in bodies:
            if body.get("done"):
                continue
            n = body["step"] + 1 if body.get("step") is not None else body["events"]
            seen = table._view(None, n)
            others = {format_card(c) for q in range(2) if q != 1 for c in seen.seq[q]}
            stock = {format_card(c) for c in deck[seen.top + (1 if body.get("drawn") else 0):]}
            assert not set(CARD_TEXT.findall(json.dumps(body))) & (others | stock)
        assert not errors


def test_an_ordered_hand_replay_steps_on_its_page(browser):
    """nop-sim replay of an Ordered Hand game: forward and back, every sequence on screen
    as the replay's state has it."""


    s = OrderedSettings(players=3)
    log = play_matches(s, ["low", "builder", "random"], 1, seed=3, log=True).log
    replay = OrderedHandReplay(s, log.decks[0], log.game_events(0).astype(np.int64),
                               ["Seat 0 (low)", "Seat 1 (builder)", "Seat 2 (random)"])
    with served(browser, replay, pace_ms=0) as (pg, server, errors):
        pg.goto(server.url)
        pg.wait_for_function("() => document.querySelector('#step-text').innerText")
        assert pg.locator("#step-text").inner_text() == f"step 1 of {replay.n_steps}"
        for _ in range(6):
            n = pg.evaluate("() => Number(document.body.dataset.renders)")
            pg.locator("#forward").click()
            pg.wait_for_function("(n) => Number(document.body.dataset.renders) > n", arg=n)
        want = replay.state(6)
        shown = [pg.locator(f'.seat[data-seat="{p}"] .shown .card').all_inner_texts()
                 for p in range(s.players)]
        assert shown == [seat["cards"] for seat in want["seats"]] and all(shown)
        assert not pg.locator("#me").is_visible() and not pg.locator("#actions").is_visible()
        pg.locator("#back").click()
        pg.wait_for_function("() => document.querySelector('#step-text').innerText"
                             ".startsWith('step 6 ')")
        assert not errors
