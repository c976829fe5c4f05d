"""lmtie_edu.lesson04.architectures: real transformers architectures on the meta device, counted exactly."""

import logging

import pytest

from lmtie_edu.lesson04 import architectures as A
from lmtie_edu.lesson04 import counts as P
from lmtie_edu.shared.models import count_parameters

# Exact totals and tie status from /work/shared/reference/facts.md (verified independently of this code).
PUBLISHED = {
    "GPT-2 small": (124_439_808, True), "GPT-2 medium": (354_823_168, True), "GPT-2 large": (774_030_080, True),
    "GPT-2 XL": (1_557_611_200, True), "BERT-base MLM": (109_514_298, True), "T5-small v1.0": (60_506_624, True),
    "Qwen2.5-0.5B": (494_032_768, True), "Llama-3.2-1B": (1_235_814_400, True),
    "Llama-3.2-3B": (3_212_749_824, True), "Llama-2-7B": (6_738_415_616, False),
    "Llama-3-8B": (8_030_261_248, False), "Llama-2-70B": (68_976_648_192, False),
}


def ties(model):
    """The lesson's check: is the head's weight the very same Parameter as the embedding's?"""
    return model.get_output_embeddings().weight is model.get_input_embeddings().weight


@pytest.fixture(scope="module")
def counts():
    """name -> (total as published, ties, total of the flipped build, ties after flipping)."""
    result = {}
    for name, a in A.ARCHITECTURES.items():
        model, flipped = A.build(name), A.build(name, tie=not a.tie_word_embeddings)
        result[name] = (count_parameters(model), ties(model), count_parameters(flipped), ties(flipped))
    return result


def test_every_architecture_is_listed():
    assert list(A.ARCHITECTURES) == list(PUBLISHED)


@pytest.mark.parametrize("name", list(PUBLISHED))
def test_exact_totals_and_tie_status(counts, name):
    total, tied = PUBLISHED[name]
    assert counts[name][:2] == (total, tied)


def test_tie_status_is_read_from_the_build_not_the_config():
    model = A.build("GPT-2 small")
    assert ties(model)
    untied = A.build("GPT-2 small", tie=False)
    assert not ties(untied)
    assert count_parameters(untied) == 163_037_184  # facts.md: GPT-2 small untied


def test_flipped_totals_differ_by_one_matrix_except_bert_bias(counts):
    for name, (total, tied, flipped_total, flipped_ties) in counts.items():
        a = A.ARCHITECTURES[name]
        if name.startswith("T5"):  # transformers 5 ties T5 whatever the config says: nothing to compare
            assert flipped_ties and flipped_total == total
            continue
        assert flipped_ties is not tied, name
        extra = a.vocab_size if name.startswith("BERT") else 0  # untied BERT keeps an orphan V-sized bias
        assert abs(flipped_total - total) == a.vocab_size * a.d_model + extra, name


def test_untied_bert_extra_bias_is_an_orphan_no_gradient_reaches():
    """The lesson's §2 cell: tied, decoder.bias is cls.predictions.bias; untied (transformers 5.24), the decoder
    has its own bias and cls.predictions.bias gets no gradient. If a new transformers changes this, the prose must."""
    import torch
    from transformers import BertConfig, BertForMaskedLM

    small = dict(vocab_size=100, hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32)
    for tie in (True, False):
        model = BertForMaskedLM(BertConfig(**small, tie_word_embeddings=tie))
        ids = torch.randint(0, 100, (2, 8), generator=torch.Generator().manual_seed(0))
        model(input_ids=ids, labels=ids).loss.backward()
        head = model.cls.predictions
        assert (head.decoder.bias is head.bias) is tie
        assert head.decoder.bias.grad is not None
        assert (head.bias.grad is None) is not tie


def test_t5_shares_three_ways_and_refuses_to_untie(counts):
    model = A.build("T5-small v1.0")
    shared = model.shared.weight
    assert model.encoder.embed_tokens.weight is shared and model.decoder.embed_tokens.weight is shared
    assert model.lm_head.weight is shared
    flipped = A.build("T5-small v1.0", tie=False)
    # transformers 5 reads tie_word_embeddings=False as "do not rescale the decoder output" and ties anyway
    assert ties(flipped) and counts["T5-small v1.0"][3]


def test_gpt_formula_is_exact_for_gpt2(counts):
    for name in ("GPT-2 small", "GPT-2 medium", "GPT-2 large", "GPT-2 XL"):
        a = A.ARCHITECTURES[name]
        for tie, total in ((True, counts[name][0]), (False, counts[name][2])):
            formula = P.gpt_parameter_breakdown(a.vocab_size, a.d_model, a.n_layers, d_ff=a.d_ff, tie=tie)
            assert sum(formula.values()) == total


def test_bert_and_qwen_differences_from_the_gpt_formula_are_what_the_lesson_says():
    bert = A.build("BERT-base MLM")
    named = dict(bert.named_parameters())
    assert named["bert.embeddings.position_embeddings.weight"].numel() == 512 * 768  # learned, 512 positions
    formula = sum(P.gpt_parameter_breakdown(30_522, 768, 12, d_ff=3072, n_positions=512).values())
    extra = sum(p.numel() for n, p in named.items() if "token_type" in n or n.startswith("cls."))
    assert count_parameters(bert) - formula == extra == 624_186
    qwen = A.build("Qwen2.5-0.5B")
    assert sum(p.numel() for n, p in qwen.named_parameters() if n.endswith(("q_proj.bias", "k_proj.bias",
                                                                            "v_proj.bias"))) == 27_648


