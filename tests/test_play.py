"""nop-sim play's server and command (issue 40): the JSON API through HTTP, the page and
its files, a whole match played through the API and saved where nop-sim hands reads it,
and the bad input (a port in use, an unknown seat or field) in one line each."""

import json
import random
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from reference import CARD_TEXT, known_cards

from nop_sim.cli import main
from nop_sim.games.new_order.agents import agent_table
from nop_sim.games.new_order.settings import Settings
from nop_sim.games.new_order.table import NewOrderTable
from nop_sim.play.save import save_match
from nop_sim.play.server import TableServer
from nop_sim.run.scenario import load_scenario

ROOT = Path(__file__).resolve().parents[1]
BASELINE = ROOT / "scenarios" / "baseline.toml"


def _get(url: str):
    with urllib.request.urlopen(url, timeout=30) as r:
        return r.status, r.headers["Content-Type"], r.read()


def _post(url: str, body) -> tuple[int, dict]:
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


@pytest.fixture()
def served(tmp_path):
    scn = load_scenario(BASELINE, ["chips=15", "max_hands=15", "seats.all=maniac"])
    table = scn.game_type.open_table(scn, 1, 5)
    server = TableServer(table, pace_ms=0, on_done=lambda t: save_match(tmp_path / "m", scn, t))
    server.start()
    yield server
    server.close()


def test_the_api_plays_a_whole_match_and_saves_it(served, tmp_path):
    url = served.url
    status, ctype, page = _get(url)
    assert status == 200 and ctype.startswith("text/html") and b"Ranking Column" in page
    for name in ("app.js", "style.css"):
        assert _get(url + name)[0] == 200
    for bad in ("nope.js", "..%2Fserver.py", "static/../server.py"):
        with pytest.raises(urllib.error.HTTPError):
            _get(url + bad)
    st = json.loads(_get(url + "api/state")[2])
    for key in ("seat", "phase", "column", "hand", "board", "pot", "seats", "showdown",
                "legal", "log", "done"):
        assert key in st
    assert st["seat"] == 1 and len(st["column"]) == 13 and len(st["hand"]) == 5
    assert all("chips" in s and "cards" in s for s in st["seats"])
    # not legal: 400, one line, the state unchanged
    for body in ({"action": "dance"}, b"{not json", {"action": "raise", "amount": -3}):
        code, err = _post(url + "api/action", body)
        assert code == 400 and "error" in err and "\n" not in err["error"]
        assert json.loads(_get(url + "api/state")[2]) == st
    rnd = random.Random(2)
    while not st["done"]:
        e = dict(rnd.choice(st["legal"]))
        if "min" in e:
            e["amount"] = rnd.randint(e["min"], e["max"])
        code, st = _post(url + "api/action", e)
        assert code == 200
        # every response: no card but the person's own, the boards and shown hands
        known = known_cards(served.table.records(hidden=False), served.table.seat)
        assert set(CARD_TEXT.findall(json.dumps(st))) <= known
    assert st["saved"] == str(tmp_path / "m") and st["places"]
    out = CliRunner().invoke(main, ["hands", st["saved"], "--match", "0"])
    assert out.exit_code == 0, out.output
    assert "=== Match 0 over after" in out.output and "Seat 1 (you)" in out.output


def test_a_port_in_use_says_so_and_offers_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        res = CliRunner().invoke(main, ["play", str(BASELINE), "--port", str(port),
                                        "--no-browser"])
    assert res.exit_code != 0
    assert "in use" in res.output and "--port" in res.output and "Traceback" not in res.output


def test_a_game_without_a_table_says_so():
    res = CliRunner().invoke(main, ["play", str(ROOT / "scenarios" / "kuhn3.toml"),
                                    "--no-browser"])
    assert res.exit_code == 2 and "cannot be played at the table yet" in res.output


@pytest.mark.parametrize("args, words", [
    (["--seat", "9"], "seat 9"),
    (["--field", "nosuchpreset"], "nosuchpreset"),
    (["--field", "@no/such/file.toml"], "file.toml"),
])
def test_an_unknown_seat_or_field_is_one_line(args, words):
    res = CliRunner().invoke(main, ["play", str(BASELINE), "--no-browser", *args])
    assert res.exit_code == 2, res.output
    assert words in res.output and "Traceback" not in res.output


