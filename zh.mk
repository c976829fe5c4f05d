# The Chinese edition, 中文版 (issue 17). Included by the Makefile (`include zh.mk`, after PY and LAB_STAMP).
#   make zh        update translations/zh_CN/*.po from the English lessons (changed cells become fuzzy, new
#                  cells untranslated entries), then build notebooks/zh_CN/*.ipynb from them. The build
#                  refuses, naming lesson and cell, while a markdown cell is untranslated or fuzzy.
#   make zh-check  change nothing: fail if a translation is missing or stale, or a built lesson is out of date
#                  (tests/course/test_translations.py checks the same in `make test`).
# Babel (gettext catalogues) and nbformat come with JupyterLab, so the lesson install is enough.

#   make test-zh-lessons  strict nbval over the Chinese lessons as committed (part of `make test`, after the
#                  lesson suite). Their outputs are their own (Chinese check lines, hints, figures), so they are
#                  re-executed and compared like the English ones. They run on this CPU's own kernels: the same
#                  code computes the same numbers as the English lessons, whose run under another CPU's kernels
#                  (OTHER_CPU) is the cross-CPU check of those numbers — done once, not twice (2.2× faster).

.PHONY: zh zh-check test-zh-lessons

zh: $(LAB_STAMP)
	$(PY) -m tools.zh extract
	$(PY) -m tools.zh build

zh-check: $(LAB_STAMP)
	$(PY) -m tools.zh check

test-zh-lessons: $(TEST_STAMP) $(MPL_READY)
	$(call timed,make test-zh-lessons,$(PY) -m pytest -q $(PARALLEL) $(NBVAL) $$($(PY) -m tools.course --chinese))
