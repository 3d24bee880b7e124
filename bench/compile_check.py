"""Compile, on a machine without a GPU, every Triton kernel that submissions launch on their cases, for an NVIDIA
target (default sm_90, the H200), and report the kernels that do not compile.

Why: the CPU interpreter runs a kernel's Python, so it accepts what the GPU compiler refuses (a ``tl.dot`` with a
block dimension under 16, an fp64 dot, a type the lowering rejects, a shared-memory budget overrun) and what only
fails at compile time on the GPU shows up first in a gate on the H200, where device time is scarce. This check
runs each operator's cases on the CPU exactly as the interpreter would, but every launch ``kernel[grid](...)`` is
first compiled by Triton's real NVIDIA backend for the target (Triton's own specialisation of the actual
arguments: dtypes, constexprs, integer and alignment specialisations, ``num_warps``/``num_stages``; every config
of an autotuned kernel), then executed by the interpreter so that the host code that follows sees real results.
Only compilation is checked here (the GPU gate judges what the kernels compute and how fast).

Each operator runs in its own process (ATen registrations and module state never mix). Not a test of the harness:
a developer's check before spending device time (README, "The GPU gate").

Usage (from the repository root)::

    PYTHONPATH=src python bench/compile_check.py                      # every oracle in solutions/, smoke tier
    PYTHONPATH=src python bench/compile_check.py --source vllm --jobs 2
    PYTHONPATH=src python bench/compile_check.py --op vllm::gptq_gemm --folder my_submissions --arch 90

Exit status 1 when a kernel failed to compile (a case whose host code fails on the CPU is reported, not failed:
the harness judges cases). Needs Triton's NVIDIA backend (the pip wheel has it, with ptxas); no CUDA driver.
"""
from __future__ import annotations

import argparse
import contextlib
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


