"""Where the time of a vLLM operator's native-compiled baseline goes, per timed full-tier case, on this machine.

For each case the native reference (suite/vllm/common.py ``pick_baseline``'s ``native``) is compiled three times
from a fresh dynamo cache: with backend ``eager`` (dynamo's trace only), ``aot_eager`` (plus AOT autograd) and
``inductor`` (plus code generation and its compile: C++ on a CPU, Triton on a GPU), each time on a clone of the
case's warm-up set, so that

* dynamo = first call(eager) - a compiled call; AOT = first call(aot_eager) - first call(eager);
* Inductor = first call(inductor) - first call(aot_eager) (Inductor's FX graph cache off: a cold compile, as the
  first compile of a graph in a job's fresh cache is; ``cached``: the same compile again with the cache on and warm);
* cross-check: the eager reference on another clone plus ``disagreement`` (what ``_compiled`` adds);
* probe: the compiled baseline on 4 more input sets (the child's ``probe_baseline``: the other warm-up set and 3
  fresh ones), with the graphs it compiled there.

Counts: the graphs dynamo compiled (``unique_graphs``), graph breaks, recompiles, and Inductor's generated kernels
(on a GPU each is one Triton compile). On the CPU (Inductor's C++ backend) or a GPU (``--device cuda``: Triton)::

    PYTHONPATH=src .venv/bin/python bench/baseline_compile_profile.py vllm::rms_norm --cases 2 --json out.jsonl

The process's first compile (imports, the compiler's probe, Inductor's worker pool) is made on a throwaway function
first; the sandbox child pays it in its job's first timed case.

Each case prints one line; ``--json`` appends the same as a JSON object per line.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from typing import Any

os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", tempfile.mkdtemp(prefix="bcp-inductor-"))

import torch  # noqa: E402
import torch._dynamo  # noqa: E402
from torch._dynamo.utils import counters  # noqa: E402

from kernelgenbench.suite.common import generator  # noqa: E402
from kernelgenbench.suite.registry import get_operator  # noqa: E402
from kernelgenbench.suite.vllm import common as vc  # noqa: E402

#: where inputs are built and the reference runs (``--device``)
DEV = [torch.device("cpu")]


def _sync() -> None:
    if DEV[0].type == "cuda":
        torch.cuda.synchronize()


def native_of(op: Any, call: Any) -> tuple[Any, bool]:
    """``(native, dynamic)``: the native reference the op's baseline hook would compile, and whether with dynamic
    shapes (captured from its ``pick_baseline`` call; vLLM made unimportable)."""
    seen: dict[str, Any] = {}
    real_pick, real_ops = vc.pick_baseline, vc.vllm_ops

    def capture(name, native, c, prefer=None, **kw):
        seen.update(native=native, dynamic=bool(kw.get("dynamic_reason")), eager=kw.get("eager_reason"))
        return native, "captured"
    vc.pick_baseline, vc.vllm_ops = capture, (lambda: None)
    try:
        op.baseline(call, None)
    finally:
        vc.pick_baseline, vc.vllm_ops = real_pick, real_ops
    if seen.get("eager"):
        raise SystemExit(f"{op.id}: its baseline is never compiled ({seen['eager']})")
    return seen["native"], seen["dynamic"]


def first_call(native: Any, call: Any, backend: str, dynamic: bool, cache: bool = False) -> tuple[float, Any, dict]:
    """Seconds of the first call of ``native`` compiled with ``backend`` from a fresh dynamo cache, the compiled
    callable, and dynamo's counts of that compile."""
    from torch._inductor import config as ic
    from torch._inductor import metrics

    written, unchanged = call.written, call.unchanged

    def core(*args: Any, **kwargs: Any) -> Any:
        return native(vc.Call(list(args), dict(kwargs), written, unchanged))

    torch._dynamo.reset()
    counters.clear()
    metrics.reset()
    warm = call.clone()
    with ic.patch(fx_graph_cache=cache):
        fn = torch.compile(core, dynamic=dynamic, backend=backend)  # as _compiled's first (default) compile
        _sync()
        t0 = time.perf_counter()
        fn(*warm.args, **warm.kwargs)
        _sync()
        s = time.perf_counter() - t0
    counts = {"graphs": int(counters["stats"]["unique_graphs"]),
              "breaks": int(sum(counters["graph_break"].values())),
              "recompiles": int(sum(counters["recompiles"].values())) if "recompiles" in counters else 0,
              "kernels": int(metrics.generated_kernel_count)}
    return s, (fn, warm), counts


