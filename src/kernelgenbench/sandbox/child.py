"""The untrusted sandbox child: imports one submission and runs its candidate on given inputs.

Started by :mod:`kernelgenbench.sandbox.runner` as
``python -m kernelgenbench.sandbox.child --op OP --submission FILE --platform P --resp-fd N``, never forked from
the verifier; or forked, with the same arguments, from the fork server's pre-imported interpreter
(``sandbox/forkserver.py``: a process that never loaded a submission or touched a device).
Commands arrive as JSON lines on the original stdin (moved to a private descriptor; fd 0 becomes
``/dev/null``); answers go out as JSON lines on ``--resp-fd``. Tensors travel as ``torch.save``
files in the job's work directory. Stdout and stderr (the submission's prints included) go to the
job's log file.

Nothing here decides a verdict: the child reports outputs, the ATen ops the candidate ran, the
Triton launches, errors and timings; the trusted verifier judges them.

The messages are typed in :mod:`kernelgenbench.sandbox.protocol`:

    CaseCommand -> CaseAnswer   run one case (a normal run also saves its replay log, the values of the
                                candidate's host reads and the outcomes of its launches,
                                :meth:`.state.State.begin_case`, as ``replay_log`` in the out file; a
                                ghost run replays the log the verifier put in the input file as
                                ``replay`` and reports what the replay did); or profile it (CUDA)
    TimeCommand -> TimeAnswer   time one case (``sandbox/timed_loop.py``; the timed repetitions' input
                                sets are built here from the secret seed in the input file, the
                                checked candidate repetitions kept); or write the kept ones to
                                ``check_out`` (``save``)
    ExitCommand -> Bye

The first answer is ``Ready`` (with ``import_trace``: the ATen ops the submission's import ran, traced like
a call, ``dispatch.trace_import``). A command the child's own code fails on is answered ``HarnessError``. Every
answer carries ``launch_violations``: the launch-rule violations recorded so far in this process
(``state.STATE.launch_violations``, never cleared; see ``sandbox/launch_args.py``), and
``unscanned_bodies``: the submission's functions that ran as kernel bodies without the file-level L1 scan
holding them to the kernel-body rule (``launch_args.UNSCANNED``; the verifier scans each).
"""
from __future__ import annotations

import argparse
import contextlib
import importlib.util
import inspect
import json
import os
import signal
import sys
import time
import traceback
from typing import Any

from . import collector
from .protocol import (
    Answer,
    Bye,
    CaseAnswer,
    CaseCommand,
    ExitCommand,
    HarnessError,
    Ready,
    TimeAnswer,
    TimeCommand,
    parse_command,
)

#: Timer entry points snapshotted before the submission is imported (timer tampering check).
_TIMERS: dict[str, Any] = {}


def _near_misses(module: Any, missing: list[str], interface: tuple[str, ...] = ()) -> str:
    """``"; the file defines logaddexp2_Out (rename it logaddexp2_out)"`` for names the module defines that differ
    from a missing one only in case, or closely (difflib, ratio >= 0.8); ``""`` when none. ``interface`` holds every
    name of the operator's interface (all its wrappers, required or not): such a name is the wrapper it names, never a
    misspelling of another (a missing ``add_Scalar_out`` is not a near miss of a written ``add_Scalar``). Reads the
    module's names only (its ``__dict__`` keys), runs none of its code."""
    import difflib

    taken = set(interface)
    names = [k for k in vars(module) if isinstance(k, str) and not k.startswith("__") and k not in taken]
    lower = {k.lower(): k for k in names}
    pairs = []
    for m in missing:
        hit = lower.get(m.lower()) or next(iter(difflib.get_close_matches(m, names, n=1, cutoff=0.8)), None)
        if hit is not None and hit != m:
            pairs.append(f"{hit} (rename it {m})")
    return f"; the file defines {', '.join(pairs)}" if pairs else ""


def _eager_wrap_triton() -> None:
    """``torch.library.wrap_triton(kernel)`` returns the kernel itself, as it does on the interpreter.

    On GPUs (torch >= 2.6) it returns a wrapper whose launch goes through the higher-order operator
    ``triton_kernel_wrapper_mutation``, which exists for ``torch.compile``; eagerly, under the verifier's dispatch
    trace, that operator refuses to run ("no rule registered for HigherOrderOperator"), so a legal kernel launched
    through wrap_triton failed on the GPU only. Eagerly the wrapper only launches the kernel: with wrap_triton
    turned off for the child, the kernel is launched (and traced) as any other. A no-op where torch lacks it.
    """
    try:
        import torch._library.triton as library_triton
    except ImportError:
        return
    if hasattr(library_triton, "wrap_triton_enabled_default"):
        library_triton.wrap_triton_enabled_default = False


def _snapshot_timers() -> dict[str, Any]:
    import torch

    snap = {"time.perf_counter": time.perf_counter, "time.perf_counter_ns": time.perf_counter_ns,
            "time.time": time.time, "time.monotonic": time.monotonic}
    if torch.cuda.is_available():
        snap.update({"torch.cuda.Event": torch.cuda.Event,
                     "torch.cuda.Event.record": torch.cuda.Event.record,
                     "torch.cuda.Event.elapsed_time": torch.cuda.Event.elapsed_time,
                     "torch.cuda.synchronize": torch.cuda.synchronize})
    return snap


