"""Strong play: train agents toward a best response, and value each mechanic under it.

* :mod:`.space` -- which policy parameters a search moves, in which bounds;
  the mechanics restricted play takes away. Every game says these through its
  :class:`~nop_sim.games.registry.PolicySpace` (the Game's ``policy``): this
  package imports no game.
* :mod:`.play` -- candidates against a field on common seeds, one engine batch.
* :mod:`.search` -- the best single-seat deviation: many starts, CMA-ES restarts, racing.
* :mod:`.meta` -- the population's meta-game: a payoff table by play, its mixture.
* :mod:`.trainer` -- PSRO: best responses to the mixture, its folder, resuming.
* :mod:`.value` -- restricted play and the Disruptor draft table.
* :mod:`.report` -- the training report (the shared reporting toolkit).

Example::

    from nop_sim.run.scenario import load_scenario
    from nop_sim.studies.train import TrainConfig, train_folder

    scn = load_scenario("scenarios/baseline.toml")
    result = train_folder(scn, "reports/baseline-train", TrainConfig(budget=200_000))
    print(result.exploitability, result.row)
"""

from nop_sim.studies.train.errors import TrainError
from nop_sim.studies.train.play import Duel, Engine, Field, duel, match_states
from nop_sim.studies.train.search import (
    SearchConfig,
    SearchResult,
    best_response,
    check_gain,
    statement,
)
from nop_sim.studies.train.space import Space, space_for
from nop_sim.studies.train.trainer import (
    TrainConfig,
    TrainResult,
    rules_key,
    start_population,
    train_folder,
    train_settings,
)

__all__ = ["Duel", "Engine", "Field", "SearchConfig",
           "SearchResult", "Space", "TrainConfig", "TrainError", "TrainResult", "best_response",
           "check_gain", "duel", "match_states", "rules_key", "space_for",
           "start_population", "statement", "train_folder", "train_settings"]
