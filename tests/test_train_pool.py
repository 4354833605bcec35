"""nop-sim train --seeds K: several trainings pooled into one field and two halves.

Oracles: a pooled table holds exactly the matches of its sources, each member renamed
(built again from the renamed matches, it is the same table); the pool's rule gives a
known answer on a table assembled from two trainings (a dominant member takes all; a
cycle closed only across the trainings is mixed evenly); a field's PSRO starts from the
pool: its population is every row of its own trainings (the pooled field's: of all), its
table the pool's matches between them alone, its mixture the pool's solution; the
halves' PSROs start from their own trainings' rows and their seeds (trainings' and
PSROs') are disjoint; a pool killed in its second training, or in a field's PSRO, and
resumed writes the same bytes as one run straight through, without playing what was
finished again; a folder that is not a training stops the pool before anything is
written.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from nop_sim.cli import main
from nop_sim.studies.train.meta import ProfileTable, regret, solve
from nop_sim.studies.train.pooled import (
    FIELD_DIRS,
    _meta_members,
    _Source,
    _start,
    halves,
    harden_seeds,
    meta_cap,
)

FREE_HEDGE = """
name = "free-hedge"
[game]
players = 4
chips = 40
max_hands = 40
hedge_cost = 0
hedge_payout = 50
[seats]
all = {preset = "balanced", hedge = 0.0}
[run]
seed = 11
"""
BUDGET = "25000"   # three rounds a training, a population of four (with or without a polish)


def _cli(args):
    return CliRunner().invoke(main, args, catch_exceptions=False)


def _scenario(tmp_path: Path) -> Path:
    path = tmp_path / "fh.toml"
    path.write_text(FREE_HEDGE)
    return path


# -- the pooled table and its rule -------------------------------------------------------------
def _matches(players, k, strength, n, rng):
    """``n`` matches of members ``0..k-1``: ``(members (n, players), winner seat (n,))``."""
    members = rng.integers(0, k, (n, players))
    winners = np.empty(n, np.int64)
    for i, m in enumerate(members):
        sc = np.array([strength(a, m) for a in m], float)
        winners[i] = rng.choice(players, p=sc / sc.sum())
    return members, winners


def test_a_pooled_table_holds_its_sources_matches_with_members_renamed():
    """Absorbing a training's table is adding its matches with every member renamed; two
    members renamed alike (the same row in two trainings) are one."""
    rng = np.random.default_rng(0)
    pooled, direct = ProfileTable(4), ProfileTable(4)
    for ids in ([0, 1, 2], [3, 1, 4], [5, 5, 6]):   # 1 in two trainings; 5 twice in one
        members, winners = _matches(4, 3, lambda a, m: 1.0 + a, 3000, rng)
        own = ProfileTable(4)
        own.add(members, winners)
        pooled.absorb(own, ids)
        direct.add(np.asarray(ids)[members], winners)
    assert pooled.stats.keys() == direct.stats.keys()
    for key, st in direct.stats.items():
        assert np.allclose(pooled.stats[key], st), key
    assert pooled.matches() == 9000


def _pooled(strength, n_each=6000, seed=1):
    """A pool of three members from two trainings (A holds 0 and 1, B holds 2 and 1) and
    the pool's own matches of all three: the tables absorbed as pool_folder does."""
    rng = np.random.default_rng(seed)
    table = ProfileTable(4)
    for ids in ([0, 1], [2, 1], [0, 1, 2]):
        members, winners = _matches(4, len(ids), lambda a, m, ids=ids: strength(
            ids[a], np.asarray(ids)[m]), n_each, rng)
        own = ProfileTable(4)
        own.add(members, winners)
        table.absorb(own, ids)
    return table.tensor([0, 1, 2])


def test_the_pools_rule_a_member_that_dominates_takes_all():
    u = _pooled(lambda a, m: 3.0 if a == 2 else 1.0)
    sigma = solve(u)
    assert sigma[2] > 0.97 and regret(u, sigma) < 0.01


