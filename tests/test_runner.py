"""Runs, sweeps and the results store: determinism, crash and resume, bad input."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from nop_sim.cli import main
from nop_sim.results.match_log import run_game
from nop_sim.results.store import load_tables
from nop_sim.run.runner import plan_chunks, run_scenario
from nop_sim.run.scenario import ScenarioError, load_scenario

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = sorted((ROOT / "scenarios").glob("*.toml"))
NOP_SIM = [sys.executable, "-m", "nop_sim"]

SMALL = """
name = "small"
[game]
players = 3
[seats]
rotate = ["balanced", "maniac", "hedger"]
[run]
matches = 12
chunk = 4
seed = 5
[sweep]
dart_cap = [10, 30]
"""


def write(tmp_path: Path, text: str, name: str = "s.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def tables_of(out: Path) -> tuple[str, ...]:
    """Every table of a run folder, as its game declares them."""
    game = run_game(out)
    return (*game.tables, *game.summed_tables)


def sorted_tables(out: Path) -> dict[str, pd.DataFrame]:
    tables = load_tables(out, tables_of(out))
    keys = {"matches": ["point", "chunk", "match"], "seats": ["point", "chunk", "match", "seat"],
            "drafts": ["point", "chunk", "match", "seat", "card"], "counts": ["point", "chunk"],
            "arrays": ["point", "table", "stat", "index"], "events": ["point", "match"]}
    return {name: tables[name].sort_values(keys[name]).reset_index(drop=True)
            for name in tables}


def assert_same_results(a: Path, b: Path) -> None:
    ta, tb = sorted_tables(a), sorted_tables(b)
    assert set(ta) == set(tb)
    for name in ta:
        pd.testing.assert_frame_equal(ta[name], tb[name], check_like=False, obj=name)


@pytest.mark.parametrize("path", SCENARIOS, ids=[p.stem for p in SCENARIOS])
def test_shipped_scenarios_load_and_run_a_few_matches(path, tmp_path):
    scn = load_scenario(path, ["run.matches=2", "run.chunk=2"])
    assert scn.points(), path
    # the first sweep point stands for the file: every point was validated on load
    first = scn.points()[0]
    single = dataclasses.replace(scn, sweep=(), settings=scn.settings_at(first),
                                 game={**scn.game, **first})
    result = run_scenario(single, tmp_path / "out", workers=1)
    assert result.n_matches == 2 and result.n_work > 0


def test_same_seed_same_numbers_whatever_the_worker_count(tmp_path, real_workers):
    scn = load_scenario(write(tmp_path, SMALL))
    run_scenario(scn, tmp_path / "one", workers=1)
    run_scenario(scn, tmp_path / "two", workers=2)
    assert_same_results(tmp_path / "one", tmp_path / "two")
    # and a different seed gives different matches
    other = load_scenario(write(tmp_path, SMALL), ["run.seed=6"])
    run_scenario(other, tmp_path / "three", workers=1)
    a = sorted_tables(tmp_path / "one")["matches"]["hands"].to_numpy()
    b = sorted_tables(tmp_path / "three")["matches"]["hands"].to_numpy()
    assert (a != b).any()


def test_rerun_into_the_same_folder_reuses_every_chunk(tmp_path):
    scn = load_scenario(write(tmp_path, SMALL))
    first = run_scenario(scn, tmp_path / "out", workers=1)
    again = run_scenario(scn, tmp_path / "out", workers=1)
    assert first.computed == first.n_chunks == 6
    assert again.reused == 6 and again.computed == 0


def test_dask_cluster_gives_the_local_numbers(tmp_path, dask_cluster):
    scn = load_scenario(write(tmp_path, SMALL))
    run_scenario(scn, tmp_path / "dask", scheduler=dask_cluster)
    run_scenario(scn, tmp_path / "local", workers=1)
    assert_same_results(tmp_path / "dask", tmp_path / "local")


def test_sigkill_mid_run_then_resume_finishes_without_redoing_or_duplicating(tmp_path):
    text = SMALL.replace("matches = 12", "matches = 60").replace("chunk = 4", "chunk = 2")
    scn_path = write(tmp_path, text)
    out = tmp_path / "killed"
    proc = subprocess.Popen(NOP_SIM + ["run", str(scn_path), "--out", str(out), "--workers", "1",
                                       "--quiet", "--no-report"], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL,
                            env={**os.environ, "NOP_SIM_PART_SECONDS": "0"})  # a chunk a part
    chunks = out / "chunks"
    deadline = time.time() + 240
    while time.time() < deadline:
        done = [p for p in chunks.glob("p*") if p.is_dir()] if chunks.exists() else []
        if len(done) >= 3:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    finished_before = {p.name: (p / "done.json").stat().st_mtime_ns
                       for p in chunks.glob("p*") if (p / "done.json").exists()}
    assert 3 <= len(finished_before) < 60, "the kill should land mid-run"
    assert json.loads((out / "manifest.json").read_text())["status"] == "running"
    # damage one finished chunk: resume must notice and redo it
    damaged = sorted(finished_before)[0]
    victim = chunks / damaged / "matches.parquet"
    victim.write_bytes(victim.read_bytes()[: victim.stat().st_size // 2])
    res = CliRunner().invoke(main, ["run", str(scn_path), "--out", str(out), "--workers", "1",
                                    "--resume", "--quiet", "--no-report"])
    assert res.exit_code == 0, res.output
    after = {p.name: (p / "done.json").stat().st_mtime_ns for p in chunks.glob("p*")}
    held = [c["name"] for p in chunks.glob("p*")
            for c in json.loads((p / "done.json").read_text())["chunks"]]
    assert sorted(held) == sorted(set(held)) and len(held) == 60  # parts of 1+ chunks
    redone = {name for name, t in finished_before.items() if after[name] != t}
    assert redone == {damaged}
    clean = load_scenario(scn_path)
    run_scenario(clean, tmp_path / "clean", workers=1)
    assert_same_results(out, tmp_path / "clean")
    matches = load_tables(out)["matches"]
    assert not matches.duplicated(["point", "match"]).any()
    assert len(matches) == 2 * 60


# ---------------------------------------------------------------------------
# Bad input: one clear line, exit 2, no traceback, nothing written is lost
# ---------------------------------------------------------------------------
GOOD = """
name = "good"
[game]
players = 4
[run]
matches = 2
chunk = 2
"""

BAD_FILES = {
    "toml_syntax": ("name = 'x'\n[game]\nplayers = = 4\n", "line 3"),
    # tomllib says only "Cannot overwrite a value (at line 8, column 13)"
    "duplicate_key": (GOOD + "matches = 500\n",
                      "duplicate key [run] matches at line 8 (first given at line 6)"),
    "duplicate_table": (GOOD + "[game]\nchips = 30\n",
                        "duplicate table [game] at line 8 (first given at line 3)"),
    "unknown_table": (GOOD + "[sweeps]\ndart_cap = [1]\n", "Did you mean 'sweep'"),
    "unknown_game_key": (GOOD.replace("players = 4", "players = 4\ndart_capp = 3"),
                         "Did you mean 'dart_cap'"),
    "wrong_type": (GOOD.replace("players = 4", 'players = "four"'), "players"),
    "players_9": (GOOD.replace("players = 4", "players = 9"), "players"),
    "players_1": (GOOD.replace("players = 4", "players = 1"), "players"),
    "chips_0": (GOOD.replace("players = 4", "players = 4\nchips = 0"), "chips"),
    "cap_below_start": (GOOD.replace("players = 4", "players = 4\ndart_start = 5\ndart_cap = 3"),
                        "dart_cap"),
    "negative_cost": (GOOD.replace("players = 4", "players = 4\nhedge_cost = -1"), "hedge_cost"),
    "unknown_betting": (GOOD.replace("players = 4", "players = 4\nbetting = 'no-limits'"),
                        "Did you mean 'no-limit'"),
    "unknown_card": (GOOD.replace("players = 4", "players = 4\ndisruptors = {levee = 3}"),
                     "levee"),
    "negative_copies": (GOOD.replace("players = 4", "players = 4\ndisruptors = {levy = -1}"),
                        "levy"),
    "unknown_preset": (GOOD + "[seats]\nall = 'balancd'\n", "Did you mean 'balanced'"),
    "unknown_param": (GOOD + "[seats]\nall = {preset = 'rock', bluf = 0.1}\n", "bluf"),
    "empty_sweep": (GOOD + "[sweep]\ndart_cap = []\n", "empty"),
    "sweep_unknown": (GOOD + "[sweep]\ndart_caps = [1, 2]\n", "Did you mean 'dart_cap'"),
    "sweep_mode": (GOOD + "[sweep]\nmode = 'grd'\ndart_cap = [1, 2]\n", "mode"),
    "matches_0": (GOOD.replace("matches = 2", "matches = 0"), "matches"),
    "seat_count": (GOOD + "[seats]\nseat = ['rock', 'maniac']\n", "one per seat"),
    "unknown_kind": (GOOD.replace("[game]", "[game]\nkind = 'holdem'"), "kind"),
    "bad_target": (GOOD + "[targets]\nmedian_hand = 3\n", "Did you mean 'median_hands'"),
}


def invoke(*args):
    res = CliRunner().invoke(main, [str(a) for a in args])
    return res.exit_code, res.output


def assert_clear_error(code, output, needle):
    assert code == 2, output
    assert needle in output, output
    assert "Traceback" not in output
    assert len([line for line in output.splitlines() if line.startswith("Error")]) == 1, output


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_bad_scenario_files_get_one_clear_message(name, tmp_path):
    text, needle = BAD_FILES[name]
    path = write(tmp_path, text, f"{name}.toml")
    code, output = invoke("run", path, "--out", tmp_path / "out", "--workers", 1)
    assert_clear_error(code, output, needle)
    assert str(path) in output  # names the file
    assert not (tmp_path / "out").exists()


DUPLICATES = {  # a key or table given twice: the message names it, its table and both lines
    "a value over lines": ("[seats]\nseat = ['rock',\n  'rock', 'rock', 'rock']\n"
                           "seat = [\n  'rock', 'rock',\n  'rock', 'rock']\n",
                           "duplicate key [seats] seat at line 4 (first given at line 2)"),
    "a dotted key": ("[game]\ndisruptors.levy = 2\ndisruptors.levy = 3\n",
                     "duplicate key [game] disruptors.levy at line 3 (first given at line 2)"),
    "a top-level key": ("name = 'a'\n# the name\nname = 'b'\n",
                        "duplicate key name at line 3 (first given at line 1)"),
    "a value made a table": ("[run]\nmatches = 2\nmatches.x = 3\n",
                             "duplicate key [run] matches at line 3 (first given at line 2)"),
    "a table": ("[run]\nmatches = 2\n[game]\nplayers = 3\n[run] # again\nseed = 1\n",
                "duplicate table [run] at line 5 (first given at line 1)"),
}


@pytest.mark.parametrize("name", sorted(DUPLICATES))
def test_a_key_given_twice_is_named_with_its_table_and_lines(name, tmp_path):
    text, needle = DUPLICATES[name]
    path = write(tmp_path, text, "dup.toml")
    with pytest.raises(ScenarioError) as err:
        load_scenario(path)
    assert str(err.value) == f"{path}: not valid TOML: {needle}: " + (
        "declare each table once, with all its keys under it" if "table [" in needle
        else "give each key once")


def test_bad_command_lines_and_folders(tmp_path):
    good = write(tmp_path, GOOD, "good.toml")
    other = write(tmp_path, GOOD.replace("players = 4", "players = 3"), "other.toml")
    out = tmp_path / "out"
    assert invoke("run", good, "--out", out, "--workers", 1, "--quiet", "--no-report")[0] == 0
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    usage = [  # the command line or the scenario file is wrong: exit 2
        (("run", tmp_path / "missing.toml"), "no such scenario file"),
        (("run", good, "--set", "dart_cap"), "key=value"),
        (("run", good, "--set", "dartcap=3", "--out", tmp_path / "x"), "Did you mean 'dart_cap'"),
        (("sweep", good, "--out", tmp_path / "z"), "no [sweep] table"),
        (("run", good, "--matches", "0"), "0"),
        (("run", good, "--bogus"), "No such option"),
    ]
    for args, needle in usage:
        code, output = invoke(*args)
        assert_clear_error(code, output, needle)
    runtime = [  # the command is fine, the world is not: exit 1, one line, no usage
        (("run", other, "--out", out, "--resume"), "resuming with a changed scenario is refused"),
        (("run", other, "--out", out), "different scenario"),
        (("run", good, "--out", tmp_path / "empty", "--resume"), "nothing to resume"),
        (("run", good, "--out", good), "is a file"),
        (("run", good, "--out", good / "sub"), str(good)),  # a file where a folder should be
        (("report", tmp_path), "not a nop-sim results folder"),
    ]
    for args, needle in runtime:
        code, output = invoke(*args)
        assert_runtime_error(code, output, needle)
    after = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert before == after, "a refused command must not change an earlier run"
    assert not (tmp_path / "empty").exists() and not (tmp_path / "x").exists()


def assert_runtime_error(code, output, needle):
    assert code == 1, output
    assert needle in output, output
    assert "Traceback" not in output and "Usage:" not in output, output
    assert len(output.strip().splitlines()) == 1, output


def test_a_copied_scenario_runs_into_its_own_folder(tmp_path, monkeypatch):
    # cp baseline.toml cap30.toml, edit dart_cap: the copy still says name = "baseline",
    # and must neither collide with the original's folder nor be titled after it
    monkeypatch.chdir(tmp_path)
    (tmp_path / "scenarios").mkdir()
    base = write(tmp_path / "scenarios", GOOD.replace('"good"', '"base"'), "base.toml")
    copy = write(tmp_path / "scenarios", base.read_text().replace("players = 4",
                                                                  "players = 4\ndart_cap = 30"),
                 "cap30.toml")
    for path in (base, copy):
        code, output = invoke("run", path.relative_to(tmp_path), "--workers", 1, "--quiet",
                              "--no-report")
        assert code == 0, output
        stem = path.stem
        assert f"results: {Path('reports') / stem}/" in output, output
        assert output.startswith(f"{stem}: "), output
        manifest = json.loads((tmp_path / "reports" / stem / "manifest.json").read_text())
        assert manifest["scenario"]["name"] == stem
        assert (tmp_path / "reports" / stem / "summary.md").read_text().startswith(f"# {stem}:")
    # train and tune name their folders (reports/<name>-train, -tune) after the same name
    assert load_scenario(copy).name == "cap30"
    # the shipped scenarios keep their folders: their file names are their names
    for path in SCENARIOS:
        assert load_scenario(path).name == path.stem


def test_a_folder_of_another_scenario_says_what_to_change(tmp_path):
    good = write(tmp_path, GOOD, "good.toml")
    other = write(tmp_path, GOOD.replace("players = 4", "players = 3"), "other.toml")
    out = tmp_path / "out"
    assert invoke("run", good, "--out", out, "--workers", 1, "--quiet", "--no-report")[0] == 0
    code, output = invoke("run", other, "--out", out)
    assert_runtime_error(code, output, "different scenario")
    assert "--out" in output and "another folder" in output, output
    assert f"delete {out}" in output or f"move {out}" in output, output


def test_a_folder_whose_run_differs_in_its_log_alone_is_continued(tmp_path):
    # the baseline logged one match in 50 before any match could be played again: a folder
    # it wrote then is the same run (a log changes no result), kept and reported again
    logged = write(tmp_path, SMALL.replace("seed = 5", "seed = 5\nlog_sample = 5"), "a.toml")
    out = tmp_path / "out"
    assert invoke("run", logged, "--out", out, "--workers", 1, "-q", "--no-report")[0] == 0
    first = sorted_tables(out)
    plain = write(tmp_path, SMALL, "b.toml")
    code, output = invoke("run", plain, "--out", out, "--workers", 1, "-q", "--no-report")
    assert code == 0 and "0 chunks run, 6 reused" in output, output
    assert all(first[k].equals(sorted_tables(out)[k]) for k in first)
    assert sorted(set(load_tables(out, ["events"])["events"]["match"])) == [0, 5, 10]
    # anything else that changes results is still another scenario
    code, output = invoke("run", write(tmp_path, SMALL.replace("seed = 5", "seed = 6"),
                                       "c.toml"), "--out", out)
    assert_runtime_error(code, output, "different scenario")


def test_unreachable_scheduler_is_one_line_exit_1(tmp_path, monkeypatch):
    pytest.importorskip("distributed")
    monkeypatch.setenv("NOP_SIM_DASK_TIMEOUT", "1s")  # nothing listens there: no need to wait
    good = write(tmp_path, GOOD, "good.toml")
    out = tmp_path / "y"
    code, output = invoke("run", good, "--out", out, "--scheduler", "tcp://127.0.0.1:1",
                          "--quiet")
    assert_runtime_error(code, output, "cannot reach the Dask scheduler")
    assert not out.exists(), "a run that cannot start leaves no folder"


def test_a_disk_error_is_one_line_exit_1_and_takes_nothing_back_it_wrote(tmp_path, monkeypatch):
    from nop_sim.results import store

    good = write(tmp_path, GOOD.replace("matches = 2", "matches = 4"), "good.toml")
    out = tmp_path / "out"
    real = store.write_part
    calls = []

    def full_disk(folder, chunks, tables, *rest):
        calls.append(chunks[0].name)
        if len(calls) == 2:  # the second part: the first is kept for --resume
            raise OSError(28, "No space left on device", str(folder / "chunks" / chunks[0].name))
        real(folder, chunks, tables, *rest)

    monkeypatch.setattr(store, "write_part", full_disk)
    code, output = invoke("run", good, "--out", out, "--workers", 1, "--quiet")
    assert_runtime_error(code, output, "No space left on device")
    assert "p0000-c000001" in output
    assert [p.name for p in (out / "chunks").iterdir()] == ["p0000-c000000"]
    monkeypatch.undo()
    code, output = invoke("run", good, "--out", out, "--workers", 1, "--quiet", "--resume",
                          "--no-report")
    assert code == 0 and "1 reused" in output, output


def test_a_bad_set_value_names_the_flag_not_the_file(tmp_path):
    good = write(tmp_path, GOOD, "good.toml")
    for item, needle in [("dart_cap=abc", "dart_cap"), ("players=12", "players"),
                         ("run.chunk=0", "chunk"), ("dartcap=3", "Did you mean 'dart_cap'")]:
        code, output = invoke("run", good, "--set", "run.seed=1", "--set", item,
                              "--out", tmp_path / "x")
        assert_clear_error(code, output, needle)
        error = next(line for line in output.splitlines() if line.startswith("Error"))
        assert error.startswith(f"Error: --set {item}: "), output
        assert str(good) not in output, output
    # the file's own mistakes still name the file, with or without flags
    bad = write(tmp_path, GOOD.replace("players = 4", "players = 9"), "bad.toml")
    code, output = invoke("run", bad, "--set", "dart_cap=30", "--out", tmp_path / "x")
    assert_clear_error(code, output, "players")
    assert str(bad) in output


def test_help_lists_the_designers_path_first():
    code, output = invoke("--help")
    assert code == 0
    names = [line.split()[0] for line in output.split("Commands:")[1].splitlines()
             if line.startswith("  ") and not line.startswith("    ")]
    assert names[:4] == ["run", "compare", "sweep", "report"], output
    assert sorted(names) == ["bench", "compare", "compile", "eval", "exploit", "frequencies", "hands",
                             "play", "replay", "report", "run", "sensitivity", "sweep", "train",
                             "tune", "value"]


def test_damaged_manifest_is_reported_not_overwritten(tmp_path):
    good = write(tmp_path, GOOD, "good.toml")
    out = tmp_path / "out"
    assert invoke("run", good, "--out", out, "--workers", 1, "--quiet", "--no-report")[0] == 0
    whole = (out / "manifest.json").read_text()
    (out / "manifest.json").write_text(whole[:len(whole) // 2])  # truncated
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    # every command that reads the folder says what to do, in the same words, and changes
    # nothing: the run is made again into another folder (nothing rebuilds a manifest)
    said = set()
    for args in (("run", good, "--out", out, "--resume"), ("run", good, "--out", out),
                 ("report", out), ("hands", out, "--match", 0)):
        code, output = invoke(*args)
        assert_runtime_error(code, output, f"{out / 'manifest.json'}: is damaged")
        assert "run its scenario again into another folder (nop-sim run SCENARIO --out DIR)" \
            in output and "nothing was changed" in output, output
        said.add(output)
        assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before, args
    assert len(said) == 1, said


def test_overrides_and_manifest_record_the_resolved_settings(tmp_path):
    good = write(tmp_path, GOOD, "good.toml")
    out = tmp_path / "out"
    code, output = invoke("run", good, "--out", out, "--set", "dart_cap=7", "--seed", 9,
                          "--quiet", "--no-report")
    assert code == 0, output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["seed"] == 9
    assert manifest["points"][0]["settings"]["dart_cap"] == 7
    assert manifest["status"] == "finished" and manifest["versions"]["numba"]
    assert "dart_cap = 7" in manifest["scenario"]["text"]
    assert f"results: {out}/" in output


def test_sweep_modes_make_the_points_they_promise(tmp_path):
    grid = load_scenario(write(tmp_path, GOOD + "[sweep]\ndart_cap = [10, 20]\n"
                               "fee_to = ['pot', 'bank']\ndart_step = {from = 1, to = 3}\n"))
    assert len(grid.points()) == 2 * 2 * 3
    lhs = load_scenario(write(tmp_path, GOOD + "[sweep]\nmode = 'lhs'\nsamples = 10\n"
                              "dart_cap = {from = 10, to = 59}\n"))
    caps = sorted(p["dart_cap"] for p in lhs.points())
    # a Latin hypercube puts exactly one sample in each tenth of the range
    assert [(c - 10) // 5 for c in caps] == list(range(10))
    rnd = load_scenario(write(tmp_path, GOOD + "[sweep]\nmode = 'random'\nsamples = 7\n"
                              "hedge_scope = ['hand', 'match']\n"))
    assert len(rnd.points()) == 7
    assert {p["hedge_scope"] for p in rnd.points()} <= {"hand", "match"}
    with pytest.raises(ScenarioError, match="samples"):
        load_scenario(write(tmp_path, GOOD + "[sweep]\nmode = 'lhs'\ndart_cap = [1, 2]\n"))


def test_a_points_tables_are_its_rows_whether_read_by_point_or_whole(tmp_path):
    # a run of one point reads its point whole (one thread, no filter): the same
    # frames, categories included; a sweep's point reads only its own rows
    names = ("matches", "seats", "drafts", "counts", "arrays")
    sweep = tmp_path / "sweep"
    run_scenario(load_scenario(write(tmp_path, SMALL)), sweep, workers=1)
    one = tmp_path / "one"
    run_scenario(load_scenario(write(tmp_path, SMALL.split("[sweep]")[0], "one.toml")), one,
                 workers=1)
    whole, by_point = load_tables(one, names), load_tables(one, names, point=0)
    for name in names:
        pd.testing.assert_frame_equal(by_point[name], whole[name])
    whole = load_tables(sweep, ("matches", "seats", "drafts"))
    for point in (0, 1):
        mine = load_tables(sweep, ("matches", "seats", "drafts"), point=point)
        for name, frame in mine.items():
            assert len(frame) and (frame["point"] == point).all()
            want = whole[name][whole[name]["point"] == point]
            assert np.array_equal(frame["match"].to_numpy(), want["match"].to_numpy())


def test_parts_keep_the_statistics_of_the_columns_reads_filter_on(tmp_path):
    # read_rows and a sweep's point read skip row groups by the point's and the match's
    # statistics; the other columns' were a tenth of the write and are not kept
    import pyarrow.parquet as pq

    out = tmp_path / "run"
    run_scenario(load_scenario(write(tmp_path, SMALL)), out, workers=1)
    files = sorted((out / "chunks").glob("*/seats.parquet"))
    assert files
    for path in files:
        group = pq.ParquetFile(path).metadata.row_group(0)
        kept = {group.column(i).path_in_schema for i in range(group.num_columns)
                if group.column(i).is_stats_set}
        assert kept == {"point", "match"}, kept


def test_read_table_streams_row_groups_into_categories(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from nop_sim.results.store import _read_table

    path = tmp_path / "t.parquet"
    with pq.ParquetWriter(path, pa.schema([("n", pa.int64()), ("x", pa.float64()),
                                           ("card", pa.large_string())])) as w:
        # three row groups whose dictionaries differ and overlap, one null card
        for part in (["levy", "purge", "levy"], ["purge", None, "broker"], ["broker"]):
            k = len(part)
            w.write_table(pa.table({"n": np.arange(k), "x": np.linspace(0, 1, k),
                                    "card": pa.array(part, pa.large_string())}))
    got = _read_table(path)
    want = pq.read_table(path).to_pandas()
    assert list(got.columns) == ["n", "x", "card"]
    assert got["n"].tolist() == want["n"].tolist() == [0, 1, 2, 0, 1, 2, 0]
    assert got["x"].tolist() == want["x"].tolist()
    assert isinstance(got["card"].dtype, pd.CategoricalDtype)
    cards = [None if pd.isna(v) else v for v in got["card"]]
    assert cards == ["levy", "purge", "levy", "purge", None, "broker", "broker"]
    # a numeric column with nulls (not written by nop-sim) is read the plain way
    pq.write_table(pa.table({"n": pa.array([1, None, 3])}), tmp_path / "u.parquet")
    assert _read_table(tmp_path / "u.parquet")["n"].isna().tolist() == [False, True, False]


# ---------------------------------------------------------------------------
# Starting a run: any text round-trips, and a failed start changes nothing
# ---------------------------------------------------------------------------
def test_non_ascii_description_round_trips_into_the_manifest(tmp_path):
    import tomllib

    text = GOOD.replace('name = "good"', 'name = "good"\ndescription = "Dés 🎲 «test» \\u00e9"')
    path = write(tmp_path, text)
    scn = load_scenario(path)
    assert scn.description == "Dés 🎲 «test» é"
    out = tmp_path / "out"
    code, output = invoke("run", path, "--out", out, "--workers", 1, "--quiet", "--no-report")
    assert code == 0, output
    manifest = json.loads((out / "manifest.json").read_text())
    assert tomllib.loads(manifest["scenario"]["text"])["description"] == "Dés 🎲 «test» é"
    assert manifest["scenario"]["fingerprint"] == scn.fingerprint()
    # the same scenario again reuses the folder
    code, output = invoke("run", path, "--out", out, "--workers", 1, "--quiet", "--no-report")
    assert code == 0 and "1 reused" in output, output


def _snapshot(folder: Path) -> dict:
    return {p.relative_to(folder): (p.read_bytes() if p.is_file() else None)
            for p in folder.rglob("*")} if folder.exists() else None


@pytest.mark.parametrize("where", ["new", "empty", "stopped"])
def test_a_run_that_fails_to_start_leaves_the_folder_as_it_was(tmp_path, monkeypatch, where):
    from nop_sim.run import executors

    scn = load_scenario(write(tmp_path, GOOD.replace("matches = 2", "matches = 4")))
    out = tmp_path / "out"
    if where == "empty":
        out.mkdir()
    elif where == "stopped":  # a run stopped after its first chunk
        run_scenario(scn, out, workers=1)
        shutil.rmtree(out / "chunks" / "p0000-c000001")
        (out / "chunks" / ".tmp-p0000-c000001-1").mkdir()  # left by a kill
    before = _snapshot(out)

    def broken_executor(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(executors, "executor", broken_executor)
    with pytest.raises(OSError):
        run_scenario(scn, out, workers=1, resume=where == "stopped")
    assert _snapshot(out) == before
    monkeypatch.undo()
    result = run_scenario(scn, out, workers=1, resume=where == "stopped")
    assert result.n_matches == 4 and result.reused == (where == "stopped")


# ---------------------------------------------------------------------------
# [run] log_sample: event logs kept in the store, read back by nop-sim hands
# ---------------------------------------------------------------------------
def test_logged_matches_are_stored_and_printed_from_the_run_folder(tmp_path, real_workers):
    path = write(tmp_path, SMALL.replace("seed = 5", "seed = 5\nlog_sample = 2"))
    scn = load_scenario(path)
    out, plain = tmp_path / "logged", tmp_path / "plain"
    run_scenario(scn, out, workers=1)
    # the log changes nothing else, and the worker count changes nothing at all
    run_scenario(load_scenario(path, ["run.log_sample=0"]), plain, workers=1)
    for name in ("matches", "seats", "drafts", "counts"):
        pd.testing.assert_frame_equal(sorted_tables(out)[name], sorted_tables(plain)[name])
    run_scenario(scn, tmp_path / "two", workers=2)
    assert_same_results(out, tmp_path / "two")
    events = load_tables(out, ["events"])["events"]
    logged = sorted(set(zip(events["point"], events["match"], strict=True)))
    # exactly the matches whose number is a multiple of log_sample, at every point
    assert logged == [(p, m) for p in (0, 1) for m in range(0, 12, 2)]
    assert load_tables(plain, ["events"])["events"].empty
    # every stored match is whole: one match_start, one match_end, its hands counted
    from nop_sim.games.new_order import types as T

    point, match = logged[-1]
    ev = events[(events["point"] == point) & (events["match"] == match)]
    assert (ev["kind"] == T.EV_MATCH_START).sum() == 1 and ev["kind"].iloc[-1] == T.EV_MATCH_END
    hands = load_tables(out)["matches"].set_index(["point", "match"]).loc[(point, match), "hands"]
    assert (ev["kind"] == T.EV_HAND_START).sum() == hands

    res = CliRunner().invoke(main, ["hands", str(out), "--match", str(match), "--point",
                                    str(point), "--json", str(tmp_path / "m.jsonl")])
    assert res.exit_code == 0, res.output
    assert f"=== Match {match}:" in res.output and f"over after {hands} hands" in res.output
    assert res.output.count("--- Hand #") == hands
    seats = load_tables(out)["seats"]
    first = seats[(seats["point"] == point) & (seats["match"] == match) & (seats["seat"] == 0)]
    assert f"Seat 0 ({first['preset'].iloc[0]})" in res.output  # the table's seat 0
    records = [json.loads(line) for line in (tmp_path / "m.jsonl").read_text().splitlines()]
    assert records[0]["event"] == "match_start" and {r["match"] for r in records} == {match}

    # a match that was not logged is played again from the seed: the log a run that
    # logged it stores, row for row, at every point, from a folder that logged none too
    from nop_sim.results.match_log import load_match_log
    from nop_sim.run.replay import replay_events

    every = tmp_path / "every"
    run_scenario(load_scenario(path, ["run.log_sample=1"]), every, workers=1)
    stored = load_tables(every, ["events"])["events"]
    for folder in (out, plain):
        for point, match in [(0, 1), (1, 7), (1, 11)]:
            want = stored[(stored["point"] == point) & (stored["match"] == match)]
            got = load_match_log(folder, match, point, replay=replay_events).events
            pd.testing.assert_frame_equal(got.reset_index(drop=True),
                                          want.reset_index(drop=True), check_dtype=False)
    res = CliRunner().invoke(main, ["hands", str(plain), "--match", "7", "--point", "1"])
    assert res.exit_code == 0 and "=== Match 7:" in res.output, res.output
    # one that the run has not: one line naming those it has
    code, output = invoke("hands", plain, "--match", 12)
    assert code == 1 and len(output.strip().splitlines()) == 1, output
    assert "match 12 is not a match of this run: use 0 to 11" in output
    # a folder needs --match; --match needs a folder
    assert invoke("hands", out)[0] == 2
    assert invoke("hands", path, "--match", 0)[0] == 2


def test_a_replay_refuses_a_match_it_cannot_play_as_the_run_did(tmp_path):
    # a mixture field's match played again is the one the run logged; after its agent
    # file changed, or where the stored match differs, the replay names why in one line
    import pyarrow as pa
    import pyarrow.parquet as pq

    from nop_sim.results.match_log import load_match_log
    from nop_sim.run.replay import replay_events

    field = tmp_path / "field.toml"
    shutil.copy(ROOT / "scenarios" / "fields" / "baseline" / "strong.toml", field)
    path = write(tmp_path, "[game]\nplayers = 4\n[seats]\nall = \"@field.toml\"\n"
                           "[run]\nmatches = 6\nchunk = 3\nseed = 8\nlog_sample = 5\n")
    out = tmp_path / "out"
    run_scenario(load_scenario(path), out, workers=1)
    logged = load_tables(out, ["events"])["events"]
    want = logged[logged["match"] == 5].reset_index(drop=True)
    replayed = replay_events(out, json.loads((out / "manifest.json").read_text()), 0, 5)
    pd.testing.assert_frame_equal(replayed, want, check_dtype=False)
    assert load_match_log(out, 4, replay=replay_events).events["match"].eq(4).all()

    text = field.read_text()
    first = next(line for line in text.splitlines() if line.startswith("weight = "))
    field.write_text(text.replace(first, "weight = 0.9", 1))  # weights are normalised
    code, output = invoke("hands", out, "--match", 4)
    assert code == 1 and len(output.strip().splitlines()) == 1, output
    assert "match 4 cannot be played again" in output and "field.toml changed" in output
    field.write_text(text)
    assert invoke("hands", out, "--match", 4)[0] == 0

    # the stored match says one hand more than its play: the replay refuses to show it
    part = out / "chunks" / "p0000-c000000" / "matches.parquet"  # holds matches 0 to 2
    table = pq.read_table(part)
    hands = table.column("hands").to_numpy().copy()
    hands[table.column("match").to_numpy() == 1] += 1  # match 1: not logged
    pq.write_table(table.set_column(table.schema.get_field_index("hands"), "hands",
                                    pa.array(hands)), part)
    code, output = invoke("hands", out, "--match", 1)
    assert code == 1 and "match 1 cannot be played again" in output, output
    assert "ends otherwise than the run stored it" in output and "Traceback" not in output
    assert invoke("hands", out, "--match", 2)[0] == 0  # the other matches still play


SEATED = """
[game]
players = 3
[seats]
seat = ["rock", "maniac", "hedger"]
[run]
matches = 4
chunk = 4
seed = 5
log_sample = 1
"""


def test_a_sweep_points_logged_match_is_read_with_the_settings_it_was_played_with(tmp_path):
    # the manifest's scenario text lists a table-valued axis (dart_step = {from, to}) after
    # the plain ones, so a scenario rebuilt from that text orders the grid otherwise: the
    # match log reads each point's own [sweep] values from the manifest's points
    from nop_sim.results.match_log import load_match_log

    out = tmp_path / "sweep"
    run_scenario(load_scenario(ROOT / "scenarios" / "ledger_sweep.toml",
                               ["run.matches=2", "run.chunk=2", "run.log_sample=1"]), out,
                 workers=1)
    points = json.loads((out / "manifest.json").read_text())["points"]
    assert len({json.dumps(p["settings"], sort_keys=True) for p in points}) == len(points) > 2
    for p in points:
        settings = load_match_log(out, 0, p["point"]).settings
        assert settings.to_dict() == p["settings"], p["params"]


def test_hands_and_the_reports_number_seats_alike(tmp_path):
    # one numbering everywhere, from 0: the tables' seat column, the event logs, the
    # summary, the report and the hand histories name the same seat the same way
    out = tmp_path / "out"
    code, output = invoke("run", write(tmp_path, SEATED), "--out", out, "--workers", 1, "-q")
    assert code == 0, output
    seats = load_tables(out)["seats"]
    won = seats[(seats["match"] == 0) & (seats["place"] == 1)].iloc[0]
    seat, preset = int(won["seat"]), str(won["preset"])
    res = CliRunner().invoke(main, ["hands", str(out), "--match", "0",
                                    "--json", str(tmp_path / "m.jsonl")])
    assert res.exit_code == 0, res.output
    assert f"winner Seat {seat} ({preset}) ===" in res.output, res.output[-300:]
    for s, p in enumerate(["rock", "maniac", "hedger"]):
        assert f"Dealt to Seat {s} ({p})" in res.output
    assert "Seat 3" not in res.output  # three players: seats 0, 1 and 2
    end = [json.loads(line) for line in (tmp_path / "m.jsonl").read_text().splitlines()][-1]
    assert end["event"] == "match_end" and end["winner"] == seat
    summary = (out / "summary.md").read_text()
    assert "| seat |" in summary and "| 0 |" in summary and "| 3 |" not in summary
    report = (out / "report.md").read_text().split("| seat | wins |", 1)[1]
    table = report.split("\n\n", 1)[0].splitlines()[2:]  # the report's wins per seat
    assert [row.split("|")[1].strip() for row in table] == ["0", "1", "2"], table
    # fresh hands of the same scenario too
    fresh = CliRunner().invoke(main, ["hands", str(tmp_path / "s.toml"), "--count", "1"])
    assert "Dealt to Seat 0 (rock)" in fresh.output and "Seat 3" not in fresh.output


def test_ordered_hand_histories_number_seats_from_0(tmp_path):
    res = CliRunner().invoke(main, ["hands", str(ROOT / "scenarios" / "ordered_hand.toml"),
                                    "--count", "1"])
    assert res.exit_code == 0, res.output
    assert "Seat 0 (" in res.output and "Seat 4" not in res.output


def test_ordered_hand_logs_are_stored_too(tmp_path):
    scn_path = ROOT / "scenarios" / "ordered_hand.toml"
    scn = load_scenario(scn_path, ["run.matches=12", "run.chunk=5", "run.log_sample=4"])
    out = tmp_path / "oh"
    run_scenario(scn, out, workers=1)
    plain = tmp_path / "plain"
    run_scenario(load_scenario(scn_path, ["run.matches=12", "run.chunk=5"]), plain, workers=1)
    pd.testing.assert_frame_equal(sorted_tables(out)["matches"], sorted_tables(plain)["matches"])
    events = load_tables(out, ["events"])["events"]
    assert sorted(set(events["match"])) == [0, 4, 8]
    res = CliRunner().invoke(main, ["hands", str(out), "--match", "4"])
    assert res.exit_code == 0, res.output
    assert "Game 5:" in res.output and "End after" in res.output
    code, output = invoke("hands", out, "--match", 5)
    assert code == 1 and "0, 4, 8" in output, output


def test_chunks_of_an_older_store_are_redone_not_mixed_in(tmp_path):
    # store 1 had no event tables, and its Ordered Hand seats never rotated
    scn = load_scenario(write(tmp_path, GOOD))
    out = tmp_path / "out"
    run_scenario(scn, out, workers=1)
    done = next((out / "chunks").glob("p*")) / "done.json"
    meta = json.loads(done.read_text())
    del meta["store_version"]
    done.write_text(json.dumps(meta))
    again = run_scenario(scn, out, workers=1, resume=True)
    assert again.computed == 1 and again.reused == 0


def test_compile_fills_the_cache_so_that_a_second_compile_only_loads(tmp_path):
    # every registered game's kernel groups, each compiled (or loaded) in a worker
    from nop_sim.games import registered_games
    from nop_sim.run.compiling import compile_all

    times = compile_all(workers=2)
    assert set(times) == {f"{g.kind}: {name}" for g in registered_games() for name in g.kernels}
    assert "new-order: match driver" in times and "ordered-hand: engine" in times
    # numba's cache: beside the sources, or where NUMBA_CACHE_DIR says
    package = Path(os.environ.get("NUMBA_CACHE_DIR") or Path(__file__).resolve().parents[1] / "nop_sim")

    def cache_files():  # numba writes an object file (.nbc) only when it compiles
        return {p: p.stat().st_mtime_ns for p in package.rglob("*.nbc")}

    before = cache_files()
    assert before, "the first compile left no numba cache files"
    again = compile_all(workers=2)  # from the cache now: loads, not compiles
    assert set(again) == set(times)
    # the files the first compile left are not written again (the suite's other workers may
    # meanwhile compile, into new files, kernels no group holds: those are not compared)
    after = cache_files()
    assert {p: after.get(p) for p in before} == before, \
        "the second compile wrote the cache again (it compiled)"
    code, output = invoke("compile", "--workers", 1)
    assert code == 0 and "kernels ready" in output, output


def test_compile_says_which_groups_run_and_which_are_left(monkeypatch):
    # a cold compile takes minutes on 2 cores: while it runs, the user sees each group
    # start and finish with its time, how many of how many are done, and the clock
    from concurrent.futures import ThreadPoolExecutor

    import nop_sim.run.compiling as compiling
    from nop_sim.games import registered_games

    groups = [f"{g.kind}: {name}" for g in registered_games() for name in g.kernels]
    slow = {groups[0]: 0.6}  # the others take 0.05 s

    def fake_group(kind, name):
        time.sleep(slow.get(f"{kind}: {name}", 0.05))
        return slow.get(f"{kind}: {name}", 0.05)

    # threads instead of spawned processes, so the fake groups apply (and take no time)
    monkeypatch.setattr(compiling, "ProcessPoolExecutor",
                        lambda max_workers, mp_context=None: ThreadPoolExecutor(max_workers))
    monkeypatch.setattr(compiling, "_compile_group", fake_group)
    monkeypatch.setattr(compiling, "mark_compiled", lambda kind: None)  # the cache is untouched
    monkeypatch.setattr(compiling, "HEARTBEAT", 0.2)
    code, output = invoke("compile", "--workers", 2)
    assert code == 0, output
    lines = output.splitlines()
    n = len(groups)
    for g in groups:  # a line when each group starts, and one when it is done, with its time
        start = next(i for i, line in enumerate(lines) if re.search(rf"\] start +{g} ", line))
        done = next(i for i, line in enumerate(lines) if re.search(rf"\] done +{g} in", line))
        assert start < done, output
        assert re.search(r"\d+\.\d s", lines[done]), lines[done]
    assert any(f"{n}/{n}" in line for line in lines), output       # the count, to the end
    assert any(f"1/{n}" in line for line in lines), output
    # while the slow group runs alone, a line says what is still compiling and the clock
    waiting = [line for line in lines if "still compiling" in line]
    assert waiting and groups[0] in waiting[0], output
    assert all(re.match(r"\s*\[\s*\d+:\d\d\]", line) for line in lines[1:-1]), output


def test_the_compile_time_is_stated_alike_everywhere():
    # README, nop-sim compile --help, its first line and a run's note once disagreed
    # (a minute, half a minute); all now state the one measured figure
    from nop_sim.run.compiling import COMPILE_NOTE, COMPILE_TIME

    assert "on 2 cores" in COMPILE_TIME
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert f"nop-sim compile`, {COMPILE_TIME}" in readme
    code, output = invoke("compile", "--help")
    assert COMPILE_TIME in " ".join(output.split()), output
    assert COMPILE_TIME in COMPILE_NOTE


_COMPILE_IMPORTS = """
import importlib, sys
from pathlib import Path
sys.path.insert(0, {scripts!r})
from install_order import COMPILE_NEEDS, split
from importlib.metadata import distribution
from packaging.requirements import Requirement

