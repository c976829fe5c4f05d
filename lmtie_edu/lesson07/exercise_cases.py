"""The cases the lesson 07 exercise checks run on (the checks themselves are in ``exercises``).

Every builder draws its tensors under a fixed seed, so calling it twice gives two separate but equal sets of
objects: one for the learner's function, one for the reference solution (a learner's function that changes
its arguments cannot change the expected answer).
"""

import torch
from torch import nn

from lmtie_edu.shared.language import N_, tr
from lmtie_edu.shared.models import TinyLM
from lmtie_edu.shared.seeding import seeded

from .checkpoints import torch_checkpoint


# -- exercise 1: not_in_optimiser ----------------------------------------------------------------------
def _decay_groups(model, *, lr=0.1):
    """nanoGPT's two groups: matrices with weight decay, vectors without."""
    matrices = [p for p in model.parameters() if p.dim() >= 2]
    vectors = [p for p in model.parameters() if p.dim() < 2]
    return [{"params": matrices, "weight_decay": 0.1, "lr": lr}, {"params": vectors, "weight_decay": 0.0, "lr": lr}]


def optimiser_cases():
    """(description, model, optimiser) triples: every way the optimiser can miss a Parameter.

    Order matters for the diagnoses: the body-only optimiser (which comparing values or memory gets right,
    and comparing positions does not) comes before the cases those two mistakes get wrong."""
    with seeded(0):  # the learner's random state is left alone
        models = [TinyLM(10, 4, tie=tie) for tie in (True, True, False, False, True, False, False, False)]
    cases = []
    model = models[0]
    cases.append((N_("tied, then the optimiser built"), model, torch.optim.SGD(model.parameters(), lr=0.1)))
    model = models[1]
    cases.append((N_("tied, then an optimiser built with two groups (weight decay for matrices, none for vectors)"),
                  model, torch.optim.AdamW(_decay_groups(model))))
    model = models[2]
    cases.append((N_("optimiser given only model.body.parameters()"), model,
                  torch.optim.SGD(model.body.parameters(), lr=0.1)))
    model = models[3]
    optimiser = torch.optim.SGD(model.parameters(), lr=0.1)
    shared = nn.Parameter(model.embedding.weight.detach().clone())
    model.embedding.weight = model.head.weight = shared
    cases.append((N_("optimiser built, then a new shared Parameter tied in"), model, optimiser))
    model = models[4]
    optimiser = torch.optim.SGD(model.parameters(), lr=0.1)
    model.head.weight = nn.Parameter(model.head.weight.detach().clone())
    cases.append((N_("optimiser built, then the head untied"), model, optimiser))
    model = models[5]
    copies = [nn.Parameter(p.detach().clone()) for p in model.parameters()]
    cases.append((N_("optimiser given equal-valued copies of every Parameter"), model, torch.optim.SGD(copies, lr=0.1)))
    model = models[6]
    optimiser = torch.optim.SGD(model.parameters(), lr=0.1)
    model.head.weight = nn.Parameter(model.head.weight.data)  # a new object over the same memory
    cases.append((N_("optimiser built, then the head re-wrapped in a new Parameter over its own memory"),
                  model, optimiser))
    model = models[7]
    optimiser = torch.optim.AdamW(_decay_groups(model))
    model.head.weight = nn.Parameter(model.head.weight.detach().clone())
    cases.append((N_("two groups (weight decay for matrices, none for vectors) built, then the head untied"),
                  model, optimiser))
    with seeded(1):
        model = HeadFirst(10, 4)
    cases.append((N_("a tied model whose head is made before its embedding, the optimiser given only the shared "
                     "matrix"), model, torch.optim.SGD([model.head.weight], lr=0.1)))
    with seeded(2):
        model = TinyLM(10, 4, tie=False)
    cases.append((N_("an untied model, the optimiser given only the embedding (the head has its shape, not its "
                     "values)"), model, torch.optim.SGD([model.embedding.weight], lr=0.1)))
    return cases


