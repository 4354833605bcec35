"""Sit at the table: a person plays a seat of a match in the browser (``nop-sim play``).

A game offers a table through its registry entry (``Game.open_table``); this package
knows no game. :mod:`.server` serves the table's JSON API and the page shipped in
``static/`` (plain HTML, CSS and JavaScript: no build step, no CDN) on 127.0.0.1 with the
standard library's HTTP server; :mod:`.save` keeps a finished match as a run folder
that ``nop-sim hands`` reads; :mod:`.session` opens a scenario's table and serves it
(``nop-sim play``, :mod:`nop_sim.cli.play`).
"""