class Later:  # the packages make installs while the kernels compile
    def __init__(self, names):
        self.names = names
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in self.names:
            raise ImportError(f"the compile imported {{name}}, which make installs later")

def tops(d):
    # a distribution's import names: top_level.txt, else the roots of its files
    listed = (d.read_text("top_level.txt") or "").split()
    if listed:
        return set(listed)
    roots = {{f.parts[0].removesuffix(".py") for f in d.files or ()
             if len(f.parts) > 1 or f.suffix == ".py"}}
    return {{r for r in roots if not r.endswith((".dist-info", ".data", ".libs"))
            and r not in ("__pycache__", "..")}} or {{d.metadata["Name"].replace("-", "_")}}

def closure(names):
    # the import names of the distributions named, and of all they require
    seen, found, todo = set(), set(), list(names)
    while todo:
        name = todo.pop()
        try:
            d = distribution(name)
        except Exception:
            continue
        if d.metadata["Name"].lower() in seen:
            continue
        seen.add(d.metadata["Name"].lower())
        found |= tops(d)
        for req in map(Requirement, d.requires or []):
            if req.marker is None or req.marker.evaluate({{"extra": ""}}):
                todo.append(req.name)
    return found

allowed = closure(COMPILE_NEEDS) | {{"nop_sim"}}   # nop-sim itself, installed --no-deps
_, rest = split(Path({scripts!r}).parent / "pyproject.toml")
later = closure(Requirement(r).name for r in rest) - allowed
assert {{"pandas", "pyarrow", "tomli_w", "matplotlib"}} <= later, sorted(later)
sys.meta_path.insert(0, Later(later))
from nop_sim.cli import main
from nop_sim.games import DEFAULT_KIND, get_game
from nop_sim.run import compiling  # noqa: F401
game = get_game(DEFAULT_KIND)
for name in game.run_kernels or game.kernels:
    importlib.import_module(game.kernels[name].__module__)
    compiling._compile_group(DEFAULT_KIND, name)   # what a compile worker runs (cached here)
