"""Running scenarios: load (:mod:`.scenario`), plan chunks and parts (:mod:`.planning`),
play them here, in processes or on Dask (:mod:`.executors`, :mod:`.forkserver`), tie a
run together and keep its folder whole (:mod:`.runner`, :mod:`.folder_lock`), record
where results came from (:mod:`.provenance`), read logged matches back
(:mod:`.match_log`), compile ahead (:mod:`.compiling`), summarise a run folder (:mod:`.summary`),
and take a run from its scenario to its report, the [strong] field played beside it and
the report's libraries imported while it plays (:mod:`.pipeline`, what the CLI calls). The run
folder itself is :mod:`nop_sim.store`, below the games. Generic: every game is reached
through the registry."""
