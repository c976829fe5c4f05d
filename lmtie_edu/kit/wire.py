"""Plain data across the grading boundary: what a learner's function returned, and what it did to its arguments.

The grader sends a call's arguments to the process that runs the learner's code (:mod:`.answer_process`) as
``torch.save`` bytes: the grader's own objects, read there. What comes back must carry no behaviour, so
:func:`encode` (in the learner's process) writes JSON — numbers, strings, lists, and tensors as dtype, shape,
strides and the bytes of their memory — and :func:`decode` (in the grader's) rebuilds the result from that alone,
with the grader's own classes: no class, method or code of the learner's crosses. Identity and shared memory
survive the trip: a tensor that is one of the call's arguments (a model's Parameter, say) comes back as the
grader's very object, tensors that shared memory share it again, and what the call did to its arguments in place
(values written, a model's Parameter replaced, a parameter group added to an optimiser, keys put in a dict) is
done to the grader's arguments. Anything else the function returns (a module or object it made) arrives as an
:class:`Opaque` that names its type.
"""

from __future__ import annotations

import base64
import collections
import importlib
import json

import numpy as np
import torch
from torch import nn

DTYPES = {str(dtype): dtype for dtype in (
    torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.complex64, torch.complex128, torch.bool,
    torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64)}
MODULE_HOMES = ("torch.nn.", "lmtie_edu.")  # a module the function made is rebuilt from the grader's own class
NUMPY_SCALARS = {name: getattr(np, name) for name in (
    "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
    "float64", "complex64", "complex128")}


class Unreadable(Exception):
    """What came back is not the plain data the grader reads (or rebuilds onto its arguments)."""

    def __str__(self) -> str:
        return f"the grader cannot read what your function gave back ({self.args[0]})"


class Opaque:
    """Stands for an object the learner's function returned that is not plain data (a module it made, say)."""

    def __init__(self, kind: str):
        self.kind = kind

    def __repr__(self) -> str:
        return f"<a {self.kind} made by your code>"


def tensors_in(value) -> list[torch.Tensor]:
    """The tensors a call's argument holds, each once, in an order both processes compute alike."""
    found: dict[int, torch.Tensor] = {}

    def visit(item):
        if isinstance(item, torch.Tensor):
            found.setdefault(id(item), item)
        elif isinstance(item, nn.Module):
            for _, tensor in [*item.named_parameters(remove_duplicate=False), *item.named_buffers(remove_duplicate=False)]:
                visit(tensor)
        elif isinstance(item, torch.optim.Optimizer):
            for group in item.param_groups:
                visit(group["params"])
        elif isinstance(item, dict):
            for entry in item.values():
                visit(entry)
        elif isinstance(item, list | tuple):
            for entry in item:
                visit(entry)

    visit(value)
    return list(found.values())


# -- the learner's side ------------------------------------------------------------------------------------------
def _key(memory) -> tuple[int, int]:
    return memory.data_ptr(), memory.nbytes()


class Snapshot:
    """The call's arguments before the call: their tensors, and the memory each used (kept alive, so that no
    memory the call allocates can take an address the arguments' memory had)."""

    def __init__(self, args: list):
        self.args, self.originals = args, tensors_in(args)
        self.memories = [tensor.untyped_storage() for tensor in self.originals]