try:
    main(["compile", "--help"], standalone_mode=False)
except SystemExit:
    pass
print("ok")
"""


def test_the_compile_make_starts_early_imports_only_what_is_installed_by_then():
    """make install starts nop-sim compile --runs once scripts/install_order.py's
    COMPILE_NEEDS are installed, the rest installing meanwhile: the CLI, the compile
    and the default game's run kernel groups (imported and run, as a compile worker runs
    them) import none of the rest (a fresh interpreter that refuses them)."""
    code = _COMPILE_IMPORTS.format(scripts=str(ROOT / "scripts"))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, cwd=ROOT)
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stderr[-3000:]


def test_a_compile_is_announced_once():
    import numba
    from numba.core import event

    from nop_sim.run import compiling

    said = []
    listener = compiling.announce_compiles(said.append)

    @numba.njit(cache=False)
    def fresh(x):  # a real compile, but not a nop-sim kernel: nothing said
        return x + 1

    fresh(1)
    assert said == []

    @numba.njit(cache=False)
    def kernel(x):
        return x * 2

    kernel.py_func.__module__ = "nop_sim.kernels.fake"
    kernel(1)
    kernel(2.0)  # a second compile in the same process: said once
    event.unregister("numba:compile", listener)
    assert said == [compiling.COMPILE_NOTE]


def test_profile_names_every_phase_and_the_parts_hold_every_chunk_once(tmp_path, real_workers):
    path = write(tmp_path, SMALL)
    out = tmp_path / "out"
    code, output = invoke("run", path, "--out", out, "--workers", 2, "--quiet", "--no-report",
                          "--profile")
    assert code == 0, output
    lines = output.split("profile (seconds")[1].splitlines()
    shown = {line.split()[0] for line in lines[1:] if line.strip()}
    # ("start", the workers' start-up, is shown once they play a part: a run this small
    # can end in this process before a cold fork server has its workers ready)
    assert {"simulation", "tables", "write", "checksums", "summary", "wall"} <= shown, output
    # parts: consecutive chunks, each chunk in exactly one part, and the tables read
    # back in plan order
    held = []
    for folder in sorted((out / "chunks").glob("p*")):
        names = [c["name"] for c in json.loads((folder / "done.json").read_text())["chunks"]]
        assert names[0] == folder.name
        held += names
    plan = [c.name for c in plan_chunks(load_scenario(path))]
    assert sorted(held) == plan
    matches = load_tables(out)["matches"]
    assert list(zip(matches["point"], matches["match"], strict=True)) == sorted(
        zip(matches["point"], matches["match"], strict=True))


def test_a_part_is_sized_by_the_time_its_chunks_take():
    from nop_sim.run.executors import PartResult
    from nop_sim.run.planning import PART_SECONDS, Chunk, PartPlan

    chunks = [Chunk(0, i, 10 * i, 10, 0, i) for i in range(40)]
    plan = PartPlan(chunks, {c.name: i for i, c in enumerate(chunks)}, workers=1)
    first = plan.next()
    assert len(first) == 1  # nothing measured yet
    # a chunk of 10 matches took a tenth of PART_SECONDS: the next part holds ten
    plan.learn(PartResult(first, None, 0, PART_SECONDS / 10, {}))
    assert len(plan.next()) == 10
    # with two workers, no part takes more than a quarter of what is left
    plan.workers = 2
    assert len(plan.next()) == -(-29 // 4)


def test_chunks_played_together_give_each_chunks_rows_and_the_same_sums(tmp_path):
    # a part played in one engine call equals its chunks played one by one: rows
    # appended in chunk order, counters added up; across two sweep points, with a
    # logged match in some chunks only
    import pyarrow as pa

    from nop_sim.games import get_game
    from nop_sim.results.store import concat as _concat
    from nop_sim.results.store import summed as _summed

    path = write(tmp_path, SMALL.replace("matches = 12", "matches = 9"))
    scn = load_scenario(path, ["run.chunk=4", "run.log_sample=5"])
    game = get_game(scn.kind)
    chunks = plan_chunks(scn)
    assert len({c.point for c in chunks}) == 2 and len(chunks) == 6
    together = game.play_chunks(scn, chunks)
    alone = [game.play_chunks(scn, [c]) for c in chunks]
    for name in game.tables:
        want = _concat([a[name] for a in alone])
        assert together[name].equals(want), name
    assert together["events"].num_rows > 0
    want = _summed(_concat([a["arrays"] for a in alone]))
    got = _summed(together["arrays"])
    keys = ["point", "table", "stat", "index"]
    assert got.sort_by([(k, "ascending") for k in keys]).equals(
        want.sort_by([(k, "ascending") for k in keys]))
    assert isinstance(together["matches"], pa.Table)


def _spied(monkeypatch, module, name: str, take) -> list:
    """Replace ``module.name`` by a spy for the test; the list it appends ``take(args,
    result)`` to at each call."""
    seen, real = [], getattr(module, name)

    def spy(*args, **kw):
        result = real(*args, **kw)
        seen.append(take(args, result))
        return result

    monkeypatch.setattr(module, name, spy)
    return seen


def test_a_parts_time_series_holds_every_hand_of_every_batch(monkeypatch):
    # a part adds up its batches' time series only as far as the call's longest match
    # (the rows past it are zeros): the sum over chunks is every batch's whole series,
    # read from the engine before the part cut it
    import nop_sim.games.new_order.chunks as C

    scn = load_scenario(Path("scenarios/baseline.toml"),
                        ["run.matches=48", "run.chunk=8", "run.log_sample=5"])
    chunks = plan_chunks(scn)
    whole = _spied(monkeypatch, C, "play_batches", lambda args, res: res.time.sum(axis=0))
    point = scn.points()[0]
    out, _, _ = C._play_rotated(scn, point, scn.settings_at(point), chunks)
    assert len(whole) > 1  # logged and unlogged calls
    want = np.sum(whole, axis=0)
    from nop_sim.games.new_order import types as T

    assert want[:, T.T_MATCHES].sum() > 48 and np.array_equal(out["time"].sum(axis=0), want)


def test_a_parts_event_rows_are_the_engines_each_match_together_in_match_order(monkeypatch):
    # each logged batch's rows, as the engine gave them, put piece by piece into the
    # part's columns: the same as appending every piece and sorting by match id (stable)
    import nop_sim.games.new_order.chunks as C

    scn = load_scenario(Path("scenarios/baseline.toml"),
                        ["run.matches=40", "run.chunk=8", "run.log_sample=3"])
    chunks = plan_chunks(scn)
    given = _spied(monkeypatch, C, "_events_frame",
                   lambda args, res: [e.copy() for pieces in args[1] for e in pieces])
    events = C.play_chunks(scn, chunks)["events"]
    assert len(given) == 1 and len(given[0]) > len(chunks)  # several pieces a chunk
    rows = np.concatenate(given[0])
    want = rows[np.argsort(rows[:, 0], kind="stable")]
    got = np.column_stack([events[name].to_numpy() for name in C.EVENT_COLUMNS])
    assert np.array_equal(got, want)
    assert sorted(set(want[:, 0])) == list(range(0, 40, 3))
    assert np.array_equal(events["chunk"].to_numpy(), want[:, 0] // 8)


def _script(name: str):
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        name, Path(__file__).resolve().parents[1] / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_card_luck_stakes_are_what_a_seat_can_still_win_or_lose():
    # scripts/card_luck.py weighs a change of equity by the chips at stake: a seat's chips
    # and bet this hand, capped by the largest of another live seat's (a folded seat's
    # chips are not at stake)
    card_luck = _script("card_luck")
    assert card_luck.at_stake({0: 10, 1: 50, 2: 30}, [0, 1, 2]) == [10, 30, 30]
    assert card_luck.at_stake({0: 10, 1: 50, 2: 30, 3: 99}, [1, 2]) == [30, 30]
    assert card_luck.at_stake({0: 75, 1: 75}, [0, 1]) == [75, 75]


def test_card_luck_terms_have_mean_zero_and_add_up_to_zero_over_the_seats(tmp_path):
    # scripts/card_luck.py (issue 36: how far a chance-event correction goes): at a first
    # community card with two more to come, the term (equity after the card minus its
    # expectation before) has mean zero over the card's draws from the stock; over whole
    # logged matches every term adds up to zero over the seats (shares of one pot)
    card_luck = _script("card_luck")
    from nop_sim.games.new_order.history import EVENT_COLUMNS, to_records
    from nop_sim.games.new_order.referee.match import _Referee

    scn = load_scenario(write(tmp_path, "[game]\nplayers = 4\n[seats]\nall = 'maniac'\n"
                              "[run]\nmatches = 8\nchunk = 4\nseed = 3\nlog_sample = 1\n"))
    out = tmp_path / "run"
    run_scenario(scn, out, workers=1)
    table = card_luck.luck_table(out, 8, runouts=6, draws=3, seed=2)
    events = load_tables(out, ("events",))["events"]
    from nop_sim.games.new_order import types as T

    whole = events[events["kind"] == T.EV_MATCH_END]["match"].nunique()  # logs not cut short
    assert table["match"].nunique() == whole >= 4 and len(table) == 4 * whole
    sums = table.groupby("match")[["won", *card_luck.FEATURES]].sum()
    assert np.allclose(sums["won"], 1) and np.allclose(sums[list(card_luck.FEATURES)], 0)
    assert (table["board_pot"].abs() > 0).any() and (table["draw"].abs() > 0).any()
    # every chance event also gets its stake-weighted term (scripts/card_luck.py, STAKES)
    assert (table[list(card_luck.STAKES)].abs() > 0).any().all()

    settings = scn.settings_at(scn.points()[0])
    records = list(to_records(events[list(EVENT_COLUMNS)].to_numpy(np.int64)))
    ref = _Referee(settings)
    for r in records:  # to the first community card that two or more players see
        h = getattr(ref, "h", None)
        if (r["event"] == "board" and not h.board and ref.restock is None
                and sum(not h.folded[p] for p in h.order) >= 2):
            break
        ref.event(r)
    h = ref.h
    live = [p for p in h.order if not h.folded[p]]
    rng = np.random.default_rng(5)
    eq = card_luck.Equity(settings, rng, runouts=8, draws=1)
    stock = card_luck._stock(ref)
    terms = []
    for _ in range(400):
        before = eq.now(ref, live, h.third + 1)
        order = rng.permutation(stock.size)
        card, rest = stock[order[:h.third]], stock[order[h.third:]]
        runs = eq.runs(rest, 1)
        after = eq.shares(ref, live, [card_luck._rows(h.hole[p] + card.tolist(), runs)
                                      for p in live], runs)
        terms.append(after - before)
    terms = np.array(terms)
    se = terms.std(axis=0, ddof=1) / np.sqrt(len(terms))
    # a seat whose share is the same in every run-out (drawing dead, say) has no term
    assert (se > 0).sum() >= 2 and (np.abs(terms.mean(axis=0)) <= 4 * se).all()


def test_card_luck_factor_reads_a_term_that_explains_the_win_and_one_that_does_not():
    card_luck = _script("card_luck")
    rng = np.random.default_rng(1)
    n = 4000
    won = (rng.random(n) < 0.25).astype(float)
    frame = pd.DataFrame({"match": np.arange(n) // 4, "won": won, "total": 300.0,
                          "told": 300 * (won - 0.25 + rng.normal(0, 0.05, n)),
                          "noise": 300 * rng.normal(0, 1, n)})
    kept, times = card_luck.factor(frame, ["told"])
    assert kept < 0.05 and times > 20
    kept, times = card_luck.factor(frame, ["noise"])
    assert 0.99 < kept < 1.01


_FORK_SERVER_CHECK = """
import os
from concurrent.futures import ProcessPoolExecutor

