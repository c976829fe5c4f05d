"""Lesson 06: one wrong answer per diagnosed mistake, the shortcuts each check must refuse, and plausible wrong
answers that are caught without a named mistake (each must say where it differs)."""

import math

import torch

# -- tied_width ------------------------------------------------------------------------------------------------


def _parameters(V, d, c, H, tie, biases=True):
    return (1 if tie else 2) * V * d + c * d * H + H * d + ((H + d) if biases else 0)


def width_doubled(vocab_size, d_model, context, hidden):  # "the tie frees V·d, so the vectors can be twice as long"
    return 2 * d_model


def width_counting_the_tie_twice(vocab_size, d_model, context, hidden):
    from lmtie_edu.shared.models import TinyLM

    def size(d, tie):  # state_dict() lists the shared matrix under both names
        model = TinyLM(vocab_size, d, context=context, hidden=hidden, tie=tie)
        return sum(t.numel() for t in model.state_dict().values())

    budget, d = size(d_model, False), d_model
    while size(d + 1, True) <= budget:
        d += 1
    return d


def width_rounded(vocab_size, d_model, context, hidden):  # solved for d, then round() instead of rounding down
    budget = _parameters(vocab_size, d_model, context, hidden, tie=False)
    return round((budget - hidden) / (vocab_size + context * hidden + hidden + 1))


def width_ceil(vocab_size, d_model, context, hidden):
    budget = _parameters(vocab_size, d_model, context, hidden, tie=False)
    return math.ceil((budget - hidden) / (vocab_size + context * hidden + hidden + 1))


def width_without_biases(vocab_size, d_model, context, hidden):
    budget, d = _parameters(vocab_size, d_model, context, hidden, False, biases=False), d_model
    while _parameters(vocab_size, d + 1, context, hidden, True, biases=False) <= budget:
        d += 1
    return d


def width_strictly_below_budget(vocab_size, d_model, context, hidden):  # "< budget": misses an exact fit
    budget, d = _parameters(vocab_size, d_model, context, hidden, False), d_model
    while _parameters(vocab_size, d + 1, context, hidden, True) < budget:
        d += 1
    return d


def width_mlp_without_second_layer(vocab_size, d_model, context, hidden):
    def size(d, tie):
        return (1 if tie else 2) * vocab_size * d + context * d * hidden + hidden

    budget, d = size(d_model, False), d_model
    while size(d + 1, True) <= budget:
        d += 1
    return d


