# The Chinese edition, 中文版 (issue 17). Included by the Makefile (`include zh.mk`, after PY and LAB_STAMP).
#   make zh        update translations/zh_CN/*.po from the English lessons (changed cells become fuzzy, new
#                  cells untranslated entries), then build notebooks/zh_CN/*.ipynb from them. The build
#                  refuses, naming lesson and cell, while a markdown cell is untranslated or fuzzy.
#   make zh-check  change nothing: fail if a translation is missing or stale, or a built lesson is out of date
#                  (tests/course/test_translations.py checks the same in `make test`).
# Babel (gettext catalogues) and nbformat come with JupyterLab, so the lesson install is enough.

.PHONY: zh zh-check

zh: $(LAB_STAMP)
	$(PY) -m tools.zh extract
	$(PY) -m tools.zh build

zh-check: $(LAB_STAMP)
	$(PY) -m tools.zh check
