"""A scenario's ``[strong]`` field: played in every seat beside the run, read by the report
as "Under strong play" (issue 21), and the baseline's shipped field kept for its rules.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from nop_sim.cli import main
from nop_sim.games.registry import policy_of
from nop_sim.run.scenario import ScenarioError, load_scenario
from nop_sim.studies.train.known import known_rows
from nop_sim.studies.train.trainer import rules_key
from nop_sim.studies.train.value import load_strong

ROOT = Path(__file__).resolve().parents[1]

SMALL = """
name = "small"
[game]
players = 3
chips = 40
max_hands = 40
[seats]
rotate = ["balanced", "hedger", "rock"]
[run]
matches = 60
seed = 5
chunk = 30
"""


def _cli(args: list[str]):
    return CliRunner().invoke(main, args)


@pytest.fixture(scope="module")
def field(tmp_path_factory) -> Path:
    """A small training for SMALL's rules, with its values beside it."""
    folder = tmp_path_factory.mktemp("field")
    path = folder / "small.toml"
    path.write_text(SMALL)
    r = _cli(["train", str(path), "--budget-matches", "2000", "--out", str(folder / "t"),
              "--quiet", "--no-report", "--workers", "1"])
    assert r.exit_code == 0, r.output
    r = _cli(["value", str(path), "--strong", str(folder / "t"), "--budget-matches", "3000",
              "--quiet", "--workers", "1"])
    assert r.exit_code == 0, r.output
    return folder / "t" / "strong.toml"


def _with_strong(tmp_path: Path, field: Path, extra: str = "matches = 90") -> Path:
    path = tmp_path / "withstrong.toml"
    path.write_text(SMALL + f'[strong]\nfield = "{field}"\n{extra}\n')
    return path


def test_a_run_plays_its_strong_field_and_the_report_reads_it(tmp_path, field):
    path = _with_strong(tmp_path, field)
    out = tmp_path / "r"
    r = _cli(["run", str(path), "--out", str(out), "--quiet", "--workers", "1"])
    assert r.exit_code == 0, r.output
    assert f"strong play: {out / 'strong-play'}/" in r.output
    strong = json.loads((out / "strong-play" / "manifest.json").read_text())
    assert strong["status"] == "finished" and strong["totals"]["matches"] == 90
    assert strong["points"][0]["seats"] == ["trained(small)"] * 3   # the field, every seat
    html = (out / "report.html").read_text()
    assert 'id="strong"' in html and "Under strong play" in html
    values = pd.read_csv(out / "tables" / "strong_values.csv")
    saved = pd.read_parquet(field.parent / "value.parquet")
    assert list(values["mechanic"]) == list(saved["mechanic"])   # the field's own values
    # the run itself is the styles' as before: [strong] is not part of its fingerprint
    plain = tmp_path / "plain.toml"
    plain.write_text(SMALL)
    assert load_scenario(plain).fingerprint() == load_scenario(path).fingerprint()


def test_the_side_run_logs_only_when_asked_and_a_changed_one_is_played_again(tmp_path, field):
    """No event log by default; the same command with another [strong] setting (as after
    a retrained field) plays the side run again where it refused before, and the run
    itself, all reused, states no rate."""
    from nop_sim.results.store import load_tables

    path = _with_strong(tmp_path, field, "matches = 90\nlog_sample = 0")
    out = tmp_path / "r"
    r = _cli(["run", str(path), "--out", str(out), "--quiet", "--workers", "1", "--no-report"])
    assert r.exit_code == 0, r.output
    assert len(load_tables(out / "strong-play", ["events"])["events"]) == 0
    assert len(load_tables(out, ["events"])["events"]) == 0   # SMALL logs nothing either
    before = json.loads((out / "strong-play" / "manifest.json").read_text())
    r = _cli(["run", str(path), "--out", str(out), "--workers", "1", "--no-report",
              "--set", "strong.log_sample=30"])
    assert r.exit_code == 0, r.output
    assert "held the play of another field or [strong] setting; playing it again" in r.output
    assert "(0 chunks run, 2 reused) in" in r.output and "hands/s" not in r.output.split(
        "reused) in")[1].splitlines()[0]
    after = json.loads((out / "strong-play" / "manifest.json").read_text())
    assert after["scenario"]["fingerprint"] != before["scenario"]["fingerprint"]
    logged = load_tables(out / "strong-play", ["events"])["events"]
    assert sorted(logged["match"].unique()) == [0, 30, 60]


def test_a_field_for_other_rules_is_not_played(tmp_path, field):
    path = _with_strong(tmp_path, field)
    other = tmp_path / "other"
    r = _cli(["run", str(path), "--out", str(other), "--quiet", "--workers", "1", "--set",
              "hedge_cost=9"])
    assert r.exit_code == 0, r.output
    assert "trained for other rules" in r.output and "nop-sim train" in r.output
    assert not (other / "strong-play").exists()
    assert 'id="strong"' not in (other / "report.html").read_text()