def test_the_pools_rule_a_cycle_closed_across_trainings_is_mixed_evenly():
    """Rock (0) and paper (1) from one training, scissors (2) from another: neither
    training alone holds the cycle; the pool's mixture is even and leaves no regret."""
    beats = {(0, 2), (2, 1), (1, 0)}
    u = _pooled(lambda a, m: 0.1 + sum((a, b) in beats for b in m), n_each=12_000)
    sigma = solve(u)
    assert np.allclose(sigma, 1 / 3, atol=0.05) and regret(u, sigma) < 0.01


def test_a_meta_game_holds_the_fields_first_then_each_trainings_newest():
    def source(seed, members, weights):
        return _Source(seed, Path(), {"final": {"members": members, "weights": weights}}, {})

    a, b = source(1, [2], [1.0]), source(2, [0, 3], [0.25, 0.75])
    ids = [[0, 1, 2, 3], [0, 4, 5, 6]]   # member 0 (a seat of the scenario) in both
    members, mean = _meta_members([a, b], ids, cap=5)
    # fields: 2 (0.5), 6 (0.375), 0 (0.125); then newest in turn: 3 (a), 5 (b)
    assert members == [0, 2, 3, 5, 6] and mean == {2: 0.5, 0: 0.125, 6: 0.375}
    assert halves([7, 8]) == {"half-a": [7], "half-b": [8]}
    assert halves([7, 8, 9]) == {"half-a": [7, 8], "half-b": [9]}
    assert meta_cap(4) == 24 and meta_cap(8) >= 2


def test_each_fields_psro_is_seeded_after_the_trainings_and_no_two_share_a_seed():
    for seeds in ([7, 8], [7, 8, 9], [5, 6, 7, 8]):
        psro = harden_seeds(seeds)
        assert psro == {"pool": seeds[-1] + 1, "half-a": seeds[-1] + 2, "half-b": seeds[-1] + 3}
        a, b = halves(seeds).values()
        assert not ({psro["half-a"], *a} & {psro["half-b"], *b})  # the halves share none
        assert not set(psro.values()) & set(seeds)


def test_a_fields_psro_starts_from_its_own_trainings_rows_and_the_pools_table():
    """Rows 0 (a seat of the scenario, in both trainings), 1, 2 (seed 7's), 3 (seed 8's):
    half-a's PSRO holds rows 0, 1, 2 renamed 0, 1, 2, its table the profiles of those
    rows alone, its meta-game the pool's solution of half-a."""
    table = ProfileTable(3)
    rng = np.random.default_rng(3)
    table.add(rng.integers(0, 4, (400, 3)), rng.integers(0, 3, 400))
    state = {"population": [[0.0], [1.0], [2.0], [3.0]],
             "origin": [["seed 7: a", "seed 8: a"], ["seed 7: b"], ["seed 7: c"], ["seed 8: b"]],
             "seeds": [[7, 8], [7], [7], [8]], "table": table.to_json(),
             "fields": {"pool": {"seeds": [7, 8], "members": [0, 2, 3], "sigma": [0.2, 0.3, 0.5]},
                        "half-a": {"seeds": [7], "members": [1, 2], "sigma": [0.4, 0.6]},
                        "half-b": {"seeds": [8], "members": [0, 3], "sigma": [0.1, 0.9]}}}
    a = _start(state, "half-a", 3)
    assert a["population"] == [[0.0], [1.0], [2.0]] and a["members"] == [1, 2]
    assert a["sigma"] == [0.4, 0.6] and a["labels"][0] == "seed 7: a; seed 8: a"
    kept = ProfileTable.from_json(3, a["table"])
    assert kept.stats.keys() == {k for k in table.stats if 3 not in k}
    for key, st in kept.stats.items():
        assert np.array_equal(st, table.stats[key])
    b = _start(state, "half-b", 3)
    assert b["population"] == [[0.0], [3.0]] and b["members"] == [0, 1]
    kept = ProfileTable.from_json(3, b["table"])
    assert {tuple(sorted({0: 0, 1: 3}[m] for m in k)) for k in kept.stats} == \
        {k for k in table.stats if set(k) <= {0, 3}}
    pooled = _start(state, "pool", 3)
    assert pooled["population"] == state["population"] and pooled["table"] == state["table"]
    assert pooled["round"] == 0 and pooled["final"] is None and FIELD_DIRS["pool"] == "pooled"