def tampered_timers() -> list[str]:
    """Names of timer entry points that differ from the snapshot taken before import."""
    now = _snapshot_timers()
    return [k for k, v in _TIMERS.items() if now.get(k) is not v]


#: the most characters of a traceback sent to the verifier in full (its tail is kept)
_TB_FULL_MAX = 100_000


#: the device allocator's out-of-memory count when the current command began (:func:`_allocator_ooms`)
_OOM_BASE = 0


def _allocator_ooms() -> int:
    """How many allocations the CUDA caching allocator of this process failed for want of memory (its ``num_ooms``
    statistic; 0 without an initialised CUDA device): the evidence ``verify/failures.py`` classifies ``oom`` by."""
    try:
        import torch

        if not torch.cuda.is_available() or not torch.cuda.is_initialized():
            return 0
        return int(torch.cuda.memory_stats().get("num_ooms", 0))
    except Exception:  # noqa: BLE001 - no statistics: no evidence
        return 0


def error_report(exc: BaseException, stage: str) -> dict[str, Any]:
    """The report of an exception raised while a submission ran, as the child sends it to the verifier and
    ``verify/failures.py`` ``classify_error`` reads it (``kgb repro`` classifies its candidate's exception with
    the same two): ``type``, ``chain`` (the exception and its causes/contexts, at most 6 type names),
    ``origins`` (per exception of the chain, the file of its innermost frame), ``message`` (<= 2000
    characters), ``traceback`` (the last 6000 characters), ``traceback_full`` (bounded), ``stage`` (where
    it was raised: ``import``, ``call``, ``timing``, ...) and ``triton_compile`` (an exception of the chain is an
    instance of Triton's ``CompilationError``, subclasses included)."""
    tb = traceback.format_exception(type(exc), exc, exc.__traceback__)
    text = "".join(tb)
    chain = []
    origins = []  # per exception of the chain: where it was raised (the innermost frame's file)
    # Triton's own compile-error class (subclasses such as UnsupportedLanguageConstruct carry other names: the GPU
    # front end raised one for an f-string of a block, which the names alone classified runtime_error)
    compile_cls = getattr(sys.modules.get("triton.compiler.errors"), "CompilationError", None)
    triton_compile = False
    e: BaseException | None = exc
    while e is not None and len(chain) < 6:
        chain.append(type(e).__name__)
        triton_compile = triton_compile or (isinstance(compile_cls, type) and isinstance(e, compile_cls))
        frames = traceback.extract_tb(e.__traceback__) if e.__traceback__ is not None else []
        origins.append(os.path.abspath(frames[-1].filename) if frames else "")
        e = e.__cause__ or e.__context__
    # ``traceback``: the tail the failure classifier reads (verify/failures.py); ``traceback_full``: the
    # whole text (bounded, cut at a line boundary) for the record and the job's log (verify/session.py).
    full = text
    if len(full) > _TB_FULL_MAX:
        cut = full.find("\n", len(full) - _TB_FULL_MAX)
        cut = cut if cut >= 0 else len(full) - _TB_FULL_MAX - 1
        full = f"[... {cut + 1} characters of the traceback cut ...]\n" + full[cut + 1:]
    return {"type": type(exc).__name__, "chain": chain, "origins": origins, "message": str(exc)[:2000],
            "traceback": text[-6000:], "traceback_full": full, "stage": stage, "triton_compile": triton_compile,
            "allocator_ooms": _allocator_ooms() - _OOM_BASE}


