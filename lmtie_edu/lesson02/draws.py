"""Lesson 02, optional §6: count the random numbers a model's construction draws, without drawing them.

Inside ``with count_random_draws() as counter:`` every call of a ``torch.nn.init`` function or of a tensor's
in-place random method (``normal_``, ``uniform_``, ...) adds the number of elements it would fill to
``counter.count`` and returns its tensor untouched, so counting the 124 million weights of GPT-2 small takes a
fraction of a second. The tensors keep whatever memory held: use the model only for counting.
"""

from __future__ import annotations

from torch.overrides import TorchFunctionMode

#: the functions that fill a tensor with random numbers (torch.nn.init's and the in-place tensor methods)
RANDOM_FILLS = frozenset({
    "normal_", "uniform_", "trunc_normal_", "kaiming_uniform_", "kaiming_normal_", "xavier_uniform_",
    "xavier_normal_", "orthogonal_", "sparse_", "random_", "bernoulli_", "exponential_", "cauchy_",
    "log_normal_", "geometric_",
})


class count_random_draws(TorchFunctionMode):  # noqa: N801 — used as a context manager, named like one
    """Count (and skip) the random fills made while the ``with`` block runs."""

    def __init__(self):
        super().__init__()
        self.count = 0
        self.calls = 0

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if getattr(func, "__name__", "") in RANDOM_FILLS:
            tensor = args[0] if args else kwargs.get("tensor")
            if tensor is not None:
                self.count += tensor.numel()
                self.calls += 1
                return tensor
        return func(*args, **kwargs)
