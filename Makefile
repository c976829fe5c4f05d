# lmtie_edu — two commands do all the set-up:
#   make lab    create/refresh .venv, install, open JupyterLab on notebooks/
#   make test   create/refresh .venv, install with test tools, run the whole suite
# A second run reinstalls nothing: .venv is rebuilt only when a requirements file changes.

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PORT   ?= 8888
JOBS   ?= 2
# The exact pins need Python 3.11+ (numpy 2.4) and have wheels up to 3.14 (pyproject.toml's requires-python).
SUPPORTED_PYTHON := 3.11–3.14
PY_OK := import sys; sys.exit(not (3, 11) <= sys.version_info[:2] <= (3, 14))
# Matplotlib's cache lives in build/ (writable even when .venv is not) and is filled at install time,
# so no lesson prints "building the font cache" on its first run.
export MPLCONFIGDIR := $(abspath build/matplotlib)
export PYDEVD_DISABLE_FILE_VALIDATION := 1

# Strict nbval: every output of every cell is compared unless the cell is tagged
# nbval-ignore-output; the kernel is the venv's own interpreter; no cell may run past 120 s (a hang guard).
NBVAL    := --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg --nbval-cell-timeout 120
# Notebooks run single-threaded: execute JOBS of them at once, each notebook's cells on one worker.
PARALLEL := -n $(JOBS) --dist loadscope
# Another CPU, imitated on this one: torch's portable kernels, and MKL's conditional-reproducibility code
# path (it sums in another order than the native AVX2/AVX-512 path). An output that depends on the
# instruction set fails here before it fails on a course's runner.
OTHER_CPU := ATEN_CPU_CAPABILITY=default MKL_CBWR=COMPATIBLE

LAB_STAMP  := $(VENV)/.lab-installed
TEST_STAMP := $(VENV)/.test-installed

.PHONY: lab test test-lessons test-unit solutions-check test-nbval test-integration test-fast test-browser lint \
	notebooks solutions bench bench-browser clean-venv help python-check

help:
	@echo "make lab           install (first time) and open JupyterLab on the lessons"
	@echo "make test          install (first time), then the lesson suite (lint, unit tests, strict nbval over every"
	@echo "                   lesson, solved, on another CPU's kernels) and the integration suites"
	@echo "make test-lessons  the lesson suite alone"
	@echo "make test-zh-lessons  strict nbval over the Chinese lessons (notebooks/zh_CN, their own outputs)"
	@echo "make test-fast     unit tests only"
	@echo "make test-browser  every lesson in JupyterLab in Chromium: widgets render, toggles redraw, a question answered"
	@echo "make notebooks     re-execute every notebook in place (refresh stored outputs + widget state)"
	@echo "make solutions     build instructor notebooks with the exercise solutions in build/solutions/"
	@echo "make bench         time notebooks and widget redraws against their budgets"
	@echo "make site          render every lesson and an index page into build/site/ (read-only web pages)"
	@echo "make test-site     build the site with its PDFs, open every page in Chromium, check every PDF"
	@echo "make test-colab    run every lesson in a Colab-like venv (ipywidgets 7, ipykernel 6) with its set-up cell"
	@echo "make test-binder   show what Binder's repo2docker builds from binder/ (Python, CPU torch)"
	@echo "make zh            update translations/zh_CN/*.po from the English lessons, build notebooks/zh_CN/ (中文版)"
	@echo "make nbgrader      write an nbgrader course for graded labs into build/nbgrader/"
	@echo "make test-nbgrader nbgrader + the grading step on every lesson: solutions 100 %, untouched stubs 0 %"
	@echo "make test-hub      a real JupyterHub on 127.0.0.1 with 5 simulated students (nbgitpuller, isolation)"
	@echo "make bench-browser click -> new figure in Chromium, each lesson alone -> build/browser-alone-timings.json"
	@echo "make bench-hub     class-scale benchmark: N = 1, 5, 10, 20 students -> build/hub-bench.json"
	@echo "make release-check build + twine-check the wheel and sdist, install the wheel in a fresh venv, run lesson 01"
	@echo "make test-release  the same, reusing that venv while its pins are unchanged (part of make test)"
	@echo "make test-install  resolve the install from PyPI alone (no local pip settings): CPU torch, no nvidia-*"
	@echo "make release-stamp REF=v0.2.0   stamp the Colab cell, badges and links with a release tag (REF=main: back)"
	@echo "make test-binder-env  build Binder's environment in build/binder-env, then pip check (minutes the first time)"
	@echo "make lint-workflows   actionlint over .github/workflows/"
	@echo "make test-loose       loose pyproject ranges in a fresh venv, lesson 01 with nbval (~7 min)"
	@echo "make test-lowest      the lowest versions pyproject allows in a fresh venv, every lesson with nbval (~5 min)"

