# Where else the lessons run (issue 15): the static site, Colab, Binder. Included by the Makefile
# (`include integration.mk`, after TEST_STAMP and PY are defined). Each target prints its elapsed seconds.
#   make site         render every lesson (as committed) + an index into build/site/
#   make test-site    build the site, then open it in Chromium (tests/site)
#   make test-colab   lessons stamped for Colab? then every lesson run in a Colab-like venv (build/colab-venv)
#   make test-binder  what Binder's repo2docker will build from binder/ (its own detection + Dockerfile)

.PHONY: site test-site test-colab test-binder

# `$(call timed,NAME,COMMANDS)`: run the commands, then say how long they took; keep their exit code.
define timed
	@start=$$(date +%s); ( $(2) ); code=$$?; \
	echo "$(1): $$(( $$(date +%s) - start )) s"; exit $$code
endef

site: $(TEST_STAMP)
	$(call timed,make site,$(PY) tools/make_site.py)

test-site: $(TEST_STAMP)
	$(call timed,make test-site,$(PY) tools/make_site.py && $(PY) -m pytest -q -rs -m site tests/site)

# The first run makes build/colab-venv (Colab's ipywidgets 7.7.1 / ipykernel 6.17 / IPython 7.34 and this
# machine's torch 2.13.0 CPU wheel) and installs the lesson extras into it: several minutes; later runs reuse it.
COLAB_FLAGS ?=
test-colab: $(TEST_STAMP)
	$(call timed,make test-colab,$(PY) tools/colab.py --check && $(PY) tools/colab_env_check.py $(COLAB_FLAGS))

test-binder: $(TEST_STAMP)
	$(call timed,make test-binder,$(PY) tools/binder_check.py)
