"""Judge the real cuBLAS baselines with the suite's own references (GPU only).

For every cublas:: row and the chosen tiers, each case is built on the GPU, the baseline (the ctypes
binding derived from the routine's declaration) runs on a clone, and its outputs are compared with the
row's reference exactly as a submission's would be (logical region with the tolerance, the rest bitwise;
inputs unchanged; the return is the output argument). A mismatch means the declaration, the reference,
the masks or the case data disagree with cuBLAS. Prints one line per routine and exits 1 on any failure.

Usage: PYTHONPATH=src python3 bench/cublas_baseline_check.py [smoke,heldout,full] [max cases per tier]
"""
from __future__ import annotations

import sys
import time

import torch

from kernelgenbench.suite.compare import compare_slot, unchanged
from kernelgenbench.suite.registry import select


def main() -> int:
    tiers = (sys.argv[1] if len(sys.argv) > 1 else "smoke,heldout").split(",")
    limit = int(sys.argv[2]) if len(sys.argv) > 2 else 10 ** 9
    dev = torch.device("cuda")
    bad = 0
    for op in select(source="cublas"):
        t0, n, fails = time.time(), 0, []
        for tier in tiers:
            cases = op.cases(tier)
            step = max(1, len(cases) // limit)
            for c in cases[::step]:
                gen = torch.Generator(device=dev).manual_seed(c.seed)
                call = op.build(c.params, dev, gen)
                ref_call = call.clone()
                run = call.clone()
                fn, _ = op.baseline(run, "cuda")
                try:
                    ret = fn(run)
                    torch.cuda.synchronize()
                except Exception as exc:                       # noqa: BLE001 - reported
                    fails.append(f"{c.id} {c.describe()}: {type(exc).__name__}: {exc}")
                    continue
                n += 1
                for e in op.reference(c.params, ref_call):
                    if e.slot == "return":
                        want = run.get(int(e.alias.split(".")[1]))
                        ok = ret is want
                        msg = "" if ok else "return is not the output argument"
                    else:
                        res = compare_slot(e, run.get(int(e.slot.split(".")[1])))
                        ok, msg = res.ok, res.message
                    if not ok:
                        fails.append(f"{c.id} {c.describe()}: {msg}")
                for s in call.unchanged_slots():
                    res = unchanged(call.get(s), run.get(s), f"arg.{s}")
                    if not res.ok:
                        fails.append(f"{c.id}: {res.message}")
        status = "ok" if not fails else f"{len(fails)} FAILED"
        print(f"{op.id:44s} {n:5d} cases {time.time() - t0:6.1f}s {status}", flush=True)
        for f in fails[:3]:
            print("    " + f[:400], flush=True)
        bad += bool(fails)
    print(f"{bad} routines with failures")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
