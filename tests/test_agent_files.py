"""Agent files: one [agent] table or a mixture of weighted [[agent]] rows, read, written
and refused in one line; and the per-match draw of a mixture's row.

Oracles: a plain-Python restatement of :func:`nop_sim.games.new_order.agents.draw_rows`'s documented rule,
and the draw's stated proportions, checked with a Wilson interval.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from click.testing import CliRunner

from nop_sim.cli import main
from nop_sim.core.stats import wilson_interval
from nop_sim.games.new_order import types as T
from nop_sim.games.new_order.agents import (
    AgentError,
    AgentFile,
    agent_row,
    draw_rows,
    load_agent_file,
    read_agent_file,
    write_agent_file,
)

TRAINING = {"scenario": "baseline", "matches": 5000, "exploitability": 0.8,
            "exploitability_low": 0.2, "exploitability_high": 1.4, "converged": True}
ROWS = [{"preset": "balanced", "hedge": 0.0, "manipulate": 0.0},
        {"preset": "hedger", "hedge": 3.0, "manipulate": 0.0},
        {"preset": "manipulator", "hedge": 0.0, "manipulate": 5.0}]
WEIGHTS = [0.5, 0.3, 0.2]
KEY = (7, 0x6D6978)  # a run's key: (seed, nop_sim.games.new_order.game.MIX_TAG)

SCENARIO = """
name = "mix"
[game]
players = 3
max_hands = 12
[seats]
all = "@{agent}"
[run]
matches = 4
"""


# ---------------------------------------------------------------------------
# The draw
# ---------------------------------------------------------------------------
def reference_row(weights, key, match_id: int, seat: int) -> int:
    """draw_rows's docstring, in Python integers."""
    m = 2**64

    def mix64(z):
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % m
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % m
        return z ^ (z >> 31)

    base = int(np.random.SeedSequence(list(key)).generate_state(1, np.uint64)[0])
    h = mix64((base + match_id * 0x9E3779B97F4A7C15) % m)
    h = mix64(h ^ ((seat + 1) * 0xD1B54A32D192ED69) % m)
    u = (h >> 11) / 2**53
    cum = np.cumsum(np.asarray(weights, float))
    for k, c in enumerate(cum / cum[-1]):
        if u < c:
            return k
    return len(weights) - 1


def test_draw_rows_follows_its_documented_rule_and_depends_only_on_key_match_and_seat():
    ids = np.arange(5000, dtype=np.int64) * 7 + 3
    rows = draw_rows(WEIGHTS, KEY, ids, 2)
    assert rows.dtype == np.int64 and rows.shape == ids.shape
    assert [reference_row(WEIGHTS, KEY, int(i), 2) for i in ids[:300]] == \
        rows[:300].tolist()
    # the same ids in another order, or cut into other chunks, draw the same rows
    order = np.random.default_rng(1).permutation(ids.size)
    np.testing.assert_array_equal(draw_rows(WEIGHTS, KEY, ids[order], 2), rows[order])
    cuts = np.split(ids, [1, 17, 2000, 4999])
    np.testing.assert_array_equal(
        np.concatenate([draw_rows(WEIGHTS, KEY, c, 2) for c in cuts]), rows)
    # another seat, another key: other draws; weights that are not normalised: the same
    assert (draw_rows(WEIGHTS, KEY, ids, 3) != rows).mean() > 0.4
    assert (draw_rows(WEIGHTS, (8, KEY[1]), ids, 2) != rows).mean() > 0.4
    np.testing.assert_array_equal(draw_rows([5, 3, 2], KEY, ids, 2), rows)
    # the proportions are the weights
    counts = np.bincount(rows, minlength=3)
    low, high = wilson_interval(counts, ids.size, 0.999)
    assert ((low <= WEIGHTS) & (np.array(WEIGHTS) <= high)).all(), counts
    assert draw_rows([1.0], (0,), ids, 0).tolist() == [0] * ids.size
    assert draw_rows(WEIGHTS, (0,), np.zeros(0, np.int64), 0).shape == (0,)
    for bad in ([], [1.0, 0.0], [1.0, -1.0], [math.nan]):
        with pytest.raises(ValueError, match="weights"):
            draw_rows(bad, (0,), ids, 0)
    with pytest.raises(ValueError, match="non-negative"):
        draw_rows(WEIGHTS, (0,), np.array([-1]), 0)



