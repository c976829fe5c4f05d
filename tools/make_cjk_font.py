"""Write lmtie_edu/shared/fonts/NotoSansSC-lmtie-subset.otf: the Chinese figures' font, shipped in the package.

The package carries its own CJK font so that a Chinese figure has every glyph wherever the course runs
(a laptop, Colab, Binder, the hub image) with nothing installed or downloaded at run time. The font is a
subset of Noto Sans CJK SC Regular (SIL Open Font License 1.1, lmtie_edu/shared/fonts/LICENSE-OFL.txt):
every GB 2312 character (the 6,763 hanzi of everyday simplified Chinese, so a learner's own label renders
too), CJK punctuation, full-width forms, and every character of the Chinese catalogues.

    apt-get install fonts-noto-cjk      # the source font, on the maintainer's machine only
    python -m tools.make_cjk_font       # rewrite the subset (after catalogues gain characters)

tests/shared/test_figure_fonts.py fails when a catalogue uses a character the subset lacks.
"""

from __future__ import annotations

import sys
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTCollection

REPO = Path(__file__).resolve().parents[1]
SOURCE = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")
SOURCE_FAMILY = "Noto Sans CJK SC"
TARGET = REPO / "lmtie_edu" / "shared" / "fonts" / "NotoSansSC-lmtie-subset.otf"
CATALOGUES = REPO / "translations" / "zh_CN"


def gb2312() -> set[str]:
    """Every character GB 2312 encodes (rows 0xA1-0xF7, columns 0xA1-0xFE)."""
    found = set()
    for row in range(0xA1, 0xF8):
        for column in range(0xA1, 0xFF):
            try:
                found.add(bytes([row, column]).decode("gb2312"))
            except UnicodeDecodeError:
                pass
    return found


def wanted_characters() -> set[str]:
    blocks = [range(0x3000, 0x3040), range(0xFF00, 0xFFF0), range(0x2000, 0x2070)]
    found = gb2312() | {chr(code) for block in blocks for code in block}
    for path in CATALOGUES.rglob("*.po"):
        found |= {character for character in path.read_text(encoding="utf-8") if ord(character) > 0x2E7F}
    return found


def main() -> int:
    if not SOURCE.exists():
        print(f"{SOURCE} is missing: apt-get install fonts-noto-cjk", file=sys.stderr)
        return 1
    collection = TTCollection(SOURCE)
    font = next(font for font in collection.fonts if font["name"].getDebugName(1) == SOURCE_FAMILY)
    options = subset.Options()
    options.name_IDs = ["*"]  # keep the copyright and licence names
    options.notdef_outline = True
    options.layout_features = []  # matplotlib does no OpenType shaping: alternates would double the size
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes={ord(character) for character in wanted_characters()})
    subsetter.subset(font)
    TARGET.parent.mkdir(parents=True, exist_ok=True)
    font.save(TARGET)
    print(f"wrote {TARGET.relative_to(REPO)} ({TARGET.stat().st_size / 1e6:.1f} MB, "
          f"{len(font.getGlyphOrder()):,} glyphs)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