# --------------------------------------------------------------------------------------------- one operator
def _check_one(op_id: str, submission: Path, tier: str, arch: int, max_cases: int,
               snapshots: bool = False) -> dict[str, Any]:
    """Runs in a fresh process: compile every launch of ``submission`` on ``op_id``'s ``tier`` cases for sm_<arch>.
    ``snapshots``: also run the sandbox child's snapshot checks after every GPU compile and every case
    (:func:`_snapshot_audit`), and after making the operator's ``native-compiled`` baseline where it has one
    (``torch.compile`` with Inductor, on the CPU here), as a GPU run's timing commands make it in the same child."""
    os.environ["TRITON_INTERPRET"] = "0"       # real JITFunctions (kernels are interpreted by hand, below)
    import torch
    import triton.runtime.autotuner as autotuner
    from triton.backends.compiler import GPUTarget
    from triton.runtime.driver import driver
    from triton.runtime.interpreter import InterpretedFunction, _patch_lang
    from triton.runtime.jit import JITFunction

    from kernelgenbench.platforms import PROFILES
    from kernelgenbench.sandbox import interpreter as kgb_interp
    from kernelgenbench.sandbox.drive import invoke, make_impl
    from kernelgenbench.suite.common import generator
    from kernelgenbench.suite.registry import get_operator

    class CompileOnlyDriver:
        """What JITFunction.run asks of the active driver before it compiles (no device behind it)."""

        def __init__(self) -> None:
            self.target = GPUTarget("cuda", arch, 32)

        def get_current_device(self) -> int:
            return 0

        def get_current_stream(self, device: Any = None) -> int:
            return 0

        def get_current_target(self) -> Any:
            return self.target

        def is_active(self) -> bool:
            return True

        def get_active_torch_device(self) -> Any:
            return torch.device("cpu")   # the interpreter's tensors (the kernels run interpreted, below)

        def get_benchmarker(self) -> Any:
            return kgb_interp.rank_configs   # Autotuner.do_bench: the interpreter's ranking, cached as on a GPU

        class utils:  # noqa: N801 - driver.active.utils.get_device_properties(i): the interpreter's sm_90 figures
            @staticmethod
            def get_device_properties(device: Any = None) -> dict[str, int]:
                return dict(kgb_interp.SM90_DRIVER_PROPERTIES)

    # libdevice: the real functions for the compiler, tl.math stand-ins for the interpreter (the harness's patch)
    libmods = []
    for name in ("triton.language.extra.libdevice", "triton.language.extra.cuda.libdevice"):
        try:
            libmods.append(importlib.import_module(name))
        except ImportError:
            pass
    libmods += kgb_interp.gdc_modules()             # tl.extra.cuda.gdc_wait/gdc_launch_dependents: no-ops there
    real = [dict(vars(m)) for m in libmods]
    kgb_interp.install_interpreter_patches()        # autotune ranking, libdevice stand-ins, bounds checks
    mapped = [dict(vars(m)) for m in libmods]
    # after the interpreter's patches, which make the active driver a CPU stand-in (red team 26): the compiler asks
    # this one for the GPU target (set before them, as until session 34, every launch failed "0 active drivers")
    driver.set_active(CompileOnlyDriver())

    @contextlib.contextmanager
    def libdevice(which: list[dict[str, Any]], fn: Any = None):
        for m, attrs in zip(libmods, which):
            for k, v in attrs.items():
                if not k.startswith("__"):
                    setattr(m, k, v)
        # a libdevice function the submission bound by name at import (``from triton.language.extra.libdevice
        # import rsqrt``) holds the interpreter's stand-in in its globals: the compiler gets Triton's own there
        g = getattr(fn, "__globals__", None) if which is real else None
        swapped = {k: v for k, v in (g or {}).items() if kgb_interp.libdevice_original(v) is not None}
        for k, v in swapped.items():
            g[k] = kgb_interp.libdevice_original(v)
        try:
            yield
        finally:
            for k, v in swapped.items():
                g[k] = v
            for m, attrs in zip(libmods, mapped):
                for k, v in attrs.items():
                    if not k.startswith("__"):
                        setattr(m, k, v)

    compiled: dict[str, dict[str, Any]] = {}   # specialisation key -> outcome
    errors: list[dict[str, Any]] = []
    orig_run = JITFunction.run
    interp_cache: dict[Any, Any] = {}

    def interp(fn: Any) -> Any:
        if fn not in interp_cache:
            interp_cache[fn] = InterpretedFunction(fn)
        return interp_cache[fn]

    #: the shared memory one block may use (bytes) by compute capability: a kernel that needs more fails to load
    smem_limit = {90: 232448, 80: 166912, 89: 101376, 86: 101376}.get(arch)
    pruned: list[str] = []
    in_autotune = [False]
    prunable = ("OutOfResources", "CompileTimeAssertionFailure", "PTXASError")

    def compile_launch(self: Any, args: tuple, kwargs: dict[str, Any]) -> None:
        t0 = time.perf_counter()
        name = getattr(self.fn, "__qualname__", self.fn.__name__)
        kwargs = {k: v for k, v in kwargs.items() if k not in ("grid", "warmup")}
        try:
            with libdevice(real, self.fn):
                k = orig_run(self, *args, grid=None, warmup=True, **kwargs)
            md = k.metadata if k is not None else None
            shared = getattr(md, "shared", None)
            if smem_limit and isinstance(shared, int) and shared > smem_limit:
                raise RuntimeError(f"OutOfResources: shared memory, required {shared}, hardware limit {smem_limit}")
            key = f"{name}:{getattr(k, 'hash', None) or id(k)}"
            if key not in compiled:
                compiled[key] = {"kernel": name, "num_warps": getattr(md, "num_warps", None), "shared": shared,
                                 "s": round(time.perf_counter() - t0, 2)}
        except Exception as exc:  # noqa: BLE001 - the finding this check reports
            msg = f"{type(exc).__name__}: {exc}"
            if in_autotune[0] and any(p in msg for p in prunable):
                pruned.append(f"{name}: {msg[:200]}")   # the autotuner drops such a config on a GPU too
                return
            if not any(e["kernel"] == name and e["error"] == msg[:2000] for e in errors):
                sig = {n: (f"{a.dtype}" if isinstance(a, torch.Tensor) else repr(a))[:40]
                       for n, a in zip(self.arg_names, args)}
                errors.append({"kernel": name, "error": msg[:2000], "args": sig,
                               "kwargs": {k: repr(v)[:40] for k, v in kwargs.items()}})

    audit = _snapshot_audit() if snapshots else None

    def run(self: Any, *args: Any, grid: Any, warmup: bool, **kwargs: Any) -> Any:
        before = len(compiled) + len(errors) + len(pruned)
        compile_launch(self, args, kwargs)
        if audit is not None and len(compiled) + len(errors) + len(pruned) > before:  # a compile, not a cache hit
            audit.check(f"after the GPU compile of {getattr(self.fn, '__qualname__', '?')}")
        if warmup:  # what the harness's interpreter returns: a stand-in whose [grid] launches this kernel
            from kernelgenbench.sandbox.launch import InterpretedCompiledKernel

            return InterpretedCompiledKernel(self, args, kwargs)
        with libdevice(mapped):
            return interp(self.fn).run(*args, grid=grid, warmup=False, **kwargs)

    def device_call(self: Any, *args: Any, **kwargs: Any) -> Any:
        # a @triton.jit helper called by an interpreted kernel body; the interpreter's own device call leaves
        # triton.language patched after it returns (harmless where nothing compiles), so the patch is scoped here
        scope = _patch_lang(self.fn)
        try:
            return interp(self.fn).rewrite()(*args, **kwargs)
        finally:
            scope.restore()

    JITFunction.run = run                                     # type: ignore[method-assign]
    JITFunction.__call__ = device_call                        # type: ignore[method-assign]
    ranked = autotuner.Autotuner._bench  # Triton's own: caches do_bench, the interpreter's ranking, as a GPU caches

    def bench(self: Any, *args: Any, config: Any, **meta: Any) -> Any:
        # every config of an autotuned kernel compiles (compile only; the interpreter's ranking then picks one)
        in_autotune[0] = True
        try:
            self.fn.run(*args, **dict(meta, warmup=True, **config.all_kwargs()))
        finally:
            in_autotune[0] = False
        return ranked(self, *args, config=config, **meta)

    autotuner.Autotuner._bench = bench

    op = get_operator(op_id)
    platform = PROFILES["interpreter"]
    # as the sandbox child (sandbox/child.py): the submission's file and the functions L1 scans as kernel bodies,
    # which the interpreter's CUDA stand-ins read (fresh user 37: without it `assert x.is_cuda` in a wrapper failed
    # every case on the CPU here, so nothing was compiled, while `kgb eval` passed it)
    from kernelgenbench.sandbox import launch_args

    launch_args.name_submission(submission)
    path = launch_args.KERNEL_BODIES[0]  # type: ignore[index]
    if audit is not None:
        audit.arm()   # as the sandbox child: after every patch, before the submission is imported
    out: dict[str, Any] = {"op": op_id, "cases": 0, "case_errors": []}
    spec = importlib.util.spec_from_file_location(f"kgb_compile_{op.source}_{op.name}", path)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules[spec.name] = module  # as the sandbox imports it: dataclasses of string annotations look it up there
    try:
        spec.loader.exec_module(module)  # type: ignore[union-attr]
        if audit is not None:
            audit.module = module
        impl = make_impl(op, module, platform)
    except Exception as exc:  # noqa: BLE001
        out["import_error"] = f"{type(exc).__name__}: {exc}"[:1000]
        impl = None
    if impl is not None:
        cpu = torch.device("cpu")
        for case in op.cases(tier)[:max_cases]:
            out["cases"] += 1
            try:
                call = op.build(case.params, cpu, generator(cpu, case.seed))
                if audit is not None:
                    audit.case = case.id
                invoke(op, impl, call, platform)
            except Exception as exc:  # noqa: BLE001 - host code that fails on the CPU: reported, not judged
                out["case_errors"].append(f"{case.id}: {type(exc).__name__}: {str(exc)[:300]}")
            if audit is not None:
                audit.check("after the case", between_calls=True)
    if audit is not None and "native-compiled" in getattr(op, "baseline_kinds", ()):
        audit.case = "baseline"
        try:
            cpu = torch.device("cpu")
            case = op.cases(tier)[0]
            call = op.build(case.params, cpu, generator(cpu, case.seed))
            base_fn, out["baseline"] = op.baseline(call, platform, prefer="native-compiled")
            base_fn(call.clone())
        except Exception as exc:  # noqa: BLE001 - reported, not judged
            out["baseline"] = f"failed: {type(exc).__name__}: {str(exc)[:300]}"
        audit.check("after making the native-compiled baseline", between_calls=True)
    out["compiled"] = len(compiled)
    out["kernels"] = sorted({v["kernel"] for v in compiled.values()})
    out["compile_s"] = round(sum(v["s"] for v in compiled.values()), 1)
    out["errors"] = errors
    out["pruned_configs"] = pruned
    if audit is not None:
        out["snapshot_checks"] = audit.checks
        out["snapshot_firings"] = audit.firings
    return out


