"""What a run leaves behind, written and read back: the run folder and its readers.

- :mod:`~nop_sim.results.store`: the run folder (parts written, tables read back),
  plain data that knows no game;
- :mod:`~nop_sim.results.run_data`: a finished run read whole (:class:`RunData`),
  on which each game's analysis builds;
- :mod:`~nop_sim.results.summary`: ``summary.md``, the first look at a run, from
  the metrics its game names;
- :mod:`~nop_sim.results.match_log`: the game of a run folder, and a logged match
  read back (``nop-sim hands``).

The store and the run data sit below the games (their analyses and reports read
through them); the summary and the match log above, reaching a game only through
the registry. Nothing here imports the runner: pyproject.toml's import-linter
contracts hold both. This file imports nothing, so that a game may import the store
without loading the summary.
"""