# Refuse an unsupported Python in one line, before pip fails with an unexplained ResolutionImpossible,
# and refuse a .venv that an unsupported Python made earlier.
python-check:
	@if [ -x $(PY) ]; then \
		$(PY) -c "$(PY_OK)" || { \
			echo "$(VENV) was made by $$($(PY) --version 2>&1); lmtie_edu needs Python $(SUPPORTED_PYTHON):"; \
			echo "run 'make clean-venv', then again with PYTHON=python3.12 (or 3.11/3.13/3.14)"; \
			exit 1; }; \
	else \
		$(PYTHON) -c "$(PY_OK)" 2>/dev/null || { \
			echo "lmtie_edu needs Python $(SUPPORTED_PYTHON); '$(PYTHON)' is $$($(PYTHON) --version 2>/dev/null || echo 'not found'):"; \
			echo "run again with PYTHON=python3.12 (or 3.11/3.13/3.14)"; \
			exit 1; }; \
	fi

$(PY): | python-check platform-check
	$(PYTHON) -m venv $(VENV)

$(LAB_STAMP): requirements-torch-cpu.txt requirements.txt constraints.txt pyproject.toml | $(PY) python-check platform-check
	$(PY) -m tools.course_env install --venv $(VENV)  # torch's CPU build first, the pins, a lean quiet lab: see there
	touch $@

$(TEST_STAMP): $(LAB_STAMP) requirements-test.txt | python-check
	$(PY) -m pip install --quiet -r requirements-test.txt
	$(PY) -m delivery.lean_server >/dev/null  # notebook 7 (the browser test's) brings rfc3987-syntax back
	touch $@

# Matplotlib builds its font cache on first use and says so on stderr: do it here, not in a lesson.
MPL_READY := build/matplotlib/.ready
$(MPL_READY): $(LAB_STAMP)
	@mkdir -p $(dir $@)
	$(PY) -c "import matplotlib.pyplot" && touch $@

lab: $(LAB_STAMP) $(MPL_READY)
	@$(PY) -m delivery.quiet_lab >/dev/null  # no "Jupyter news?" prompt, no update check (settings in the venv)
	@echo "Starting JupyterLab; open the URL with the token printed below."
	$(VENV)/bin/jupyter lab --notebook-dir=notebooks --port=$(PORT) --no-browser --ServerApp.port_retries=50 \
		$(if $(filter 0,$(shell id -u)),--allow-root,)

lint: $(TEST_STAMP)
	$(VENV)/bin/ruff check lmtie_edu tests tools delivery notebooks

# The whole suite: the lesson suite, then the Chinese lessons and the integration suites (each prints its time)
# in two lanes side by side.
test: $(TEST_STAMP)
	@start=$$(date +%s); \
	$(MAKE) --no-print-directory test-lessons || exit 1; \
	echo "lesson suite (lint, unit tests, strict nbval over every lesson, solved, on another CPU's kernels):" \
		"$$(( $$(date +%s) - start )) s"
	@start=$$(date +%s); \
	$(MAKE) --no-print-directory -j2 --output-sync=target lane-test-zh-lessons lane-test-nbgrader || exit 1; \
	echo "the Chinese lessons and the integration suites, two lanes side by side: $$(( $$(date +%s) - start )) s"

test-integration: $(TEST_STAMP) $(MPL_READY)
	$(MAKE) --no-print-directory -j2 --output-sync=target lane-test-hub lane-test-nbgrader

