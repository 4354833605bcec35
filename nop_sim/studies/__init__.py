"""Studies that ask the lab questions by running many scenarios: training agents
(:mod:`.train`), tuning rules (:mod:`.tune`), comparing runs (:mod:`.compare`,
:mod:`.compare_report`), sensitivity (:mod:`.sensitivity`) and benchmarks
(:mod:`.bench`)."""
