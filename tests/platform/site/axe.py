"""axe-core (npm, pinned in delivery/integration.mk, installed in build/site-node/) run on a page open in Chromium.

Rules: WCAG 2.0/2.1/2.2 A and AA, and axe's best practices (landmarks, heading order, ...). A page fails on
any violation whose rule is not in KNOWN, the findings left on purpose, each with its reason (none today:
every page passes every rule). What was found and fixed in the generated HTML/CSS: delivery/site/page.py
(SITE_CSS: prompt and code colours, underlined links; lang, a navigation landmark) and delivery/site/widgets.py
(accessible names of the stored controls).

Chinese pages are checked in full too: their code cells carry Chinese comments and printed text.
"""

from __future__ import annotations

from .conftest import AXE, page_id

TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]
RUN = """([tags]) => axe.run(document,
    {runOnly: {type: 'tag', values: tags}, resultTypes: ['violations']})"""
# rule id -> why it is left as it is.
KNOWN: dict[str, str] = {}


def describe(violation: dict) -> str:
    node = violation["nodes"][0]
    return (f"{violation['id']} ({violation['impact']}, {len(violation['nodes'])} element(s)): {violation['help']}; "
            f"e.g. {node['target']} {node['html'][:120]!r}: {node['failureSummary'][:300]}")


def assert_accessible(page, path) -> None:
    """Inject axe-core into the loaded ``page`` (the site's ``path``) and fail on any new violation."""
    assert AXE.exists(), f"{AXE} missing: run `make site` (it installs axe-core from npm)"
    page.add_script_tag(path=str(AXE))
    result = page.evaluate(RUN, [TAGS])
    assert len(result["passes"]) >= 10, f"axe ran {len(result['passes'])} passing rules only: did it run?"
    new = [describe(v) for v in result["violations"] if v["id"] not in KNOWN]
    assert not new, f"{page_id(path)}: {len(new)} accessibility violation(s):\n" + "\n".join(new)