class _Encoder:
    def __init__(self, snapshot: Snapshot):
        self.args, self.storages, self.storage_index, self.tensors, self.tensor_index = snapshot.args, [], {}, [], {}
        self.before = [_key(memory) for memory in snapshot.memories]
        for tensor in snapshot.originals:  # the arguments' tensors first: index i on both sides is the same object
            self.tensor(tensor)

    def storage(self, tensor: torch.Tensor) -> int:
        memory = tensor.untyped_storage()
        if memory.device.type != "cpu":
            raise Unreadable(f"a tensor on {memory.device}")
        key = _key(memory)
        if key not in self.storage_index:
            raw = torch.empty(0, dtype=torch.uint8).set_(memory, 0, (memory.nbytes(),), (1,))
            self.storage_index[key] = len(self.storages)
            self.storages.append({"data": base64.b64encode(raw.numpy().tobytes()).decode("ascii"),
                                  "was": self.before.index(key) if key in self.before else None})
        return self.storage_index[key]

    def tensor(self, tensor: torch.Tensor) -> int:
        if id(tensor) not in self.tensor_index:
            if tensor.layout != torch.strided or str(tensor.dtype) not in DTYPES:
                raise Unreadable(f"a tensor of layout {tensor.layout} and dtype {tensor.dtype}")
            self.tensor_index[id(tensor)] = len(self.tensors)
            self.tensors.append({"storage": self.storage(tensor), "offset": tensor.storage_offset(),
                                 "shape": list(tensor.shape), "stride": list(tensor.stride()),
                                 "dtype": str(tensor.dtype), "requires_grad": tensor.requires_grad,
                                 "parameter": isinstance(tensor, nn.Parameter)})
        return self.tensor_index[id(tensor)]

    def value(self, item):
        for i, arg in enumerate(self.args):
            if item is arg and not isinstance(item, str | int | float | bool | type(None)):
                return {"arg": i}
        if item is None or type(item) in (bool, int, float, str):
            return item
        if isinstance(item, torch.Tensor):
            return {"tensor": self.tensor(item)}
        if isinstance(item, np.ndarray):
            return {"ndarray": self.tensor(torch.from_numpy(np.ascontiguousarray(item)))}
        if isinstance(item, np.generic) and type(item).__name__ in NUMPY_SCALARS:
            return {"numpy": type(item).__name__, "value": self.value(item.item())}
        for kind, base in (("bool", bool), ("int", int), ("float", float), ("str", str)):
            if isinstance(item, base):  # a subclass: its plain value
                return base(item) if kind != "str" else str.__str__(item)
        if isinstance(item, dict):
            return {"dict": [[self.value(key), self.value(entry)] for key, entry in item.items()]}
        if isinstance(item, tuple) and hasattr(item, "_fields"):  # a named tuple, e.g. load_state_dict's report
            return {"namedtuple": [type(item).__name__, list(item._fields), [self.value(entry) for entry in item]]}
        for kind, base in (("tuple", tuple), ("list", list), ("set", set | frozenset)):
            if isinstance(item, base):
                return {kind: [self.value(entry) for entry in item]}
        if isinstance(item, nn.Module) and type(item).__module__.startswith(MODULE_HOMES):
            return {"module": {
                "class": [type(item).__module__, type(item).__qualname__],
                "attributes": [[key, entry] for key, entry in vars(item).items()
                               if not key.startswith("_") and type(entry) in (bool, int, float, str)],
                "parameters": [[key, None if entry is None else self.tensor(entry)]
                               for key, entry in [*item._parameters.items(), *item._buffers.items()]],
                "modules": [[key, self.value(entry)] for key, entry in item._modules.items()]}}
        return {"opaque": type(item).__name__, "module": isinstance(item, nn.Module)}

    def state(self, arg):
        """What an argument holds after the call, where the call may have changed it in place."""
        if isinstance(arg, nn.Module):
            members = [*arg.named_parameters(remove_duplicate=False), *arg.named_buffers(remove_duplicate=False)]
            return {"members": [[name, self.tensor(tensor)] for name, tensor in members]}
        if isinstance(arg, torch.optim.Optimizer):
            return {"optimiser": [self.value(dict(group)) for group in arg.param_groups]}
        if isinstance(arg, dict | list):
            return {"contents": self.value(arg if isinstance(arg, list) else dict(arg))}
        return None


def encode(result, snapshot: Snapshot) -> bytes:
    """The JSON the learner's process sends back: the result, and each argument's state after the call."""
    encoder = _Encoder(snapshot)
    value, states = encoder.value(result), [encoder.state(arg) for arg in snapshot.args]
    return json.dumps({"storages": encoder.storages, "tensors": encoder.tensors, "value": value,
                       "states": states}).encode("utf-8")


# -- the grader's side -------------------------------------------------------------------------------------------
def _expect(condition: bool, what: str) -> None:
    if not condition:
        raise Unreadable(what)


