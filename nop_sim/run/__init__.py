"""Running scenarios: load (:mod:`.scenario`), plan chunks and parts (:mod:`.planning`),
play them here, in processes or on Dask (:mod:`.executors`, :mod:`.forkserver`), tie a
run together and keep its folder whole (:mod:`.runner`, :mod:`.folder_lock`), record
where results came from (:mod:`.provenance`), read logged matches back
(:mod:`.match_log`), compile ahead (:mod:`.compiling`), draw figures off the main
process and summarise a run folder (:mod:`.summary`). The run
folder itself is :mod:`nop_sim.store`, below the games. Generic: every game is reached
through the registry."""
