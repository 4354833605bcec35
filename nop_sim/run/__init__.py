"""Running scenarios: load and plan (:mod:`.scenario`), play chunks in processes or
on Dask and store them (:mod:`.runner`, :mod:`.forkserver`, :mod:`.folder_lock`),
compile ahead (:mod:`.compiling`), draw figures off the main process
(:mod:`.renderer`) and summarise a run folder (:mod:`.summary`). Generic: every
game is reached through the registry."""
