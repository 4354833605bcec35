"""``python -m nop_sim`` is the ``nop-sim`` command."""

from nop_sim.cli import run

run()
