# Where else the lessons run (issue 15): the static site, Colab, Binder. Included by the Makefile
# (`include delivery/integration.mk`, after TEST_STAMP and PY are defined). Each target prints its elapsed seconds.
#   make site         render every lesson of both editions (as committed) + indexes into build/site/, MathJax
#                     and axe-core from npm (exact pins below) in build/site-node/
#   make test-site    build the site with its PDFs, then open every page in Chromium offline, axe-core on each,
#                     and check every PDF (tests/platform/site)
#   make pdf          the site plus build/site/pdf/[zh_CN/]NN_name.pdf (Chromium print-to-PDF), linked from the indexes
#   make test-pdf     make pdf, then check each PDF alone (size, pages, its title in pdftotext's text: poppler-utils)
#   make test-colab   lessons stamped for Colab? then every lesson run in a Colab-like venv (build/colab-venv)
#   make test-binder  what Binder's repo2docker will build from binder/ (`repo2docker --no-build`: its Dockerfile)
#   make test-binder-env  that environment built in build/binder-env, then pip check in it (minutes the first time)
#   make nbgrader     write an nbgrader course (build/nbgrader/source/lessonNN/) for graded labs
#   make test-nbgrader  every lesson released by nbgrader itself and graded (lesson 01 autograded too): solutions
#                       full marks, untouched stubs zero;
#                       and, beside it, lesson 01 through a term (release … export, exchange and LMS zip:
#                       delivery/graded_term.py)

.PHONY: site test-site pdf test-pdf test-colab test-binder test-binder-env nbgrader test-nbgrader

# `$(call timed,NAME,COMMANDS)`: run the commands, then say how long they took; keep their exit code.
define timed
	@start=$$(date +%s); ( $(2) ); code=$$?; \
	echo "$(1): $$(( $$(date +%s) - start )) s"; exit $$code
endef

# The site's JavaScript, from npm at build time (nothing from a CDN when a page is read): MathJax's browser
# bundle and fonts are copied into build/site/mathjax/; axe-core is injected by the accessibility test.
SITE_NODE       := build/site-node
MATHJAX_VERSION := 3.2.2
AXE_VERSION     := 4.14.1
SITE_NODE_STAMP := $(SITE_NODE)/.mathjax-$(MATHJAX_VERSION)-axe-$(AXE_VERSION)
SITE_PYTEST     := $(PY) -m pytest -q -rs -m site

$(SITE_NODE_STAMP):
	@command -v npm >/dev/null || { \
		echo "make site needs Node.js and npm (MathJax, axe-core): apt-get install -y nodejs npm"; exit 1; }
	npm install --prefix $(SITE_NODE) --no-audit --no-fund --save-exact --loglevel=error \
		mathjax@$(MATHJAX_VERSION) axe-core@$(AXE_VERSION)
	touch $@

site: $(TEST_STAMP) $(SITE_NODE_STAMP)
	$(call timed,make site,$(PY) -m delivery.make_site)

# The site as release.yml publishes it (`make pdf`: the pages link their PDFs), and every site test, the PDFs' too.
test-site: $(TEST_STAMP) $(SITE_NODE_STAMP)
	$(call timed,make test-site,$(PY) -m delivery.make_site --pdf && $(SITE_PYTEST) tests/platform/site)

# The Chinese PDFs need a CJK font for Chromium (apt-get install -y fonts-wqy-microhei): refused without one.
pdf: $(TEST_STAMP) $(SITE_NODE_STAMP)
	$(call timed,make pdf,$(PY) -m delivery.make_site --pdf)

test-pdf: $(TEST_STAMP) $(SITE_NODE_STAMP)
	$(call timed,make test-pdf,$(PY) -m delivery.make_site --pdf && $(SITE_PYTEST) tests/platform/site/test_pdf.py)

# The first run makes build/colab-venv (Colab's ipywidgets 7.7.1 / ipykernel 6.17 / IPython 7.34 and this
# machine's torch 2.13.0 CPU wheel) and installs the lesson extras into it: several minutes; later runs reuse it.
COLAB_FLAGS ?=
test-colab: $(TEST_STAMP)
	$(call timed,make test-colab,$(PY) -m delivery.colab --check && $(PY) -m delivery.colab_env_check $(COLAB_FLAGS))

test-binder: $(TEST_STAMP)
	$(call timed,make test-binder,$(PY) -m delivery.binder_check)

# The environment repo2docker would build (its conda lock's Python packages, then binder/requirements.txt)
# in build/binder-env, and pip check in it. The first build takes minutes (the whole course install), so it
# is not in test-integration: the weekly integration workflow runs it; later runs reuse the venv (seconds)
# until the lock or a requirements file changes.
test-binder-env: $(TEST_STAMP)
	$(call timed,make test-binder-env,$(PY) -m delivery.binder_check --env)

# nbgrader lives in its own venv over .venv (delivery/layered_venv.py): the learners' JupyterLab gets no grading menus.
NBGRADER_VENV  := build/nbgrader-venv
NBGRADER_STAMP := $(NBGRADER_VENV)/.installed
# `$(call layered_venv,VENV,REQUIREMENTS)`: a venv over .venv with REQUIREMENTS installed, then the stamp $@.
define layered_venv
	$(PY) -m delivery.layered_venv $(1)
	$(1)/bin/python -m pip install --quiet -r $(2)
	touch $@
endef

$(NBGRADER_STAMP): requirements-nbgrader.txt constraints.txt $(TEST_STAMP)
	$(call layered_venv,$(NBGRADER_VENV),requirements-nbgrader.txt)

nbgrader: $(TEST_STAMP)
	$(PY) -m delivery.graded_labs build

# The term (one lesson, mostly one process at a time) runs beside the per-lesson check; its report follows the check's.
test-nbgrader: $(NBGRADER_STAMP) $(MPL_READY)
	$(call timed,make test-nbgrader,mkdir -p build \
		&& { $(NBGRADER_VENV)/bin/python -m delivery.graded_term > build/nbgrader-term.log 2>&1 & } \
		&& term=$$! && $(NBGRADER_VENV)/bin/python -m delivery.graded_labs check; check=$$?; \
		wait $$term; term=$$?; cat build/nbgrader-term.log; [ $$check -eq 0 ] && [ $$term -eq 0 ])
