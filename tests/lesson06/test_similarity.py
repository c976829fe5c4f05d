"""Lesson 06: nearest neighbours by cosine similarity."""

import pytest
import torch

from lmtie_edu.lesson06.corpus import Vocabulary
from lmtie_edu.lesson06.similarity import nearest_neighbours


@pytest.fixture
def toy():
    vocab = Vocabulary.from_tokens("cat cat dog dog car car tree tree".split())
    # rows: <unk>, <eos>, car, cat, dog, tree — cat/dog close, car/tree far from them
    matrix = torch.tensor([[0.0, 1.0], [1.0, 1.0], [1.0, -1.0], [1.0, 0.1], [1.0, 0.2], [-1.0, 0.0]])
    return vocab, matrix


def test_nearest_neighbours(toy):
    vocab, matrix = toy
    assert [w for w, _ in nearest_neighbours(matrix, vocab, "cat", k=2)] == ["dog", "car"]
    assert [w for w, _ in nearest_neighbours(matrix * 10, vocab, "cat", k=2)] == ["dog", "car"]  # cosine: scale-free
    assert [w for w, _ in nearest_neighbours(matrix.double(), vocab, "cat", k=3)] == ["dog", "car", "tree"]
    (_, cosine), = nearest_neighbours(matrix, vocab, "cat", k=1)
    assert cosine == pytest.approx(float(torch.nn.functional.cosine_similarity(matrix[3], matrix[4], dim=0)))


@pytest.mark.parametrize("change, error, message", [
    ({"matrix": [[1.0, 0.0]]}, TypeError, "matrix must be a torch.Tensor"),
    ({"matrix": torch.zeros(4, 2)}, ValueError, r"shape \(6, \*\)"),
    ({"matrix": torch.zeros(6, 2, 2)}, ValueError, "2-D matrix"),
    ({"matrix": torch.ones(6, 2, dtype=torch.long)}, TypeError, "floating-point"),
    ({"matrix": torch.full((6, 2), float("nan"))}, ValueError, "contains NaN"),
    ({"matrix": torch.full((6, 2), float("inf"))}, ValueError, "contains inf"),
    ({"matrix": torch.empty(6, 2, device="meta")}, ValueError, "meta tensor"),
    ({"vocabulary": ["cat", "dog"]}, TypeError, "corpus.Vocabulary"),
    ({"word": 3}, TypeError, "word must be a str"),
    ({"word": "zebra"}, ValueError, "not in the vocabulary"),
    ({"word": "<unk>"}, ValueError, "not in the vocabulary"),
    ({"k": 0}, ValueError, "k must be an integer >= 1"),
    ({"k": 1.5}, TypeError, "k must be an integer"),
    ({"k": True}, TypeError, "k must be an integer"),
    ({"k": 10**9}, ValueError, "k must be at most 3"),
])
def test_nearest_neighbours_bad_input(toy, change, error, message):
    vocab, matrix = toy
    arguments = {"matrix": matrix, "vocabulary": vocab, "word": "cat", "k": 2, **change}
    with pytest.raises(error, match=message):
        nearest_neighbours(arguments["matrix"], arguments["vocabulary"], arguments["word"], arguments["k"])
