# CI for an instructor's fork (issue 25). Included by the Makefile (`include ci.mk`, after integration.mk:
# it uses `timed`, PY, PYTHON and TEST_STAMP).
#   make lint-workflows  actionlint over .github/workflows/*.yml (lessons, integration, loose-ranges)
#   make test-loose      what loose-ranges.yml does every week: a fresh build/loose-venv with the loose ranges
#                        of pyproject.toml (`pip install -e .[lessons]`, as Colab and Binder resolve them)
#                        instead of the pins, then lesson 01 with nbval (outputs not compared; errors fail).
#                        Not part of `make test` (a fresh install: several minutes).

.PHONY: lint-workflows test-loose

lint-workflows: $(TEST_STAMP)
	$(VENV)/bin/actionlint .github/workflows/*.yml

LOOSE_VENV   := build/loose-venv
LOOSE_PY     := $(LOOSE_VENV)/bin/python
# Here torch 2.13.0 comes from this machine's CPU wheel; the workflow takes the newest CPU torch from the
# CPU index (LOOSE_TORCH=torch LOOSE_TORCH_INDEX="--index-url https://download.pytorch.org/whl/cpu"). Either
# way torch comes first, so that pyproject's `torch>=2.4` does not pull the CUDA build.
LOOSE_TORCH       ?= torch==2.13.0
LOOSE_TORCH_INDEX ?=
LOOSE_LESSON      ?= notebooks/01_embedding_lookup.ipynb
# The test tools at the versions requirements-test.txt pins (without its constraints file).
LOOSE_TOOLS = $$(grep -E '^(pytest|pytest-timeout|nbval)==' requirements-test.txt | cut -d' ' -f1)

test-loose: | python-check
	$(call timed,make test-loose,rm -rf $(LOOSE_VENV) && $(PYTHON) -m venv $(LOOSE_VENV) \
		&& $(LOOSE_PY) -m pip install --quiet --upgrade pip \
		&& $(LOOSE_PY) -m pip install --quiet $(LOOSE_TORCH_INDEX) "$(LOOSE_TORCH)" \
		&& $(LOOSE_PY) -m pip install --quiet -e ".[lessons]" $(LOOSE_TOOLS) \
		&& mkdir -p build && $(LOOSE_PY) -m pip freeze --exclude-editable > build/loose-freeze.txt \
		&& echo "loose ranges resolved: $$(grep -icE '^(torch|numpy|matplotlib|ipywidgets|transformers|scipy|scikit-learn)==' build/loose-freeze.txt) lesson packages;" \
			$$(grep -iE '^(torch|numpy|matplotlib|ipywidgets|transformers)==' build/loose-freeze.txt) \
		&& $(LOOSE_PY) -m pytest -q -p no:cacheprovider --nbval-lax --nbval-current-env --nbval-cell-timeout 300 \
			$(LOOSE_LESSON))