def test_the_command_serves_the_page(tmp_path):
    """The URL is printed once the table is ready; the page and the state answer."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "nop_sim", "play", str(BASELINE), "--seat",
                             "2", "--no-browser", "--out", str(tmp_path / "m")],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        line = proc.stdout.readline()
        m = re.search(r"http://127\.0\.0\.1:\d+/", line)
        assert m, line
        st = json.loads(_get(m.group(0) + "api/state")[2])
        assert st["seat"] == 2 and st["legal"]
        print(f"command to page ready: {time.perf_counter() - t0:.2f} s")
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_a_table_saves_what_nop_sim_hands_reads(tmp_path):
    s = Settings(chips=10, max_hands=5)
    t = NewOrderTable(s, agent_table("station", s.players), 0, seed=1, labels=["a"] * 4)
    tables = t.tables()
    assert list(tables["seats"]["preset"]) == ["you", "a", "a", "a"]
    assert (tables["events"]["point"] == 0).all() and (tables["events"]["match"] == 0).all()


@pytest.fixture(scope="module")
def saved_match(tmp_path_factory):
    """A match played at the table to its end and saved: a run folder of one logged match."""
    scn = load_scenario(BASELINE, ["chips=20", "max_hands=20", "seats.all=maniac"])
    table = scn.game_type.open_table(scn, 0, 9)
    rnd = random.Random(9)
    st = table.state()
    while not st["done"]:
        e = dict(rnd.choice(st["legal"]))
        if "min" in e:
            e["amount"] = e["min"]
        st = table.act(e)
    return save_match(tmp_path_factory.mktemp("play") / "m", scn, table), table


def test_a_replay_steps_through_the_logged_match(saved_match):
    from nop_sim.play.session import open_replay_server

    folder, table = saved_match
    server = open_replay_server(folder, 0)
    server.start()
    try:
        url = server.url
        records = table.records(hidden=False)
        last = json.loads(_get(url + "api/state")[2])
        assert last["replay"] and last["n_steps"] == len(records) and last["done"]
        history = CliRunner().invoke(main, ["hands", str(folder), "--match", "0"]).output
        columns = [line[len("Column: "):].split(" > ") for line in history.splitlines()
                   if line.startswith("Column: ")]
        ends = [i for i, r in enumerate(records) if r["event"] == "hand_end"]
        starts = [i for i, r in enumerate(records) if r["event"] == "hand_start"]
        for k in np.linspace(0, len(ends) - 1, 5).astype(int):  # five hands' ends and starts
            st = json.loads(_get(f"{url}api/state?step={ends[k]}")[2])
            assert [s["chips"] for s in st["seats"]] == records[ends[k]]["chips"]
            assert st["step"] == ends[k] and not st["legal"]
            st = json.loads(_get(f"{url}api/state?step={starts[k]}")[2])
            assert st["column"] == columns[k]  # as nop-sim hands prints it at the hand's start
        dealt = next(i for i, r in enumerate(records) if r["event"] == "deal" and r["seat"] == 3)
        st = json.loads(_get(f"{url}api/state?step={dealt}")[2])
        assert st["seats"][3]["cards"] == records[dealt]["cards"]  # every card shown
        assert _post(url + "api/action", {"action": "check"})[0] == 400
    finally:
        server.close()


def test_replay_says_which_matches_were_logged(saved_match):
    folder, _ = saved_match
    res = CliRunner().invoke(main, ["replay", str(folder), "--match", "3", "--no-browser"])
    assert res.exit_code != 0 and "logged: 0" in res.output and "Traceback" not in res.output


def test_the_readmes_play_lines_serve_the_page(tmp_path):
    """README's "Play a hand": each nop-sim play line, as written (--no-browser added),
    serves a table; the replay line's run is make run's, checked where it exists."""
    text = (ROOT / "README.md").read_text()
    block = text.split("## Play a hand", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    lines = [line.split("#", 1)[0].split() for line in block.strip().splitlines()]
    assert [w[:2] for w in lines] == [["nop-sim", "play"]] * 3 + [["nop-sim", "replay"]]
    for words in lines:
        if words[1] == "replay" and not (ROOT / words[2]).is_dir():
            continue  # make run's reports/baseline is not there
        proc = subprocess.Popen([sys.executable, "-m", "nop_sim", *words[1:], "--no-browser",
                                 *(["--out", str(tmp_path / "m")] if words[1] == "play" else [])],
                                cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True)
        try:
            m = re.search(r"http://127\.0\.0\.1:\d+/", proc.stdout.readline())
            assert m, " ".join(words)
            assert json.loads(_get(m.group(0) + "api/state")[2])["seats"]
        finally:
            proc.terminate()
            proc.wait(timeout=30)
