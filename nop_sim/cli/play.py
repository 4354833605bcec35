"""``play``: sit at the table, a seat of a scenario's match in the browser; ``replay``: a
run's logged match on the same page, step by step (issue 40)."""

from __future__ import annotations

import errno
import time
import webbrowser
from pathlib import Path

import click

from nop_sim.cli.common import _Failure, _load, command

__all__ = ["COMMANDS"]


@command("play")
@click.argument("scenario", type=click.Path(path_type=Path, dir_okay=False, exists=True))
@click.option("--seat", type=click.IntRange(0), default=0, show_default=True,
              help="Your seat (seats count from 0).")
@click.option("--field", default=None, metavar="PRESET|@FILE",
              help="Every other seat's agent: a preset or an agent file (a trained "
                   "strong.toml), as --set seats.all=...  [default: the scenario's seats]")
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=None,
              help="The match's seed  [default: the scenario's]")
@click.option("--set", "overrides", multiple=True, metavar="KEY=VALUE",
              help="Override a scenario setting (repeatable).")
@click.option("--port", type=click.IntRange(0, 65535), default=0,
              help="Port on 127.0.0.1  [default: a free one]")
@click.option("--pace", type=click.IntRange(0, 10_000), default=400, show_default=True,
              help="Milliseconds between two lines of the agents' play on the page.")
@click.option("--out", type=click.Path(path_type=Path, file_okay=False), default=None,
              help="Where the finished match is saved  [default: reports/NAME-play/TIME]")
@click.option("--no-browser", is_flag=True, help="Print the URL only.")
def play_cmd(scenario, seat, field, seed, overrides, port, pace, out, no_browser):
    """Sit at the table: play seat --seat of SCENARIO in your browser against its agents.

    Serves a page on 127.0.0.1 with the Ranking Column, your cards and best five,
    the chips, pot, Ledger fee, tokens, Disruptors and a log, and your legal
    actions as buttons. The batch kernel plays the match (your decisions replayed
    from the seed): the rules are the simulator's. The finished match is saved as
    a folder that nop-sim hands reads. JSON API: GET /api/state, POST /api/action.

    Ordered Hand has a page of its own: your sequence in order, a button per
    block you may play and per gap a drawn card may go into, and the bet
    exchange's answers.

    \b
    Examples:
      nop-sim play scenarios/baseline.toml --seat 2
      nop-sim play scenarios/baseline.toml --field @reports/baseline-train/strong.toml
      nop-sim play scenarios/ordered_hand.toml --set players=2 --set betting=true
    """
    from nop_sim.play.session import open_server  # here: start-up time (the games, numba)

    t0 = time.perf_counter()
    scn = _load(scenario, [*overrides, *([f"seats.all={field}"] if field else [])], None, seed)
    folder = out or Path("reports") / f"{scenario.stem}-play" / time.strftime("%Y%m%d-%H%M%S")
    server = _bound(port, lambda: open_server(scn, seat, port=port, pace_ms=pace, out=folder))
    _serve(server, f"{scn.name}, seat {seat}", t0, no_browser)


@command("replay")
@click.argument("out", metavar="RUN", type=click.Path(path_type=Path, file_okay=False,
                                                      exists=True))
@click.option("--match", "match_id", type=click.IntRange(0), required=True,
              help="The match to step through: any of a New Order run (played again from "
                   "its seed); of another game's, one [run] log_sample logged.")
@click.option("--point", type=click.IntRange(0), default=0, show_default=True,
              help="The sweep point of a sweep's folder.")
@click.option("--port", type=click.IntRange(0, 65535), default=0,
              help="Port on 127.0.0.1  [default: a free one]")
@click.option("--no-browser", is_flag=True, help="Print the URL only.")
def replay_cmd(out, match_id, point, port, no_browser):
    """Step through a match of RUN on the play page: forward, back and a slider, every
    card shown, the chips, pot and column of each step as the referee replays its log.
    Any match of a New Order run is played again from the run's seed, exactly as the run
    played it; another game's run shows the matches [run] log_sample logged. A folder
    nop-sim play saved is a run of one match, --match 0.

    \b
    Examples:
      nop-sim replay reports/baseline --match 50
      nop-sim replay reports/baseline-play/20261204-140000 --match 0
    """
    from nop_sim.play.session import open_replay_server  # here: start-up time (the games)

    t0 = time.perf_counter()
    server = _bound(port, lambda: open_replay_server(out, match_id, point, port=port))
    _serve(server, f"{out}, match {match_id}", t0, no_browser)


def _bound(port: int, open_it):
    """The server ``open_it`` opens; a port in use is one line that offers --port."""
    try:
        return open_it()
    except OSError as exc:
        if exc.errno != errno.EADDRINUSE:
            raise
        raise _Failure(f"port {port} on 127.0.0.1 is in use: choose another with --port N, "
                       f"or leave --port out for a free one") from None


def _serve(server, what: str, t0: float, no_browser: bool) -> None:
    """Print the URL, open it, serve until Ctrl+C."""
    click.echo(f"{what}: ready in {time.perf_counter() - t0:.1f} s at {server.url}  "
               f"(Ctrl+C stops)")
    if not no_browser:
        webbrowser.open(server.url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        click.echo(f"saved: {server.saved}" if server.saved else "stopped")
    finally:
        server.httpd.server_close()


COMMANDS = [play_cmd, replay_cmd]