class HeadFirst(nn.Module):
    """A tied model that makes its head before its embedding: its state_dict lists the shared matrix under both
    names at the start, so the state dict's keys and model.parameters() (each Parameter once) do not pair up."""

    def __init__(self, vocab_size: int, d_model: int):
        super().__init__()
        self.head = nn.Linear(d_model, vocab_size, bias=False)
        self.embedding = nn.Embedding(vocab_size, d_model)
        self.body = nn.Linear(d_model, d_model)
        self.head.weight = self.embedding.weight


# -- exercise 2: count_checkpoint_parameters -----------------------------------------------------------
def _models():
    """(description, model) pairs covering every way two matrices can look tied."""
    with seeded(0):  # the learner's random state is left alone
        tied, untied, copied, aliased, retied = (TinyLM(10, 4, tie=tie) for tie in (True, False, False, False, False))
    with torch.no_grad():
        copied.head.weight.copy_(copied.embedding.weight)
    aliased.head.weight.data = aliased.embedding.weight.data  # one storage, still two Parameters
    shared = nn.Parameter(retied.embedding.weight.detach().clone())
    retied.embedding.weight = retied.head.weight = shared
    return [(N_("a model tied with tie()"), tied), (N_("an untied model"), untied),
            (N_("a model whose head values were copied from the embedding"), copied),
            (N_("a model with head.weight.data = embedding.weight.data"), aliased),
            (N_("a model with one new Parameter put into both modules"), retied)]


def state_dicts():
    """(description, state dict): models' state dicts, a reloaded tie, and views into one buffer.

    Order matters for the diagnoses: each known wrong count first fails on a case where no other known
    wrong count gives the same number."""
    cases = [(tr("the state_dict() of {model}", model=tr(what)), model.state_dict()) for what, model in _models()]
    cases.append((N_("a tied model's state dict after torch.save + torch.load"),
                  torch_checkpoint(_models()[0][1].state_dict())[1]))
    with seeded(0):
        fused, flat, big = torch.randn(8, 4), torch.randn(20), torch.randn(10, 4)
    cases.append((N_("the first 2 rows of a 10x4 matrix, saved alone (a slice: 8 of its storage's 40 elements)"),
                  {"part": big[:2]}))
    cases.append((N_("rows 1-2 and rows 6-7 of a 10x4 matrix, saved as two keys (the rows between are not saved)"),
                  {"embedding.weight": big[1:3], "head.weight": big[6:8]}))
    cases.append((N_("a fused query/key matrix saved as its two halves (views of one tensor)"),
                  {"attention.query.weight": fused[:4], "attention.key.weight": fused[4:]}))
    tied_view = flat[4:].view(4, 4)
    cases.append((N_("one flat buffer saved next to views into it (a bias, then a tied 4x4 matrix under two names)"),
                  {"flat_buffer": flat, "body.bias": flat[:4], "embedding.weight": tied_view,
                   "head.weight": tied_view}))
    return cases


# -- exercise 3: untie_and_register --------------------------------------------------------------------
def tied_models_and_optimisers():
    """(description, tied TinyLM, AdamW) whose groups set their own learning rate and weight decay (not the
    defaults); in the second, the tied matrix's group is not the first one."""
    cases = []
    for what, matrices_first, matrix_settings, vector_settings in (
            (N_("an AdamW whose first group holds the matrices"), True,
             {"lr": 0.02, "weight_decay": 0.1}, {"lr": 0.02, "weight_decay": 0.0}),
            (N_("an AdamW whose first group holds the vectors, the second the matrices"), False,
             {"lr": 0.03, "weight_decay": 0.2}, {"lr": 0.05, "weight_decay": 0.0})):
        with seeded(0):  # the learner's random state is left alone
            model = TinyLM(10, 4, tie=True)
        matrices = {"params": [p for p in model.parameters() if p.dim() >= 2], **matrix_settings}
        vectors = {"params": [p for p in model.parameters() if p.dim() < 2], **vector_settings}
        groups = [matrices, vectors] if matrices_first else [vectors, matrices]
        cases.append((what, model, torch.optim.AdamW(groups, lr=1e-3)))
    return cases
