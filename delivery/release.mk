# Releases for a term (issue 25). Included by the Makefile after delivery/integration.mk (uses PY, TEST_STAMP, timed).
#   make platform-check  refuse an Intel Mac in one line (no torch 2.13 wheel for macOS x86-64)
#   make release-check   build the wheel + sdist, twine check, install the wheel into a fresh venv, run lesson 01
#   make test-release    the same for make test: the wheel's venv is kept while its dependencies and pins are
#                        unchanged (only the wheel is reinstalled); the first run makes it (a few minutes)
#   make release-stamp REF=v0.2.0   stamp the lessons' Colab cell and badges with a tag (REF=main: back)
#   make release-links HUB=https://hub.example.org [REF=v0.2.0]   print each lesson's nbgitpuller link

.PHONY: platform-check release-check test-release test-install release-stamp release-links

# PyPI's newest torch for macOS x86-64 is 2.2.2; the pins need 2.13.0, so pip would fail with an unexplained
# "No matching distribution". (An Apple-silicon Mac under Rosetta reports x86_64 too: run a native shell.)
platform-check:
	@if [ "$$(uname -s)" = Darwin ] && [ "$$(uname -m)" = x86_64 ]; then \
		echo "lmtie_edu cannot install on an Intel Mac (torch 2.13 has no macOS x86-64 wheel):" \
			"use Colab, Binder or a Linux VM (README, 'Where to run it')"; \
		exit 1; \
	fi

# build and twine in their own venv over .venv (delivery/layered_venv.py): the learners' environment gets neither.
RELEASE_VENV  := build/release-venv
RELEASE_STAMP := $(RELEASE_VENV)/.installed
$(RELEASE_STAMP): requirements-release.txt constraints.txt $(TEST_STAMP)
	$(call layered_venv,$(RELEASE_VENV),requirements-release.txt)

release-check: $(RELEASE_STAMP)
	$(call timed,make release-check,$(PY) -m delivery.release_check --python $(RELEASE_VENV)/bin/python)

test-release: $(RELEASE_STAMP)
	$(call timed,make test-release,$(PY) -m delivery.release_check --python $(RELEASE_VENV)/bin/python --reuse)

REF ?= main
release-stamp: $(TEST_STAMP)
	$(PY) -m delivery.colab --ref $(REF)

release-links: $(TEST_STAMP)
	@test -n "$(HUB)" || { echo "usage: make release-links HUB=https://your.hub [REF=v0.2.0]"; exit 1; }
	@$(PY) -m delivery.colab --ref $(REF) --links $(HUB)

# The install as a laptop resolves it (delivery/install_check.py): PyPI alone, PyTorch's CPU index stood in for by
# the CPU wheel on this disk; torch's CPU build chosen and kept, no nvidia-* package. Needs PyPI (about 2 min).
test-install: $(TEST_STAMP)
	$(call timed,make test-install,$(PY) -m delivery.install_check)
