# Every target builds .venv from pyproject.toml first, so a fresh clone needs only python3
# (PYTHON=python3.13 make test builds it with another).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

# Every Python process make starts (pip, mypy, CrossHair's checks, pytest and the many processes
# tests start: CLI verbs, pytest runs of the plugin, drivers, targets) keeps its bytecode in one
# cache, PYCACHE_DIR, even where PYTHONDONTWRITEBYTECODE is set: there each process compiled
# every module it imported from source again (a pytest run of the plugin 2.9 s CPU, 1.6 s with
# bytecode kept). A prefix keeps the cache out of the sources and out of the folders tests
# compare. Python reads bytecode only from the prefix then, so pip does not compile what it
# installs (--no-compile; about 8 s of CPU for some 2,200 modules, most never imported here):
# each module is compiled once, into the prefix, by the first process importing it.
PYCACHE_DIR := build/pycache
export PYTHONDONTWRITEBYTECODE :=
export PYTHONPYCACHEPREFIX := $(abspath $(PYCACHE_DIR))
PIP_INSTALL := $(PY) -m pip install --quiet --disable-pip-version-check --no-compile
# The project's own editable install builds with the setuptools the dev extra pins, installed
# first beside pip, not in an isolated build environment: that was one more pip process
# installing setuptools into a temporary folder (about 0.6 s of `make venv`'s 11.6 s of CPU).
# tests/test_install_as_user.py checks the pin satisfies `[build-system] requires`.
SETUPTOOLS_PIN := $(shell sed -n 's/^ *"\(setuptools==[^"]*\)",.*$$/\1/p' pyproject.toml)
# pyproject.toml's requires-python floor (3.11): an older python3 is refused before the venv is
# made, saying how to name another, where pip refused it only after upgrading itself (~28 s).
OLDEST_PYTHON := $(shell sed -n 's/^requires-python = ">=\([0-9.]*\)"$$/\1/p' pyproject.toml)

.PHONY: demo test lint typecheck pytest crosshair spec venv clean