@pytest.mark.parametrize("extra, words", [
    ("matches = 0", "[strong] matches = 0"),
    ("fields = 3", "fields"),
])
def test_bad_strong_tables_name_the_field(tmp_path, field, extra, words):
    path = _with_strong(tmp_path, field, extra)
    with pytest.raises(ScenarioError, match=words.replace("[", r"\[")):
        load_scenario(path)
    r = _cli(["run", str(path), "--quiet", "--out", str(tmp_path / "o")])
    assert r.exit_code == 2 and "Traceback" not in r.output


def test_a_missing_field_file_is_named(tmp_path):
    path = _with_strong(tmp_path, tmp_path / "nowhere" / "strong.toml")
    r = _cli(["run", str(path), "--quiet", "--out", str(tmp_path / "o")])
    assert r.exit_code == 2 and "nowhere" in r.output and "[strong]" in r.output


def test_the_shipped_baseline_field_is_for_the_baseline_rules():
    """The baseline's [strong] field must be retrained when its rules change (a ruling, a
    new setting): this fails until it is, naming the command."""
    scn = load_scenario(ROOT / "scenarios" / "baseline.toml")
    assert scn.strong is not None, "scenarios/baseline.toml ships a [strong] field"
    training = scn.strong.file.training
    assert training.get("rules") == rules_key(scn.settings), (
        f"{scn.strong.given} was trained for other rules: retrain it with the command in "
        f"scenarios/fields/README.md")
    values = Path(scn.strong.file.path).parent / "value.parquet"
    assert values.is_file(), "the shipped field's values (nop-sim value) ship beside it"
    # and the deviations kept beside each field valued, which those values' searches
    # started from: a pooled field is valued against its two halves (no shared seed)
    pooled = "pool" in training
    valued = ([values.parent / h for h in ("half-a", "half-b")] if pooled
              else [values.parent])
    assert pd.read_parquet(values)["fields"].min() == len(valued)
    for folder in valued:
        fld, _ = load_strong(folder, scn.settings)
        known = known_rows(folder, fld, policy_of(scn.settings).names)
        said = json.loads((folder / "value.json").read_text())["identity"]
        assert len(known) and said["known"] == known.tolist(), (
            f"the values against {folder.name} start from the deviations kept beside it: "
            f"run the train, exploit and value commands in scenarios/fields/README.md")
    # and the checks' deviations against the shipped field itself are kept beside it
    fld, _ = load_strong(values.parent, scn.settings)
    assert len(known_rows(values.parent, fld, policy_of(scn.settings).names))


def test_an_independent_check_that_finds_more_is_recorded_in_the_field(tmp_path, field):
    import shutil

    from nop_sim.games.agent_files import training_text
    from nop_sim.games.new_order.agents import read_agent_file
    from nop_sim.studies.train.value import record_check

    folder = tmp_path / "t"
    folder.mkdir()
    shutil.copyfile(field, folder / "strong.toml")
    before = read_agent_file(folder / "strong.toml")
    claim = before.training["exploitability"]

    class Found:  # what nop-sim exploit's search returns, as far as the record reads
        matches, starts = 123_456, 42

        def __init__(self, points):
            self.gain, self.low, self.high = points / 100, (points - 1) / 100, (points + 1) / 100

    path = tmp_path / "small.toml"
    path.write_text(SMALL)
    scn = load_scenario(path, ["run.seed=7"])
    assert not record_check(scn, folder, Found(claim - 1), 500_000)   # found less: unchanged
    unsure = Found(claim + 10)
    unsure.low = -0.001   # reads more, but its interval reaches 0: noise, not a bound
    assert not record_check(scn, folder, unsure, 500_000)
    assert "independent check" not in (folder / "strong.toml").read_text()
    assert record_check(scn, folder, Found(claim + 10), 500_000)
    after = read_agent_file(folder / "strong.toml")
    assert [dict(r) for r in after.rows] == [dict(r) for r in before.rows]
    assert list(after.weights) == list(before.weights)
    assert after.training["checked_exploitability"] == pytest.approx(claim + 10, abs=1e-3)
    assert "--seed 7 --budget-matches 500000" in after.training["checked_by"]
    assert "an independent check found more" in training_text(after.training)
    assert not record_check(scn, folder, Found(claim + 10), 500_000)  # the same: no rewrite
    assert "independent check found more" in (folder / "strong.toml").read_text()
    assert record_check(scn, folder, Found(claim + 12), 500_000)     # more again: it stands
    text = (folder / "strong.toml").read_text()
    assert text.count("independent check found more") == 1 and f"{claim + 12:.1f}" in text


