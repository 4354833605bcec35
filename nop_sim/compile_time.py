"""What a cold compile of the kernels costs, said once: README.md, ``nop-sim compile``
(its help and first line) and a run's first compile all state :data:`COMPILE_TIME`
(``tests/test_runner.py`` checks).

Kept out of ``kernels/``: every file there counts in the kernels' cache stamp
(``kernels._jit.kernel_digest``), so a new figure here recompiles nothing.

Measured with an empty cache (``NUMBA_CACHE_DIR`` an empty folder, ``nop-sim
compile``) on a 2-core machine with other work running: 135 s, 164 s, 220 s, 245 s.
"""

COMPILE_TIME = "2 to 4 minutes on 2 cores"
COMPILE_NOTE = (f"compiling the simulation kernels into numba's cache: {COMPILE_TIME}, once "
                f"after an install or an update (nop-sim compile does it ahead)...")
