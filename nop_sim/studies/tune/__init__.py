"""``nop-sim tune``: search a scenario's ``[tune]`` settings toward its ``[targets]``.

Optuna proposes settings (TPE; CMA-ES when every setting is a float range),
each trial plays its matches in rungs through the game's own chunks
(successive halving prunes the unpromising ones), the study lives in the
output folder so ``--resume`` continues it, and the top trials are re-run
with fresh seeds and more matches before the best is named. See
:func:`tune_folder`; the report is :mod:`nop_sim.studies.tune.report`.
"""

from nop_sim.studies.tune.search import TuneConfig, TuneError, TuneResult, objective, tune_folder

__all__ = ["TuneConfig", "TuneError", "TuneResult", "objective", "tune_folder"]