# -- end to end ----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def pooled(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("pool")
    path = _scenario(tmp)
    out = tmp / "out"
    r = _cli(["train", str(path), "--seeds", "2", "--budget-matches", BUDGET, "--out", str(out),
              "--quiet", "--workers", "1"])
    assert r.exit_code == 0, r.output
    return path, out, r.output


def _rows(path: Path) -> list[tuple]:
    data = tomllib.loads(path.read_text())
    agents = data["agent"] if isinstance(data["agent"], list) else [data["agent"]]
    return [tuple(sorted((k, v) for k, v in a.items() if k != "weight")) for a in agents]


def _population(folder: Path) -> set[tuple]:
    from nop_sim.games.new_order import types as T

    state = json.loads((folder / "state.json").read_text())
    return {tuple(sorted(zip(T.AGENT_PARAM_NAMES, row, strict=True)))
            for row in state["population"]}


def _start_rows(folder: Path) -> list[tuple]:
    """The rows a field's PSRO started with (its population less the responses it found)."""
    from nop_sim.games.new_order import types as T

    state = json.loads((folder / "state.json").read_text())
    return [tuple(sorted(zip(T.AGENT_PARAM_NAMES, row, strict=True)))
            for row, label in zip(state["population"], state["labels"], strict=True)
            if label.startswith("seed ")]


def test_seeds_2_writes_a_pooled_field_and_two_halves_of_disjoint_seeds(pooled):
    from nop_sim.studies.train.verdict import field_seeds, shared_seeds

    path, out, output = pooled
    for line in ("pooled field:", "exploitability:", "half-a:", "half-b:", "strong.toml:",
                 "report:"):
        assert line in output
    text = (out / "strong.toml").read_text()
    data = tomllib.loads(text)
    pool = data["training"]["pool"]
    assert pool["seeds"] == [11, 12] and pool["folders"] == ["seed-11", "seed-12"]
    assert "least regret" in pool["rule"] and "Rule: the symmetric mixture of least regret" in text
    assert "seed 11 (seed-11/)" in text and "seed 12 (seed-12/)" in text  # its sources
    assert [s["seed"] for s in pool["sources"]] == [11, 12]
    assert all("exploitability" in s for s in pool["sources"])
    assert pool["hardened"]["seed"] == 13 and "PSRO" in pool["hardening"]
    tr = data["training"]
    assert tr["exploitability_low"] <= tr["exploitability"] <= tr["exploitability_high"]
    assert tr["search_matches"] > 0 and tr["rules"]
    # the pooled field is its PSRO's, whose population started as every training's rows
    both = _population(out / "seed-11") | _population(out / "seed-12")
    start = _start_rows(out / "pooled")
    assert set(start) == both and len(start) == len(both)
    assert set(_rows(out / "strong.toml")) <= _population(out / "pooled")
    assert _rows(out / "strong.toml") == _rows(out / "pooled" / "strong.toml")
    # each half: a PSRO from its own training's policies alone, seeds of its own
    trainings = []
    for half, seed, psro in (("half-a", 11, 14), ("half-b", 12, 15)):
        h = tomllib.loads((out / half / "strong.toml").read_text())["training"]
        assert h["pool"]["seeds"] == [seed] and h["rules"] == tr["rules"]
        assert h["seed"] == psro and h["pool"]["hardened"]["seed"] == psro
        assert h["exploitability_low"] <= h["exploitability"] <= h["exploitability_high"]
        assert set(_start_rows(out / half)) == _population(out / f"seed-{seed}")
        assert set(_rows(out / half / "strong.toml")) <= _population(out / half)
        trainings.append(h)
    # a half's seeds: its training's and its PSRO's, none shared with the other half
    assert field_seeds(trainings[0]) == {11, 14} and field_seeds(trainings[1]) == {12, 15}
    assert not shared_seeds(trainings)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["kind"] == "train-pool"
    html = (out / "report.html").read_text()
    for sid in ("findings", "pool-exploitability", "sources", "pool", "fields"):
        assert f'id="{sid}"' in html
    assert "least regret" in html
    for seed in (11, 12):  # each training is an ordinary training folder, with its report
        assert (out / f"seed-{seed}" / "report.html").is_file()


