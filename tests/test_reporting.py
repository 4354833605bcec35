"""The reporting toolkit on its own: a tiny report through both renderers, atomic
writes, links between sections, derived numbering, no pyplot at import."""

from __future__ import annotations

import base64
import os
import re
import subprocess
import sys

import pandas as pd
import pytest

from nop_sim import reporting as R

PNG = b"\x89PNG\r\n\x1a\n"


def _bars(ctx) -> list:
    fig, axes = R.figure(2.0)
    R.hbar_ci(axes[0, 0], ["a", "b"], [0.4, 0.6], [0.3, 0.5], [0.5, 0.7], ref=0.5,
              ref_label="fair share", highlight=[False, True])
    t = pd.DataFrame({"seat": ["a", "b"], "win rate": [R.pct(0.4), R.pct(0.6)]})
    return [R.png(fig, "bars", "Two rows & a <fair> line."),
            R.Table(t, "Wins | per seat", highlight=[1], csv="wins.csv", full=ctx),
            R.Note("**b** wins more.", "warning")]


def _links(ctx) -> list:
    return [R.Bullets(["see the bars", "plain"], "warning", ["bars", None]),
            R.Csv("raw.csv", ctx), R.Note("muted words", "muted")]


SPECS = [R.SectionSpec("bars", "Bars", "Intro of the bars.", _bars),
         R.SectionSpec("skipped", "Never shown", "", lambda ctx: None),
         R.SectionSpec("links", "Links", "", _links)]
DATA = pd.DataFrame({"x": [1, 2], "y": [0.5, float("nan")]})


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    sections = R.build_sections(SPECS, DATA, number_from=1, strict=True)
    report = R.Report("tiny: report", "meta line", sections)
    folder = tmp_path_factory.mktemp("tiny")
    return report, R.write_report(report, folder)


def test_sections_are_numbered_from_the_list_and_skipped_ones_leave_no_gap(tiny):
    report, _ = tiny
    assert [s.title for s in report.sections] == ["1. Bars", "2. Links"]
    assert [s.id for s in report.sections] == ["bars", "links"]


def test_html_of_a_tiny_report(tiny):
    _, path = tiny
    html = path.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and "<script" not in html and "<link" not in html
    assert '<nav><ul><li><a href="#bars">1. Bars</a></li><li><a href="#links">2. Links</a>' in html
    assert '<section id="bars"><h2>1. Bars</h2>' in html and "<p>Intro of the bars.</p>" in html
    src = re.findall(r'<img src="data:image/png;base64,([^"]*)" width="900" height="200"', html)
    assert len(src) == 1 and base64.b64decode(src[0])[:8] == PNG
    assert 'alt="Two rows &amp; a &lt;fair&gt; line."' in html
    assert '<tr class="best"><td>b</td><td>60.0%</td></tr>' in html
    assert '<caption>Wins | per seat <a href="tables/wins.csv">(full table, CSV)</a>' in html
    assert '<p class="warning"><strong>b</strong> wins more.</p>' in html
    assert ('<ul class="warning"><li><a href="#bars">see the bars</a></li><li>plain</li></ul>'
            in html)


def test_tables_scroll_in_their_wrapper_and_headers_wrap():
    # a wide table must not be cut by the page's column: it sits in a scrolling wrapper,
    # and its headers wrap (but not inside "(95% CI)"), so that most tables fit
    frame = pd.DataFrame({"category": ["a"], "win share (95% CI)": ["1.0% (0.5–2.0)"],
                          "hedge hit rate (payouts per placement, %)": ["71.1%"]})
    section = R.Section("s", "S", "", [R.Table(frame, "wide")])
    page = R.render_html(R.Report("t", "m", [section]))
    assert ('<div class="tablewrap"><table><caption>wide</caption><thead><tr><th>category</th>'
            '<th>win share (95%\u00a0CI)</th><th>hedge hit rate (payouts per placement, %)</th>'
            in page)
    css = {rule.split("{")[0].strip(): rule.split("{")[1] for rule in
           re.sub(r"\s+", " ", re.search(r"<style>(.*)</style>", page, re.S).group(1)).split("}")
           if "{" in rule}
    assert "overflow-x:auto" in css[".tablewrap"] and "white-space:normal" in css["th"]


