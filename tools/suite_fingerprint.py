"""Fingerprint the suite: every operator's row facts and, per tier, every case's parameters, seed, timing
flag, cost and a hash of its built inputs and of its reference (seeded on the CPU as the verifier seeds
them). Two fingerprints taken before and after a refactoring of ``suite/`` must be equal line for line:
the same operators, grids, inputs, references and scan policies.

    PYTHONPATH=src python tools/suite_fingerprint.py OUT.jsonl [--jobs 2] [--no-ref] [--ops aten::add ...]
    diff <(sort BEFORE.jsonl) <(sort AFTER.jsonl)

A line per operator (``"kind": "row"``) and a line per case (``"kind": "case"``). Tensors hash their whole
storage, sizes, strides, offset, dtype and lazy conj/neg bits; callables (custom judges) hash by qualified
name; the row line holds the names the L1 scan treats as the operator itself.
"""
from __future__ import annotations

import argparse
import dataclasses
import hashlib
import inspect
import json
import multiprocessing
import re
import sys
import time
from typing import Any

import torch


def _tensor_digest(t: torch.Tensor) -> str:
    h = hashlib.blake2b(digest_size=16)
    h.update(repr((str(t.dtype), tuple(t.shape), tuple(t.stride()), t.storage_offset(), t.device.type,
                   t.is_conj(), t.is_neg(), t.requires_grad)).encode())
    if t.is_conj():
        t = t.resolve_conj()
    if t.is_neg():
        t = t.resolve_neg()
    storage = t.untyped_storage()
    raw = torch.empty(0, dtype=torch.uint8).set_(storage)
    h.update(raw.numpy().tobytes())
    return h.hexdigest()


def _digest(obj: Any) -> Any:
    """A JSON-able, deterministic stand-in for ``obj`` (tensors by digest, callables by qualified name)."""
    if isinstance(obj, torch.Tensor):
        return {"tensor": _tensor_digest(obj)}
    if isinstance(obj, (list, tuple)):
        return {type(obj).__name__: [_digest(o) for o in obj]}
    if isinstance(obj, dict):
        return {"dict": [[str(k), _digest(v)] for k, v in obj.items()]}
    if isinstance(obj, torch.dtype):
        return {"dtype": str(obj)}
    if isinstance(obj, torch.device):
        return {"device": obj.type}
    if isinstance(obj, torch.Generator):
        return {"generator": obj.initial_seed()}
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {type(obj).__name__: [[f.name, _digest(getattr(obj, f.name))] for f in dataclasses.fields(obj)]}
    if callable(obj):
        func = getattr(obj, "func", obj)  # functools.partial
        return {"callable": getattr(func, "__qualname__", type(func).__qualname__)}
    if isinstance(obj, float) and obj != obj:
        return {"float": "nan"}
    if isinstance(obj, (str, int, float, bool)) or obj is None:
        return obj
    if hasattr(obj, "__dict__"):  # a plain object (a random row's law): its class and state, never its address
        return {type(obj).__qualname__: [[k, _digest(v)] for k, v in sorted(vars(obj).items())]}
    return {"repr": re.sub(r" at 0x[0-9a-fA-F]+", "", repr(obj))}


def _hash(obj: Any) -> str:
    return hashlib.blake2b(json.dumps(_digest(obj), sort_keys=True).encode(), digest_size=16).hexdigest()


def _scan_names(op: Any) -> list[str]:
    """The names the L1 scan treats as the operator itself (its own ops and their aliases)."""
    from kernelgenbench.verify.scan import scanner

    params = inspect.signature(scanner._Scanner.__init__).parameters
    kwargs: dict[str, Any] = {}
    if "aliases" in params:
        kwargs["aliases"] = frozenset(getattr(op, "aliases", frozenset()))
    s = scanner._Scanner("", frozenset(getattr(op, "own_ops", frozenset())), getattr(op, "allow_copies", True),
                         frozenset(getattr(op, "allow_methods", frozenset())), **kwargs)
    return sorted(s.own_names)


def _row(op: Any) -> dict[str, Any]:
    return {
        "kind": "row", "op": op.id, "name": op.name, "filename": op.filename, "category": op.category,
        "section": op.section, "semantics": op.semantics, "notes": op.notes, "describe": _digest(op.describe()),
        "interface": _digest(op.interface), "signature": op.interface.signature,
        "required": op.interface.required_names(), "own_ops": sorted(getattr(op, "own_ops", ())),
        "allow_copies": getattr(op, "allow_copies", None), "allow_methods": sorted(op.allow_methods),
        "allow_trace": sorted(op.allow_trace), "data_movement": op.data_movement,
        "tolerance_text": op.tolerance_text, "atol_text": op.atol_text, "baseline_label": op.baseline_label(),
        "nothing_to_compute": _digest(op.nothing_to_compute), "scan_names": _scan_names(op),
        "class": type(op).__name__,
    }


def _cases(args: tuple[str, bool]) -> list[dict[str, Any]]:
    op_id, ref = args
    torch.set_num_threads(1)
    from kernelgenbench.suite.common import generator
    from kernelgenbench.suite.registry import get_operator
    from kernelgenbench.suite.tiers import TIERS

    op = get_operator(op_id)
    cpu = torch.device("cpu")
    out = [_row(op)]
    t0 = time.perf_counter()
    for tier in TIERS:
        for case in op.cases(tier):
            line: dict[str, Any] = {
                "kind": "case", "op": op.id, "tier": tier, "id": case.id, "params": json.dumps(case.params),
                "seed": case.seed, "timed": case.timed, "describe": case.describe(),
                "cost": _digest(op.cost(case.params)),
                "dtypes": sorted(str(d) for d in op.tensor_dtypes(case.params)),
            }
            try:
                call = op.build(case.params, cpu, generator(cpu, case.seed))
                line["inputs"] = _hash(call)
                if ref:
                    line["reference"] = _hash(op.reference(case.params, call.clone()))
                    line["inputs_after_reference"] = _hash(call)
            except Exception as exc:  # noqa: BLE001 - recorded, compared like any other outcome
                line["error"] = f"{type(exc).__name__}: {exc}"
            out.append(line)
    print(f"{op.id}: {len(out) - 1} cases in {time.perf_counter() - t0:.1f}s", file=sys.stderr, flush=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--no-ref", action="store_true", help="hash inputs only, not references")
    ap.add_argument("--ops", nargs="*", help="only these operator ids")
    a = ap.parse_args()
    from kernelgenbench.suite.registry import all_operators

    ids = a.ops or [o.id for o in all_operators()]
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(a.jobs, maxtasksperchild=1) as pool, open(a.out, "w") as f:
        for lines in pool.imap(_cases, [(i, not a.no_ref) for i in ids]):
            for line in lines:
                f.write(json.dumps(line, sort_keys=True) + "\n")
            f.flush()  # an operator's lines are on disk as soon as it is done


if __name__ == "__main__":
    main()