def test_exploit_takes_a_half_as_it_takes_a_training_folder(pooled, tmp_path):
    import shutil

    path, out, _ = pooled
    half = tmp_path / "half-a"  # a copy: exploit records what it finds in the folder
    shutil.copytree(out / "half-a", half)
    r = _cli(["exploit", str(path), "--strong", str(half), "--budget-matches", "3000",
              "--seed", "5", "--quiet", "--workers", "1"])
    assert r.exit_code == 0, r.output
    assert "search from" in r.output and "strong.toml says" in r.output


def _kill_when(args, env, ready) -> None:
    """Run ``args`` and kill it (SIGKILL) once ``ready()`` holds."""
    proc = subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            if ready():
                break
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.05)
    assert proc.poll() is None, "the pool ended before it could be killed"
    proc.send_signal(signal.SIGKILL)
    proc.wait()


def test_a_finished_pool_asked_again_is_read_back_playing_nothing(pooled):
    """The fast half of the kill test below (slow): every training and field's PSRO of a
    finished pool is read, none played, and the fields come out the same."""
    path, out, _ = pooled
    states = {p: p.stat().st_mtime_ns for p in out.glob("*/state.json")}
    assert len(states) == 5   # two trainings, three fields' PSROs
    fields = {p: p.read_bytes() for p in [out / "pool.json", *out.rglob("strong.toml")]}
    r = _cli(["train", str(path), "--seeds", "2", "--budget-matches", BUDGET, "--out", str(out),
              "--quiet", "--no-report", "--workers", "1"])
    assert r.exit_code == 0 and "0 trained now, 2 read; 0 of 3" in r.output, r.output
    assert {p: p.stat().st_mtime_ns for p in states} == states   # none trained again
    assert {p: p.read_bytes() for p in fields} == fields