class Child:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        #: what a ``prepare`` time command made for the next time command of its ``inp``: (inp, warm-up sets,
        #: baseline fn, baseline label, phases in ms); None when nothing waits
        self.prepared: tuple[str, list[Any], Any, str, dict[str, float]] | None = None
        #: the baselines ``ahead`` time commands made (:meth:`run_ahead`), by their case's ``inp``, until that case's
        #: prepare or time command takes its own: (baseline fn, label, phases in ms); no warm-up sets are kept
        self.ahead: dict[str, tuple[Any, str, dict[str, float]]] = {}
        #: the checked repetitions of the last timed command, until its save command: (its inp, number -> (call, ret))
        self.kept_checked: tuple[str, dict[int, tuple[Any, Any]]] | None = None
        self.resp = os.fdopen(args.resp_fd, "w", buffering=1)
        self.cmd_in = os.fdopen(os.dup(0), "r")
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)

    def send(self, msg: Answer) -> None:
        from . import launch_args
        from .state import STATE

        # the launch rule's records, kept whatever the submission caught, go out with every answer; Triton's and
        # PyTorch's modules and classes changed by the submission among them
        note_harness_changes()
        msg.launch_violations = list(STATE.launch_violations)
        msg.unscanned_bodies = [list(k) for k in launch_args.UNSCANNED]
        self.resp.write(json.dumps(msg.to_json(), default=str) + "\n")
        self.resp.flush()

    # -- start-up -------------------------------------------------------------------------------
    def start(self) -> bool:
        global _TIMERS
        import torch

        from ..platforms import PROFILES
        from ..suite.registry import get_operator, operator_from_module
        from .dispatch import trace_import
        from .drive import make_impl
        from .host_reads import install_host_read_hooks
        from .interpreter import install_interpreter_patches, install_interpreter_progress
        from .launch import install_launch_hooks
        from .protocol import fast_tensor_files
        from .state import STATE

        self.torch = torch
        fast_tensor_files(torch)
        self.platform = PROFILES[self.args.platform]
        # the one family module the verifier named (the whole registry costs as much CPU as importing torch)
        self.op = (operator_from_module(self.args.op, self.args.op_module) if self.args.op_module
                   else get_operator(self.args.op))
        self.state = STATE
        install_launch_hooks()
        install_host_read_hooks()
        _eager_wrap_triton()
        # which of the submission's functions may run as kernel bodies: those L1 scans as such, read
        # from the file before any of its code runs (sandbox/launch_args.py KERNEL_BODIES)
        from . import launch_args, snapshots

        launch_args.name_submission(self.args.submission)
        self.submission_path = collector.submission_path(self.args.submission)
        if self.platform.interpreter:
            install_interpreter_patches()
            if self.args.progress:
                install_interpreter_progress(self.args.progress)
        _TIMERS = _snapshot_timers()
        runtime = None if self.platform.interpreter else getattr(torch, self.platform.device, None)
        if runtime is not None and callable(getattr(runtime, "init", None)) and runtime.is_available():
            # the device runtime's lazy initialisation adds entries to its module (CUDA: torch.cuda's
            # _get_device_properties): done before the snapshot, so that what it adds is not taken for the
            # submission's change (the gate at 25eac36 failed every operator so)
            runtime.init()
        snapshots.snapshot_triton()  # after the harness's own patches, before the submission's code
        snapshots.snapshot_harness()
        from .drive import compiled_graphs, record_global_state

        record_global_state()  # the state the submission must leave as it found it (drive.global_state_change)
        graphs = compiled_graphs()
        name = f"kgb_submission_{self.op.source}_{self.op.name}"
        try:
            spec = importlib.util.spec_from_file_location(name, self.args.submission)
            if spec is None or spec.loader is None:
                raise ImportError(f"cannot load {self.args.submission}")
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            # traced like a call (dispatch.trace_import): work done at import is judged by the verifier
            import_trace = trace_import(lambda: spec.loader.exec_module(module))
        except SyntaxError as exc:
            self.send(Ready(ok=False, failure="syntax", error=error_report(exc, "import")))
            return False
        except BaseException as exc:  # noqa: BLE001 - any import-time failure is the submission's
            self.send(Ready(ok=False, failure="import_error", error=error_report(exc, "import")))
            return False
        # from here on the collector runs only where the child says, guarded (red team 29: a finalizer timed to
        # fire inside the harness's untraced launch window computed the result there)
        collector.take_over(self.submission_path)
        from .drive import compiler_used, foreign_modes, global_state_change
        from .state import STATE

        left = foreign_modes("after the import") or global_state_change("by the import") or \
            compiler_used(graphs, "during the import")
        if left is not None:  # failed as profile with the first command's answer (verify/session.py)
            STATE.note_violation(left)
        problem = self.check_interface(module)
        if problem is not None:
            self.send(Ready(ok=False, **problem))
            return False
        try:
            self.impl = make_impl(self.op, module, self.platform)
        except BaseException as exc:  # noqa: BLE001
            self.send(Ready(ok=False, failure="platform", error=error_report(exc, "register")))
            return False
        STATE.replaced = frozenset(getattr(self.impl, "fns", {}))  # the overloads the wrappers replace
        if getattr(self.impl, "lib", None) is not None:  # ATen wrappers registered at the device's key
            STATE.registered = frozenset(getattr(self.impl, "fns", {}))
            STATE.registration = self.impl  # lifted while Triton benchmarks an autotuned kernel (window.py)
        self.module = module
        self.send(Ready(ok=True, timers_tampered=tampered_timers(), missing_optional=self.missing_optional,
                        import_trace=dict(import_trace), import_sites=dict(STATE.import_sites)))
        return True

    def check_interface(self, module: Any) -> dict[str, Any] | None:
        from .drive import module_value

        iface = self.op.interface
        self.missing_optional: list[str] = []
        if iface.function is None:
            missing = [w.name for w in iface.wrappers if w.required and not callable(module_value(module, w.name))]
            self.missing_optional = [w.name for w in iface.wrappers
                                     if not w.required and not callable(module_value(module, w.name))]
            if missing:
                return {"failure": "missing_wrapper",
                        "error": {"type": "MissingWrapper", "stage": "interface",
                                  "message": f"missing wrapper(s) {', '.join(missing)} (required for {self.op.id}: "
                                             f"{', '.join(iface.required_names())})"
                                             + _near_misses(module, missing, tuple(w.name for w in iface.wrappers))}}
            return None
        fn = module_value(module, iface.function)
        if not callable(fn):
            return {"failure": "missing_wrapper",
                    "error": {"type": "MissingWrapper", "stage": "interface",
                              "message": f"no function named {iface.function} (interface: {iface.signature})"
                                         + _near_misses(module, [iface.function])}}
        from .dispatch import wrapper_defaults, wrapper_signature

        plain = (type(None), bool, int, float, str)
        try:
            # read from the code, running none of the submission's (sandbox/dispatch.py wrapper_signature)
            sig = wrapper_signature(fn)
            defaults = wrapper_defaults(fn)
        except TypeError as exc:
            return {"failure": "signature",
                    "error": {"type": "SignatureMismatch", "stage": "interface",
                              "message": f"{iface.function}: the harness cannot read its parameters: {exc}"}}
        params = list(sig.parameters.values())
        names = [p.name for p in params]
        bad = names != list(iface.params)
        if not bad:
            for p in params:
                want = iface.defaults.get(p.name, inspect.Parameter.empty)
                have = defaults.get(p.name, inspect.Parameter.empty)
                # a default on a parameter the interface requires never applies (every call passes it: red team
                # 26, rms_norm(out, input, weight, epsilon=1e-6)); an optional one's default must be the interface's
                # (compared only by the plain type's own __eq__, C code that never calls the submission's object:
                # == of it would run its code; an IntEnum member equal to the interface's int is that int, fp30)
                if want is not inspect.Parameter.empty and have is not want and not (
                        type(want) in plain and type(want).__eq__(want, have) is True):
                    bad = True
                if p.kind not in (p.POSITIONAL_OR_KEYWORD, p.POSITIONAL_ONLY) and p.name in iface.params:
                    bad = bad or p.kind is not p.POSITIONAL_OR_KEYWORD
        if bad:
            got = str(sig.replace(parameters=[
                p.replace(default=defaults[p.name]) if type(defaults.get(p.name)) in plain and p.name in defaults
                else p for p in params]))
            return {"failure": "signature",
                    "error": {"type": "SignatureMismatch", "stage": "interface",
                              "message": f"{iface.function}{got} does not match the interface {iface.signature}"}}
        return None

    # -- commands -------------------------------------------------------------------------------
    def load(self, path: str) -> Any:
        with self.harness_io():
            return self.torch.load(path, map_location=self.device(), weights_only=True)

    @contextlib.contextmanager
    def harness_io(self):
        """Lift the candidate's ATen registration around the harness's own tensor work (torch.load,
        torch.save, input clones): they move storages between host and device with aten::copy_, and a
        registered candidate of copy_ must not receive the harness's cross-device copies."""
        impl = getattr(self, "impl", None)
        lift = getattr(impl, "lib", None) is not None
        if lift:
            impl.deactivate()
        try:
            yield
        finally:
            if lift:
                impl.activate()

    def device(self) -> Any:
        return self.torch.device("cpu" if self.platform.interpreter else self.platform.device)

    def run_case(self, msg: CaseCommand) -> None:
        torch = self.torch
        from ..suite.spec import Call, clone_tree
        from .drive import invoke

        state = self.state
        collector.collect_command(self.submission_path)  # the previous commands' garbage, before this case's inputs
        data = on_host(self.load(msg.inp))
        args, kwargs = data["args"], data["kwargs"]
        if data["written"]:
            # torch.load gives fixed-size storages, and an out= wrapper may have to resize its out
            # (aten.md §7: size-0 outs); clones (views and sharing kept) are resizable.
            with self.harness_io():
                args, kwargs = clone_tree([args, kwargs])
        call = Call.loaded(data, args, kwargs)
        ghost = msg.ghost
        state.begin_case(ghost, data.get("replay") if ghost else None)
        state.readonly_inputs = readonly_storages(call)
        given = given_lists(call)
        log: Any = None
        replay: Any = None
        state.alt_poison = msg.alt_poison
        global _OOM_BASE
        _OOM_BASE = _allocator_ooms()
        err = None
        ret: Any = None
        kernels: list[str] | None = None
        t0 = time.perf_counter()
        try:
            if msg.profile and not self.platform.interpreter:
                from torch.profiler import ProfilerActivity, profile

                with profile(activities=[ProfilerActivity.CUDA]) as prof:
                    ret = invoke(self.op, self.impl, call, self.platform)
                    torch.cuda.synchronize()
                kernels = sorted({e.name for e in prof.events()
                                  if getattr(e, "device_type", None) is not None
                                  and "CUDA" in str(e.device_type)})
            else:
                ret = invoke(self.op, self.impl, call, self.platform)
            if self.platform.device == "cuda" and not self.platform.interpreter:
                torch.cuda.synchronize()
        except BaseException as exc:  # noqa: BLE001 - reported, judged by the verifier
            err = error_report(exc, "call")
        finally:
            log, replay = state.end_case()
            state.alt_poison = False
            state.readonly_inputs = frozenset()
        wall = time.perf_counter() - t0
        note_harness_changes()  # before the harness touches the results (a replaced torch.save would see them)
        ret_alias = None
        if isinstance(ret, torch.Tensor):
            for i, a in enumerate(call.args):
                if a is ret:
                    ret_alias = i
        out_args, out_kwargs = as_given(call, given)
        out = {"args": out_args, "kwargs": out_kwargs, "ret": _sanitize(ret, torch),
               "ret_type": type(ret).__name__, "ret_devices": _devices(ret, torch)}
        if log is not None:
            out["replay_log"] = log
        with self.harness_io():
            try:
                torch.save(out, msg.out)
            except BaseException as exc:  # noqa: BLE001
                err = err or error_report(exc, "save")
                torch.save({"args": [], "kwargs": {}, "ret": None, "ret_type": "unsaveable"}, msg.out)
        self.send(CaseAnswer(error=err, trace=dict(state.trace), op_sites=dict(state.op_sites),
                             launches=state.launches, wrapper_calls=dict(state.wrapper_calls), ret_alias=ret_alias,
                             kernels=kernels,
                             wall_s=wall, timers_tampered=tampered_timers(), replay=replay,
                             stale_outputs=list(state.stale_outputs)))

    def run_save(self, msg: TimeCommand) -> None:
        """:attr:`TimeCommand.save`: write the repetitions the last timed command of the same case kept to
        ``msg.check_out`` for the verifier to judge, as the harness's own I/O. No code of the submission runs (no
        collection either); an error when nothing is kept for that case (the verifier judges the missing file)."""
        torch = self.torch
        t0 = time.perf_counter()
        kept, self.kept_checked = self.kept_checked, None
        try:
            if kept is None or kept[0] != msg.inp or not msg.check_out:
                raise RuntimeError("no timed repetitions are kept for this case (the save command must follow its "
                                   "timed command)")
            with self.harness_io():
                torch.save({str(k): {"args": c.args, "kwargs": c.kwargs, "ret": _sanitize(r, torch),
                                     "ret_type": type(r).__name__, "ret_devices": _devices(r, torch)}
                            for k, (c, r) in kept[1].items()},
                           msg.check_out)
        except BaseException as exc:  # noqa: BLE001
            self.send(TimeAnswer(error=error_report(exc, "timing")))
            return
        self.send(TimeAnswer(phases_ms={"save": round((time.perf_counter() - t0) * 1e3, 3)},
                             timers_tampered=tampered_timers()))

    def run_time(self, msg: TimeCommand) -> None:
        from ..suite.common import generator
        from ..verify.timing import timed_set_seed
        from .timed_loop import PROBE_SETS, BaselineFailed, BaselineRecompiled, time_case

        global _OOM_BASE
        if msg.save:
            self.run_save(msg)
            return
        self.kept_checked = None  # a timed command drops what an earlier one kept and no save command fetched
        t_start = time.perf_counter()
        _OOM_BASE = _allocator_ooms()
        collector.collect_command(self.submission_path)
        t0 = time.perf_counter()
        data = self.load(msg.inp)
        check = msg.check
        params, base_seed = data.get("params"), data.get("seed")
        device = self.device()

        def build(seed: int) -> Any:
            # inputs built here from a seed, with the candidate's registration lifted, placed as a case's load
            # places them (a tensor built on the host arrives on the device)
            with self.harness_io():
                return placed_as_loaded(self.op.build(params, device, generator(device, seed)), device)

        def make_set(k: int) -> Any:
            return build(timed_set_seed(base_seed, k))

        phases: dict[str, float] = {}
        if msg.ahead:
            self.run_ahead(msg, data, build, phases, t0)
            return
        prepared, self.prepared = self.prepared, None
        made_ahead = self.ahead.pop(msg.inp, None)
        try:
            if prepared is not None and prepared[0] == msg.inp and not msg.prepare:
                # made by this case's prepare command (the verifier sent it just before this one)
                _, calls, base_fn, label, made = prepared
                phases.update(made)
                phases["load"] += (time.perf_counter() - t0) * 1e3
            elif made_ahead is not None:
                calls, base_fn, label = self.take_ahead(made_ahead, data, build, phases, t0)
            else:
                calls, base_fn, label = self.make_baseline(msg, data, build, phases, t0)
            if msg.prepare:
                self.prepared = (msg.inp, calls, base_fn, label, dict(phases))
                self.send(TimeAnswer(baseline=label, phases_ms={k: round(v, 3) for k, v in phases.items()},
                                     timers_tampered=tampered_timers()))
                return
            try:
                res = time_case(self.op, self.impl, base_fn, calls, self.platform, self.state,
                                reps=msg.reps, warmup_ms=msg.warmup_ms, check=check,
                                make_set=make_set if params is not None else None, fastest=msg.fastest)
            except BaselineRecompiled as exc:
                # compiled inside a timed block though it compiled nothing on the fresh probe sets at prepare
                # (make_baseline): not shown to be the reference's doing, so no weaker bar is granted and nothing
                # is timed again on values already drawn (red team 33); the baseline failed (not charged; a resume
                # judges the job again). A global state the candidate changed fails it as profile instead.
                raise BaselineFailed(f"{exc}, though it compiled none on the other warm-up set and {PROBE_SETS} "
                                     f"fresh probe sets of the case before timing; its times would hold "
                                     f"compilation") from exc
            checked = res.pop("checked")
            phases.update(warmup=res.pop("warmup_wall_ms", 0.0), build=res.get("build_ms") or 0.0,
                          blocks=sum(res.get("wall_ms", {}).values()))
            self.kept_checked = (msg.inp, checked)  # for the save command, sent after the GPU's exclusive hold
            # the garbage collection before the command, and the whole handler until its answer (the verifier's
            # command wall clock less this is the pipe, the answer's checks and serialisation)
            phases["collect"] = (t0 - t_start) * 1e3
            phases["handler"] = (time.perf_counter() - t_start) * 1e3
            self.send(TimeAnswer(**res, baseline=label, phases_ms={k: round(v, 3) for k, v in phases.items()},
                                 timers_tampered=tampered_timers()))
        except BaseException as exc:  # noqa: BLE001
            self.send(TimeAnswer(error=error_report(exc, "baseline" if isinstance(exc, BaselineFailed) else "timing")))

    def run_ahead(self, msg: TimeCommand, data: dict[str, Any], build: Any, phases: dict[str, float],
                  t0: float) -> None:
        """:attr:`TimeCommand.ahead`: make the baseline of ``msg``'s case as its prepare command would
        (:meth:`make_baseline`: warm-up sets, torch.compile, the eager cross-check, the probe sets) and keep it, by
        ``msg.inp``, for that case's prepare command; the warm-up sets are dropped (the prepare command builds them
        again from their seeds: a job's cases made ahead keep only their baselines alive). The verifier sends one per
        timed case before the job's first timed case, each under the GPU's shared gate, so that the compiles are not
        made while the job holds the GPU alone. Answers with the label and the phases (``ahead_kept`` 1), or the
        BaselineFailed. A compiled baseline that cannot be kept beside the other cases' (``NotIsolated``: its
        reference graph-breaks) drops every baseline made ahead and answers ``ahead_kept`` 0: the verifier sends no
        more, and each case makes its own in its prepare command, from a fresh dynamo cache as before."""
        from ..suite.baselines import NotIsolated, making_ahead
        from .timed_loop import BaselineFailed

        try:
            with making_ahead():
                calls, base_fn, label = self.make_baseline(msg, data, build, phases, t0)
        except NotIsolated as exc:
            self.ahead.clear()
            phases["ahead_kept"] = 0.0
            self.send(TimeAnswer(baseline=f"not made ahead: {exc}", phases_ms={k: round(v, 3) for k, v in
                                                                                 phases.items()},
                                 timers_tampered=tampered_timers()))
            return
        except BaselineFailed as exc:
            self.send(TimeAnswer(error=error_report(exc, "baseline")))
            return
        except BaseException as exc:  # noqa: BLE001
            self.send(TimeAnswer(error=error_report(exc, "timing")))
            return
        del calls
        self.ahead[msg.inp] = (base_fn, label, dict(phases))
        phases["ahead_kept"] = 1.0
        self.send(TimeAnswer(baseline=label, phases_ms={k: round(v, 3) for k, v in phases.items()},
                             timers_tampered=tampered_timers()))

    def take_ahead(self, made: tuple[Any, str, dict[str, float]], data: dict[str, Any], build: Any,
                   phases: dict[str, float], t0: float) -> tuple[list[Any], Any, str]:
        """The warm-up sets of a case whose baseline an ``ahead`` command made (``made``: :attr:`ahead`'s entry),
        built again from their seeds, and that baseline ``(calls, fn, label)``. Phases: ``load`` (this command's),
        ``baseline`` 0 (nothing is made here) and ``ahead_baseline``, what making it took in the ahead command.

        Raises :class:`~.timed_loop.BaselineFailed` where a compiled baseline no longer holds its graph (a call would
        compile again, or past the recompile limit run eagerly without a compile the timed loop could count)."""
        from .timed_loop import BaselineFailed

        base_fn, label, made_phases = made
        calls = self.warmup_sets(data, build)
        kept = base_fn.graphs_kept() if hasattr(base_fn, "graphs_kept") else None
        if kept == 0:
            raise BaselineFailed("the baseline made ahead of the case no longer holds its compiled graph")
        phases.update(load=(time.perf_counter() - t0) * 1e3, baseline=0.0,
                      ahead_baseline=float(made_phases.get("baseline", 0.0)))
        return calls, base_fn, label

    def warmup_sets(self, data: dict[str, Any], build: Any) -> list[Any]:
        """The case's warm-up sets: built from their seeds (their values are never judged and never timed), or given
        (tests of the protocol)."""
        from ..suite.spec import Call

        if data.get("warmup_seeds") is not None:
            return [build(int(s)) for s in data["warmup_seeds"]]
        return [Call.loaded(d) for d in data["sets"]]

    def make_baseline(self, msg: TimeCommand, data: dict[str, Any], build: Any, phases: dict[str, float],
                      t0: float) -> tuple[list[Any], Any, str]:
        """The warm-up sets of ``msg``'s case (``data``: its input file; ``build(seed)`` makes a set) and its
        baseline ``(calls, fn, label)``; adds the ``load`` and ``baseline`` phases (ms since ``t0``) to ``phases``.
        Raises :class:`~.timed_loop.BaselineFailed` where making the baseline fails (the baseline's fault, not the
        submission's)."""
        from ..suite.baselines import NotIsolated, baseline_kind
        from .timed_loop import BaselineFailed

        torch = self.torch
        device = self.device()
        calls = self.warmup_sets(data, build)
        phases["load"] = (time.perf_counter() - t0) * 1e3
        kinds = getattr(self.op, "baseline_kinds", ())
        t_base = time.perf_counter()
        if device.type == "cuda":
            torch.cuda.synchronize(device)  # the candidate's pending work fails here, as the candidate's
        ooms = _allocator_ooms()
        try:
            if msg.baseline is not None and msg.baseline in kinds:
                base_fn, label = self.op.baseline(calls[0], self.platform, prefer=msg.baseline)
            else:
                base_fn, label = self.op.baseline(calls[0], self.platform)
            if device.type == "cuda":
                torch.cuda.synchronize(device)
        except NotIsolated:
            raise  # made ahead only: the caller makes it in its case instead (run_ahead)
        except Exception as exc:  # noqa: BLE001 - making the baseline failed: the baseline's fault
            raise BaselineFailed(f"making the baseline failed: {type(exc).__name__}: {exc}") from exc
        if _allocator_ooms() > ooms and baseline_kind(label) == "native-eager" and msg.baseline != "native-eager":
            # a torch.compile that fell back to eager while the device ran out of memory: the device's state, which
            # the submission shares (memory it holds must not buy it the weaker bar: red team 32), not the
            # compiler's limit; the baseline failed (class baseline, judged again on resume)
            raise BaselineFailed(f"making the baseline failed: the device ran out of memory while the reference was "
                                 f"compiled ({label})")
        base_fn, label = self.probe_baseline(base_fn, label, calls, data, build)
        # what making it left (a compile's: dynamo's own collection after a compile is off in the child,
        # runner.child_env), collected here, guarded, in the untimed command
        collector.collect_young()
        # making the baseline: torch.compile of a vLLM operator's native reference (native-compiled) happens
        # here, once per case (measured on an H100: 0.5-1.2 s of the 1 s per timed case of vllm::rms_norm)
        phases["baseline"] = (time.perf_counter() - t_base) * 1e3
        return calls, base_fn, label

    def probe_baseline(self, base_fn: Any, label: str, calls: list[Any], data: dict[str, Any],
                       build: Any) -> tuple[Any, str]:
        """A compiled baseline (``base_fn.compiles``: suite/vllm/common.py CompiledBaseline) run on the case's other
        warm-up sets and on :data:`~.timed_loop.PROBE_SETS` fresh sets built from other seeds (never timed, never
        judged), before any timing: where it compiles a new graph there, the reference's shapes or guards depend on
        its input values and every fresh timed set would compile again (ggml_moe_a8's ``int(counts.max())``), so
        the case is timed against the eager reference, labelled why (``base_fn.eager_fallback``). Decided here,
        before a timed candidate call can touch the state the graphs are guarded on (red team 33). Other baselines
        are returned as they are. Raises what the baseline raises (the caller's BaselineFailed)."""
        from .timed_loop import PROBE_SALT, PROBE_SETS, BaselineFailed

        if not hasattr(base_fn, "compiles") or not hasattr(base_fn, "eager_fallback"):
            return base_fn, label
        seeds = [int(s) for s in data.get("warmup_seeds") or []]
        # one probe set alive at a time (a large case's sets fill the device), each dropped before the next
        makers = [(lambda c=c: c.clone()) for c in calls[1:]] + \
            [(lambda i=i: build(seeds[0] ^ (PROBE_SALT + i))) for i in range(PROBE_SETS) if seeds]
        before = base_fn.compiles
        device = self.device()
        try:
            for make in makers:
                base_fn(make())
                if device.type == "cuda":
                    self.torch.cuda.synchronize(device)
        except Exception as exc:  # noqa: BLE001 - the baseline's own failure, before any timing
            raise BaselineFailed(f"making the baseline failed on a probe set: {type(exc).__name__}: {exc}") from exc
        if base_fn.compiles > before:
            return base_fn.eager_fallback(base_fn.compiles - before, len(makers))
        return base_fn, label

    def loop(self) -> None:
        for line in self.cmd_in:
            obj = json.loads(line)
            if obj.get("cmd") == ExitCommand.cmd:
                break
            try:
                cmd = parse_command(obj)
                if isinstance(cmd, CaseCommand):
                    self.run_case(cmd)
                elif isinstance(cmd, TimeCommand):
                    self.run_time(cmd)
            except Exception as exc:  # noqa: BLE001 - a harness-side failure, reported as such
                self.send(HarnessError(error=error_report(exc, "harness")))
        self.send(Bye())