@contextlib.contextmanager
def _without_rewriter_globals(snapshot: list[tuple[Any, tuple]]):
    """While the checks run, the entries that Triton's own interpreter rewriter (``FunctionRewriter._compile_and_exec``,
    which this tool runs kernel bodies with; the sandbox child runs its own rewriter) copies from its module into a
    jit function's globals (``typing.Tuple`` into ``triton.language.standard``) are taken out of Triton's modules:
    an artifact of interpreting here, not something a GPU run does."""
    from triton.runtime import interpreter

    own = vars(interpreter)
    taken: list[tuple[dict, str, Any]] = []
    for obj, items in snapshot:
        if not isinstance(obj, type(interpreter)):
            continue
        old = {k for k, _ in items}
        d = vars(obj)
        for k, v in list(d.items()):
            if k not in old and k in own and own[k] is v:
                taken.append((d, k, v))
                del d[k]
    try:
        yield
    finally:
        for d, k, v in taken:
            d[k] = v


class _snapshot_audit:  # noqa: N801 - used like a function
    """The sandbox child's checks of what a submission may not change (``sandbox/snapshots.py``: Triton's language
    modules and classes and their functions' code, the PyTorch and logging objects the child uses; ``drive``:
    PyTorch's global state and mode stacks; the timers), taken as the child takes them (:meth:`arm`, before the
    submission is imported) and run after every GPU compile and every case (:meth:`check`). On the oracles a firing
    is a false positive the GPU path would trigger: what Triton's full compile (every stage, the JIT's caches, every
    autotune config) or PyTorch rebinds on its own. A firing is recorded, then the snapshots are taken again, so that
    each distinct change is reported once."""

    def __init__(self) -> None:
        self.checks = 0
        self.case = "import"
        self.firings: list[dict[str, str]] = []
        self.module: Any = None  # the submission's module, once imported (its kernel objects: kernel_objects)

    def kernel_objects(self) -> str | None:
        """The launch rule's checks of the kernel objects (``@triton.jit``, ``autotune``, ``heuristics``) the
        submission's module holds, after the GPU path ran on them here (real JITFunctions compiled for sm_90, Triton's
        own ``Autotuner._bench``): an instance entry over a class entry (``kernel_guard.shadowed_entry``; the H100
        gate at aadd375 found ``Autotuner.do_bench`` cached there) and the globals their bodies read
        (``launch_args.check_globals``). The first message, or None."""
        from triton.runtime.autotuner import Autotuner, Heuristics
        from triton.runtime.jit import JITFunction

        from kernelgenbench.sandbox import kernel_guard, launch_args

        for v in list(vars(self.module).values()) if self.module is not None else []:
            if type(v) in (JITFunction, Autotuner, Heuristics):
                msg = kernel_guard.shadowed_entry(v) or launch_args.check_globals(v)
                if msg is not None:
                    return msg
        return None

    def arm(self) -> None:
        """Take every snapshot the sandbox child takes before the submission's import."""
        from kernelgenbench.sandbox import child, launch_args, snapshots
        from kernelgenbench.sandbox.drive import record_global_state

        launch_args.install()
        child._TIMERS = child._snapshot_timers()
        snapshots.snapshot_triton()
        snapshots.snapshot_harness()
        record_global_state()

    def check(self, where: str, between_calls: bool = False) -> None:
        """Run every check; record each that fires (with the case and ``where``) and snapshot again. The mode stacks
        and global state are checked ``between_calls`` only, as the child does (inside a traced call the harness's
        own dispatch mode is pushed)."""
        from kernelgenbench.sandbox import child, snapshots
        from kernelgenbench.sandbox.drive import foreign_modes, global_state_change

        self.checks += 1
        checks: list[tuple[str, Any]] = [("triton_changed", snapshots.triton_changed),
                                         ("harness_changed", snapshots.harness_changed),
                                         ("tampered_timers", lambda: ", ".join(child.tampered_timers()) or None),
                                         ("kernel_objects", self.kernel_objects)]
        if between_calls:
            checks += [("global_state_change", lambda: global_state_change(where)),
                       ("foreign_modes", lambda: foreign_modes(where))]
        found = []
        with _without_rewriter_globals(snapshots._TRITON_SNAPSHOT or []):
            for name, fn in checks:
                msg = fn()
                if msg is not None:
                    found.append({"check": name, "case": self.case, "where": where, "message": msg[:600]})
        if found:
            self.firings += found
            self.arm()


