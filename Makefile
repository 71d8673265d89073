# Two commands do all set-up on a fresh machine:
#   make demo   installs pisa3d into .venv and plays a demo game
#   make test   installs pisa3d with its test tools into .venv and runs the test suite
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Tests and demos call the `pisa3d` script: take the one in .venv, never another install's.
export PATH := $(abspath $(BIN)):$(PATH)
STAMP := $(VENV)/.installed

.PHONY: demo test test-slow test-all lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test,video,rl,mujoco,ray,serve,learn,cnn]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/python demos/play_tower.py

test: $(STAMP)
	$(BIN)/python -m pytest -n 2 -q

test-slow: $(STAMP)
	$(BIN)/python -m pytest -n 2 -q -m slow

test-all: $(STAMP)
	$(BIN)/python -m pytest -n 2 -q -m ''

lint: $(STAMP)
	$(BIN)/ruff check .

bench: $(STAMP)
	$(BIN)/python benchmarks/cards.py
	$(BIN)/python benchmarks/gimignano.py
	$(BIN)/python benchmarks/tower_physics.py
	$(BIN)/python benchmarks/tower.py
	$(BIN)/python benchmarks/adapters.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