from nop_sim.games import get_game
from nop_sim.run import executors as runner

ctx = runner._worker_context("new-order")
assert ctx.get_start_method() == "forkserver", ctx.get_start_method()
play = runner.part_player(get_game("new-order"))
with ProcessPoolExecutor(2, mp_context=ctx) as pool:
    ready = [pool.submit(runner._worker_ready, play) for _ in range(2)]
    loaded = [f.result()[1] for f in ready]
    assert loaded == [("new-order",)] * 2, loaded
# a worker must see this process's numba settings: another cache, another start
os.environ["NUMBA_CACHE_DIR"] = "/elsewhere"
assert runner._worker_context("new-order").get_start_method() == "spawn"
"""


@pytest.mark.skipif(sys.platform == "win32", reason="no fork server on Windows")
def test_workers_fork_from_a_server_that_loaded_the_kernels():
    # in a fresh interpreter: this process's fork server, if an earlier test started
    # one, preloaded whichever game that test played

    root = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", _FORK_SERVER_CHECK], env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]


_EARLY_SERVER_CHECK = """
import sys, time
from concurrent.futures import ProcessPoolExecutor

from nop_sim.games import get_game
from nop_sim.run import executors, server

# what nop-sim run asks before it imports the runner: no server for a small run, one
# worker or a cluster
assert not server.start_early("new-order", 59_999, 2, None)
assert not server.start_early("new-order", 100_000, 1, None)
assert not server.start_early("new-order", 100_000, 2, "tcp://127.0.0.1:8786")
assert server.start_early("new-order", 100_000, 2, None)
ctx = executors._worker_context("new-order")  # the run's own call: the same server
assert ctx.get_start_method() == "forkserver"
t = time.perf_counter()
with ProcessPoolExecutor(1, mp_context=ctx) as pool:
    loaded = pool.submit(executors._worker_ready,
                         executors.part_player(get_game("new-order"))).result()[1]
