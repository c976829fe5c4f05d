"""axe-core on the indexes (the lesson pages get it in test_site.py, on the same load); the premise of
leaving the Chinese pages' code cells out of their axe run (tests/platform/site/axe.py)."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from .axe import CODE, assert_accessible
from .conftest import INDEXES, LESSONS, SITE, open_page, page_id

pytestmark = [pytest.mark.site,
              pytest.mark.skipif(not (SITE / "index.html").exists(), reason=f"no site in {SITE}: run `make site`")]


@pytest.mark.parametrize("index", INDEXES, ids=page_id)
def test_index_passes_axe(page, server, index):
    open_page(page, server, index)
    assert_accessible(page, index)


def code_cells(path) -> list[str]:
    return [str(cell) for cell in BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser").select(CODE)]


@pytest.mark.parametrize("lesson", [p for p in LESSONS if p.parent.name == "zh_CN"], ids=page_id)
def test_chinese_code_cells_are_the_english_ones(lesson):
    chinese, english = code_cells(lesson), code_cells(SITE / lesson.name)
    assert chinese and chinese == english, f"{lesson.name}: the code cells differ between the editions"
