"""The data files shipped in lmtie_edu/shared/data/ are the bytes the lessons' stored outputs were made from."""

import hashlib
import re
from pathlib import Path

import pytest

from lmtie_edu.shared.news_corpus import data_file

README = Path(data_file("lee.cor")).parent / "README.md"
SHA256 = {  # the copies in gensim 4.4.0's wheel (gensim/test/test_data/), which the course read until it dropped gensim
    "lee_background.cor": "5d78d6dafd953bbf65797bef09a9ffb9ec430583381be705f8fd460000f370fb",
    "lee.cor": "a878f9a58f6743c32985c56c2f2f75988386216b38a4023a01fd3bcf7884d93e",
    "simlex999.txt": "d5e0501971478a511430ee880bd0121e94ac701ba86d90544d83e6d2ba3db05d",
    "wordsim353.tsv": "f92a022fc2537793a15bc3a8c162ebcd74990e033a228bb6388cb71e4c0b1e1d",
}


@pytest.mark.parametrize("name", sorted(SHA256))
def test_file_is_the_one_the_outputs_were_made_from(name):
    assert hashlib.sha256(data_file(name).read_bytes()).hexdigest() == SHA256[name]


def test_readme_lists_every_shipped_file_with_its_checksum():
    text = README.read_text(encoding="utf-8")
    shipped = {p.name for p in README.parent.iterdir() if p.suffix in {".cor", ".txt", ".tsv"} and
               not p.name.startswith("LICENSE")}
    assert shipped == set(SHA256)
    for name, digest in SHA256.items():
        row = next(line for line in text.splitlines() if line.startswith(f"| `{name}`"))
        shown = re.search(r"`([0-9a-f]{8})…([0-9a-f]{4,6})`", row)
        assert shown and digest.startswith(shown[1]) and digest.endswith(shown[2]), name
