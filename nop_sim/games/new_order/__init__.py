"""New Order Poker: everything of this one game.

Rules and settings (:mod:`.settings`, :mod:`.disruptors`, :mod:`.types`), agents,
the engine and its numba kernels (:mod:`.engine`, :mod:`.kernels`), event logs
(:mod:`.history`), the plain-Python referee (:mod:`.referee`), analysis and the
balance report (:mod:`.analysis`, :mod:`.report`), and the shipped data
(``data/``). :mod:`.game` declares it to the registry; importing this package
registers it. The referee must stay importable without the engine, so nothing
here imports the kernels at import time.
"""

import nop_sim.games.new_order.sources  # noqa: F401  (first: declares the kernels' sources)
from nop_sim.games.new_order import game  # noqa: F401  (registers it)
