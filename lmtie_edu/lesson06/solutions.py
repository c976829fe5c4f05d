"""Reference solutions, lesson 06 (does tying help?).

Each function imports what it needs, so that its source runs as it is when ``make solutions`` pastes it
into the notebook.
"""


def tied_width(vocab_size, d_model, context, hidden):
    """The largest width of a tied TinyLM that has no more parameters than the untied TinyLM of width
    d_model: the budget the tie frees (V·d) spent on wider vectors."""

    def parameters(d, tie):
        matrices = (1 if tie else 2) * vocab_size * d                 # E, and O unless it is E
        mlp = (context * d * hidden + hidden) + (hidden * d + d)      # Linear(c·d → H), Linear(H → d), biases
        return matrices + mlp

    budget = parameters(d_model, tie=False)
    d = d_model
    while parameters(d + 1, tie=True) <= budget:
        d += 1
    return d


def combined_perplexity(word_perplexity, unk_perplexity, unk_share):
    """Perplexity over all targets from the perplexity on real-word targets, on <unk> targets, and the share
    of targets that are <unk>: the mean cross-entropy is what averages, weighted by the number of targets."""
    import math

    mean_cross_entropy = (1 - unk_share) * math.log(word_perplexity) + unk_share * math.log(unk_perplexity)
    return math.exp(mean_cross_entropy)


def gradient_step_counts(batches, vocab_size, tie):
    """Per row, the number of steps in which it gets a non-zero gradient: (input side, output side).
    A row of E only when its word is read in the step's batch; a row of O at every step (the softmax
    reaches every word); tied, E and O are one matrix, so both counts are that matrix's: every step."""
    import torch

    steps = len(batches)
    output_counts = torch.full((vocab_size,), steps)
    if tie:
        return output_counts.clone(), output_counts
    input_counts = torch.zeros(vocab_size, dtype=torch.long)
    for inputs, _targets in batches:
        input_counts += torch.bincount(inputs.flatten(), minlength=vocab_size) > 0   # read at least once
    return input_counts, output_counts
