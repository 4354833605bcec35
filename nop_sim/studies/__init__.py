"""Studies that ask the lab questions by running many scenarios: training agents
(:mod:`.train`), tuning rules (:mod:`.tune`), comparing runs (:mod:`.compare`,
:mod:`.compare_report`), sensitivity (:mod:`.sensitivity`) and benchmarks
(:mod:`.bench`). Generic: every game is reached through the registry (what is a game's
own, such as its compare metrics and its engine bench, through its ``Game``'s hooks)."""
