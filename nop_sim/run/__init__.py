"""Running scenarios: load (:mod:`.scenario`), plan chunks and parts (:mod:`.planning`),
play them here, in processes or on Dask (:mod:`.executors`, :mod:`.forkserver`), tie a
run together and keep its folder whole (:mod:`.runner`, :mod:`.folder_lock`), record
where results came from (:mod:`.provenance`), compile ahead (:mod:`.compiling`), and take a
run from its scenario to its report, the [strong] field played beside it and the report's
libraries imported while it plays (:mod:`.pipeline`, what the CLI calls). What a run leaves
behind, the folder, its summary and its logged matches, is :mod:`nop_sim.results`'s.
Generic: every game is reached through the registry."""