# ---------------------------------------------------------------------------
# The file
# ---------------------------------------------------------------------------
def test_a_mixture_file_round_trips(tmp_path):
    full = agent_row("rock")
    rows = [ROWS[0], full, {name: float(v) for name, v in
                            zip(T.AGENT_PARAM_NAMES, agent_row("maniac"), strict=True)}]
    path = write_agent_file(tmp_path / "m.toml", rows, [3, 1, 2], TRAINING, "line one\nline two")
    text = path.read_text()
    assert text.startswith("# line one\n# line two\n") and text.count("[[agent]]") == 3
    back = read_agent_file(path)
    assert isinstance(back, AgentFile) and back.is_mixture and back.path == str(path)
    assert back.rows[0] == ROWS[0] and back.rows[2] == rows[2]
    np.testing.assert_array_equal(agent_row(back.rows[1]), full)
    assert back.weights == (0.5, 1 / 6, 1 / 3)
    assert back.training == TRAINING
    # written again from what was read: the same rows and weights
    again = read_agent_file(write_agent_file(tmp_path / "n.toml", back.rows, back.weights,
                                             back.training))
    assert (again.rows, again.weights, again.training) == (back.rows, back.weights,
                                                           back.training)
    with pytest.raises(AgentError, match="mixture of 3 rows"):
        load_agent_file(path)
    # one row: a plain [agent] table, as every older reader takes it
    one = write_agent_file(tmp_path / "one.toml", [ROWS[1]], [0.25], {})
    assert "[[agent]]" not in one.read_text() and "weight" not in one.read_text()
    assert load_agent_file(one) == (ROWS[1], {})
    assert read_agent_file(one).weights == (1.0,) and not read_agent_file(one).is_mixture
    # a one-row [[agent]] array reads as one agent too
    (tmp_path / "aot.toml").write_text("[[agent]]\nweight = 2\nhedge = 1.5\n")
    assert load_agent_file(tmp_path / "aot.toml") == ({"hedge": 1.5}, {})
    for rows_, weights, needle in (([ROWS[0]], [1, 2], "one weight per row"),
                                   ([ROWS[0]], [0], "weight = 0"),
                                   ([{"weight": 1, "hedge": 1}], [1], "weight key"),
                                   ([{"hedgee": 1}], [1], "hedgee")):
        with pytest.raises(AgentError, match=needle):
            write_agent_file(tmp_path / "bad.toml", rows_, weights, {})
    assert not (tmp_path / "bad.toml").exists()


ROW = "[[agent]]\nweight = 0.5\nhedge = 1.0\n"
BAD_FILES = {
    "no_weight": (ROW + "[[agent]]\nhedge = 2.0\n", "[[agent]] row 1 has no weight"),
    "zero_weight": (ROW + "[[agent]]\nweight = 0\n", "[[agent]] row 1: weight = 0 is not"),
    "negative_weight": ("[[agent]]\nweight = -1.5\n" + ROW, "row 0: weight = -1.5 is not"),
    "text_weight": (ROW + "[[agent]]\nweight = 'half'\n", "weight = 'half' is not a number"),
    "bool_weight": (ROW + "[[agent]]\nweight = true\n", "weight = True is not a number"),
    "nan_weight": (ROW + "[[agent]]\nweight = nan\n", "weight = nan is not allowed"),
    "empty_array": ("agent = []\n", "[[agent]] array is empty"),
    "both_forms": ("[agent]\nhedge = 1.0\n" + ROW, "both an [agent] table and [[agent]]"),
    "both_forms_rows_first": (ROW + "[agent]\nhedge = 1.0\n", "both an [agent] table"),
    "bad_param": (ROW + "[[agent]]\nweight = 1\nbluf = 0.1\n",
                  "[[agent]] row 1: unknown agent parameter 'bluf'. Did you mean 'bluff'"),
    "out_of_range": (ROW + "[[agent]]\nweight = 1\nbluff = 3.0\n",
                     "[[agent]] row 1: agent parameter bluff = 3.0 is out of range"),
    "bad_preset": (ROW + "[[agent]]\nweight = 1\npreset = 'rocky'\n",
                   "row 1: unknown agent preset 'rocky'"),
    "not_a_table": ("agent = [1, 2]\n", "[[agent]] row 0 is not a table"),
    "training": ("training = 3\n" + ROW, "training must be a table"),
    "no_agent": ("[training]\nscenario = 'x'\n", "needs an [agent] table"),
    "duplicate_key": (ROW + "[[agent]]\nweight = 1\nhedge = 2.0\nweight = 2\n",
                      "duplicate key [agent] weight at line 7 (first given at line 5)"),
}


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_a_bad_mixture_file_is_one_line_naming_file_table_and_field(tmp_path, name):
    text, needle = BAD_FILES[name]
    path = tmp_path / f"{name}.toml"
    path.write_text(text)
    with pytest.raises(AgentError) as err:
        read_agent_file(path)
    assert needle in str(err.value) and str(path) in str(err.value), str(err.value)
    assert "\n" not in str(err.value)
    # through a scenario and the command line: one line, exit 2, naming [seats] and the file
    scn = tmp_path / "s.toml"
    scn.write_text(SCENARIO.format(agent=path))
    res = CliRunner().invoke(main, ["run", str(scn), "--out", str(tmp_path / "out")])
    code, output = res.exit_code, res.output
    assert code == 2 and needle in output and str(path) in output and "[seats]" in output
    assert len([line for line in output.splitlines() if line.startswith("Error")]) == 1
    assert "Traceback" not in output and not (tmp_path / "out").exists()
