"""The balance report built from small real runs: every section, every image, a real browser."""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from nop_sim.games.new_order.report import write_report
from nop_sim.run.runner import run_scenario
from nop_sim.run.scenario import Scenario

SECTIONS = ["Headline", "Match length", "Seat fairness", "Strategies", "The Ranking Column",
            "The Ledger", "Hedging", "Disruptors", "Chips", "Matches to replay"]
TEXT_ONLY = {"Matches to replay"}  # a list of commands: no figure, no table
SWEEP_SECTIONS = ["Sweep: points ranked", "Sweep: metrics against each parameter",
                  "Sweep: pairs of parameters"]
PNG = b"\x89PNG\r\n\x1a\n"


def _scenario(name: str, matches: int, chunk: int, sweep=None, targets=None,
              log_sample: int = 0) -> Scenario:
    data = {"name": name, "game": {"players": 4},
            "seats": {"rotate": ["balanced", "manipulator", "hedger", "rock"]},
            "run": {"matches": matches, "seed": 3, "chunk": chunk, "log_sample": log_sample}}
    if sweep:
        data["sweep"] = sweep
    if targets:
        data["targets"] = targets
    return Scenario.from_mapping(data)


@pytest.fixture(scope="module")
def small_run(tmp_path_factory) -> Path:
    """20 matches, chunks of 5 so the presets visit all four seat orders; one match in 3
    logged (0, 3, ..., 18: seven)."""
    out = tmp_path_factory.mktemp("report") / "run"
    run_scenario(_scenario("tiny", 20, 5, targets={"median_hands": 40}, log_sample=3), out,
                 workers=1)
    return out


@pytest.fixture(scope="module")
def small_report(small_run) -> Path:
    return write_report(small_run, strict=True)


