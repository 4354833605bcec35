"""The nop-sim command line: output a designer reads, and clear errors."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from nop_sim.cli import main


def run(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_eval_plays_two_pair_when_it_is_promoted_above_full_house():
    res = run("eval", "Ks Kd Kh 7c 7d Qs 2c", "--column", "Two Pair > Full House")
    assert res.exit_code == 0
    assert res.output.startswith("Two Pair: Ks Kh 7d 7c Qs")
    res = run("eval", "Ks Kd Kh 7c 7d Qs 2c")
    assert res.output.startswith("Full House:")


def test_eval_shows_what_each_wild_stands_for():
    res = run("eval", "2c 2d Ah Kh Qh", "--wild", "2")
    assert res.exit_code == 0
    assert res.output.startswith("Royal Flush:")
    assert "2d=" in res.output and "2c=" in res.output


def test_bad_input_is_one_clear_line_and_exit_2():
    for args, needle in [
        (("eval", "Ks Kd Kh 7c 2x"), "'2x' does not parse"),
        (("eval", "Ks Kd Kh 7c"), "at least 5"),
        (("eval", "Ks Ks Kh 7c 7d"), "copies of Ks"),
        (("eval", "Ks Kd Kh 7c 7d", "--column", "Two Pear > Flush"), "unknown category"),
        (("eval", "Ks Kd Kh 7c 7d", "--wild", "1"), "rank '1'"),
        (("frequencies", "--hands", "10"), "10"),
    ]:
        res = CliRunner().invoke(main, list(args))
        assert res.exit_code == 2, (args, res.output)
        assert needle in res.output, (args, res.output)
        assert "Traceback" not in res.output


def test_frequencies_moves_full_houses_to_two_pair():
    res = run("frequencies", "--hands", "20000", "--moved", "Two Pair > Full House")
    assert res.exit_code == 0
    rows = {line[:16].strip(): line[16:].split() for line in res.output.splitlines()[3:]}
    default_fh, moved_fh = (float(x.rstrip("%")) for x in rows["Full House"][:2])
    default_tp, moved_tp = (float(x.rstrip("%")) for x in rows["Two Pair"][:2])
    assert default_fh > 1.5 and moved_fh < default_fh
    assert moved_tp > default_tp


def test_bench_evaluator_reports_the_promised_fields():
    res = run("bench", "evaluator", "--hands", "20000", "--repeats", "1", "--no-compile")
    assert res.exit_code == 0
    figures = json.loads(res.output)
    for key in ("default_column_hands_per_s", "random_column_hands_per_s",
                "deuces_wild_hands_per_s", "parallel_hands_per_s", "public_api_hands_per_s",
                "table_hands_per_s", "table_checked_hands_per_s", "table_build_ms",
                "table_break_even_hands"):
        assert figures[key] > 0


def test_bench_engine_runner_and_ordered_run_from_the_package(tmp_path, monkeypatch):
    # from an empty folder: nothing of the checkout (scripts/, scenarios/) is at hand
    monkeypatch.chdir(tmp_path)
    res = run("bench", "ordered", "--games", "50", "--no-compile")
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["games_per_s_4p"] > 0
    res = run("bench", "engine", "--seconds", "0.001")
    assert res.exit_code == 0, res.output
    figures = json.loads(res.output)
    assert figures["hands_per_s"] > 0 and figures["compile_s"] > 0
    assert not figures["cold_compile"]
    res = run("bench", "runner", "--matches", "8", "--workers", "1", "--repeats", "1")
    assert res.exit_code == 0, res.output
    figures = json.loads(res.output)
    assert figures["runner_hands_per_s"] > 0 and figures["startup_s"] > 0


def test_bench_engine_states_its_reference_or_how_to_add_it(monkeypatch):
    import statistics

    from nop_sim.games.new_order import bench as engine
    from nop_sim.games.new_order import bench_reference as reference
    from nop_sim.games.new_order.settings import Settings

    if reference.available():   # OpenSpiel installed (make bench): the ratio, interleaved
        out = engine._against_openspiel(Settings(), 3, 0.05)
        assert len(out["ratio_rounds"]) == 3 and out["openspiel_playouts_per_s"] > 0
        assert out["ratio_vs_openspiel"] == round(statistics.median(out["ratio_rounds"]), 2)
    monkeypatch.setattr(reference, "available", lambda: False)
    out = engine._against_openspiel(Settings(), 3, 0.05)
    assert out["ratio_vs_openspiel"] is None and out["ratio_rounds"] == []
    assert "pip install 'nop-sim[bench]'" in out["reference"]


def test_the_openspiel_reference_is_four_player_limit_holdem():
    pyspiel = pytest.importorskip("pyspiel")
    from nop_sim.games.new_order.bench_reference import GAMEDEF, playouts_per_s

    game = pyspiel.universal_poker.load_universal_poker_from_acpc_gamedef(GAMEDEF)
    assert game.num_players() == 4
    assert game.get_parameters()["betting"] == "limit"
    assert playouts_per_s(0.05) > 0


def test_bench_runner_plays_the_baseline_when_installed():
    import tomllib

    from nop_sim.studies.bench.runner import baseline

    shipped = tomllib.loads((Path(__file__).parents[1] / "scenarios" / "baseline.toml")
                            .read_text(encoding="utf-8"))
    shipped.pop("targets")
    shipped.pop("strong")  # the bench times the styles' run; the field plays beside it
    assert tomllib.loads(baseline()) == shipped  # the default game's bench baseline


def test_bench_runner_counts_the_strong_side_run_as_the_command_plays_it():
    # the baseline's run plays its [strong] field beside the styles: the bench's engine plays
    # those matches too, and the runner and the whole command count both folders' hands
    res = run("bench", "runner", "--scenario", "scenarios/baseline.toml", "--matches", "8",
              "--workers", "1", "--repeats", "1")
    assert res.exit_code == 0, res.output
    figures = json.loads(res.output)
    assert 0 < figures["strong_hands"] < figures["hands"]["engine"]
    assert figures["hands"]["runner"] == figures["hands"]["command"]
    # one repeat: its own shares are the medians'
    assert figures["command_shares"] == [figures["command_share"]]
    assert figures["runner_shares"] == [figures["runner_share"]]
    if Path("/proc/stat").exists():  # the machine's CPU while each ran (Linux)
        assert len(figures["engine_cpu_s"]) == len(figures["command_cpu_s"]) == 1
        # (the engine's 8 matches may take under one 10 ms tick of CPU)
        assert figures["command_cpu_s"][0] > 0 and figures["cpu_share"] >= 0
        assert figures["command_busy"] > 0


@pytest.mark.skipif(not Path("/proc/stat").exists(), reason="reads Linux's /proc/stat")
def test_bench_runner_reads_the_cpu_this_process_spends():
    import time

    from nop_sim.studies.bench.runner import _busy_cpu

    before, cpu0 = _busy_cpu(), time.process_time()
    while time.process_time() - cpu0 < 0.3:  # 0.3 s of this process's CPU
        sum(range(1000))
    spent = _busy_cpu() - before
    # the machine's busy CPU holds this process's (ticks of 10 ms; other processes only add)
    assert spent >= 0.3 - 0.05


def test_bench_runner_refuses_a_sweep_in_one_line(tmp_path):
    sweep = tmp_path / "sweep.toml"
    sweep.write_text('[game]\nkind = "new-order"\n[sweep]\ndart_cap = [10, 20]\n')
    res = CliRunner().invoke(main, ["bench", "runner", "--scenario", str(sweep)])
    assert res.exit_code == 2 and "without a [sweep]" in res.output, res.output


def test_bench_runner_refuses_a_game_whose_engine_it_cannot_drive(tmp_path):
    ordered = tmp_path / "ordered.toml"
    ordered.write_text('[game]\nkind = "ordered-hand"\n')
    res = CliRunner().invoke(main, ["bench", "runner", "--scenario", str(ordered)])
    assert res.exit_code == 2, res.output
    assert "bench runner takes a New Order Poker scenario without a [sweep]" in res.output


def test_each_engine_bench_is_found_through_the_registry():
    # nop-sim bench engine and ordered ask the registry for the game whose bench they are
    from nop_sim.games import get_game
    from nop_sim.studies.bench import bench_game, engine_benches

    benches = engine_benches()
    assert sorted(benches) == ["engine", "ordered"]
    assert benches["engine"] is get_game("new-order").bench()
    assert benches["ordered"] is get_game("ordered-hand").bench()
    with pytest.raises(ValueError, match="benches: engine, ordered"):
        bench_game("kuhn")


def test_version_and_module_entry():
    res = run("--version")
    assert res.exit_code == 0 and "nop-sim" in res.output


def test_hands_prints_a_history_a_designer_can_follow(tmp_path):
    log = tmp_path / "events.jsonl"
    res = CliRunner().invoke(main, ["hands", "scenarios/baseline.toml", "--count", "2",
                                    "--seed", "3", "--json", str(log)])
    assert res.exit_code == 0, res.output
    out = res.output
    assert out.count("--- Hand #") == 2
    assert "Column: Flush Five > Flush House" in out and "dart" in out
    assert "Dealt to Seat 0 (balanced)" in out  # seats count from 0, as in the tables
    events = [json.loads(line) for line in log.read_text().splitlines()]
    assert {e["event"] for e in events} >= {"hand_start", "deal", "action"}
    again = CliRunner().invoke(main, ["hands", "scenarios/baseline.toml", "--count", "2",
                                      "--seed", "3"])
    assert again.output.splitlines() == [line for line in out.splitlines()
                                         if not line.startswith("event log:")]


def test_frequencies_gives_an_unseen_category_a_nonzero_upper_bound():
    # one deck never makes Five of a Kind or a Flush Five: seen 0 times, but a
    # sample of 2000 hands cannot rule out a small share (Wilson, not Wald's ±0)
    from nop_sim.games.new_order.analysis import wilson_interval

    res = run("frequencies", "--hands", "2000", "--moved", "Two Pair > Full House")
    assert res.exit_code == 0, res.output
    header = res.output.splitlines()[2]
    assert "95% interval" in header
    rows = {line[:16].strip(): line[16:].split() for line in res.output.splitlines()[3:]}
    low, high = rows["Flush Five"][3].strip("[]%,"), rows["Flush Five"][4].strip("[]%")
    assert float(low) == 0 and float(high) > 0
    assert float(high) == pytest.approx(100 * wilson_interval(0, 2000)[1], abs=1e-3)


def test_the_progress_bar_renders_on_a_terminal(monkeypatch, capsys):
    # on a terminal click renders the bar on entering it: the rate must exist then
    import click._termui_impl

    from nop_sim.cli.common import _Progress

    monkeypatch.setattr(click._termui_impl, "isatty", lambda f: True)
    progress = _Progress(quiet=False)
    progress.enabled = True
    progress(0, 4, 0)
    progress(2, 4, 1000)
    progress(4, 4, 2000)
    progress.close()
    err = capsys.readouterr().err
    assert "chunks" in err and "hands/s" in err


def test_top_level_help_teaches_the_main_path_first():
    # a new user reads "Start with:" first: it must begin with running a scenario,
    # then comparing, sweeping and reports, before the evaluator's tools
    res = run("--help")
    assert res.exit_code == 0
    lines = res.output.splitlines()
    start = lines.index("  Start with:")
    examples = [line.split()[1] for line in lines[start + 1:] if line.startswith("    nop-sim ")]
    assert examples[:4] == ["run", "compare", "sweep", "report"], examples
    commands = [line.split()[0] for line in lines[lines.index("Commands:") + 1:] if line.strip()]
    assert commands[:3] == ["run", "compare", "sweep"], commands
    assert commands.index("eval") > commands.index("tune")


def test_every_help_has_an_example_and_no_escaped_percent():
    # click prints help as written: a "%%" left from %-formatting reads "95%%" to a user
    from nop_sim.cli import main

    for name in main.commands:
        res = run(name, "--help")
        assert res.exit_code == 0, name
        assert "%%" not in res.output, name
        assert "nop-sim " + name in res.output, name


_BLAS_THREADS = """
import ctypes, glob, os, sys
import nop_sim.cli  # the command's first import
import numpy
libs = glob.glob(os.path.join(os.path.dirname(numpy.__file__) + ".libs", "*openblas*"))
get = None
for lib in libs:
    dll = ctypes.CDLL(lib)
    for name in ("scipy_openblas_get_num_threads64_", "openblas_get_num_threads"):
        get = getattr(dll, name, None) or get
print(os.environ.get("OPENBLAS_NUM_THREADS"), get() if get else "?")
"""


@pytest.mark.parametrize("given, wanted", [(None, "1"), ("2", "2")])
def test_the_command_runs_one_blas_thread_a_process_unless_told(given, wanted):
    """OpenBLAS's pool in each worker process spun on the cores the others play on: the
    command sets one thread before NumPy loads, and a value the user set stays."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if given is not None:
        env["OPENBLAS_NUM_THREADS"] = given
    out = subprocess.run([sys.executable, "-c", _BLAS_THREADS], env=env, capture_output=True,
                         text=True, check=True).stdout.split()
    assert out[0] == wanted
    if out[1] != "?":   # this NumPy's OpenBLAS answers: the pool it started with
        assert out[1] == wanted