def note_harness_changes() -> None:
    """Record a change of the PyTorch modules and classes the child uses (``snapshots.harness_changed``) as a
    launch-rule violation (the verifier fails the job as ``profile``). Called right after each traced call, before
    the child touches its results, and with every answer; Triton's modules and runtime classes too (rt39b: the
    kernel class whose run the harness hooks)."""
    from . import snapshots
    from .state import STATE

    changed = snapshots.harness_changed() or snapshots.triton_changed()
    if changed is not None:
        STATE.note_violation(changed)


def on_host(data: dict[str, Any]) -> dict[str, Any]:
    """A case's loaded inputs (``Call.saved``'s dict) with the tensors of its ``host`` slots moved back to the host
    (``torch.load(map_location=device)`` put every tensor on the device; aten::fill_'s held-out case passes its 0-d
    value on the CPU, as PyTorch allows, and must reach the candidate there)."""
    for slot in data.get("host") or ():
        if isinstance(slot, int):
            data["args"][slot] = data["args"][slot].cpu()
        else:
            data["kwargs"][slot] = data["kwargs"][slot].cpu()
    return data


def placed_as_loaded(call: Any, device: Any) -> Any:
    """``call`` with its tensors where the sandbox child's load puts them: a case's inputs travel to the child with
    ``torch.save`` and arrive through ``torch.load(map_location=device)``, so a tensor that an operator's ``build``
    makes on the host (vllm::swap_blocks' ``block_mapping``) reaches the candidate on ``device``. Inputs the child
    builds itself from a seed (the timed repetitions' fresh sets, the baseline's warm-up and probe sets) must arrive
    the same way: where any tensor of ``call`` lies on another device type than ``device``, the call makes that
    same save/load round trip in memory (storages shared, views, strides and offsets kept, as in a case's load) and
    its written arguments are cloned as a case's are (resizable); its ``host`` slots stay where they are
    (as :func:`on_host` keeps a case's). Otherwise ``call`` itself is returned."""
    import io

    import torch

    from ..suite.spec import Call
    from ..suite.tensors import clone_tree

    def other(o: Any) -> bool:
        if isinstance(o, torch.Tensor):
            return o.device.type != device.type
        if isinstance(o, (list, tuple)):
            return any(other(x) for x in o)
        if isinstance(o, dict):
            return any(other(x) for x in o.values())
        return False

    kept = set(call.host)
    if not other([[a for i, a in enumerate(call.args) if i not in kept],
                  {k: v for k, v in call.kwargs.items() if k not in kept}]):
        return call
    saved = call.saved()  # the host slots do not travel: the same tensors are put back
    saved["args"], saved["kwargs"] = list(saved["args"]), dict(saved["kwargs"])
    for slot in kept:
        (saved["args"] if isinstance(slot, int) else saved["kwargs"])[slot] = None
    buf = io.BytesIO()
    torch.save(saved, buf)
    buf.seek(0)
    data = torch.load(buf, map_location=device, weights_only=True)
    for slot in kept:
        (data["args"] if isinstance(slot, int) else data["kwargs"])[slot] = call.get(slot)
    args, kwargs = data["args"], data["kwargs"]
    if data["written"]:
        args, kwargs = clone_tree([args, kwargs])
    return Call.loaded(data, args, kwargs)