# this cache holds no compiled kernels: the server must not compile them (a minute of a
# core beside the run's own compile), so its workers have none loaded
assert loaded == (), loaded
assert time.perf_counter() - t < 30, time.perf_counter() - t
"""


@pytest.mark.skipif(sys.platform == "win32", reason="no fork server on Windows")
def test_a_server_started_before_the_kernels_are_compiled_does_not_compile_them(tmp_path):
    root = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "empty-cache"),
           "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", _EARLY_SERVER_CHECK], env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]


def test_tables_read_back_do_not_depend_on_how_rows_were_cut_into_parts(tmp_path):
    # parts are cut by the time chunks take (and a resumed run keeps the old ones):
    # the same rows in other parts must read back as the same tables, the summed
    # tables added up by key, text columns as the same categories
    import itertools

    import pyarrow as pa

    from nop_sim.results import store
    from nop_sim.run.planning import Chunk

    n = 2 * (1 << 16) + 777
    rng = np.random.default_rng(3)
    rows = pa.table({"point": np.zeros(n, np.int64), "match": np.arange(n),
                     "value": rng.integers(0, 10**9, n),
                     "text": pa.array([" ".join(map(str, rng.integers(0, 13, 3)))
                                       for _ in range(n)], pa.large_string())})
    counters = pa.table({"point": np.zeros(n, np.int64), "stat": rng.integers(0, 50, n),
                         "value": rng.integers(0, 100, n)})
    read = []
    for cuts in ([0, n // 3, 2 * n // 3, n], [0, 5, 1000, 70_001, 70_002, n - 9, n]):
        out = tmp_path / f"cut{len(cuts)}"
        chunks = [Chunk(0, i, lo, hi - lo, 0, i) for i, (lo, hi) in
                  enumerate(itertools.pairwise(cuts))]
        for chunk in chunks[::-1]:  # written in any order: read in plan order
            part = {"rows": rows.slice(chunk.first_match, chunk.n_matches),
                    "arrays": store.summed(counters.slice(chunk.first_match, chunk.n_matches))}
            store.write_part(out, [chunk], part, 1)
        store.write_json(out / "manifest.json", {
            "n_chunks": len(chunks), "status": "finished",
            "tables": {"rows": ["rows"], "summed": ["arrays"]}})
        read.append(store.load_tables(out))
    for name in ("rows", "arrays"):
        pd.testing.assert_frame_equal(read[0][name], read[1][name], obj=name)
    assert read[0]["rows"]["match"].tolist() == list(range(n))
    want = counters.to_pandas().groupby(["point", "stat"], as_index=False)["value"].sum()
    pd.testing.assert_frame_equal(read[0]["arrays"], want, check_dtype=False)
    # a part gone: one line that says how to rebuild it
    shutil.rmtree(tmp_path / "cut4" / "chunks" / "p0000-c000001")
    with pytest.raises(store.RunError, match="--resume"):
        store.load_tables(tmp_path / "cut4")


def test_a_table_stored_wide_reads_back_as_the_long_table_it_stands_for(tmp_path):
    # store.wide_table: a row a key, a column a label, read back by every reader as the
    # long table (a row a nonzero count, in key then label order, the label as text):
    # the oracle is that long table built row by row, read back from a part of its own
    import pyarrow as pa

    from nop_sim.results import store
    from nop_sim.run.planning import Chunk

    rng = np.random.default_rng(8)
    labels = ["b", "a", "c", "d"]
    n = 300
    keys = {"point": np.repeat([0, 1], n // 2).astype(np.int64),
            "match": np.arange(n, dtype=np.int64)}
    counts = rng.integers(0, 3, (n, len(labels))) * (rng.random((n, len(labels))) < 0.4)
    counts[:5] = 0  # keys with nothing: no row
    long = [(int(keys["point"][i]), int(keys["match"][i]), labels[j], int(counts[i, j]))
            for i in range(n) for j in range(len(labels)) if counts[i, j]]
    want = pd.DataFrame(long, columns=["point", "match", "card", "count"])
    chunks = [Chunk(0, 0, 0, n // 2, 0, 1), Chunk(1, 0, 0, n // 2, 0, 2)]
    out = tmp_path / "run"
    for chunk, rows in zip(chunks, (slice(0, n // 2), slice(n // 2, n)), strict=True):
        wide = store.wide_table({k: v[rows] for k, v in keys.items()}, counts[rows], "card",
                                "count", labels)
        empty = store.wide_table({k: v[:0] for k, v in keys.items()}, counts[:0], "card",
                                 "count", labels)
        store.write_part(out, [chunk], {"drafts": wide, "none": empty}, 1)
    store.write_json(out / "manifest.json", {
        "n_chunks": 2, "status": "finished", "points": [{"point": 0}, {"point": 1}],
        "tables": {"rows": ["drafts", "none"], "summed": []}})

    def plain(frame):
        frame = frame.reset_index(drop=True)
        if "card" in frame:
            frame["card"] = frame["card"].astype(str)
        return frame

    read = store.load_tables(out, ["drafts", "none"])
    assert isinstance(read["drafts"]["card"].dtype, pd.CategoricalDtype)
    # the categories in the order first met, as a long table's read
    assert list(read["drafts"]["card"].cat.categories) == list(dict.fromkeys(want["card"]))
    pd.testing.assert_frame_equal(plain(read["drafts"]), want)
    assert len(read["none"]) == 0 and list(read["none"]) == list(want)
    some = store.load_tables(out, ["drafts"], columns={"drafts": ["match", "count"]})
    pd.testing.assert_frame_equal(some["drafts"].reset_index(drop=True),
                                  want[["match", "count"]])
    one = store.load_tables(out, ["drafts"], point=1)["drafts"]
    pd.testing.assert_frame_equal(plain(one), plain(want[want["point"] == 1]))
    rows = store.read_rows(out, "drafts", 1, match=200)
    pd.testing.assert_frame_equal(rows.reset_index(drop=True),
                                  want[want["match"] == 200].reset_index(drop=True))
    # in memory (a tune's trial reads the chunks' tables so): long too
    both = store.concat_tables([{"drafts": store.wide_table(keys, counts, "card", "count",
                                                              labels)}])["drafts"]
    pd.testing.assert_frame_equal(plain(both), want)
    assert pa.types.is_integer(pa.Table.from_pandas(both).schema.field("count").type)


def test_a_part_a_worker_wrote_counts_only_once_the_run_has_put_it_in_place(tmp_path,
                                                                            monkeypatch):
    # a local worker writes its part into a .tmp folder and the run's process syncs and
    # renames it (store.place_part): until then it is no part of the run, after it is the
    # part, replacing an older one of its name; a disk that fails meanwhile leaves
    # neither half a part nor the .tmp folder
    import pyarrow as pa
    import pyarrow.parquet as pq

    from nop_sim.results import store
    from nop_sim.run.planning import Chunk

    out = tmp_path / "run"
    chunk = Chunk(0, 0, 0, 3, 0, 11)
    tables = {"rows": pa.table({"point": np.zeros(3, np.int64), "match": np.arange(3),
                                "text": pa.array(["a", "b", "a"], pa.large_string())})}
    final = out / "chunks" / chunk.name

    def held():
        return store.finished_parts(out, [chunk], ["rows"], 1)[0]

    tmp = store.write_part(out, [chunk], tables, 1, place=False)
    assert tmp.name.startswith(".tmp-") and tmp.is_dir() and not final.exists()
    assert held() == {}
    store.place_part(tmp, final)
    assert not tmp.exists() and held() == {chunk.name: [chunk]}
    read = pq.ParquetFile(final / "rows.parquet")
    assert read.read().equals(tables["rows"])
    # integers delta-encoded, text a dictionary (a dictionary of every integer column took
    # a quarter of the write)
    meta = read.metadata.row_group(0)
    assert "DELTA_BINARY_PACKED" in meta.column(1).encodings, meta.column(1).encodings
    assert "RLE_DICTIONARY" in meta.column(2).encodings, meta.column(2).encodings
    # written again: the new part replaces the old
    again = {"rows": tables["rows"].slice(0, 2)}
    store.place_part(store.write_part(out, [chunk], again, 1, place=False), final)
    assert pq.read_table(final / "rows.parquet").num_rows == 2
    # the disk fails as the run syncs a part: the part is not there, the old one either
    tmp = store.write_part(out, [chunk], tables, 1, place=False)

    def failing(fd):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", failing)
    with pytest.raises(OSError, match="Input/output"):
        store.place_part(tmp, final)
    assert not tmp.exists()
    assert pq.read_table(final / "rows.parquet").num_rows == 2


def test_chip_luck_script_splits_every_logged_hand_and_nests_its_all_in_hands(tmp_path):
    # scripts/chip_luck.py (issue 36's ceiling of an all-in correction): every hand of
    # every logged match counted once; a hand all in before the first community card is
    # all in before the last too (nobody can fold once at most one player can bet); the
    # moves it adds up are the chips' changes that hand_end rows record
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "chip_luck", Path(__file__).resolve().parents[1] / "scripts" / "chip_luck.py")
    chip_luck = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(chip_luck)
    scn = load_scenario(write(tmp_path, "[game]\nplayers = 4\n[seats]\nall = 'maniac'\n"
                              "[run]\nmatches = 12\nchunk = 4\nseed = 3\nlog_sample = 1\n"))
    out = tmp_path / "run"
    run_scenario(scn, out, workers=1)
    events = load_tables(out, ("events",))["events"]
    rows = list(chip_luck.hand_rows(events))
    from nop_sim.games.new_order import types as T

    hands = events[events["kind"] == T.EV_HAND_END].groupby("match")["hand"].nunique().sum()
    assert len(rows) == hands > 12
    assert all(r["allin_last"] for r in rows if r["allin_first"])
    assert any(r["allin_first"] for r in rows) and any(r["showdown"] for r in rows)
    assert all(r["moved"] >= 0 for r in rows) and sum(r["moved"] for r in rows) > 0
