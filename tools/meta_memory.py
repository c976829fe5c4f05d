"""How much memory a meta-device build really takes (for the timing registry in tools/bench.py).

Not part of the lesson's reasoning: the lesson only needs the fact that a meta build holds shapes,
not values. Measured in a fresh child process so that earlier work cannot hide the growth.
"""

from __future__ import annotations

import functools
import json
import os
import subprocess
import sys

from lmtie_edu.lesson04.architectures import ARCHITECTURES, build_uncached
from lmtie_edu.shared.models import count_parameters
from lmtie_edu.shared.validation import check_choice


def _resident_mib() -> float:
    """Resident set size of this process (Linux /proc)."""
    with open("/proc/self/statm") as statm:
        pages = int(statm.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def memory_probe(name: str = "Llama-2-70B") -> None:
    """Run in a fresh child process: print the resident memory a meta build adds, as JSON."""
    import tracemalloc

    # Warm-up with a smaller model of the same family: the lazy import of its modeling code and
    # first-use caches are paid once per process and are not the memory the model itself holds.
    family = ARCHITECTURES[name].family
    build_uncached(min((a for a in ARCHITECTURES.values() if a.family == family), key=lambda a: a.d_model).name)
    before = _resident_mib()
    tracemalloc.start()
    model = build_uncached(name)
    python_peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    after = _resident_mib()
    print(json.dumps({"extra_mib": round(after - before, 1), "python_peak_mib": round(python_peak, 1),
                      "parameters": count_parameters(model)}))


@functools.cache
def build_memory(name: str = "Llama-2-70B") -> dict:
    """Extra memory of building ``name`` on the meta device, measured in a fresh Python process.

    Measured as the growth of the resident set size (RSS) from just before to just after the build,
    with the model still alive, after a warm-up build has paid for imports. RSS counts the C++
    tensor metadata that ``tracemalloc`` cannot see; a fresh process keeps freed memory from earlier
    work from hiding the growth. ``python_peak_mib`` is tracemalloc's peak of Python allocations
    during the build, for comparison.
    """
    check_choice(name, "name", ARCHITECTURES)
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # the child imports tools.meta_memory
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [repo, os.environ.get("PYTHONPATH")])))
    done = subprocess.run([sys.executable, "-c", f"from tools.meta_memory import memory_probe; "
                           f"memory_probe({name!r})"], capture_output=True, text=True, check=True, env=env)
    return json.loads(done.stdout.strip().splitlines()[-1])
