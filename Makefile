# nop-sim: `make run` and `make test` set themselves up on a fresh clone.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-dev

.PHONY: run test test-slow test-readme test-numba-range bench lint clean-cache clean install ordered ordered-sweep

# The install, in the order that brings the first report soonest: what the kernels'
# compile imports and nop-sim itself (scripts/install_order.py splits pyproject.toml),
# then the kernels a run needs (nop-sim compile --runs) while every other package
# installs beside them. The first report waits for no more; the other kernel groups
# (the parallel driver, the public evaluate()) compile before the tests (KERNELS).
KERNELS := $(VENV)/.kernels
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python scripts/install_order.py $(VENV)
	$(BIN)/python -m pip install -q -r $(VENV)/compile.txt
	$(BIN)/python -m pip install -q --no-deps -e .
	@echo "nop-sim: compiling the kernels a run needs, once, so that runs start in seconds"
	$(BIN)/python -m pip install -q -r $(VENV)/rest.txt > $(VENV)/install.log 2>&1 & \
	  rest=$$!; $(BIN)/nop-sim compile --runs; rc=$$?; \
	  wait $$rest || { cat $(VENV)/install.log; exit 1; }; exit $$rc
	touch $(STAMP)

$(KERNELS): $(STAMP)
	$(BIN)/nop-sim compile
	touch $(KERNELS)

install: $(KERNELS)

run: $(STAMP)
	$(BIN)/nop-sim run scenarios/baseline.toml

# One worker per core (pytest-xdist), each taking whole test files, so that a file's
# module-scoped fixtures are built once: on 2 cores the suite took 224 s in place (860 tests),
# against 348 s in one process.
test: $(KERNELS)
	$(BIN)/python -m pytest -q -m "not slow" -n auto --dist loadfile

test-slow: $(KERNELS)
	$(BIN)/python -m pytest -q -m slow

# The README's "A designer's day", line by line on a fresh copy (a few minutes).
test-readme: $(KERNELS)
	$(BIN)/python -m pytest -q -s tests/test_readme_day.py

# The lowest and the highest numba of pyproject.toml's range: nop_sim/kernels/jit.py and
# nop_sim/games/new_order/kernels/firewall.py lean on numba internals, so both ends must pass the JIT tests and
# a golden hash. Each gets a throwaway venv and an empty numba cache (a cold compile).
NUMBA_RANGE ?= 0.59.0 0.68.1
NUMBA_RANGE_TESTS ?= tests/test_jit.py tests/test_kernel_state.py tests/test_stacking.py \
	"tests/test_golden.py::test_play_matches_output_hash"

test-numba-range:
	@set -e; for v in $(NUMBA_RANGE); do \
	  tmp=$$(mktemp -d); \
	  echo "== numba $$v in $$tmp"; \
	  $(PYTHON) -m venv $$tmp/venv; \
	  $$tmp/venv/bin/python -m pip install -q --upgrade pip; \
	  $$tmp/venv/bin/python -m pip install -q -e . pytest hypothesis "numba==$$v"; \
	  NUMBA_CACHE_DIR=$$tmp/cache $$tmp/venv/bin/python -m pytest -q -p no:cacheprovider \
	    $(NUMBA_RANGE_TESTS) || { rm -rf $$tmp; exit 1; }; \
	  rm -rf $$tmp; \
	done

bench: $(KERNELS)
	$(BIN)/python -m pip install -q -e '.[bench]'  # OpenSpiel, the engine's reference
	$(BIN)/nop-sim bench evaluator
	$(BIN)/nop-sim bench engine
	$(BIN)/nop-sim bench runner --scenario scenarios/baseline.toml
	$(BIN)/nop-sim bench ordered

lint: $(STAMP)
	$(BIN)/ruff check nop_sim tests scripts
	$(BIN)/lint-imports

clean-cache:
	find . -name __pycache__ -type d -prune -not -path './$(VENV)/*' -exec rm -rf {} +
	find . -name '*.nbi' -not -path './$(VENV)/*' -delete
	find . -name '*.nbc' -not -path './$(VENV)/*' -delete

clean: clean-cache
	rm -rf $(VENV) build *.egg-info

ordered: $(STAMP)
	$(BIN)/nop-sim run scenarios/ordered_hand.toml

ordered-sweep: $(STAMP)
	$(BIN)/nop-sim sweep scenarios/ordered_hand_sweep.toml