def test_markdown_of_a_tiny_report(tiny):
    _, path = tiny
    md = (path.parent / "report.md").read_text(encoding="utf-8")
    assert md.startswith("# tiny: report\n\n_meta line_\n\n- [1. Bars](#bars)\n- [2. Links](#links)")
    assert '<a id="bars"></a>\n\n## 1. Bars\n\nIntro of the bars.' in md
    assert "![Two rows & a <fair> line.](figures/bars.png)" in md
    assert "*Wins | per seat ([full table, CSV](tables/wins.csv))*" in md
    assert "| seat | win rate |\n|:---|---:|\n| a | 40.0% |\n| **b** | **60.0%** |" in md
    assert "\n**b** wins more.\n" in md           # a warning with bold inside stays readable
    assert "- [see the bars](#bars)\n- plain" in md


def test_files_beside_the_report(tiny):
    _, path = tiny
    folder = path.parent
    assert (folder / "figures" / "bars.png").read_bytes()[:8] == PNG
    assert sorted(p.name for p in (folder / "tables").iterdir()) == ["raw.csv", "wins.csv"]
    pd.testing.assert_frame_equal(pd.read_csv(folder / "tables" / "wins.csv"), DATA)
    assert not [p for p in folder.rglob("*") if p.name.endswith(".tmp")]


def test_md_table_is_the_one_markdown_table_writer():
    frame = pd.DataFrame({"a": ["x|y", None], "n": [12345, 0.123456], "ok": [True, False]})
    assert R.md_table(frame) == ("| a | n | ok |\n|:---|---:|---:|\n| x\\|y | 12,345 | yes |\n"
                                 "| – | 0.1235 | no |")
    assert R.md_table(frame[["n"]], digits=2).splitlines()[-1] == "| 0.12 |"


def test_prefix_namespaces_ids_files_and_links():
    sections = R.build_sections(SPECS, DATA, prefix="p3_", strict=True)
    assert [s.id for s in sections] == ["p3_bars", "p3_links"]
    blocks = [b for s in sections for b in s.blocks]
    assert [b.name for b in blocks if isinstance(b, R.Figure)] == ["p3_bars"]
    assert [b.csv for b in blocks if isinstance(b, R.Table)] == ["p3_wins.csv"]
    assert [b.name for b in blocks if isinstance(b, R.Csv)] == ["p3_raw.csv"]
    assert [b.links for b in blocks if isinstance(b, R.Bullets)] == [["p3_bars", None]]
    R.check_links(sections)


def test_a_link_to_no_section_is_refused(tmp_path):
    bad = [R.SectionSpec("a", "A", "", lambda ctx: [R.Bullets(["x"], links=["seats"])])]
    sections = R.build_sections(bad, None)
    with pytest.raises(ValueError, match="#seats"):
        R.check_links(sections)
    with pytest.raises(ValueError, match="#seats"):
        R.write_report(R.Report("t", "m", sections), tmp_path)
    assert not (tmp_path / "report.html").exists()


def test_a_broken_section_becomes_a_warning_and_missing_data_a_note():
    class Missing(Exception):
        pass

    def broken(ctx):
        raise KeyError("nope")

    def missing(ctx):
        raise Missing("no drafts table")

    specs = [R.SectionSpec("b", "Broken", "", broken), R.SectionSpec("m", "Missing", "", missing),
             R.SectionSpec("ok", "Fine", "", lambda ctx: [R.Note("fine")])]
    b, m, ok = R.build_sections(specs, None, unavailable=(Missing,))
    assert b.blocks[0].kind == "warning" and "could not be built (KeyError" in b.blocks[0].text
    assert m.blocks == [R.Note("Not available for this run: no drafts table.", "muted")]
    assert ok.blocks == [R.Note("fine")]
    with pytest.raises(KeyError):
        R.build_sections(specs, None, strict=True, unavailable=(Missing,))