class _Decoder:
    def __init__(self, message: dict, args: list, originals: list[torch.Tensor]):
        self.args = args
        before = [tensor.untyped_storage() for tensor in originals]
        self.storages = []
        for entry in message["storages"]:
            data = base64.b64decode(entry["data"], validate=True)
            raw = torch.frombuffer(bytearray(data), dtype=torch.uint8).clone() if data else torch.empty(0, dtype=torch.uint8)
            memory, was = raw.untyped_storage(), entry["was"]
            mine = before[was] if type(was) is int and 0 <= was < len(before) else None
            if mine is not None and mine.nbytes() == memory.nbytes():  # an argument's memory: written in place
                mine.copy_(memory)
                memory = mine
            self.storages.append(memory)
        self.tensors = [self._tensor(spec, originals[i] if i < len(originals) else None)
                        for i, spec in enumerate(message["tensors"])]

    def _tensor(self, spec: dict, original: torch.Tensor | None) -> torch.Tensor:
        _expect(spec["dtype"] in DTYPES and 0 <= spec["storage"] < len(self.storages), "a tensor's description")
        memory, place = self.storages[spec["storage"]], (spec["offset"], tuple(spec["shape"]), tuple(spec["stride"]))
        tensor = original if original is not None else torch.empty(0, dtype=DTYPES[spec["dtype"]])
        same = (original is not None and original.dtype == DTYPES[spec["dtype"]]
                and original.untyped_storage().data_ptr() == memory.data_ptr()
                and (original.storage_offset(), tuple(original.shape), tuple(original.stride())) == place)
        if not same:
            _expect(tensor.dtype == DTYPES[spec["dtype"]], "an argument's dtype changed by the call")
            with torch.no_grad():
                tensor.set_(memory, *place)
        if original is None and spec["parameter"]:
            return nn.Parameter(tensor, requires_grad=bool(spec["requires_grad"]))
        if tensor.is_floating_point() or tensor.is_complex() or not spec["requires_grad"]:
            tensor.requires_grad_(bool(spec["requires_grad"]))
        return tensor

    def value(self, node):
        if node is None or type(node) in (bool, int, float, str):
            return node
        _expect(isinstance(node, dict) and len(node) in (1, 2), "a value's description")
        kind, body = next(iter(node.items()))
        if kind == "arg":
            return self.args[body]
        if kind == "tensor":
            return self.tensors[body]
        if kind == "ndarray":
            return self.tensors[body].detach().clone().numpy()
        if kind == "numpy":
            _expect(body in NUMPY_SCALARS, "a NumPy scalar's type")
            return NUMPY_SCALARS[body](self.value(node["value"]))
        if kind == "dict":
            return {self.value(key): self.value(entry) for key, entry in body}
        if kind == "namedtuple":
            name, names, entries = body
            _expect(str(name).isidentifier() and all(str(n).isidentifier() for n in names), "a named tuple")
            return collections.namedtuple(str(name), [str(n) for n in names])(*(self.value(e) for e in entries))
        if kind in ("tuple", "list", "set"):
            return {"tuple": tuple, "list": list, "set": set}[kind](self.value(entry) for entry in body)
        if kind == "opaque":  # a class of the learner's type name, so that "got a <name>" reads as in the kernel
            name = str(body) if str(body).isidentifier() else "object"
            if node.get("module") is True:  # a module of the learner's own class: an empty one of that name here
                return type(name, (nn.Module,), {})()
            return type(name, (Opaque,), {})(name)
        if kind == "module":
            return self._module(body)
        raise Unreadable(f"a value of kind {kind!r}")

    def _module(self, spec: dict) -> nn.Module:
        """A module the learner's function made, as an instance of the grader's class of that name."""
        home, name = (str(part) for part in spec["class"])
        _expect(home.startswith(MODULE_HOMES) and all(part.isidentifier() for part in name.split(".")),
                "a module's class")
        kind = importlib.import_module(home)
        for part in name.split("."):
            kind = getattr(kind, part)
        _expect(isinstance(kind, type) and issubclass(kind, nn.Module), "a module's class")
        module = kind.__new__(kind)
        nn.Module.__init__(module)
        for key, entry in spec["attributes"]:
            _expect(str(key).isidentifier() and not str(key).startswith("_") and type(entry) in (bool, int, float, str),
                    "a module's attribute")
            object.__setattr__(module, key, entry)
        for key, index in spec["parameters"]:
            tensor = None if index is None else self.tensors[index]
            (module._parameters if tensor is None or isinstance(tensor, nn.Parameter) else module._buffers)[key] = tensor
        for key, child in spec["modules"]:
            module._modules[str(key)] = self.value(child)
            _expect(isinstance(module._modules[str(key)], nn.Module | None), "a module's submodule")
        return module

    def restore(self, arg, state) -> None:
        """Do to the grader's argument what the call did to the learner's copy of it."""
        if state is None:
            return
        if "members" in state:
            _expect(isinstance(arg, nn.Module), "a module's state")
            for name, index in state["members"]:
                owner_name, _, leaf = str(name).rpartition(".")
                owner, tensor = arg.get_submodule(owner_name), self.tensors[index]
                if getattr(owner, leaf, None) is not tensor:
                    setattr(owner, leaf, tensor)
        elif "optimiser" in state:
            _expect(isinstance(arg, torch.optim.Optimizer), "an optimiser's state")
            arg.param_groups[:] = [self.value(group) for group in state["optimiser"]]
        else:
            contents = self.value(state["contents"])
            _expect(isinstance(arg, dict | list) and type(contents) is type(arg if isinstance(arg, list) else {}),
                    "a container's contents")
            arg.clear()
            (arg.extend if isinstance(arg, list) else arg.update)(contents)


def decode(payload: bytes, args: list, originals: list[torch.Tensor]):
    """The result :func:`encode` sent, rebuilt from its data; the grader's ``args`` changed as the call changed its."""
    try:
        message = json.loads(payload.decode("utf-8"))
        _expect(isinstance(message, dict) and len(message.get("states", ())) == len(args), "the message's shape")
        decoder = _Decoder(message, args, originals)
        result = decoder.value(message["value"])
        for arg, state in zip(args, message["states"], strict=True):
            decoder.restore(arg, state)
        return result
    except (ValueError, KeyError, TypeError, IndexError, AttributeError, RuntimeError) as error:  # not Unreadable
        raise Unreadable(f"{type(error).__name__}: {error}") from None