def test_a_pools_field_goes_on_with_its_own_seed_and_the_pool_then_writes_it(pooled,
                                                                               tmp_path):
    """``train --out OUT/pooled --resume`` with a larger budget: the pooled field's PSRO goes
    on from its checkpoint under its own seed (the scenario's would be another training),
    first admitting a deviation a check kept against it; ``train --seeds 2 --resume``
    then writes OUT's field from it and says so, the halves untouched."""
    import shutil

    from nop_sim.games.new_order import types as T
    from nop_sim.games.new_order.agents import agent_row
    from nop_sim.run.scenario import load_scenario
    from nop_sim.studies.train.known import record_deviation
    from nop_sim.studies.train.value import load_strong

    path, straight, _ = pooled
    out = tmp_path / "pool"
    shutil.copytree(straight, out)
    field = out / "pooled"
    before = json.loads((field / "state.json").read_text())
    scn = load_scenario(path)
    fld, _ = load_strong(field, scn.settings_at(scn.points()[0]))
    record_deviation(field, fld, T.AGENT_PARAM_NAMES, agent_row("hedger"), 12.0, 9.0, 15.0,
                     "nop-sim exploit --seed 5 --budget-matches 9000: a search")
    r = _cli(["train", str(path), "--out", str(field), "--budget-matches", "40000",
              "--quiet", "--no-report", "--workers", "1"])
    assert r.exit_code == 1 and "--resume" in r.output, r.output  # not without it
    r = _cli(["train", str(path), "--out", str(field), "--budget-matches", "40000",
              "--resume", "--quiet", "--no-report", "--workers", "1"])
    assert r.exit_code == 0, r.output
    after = json.loads((field / "state.json").read_text())
    assert after["identity"] == before["identity"]  # the same training, its seed
    assert after["identity"]["seed"] == harden_seeds([11, 12])["pool"]
    assert after["spent"] > before["spent"] and after["round"] >= before["round"]
    assert after["rounds"][:before["round"]] == before["rounds"]
    assert [a["found_by"][:24] for a in after["admitted"]] == ["nop-sim exploit --seed 5"]
    halves_before = {h: (out / h / "strong.toml").read_bytes() for h in ("half-a", "half-b")}
    r = _cli(["train", str(path), "--seeds", "2", "--budget-matches", BUDGET, "--out",
              str(out), "--resume", "--quiet", "--no-report", "--workers", "1"])
    assert r.exit_code == 0 and "0 trained now, 2 read; 0 of 3" in r.output, r.output
    assert _rows(out / "strong.toml") == _rows(field / "strong.toml")
    head = (out / "strong.toml").read_text()
    assert f"{after['spent']:,} matches" in head
    assert ("It went on to 40,000 matches (nop-sim train --out pooled --resume), first "
            f"admitting the 1 deviation(s) nop-sim exploit had kept against it (round "
            f"{before['round']})") in head
    assert {h: (out / h / "strong.toml").read_bytes() for h in halves_before} == halves_before
    # the field's final search, kept for value's searches, names the budget it ran under
    [found] = json.loads((out / "deviations.json").read_text())["deviations"]
    assert found["found_by"].startswith(
        f"nop-sim train --seeds 2 --seed 11 --budget-matches {BUDGET}, its pooled field gone "
        f"on to 40000: the pooled field's {after['final']['matches']:,}-match search")


@pytest.mark.slow  # 21 to 30 s: a second pool, killed twice; the read-back above is fast
def test_a_pool_killed_in_a_training_and_in_a_fields_psro_resumes_without_replaying(
        pooled, tmp_path):
    path, straight, _ = pooled
    out = tmp_path / "killed"
    args = [sys.executable, "-m", "nop_sim", "train", str(path), "--seeds", "2",
            "--budget-matches", BUDGET, "--out", str(out), "--quiet", "--no-report",
            "--workers", "1"]
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    second = out / "seed-12" / "state.json"
    _kill_when(args, env, lambda: json.loads(second.read_text())["round"] >= 1)
    first = out / "seed-11" / "state.json"
    stamp, before = first.stat().st_mtime_ns, json.loads(second.read_text())
    assert json.loads(first.read_text())["final"] is not None and before["final"] is None
    assert not (out / "strong.toml").exists()
    base = ["train", str(path), "--seeds", "2", "--budget-matches", BUDGET, "--out", str(out),
            "--quiet", "--no-report", "--workers", "1"]
    r = _cli(base)
    assert r.exit_code == 1 and "--resume" in r.output and "seed-12" in r.output
    # resumed, and killed again in half-a's PSRO (the pooled field's is finished)
    _kill_when([*args, "--resume"], env, lambda: (out / "half-a").is_dir())
    assert first.stat().st_mtime_ns == stamp  # the finished training was read, not replayed
    after = json.loads(second.read_text())
    assert after["final"] is not None and after["rounds"][:before["round"]] == before["rounds"]
    done = out / "pooled" / "state.json"
    assert json.loads(done.read_text())["final"] is not None
    assert json.loads((out / "pool.json").read_text())["final"] is None
    stamps = {p: p.stat().st_mtime_ns for p in (first, second, done)}
    r = _cli(base)
    assert r.exit_code == 1 and "--resume" in r.output
    r = _cli([*base, "--resume"])
    assert r.exit_code == 0, r.output
    assert "0 trained now, 2 read; 2 of 3 fields' PSROs trained now" in r.output
    assert {p: p.stat().st_mtime_ns for p in stamps} == stamps  # nothing finished replayed
    for name in ("strong.toml", "pooled/strong.toml", "half-a/strong.toml",
                 "half-b/strong.toml"):
        assert (out / name).read_bytes() == (straight / name).read_bytes(), name
    # asked again, a finished pool is read back: nothing played, the same files
    pool = (out / "pool.json").read_bytes()
    r = _cli(base)
    assert r.exit_code == 0 and "0 trained now, 2 read; 0 of 3" in r.output
    assert (out / "pool.json").read_bytes() == pool