# Two lanes: alone, a suite keeps 1 to 1.9 of the 2 cores busy (it waits on pip, a browser, a server or one
# process at a time), so one lane computes while the other waits. Within a lane the suites run one after the
# other (`lane-X: lane-W` = X after W); each suite's output is printed whole when it ends (--output-sync). The
# heavy suites of one lane meet the light ones of the other (the browser test beside the install checks).
lane-test-browser:                  ; @$(MAKE) --no-print-directory test-browser
lane-test-site: lane-test-browser   ; @$(MAKE) --no-print-directory test-site
lane-test-hub: lane-test-site       ; @$(MAKE) --no-print-directory test-hub
lane-test-zh-lessons: lane-test-hub ; @$(MAKE) --no-print-directory test-zh-lessons
lane-test-install:                  ; @$(MAKE) --no-print-directory test-install
lane-test-binder: lane-test-install ; @$(MAKE) --no-print-directory test-binder
lane-test-release: lane-test-binder ; @$(MAKE) --no-print-directory test-release
lane-test-colab: lane-test-release  ; @$(MAKE) --no-print-directory test-colab
lane-test-nbgrader: lane-test-colab ; @$(MAKE) --no-print-directory test-nbgrader
.PHONY: $(addprefix lane-,test-browser test-site test-hub test-zh-lessons test-install test-binder test-release \
	test-colab test-nbgrader)

# The lesson suite. nbval re-executes every lesson with its exercises solved, under another CPU's kernels,
# and compares every output with the stored one: the outputs were written by this CPU's native kernels,
# so a CPU-dependent digit fails here. The unit tests run in the same pytest, on the same two workers.
# PYTHONPATH: the last cell of each solved lesson walks its panels with tools/learner_path.py.
# The lessons come first on the command line, so the longest pieces of work (a notebook is one scope of
# --dist loadscope; lesson 08's takes 1–1.5 min here) start first and the unit tests fill in around them.
test-lessons: lint solutions-check $(MPL_READY)
	env $(OTHER_CPU) PYTHONPATH=$(CURDIR) $(PY) -m pytest -q $(PARALLEL) $(NBVAL) build/solutions-check tests

# The lessons with every exercise filled in by its reference solution, unexecuted (nbval runs them).
solutions-check: $(TEST_STAMP)
	$(PY) -m tools.make_solutions --for-nbval build/solutions-check

# The same check on the lessons as committed (exercises unsolved), e.g. after `make notebooks`.
test-nbval: $(TEST_STAMP) $(MPL_READY)
	env $(OTHER_CPU) $(PY) -m pytest -q $(PARALLEL) $(NBVAL) notebooks

test-unit test-fast: $(TEST_STAMP)
	$(PY) -m pytest -q $(PARALLEL) tests

# The browser test drives JupyterLab in Debian's Chromium (tests/platform/browser): what only a browser shows
# (widgets render, toggles redraw, a question is answered), not the outputs (nbval compares those). Without a
# Chromium it skips with a loud reason, or fails when LMTIE_REQUIRE_BROWSER is set (.ci/run sets it and
# installs Chromium first; locally: delivery/install-chromium.sh). Screenshots land in
# tests/platform/browser/screenshots/.
test-browser: $(TEST_STAMP) $(MPL_READY)
	$(call timed,make test-browser,$(PY) -m pytest -q -rs -m browser tests/platform/browser)

notebooks: $(TEST_STAMP) $(MPL_READY)
	$(PY) -m tools.execute_notebooks $$($(PY) -m tools.course)

solutions: $(TEST_STAMP) $(MPL_READY)
	$(PY) -m tools.make_solutions --jobs $(JOBS)

bench: $(TEST_STAMP)
	$(PY) -m tools.bench

# Click -> new figure in Chromium, each lesson alone (nothing running ahead), 11 clicks per lesson; the
# medians go to build/browser-alone-timings.json and the terminal, beside the 300 ms aim.
bench-browser: $(TEST_STAMP) $(MPL_READY)
	LMTIE_BROWSER_ALONE=1 $(PY) -m pytest -q -rs -m browser tests/platform/browser/test_jupyterlab.py

clean-venv:
	rm -rf $(VENV)

include delivery/integration.mk
include delivery/release.mk
include delivery/ci.mk
include delivery/hub.mk
include zh.mk
