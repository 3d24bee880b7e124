# Quick start: `make demo` then `make test` (see README.md).
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: venv demo test clean agent-clis

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	# torch first and pinned: the CPU wheel on disk (a bare `torch` would pull a CUDA build)
	$(BIN)/pip install -q "torch==2.13.0"
	$(BIN)/pip install -q -e ".[dev,llm,ray]"
	touch $(STAMP)

venv: $(STAMP)

# The main job on the embedded default: the oracle solutions on the smoke tier, on the detected platform.
demo: $(STAMP)
	$(BIN)/kgb eval solutions --tier smoke --name demo

# The agent CLIs the agent-track tests drive (pinned npm packages into .agents/, ignored by git; a second run
# installs nothing). The tests skip a CLI that is not installed, saying how to install it.
agent-clis:
	tools/install_agent_clis.sh

# Lint first (ruff, configured in pyproject.toml), then every test.
test: $(STAMP)
	$(BIN)/ruff check
	$(BIN)/python -m pytest -q --durations=15

clean:
	rm -rf $(VENV) runs
