"""Where a timed case's harness time goes, without a GPU: the work the sandbox child and the verifier do per timed case
of an operator, measured on this machine (gt36: vllm::grouped_topk's full tier timed 3 of 96 cases in 218 s on an H100).

Per case, as one job's child does it (sandbox/child.py ``make_baseline`` and ``probe_baseline``,
sandbox/timed_loop.py's block builds, verify/timing.py's rebuilds of judged repetitions): 2 warm-up builds; the
baseline (a vLLM operator's ``pick_baseline``: ``torch._dynamo.reset()``, ``torch.compile``, its first call, the eager
check); the probe (the other warm-up set and 3 fresh builds, each run); ``--timed`` more builds (timed sets and
rebuilds). Reports CPU seconds of this process and its waited-for children (1 intra-op thread; compiles run
in-process with ``TORCHINDUCTOR_COMPILE_THREADS=1`` set by the caller), which a shared machine's load moves less than
wall time; graphs compiled on the probe sets; Inductor's FX graph cache hits and misses so far (one cache for all the
cases, as the job's). No timing: the CPU does not time.

    TORCHINDUCTOR_COMPILE_THREADS=1 TORCHINDUCTOR_CACHE_DIR=$(mktemp -d) PYTHONPATH=src \\
        python bench/case_cost.py vllm::grouped_topk --tier full --cases 0,2,34,66
"""
from __future__ import annotations

import argparse
import resource
import time

import torch


def cpu_s() -> float:
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + c.ru_utime + c.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("op")
    ap.add_argument("--tier", default="full")
    ap.add_argument("--cases", default="0", help="indices among the tier's timed cases, comma-separated")
    ap.add_argument("--timed", type=int, default=13, help="builds beyond the warm-up and probe sets (default 13: 10 "
                                                          "timed sets, 3 judged rebuilds)")
    ap.add_argument("--backend", default=None, help="torch.compile backend for vLLM baselines (default inductor)")
    args = ap.parse_args()
    torch.set_num_threads(1)
    from torch._dynamo.utils import counters

    from kernelgenbench.suite.common import generator
    from kernelgenbench.suite.registry import get_operator
    from kernelgenbench.suite.vllm import common as vc

    vc.vllm_ops = lambda: None  # the native-compiled baseline, as where vLLM does not import
    if args.backend:
        pick = vc.pick_baseline
        vc.pick_baseline = lambda name, native, c, prefer=None, **kw: pick(name, native, c, prefer,
                                                                           **{**kw, "backend": args.backend})
    op = get_operator(args.op)
    dev = torch.device("cpu")
    timed = [p for p in op.grid(args.tier) if op.timed(p)]
    total = {"build": 0.0, "baseline": 0.0, "probe": 0.0}
    for i in [int(x) for x in args.cases.split(",")]:
        p = timed[i]
        spent = {"build": 0.0}

        def build(seed: int, p: dict = p, spent: dict = spent):
            t0 = cpu_s()
            c = op.build(p, dev, generator(dev, seed))
            spent["build"] += cpu_s() - t0
            return c
        calls = [build(1), build(2)]
        t0 = cpu_s()
        fn, label = op.baseline(calls[0], None)
        base = cpu_s() - t0
        before, b0, t0 = getattr(fn, "compiles", 0), spent["build"], cpu_s()
        fn(calls[1].clone())
        for s in range(3):
            fn(build(100 + s))
        probe = cpu_s() - t0 - (spent["build"] - b0)
        for s in range(args.timed):
            build(200 + s)
        total["build"] += spent["build"]
        total["baseline"] += base
        total["probe"] += probe
        print(f"case {i} {p}\n  builds ({5 + args.timed}) {spent['build']:.2f} s, baseline {base:.2f} s, probe runs "
              f"{probe:.2f} s, probe compiles {getattr(fn, 'compiles', 0) - before}, FX cache hit/miss so far "
              f"{counters['inductor']['fxgraph_cache_hit']}/{counters['inductor']['fxgraph_cache_miss']}\n"
              f"  {label}", flush=True)
    print("total CPU s:", {k: round(v, 2) for k, v in total.items()})


if __name__ == "__main__":
    main()
