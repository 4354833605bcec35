"""Every public name of ``nop_sim`` (its ``__all__``) imports from wherever the
package's modules live now, and the lazy table names no module twice over."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import nop_sim

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name", nop_sim.__all__)
def test_every_public_name_imports(name):
    assert getattr(nop_sim, name) is not None
    assert name in dir(nop_sim)


def test_the_lazy_table_covers_all_and_nothing_else():
    assert set(nop_sim._EXPORTS) == set(nop_sim.__all__) - {"__version__"}


def test_from_nop_sim_import_star_in_a_fresh_interpreter():
    """``from nop_sim import *`` resolves every lazy name (each module imports alone)."""
    code = "from nop_sim import *; import nop_sim; print(len(nop_sim.__all__))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                         text=True, check=False, env={"PYTHONPATH": str(ROOT),
                                                      "NUMBA_DISABLE_JIT": "1",
                                                      "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
    assert int(out.stdout.split()[-1]) == len(nop_sim.__all__)


def test_each_game_has_the_same_entry_points():
    """New Order and Ordered Hand name their entry points alike; the top level is New
    Order's (and the shared evaluator's), Ordered Hand's ``beats`` lives in its package."""
    from nop_sim.games import ordered_hand
    from nop_sim.games.new_order import engine
    from nop_sim.games.new_order import history as new_order_history
    from nop_sim.games.new_order import report as new_order_report
    from nop_sim.games.ordered_hand import history as ordered_history
    from nop_sim.games.ordered_hand import report as ordered_report

    assert callable(engine.play_matches) and callable(ordered_hand.play_matches)
    assert callable(new_order_history.render_history) and callable(ordered_history.render_history)
    assert callable(new_order_report.write_report) and callable(ordered_report.write_report)
    assert nop_sim.play_matches is engine.play_matches
    assert "beats" not in nop_sim.__all__ and not hasattr(nop_sim, "beats")
    assert ordered_hand.beats("Kc Kd", "9s 9h")
    assert set(ordered_hand._EXPORTS) == set(ordered_hand.__all__)