def test_value_of_a_field_without_its_training_folder(tmp_path, field):
    """A shipped or copied strong.toml alone: values are measured and saved, and the
    missing training report is said, not an error after the work is done."""
    import shutil

    folder = tmp_path / "bare"
    folder.mkdir()
    shutil.copyfile(field, folder / "strong.toml")
    path = tmp_path / "small.toml"
    path.write_text(SMALL)
    r = _cli(["value", str(path), "--strong", str(folder), "--budget-matches", "3000",
              "--mechanic", "hedging", "--quiet", "--workers", "1"])
    assert r.exit_code == 0, r.output
    assert "no training to report on" in r.output
    assert list(pd.read_parquet(folder / "value.parquet")["mechanic"]) == ["hedging"]


def test_values_a_known_deviation_dwarfs_are_read_with_care(tmp_path, field):
    """When a deviation is known to gain more against the field than anything the value
    searches found, the values say what those searches could not see, and the report
    says so beside them (issue 20: a value run's best deviation gained +0.1 against a
    field a check beat by 16 points, and valued manipulation, which that deviation used,
    at 0)."""
    import shutil

    from nop_sim.games.agent_files import search_gap

    saved = pd.read_parquet(field.parent / "value.parquet")
    found = float(saved["gain_full_high"].max())
    assert search_gap(saved, {"exploitability_low": found + 5}) is not None
    gap = search_gap(saved, {"exploitability_low": found - 5, "checked_low": found + 3})
    assert f"{found + 3:.1f}" in gap and "nop-sim exploit" in gap
    assert search_gap(saved, {"exploitability_low": found + 0.01 - 1}) is None
    assert search_gap(saved, {}) is None
    # a field an independent check beat by far more: the run's report warns
    beaten = tmp_path / "beaten"
    shutil.copytree(field.parent, beaten)
    text = (beaten / "strong.toml").read_text()
    (beaten / "strong.toml").write_text(text.replace(
        "[training]\n", "[training]\nchecked_exploitability = 99.5\nchecked_low = 99.0\n"
                        "checked_high = 100.0\n", 1))
    small = tmp_path / "small.toml"
    small.write_text(SMALL)
    r = _cli(["value", str(small), "--strong", str(beaten), "--budget-matches", "3000",
              "--quiet", "--workers", "1"])   # the saved rows, read back
    assert r.exit_code == 0 and "read with care: these searches found" in r.output, r.output
    out = tmp_path / "r"
    r = _cli(["run", str(_with_strong(tmp_path, beaten / "strong.toml")), "--out", str(out),
              "--quiet", "--workers", "1"])
    assert r.exit_code == 0, r.output
    assert "Read these values with care" in (out / "report.html").read_text()
    plain = tmp_path / "plain"
    r = _cli(["run", str(_with_strong(tmp_path, field)), "--out", str(plain), "--quiet",
              "--workers", "1"])
    assert r.exit_code == 0, r.output
    said = search_gap(saved, json.loads((plain / "strong-play" / "manifest.json").read_text())
                      ["agent_files"][0]["training"])
    assert ("Read these values with care" in (plain / "report.html").read_text()) == bool(said)


def test_a_value_whose_two_picks_play_alike_says_so(tmp_path, field):
    """A value of exactly 0 with an interval of width 0 is no estimate near 0: the best
    deviation found played the same with the mechanic switched off (the shipped field's
    manipulation, drawing and bluffing). The report says that, not "cannot be told from 0",
    which it keeps for an interval around 0."""
    import shutil

    folder = tmp_path / "f"
    shutil.copytree(field.parent, folder)
    v = pd.read_parquet(folder / "value.parquet")
    assert len(v) >= 3
    v.loc[0, ["loss", "loss_low", "loss_high"]] = 0.0
    v.loc[1, ["loss", "loss_low", "loss_high"]] = [0.1, -0.5, 0.7]
    v.loc[2, ["loss", "loss_low", "loss_high"]] = [4.0, 3.0, 5.0]
    v.to_parquet(folder / "value.parquet", index=False)
    out = tmp_path / "r"
    r = _cli(["run", str(_with_strong(tmp_path, folder / "strong.toml")), "--out", str(out),
              "--quiet", "--workers", "1"])
    assert r.exit_code == 0, r.output
    rows = {line.split("|")[1].strip(): line.split("|")[3].strip()
            for line in (out / "report.md").read_text().splitlines()
            if line.startswith("| ") and line.split("|")[1].strip() in set(v["mechanic"])}
    assert rows[v.loc[0, "mechanic"]] == "the best deviation found plays the same without it"
    assert rows[v.loc[1, "mechanic"]] == "cannot be told from 0"
    assert rows[v.loc[2, "mechanic"]] == "pays against this field"