def given_lists(call: Any) -> dict[int | str, list[Any]]:
    """The elements of every list argument of ``call`` as the case passed them (a shallow copy, taken before
    the call): :func:`as_given` judges these tensors, whatever the candidate put in the list meanwhile."""
    out: dict[int | str, list[Any]] = {}
    for key, value in [*enumerate(call.args), *call.kwargs.items()]:
        if isinstance(value, list):
            out[key] = list(value)
    return out


def as_given(call: Any, given: dict[int | str, list[Any]]) -> tuple[list[Any], dict[str, Any]]:
    """``call``'s arguments after the call, each list argument holding the elements the case passed
    (:func:`given_lists`). A written list (``copy_blocks``' caches, judged as slots ``arg.<pos>.<i>``) must be
    written in place: a candidate that puts new tensors into the caller's list leaves the caller's tensors
    unwritten, and those are what is judged (the real operator writes the caches the caller holds)."""
    args = [list(given[i]) if i in given else a for i, a in enumerate(call.args)]
    kwargs = {k: list(given[k]) if k in given else v for k, v in call.kwargs.items()}
    return args, kwargs


def readonly_storages(call: Any) -> frozenset[int]:
    """Data pointers of the storages of a case's read-only inputs: every tensor of the call (in lists and
    tuples too) outside its ``written`` slots, less storages a written slot shares. A host read of them
    is never Triton's work (``host_reads.host_read``)."""
    from .provenance import _storage, _tensors

    def ptrs(obj: Any) -> set[int]:
        return {st.data_ptr() for _, t in _tensors(obj) for st in [_storage(t)] if st is not None and st.nbytes()}

    written = [call.get(s) for s in call.written]
    rest = [a for i, a in enumerate(call.args) if i not in call.written]
    rest += [v for k, v in call.kwargs.items() if k not in call.written]
    return frozenset(ptrs(rest) - ptrs(written))


