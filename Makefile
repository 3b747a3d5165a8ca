# Every target builds .venv from pyproject.toml first, so a fresh clone needs only python3.
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck pytest crosshair spec venv clean

$(STAMP): pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(PY) -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

venv: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/loopspec demo

test: lint typecheck pytest crosshair

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: $(STAMP)
	$(VENV)/bin/mypy

pytest: $(STAMP)
	$(PY) -m pytest --cov --cov-report=term

crosshair: $(STAMP)
	$(PY) -m loopspec.properties.crosshair_gate

spec: $(STAMP)
	$(VENV)/bin/loopspec spec --write SPEC.md

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .hypothesis .coverage

# The real Claude Code and Codex CLIs (pinned in examples/*-adapter/package-lock.json, about
# 400 MB each) for `loopspec run --harness` and tests/test_real_harnesses.py.
.PHONY: harnesses test-harnesses
harnesses:
	cd examples/claude-code-adapter && npm ci --no-audit --no-fund
	cd examples/codex-adapter && npm ci --no-audit --no-fund

test-harnesses: $(STAMP) harnesses
	$(PY) -m pytest tests/test_real_harnesses.py