def test_builds_are_meta_and_cached():
    model = A.build("Llama-2-70B")
    assert all(p.is_meta for p in model.parameters())
    again = A.build("Llama-2-70B", tie=False)   # the cached build, copied: never the learner's own object
    assert again is not model and not again.config.tie_word_embeddings
    assert A._build_cached("Llama-2-70B", False) is A._build_cached("Llama-2-70B", False)
    assert A.build_uncached("Llama-2-7B") is not A.build("Llama-2-7B")


def test_configs_carry_the_published_hyper_parameters():
    config = A.make_config("Llama-2-70B")
    assert (config.hidden_size, config.intermediate_size, config.num_hidden_layers, config.num_attention_heads,
            config.num_key_value_heads, config.vocab_size, config.tie_word_embeddings) == \
        (8192, 28672, 80, 64, 8, 32_000, False)
    assert A.make_config("Qwen2.5-0.5B").tie_word_embeddings is True
    assert A.make_config("GPT-2 XL").n_embd == 1600


BUILD_PROBES = [
    ("unknown name", lambda: A.build("GPT-4"), ValueError, "name must be one of .*got 'GPT-4'"),
    ("name is a number", lambda: A.build(7), ValueError, "name must be one of .*got 7"),
    ("name is a list", lambda: A.build(["GPT-2 small"]), ValueError, r"name must be one of .*got \['GPT-2 small'\]"),
    ("name empty", lambda: A.make_config(""), ValueError, "name must be one of .*got ''"),
    ("name lower-case", lambda: A.build_uncached("gpt-2 small"), ValueError, "name must be one of"),
    ("tie is text", lambda: A.make_config("GPT-2 small", tie="no"), TypeError,
     "tie must be True, False or None .*got 'no'"),
    ("tie is 1", lambda: A.build("GPT-2 small", tie=1), TypeError, "tie must be True, False or None .*got 1"),
    ("tie is 0.0", lambda: A.build_uncached("GPT-2 small", tie=0.0), TypeError, "tie must be True, False or None"),
]


@pytest.mark.parametrize("label, call, error, message", BUILD_PROBES, ids=[p[0] for p in BUILD_PROBES])
def test_bad_names_and_tie_values_are_rejected(label, call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_building_prints_and_logs_nothing_and_restores_verbosity(capfd, caplog):
    from transformers.utils import logging as tf_logging

    tf_logging.set_verbosity_warning()
    with caplog.at_level(logging.DEBUG):
        A.build_uncached("Qwen2.5-0.5B", tie=False)
    out, err = capfd.readouterr()
    assert (out, err) == ("", "")
    assert not [r for r in caplog.records if r.name.startswith("transformers")]
    assert tf_logging.get_verbosity() == tf_logging.WARNING


# -- the predict-then-run questions agree with what the lesson shows --------------------------------------------

def test_prediction_count_every_name():
    from lmtie_edu.lesson04 import questions as predict

    model = A.build("GPT-2 XL")
    every_name = sum(p.numel() for _, p in model.named_parameters(remove_duplicate=False))
    a = A.ARCHITECTURES["GPT-2 XL"]
    assert every_name - count_parameters(model) == a.vocab_size * a.d_model
    assert predict.count_every_name.right == "more, by exactly V·d"


def test_prediction_large_llamas_tie():
    from lmtie_edu.lesson04 import questions as predict

    assert not any(ties(A.build(name)) for name in ("Llama-2-7B", "Llama-3-8B", "Llama-2-70B"))
    assert predict.large_llamas_tie.right == "none of them"


def test_prediction_tenfold_model():
    """The lesson's cell: GPT-style bodies 12·L·d² with d/L = 128, V = 32K, Llama-2-70B's body and a tenth of it."""
    from lmtie_edu.lesson04 import questions as predict

    def width(n_nv):
        return (n_nv * 128 / 12) ** (1 / 3)

    n_nv = 68_976_648_192 - 32_000 * 8192 - 32_000 * 8192   # Llama-2-70B untied total − head − embedding
    small, large = (32_000 * width(n) / (n + 32_000 * width(n)) for n in (n_nv / 10, n_nv))
    assert 4.4 < small / large < 4.8
    assert predict.tenfold_model.right == "by about 4.6: like N^(-2/3)"


def test_prediction_gpt_formula_on_llama():
    from lmtie_edu.lesson04 import questions as predict

    a = A.ARCHITECTURES["Llama-3-8B"]
    formula = sum(P.gpt_parameter_breakdown(a.vocab_size, a.d_model, a.n_layers, d_ff=a.d_ff, n_positions=0,
                                            tie=False).values())
    built = count_parameters(A.build("Llama-3-8B"))
    assert -0.15 < (formula - built) / built < -0.10
    assert predict.gpt_formula_on_llama.right == "too few parameters"