def profile_case(op: Any, case: Any) -> dict[str, Any]:
    """One case's phases (s) and counts."""
    dev = DEV[0]
    t0 = time.perf_counter()
    call = op.build(case.params, dev, generator(dev, case.seed ^ 0x9E3779B1))
    _sync()
    build = time.perf_counter() - t0
    native, dynamic = native_of(op, call)
    out: dict[str, Any] = {"op": op.id, "case": case.id, "params": case.params, "dynamic": dynamic,
                           "build": round(build, 3)}
    s_eager, (fn, warm), c_eager = first_call(native, call, "eager", dynamic)
    again = call.clone()
    _sync()
    t0 = time.perf_counter()
    fn(*again.args, **again.kwargs)
    _sync()
    run = time.perf_counter() - t0
    s_aot, _, _ = first_call(native, call, "aot_eager", dynamic)
    s_ind, (fn, warm), c_ind = first_call(native, call, "inductor", dynamic)
    t0 = time.perf_counter()
    plain = call.clone()
    eager_ret = native(plain)
    off = vc.disagreement([vc._written(warm)], [vc._written(plain)]) if call.written else None
    _sync()
    cross = time.perf_counter() - t0
    base = vc.CompiledBaseline(fn, native)
    t0 = time.perf_counter()
    for i in range(4):
        base(op.build(case.params, dev, generator(dev, case.seed ^ (0x5EED + i))))
    _sync()
    probe = time.perf_counter() - t0
    # the same compile with Inductor's FX graph cache on, then again warm (what a cache hit leaves)
    first_call(native, call, "inductor", dynamic, cache=True)
    s_cached, _, _ = first_call(native, call, "inductor", dynamic, cache=True)
    del eager_ret
    out.update(run=round(run, 3), dynamo=round(s_eager - run, 3), aot=round(s_aot - s_eager, 3),
               inductor=round(s_ind - s_aot, 3), first_inductor=round(s_ind, 3), cross_check=round(cross, 3),
               probe=round(probe, 3), probe_compiles=base.compiles, cached_first_call=round(s_cached, 3),
               disagrees=off, **{f"eager_{k}": v for k, v in c_eager.items() if k != "kernels"},
               kernels=c_ind["kernels"], inductor_graphs=c_ind["graphs"])
    return out


def signature(value: Any) -> Any:
    """What a static-shape compile of a call specialises on: each tensor's shape, strides, offset and dtype, every
    other argument's value."""
    if isinstance(value, torch.Tensor):
        return ("T", tuple(value.shape), tuple(value.stride()), value.storage_offset(), str(value.dtype))
    if isinstance(value, (list, tuple)):
        return tuple(signature(v) for v in value)
    if isinstance(value, dict):
        return tuple((k, signature(v)) for k, v in sorted(value.items()))
    return ("V", repr(value))


def signatures(op: Any) -> tuple[int, int, int]:
    """``(timed cases, distinct compile signatures, most cases sharing one)`` of ``op``'s full tier (inputs built on
    ``--device``): how much one compile per signature (instead of per case) could save."""
    dev = DEV[0]
    seen: dict[Any, int] = {}
    timed = [c for c in op.cases("full") if c.timed]
    for case in timed:
        call = op.build(case.params, dev, generator(dev, case.seed))
        key = (signature(call.args), signature(call.kwargs))
        seen[key] = seen.get(key, 0) + 1
    return len(timed), len(seen), max(seen.values(), default=0)


def main(argv: list[str] | None = None) -> None:
    """Profile the first ``--cases`` timed full-tier cases of each operator (``--every``: every n-th)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("ops", nargs="+")
    ap.add_argument("--cases", type=int, default=2)
    ap.add_argument("--every", type=int, default=1)
    ap.add_argument("--json")
    ap.add_argument("--device", default="cpu", help="cpu (Inductor's C++ backend) or cuda (Triton)")
    ap.add_argument("--signatures", action="store_true", help="only count the timed cases' distinct compile "
                                                                "signatures per operator (nothing compiled)")
    a = ap.parse_args(argv)
    DEV[0] = torch.device(a.device)
    if a.signatures:
        for op_id in a.ops:
            timed, distinct, most = signatures(get_operator(op_id))
            print(json.dumps({"op": op_id, "timed": timed, "signatures": distinct, "most_sharing_one": most}))
        return
    from torch._inductor import config as ic

    print(json.dumps({"device": a.device, "compile_threads": ic.compile_threads, "torch": torch.__version__}),
          flush=True)
    if DEV[0].type == "cpu":
        torch.set_num_threads(1)
    # one-time costs (imports, the C++ compiler's probe) out of the first case: a throwaway compile per backend
    for backend in ("eager", "aot_eager", "inductor"):
        torch._dynamo.reset()
        torch.compile(lambda x: (x * 3.0).sin().sum(0), backend=backend)(torch.randn(8, 8, device=DEV[0]))
    for op_id in a.ops:
        op = get_operator(op_id)
        timed = [c for c in op.cases("full") if c.timed][::a.every][:a.cases]
        for case in timed:
            rec = profile_case(op, case)
            print(json.dumps(rec), flush=True)
            if a.json:
                with open(a.json, "a") as f:
                    f.write(json.dumps(rec) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
