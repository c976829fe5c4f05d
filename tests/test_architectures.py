"""lmtie_edu.architectures: real transformers architectures on the meta device, counted exactly."""

import logging

import pytest

from lmtie_edu import architectures as A
from lmtie_edu import param_counts as P
from lmtie_edu.models import count_parameters

# Exact totals and tie status from /work/shared/reference/facts.md (verified independently of this code).
PUBLISHED = {
    "GPT-2 small": (124_439_808, True), "GPT-2 medium": (354_823_168, True), "GPT-2 large": (774_030_080, True),
    "GPT-2 XL": (1_557_611_200, True), "BERT-base MLM": (109_514_298, True), "T5-small v1.0": (60_506_624, True),
    "Qwen2.5-0.5B": (494_032_768, True), "Llama-3.2-1B": (1_235_814_400, True),
    "Llama-3.2-3B": (3_212_749_824, True), "Llama-2-7B": (6_738_415_616, False),
    "Llama-3-8B": (8_030_261_248, False), "Llama-2-70B": (68_976_648_192, False),
}


@pytest.fixture(scope="module")
def counts():
    return {c.name: c for c in A.all_counts()}


def test_every_architecture_is_listed():
    assert list(A.ARCHITECTURES) == list(PUBLISHED)


@pytest.mark.parametrize("name", list(PUBLISHED))
def test_exact_totals_and_tie_status(counts, name):
    total, ties = PUBLISHED[name]
    assert counts[name].total == total
    assert counts[name].ties is ties


def test_tie_status_is_read_from_the_build_not_the_config():
    model = A.build("GPT-2 small")
    assert A.head_is_embedding(model)
    untied = A.build("GPT-2 small", tie=False)
    assert not A.head_is_embedding(untied)
    assert count_parameters(untied) == 163_037_184  # facts.md: GPT-2 small untied


def test_flipped_totals_differ_by_one_matrix_except_bert_bias(counts):
    for c in counts.values():
        extra = c.vocab_size if c.name.startswith("BERT") else 0  # untied BERT keeps a second V-sized bias
        assert c.total_untied - c.total_tied == c.saving + extra, c.name


def test_t5_shares_three_ways_and_refuses_to_untie(counts):
    model = A.build("T5-small v1.0")
    shared = model.shared.weight
    assert model.encoder.embed_tokens.weight is shared and model.decoder.embed_tokens.weight is shared
    assert model.lm_head.weight is shared
    flipped = A.build("T5-small v1.0", tie=False)
    # transformers 5 reads tie_word_embeddings=False as "do not rescale the decoder output" and ties anyway
    assert counts["T5-small v1.0"].flipped_by_build is (not A.head_is_embedding(flipped))


def test_gpt_formula_is_exact_for_gpt2(counts):
    for name in ("GPT-2 small", "GPT-2 medium", "GPT-2 large", "GPT-2 XL"):
        a = A.ARCHITECTURES[name]
        for tie, total in ((True, counts[name].total_tied), (False, counts[name].total_untied)):
            assert P.gpt_parameter_count(a.vocab_size, a.d_model, a.n_layers, d_ff=a.d_ff, tie=tie) == total


def test_builds_are_meta_and_cached():
    model = A.build("Llama-2-70B")
    assert all(p.is_meta for p in model.parameters())
    assert A.build("Llama-2-70B") is model is A.build("Llama-2-70B", tie=False)
    assert A.build_uncached("Llama-2-7B") is not A.build("Llama-2-7B")


def test_configs_carry_the_published_hyper_parameters():
    config = A.make_config("Llama-2-70B")
    assert (config.hidden_size, config.intermediate_size, config.num_hidden_layers, config.num_attention_heads,
            config.num_key_value_heads, config.vocab_size, config.tie_word_embeddings) == \
        (8192, 28672, 80, 64, 8, 32_000, False)
    assert A.make_config("Qwen2.5-0.5B").tie_word_embeddings is True
    assert A.make_config("GPT-2 XL").n_embd == 1600


def test_bad_names_and_tie_values_are_rejected():
    with pytest.raises(ValueError, match="name must be one of .*got 'GPT-4'"):
        A.build("GPT-4")
    with pytest.raises(TypeError, match="tie must be True, False or None .*got 'no'"):
        A.make_config("GPT-2 small", tie="no")
    with pytest.raises(ValueError, match="name must be one of"):
        A.build_memory("Llama-4")


def test_building_prints_and_logs_nothing_and_restores_verbosity(capfd, caplog):
    from transformers.utils import logging as tf_logging

    tf_logging.set_verbosity_warning()
    with caplog.at_level(logging.DEBUG):
        A.build_uncached("Qwen2.5-0.5B", tie=False)
    out, err = capfd.readouterr()
    assert (out, err) == ("", "")
    assert not [r for r in caplog.records if r.name.startswith("transformers")]
    assert tf_logging.get_verbosity() == tf_logging.WARNING


def test_70b_build_memory_is_small():
    memory = A.build_memory("Llama-2-70B")
    assert memory["parameters"] == 68_976_648_192
    assert 0 <= memory["extra_mib"] <= 100


def test_benchmark_is_declared():
    (bench,) = A.benchmarks()
    assert bench.budget_seconds == 1.0 and "70B" in bench.name
    assert bench.run() is None  # one timed build; the memory was measured once, in set-up
    assert bench.extra["extra_mib"] <= bench.extra["mib_budget"] == 100 and bench.extra["mib_ok"]
    assert bench.extra["real_fp32_gib"] == round(4 * 68_976_648_192 / 2**30, 1)
