# lmtie_edu — two commands do all the set-up:
#   make lab    create/refresh .venv, install, open JupyterLab on notebooks/
#   make test   create/refresh .venv, install with test tools, run the whole suite
# A second run reinstalls nothing: .venv is rebuilt only when a requirements file changes.

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PORT   ?= 8888
# Notebooks are re-executed in a fresh kernel of this venv; matplotlib's cache goes inside it.
export MPLCONFIGDIR := $(abspath $(VENV))/mplconfig
export PYDEVD_DISABLE_FILE_VALIDATION := 1

# Strict nbval: every output of every cell is compared unless the cell is tagged
# nbval-ignore-output; the kernel is the venv's own interpreter; no cell may run past 120 s.
NBVAL  := --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg --nbval-cell-timeout 120

LAB_STAMP  := $(VENV)/.lab-installed
TEST_STAMP := $(VENV)/.test-installed

.PHONY: lab test test-fast test-browser lint notebooks solutions bench clean-venv help

help:
	@echo "make lab           install (first time) and open JupyterLab on the lessons"
	@echo "make test          install (first time) and run lint, unit tests, strict nbval, solutions and the browser test"
	@echo "make test-fast     unit tests only"
	@echo "make notebooks     re-execute every notebook in place (refresh stored outputs + widget state)"
	@echo "make solutions     build instructor notebooks with the exercise solutions in build/solutions/"
	@echo "make bench         time notebooks and widget redraws against their budgets"

$(PY):
	$(PYTHON) -m venv $(VENV)

$(LAB_STAMP): requirements.txt constraints.txt pyproject.toml | $(PY)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	touch $@

$(TEST_STAMP): $(LAB_STAMP) requirements-test.txt
	$(PY) -m pip install --quiet -r requirements-test.txt
	touch $@

lab: $(LAB_STAMP)
	@echo "Starting JupyterLab; open the URL with the token printed below."
	$(VENV)/bin/jupyter lab --notebook-dir=notebooks --port=$(PORT) --no-browser --ServerApp.port_retries=50 \
		$(if $(filter 0,$(shell id -u)),--allow-root,)

lint: $(TEST_STAMP)
	$(VENV)/bin/ruff check lmtie_edu tests tools notebooks

test: $(TEST_STAMP) lint
	$(PY) -m pytest -q $(NBVAL) tests notebooks
	$(MAKE) --no-print-directory solutions
	$(MAKE) --no-print-directory test-browser

test-fast: $(TEST_STAMP)
	$(PY) -m pytest -q tests

# The browser test drives JupyterLab in Debian's Chromium (tests/browser). Without a Chromium it skips
# with a loud reason, or fails when LMTIE_REQUIRE_BROWSER is set (.ci/run sets it and installs Chromium
# first; locally: tools/install-chromium.sh). Screenshots for review land in tests/browser/screenshots/.
test-browser: $(TEST_STAMP)
	$(PY) -m pytest -q -rs -m browser tests/browser

notebooks: $(TEST_STAMP)
	$(PY) tools/execute_notebooks.py notebooks/[0-9]*.ipynb

solutions: $(TEST_STAMP)
	$(PY) tools/make_solutions.py

bench: $(TEST_STAMP)
	$(PY) -m lmtie_edu.bench

clean-venv:
	rm -rf $(VENV)
