# nop-sim: `make run` and `make test` set themselves up on a fresh clone.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-dev

.PHONY: run test test-slow bench lint clean-cache clean install ordered ordered-sweep

# One install step for everything: the dev extra is a superset of the runtime.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/nop-sim run scenarios/baseline.toml

test: $(STAMP)
	$(BIN)/python -m pytest -q -m "not slow"

test-slow: $(STAMP)
	$(BIN)/python -m pytest -q -m slow

bench: $(STAMP)
	$(BIN)/nop-sim bench evaluator
	$(BIN)/nop-sim bench engine
	$(BIN)/nop-sim bench ordered

lint: $(STAMP)
	$(BIN)/ruff check nop_sim tests scripts

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
