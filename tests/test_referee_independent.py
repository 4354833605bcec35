"""The referees share nothing with the engines they check (issue 10, section 2).

Each referee is imported, and then replays a real log, in a fresh interpreter;
afterwards no module of the kernels, the evaluator or numba may be loaded.
Imports made inside functions (at replay time) are caught too.
"""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from nop_sim.games import ordered_hand
from nop_sim.games.new_order.engine import play_matches
from nop_sim.games.new_order.history import to_records
from nop_sim.games.new_order.settings import Settings
from nop_sim.games.ordered_hand.settings import OrderedSettings

FORBIDDEN = ("nop_sim.kernels", "nop_sim.games.new_order.kernels", "nop_sim.games.new_order.engine",
             "nop_sim.games.ordered_hand.kernels", "nop_sim.games.ordered_hand.engine",
             "nop_sim.evaluator", "numba")
ROOT = Path(__file__).resolve().parents[1]

_SCRIPT = textwrap.dedent(
    """
    import importlib, json, pickle, sys

    module, payload = sys.argv[1], sys.argv[2]
    ref = importlib.import_module(module)
    if payload:
        with open(payload, "rb") as fh:
            job = pickle.load(fh)
        if module == "nop_sim.games.new_order.referee":
            n = ref.check_log(job["records"], job["settings"])
        else:
            n = 0
            for deck, events, record in job["games"]:
                ref.check_game(job["settings"], deck, events, record)
                n += 1
        assert n > 0
    forbidden = tuple(json.loads(sys.argv[3]))
    print(json.dumps(sorted(m for m in sys.modules
                            if any(m == f or m.startswith(f + ".") for f in forbidden))))
    """
)


def _loaded_forbidden(module: str, payload: Path | None = None) -> list[str]:
    out = subprocess.run(
        [sys.executable, "-c", _SCRIPT, module, str(payload or ""), json.dumps(FORBIDDEN)],
        cwd=ROOT, capture_output=True, text=True, check=False,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("module", ["nop_sim.games.new_order.referee",
                                    "nop_sim.games.ordered_hand.referee"])
def test_importing_a_referee_loads_no_engine(module):
    assert _loaded_forbidden(module) == []


def test_new_order_referee_replays_without_the_engine(tmp_path):
    # wild deuces, restocks of the stock and reshuffles of the Disruptor deck
    mix = {"deuces_wild": 3, "wild_deuces": 3, "market_crash": 3, "elevator": 2}
    s = Settings(max_hands=80, players=8, max_discard=5, disruptors=mix)
    r = play_matches(s, "random", n_matches=3, seed=5, log_every=1, log_capacity=500_000)
    records = list(to_records(r.events))
    assert {x["pile"] for x in records if x["event"] == "reshuffle"} == {"stock", "disruptors"}
    path = tmp_path / "job.pkl"
    path.write_bytes(pickle.dumps({"records": records, "settings": r.settings}))
    assert _loaded_forbidden("nop_sim.games.new_order.referee", path) == []


def test_ordered_referee_replays_without_the_engine(tmp_path):
    result = ordered_hand.play_matches(OrderedSettings(players=2, betting=True), "random", 20, seed=3,
                          log=True)
    games = [(result.log.decks[i], result.log.game_events(i), result.games[i])
             for i in range(result.n_games)]
    path = tmp_path / "job.pkl"
    path.write_bytes(pickle.dumps({"games": games, "settings": result.settings}))
    assert _loaded_forbidden("nop_sim.games.ordered_hand.referee", path) == []