@pytest.fixture(scope="module")
def sweep_report(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("report") / "sweep"
    scn = _scenario("tiny-sweep", 8, 4, sweep={"dart_cap": [10, 20], "fee_to": ["pot", "bank"]},
                    targets={"median_hands": 40, "max_preset_advantage": 0.05}, log_sample=4)
    run_scenario(scn, out, workers=1)
    return write_report(out, strict=True)


def _images(html: str) -> list[str]:
    return re.findall(r'<img src="([^"]*)"', html)


def test_report_has_every_section_with_a_figure_and_a_table(small_report):
    html = small_report.read_text(encoding="utf-8")
    sections = re.findall(r'<section id="[^"]+"><h2>(.*?)</h2>(.*?)</section>', html, re.S)
    titles = [re.sub(r"^\d+\. ", "", t) for t, _ in sections]
    assert titles == SECTIONS
    for title, body in sections:
        if title.split(". ", 1)[1] in TEXT_ONLY:
            assert "<ul" in body, f"section {title} lists nothing"
        else:
            assert "<img " in body, f"section {title} has no figure"
            assert "<table>" in body, f"section {title} has no table"
        assert "could not be built" not in body and "Not available" not in body, title


def test_html_is_self_contained_and_every_image_is_a_png(small_report):
    html = small_report.read_text(encoding="utf-8")
    images = _images(html)
    assert len(images) >= 9
    for src in images:
        assert src.startswith("data:image/png;base64,")
        assert base64.b64decode(src.split(",", 1)[1])[:8] == PNG
    assert not re.search(r'(src|href)="(https?:)?//', html)
    assert "<script" not in html and "<link" not in html


def test_markdown_twin_has_the_same_sections_and_figures_on_disk(small_report):
    folder = small_report.parent
    md = (folder / "report.md").read_text(encoding="utf-8")
    for title in SECTIONS:
        assert re.search(rf"^## \d+\. {re.escape(title)}$", md, re.M), title
    refs = re.findall(r"!\[[^\]]*\]\((figures/[^)]+\.png)\)", md)
    html_images = _images(small_report.read_text(encoding="utf-8"))
    assert len(refs) == len(html_images)
    for ref in refs:
        assert (folder / ref).read_bytes()[:8] == PNG
    assert sorted(p.name for p in (folder / "figures").glob("*.png")) == sorted(
        Path(r).name for r in refs)
    assert any((folder / "tables").glob("*.csv"))


def test_sweep_report_ranks_points_and_draws_each_parameter_and_pair(sweep_report):
    html = sweep_report.read_text(encoding="utf-8")
    titles = [re.sub(r"^\d+\. ", "", t) for t in re.findall(r"<h2>(.*?)</h2>", html)]
    assert titles[:3] == SWEEP_SECTIONS
    assert [t.split(" (point")[0] for t in titles[3:]] == SECTIONS
    # a best point is named only when told apart from the rest, else the tied points
    assert 'class="best"' in html and ("Best point:" in html or "No single best point:" in html)
    assert "distance (95%\u00a0CI)" in html
    figures = sorted(p.name for p in (sweep_report.parent / "figures").glob("sweep_*.png"))
    assert figures == ["sweep_dart_cap.png", "sweep_dart_cap_x_fee_to.png", "sweep_fee_to.png",
                       "sweep_ranking.png"]
    assert "could not be built" not in html


def test_every_link_in_the_report_points_at_a_section(small_report, sweep_report):
    for path in (small_report, sweep_report):
        html = path.read_text(encoding="utf-8")
        ids = set(re.findall(r'<section id="([^"]+)">', html))
        links = re.findall(r'href="#([^"]+)"', html)
        assert links and set(links) <= ids
        md = (path.parent / "report.md").read_text(encoding="utf-8")
        assert set(re.findall(r"\]\(#([^)]+)\)", md)) <= set(re.findall(r'<a id="([^"]+)">', md))


def test_sections_are_counted_from_the_spec_list(small_run, monkeypatch):
    import nop_sim.games.new_order.report as report
    from nop_sim.games.new_order.analysis import load_run

    few = report.POINT_SECTIONS[:3]
    monkeypatch.setattr(report, "POINT_SECTIONS", few)
    built = report.build_report(load_run(small_run), strict=True)
    assert [s.title for s in built.sections] == [f"{i + 1}. {s.title}" for i, s in enumerate(few)]
    for path in Path(report.__file__).parent.glob("*.py"):
        src = path.read_text(encoding="utf-8").lower()
        assert "nine" not in src and "1-9" not in src and "1–9" not in src, path.name


def _written(folder: Path) -> dict[str, bytes]:
    """Every file of a written report, its build time left out."""
    files = {p.relative_to(folder).as_posix(): p.read_bytes()
             for p in folder.rglob("*") if p.is_file()
             and p.parts[len(folder.parts)] in ("figures", "tables", "report.html", "report.md")}
    # the replay commands name the folder the report was made of
    return {k: re.sub(rb"Report built in [0-9.]+ s", b"", v).replace(str(folder).encode(),
                                                                        b"RUN")
            for k, v in files.items()}


def _report_with_forks_on(small_run: Path, tmp_path: Path) -> Path:
    """A copy of ``small_run`` whose report was written with forking on."""
    from nop_sim.reporting import forked as renderer

    run = tmp_path / "run"
    shutil.copytree(small_run, run)
    renderer.enable()
    try:
        write_report(run, strict=True)
    finally:
        renderer.disable()
    return run


def test_a_forked_copy_builds_part_of_the_same_report(small_run, small_report, tmp_path,
                                                    monkeypatch):
    from nop_sim.reporting import forked as renderer

    forks, fork = [], renderer.fork
    monkeypatch.setattr(renderer, "fork", lambda fn, *args: forks.append(fork(fn, *args))
                        or forks[-1])
    run = _report_with_forks_on(small_run, tmp_path)
    assert len(forks) == 1
    if forks[0] is None:
        pytest.skip("one core or no fork: no copy")
    assert _written(run) == _written(small_run)


def test_a_large_run_builds_its_report_in_one_process(small_run, tmp_path, monkeypatch):
    # a copy would double the memory a large run's tables take, for no time saved
    from nop_sim.reporting import forked as renderer

    forks = []
    monkeypatch.setattr(renderer, "fork", lambda fn, *args: forks.append(fn))
    monkeypatch.setattr(renderer, "SMALL_RUN_MATCHES", 10)
    _report_with_forks_on(small_run, tmp_path)
    assert forks == []
    assert not renderer.small_run(11) and renderer.small_run(10)


def test_what_the_copy_raises_is_raised_here_and_one_that_dies_is_an_error():
    from nop_sim.reporting import forked as renderer

    renderer.enable()
    try:
        ok, raises, dies = (renderer.fork(len, "four"), renderer.fork(int, "x"),
                            renderer.fork(os._exit, 3))
    finally:
        renderer.disable()
    if ok is None:
        pytest.skip("one core or no fork: no copy")
    assert ok.result() == 4 and ok.result() == 4
    with pytest.raises(RuntimeError, match="ValueError: invalid literal"):
        raises.result()
    with pytest.raises(RuntimeError, match="died"):
        dies.result()
    assert renderer.fork(len, "off") is None


def test_a_copy_started_ahead_does_its_one_job_and_ends():
    from nop_sim.reporting import forked as renderer

    copy = renderer.ahead(lambda: None)
    if copy is None:
        pytest.skip("one core or no fork: no copy")
    assert copy.submit(len, "four").result() == 4 and copy.result() == 4
    broken = renderer.ahead(lambda: 1 / 0)  # a failed warm-up leaves the job to import
    with pytest.raises(RuntimeError, match="ValueError"):
        broken.submit(int, "x").result()
    dead = renderer.ahead(lambda: os._exit(3))
    with pytest.raises(RuntimeError, match="died"):
        dead.submit(len, "x").result()
    idle = renderer.ahead(lambda: None)
    idle.close()  # never given a job: ended, reaped
    assert idle._proc.exitcode is not None


def test_a_failing_copy_leaves_its_sections_to_this_process(small_run, small_report, tmp_path,
                                                           monkeypatch):
    from nop_sim.reporting import forked as renderer

    class Dead:
        def result(self):
            raise RuntimeError("the report's helper process died")

    monkeypatch.setattr(renderer, "fork", lambda fn, *args: Dead())
    run = tmp_path / "run"
    shutil.copytree(small_run, run)
    write_report(run, strict=True)
    assert _written(run) == _written(small_run)


def test_a_missing_table_degrades_to_a_note(small_run, tmp_path):
    run = tmp_path / "run"
    shutil.copytree(small_run, run, ignore=shutil.ignore_patterns("figures", "tables",
                                                                  "report.*"))
    import pandas as pd

    for part in (run / "chunks").glob("p*/arrays.parquet"):
        arrays = pd.read_parquet(part)
        arrays[arrays["table"] != "time"].to_parquet(part, index=False)
    html = write_report(run).read_text(encoding="utf-8")
    assert "not available" in html.lower()
    assert len(re.findall(r"<h2>", html)) == len(SECTIONS)


def test_cli_report_command_writes_the_report(small_run, small_report):
    from nop_sim.cli import main

    res = CliRunner().invoke(main, ["report", str(small_run)])
    assert res.exit_code == 0, res.output
    assert "report.html" in res.output
    # the findings the Headline flagged, printed at the end, one a line, as the report
    # words them (or that none was flagged)
    found = pd.read_csv(small_run / "tables" / "findings.csv")
    warn = found[found["severity"] == "warning"]
    printed = [line for line in res.output.splitlines() if line.startswith("  - ")]
    assert [line.split(": ", 1)[1] for line in printed] == list(warn["finding"])
    assert ("none flagged" in res.output) == (not len(warn))


def test_the_terminal_lists_what_the_report_flagged(tmp_path):
    """nop-sim run and nop-sim report end with the report's findings: each warning of a
    point's Headline (notes are not findings), the first SHOWN_FINDINGS and how many more;
    a sweep's detailed points each under their number; none flagged says so; a folder
    without the table (a game with no Headline findings) prints nothing."""
    from nop_sim.run.pipeline import report_findings

    tables = tmp_path / "tables"
    tables.mkdir()
    assert report_findings(tmp_path) == []
    rows = [{"point": 0, "severity": "warning", "section": "seats",
             "finding": f"seat {k} wins", "value": 0.1} for k in range(12)]
    rows.insert(1, {"point": 0, "severity": "note", "section": "ledger_cap",
                    "finding": "the cap is never reached", "value": None})
    pd.DataFrame(rows).to_csv(tables / "findings.csv", index=False)
    lines = report_findings(tmp_path, shown=10)
    assert lines[0].startswith("findings: 12 flagged for a look")
    assert lines[1:11] == [f"  - Seats: seat {k} wins" for k in range(10)]
    assert lines[11] == "  - and 2 more in the report" and len(lines) == 12
    (tables / "findings.csv").unlink()
    pd.DataFrame(rows[:1]).to_csv(tables / "p7_findings.csv", index=False)
    pd.DataFrame([{"point": 12, "severity": "note", "section": "ledger_cap",
                   "finding": "x", "value": 1}]).to_csv(tables / "p12_findings.csv", index=False)
    assert report_findings(tmp_path) == [
        "findings at point 7: 1 flagged for a look (the report's Headline links each to "
        "its section):", "  - Seats: seat 0 wins",
        "findings at point 12: none flagged (the report's Headline says what was checked)"]
    (tables / "pnotes_findings.csv").write_text("point\n")  # not a point's: left out
    (tables / "p7_findings.csv").write_text("not,a\n\"table")  # damaged: left out
    assert report_findings(tmp_path)[0].startswith("findings at point 12: none")


# ---------------------------------------------------------------------------
# A real browser
# ---------------------------------------------------------------------------
CHROMIUM = next((p for p in (shutil.which(n) for n in ("chromium", "chromium-browser",
                                                        "google-chrome", "chrome")) if p), None)

# Injected first in <head>: records resource and script errors and console.error,
# then on load writes how many images decoded into a <pre> that --dump-dom prints.
PROBE = """<script>
window.__errors = [];
window.addEventListener('error', function (e) {
  var t = e.target || {};
  window.__errors.push(t.tagName ? 'resource ' + t.tagName : 'script ' + e.message);
}, true);
var _error = console.error;
console.error = function () {
  window.__errors.push('console ' + Array.prototype.join.call(arguments, ' '));
  _error.apply(console, arguments);
};
window.addEventListener('load', function () {
  var imgs = Array.prototype.slice.call(document.images);
  var ok = imgs.filter(function (i) { return i.complete && i.naturalWidth > 0; });
  var pre = document.createElement('pre');
  pre.id = '__probe';
  pre.textContent = JSON.stringify({images: imgs.length, loaded: ok.length,
                                    errors: window.__errors});
  document.body.appendChild(pre);
});
</script>"""


def render_in_chromium(html_path: Path, tmp_path: Path, extra: str = "", *,
                       probe: str = PROBE, width: int = 1280) -> tuple[dict, str]:
    """Open the page in headless Chromium, ``width`` CSS pixels wide; return the JSON the
    probe writes into ``<pre id="__probe">`` on load, and Chromium's log."""
    page = tmp_path / "probe.html"
    html = html_path.read_text(encoding="utf-8").replace("<head>", "<head>" + probe, 1)
    page.write_text(html.replace("</body>", extra + "</body>", 1), encoding="utf-8")
    proc = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
         "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}",
         "--enable-logging=stderr", "--v=0", "--virtual-time-budget=15000",
         f"--window-size={width},900", "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=120)
    found = re.search(r'<pre id="__probe">(.*?)</pre>', proc.stdout, re.S)
    assert found, f"the page did not finish loading:\n{proc.stderr[-2000:]}"
    text = found.group(1).replace("&quot;", '"').replace("&amp;", "&")
    return json.loads(text), proc.stderr


def _console_errors(log: str) -> list[str]:
    return [line for line in log.splitlines() if "CONSOLE" in line and (
        "ERROR" in line.split("CONSOLE")[0] or "Uncaught" in line)]


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (Debian: apt-get "
                    "install chromium); the browser check of the report needs it")
def test_report_renders_in_chromium_with_every_image_and_no_console_error(small_report,
                                                                         tmp_path):
    probe, log = render_in_chromium(small_report, tmp_path)
    assert probe["images"] == len(_images(small_report.read_text(encoding="utf-8")))
    assert probe["loaded"] == probe["images"] > 0
    assert probe["errors"] == []
    assert _console_errors(log) == []


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (Debian: apt-get "
                    "install chromium); the browser check of the report needs it")
def test_the_browser_probe_catches_a_broken_image_and_a_console_error(small_report, tmp_path):
    broken = ('<img src="data:image/png;base64,AAAA" alt="broken">'
              "<script>console.error('boom')</script>")
    probe, _ = render_in_chromium(small_report, tmp_path, extra=broken)
    assert probe["loaded"] == probe["images"] - 1
    assert any("boom" in e for e in probe["errors"])
    assert any(e.startswith("resource IMG") for e in probe["errors"])


def test_the_gini_reference_is_named_in_the_caption_not_a_column(small_report):
    # a column "one player holds all" reading 0.750 on every row looked like a share of
    # matches; it is the Gini of one player holding every chip, (players - 1) / players
    md = (small_report.parent / "report.md").read_text(encoding="utf-8")
    caption, _, header = re.search(r"^\*(Stack inequality[^\n]*)\*\n\n(\| matches[^\n]*)",
                                   md, re.M).group(1, 0, 2)
    assert "holds all" not in header and "0.750" not in header
    assert "reference: Gini = 0.750 if one player holds every chip" in caption
    assert "Gini = (players − 1)/players" in md.split(caption, 1)[1].split("##", 1)[0]


def _drawn(monkeypatch) -> list:
    """The matplotlib figures the report renders from now on (``R.png`` records them)."""
    from nop_sim import reporting as R

    figures, png = [], R.png
    monkeypatch.setattr(R, "png", lambda fig, *a: figures.append(fig) or png(fig, *a))
    return figures


def test_a_category_placed_once_does_not_stretch_the_hedging_axes(monkeypatch):
    import pandas as pd

    from nop_sim.games.new_order.report import ledger

    figures = _drawn(monkeypatch)
    hc = pd.DataFrame({"label": ["Flush Five", "Full House", "Two Pair"],
                       "placements": [1, 2023, 16982], "hit_rate": [1.0, 0.600, 0.491],
                       "hit_rate_low": [0.207, 0.578, 0.483],
                       "hit_rate_high": [1.0, 0.621, 0.498],
                       "net_per_placement": [14.4, 6.6, 4.5], "net_low": [-1.0, 6.2, 4.36],
                       "net_high": [14.4, 7.0, 4.65]})
    r = pd.Series({"paid": 2_699_205.0, "hits": 139_400, "cost": 980_950.0,
                   "placements": 196_190})
    block = ledger._hedging_figure(r, hc)
    hit_ax, net_ax = figures[0].axes
    assert hit_ax.get_xlim()[1] < 0.7          # not up to the one placement's 100%
    assert -0.9 < net_ax.get_xlim()[0] and net_ax.get_xlim()[1] < 8
    assert f"fewer than {ledger.FEW_PLACEMENTS} placements" in block.caption
    for ax in (hit_ax, net_ax):   # drawn (by R.png): Flush Five, on top, a hollow ">" at
        edge = [(ln.get_marker(), list(ln.get_xdata()), list(ln.get_ydata()))  # the edge
                for ln in ax.get_lines() if str(ln.get_markerfacecolor()) == "none"
                and len(ln.get_xdata())]
        assert edge == [(">", [ax.get_xlim()[1]], [2])]


def test_the_hedging_legend_covers_no_row(monkeypatch):
    # inside the axes at the lower right, the legend lay over the High Card row's dot
    import pandas as pd

    from nop_sim.games.new_order.report import ledger

    figures = _drawn(monkeypatch)
    hc = pd.DataFrame({"label": ["Flush Five", "Two Pair", "One Pair", "High Card"],
                       "placements": [1, 16982, 30000, 25000],
                       "hit_rate": [1.0, 0.491, 0.78, 0.93],
                       "hit_rate_low": [0.207, 0.483, 0.775, 0.925],
                       "hit_rate_high": [1.0, 0.498, 0.785, 0.935],
                       "net_per_placement": [14.4, 4.5, 10.6, 13.6],
                       "net_low": [-1.0, 4.36, 10.4, 13.4], "net_high": [14.4, 4.65, 10.8, 13.8]})
    r = pd.Series({"paid": 2_699_205.0, "hits": 139_400, "cost": 980_950.0,
                   "placements": 196_190})
    ledger._hedging_figure(r, hc)
    fig = figures[0]
    renderer = fig.canvas.get_renderer()      # drawn by R.png: where it was drawn
    hit_ax = fig.axes[0]
    legend = hit_ax.get_legend()
    assert sorted(t.get_text() for t in legend.get_texts()) == [
        "break-even", f"fewer than {ledger.FEW_PLACEMENTS} placements"]
    box, axes_box = legend.get_window_extent(renderer), hit_ax.get_window_extent(renderer)
    assert box.y0 >= axes_box.y1                  # above the rows, not over them
    assert fig.bbox.contains(box.x0, box.y0) and fig.bbox.contains(box.x1, box.y1)
    for ax in fig.axes:                            # and over no other axes' title or ticks
        assert not box.overlaps(ax.get_tightbbox(renderer)) or ax is hit_ax


def test_headline_rows_show_their_scale_one_axis_per_kind_from_zero(monkeypatch):
    # each row had its own zoomed axis (0.320-0.340): a 0.016-wide interval looked as wide
    # as a 2-point one. Rows of one kind now share an axis, and every axis starts at zero.
    from types import SimpleNamespace

    import pandas as pd

    from nop_sim.games.new_order.analysis import METRICS
    from nop_sim.games.new_order.report import scorecard

    figures = _drawn(monkeypatch)
    values = {"median_hands": (40, 38, 41), "unresolved_share": (0.0, 0.0, 0.0019),
              "max_seat_advantage": (0.0045, 0.0, 0.024),
              "max_preset_advantage": (0.311, 0.289, 0.333),
              "manipulations_per_hand": (0.330, 0.322, 0.338),
              "fee_share": (0.0363, 0.0347, 0.0379), "hedge_hit_rate": (0.7105, 0.7085, 0.7125),
              "final_dart": (5.57, 5.37, 5.76)}
    metrics = pd.Series({f"{k}{s}": v for k, vs in values.items()
                         for s, v in zip(("", "_low", "_high"), vs, strict=True)})
    p = SimpleNamespace(run=SimpleNamespace(targets={"median_hands": 60,
                                                     "max_seat_advantage": 0.03}))
    block = scorecard._scorecard(p, metrics)
    label = {k: v[0] for k, v in METRICS.items()}
    rows = {ax.get_yticklabels()[0].get_text(): ax.get_xlim() for ax in figures[0].axes}
    assert all(lo == 0 for lo, _ in rows.values()), rows
    shares = [label[k] for k in ("unresolved_share", "fee_share", "hedge_hit_rate")]
    points = [label[k] for k in ("max_seat_advantage", "max_preset_advantage")]
    assert len({rows[r] for r in shares}) == 1 and len({rows[r] for r in points}) == 1
    assert 71.25 < rows[shares[0]][1] < 80 and 33.3 < rows[points[0]][1] < 37
    assert rows[label["manipulations_per_hand"]][1] > 10 * (0.338 - 0.322)
    order = list(rows)   # the rows of one axis sit together
    for group in (shares, points):
        assert order[order.index(group[0]):][:len(group)] == group
    assert "starts at zero" in block.caption


# On load: per table, whether its last column is in view, whether its box stays inside the
# window, and whether scrolling its wrapper to the end brings the last column into view.
TABLES_PROBE = """<script>
window.addEventListener('load', function () {
  var out = [], page = document.documentElement.clientWidth;
  document.querySelectorAll('table').forEach(function (t) {
    var wrap = t.parentElement, heads = t.querySelectorAll('th'), last = heads[heads.length - 1];
    var box = wrap.getBoundingClientRect();
    var row = {caption: (t.caption ? t.caption.textContent : '').slice(0, 40),
               wrapped: wrap.className === 'tablewrap',
               fits: last.getBoundingClientRect().right <= box.right + 0.5,
               inside: box.left >= 0 && box.right <= page};
    wrap.scrollLeft = wrap.scrollWidth;
    row.reachable = last.getBoundingClientRect().right <= box.right + 0.5;
    out.push(row);
  });
  var pre = document.createElement('pre');
  pre.id = '__probe';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
});
</script>"""


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (Debian: apt-get "
                    "install chromium); the browser check of the report needs it")
def test_every_column_of_every_table_can_be_seen(small_report, sweep_report, tmp_path):
    # the report's 980-px text column cut wide tables ("difference", "worth it?", "mean
    # final dart", the sweep's "distance") with no sign that they scroll. Headers now
    # wrap, a table that still does not fit may use the window's margin, and one wider
    # than the window scrolls, its last column reachable.
    for report in (small_report, sweep_report):
        tables, _ = render_in_chromium(report, tmp_path, probe=TABLES_PROBE, width=1600)
        assert len(tables) > 10 and all(t["wrapped"] for t in tables)
        assert [t["caption"] for t in tables if not (t["fits"] and t["inside"])] == []
    tables, _ = render_in_chromium(small_report, tmp_path, probe=TABLES_PROBE, width=900)
    assert any(not t["fits"] for t in tables)      # too narrow for some: they scroll
    assert [t["caption"] for t in tables if not (t["reachable"] and t["inside"])] == []


# ---------------------------------------------------------------------------
# Matches to replay (issue 40, item 5)
# ---------------------------------------------------------------------------
def _replayed(command: str, monkeypatch) -> object:
    """``command`` (a report's nop-sim replay line) through the CLI, --no-browser added, the
    server bound and then stopped as Ctrl+C stops it, instead of serving."""
    import shlex

    from nop_sim.cli import main
    from nop_sim.play.server import TableServer

    def interrupted(self):
        raise KeyboardInterrupt

    monkeypatch.setattr(TableServer, "serve_forever", interrupted)
    words = shlex.split(command)
    assert words[:2] == ["nop-sim", "replay"], command
    return CliRunner().invoke(main, [*words[1:], "--no-browser"])


def test_the_replays_are_the_median_shortest_longest_and_most_disrupted(small_run,
                                                                       small_report):
    """Each pick against the run's tables, by the stated rule."""
    import numpy as np
    import pandas as pd

    from nop_sim.games.new_order import types as T
    from nop_sim.results.store import load_tables, read_rows

    matches = load_tables(small_run, ["matches"])["matches"]
    drafts = load_tables(small_run, ["drafts"])["drafts"]
    events = read_rows(small_run, "events", 0)
    logged = sorted(events["match"].unique())
    assert logged == list(range(0, 20, 3))
    # a match's Disruptor effects are its drafted cards: the logged ones count alike
    effects = drafts.groupby("match")["count"].sum().reindex(matches["match"], fill_value=0)
    seen = events[events["kind"] == T.EV_EFFECT].groupby("match").size()
    assert effects.loc[logged].tolist() == seen.reindex(logged, fill_value=0).tolist()
    assert effects.loc[logged].sum() > 0
    # every match of the run is a candidate (any plays again), not the logged ones only
    m = matches.set_index("match").sort_index()
    median = np.median(matches["hands"])
    distance = (m["hands"] - median).abs()
    per_hand = effects.to_numpy() / m["hands"]
    want = {"median": int(distance[distance == distance.min()].index.min()),
            "shortest": int(m.index[m["hands"] == m["hands"].min()].min()),
            "longest": int(m.index[m["hands"] == m["hands"].max()].min()),
            "Disruptor": int(per_hand.index[per_hand == per_hand.max()].min())}
    picked = pd.read_csv(small_run / "tables" / "replays.csv")
    assert len(picked) == len(set(want.values()))
    for word, match in want.items():
        row = picked[picked["why"].str.contains(word)]
        assert list(row["match"]) == [match], (word, picked)
        assert row["hands"].item() == m.loc[match, "hands"]
        assert row["command"].item() == f"nop-sim replay {small_run} --match {match}"
    html = small_report.read_text(encoding="utf-8")
    md = (small_run / "report.md").read_text(encoding="utf-8")
    for command in picked["command"]:
        assert command in html and command in md
    assert "closest to the run&#x27;s median" in html and "closest to the run's median" in md


def test_every_replay_the_report_prints_opens(small_run, small_report, sweep_report,
                                             monkeypatch):
    import pandas as pd

    sweep = sweep_report.parent
    commands = list(pd.read_csv(small_run / "tables" / "replays.csv")["command"])
    sweep_csvs = sorted((sweep / "tables").glob("p*_replays.csv"))
    assert len(sweep_csvs) == 1  # the point sections of the best point
    sweep_commands = list(pd.read_csv(sweep_csvs[0])["command"])
    point = int(sweep_csvs[0].name[1:].split("_")[0])
    assert all(c.endswith(f" --point {point}") for c in sweep_commands)
    for command in commands + sweep_commands:
        res = _replayed(command, monkeypatch)
        assert res.exit_code == 0, (command, res.output)
        assert "http://127.0.0.1:" in res.output and "stopped" in res.output


def test_a_run_that_logged_no_match_lists_matches_to_replay_and_an_older_one_says_how(
        tmp_path, monkeypatch):
    out = tmp_path / "nolog"
    run_scenario(_scenario("nolog", 4, 4), out, workers=1)
    md = (write_report(out, strict=True).parent / "report.md").read_text(encoding="utf-8")
    assert "the shortest of the 4 matches" in md
    for command in pd.read_csv(out / "tables" / "replays.csv")["command"]:
        res = _replayed(command, monkeypatch)
        assert res.exit_code == 0, (command, res.output)
    # a run of an older nop-sim (no match can be played again) that logged none
    manifest = json.loads((out / "manifest.json").read_text())
    del manifest["replayable"]
    (out / "manifest.json").write_text(json.dumps(manifest))
    md = (write_report(out, strict=True).parent / "report.md").read_text(encoding="utf-8")
    said = md.split("Matches to replay\n", 1)[1].strip().split("\n\n")[1]
    res = _replayed(f"nop-sim replay {out} --match 0", monkeypatch)
    assert res.exit_code != 0 and said in res.output
    assert said.startswith(f"{out}: no match was logged") and "log_sample" in said