def _sanitize(ret: Any, torch: Any) -> Any:
    """Keep what the verifier can load safely: tensors, numbers, None, and lists/tuples of them."""
    if ret is None or isinstance(ret, (bool, int, float, complex, torch.Tensor)):
        return ret
    if isinstance(ret, (list, tuple)):
        return type(ret)(_sanitize(r, torch) for r in ret) if isinstance(ret, list) else tuple(
            _sanitize(r, torch) for r in ret)
    return f"<{type(ret).__name__}>"


def _devices(ret: Any, torch: Any) -> Any:
    """The device of every returned tensor (``"cuda:0"``), mirroring the return's structure (None
    for non-tensors): the verifier loads tensors onto its own device, so it learns the device the
    candidate returned a tensor on only from this."""
    if isinstance(ret, torch.Tensor):
        return str(ret.device)
    if isinstance(ret, (list, tuple)):
        return [_devices(r, torch) for r in ret]
    return None


def main(argv: list[str] | None = None) -> None:
    """The child's entry point: ``argv`` (default ``sys.argv[1:]``) as documented at the top of this module;
    called by ``python -m`` or, in a process forked by the fork server (``sandbox/forkserver.py``), directly."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--op", required=True)
    ap.add_argument("--op-module", default=None, help="the module that defines --op (imported alone)")
    ap.add_argument("--submission", required=True)
    ap.add_argument("--platform", required=True)
    ap.add_argument("--resp-fd", type=int, required=True)
    ap.add_argument("--progress", default=None, help="file for the interpreter's progress counters")
    args = ap.parse_args(argv)
    # On SIGUSR1 (the runner's last word before it kills a child that timed out) every thread's Python stack
    # goes to stderr, the job's child.log: where the candidate hung (a host loop, a kernel launch, the import).
    import faulthandler

    faulthandler.register(signal.SIGUSR1, all_threads=True)
    child = Child(args)
    if child.start():
        child.loop()


if __name__ == "__main__":
    main()