def test_sections_built_elsewhere_keep_their_place_and_a_failed_one_is_built_here():
    order = []

    def here(name):
        def build(ctx):
            order.append(name)
            return [R.Note(name)]
        return build

    def failed():
        raise RuntimeError("the helper died")

    specs = [R.SectionSpec(i, i.upper(), "", here(i)) for i in ("a", "b", "c", "d")]
    elsewhere = {"a": lambda: [R.Note("a from there")], "b": lambda: None, "c": failed}
    sections = R.build_sections(specs, None, number_from=1, elsewhere=elsewhere)
    assert order == ["d", "c"]  # its own first, then the failed one
    assert [(s.title, s.blocks) for s in sections] == [
        ("1. A", [R.Note("a from there")]), ("2. C", [R.Note("c")]), ("3. D", [R.Note("d")])]


def test_atomic_write_replaces_whole_or_not_at_all(tmp_path, monkeypatch):
    path = tmp_path / "report.html"
    R.atomic_write(path, "old")
    with pytest.raises(UnicodeEncodeError):       # fails while writing the new text
        R.atomic_write(path, "new \ud800 text")
    assert path.read_text() == "old"

    def refuse(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OSError, match="disk full"):
        R.atomic_write(path, b"new")
    monkeypatch.undo()
    assert path.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]
    R.atomic_write(path, b"new")
    assert path.read_bytes() == b"new"


def test_no_pyplot_and_no_backend_choice_at_import():
    code = ("import sys, matplotlib; before = matplotlib.get_backend(); "
            "import nop_sim.reporting, nop_sim.games.new_order.report, nop_sim.games.ordered_hand.report; "
            "assert 'matplotlib.pyplot' not in sys.modules; "
            "assert matplotlib.get_backend() == before, matplotlib.get_backend()")
    env = {**os.environ, "MPLBACKEND": "svg"}
    subprocess.run([sys.executable, "-c", code], check=True, env=env)


def test_the_module_docstring_example_runs(tmp_path, monkeypatch):
    lines = []
    for line in R.__doc__.split("Example::", 1)[1].splitlines()[1:]:
        if line.strip() and not line.startswith("    "):
            break
        lines.append(line[4:])
    assert 10 <= len([x for x in lines if x.strip()]) <= 20
    monkeypatch.chdir(tmp_path)
    exec(compile("\n".join(lines), "reporting-example", "exec"), {})
    html = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert '<section id="wins"><h2>1. Seat fairness</h2>' in html
    assert (tmp_path / "out" / "tables" / "wins.csv").exists()


def test_rows_with_few_observations_are_hollow_and_left_out_of_the_axis_range():
    # one placement in a category (hit rate 100%, interval 21-100%) stretched a whole axis
    import numpy as np

    fig, axes = R.figure(2.0)
    ax = axes[0, 0]
    R.hbar_ci(ax, ["once", "a", "b"], [1.0, 0.4, 0.5], [0.2, 0.35, 0.45], [1.0, 0.45, 0.55],
              ref=0.3, few=[True, False, False], few_label="fewer than 30")
    R.hbar_ci(ax, ["once", "a", "b"], [0.9, 0.6, 0.62], [0.1, 0.55, 0.57], [1.0, 0.65, 0.67],
              offset=0.2, few=[True, False, False])   # a second series counts, its few not
    lo, hi = ax.get_xlim()
    assert 0.2 < lo < 0.3 and 0.67 < hi < 0.8
    hollow = [ln for ln in ax.get_lines() if ln.get_marker() == "o"
              and str(ln.get_markerfacecolor()) == "none"]
    assert [ln.get_xdata()[0] for ln in hollow] == [1.0, 0.9]
    assert all(ln.get_markeredgecolor() == R.PALETTE["grey"] for ln in hollow)
    assert "fewer than 30" in [t.get_text() for t in ax.legend().get_texts()]
    R.png(fig, "few", "")   # drawn: a dot beyond the range is a hollow triangle at its edge
    edge = [(ln.get_marker(), list(ln.get_xdata())) for ln in ax.get_lines()
            if str(ln.get_markerfacecolor()) == "none" and len(ln.get_xdata())]
    assert edge == [(">", [hi]), (">", [hi])]
    fig, axes = R.figure(2.0)          # nothing else to scale by: the few rows set the range
    R.hbar_ci(axes[0, 0], ["x"], [3.0], [1.0], [5.0], percent=False, few=[True])
    assert np.less_equal(axes[0, 0].get_xlim(), (1.0, 5.0)).tolist() == [True, False]