# -- bad input -----------------------------------------------------------------------------------
def _one_line_error(r, code, *words):
    assert r.exit_code == code, r.output
    assert "Traceback" not in r.output
    if code == 1:
        assert r.output.strip().count("\n") == 0, r.output
    for w in words:
        assert w in r.output, (w, r.output)


def test_seeds_0_is_refused(tmp_path):
    r = _cli(["train", str(_scenario(tmp_path)), "--seeds", "0", "--out", str(tmp_path / "o")])
    _one_line_error(r, 2, "--seeds")
    assert not (tmp_path / "o").exists()
    r = _cli(["train", str(_scenario(tmp_path)), "--seeds", "3", "--seed", str(2**63 - 2),
              "--out", str(tmp_path / "o")])
    _one_line_error(r, 2, "--seeds", "2**63")


@pytest.mark.parametrize("make, words", [
    (lambda o: (o / "seed-12").mkdir(parents=True) or (o / "seed-12" / "notes.txt")
     .write_text("mine"), ["seed-12", "holds no training"]),
    (lambda o: (o / "seed-12").mkdir(parents=True) or (o / "seed-12" / "manifest.json")
     .write_text('{"kind": "run"}'), ["seed-12", "run folder, not a training"]),
])
def test_a_pool_folder_that_is_not_a_training_stops_the_pool_before_anything_is_written(
        tmp_path, make, words):
    out = tmp_path / "o"
    make(out)
    before = sorted(p.relative_to(out) for p in out.rglob("*"))
    contents = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    r = _cli(["train", str(_scenario(tmp_path)), "--seeds", "2", "--budget-matches", BUDGET,
              "--out", str(out), "--quiet"])
    _one_line_error(r, 1, *words)
    # the first training, whose folder was free, was not started either
    assert sorted(p.relative_to(out) for p in out.rglob("*")
                  if not p.name.startswith(".nop-sim")) == before
    assert all(p.read_bytes() == b for p, b in contents.items())


def test_out_that_holds_something_else_is_refused(tmp_path):
    out = tmp_path / "single"
    out.mkdir()
    (out / "manifest.json").write_text('{"kind": "train"}')
    r = _cli(["train", str(_scenario(tmp_path)), "--seeds", "2", "--out", str(out), "--quiet"])
    _one_line_error(r, 1, "a training of one seed", "another --out")
    other = tmp_path / "other"
    other.mkdir()
    (other / "data.csv").write_text("x\n")
    r = _cli(["train", str(_scenario(tmp_path)), "--seeds", "2", "--out", str(other), "--quiet"])
    _one_line_error(r, 1, "holds no pooled training", "data.csv")


def test_a_pool_folder_read_as_a_run_is_named_in_one_line(pooled):
    _, out, _ = pooled
    r = _cli(["report", str(out)])
    assert r.exit_code != 0 and "Traceback" not in r.output
    assert "is a training folder" in r.output and str(out / "strong.toml") in r.output
