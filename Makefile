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