# ------------------------------------------------------------------------------------------------- driver
def _targets(args: argparse.Namespace) -> list[tuple[str, Path]]:
    from kernelgenbench.suite.registry import all_operators, get_operator

    folder = Path(args.folder)
    for op_id in args.op or []:
        get_operator(op_id)   # an unknown id raises KeyError naming close matches
    ops = [o for o in all_operators()
           if (not args.op or o.id in args.op) and (not args.source or o.source == args.source)]
    return [(o.id, folder / o.filename) for o in ops if (folder / o.filename).is_file()]


def _checked_nothing(r: dict[str, Any]) -> bool:
    """Whether every case of an operator's outcome ``r`` failed on the CPU with no kernel compiled: the check then
    says nothing about the operator (an operator that launches nothing, a view, has no case errors)."""
    return bool(r.get("cases")) and len(r.get("case_errors", [])) == r["cases"] and not r.get("compiled")


def _snapshot_note(r: dict[str, Any]) -> str:
    """The per-operator words of ``--snapshots``: how many checks ran and how many fired."""
    fired = len(r.get("snapshot_firings", []))
    return f"{r['snapshot_checks']} snapshot checks, " + (f"{fired} fired" if fired else "none fired")


def _failed(r: dict[str, Any]) -> bool:
    """Whether an operator's outcome ``r`` fails the check: a compile error, a crash, an import error, a snapshot
    firing, or nothing checked at all (:func:`_checked_nothing`; fresh user 37: an operator whose every case raised
    on the CPU was reported `ok`, 0 compiled)."""
    return bool(r.get("errors") or r.get("crash") or r.get("import_error") or r.get("snapshot_firings")
                or _checked_nothing(r))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--folder", default=str(ROOT / "solutions"), help="submission folder (default: the oracles)")
    ap.add_argument("--op", action="append", help="operator id (repeatable; default: every file in the folder)")
    ap.add_argument("--source", choices=("aten", "vllm", "cublas"))
    ap.add_argument("--tier", default="smoke", help="the cases whose launches are compiled (default smoke)")
    ap.add_argument("--arch", type=int, default=90, help="NVIDIA compute capability x10 (90: H100/H200)")
    ap.add_argument("--jobs", type=int, default=2, help="operators checked at once")
    ap.add_argument("--max-cases", type=int, default=1000, help="cases per operator at most")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds per operator")
    ap.add_argument("--out", help="write every operator's outcome as JSON lines here")
    ap.add_argument("--snapshots", action="store_true",
                    help="also run the sandbox child's snapshot checks (Triton, PyTorch, logging, global state) "
                         "after every GPU compile and case, each operator with a fresh Triton cache: any firing "
                         "on an oracle is a false positive a GPU run would hit (exit status 1)")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--submission", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one:
        res = _check_one(args.one, Path(args.submission), args.tier, args.arch, args.max_cases, args.snapshots)
        print("KGB-COMPILE " + json.dumps(res))
        return 0
    try:
        targets = _targets(args)
    except KeyError as exc:
        print(f"compile_check: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 2
    if not targets:
        print("no submission file matches the selection", file=sys.stderr)
        return 2
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("TRITON_INTERPRET", None)
    t0 = time.time()

    def one(t: tuple[str, Path]) -> dict[str, Any]:
        op_id, path = t
        cmd = [sys.executable, __file__, "--one", op_id, "--submission", str(path), "--tier", args.tier,
               "--arch", str(args.arch), "--max-cases", str(args.max_cases)] + (["--snapshots"] * args.snapshots)
        try:
            with tempfile.TemporaryDirectory(prefix="kgb-cc-") as cache:
                # --snapshots: a fresh Triton cache, as each sandbox job has (every stage runs, not a cache hit)
                p = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout,
                                   env=dict(env, TRITON_CACHE_DIR=cache) if args.snapshots else env)
        except subprocess.TimeoutExpired:
            return {"op": op_id, "crash": f"no answer within {args.timeout:.0f} s"}
        for line in p.stdout.splitlines():
            if line.startswith("KGB-COMPILE "):
                return json.loads(line[len("KGB-COMPILE "):])
        return {"op": op_id, "crash": f"exit {p.returncode}: {(p.stderr or '')[-800:]}"}

    results = []
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(one, t) for t in targets]
        for i, fut in enumerate(as_completed(futures), 1):   # printed as they finish (a slow one holds no other)
            r = fut.result()
            results.append(r)
            bad = _failed(r)
            print(f"[{i}/{len(targets)}] {r['op']:44s} {'FAIL' if bad else 'ok':4s} "
                  f"{r.get('compiled', 0):3d} compiled ({r.get('compile_s', 0)} s), {r.get('cases', 0)} cases"
                  + (f", {len(r.get('case_errors', []))} case errors on the CPU" if r.get("case_errors") else "")
                  + (f", {_snapshot_note(r)}" if "snapshot_checks" in r else ""),
                  flush=True)
            for e in r.get("errors", []):
                print(f"    {e['kernel']}: {e['error'][:600]}\n      args {e['args']} {e['kwargs']}")
            for f in r.get("snapshot_firings", []):
                print(f"    {f['check']} ({f['case']}, {f['where']}): {f['message'][:400]}")
            for k in ("crash", "import_error"):
                if r.get(k):
                    print(f"    {k}: {r[k][:600]}")
            if _checked_nothing(r):
                print("    every case failed on the CPU before launching a kernel: nothing was compiled or checked")
            for e in r.get("case_errors", [])[:3]:
                print(f"    case error: {e}")
            if len(r.get("case_errors", [])) > 3:
                print(f"    ... {len(r['case_errors']) - 3} more case errors (--out FILE keeps them all)")
    results.sort(key=lambda r: r["op"])
    if args.out:
        Path(args.out).write_text("".join(json.dumps(r) + "\n" for r in results))
    failed = [r["op"] for r in results if _failed(r)]
    total = sum(r.get("compiled", 0) for r in results)
    audited = [r for r in results if "snapshot_checks" in r]
    snap = ""
    if args.snapshots:  # say that the checks ran, and how many, not only that everything compiled
        fired = sum(len(r.get("snapshot_firings", [])) for r in audited)
        ops = f"{len(audited)} operator" + "s" * (len(audited) != 1)
        snap = (f"; snapshot checks: {sum(r['snapshot_checks'] for r in audited)} run on {ops}, "
                + (f"{fired} fired" if fired else "none fired"))
    print(f"\ncompile check for sm_{args.arch}: {len(results) - len(failed)}/{len(results)} operators compile every "
          f"launch ({total} kernel specialisations) in {time.time() - t0:.0f} s" + snap
          + (f"; FAILED: {' '.join(failed)}" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