$(STAMP): pyproject.toml
	$(if $(SETUPTOOLS_PIN),,$(error pyproject.toml's dev extra pins no setuptools==VERSION))
	$(if $(OLDEST_PYTHON),,$(error pyproject.toml's requires-python names no ">=VERSION"))
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < tuple(map(int, "$(OLDEST_PYTHON)".split("."))))' \
	  || { echo "make: $(PYTHON) is Python $$($(PYTHON) -c 'import platform; print(platform.python_version())'); loopspec needs $(OLDEST_PYTHON) or later: run make again with PYTHON=python3.X naming a newer one" >&2; exit 2; }
	$(PYTHON) -m venv $(VENV)
	$(PIP_INSTALL) --upgrade pip '$(SETUPTOOLS_PIN)'
	$(PIP_INSTALL) --no-build-isolation -e '.[dev]'
	touch $(STAMP)

venv: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/loopspec demo

# harnesses installs the pinned Claude Code and Codex CLIs (npm ci, once per lockfile change);
# saved-harness-reports prints what `run`, `check` and `replay` found in both real loops (RW-1,
# HOOK-3, ...) during pytest, which saved them (make harness-reports runs them afresh).
# Without node or npm on PATH, both say they were skipped and why, pytest skips the tests
# needing them (tests/node_requirements.py), and the last lines say how many and what they
# would have checked: never full coverage. With both, a failing npm ci fails the target.
test: lint typecheck harnesses pytest crosshair saved-harness-reports

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: $(STAMP)
	$(VENV)/bin/mypy

# The real-harness tests save each report they produce in HARNESS_REPORTS_DIR
# (tests/harness_reports.py); a fresh directory per run, so no report is left from an older one.
# `coverage report` prints the coverage table after pytest, whatever pytest's exit: pytest-cov's
# own table analyses every measured file twice, once for a total nothing here reads (pytest --co
# with the table: 5.8 s of CPU that way, 4.9 s this way, start-up of `coverage report` included).
pytest: $(STAMP)
	rm -rf $(HARNESS_REPORTS_DIR)
	LOOPSPEC_HARNESS_REPORTS=$(abspath $(HARNESS_REPORTS_DIR)) \
	    $(PY) -m pytest --cov --cov-report=; tests=$$?; \
	    $(PY) -m coverage report && exit $$tests

# CrossHair spends its whole budget on every postcondition of the correct code: 2 s each was about
# 125 s of CPU. Each function now has its own budget (properties/crosshair_gate.py BUDGETS), three
# times the slowest time to kill one of its operator mutants; CROSSHAIR_TIMEOUT=2 is the old run
# (benchmarks/crosshair_mutants.py measures kill times and a budget against another).
crosshair: $(STAMP)
	$(PY) -m loopspec.properties.crosshair_gate

spec: $(STAMP)
	$(VENV)/bin/loopspec spec --write SPEC.md

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .hypothesis .coverage $(PYCACHE_DIR)

# The real Claude Code and Codex CLIs (pinned in examples/*-adapter/package-lock.json, about
# 400 MB each) for `loopspec run --harness` and tests/test_real_harnesses.py.
.PHONY: harnesses test-harnesses harness-reports saved-harness-reports
# npm ci runs again only when a lockfile changed (npm writes node_modules/.package-lock.json).
# Claude Code's postinstall copies its native executable over bin/claude.exe's placeholder:
# package.json's allowScripts names it (npm 11.19 warned without it; npm's docs say install
# scripts it does not name are blocked).
CLAUDE_CODE_INSTALLED := examples/claude-code-adapter/node_modules/.package-lock.json
CODEX_INSTALLED := examples/codex-adapter/node_modules/.package-lock.json
harnesses: $(CLAUDE_CODE_INSTALLED) $(CODEX_INSTALLED)

# npm runs under node: where either is missing nothing can install a CLI, so the recipe says
# so and succeeds (pytest then skips the CLI's tests, saying why), leaving no installed marker.
NO_NODE = $$(for p in node npm; do command -v $$p >/dev/null || printf ' %s' $$p; done)
define npm_ci
@missing="$(NO_NODE)"; if test -n "$$missing"; then \
  echo "harnesses: skipped $(2): npm ci cannot install it in $(1) (not on PATH:$$missing);" \
    "install Node.js 20 or later with npm (https://nodejs.org), then run make harnesses"; \
else echo "cd $(1) && npm ci --no-audit --no-fund"; cd $(1) && npm ci --no-audit --no-fund; fi
endef

$(CLAUDE_CODE_INSTALLED): examples/claude-code-adapter/package-lock.json
	$(call npm_ci,examples/claude-code-adapter,the real Claude Code CLI)

$(CODEX_INSTALLED): examples/codex-adapter/package-lock.json
	$(call npm_ci,examples/codex-adapter,the real Codex CLI)

# Runs the scripted scenarios on both real loops and prints every report (exit 1 from `run` and
# `check` means a divergence was found, which is what these scenarios show); 2 fails the target.
HARNESS_SCENARIOS := examples/claude-code-adapter/scenarios
# scenario:hooks pairs, the same as tests/test_real_harnesses.py plays; conform cases replayed.
HARNESS_RUNS := one-call:rewrite one-call:two-rewrites one-call:deny \
    one-call:rewrite-then-passthrough two-calls:no-hooks two-turns:rewrite \
    crash-resume:no-hooks abort-resume:no-hooks
HARNESS_REPLAYS := RW-1 HOOK-3
HARNESS_REPORTS_DIR := build/harness-reports
# HYPOTHESIS_PROFILE=thorough make test-harnesses plays 25 random programs per loop (~10 min)
# and replays every conform case of tests/regressions/{claude-code,codex}-*.json (~2 min).
test-harnesses: $(STAMP) harnesses
	$(PY) -m pytest tests/test_real_harnesses.py tests/test_real_harness_programs.py \
	    tests/test_real_harness_conform.py
	$(MAKE) harness-reports

# Only the scenario reports (make test runs these after pytest, which already ran both files).
harness-reports: $(STAMP) harnesses
	@out=$$(mktemp -d); for h in claude-code codex; do \
	  for s in $(HARNESS_RUNS); do \
	    log=$$out/$$h-$${s%%:*}-$${s##*:}.jsonl; \
	    echo "=== loopspec run $${s%%:*}.json --harness $$h --hooks $${s##*:}.json"; \
	    $(VENV)/bin/loopspec run $(HARNESS_SCENARIOS)/$${s%%:*}.json --harness $$h \
	      --hooks $(HARNESS_SCENARIOS)/$${s##*:}.json --log $$log; \
	    test $$? -le 1 || exit 1; \
	    echo "=== loopspec check (the log $$h wrote)"; \
	    $(VENV)/bin/loopspec check $$log | grep -v 'not checkable'; \
	  done; \
	  for r in $(HARNESS_REPLAYS); do \
	    echo "=== loopspec replay tests/regressions/$$h-$$r.json (conform's case, profile $$h)"; \
	    $(VENV)/bin/loopspec replay tests/regressions/$$h-$$r.json \
	      --cmd examples/$$h-adapter/run.sh || exit 1; \
	  done; \
	done; rm -rf $$out

# The same reports as harness-reports, printed from what pytest's real-harness tests saved (no
# real CLI runs again). A missing report fails the target: it never prints nothing. A CLI whose
# tests pytest skipped for want of node or npm left <harness>.skipped.txt instead, and the run
# its summary of every such skip, printed last (tests/node_requirements.py).
saved-harness-reports:
	@d=$(HARNESS_REPORTS_DIR); \
	show() { test -s "$$1" || { echo "saved-harness-reports: $$1 is missing: pytest's real-harness tests did not save it (make pytest saves them; make harness-reports runs them afresh)" >&2; exit 1; }; cat "$$1"; }; \
	echo "=== reports saved by pytest's real-harness tests in $$d"; \
	for h in claude-code codex; do \
	  if test -f $$d/$$h.skipped.txt; then \
	    echo "saved-harness-reports: skipped $$h: pytest skipped its tests: $$(cat $$d/$$h.skipped.txt)"; \
	    continue; \
	  fi; \
	  for s in $(HARNESS_RUNS); do \
	    base=$$d/$$h-$${s%%:*}-$${s##*:}; \
	    echo "=== loopspec run $${s%%:*}.json --harness $$h --hooks $${s##*:}.json"; \
	    show $$base.run.txt || exit 1; \
	    echo "=== loopspec check (the log $$h wrote)"; \
	    show $$base.check.txt || exit 1; \
	  done; \
	  for r in $(HARNESS_REPLAYS); do \
	    echo "=== loopspec replay tests/regressions/$$h-$$r.json (conform's case, profile $$h)"; \
	    show $$d/$$h-$$r.replay.txt || exit 1; \
	  done; \
	done; \
	if test -f $$d/skipped-for-want-of-node.txt; then \
	  echo "=== tests pytest skipped for want of Node.js/npm"; cat $$d/skipped-for-want-of-node.txt; \
	fi
