"""Three-player Kuhn poker (OpenSpiel's ``kuhn_poker`` with ``players=3``): everything of
this one game.

:mod:`.tree` (the deals, the tree, the infosets, as data), :mod:`.settings`,
:mod:`.engine` (hands played vectorised over a batch), :mod:`.policy` (the policy
space strong play searches, presets, agent files and ``policy.csv``), :mod:`.exact`
(expected payoffs, best responses and NashConv by full enumeration: the oracle),
:mod:`.history`, the plain-Python :mod:`.referee`, :mod:`.analysis` and
:mod:`.report`. :mod:`.game` declares it to the registry; importing this package
registers it.
"""

from __future__ import annotations

from nop_sim.games.kuhn import game  # noqa: F401  (registers it)
from nop_sim.games.kuhn.exact import best_response, expected_payoffs, nash_conv
from nop_sim.games.kuhn.policy import read_policy_csv, write_policy_csv
from nop_sim.games.kuhn.settings import KuhnSettings

__all__ = ["KuhnSettings", "best_response", "expected_payoffs", "nash_conv",
           "read_policy_csv", "write_policy_csv"]
