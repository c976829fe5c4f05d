# CI for an instructor's fork (issue 25). Included by the Makefile (`include delivery/ci.mk`, after delivery/integration.mk:
# it uses `timed`, PY, PYTHON and TEST_STAMP).
#   make lint-workflows  actionlint over every .github/workflows/*.yml
#   make test-loose      what loose-ranges.yml does every week: a fresh build/loose-venv with the loose ranges
#                        of pyproject.toml (`pip install -e .[lessons]`, as Colab and Binder resolve them)
#                        instead of the pins, then lesson 01 with nbval (outputs not compared; errors fail).
#                        Not part of `make test` (a fresh install: several minutes).
#   make test-lowest     what lowest-versions.yml does every week: a fresh build/lowest-venv with the LOWEST
#                        version each lower bound of pyproject.toml allows (dependencies and the `lessons`
#                        extra, each `>=X` installed as `==X`; what pip does with them is left to it: the
#                        newest of everything else), then every lesson with nbval (outputs not compared;
#                        errors fail). A lower bound that no longer runs the lessons fails here.
#                        Not part of `make test` (a fresh install plus nine lessons: 261 s here on 2026-12-05).

.PHONY: lint-workflows test-loose test-lowest

lint-workflows: $(TEST_STAMP)
	$(VENV)/bin/actionlint .github/workflows/*.yml

LOOSE_VENV   := build/loose-venv
LOOSE_PY     := $(LOOSE_VENV)/bin/python
# Here torch 2.13.0 comes from this machine's CPU wheel; the workflow takes the newest CPU torch from the
# CPU index (LOOSE_TORCH=torch LOOSE_TORCH_INDEX="--index-url https://download.pytorch.org/whl/cpu"). Either
# way torch comes first, so that pyproject's `torch>=2.5` does not pull the CUDA build.
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

LOWEST_VENV := build/lowest-venv
LOWEST_PY   := $(LOWEST_VENV)/bin/python
# Verified 2026-12-05 (Python 3.11; every lesson with nbval-lax, and tests/shared + tests/lesson01, pass):
# torch 2.5.0, numpy 1.26.0, matplotlib 3.8.0, ipywidgets 7.7.0, transformers 5.14.0, safetensors 0.8.0,
# scikit-learn 1.4.0, scipy 1.11.1, with the newest tokenizers/huggingface_hub transformers allows. The bounds
# before (torch 2.4, transformers 4.45, safetensors 0.4, scipy 1.11) failed: safetensors 0.4.0 does not
# install beside transformers 4.45 (which needs 0.4.1); lesson 07 passes `mean_resizing` (transformers 4.46)
# and lesson 02 reads GPT-NeoX's `lm_head` (`embed_out` up to 5.13); transformers 5.14 imports `DTensor` from
# torch.distributed.tensor (torch 2.5) and needs safetensors 0.8; scipy 1.11.0 is yanked.
# torch's Linux wheel on PyPI is the CUDA build, which does not even import without its nvidia-* wheels
# (libcudart.so.12): here they come along (about 2.5 GB); the workflow takes the +cpu build from PyTorch's CPU
# index instead (LOWEST_TORCH_INDEX="--index-url https://download.pytorch.org/whl/cpu"). torch comes first,
# alone, so that the second install keeps it.
LOWEST_TORCH_INDEX ?=
LOWEST_LESSONS     ?= $$($(LOWEST_PY) -m tools.course)  # every lesson course.toml names
# `name>=X` (`,<Y` dropped) -> `name==X` for every requirement of [project] and its `lessons` extra.
LOWEST_PINS = $$($(LOWEST_PY) -c "import tomllib; p = tomllib.load(open('pyproject.toml', 'rb'))['project']; \
	print(' '.join(r.split('>=')[0] + '==' + r.split('>=')[1].split(',')[0] \
	for r in p['dependencies'] + p['optional-dependencies']['lessons']))")

test-lowest: | python-check
	$(call timed,make test-lowest,rm -rf $(LOWEST_VENV) && $(PYTHON) -m venv $(LOWEST_VENV) \
		&& $(LOWEST_PY) -m pip install --quiet --upgrade pip \
		&& pins="$(LOWEST_PINS)" && echo "lowest direct versions: $$pins" \
		&& $(LOWEST_PY) -m pip install --quiet $(LOWEST_TORCH_INDEX) $$(printf '%s\n' $$pins | grep '^torch==') \
		&& $(LOWEST_PY) -m pip install --quiet -e ".[lessons]" $$pins $(LOOSE_TOOLS) \
		&& mkdir -p build && $(LOWEST_PY) -m pip freeze --exclude-editable > build/lowest-freeze.txt \
		&& echo "installed:" $$(grep -iE '^(torch|numpy|matplotlib|ipywidgets|transformers|safetensors|scikit-learn|scipy)==' build/lowest-freeze.txt) \
		&& $(LOWEST_PY) -m pytest -q -p no:cacheprovider --nbval-lax --nbval-current-env --nbval-cell-timeout 300 \
			$(LOWEST_LESSONS))
