"""The cases of the lesson 04 checks, and the "where:" lines that say how a wrong answer differs."""

import math

from lmtie_edu.shared.language import N_, tr

# (V, d, layers) of GPT-style models: GPT-2 small, GPT-2 XL and two made-up ones
GPT_SHAPES = [(50_257, 768, 12), (50_257, 1600, 48), (32_000, 512, 6), (100_000, 2048, 24)]

# The published config.json values (the keys that matter) of Llama-style models, two of them not in the lesson
_LLAMA_KEYS = ("vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
               "num_key_value_heads", "tie_word_embeddings")
CONFIGS = {name: dict(zip(_LLAMA_KEYS, values, strict=True), architectures=["LlamaForCausalLM"],
                      max_position_embeddings=positions, rope_theta=theta, torch_dtype="bfloat16")
           for name, values, positions, theta in (
               ("SmolLM2-135M", (49_152, 576, 1536, 30, 9, 3, True), 8192, 100_000.0),
               ("TinyLlama-1.1B", (32_000, 2048, 5632, 22, 32, 4, False), 2048, 10_000.0),
               ("Llama-3.2-1B", (128_256, 2048, 8192, 16, 32, 8, True), 131_072, 500_000.0),
               ("Llama-2-7B", (32_000, 4096, 11_008, 32, 32, 32, False), 4096, 10_000.0),
               ("Llama-3-8B", (128_256, 4096, 14_336, 32, 32, 8, False), 8192, 500_000.0))}
# A config.json may leave the flag out; transformers then takes the class's default, which LlamaConfig sets to
# False (transformers 5.24): Llama-2-7B's config with the flag removed by hand.
CONFIGS[N_("Llama-2-7B, without tie_word_embeddings")] = {key: value for key, value in CONFIGS["Llama-2-7B"].items()
                                                          if key != "tie_word_embeddings"}

# (share, d, non_vocab); the last one's bound s·N / (d·(1 − s)) is a whole number (1000): V = 1000 reaches the
# share exactly, so "int(bound) + 1" or a strict ">" overshoots it
VOCAB_CASES = [(0.05, 4096, 6_476_271_616), (0.10, 768, 85_842_432), (0.30, 2048, 973_146_112),
               (0.01, 8192, 10**11), (0.25, 1024, 3_072_000),
               (0.2, 64, 56_832)]  # the bound is 222 exactly, and 222.00000000000003 in floating point


def close(a, b) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def shares_where(got, V, d, total, ties) -> str:
    """Which denominator each of the learner's two shares divides V·d by."""
    saving = V * d
    tied = total if ties else total - saving
    known = {tied: N_("the tied total"), tied + saving: N_("the untied total"),
             tied - saving: N_("the non-vocabulary total")}
    notes = []
    for label, value, denominator in (("first", got[0], tied), ("second", got[1], tied + saving)):
        expected = tr("V·d / {denominator:,} ({total})", denominator=denominator, total=tr(known[denominator]))
        if close(value, saving / denominator):
            continue
        if value <= 0:
            notes.append(tr(_SHARE_IS[label], value=value, expected=expected))
            continue
        implied = saving / value
        name = next((tr(" ({total})", total=tr(text)) for n, text in known.items()
                     if math.isclose(implied, n, rel_tol=1e-9)), "")
        notes.append(tr(_SHARE_DIVIDES[label], implied=format(implied, ",.0f"), name=name, expected=expected))
    return tr("; ").join(notes)


_SHARE_IS = {"first": N_("your first share is {value}, it should be {expected}"),
             "second": N_("your second share is {value}, it should be {expected}")}
_SHARE_DIVIDES = {"first": N_("your first share is V·d / {implied}{name}, it should be {expected}"),
                  "second": N_("your second share is V·d / {implied}{name}, it should be {expected}")}


def multiple_of_d(n: int, d: int) -> str:
    return f" = {n // d:,}·d" if n and n % d == 0 else ""


def config_where(got, expected, V, d) -> str:
    """How the learner's (saved, share) pair differs: the count saved, and the total its share implies."""
    notes = []
    if got[0] != expected[0]:
        notes.append(tr("parameters saved: {got:,} where {expected:,} is expected", got=got[0], expected=expected[0])
                     + (tr(" (V·d, the matrix the model would share if it tied)") if got[0] == V * d else ""))
    if not close(got[1], expected[1]):
        if got[1] > 0 and got[0] > 0 and expected[1] > 0:
            implied, total = got[0] / got[1], expected[0] / expected[1]
            gap = round(total - implied)
            message = (N_("your share divides by {implied:,.0f}; the published total is {total:,.0f}: yours is "
                          "{gap:,}{multiple} smaller (d = {d:,})") if gap > 0 else
                       N_("your share divides by {implied:,.0f}; the published total is {total:,.0f}: yours is "
                          "{gap:,}{multiple} larger (d = {d:,})"))
            notes.append(tr(message, implied=implied, total=total, gap=abs(gap),
                            multiple=multiple_of_d(abs(gap), d), d=d))
        else:
            notes.append(tr("share: {got} where {expected} is expected", got=got[1], expected=expected[1]))
    return tr("; ").join(notes)


def vocab_where(got: int, share, d, non_vocab) -> str:
    """The share of the tied total that the learner's V reaches, and whether V − 1 already reaches it."""
    def reached(V):
        return V * d / (non_vocab + V * d)

    if got < 1:
        return tr("V must be a positive number of tokens; got {got}", got=got)
    if reached(got) < share:
        return tr("your V gives V·d / (N + V·d) = {reached:.7g}, below the target {share}", reached=reached(got),
                  share=share)
    return tr("your V reaches {reached:.7g} ≥ {share}, but so does V − 1 = {previous:,} ({previous_reached:.7g}): it "
              "is not the smallest", reached=reached(got), share=share, previous=got - 1,
              previous_reached=reached(got - 1))
