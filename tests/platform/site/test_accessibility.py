"""axe-core on the indexes (the lesson pages get it in test_site.py, on the same load)."""

from __future__ import annotations

import pytest

from .axe import assert_accessible
from .conftest import INDEXES, SITE, open_page, page_id

pytestmark = [pytest.mark.site,
              pytest.mark.skipif(not (SITE / "index.html").exists(), reason=f"no site in {SITE}: run `make site`")]


@pytest.mark.parametrize("index", INDEXES, ids=page_id)
def test_index_passes_axe(page, server, index):
    open_page(page, server, index)
    assert_accessible(page, index)

