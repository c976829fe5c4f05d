# Where else the lessons run (issue 15): the static site, Colab, Binder. Included by the Makefile
# (`include integration.mk`, after TEST_STAMP and PY are defined). Each target prints its elapsed seconds.
#   make site         render every lesson (as committed) + an index into build/site/
#   make test-site    build the site, then open it in Chromium (tests/site)
#   make test-colab   lessons stamped for Colab? then every lesson run in a Colab-like venv (build/colab-venv)
#   make test-binder  what Binder's repo2docker will build from binder/ (its own detection + Dockerfile)
#   make nbgrader     write an nbgrader course (build/nbgrader/source/lessonNN/) for graded labs
#   make test-nbgrader  nbgrader itself autogrades every lesson: solutions full marks, untouched stubs zero

.PHONY: site test-site test-colab test-binder nbgrader test-nbgrader

# `$(call timed,NAME,COMMANDS)`: run the commands, then say how long they took; keep their exit code.
define timed
	@start=$$(date +%s); ( $(2) ); code=$$?; \
	echo "$(1): $$(( $$(date +%s) - start )) s"; exit $$code
endef

site: $(TEST_STAMP)
	$(call timed,make site,$(PY) -m tools.make_site)

test-site: $(TEST_STAMP)
	$(call timed,make test-site,$(PY) -m tools.make_site && $(PY) -m pytest -q -rs -m site tests/platform/site)

# The first run makes build/colab-venv (Colab's ipywidgets 7.7.1 / ipykernel 6.17 / IPython 7.34 and this
# machine's torch 2.13.0 CPU wheel) and installs the lesson extras into it: several minutes; later runs reuse it.
COLAB_FLAGS ?=
test-colab: $(TEST_STAMP)
	$(call timed,make test-colab,$(PY) -m tools.colab --check && $(PY) -m tools.colab_env_check $(COLAB_FLAGS))

test-binder: $(TEST_STAMP)
	$(call timed,make test-binder,$(PY) -m tools.binder_check)

# nbgrader lives in its own venv over .venv (tools/layered_venv.py): the learners' JupyterLab gets no grading menus.
NBGRADER_VENV  := build/nbgrader-venv
NBGRADER_STAMP := $(NBGRADER_VENV)/.installed
$(NBGRADER_STAMP): requirements-nbgrader.txt constraints.txt $(TEST_STAMP)
	$(PY) -m tools.layered_venv $(NBGRADER_VENV)
	$(NBGRADER_VENV)/bin/python -m pip install --quiet -r requirements-nbgrader.txt
	touch $@

nbgrader: $(TEST_STAMP)
	$(PY) -m tools.graded_labs build

test-nbgrader: $(NBGRADER_STAMP) $(MPL_READY)
	$(call timed,make test-nbgrader,$(NBGRADER_VENV)/bin/python -m tools.graded_labs check)