def width_as_float(vocab_size, d_model, context, hidden):
    budget = _parameters(vocab_size, d_model, context, hidden, tie=False)
    return float((budget - hidden) // (vocab_size + context * hidden + hidden + 1))


def width_returns_parameters_saved(vocab_size, d_model, context, hidden):  # answers "how many does the tie free"
    return vocab_size * d_model


# -- combined_perplexity ---------------------------------------------------------------------------------------


def perplexity_arithmetic_mean(word_perplexity, unk_perplexity, unk_share):
    return (1 - unk_share) * word_perplexity + unk_share * unk_perplexity


def perplexity_swapped_shares(word_perplexity, unk_perplexity, unk_share):
    return math.exp(unk_share * math.log(word_perplexity) + (1 - unk_share) * math.log(unk_perplexity))


def perplexity_unweighted(word_perplexity, unk_perplexity, unk_share):
    return math.sqrt(word_perplexity * unk_perplexity)


def perplexity_mean_cross_entropy(word_perplexity, unk_perplexity, unk_share):
    return (1 - unk_share) * math.log(word_perplexity) + unk_share * math.log(unk_perplexity)


def perplexity_harmonic_mean(word_perplexity, unk_perplexity, unk_share):
    return 1 / ((1 - unk_share) / word_perplexity + unk_share / unk_perplexity)


def perplexity_share_of_words(word_perplexity, unk_perplexity, unk_share):  # weighs <unk> by the words' share
    return math.exp((1 - unk_share) * math.log(word_perplexity) + (1 - unk_share) * math.log(unk_perplexity))


def perplexity_as_tensor(word_perplexity, unk_perplexity, unk_share):
    logs = torch.log(torch.tensor([word_perplexity, unk_perplexity], dtype=torch.float64))
    return torch.exp((1 - unk_share) * logs[0] + unk_share * logs[1])


# -- gradient_step_counts --------------------------------------------------------------------------------------


def _read_per_step(batches, vocab_size, ids_of=lambda inputs, targets: inputs):
    counts = torch.zeros(vocab_size, dtype=torch.long)
    for inputs, targets in batches:
        counts += torch.bincount(ids_of(inputs, targets).flatten(), minlength=vocab_size) > 0
    return counts


def counts_output_only_for_targets(batches, vocab_size, tie):  # "only the target row gets a gradient"
    steps = torch.full((vocab_size,), len(batches))
    if tie:
        return steps.clone(), steps
    return _read_per_step(batches, vocab_size), _read_per_step(batches, vocab_size, lambda x, y: y)


def counts_occurrences(batches, vocab_size, tie):
    steps = torch.full((vocab_size,), len(batches))
    if tie:
        return steps.clone(), steps
    return sum(torch.bincount(x.flatten(), minlength=vocab_size) for x, _ in batches), steps


def counts_ignoring_the_tie(batches, vocab_size, tie):
    return _read_per_step(batches, vocab_size), torch.full((vocab_size,), len(batches))


def counts_tied_summed(batches, vocab_size, tie):
    read, steps = _read_per_step(batches, vocab_size), torch.full((vocab_size,), len(batches))
    return (read, steps) if not tie else (read + steps, read + steps)


def counts_input_rows_of_targets_too(batches, vocab_size, tie):  # the target's row of E is not read
    steps = torch.full((vocab_size,), len(batches))
    if tie:
        return steps.clone(), steps
    return _read_per_step(batches, vocab_size, lambda x, y: torch.cat([x.flatten(), y])), steps


def counts_without_minlength(batches, vocab_size, tie):
    steps = torch.full((vocab_size,), len(batches))
    if tie:
        return steps.clone(), steps
    read = sum(torch.bincount(x.flatten()) > 0 for x, _ in batches[:1])
    for x, _ in batches[1:]:
        marks = torch.bincount(x.flatten()) > 0
        n = max(len(read), len(marks))
        read = torch.nn.functional.pad(read.long(), (0, n - len(read))) + \
            torch.nn.functional.pad(marks.long(), (0, n - len(marks)))
    return read, steps


def counts_as_fractions(batches, vocab_size, tie):  # §7 prints fractions; the question asks for counts
    steps = len(batches)
    if tie:
        return torch.ones(vocab_size), torch.ones(vocab_size)
    return _read_per_step(batches, vocab_size) / steps, torch.ones(vocab_size)


def counts_tied_as_union_of_reads_and_targets(batches, vocab_size, tie):  # tied, but "only targets" on O
    steps = torch.full((vocab_size,), len(batches))
    if not tie:
        return _read_per_step(batches, vocab_size), steps
    both = _read_per_step(batches, vocab_size, lambda x, y: torch.cat([x.flatten(), y]))
    return both, both


def counts_only_last_context_word(batches, vocab_size, tie):  # reads only w_t, not the whole window
    steps = torch.full((vocab_size,), len(batches))
    if tie:
        return steps.clone(), steps
    return _read_per_step(batches, vocab_size, lambda x, y: x[:, -1]), steps


def counts_stacked(batches, vocab_size, tie):
    steps = torch.full((vocab_size,), len(batches))
    read = steps.clone() if tie else _read_per_step(batches, vocab_size)
    return torch.stack([read, steps])


def width_context_forgotten(vocab_size, d_model, context, hidden):  # the first layer counted as Linear(d → H)
    budget, d = _parameters(vocab_size, d_model, 1, hidden, tie=False), d_model
    while _parameters(vocab_size, d + 1, 1, hidden, tie=True) <= budget:
        d += 1
    return d


def perplexity_log2_then_exp(word_perplexity, unk_perplexity, unk_share):
    return math.exp((1 - unk_share) * math.log2(word_perplexity) + unk_share * math.log2(unk_perplexity))


def perplexity_exp_of_perplexities(word_perplexity, unk_perplexity, unk_share):
    return math.exp((1 - unk_share) * word_perplexity + unk_share * unk_perplexity)


def perplexity_halved(word_perplexity, unk_perplexity, unk_share):  # "the mean of two groups": divided by 2 again
    return math.exp(((1 - unk_share) * math.log(word_perplexity) + unk_share * math.log(unk_perplexity)) / 2)


def perplexity_share_as_percent(word_perplexity, unk_perplexity, unk_share):
    share = unk_share / 100
    return math.exp((1 - share) * math.log(word_perplexity) + share * math.log(unk_perplexity))


def counts_tied_reads_only(batches, vocab_size, tie):  # tied: "the shared row learns when it is read"
    read = _read_per_step(batches, vocab_size)
    return (read, read.clone()) if tie else (read, torch.full((vocab_size,), len(batches)))


def counts_positions(batches, vocab_size, tie):  # any over the batch, then a sum over the context positions
    steps = torch.full((vocab_size,), len(batches))
    if tie:
        return steps.clone(), steps
    counts = torch.zeros(vocab_size, dtype=torch.long)
    for inputs, _ in batches:
        counts += (inputs.unsqueeze(-1) == torch.arange(vocab_size)).any(dim=0).sum(dim=0)
    return counts, steps


def counts_first_example_only(batches, vocab_size, tie):
    steps = torch.full((vocab_size,), len(batches))
    if tie:
        return steps.clone(), steps
    return _read_per_step(batches, vocab_size, lambda x, y: x[0]), steps


def counts_pair_swapped(batches, vocab_size, tie):
    steps = torch.full((vocab_size,), len(batches))
    if tie:
        return steps.clone(), steps
    return steps, _read_per_step(batches, vocab_size)


def counts_output_batch_size(batches, vocab_size, tie):
    per_batch = torch.full((vocab_size,), len(batches[0][0]))
    if tie:
        return per_batch.clone(), per_batch
    return _read_per_step(batches, vocab_size), per_batch


def _widest(vocab_size, d_model, size):
    budget, d = size(d_model, False), d_model
    while size(d + 1, True) <= budget:
        d += 1
    return d


def width_hidden_grows_with_width(vocab_size, d_model, context, hidden):  # "hidden = 4·d", as in a transformer
    return _widest(vocab_size, d_model, lambda d, tie: (1 if tie else 2) * vocab_size * d + context * d * 4 * d
                   + 4 * d + 4 * d * d + d)


def width_with_a_position_table(vocab_size, d_model, context, hidden):
    return _widest(vocab_size, d_model, lambda d, tie: _parameters(vocab_size, d, context, hidden, tie) + context * d)


def width_multiple_of_8(vocab_size, d_model, context, hidden):
    return _widest(vocab_size, d_model, lambda d, tie: _parameters(vocab_size, d, context, hidden, tie)) // 8 * 8


def perplexity_unk_added_on_top(word_perplexity, unk_perplexity, unk_share):
    return math.exp(math.log(word_perplexity) + unk_share * math.log(unk_perplexity))


def perplexity_unk_term_dropped(word_perplexity, unk_perplexity, unk_share):
    return math.exp((1 - unk_share) * math.log(word_perplexity))


def perplexity_word_term_dropped(word_perplexity, unk_perplexity, unk_share):
    return math.exp(unk_share * math.log(unk_perplexity))


def perplexity_of_the_words_only(word_perplexity, unk_perplexity, unk_share):  # <unk> targets left out
    return word_perplexity


def counts_inputs_from_targets(batches, vocab_size, tie):
    steps = torch.full((vocab_size,), len(batches))
    if tie:
        return steps.clone(), steps
    return _read_per_step(batches, vocab_size, lambda x, y: y), steps


def counts_marked_not_counted(batches, vocab_size, tie):
    steps = torch.full((vocab_size,), len(batches))
    if tie:
        return steps.clone(), steps
    read = torch.zeros(vocab_size, dtype=torch.long)
    for inputs, _ in batches:
        read[inputs.flatten().unique()] = 1  # marks, does not count
    return read, steps


WRONG = {
    "tied_width": {"doubled_width": width_doubled,
                   "same_width": width_counting_the_tie_twice,
                   "over_budget": width_rounded,
                   "below_budget": width_strictly_below_budget,
                   "context_forgotten": width_context_forgotten,
                   "hidden_grows_with_width": width_hidden_grows_with_width,
                   "position_table": width_with_a_position_table,
                   "second_layer_forgotten": width_mlp_without_second_layer,
                   "multiple_of_8": width_multiple_of_8, "parameters_saved": width_returns_parameters_saved},
    "combined_perplexity": {"averaged_perplexities": perplexity_arithmetic_mean,
                            "swapped_shares": perplexity_swapped_shares,
                            "unweighted": perplexity_unweighted,
                            "no_exponential": perplexity_mean_cross_entropy,
                            "mismatched_bases": perplexity_log2_then_exp,
                            "perplexities_as_cross_entropies": perplexity_exp_of_perplexities,
                            "halved_mean": perplexity_halved, "share_as_percent": perplexity_share_as_percent,
                            "unk_added_on_top": perplexity_unk_added_on_top,
                            "unk_term_dropped": perplexity_unk_term_dropped,
                            "word_term_dropped": perplexity_word_term_dropped,
                            "word_perplexity_only": perplexity_of_the_words_only,
                            "harmonic_mean": perplexity_harmonic_mean,
                            "words_share_for_both": perplexity_share_of_words},
    "gradient_step_counts": {"output_only_targets": counts_output_only_for_targets,
                             "counted_occurrences": counts_occurrences,
                             "tied_as_untied": counts_ignoring_the_tie,
                             "tied_summed": counts_tied_summed, "tied_reads_only": counts_tied_reads_only,
                             "counted_positions": counts_positions, "first_example_only": counts_first_example_only,
                             "pair_swapped": counts_pair_swapped, "output_batch_size": counts_output_batch_size,
                             "input_from_targets": counts_inputs_from_targets,
                             "marked_not_counted": counts_marked_not_counted,
                             "inputs_and_targets": counts_input_rows_of_targets_too,
                             "last_context_word_only": counts_only_last_context_word,
                             "tied_union_of_reads_and_targets": counts_tied_as_union_of_reads_and_targets},
}

SHORTCUTS = {
    "tied_width": [width_as_float],
    "combined_perplexity": [perplexity_as_tensor],
    "gradient_step_counts": [counts_stacked],
}

CAUGHT = {
    "tied_width": [width_ceil, width_without_biases],
    "gradient_step_counts": [counts_without_minlength, counts_as_fractions],
}