def test_a_row_with_no_bound_runs_past_the_edge_and_leaves_the_range_to_the_others():
    # a bootstrap interval at a level its resamples cannot reach is (-inf, inf): drawn as
    # the largest float, it made the axes singular and a compare lost its Match length
    import warnings

    import numpy as np

    fig, axes = R.figure(2.0)
    ax = axes[0, 0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")      # matplotlib's overflow warnings included
        R.hbar_ci(ax, ["median", "mean"], [0.5, 0.2], [-np.inf, -14.1], [np.inf, 14.5],
                  percent=False, ref=0.0)
        R.png(fig, "unbounded", "")
    lo, hi = ax.get_xlim()
    assert -20 < lo < -14.1 and 14.5 < hi < 20        # the bounded row sets the range
    hollow = [ln for ln in ax.get_lines() if str(ln.get_markerfacecolor()) == "none"
              and ln.get_marker() == "o"]
    assert [list(ln.get_xdata()) for ln in hollow] == [[0.5]]
    assert "no bound at this level" in [t.get_text() for t in ax.legend().get_texts()]
    assert (R.interval_err([0.5], [-np.inf], [np.inf]) == 0).all()


def test_interval_err_is_never_negative():
    # a Wilson interval at a rate of 1 can end a hair below 1: matplotlib refuses negative
    # error bars, so a report section once failed on a three-game run
    import numpy as np

    from nop_sim.games.new_order.analysis import wilson_interval
    from nop_sim.reporting import interval_err

    lo, hi = wilson_interval([3], [3])
    err = interval_err([1.0, 0.5, 0.2, 1.0], [lo[0], 0.4, np.nan, 0.5], [hi[0], 0.6, 0.3,
                                                                       1 - 1e-12])
    assert (err >= 0).all() and err.shape == (2, 4)
    assert err[:, 1] == pytest.approx([0.1, 0.1]) and err[0, 2] == 0 and err[1, 3] == 0


@pytest.fixture
def umask():
    """``umask(mask)`` sets the process umask for one test; the old one comes back after."""
    old = os.umask(0o022)
    yield os.umask
    os.umask(old)


@pytest.mark.parametrize("mask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_report_files_honour_the_umask(tiny, tmp_path, umask, mask, mode):
    # a report put on a shared server must be readable by whom the umask allows, as the
    # run's Parquet files are (mkstemp alone makes every file 0600)
    report, _ = tiny
    umask(mask)
    R.write_report(report, tmp_path)
    R.atomic_write(tmp_path / "manifest.json", "{}")
    files = {f.relative_to(tmp_path).as_posix(): oct(f.stat().st_mode & 0o777)
             for f in tmp_path.rglob("*") if f.is_file()}
    assert files == dict.fromkeys(["report.html", "report.md", "manifest.json",
                                   "figures/bars.png", "tables/wins.csv", "tables/raw.csv"],
                                  oct(mode))
    R.atomic_write(tmp_path / "report.md", "again")  # replacing a file: the same mode
    assert (tmp_path / "report.md").stat().st_mode & 0o777 == mode
