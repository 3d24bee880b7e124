"""The timed loop: baseline and candidate of one case timed in one process (DESIGN.md "Timing").

Method, per case:
  * warm-up: each side runs until ``warmup_ms`` has elapsed and at least 3 calls completed, so
    autotuning and compilation finish before anything is measured;
  * measurement: blocks of repetitions alternate between baseline and candidate (the order flips
    every block); every timed repetition gets inputs never seen before in the process: repetition
    ``k`` of each side uses input set ``k``, built fresh from its own secret seed (``make_set``,
    outside the timed region; both sides time the same values), and each side calls on its own
    clone of it. The L2 cache is flushed by writing a 256 MB buffer before every repetition; the
    call is timed with device events; the median per side is kept. Fresh values per repetition
    mean that no cache of results across calls — on the host or on the device, keyed by pointers,
    shapes or hashes of the values — can answer a timed call: with reused inputs (earlier versions
    alternated two sets) a candidate that computes once and answers later calls from a cache
    would have been timed on its cache hits;
  * host ahead: after the flush the device spins (``torch.cuda._sleep``) for longer than the side
    takes to issue one call on the host (measured in the warm-up: four times the slowest issue time
    after the first two calls, plus 0.2 ms, at most 20 ms), so the start event runs only once the
    whole call is queued; Python's garbage collector is paused inside the timed blocks. The events
    then measure device time, the same way every repetition: without the lead, whether the host's
    launch overhead landed inside the events depended on how far ahead of the device the host
    happened to be, which made small cases bimodal (seen on the H200: 5 us or 20-100 us for the same
    kernel, 10-30% run-to-run spread of operator speedups). A call that synchronises with the device
    still pays for it. The host's issue time per call is reported next to it (``*_host_ms``; the
    candidate's includes the harness's count of its ATen ops, ``dispatch.TimedTraceMode``);
  * checks: the host wall clock of each block must cover the device-event total (a candidate
    cannot report time it did not spend), every candidate repetition must launch a Triton kernel,
    the ATen ops of every candidate call (warm-up included) are counted and judged by the L3
    allowlist like a correctness call's (``timed_trace``: a candidate that tells timing apart and
    then computes with PyTorch or cuBLAS fails as ``profile``), every returned output must live in
    storage allocated during its call (``stale_outputs``: a pooled buffer would let the timed calls
    allocate nothing),
    and the repetitions the verifier chose at random (``check``) are sent back and judged against
    a reference of their inputs, rebuilt by the verifier from the same seeds: a candidate that
    computes something else while it is timed fails.

Runs inside the untrusted sandbox child, beside the candidate (the candidate must run there), which is
why it lives under ``sandbox/``: the verifier's half of the protocol (the command, the checks of what
this loop reports, the speedups) is ``verify/timing.py``, which also holds the constants both halves
share (:data:`~kernelgenbench.verify.timing.BLOCK`, :func:`~kernelgenbench.verify.timing.timed_repetitions`,
:func:`~kernelgenbench.verify.timing.timed_set_seed`). The verifier cross-checks the reported totals
against its own wall clock of the whole command.
"""
from __future__ import annotations

import gc
import statistics
import time
from collections import Counter
from functools import partial
from typing import Any, Callable, Iterable

import torch

from ..suite.spec import bind_pointers
from ..verify.timing import BLOCK, timed_repetitions
from . import collector

_FLUSH: dict[int, torch.Tensor] = {}


def _flush_buffer(device: torch.device) -> torch.Tensor:
    idx = device.index if device.index is not None else torch.cuda.current_device()
    if idx not in _FLUSH:
        _FLUSH[idx] = torch.empty(64 * 1024 * 1024, dtype=torch.int32, device=device)
    return _FLUSH[idx]


def _flush_kernel():
    import triton
    import triton.language as tl

    @triton.jit
    def kgb_l2_flush(ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
        tl.store(ptr + offs, tl.zeros([BLOCK], dtype=tl.int32), mask=offs < n)

    return kgb_l2_flush


_FLUSH_KERNEL = None


def flush_l2(device: torch.device, state: Any) -> None:
    """Evict the L2 cache by writing a 256 MB buffer with a harness Triton kernel.

    A harness kernel (not ``Tensor.zero_``) keeps the flush away from a registered candidate of
    ``zero_``/``fill_``; the launch is excluded from the candidate's launch accounting.
    """
    global _FLUSH_KERNEL
    if _FLUSH_KERNEL is None:
        _FLUSH_KERNEL = _flush_kernel()
    buf = _flush_buffer(device)
    n = buf.numel()
    mark = len(state.launches)
    _FLUSH_KERNEL[(n // 8192,)](buf, n, BLOCK=8192)
    del state.launches[mark:]


def _new_event() -> Any:
    return torch.cuda.Event(enable_timing=True)


def _synchronize() -> None:
    torch.cuda.synchronize()


#: device memory (bytes) the warm-up calls may pile up before a guarded collection of the young generations: the
#: sandbox child runs with automatic collection off (sandbox/collector.py), so garbage cycles of each warm-up call
#: (a clone or output held in a submission's, a compiler's or an exception's reference cycle) were freed only at the
#: next command; 200 ms of warm-up on a 5333x8192 fp16 case ran out of memory at 69 GiB that way on an H100 (9530296)
WARMUP_PILE_BYTES = 2 << 30


def _allocated(device: Any) -> int:
    """Bytes PyTorch's caching allocator has handed out on ``device`` (0 where there is no CUDA)."""
    return torch.cuda.memory_allocated(device) if torch.cuda.is_available() else 0


_CYCLES_PER_MS: float | None = None


def _cycles_per_ms() -> float:
    """Device clock cycles per ms of ``torch.cuda._sleep``, calibrated once per process."""
    global _CYCLES_PER_MS
    if _CYCLES_PER_MS is None:
        torch.cuda._sleep(1000)  # load the module before timing anything
        start, end = _new_event(), _new_event()
        start.record()
        torch.cuda._sleep(2_000_000)
        end.record()
        _synchronize()
        _CYCLES_PER_MS = 2_000_000 / max(start.elapsed_time(end), 1e-3)
    return _CYCLES_PER_MS


def _device_lead(ms: float) -> None:
    """Keep the device busy for ``ms`` so that the host gets ahead of it (see the module notes)."""
    torch.cuda._sleep(int(ms * _cycles_per_ms()))


def attached_objects(objs: Any, limit: int = 3) -> str:
    """Python state a candidate tied to the harness's tensors: instance attributes (``t.__dict__``),
    autograd hooks, or a ``.grad`` carrying either, on any tensor inside ``objs`` (nested lists,
    tuples, dicts, :class:`~kernelgenbench.suite.spec.Call` objects). A harness tensor carries none,
    and a kernel has no use for them; an object held there runs its finalizer (``__del__``) when
    the harness drops the tensor, which is outside every timed window.

    Args:
        objs: ``(call, return value)`` pairs of candidate repetitions.

    Returns:
        ``""`` when there is none, else up to ``limit`` descriptions such as
        ``"args[0].__dict__['_k'] (a _Later)"``.
    """
    found: list[str] = []
    seen: dict[int, Any] = {}  # id -> the object, held: see _tensors

    def visit(x: Any, where: str) -> None:
        if len(found) >= limit or id(x) in seen:
            return
        seen[id(x)] = x
        if isinstance(x, torch.Tensor):
            attrs = getattr(x, "__dict__", None) or {}
            for name, v in attrs.items():
                found.append(f"{where}.__dict__[{name!r}] (a {type(v).__name__})")
            for hooks in ("_backward_hooks", "_post_accumulate_grad_hooks"):
                if getattr(x, hooks, None):
                    found.append(f"{where}.{hooks}")
            if x.grad is not None if x.is_leaf else False:
                visit(x.grad, where + ".grad")
        elif isinstance(x, (list, tuple)):
            for i, v in enumerate(x):
                visit(v, f"{where}[{i}]")
        elif isinstance(x, dict):
            for kk, v in x.items():
                visit(v, f"{where}[{kk!r}]")
        elif hasattr(x, "args") and hasattr(x, "kwargs"):  # a Call
            visit(list(x.args), "args")
            visit(dict(x.kwargs), "kwargs")

    try:
        for c, ret in objs:
            visit(c, "")
            visit(ret, "return value")
    finally:
        seen.clear()
        visit = None  # noqa: F841 - its closure refers to itself (a cycle the child collects only where it says)
    return ", ".join(found[:limit])


def _tensors(objs: Any) -> list[torch.Tensor]:
    """The tensors of a repetition's call and return value (nested lists, tuples, dicts, Call objects), each layout of
    memory once (the first tensor met with it), in a stable order."""
    found: list[torch.Tensor] = []
    # id -> the object, held until the walk ends: a Call's arguments are walked as a temporary list, and a freed
    # one's id is handed to the next (the next Call's), which was then skipped as seen (the tensors of every Call
    # after the first of a list went missing)
    seen: dict[int, Any] = {}
    storages: set[tuple] = set()

    def visit(x: Any) -> None:
        if id(x) in seen:
            return
        seen[id(x)] = x
        if isinstance(x, torch.Tensor):
            if x.device.type == "meta":
                return
            key = (str(x.device), x.untyped_storage().data_ptr(), x.storage_offset(), x.element_size(),
                   tuple(x.shape), tuple(x.stride()))
            if x.numel() and key not in storages:
                storages.add(key)
                found.append(x)
        elif isinstance(x, (list, tuple)):
            for v in x:
                visit(v)
        elif isinstance(x, dict):
            for v in x.values():
                visit(v)
        elif hasattr(x, "args") and hasattr(x, "kwargs"):  # a Call
            visit(list(x.args))
            visit(dict(x.kwargs))

    try:
        visit(objs)
    finally:
        seen.clear()
        # its closure refers to itself: a reference cycle holding ``found`` (tensors) until the child's next collection
        visit = None  # noqa: F841
    return found


def digest(objs: Any, device: torch.device | str | None = None) -> torch.Tensor:
    """A checksum of the bytes a timed repetition's call and return value hold: per tensor, over its extent in its
    storage (gaps included), the sum of its bytes, of its bytes at odd offsets and of those at offsets divisible by 3
    (strided reductions, no copy). Taken when the repetition's call returned and again later (:func:`_time_case`): a
    result a later call completes or changes (work left for later, red team 38) changes it. Run with the candidate's
    ATen registration lifted (the reductions are the harness's, not a registered candidate's ``sum``).

    ``device``: only tensors on that device type are summed (default: every tensor), so that the sums stack on one
    device and stay ordered after the call's work on its stream: a call may hold host tensors beside device ones
    (vllm::swap_blocks' block mapping, a CPU fill value of aten::fill_), and a host tensor the device writes
    asynchronously could be read here before the write landed."""
    sums: list[torch.Tensor] = []
    kind = None if device is None else torch.device(device).type
    for t in _tensors(objs):
        if t.numel() == 0 or (kind is not None and t.device.type != kind):
            continue
        # the bytes from the tensor's first element to its last (its extent in its storage, gaps included)
        span = (1 + sum((n - 1) * abs(st) for n, st in zip(t.shape, t.stride()))) * t.element_size()
        b = torch.empty(0, dtype=torch.uint8, device=t.device).set_(
            t.untyped_storage(), t.storage_offset() * t.element_size(), (span,))
        sums += [b.sum(dtype=torch.int64), b[1::2].sum(dtype=torch.int64), b[::3].sum(dtype=torch.int64)]
    return torch.stack(sums) if sums else torch.zeros(0, dtype=torch.int64)  # on the device: no synchronisation


def _changed(impl: Any, before: dict[int, torch.Tensor], objs: dict[int, Any], device: Any = None) -> list[int]:
    """The repetitions among ``objs`` whose :func:`digest` (on ``device``) differs from the one taken when their call
    returned."""
    impl.deactivate()
    try:
        return [k for k, o in sorted(objs.items())
                if k in before and not torch.equal(before[k].cpu(), digest(o, device).cpu())]
    finally:
        impl.activate()


def _changed_error(ks: list[int]) -> RuntimeError:
    return RuntimeError(f"timing check failed: timed repetition {ks[0]}'s tensors changed after its call returned "
                        f"({len(ks)} repetition(s)): a later call of the candidate wrote into them, so a repetition's "
                        "time did not hold its work (work left for a later call)")


class BaselineFailed(RuntimeError):
    """The baseline (the production API or its stand-in), not the candidate, raised or faulted while being timed.
    The child reports it with stage ``baseline``; the verifier records failure class ``baseline``, which is not
    the submission's fault (verify/failures.py). Every candidate block ends with a device synchronisation, so a
    fault the candidate's own kernels cause surfaces in the candidate's block, not here."""


#: fresh input sets (beside the other warm-up sets) a compiled baseline is run on before timing, to find a reference
#: whose shapes or guards depend on its input values (sandbox/child.py ``probe_baseline``), and the salt of their
#: seeds (xor-ed with the first warm-up set's seed: values no timed or judged set has)
PROBE_SETS = 3
PROBE_SALT = 0x5EED_0F_9B0BE


class BaselineRecompiled(RuntimeError):
    """A compiled baseline (``base_fn.compiles``: the graphs ``torch.compile`` compiled during its calls) compiled
    inside a timed block: its times hold compilation, which must stay outside the timed region (issue 14). Raised
    after the block. A reference whose graphs depend on its input values is found before timing
    (sandbox/child.py ``probe_baseline``) and timed eagerly from the start; one that compiles only here is not shown
    to be the reference's doing, and the child reports the baseline failed (red team 33: a candidate that changed
    the global state the graphs are guarded on). ``graphs``: how many it compiled there."""

    def __init__(self, graphs: int) -> None:
        super().__init__(f"torch.compile compiled {graphs} new graph(s) of the baseline inside a timed block")
        self.graphs = graphs


def time_case(op: Any, impl: Any, base_fn: Callable[[Any], Any], calls: list[Any], platform: Any, state: Any,
              reps: int = 50, warmup_ms: float = 25.0, block: int = BLOCK,
              check: Iterable[int] = (), make_set: Callable[[int], Any] | None = None,
              fastest: int = 0) -> dict[str, Any]:
    """Time baseline and candidate on one case.

    Args:
        op: the :class:`~kernelgenbench.suite.spec.Operator`.
        impl: the candidate implementation handle (``activate``/``deactivate`` toggle ATen
            registration).
        base_fn: runs the baseline once on a :class:`Call`.
        calls: the warm-up input sets of the case (on the device), used in turn by the warm-up calls
            only: no timed repetition sees their values.
        platform: the platform profile.
        state: the hook state (launch accounting).
        reps: repetitions per side (rounded up to whole blocks).
        warmup_ms: minimum warm-up per side, in ms.
        block: repetitions per block before switching sides.
        check: the numbers of the candidate repetitions whose inputs and outputs are kept for the
            verifier to judge (chosen at random by the verifier).
        fastest: how many of the fastest candidate repetitions (by device time; ties: the earlier) are kept too,
            beside ``check`` (verify/timing.py ``fastest_repetitions``: the verifier finds the same ones in the
            samples and judges them): a candidate that skips its work on some repetitions makes them its fastest.
        make_set: ``k -> Call``, input set ``k`` of the timed repetitions, built from its own seed
            (the caller lifts the candidate's registration around the build). Repetition ``k`` of
            each side calls on a clone of set ``k``. None: the sets are ``calls[k % len(calls)]``
            (only for tests of the protocol: reused values let a result cache answer).

    Returns:
        ``{"baseline_ms", "candidate_ms"}`` medians in ms, the per-side sample lists, the host
        wall-clock and event totals in ms, ``launches_per_rep`` (minimum over candidate reps),
        ``build_ms`` (host time spent building the timed input sets, outside the timed region),
        ``warmup_wall_ms`` (host wall time of both sides' warm-up),
        ``timed_trace`` (ATen op key -> the most times one candidate call, warm-up included, ran it
        outside Triton launches: the L3 trace of the timed calls), ``stale_outputs`` (returned tensors
        of candidate calls, warm-up included, in storage neither allocated during their call nor an
        argument's: ``provenance.CallEvidence.stale_returns``; the verifier fails them) and ``checked``:
        candidate repetition number -> (the call as the candidate left it, its return value).

    Raises:
        RuntimeError: the candidate launched no Triton kernel in some repetition, or the device
            events report more time than the host clock saw.
    """
    if platform.device == "cuda":
        device = torch.device("cuda", torch.cuda.current_device())
    else:
        device = torch.device(platform.device)
    if make_set is None:
        def make_set(k: int) -> Any:
            return calls[k % len(calls)]

    # Timing runs the candidate without poisoning, replay logs or signature binding; its ATen ops are
    # still counted (dispatch.TimedTraceMode: host time only, kept out of the device events by the lead)
    # and judged by the verifier like a correctness call's.
    state.tracing = False
    state.timed_trace = Counter()
    state.stale_outputs = []
    try:
        res = _time_case(op, impl, base_fn, calls, platform, state, device, reps, warmup_ms, block, set(check),
                         make_set, fastest)
        res["timed_trace"] = dict(state.timed_trace)
        res["stale_outputs"] = list(state.stale_outputs)
        return res
    finally:
        state.tracing = True
        state.timed_trace = None


def _time_case(op, impl, base_fn, calls, platform, state, device, reps, warmup_ms, block, check, make_set,
               fastest=0):
    def warm(fn: Callable[[Any], Any]) -> float:
        """Warm up; return the slowest host issue time (ms) after the first two calls (compilation)."""
        t0 = time.perf_counter()
        n = 0
        issue: list[float] = []
        floor = _allocated(device)
        while n < 3 or (time.perf_counter() - t0) * 1e3 < warmup_ms:
            c = calls[n % len(calls)].clone()
            h = time.perf_counter()
            fn(c)
            issue.append((time.perf_counter() - h) * 1e3)
            _synchronize()
            n += 1
            del c
            if not gc.isenabled() and _allocated(device) - floor > WARMUP_PILE_BYTES:
                collector.collect_young("a collection during the timing warm-up")  # guarded (WARMUP_PILE_BYTES)
                floor = _allocated(device)
            if n > 1000:
                break
        return max(issue[2:] or issue)

    # The candidate's registration (ATen) is active between commands; baseline blocks lift it.
    t_warm = time.perf_counter()
    _synchronize()  # anything the candidate left running fails here, as the candidate's
    impl.deactivate()
    try:
        issue_b = warm(base_fn)
    except Exception as exc:  # noqa: BLE001 - the baseline's own failure, reported as such
        raise BaselineFailed(f"the baseline failed while warming up: {type(exc).__name__}: {exc}") from exc
    finally:
        impl.activate()
    # One candidate call per repetition (Operator.drive_timed, made by sandbox/drive.py).
    from .drive import invoke_timed

    invoke = partial(invoke_timed, op)
    issue_c = warm(lambda c: invoke(impl, c, platform))
    warmup_wall_ms = (time.perf_counter() - t_warm) * 1e3
    lead_ms = min(20.0, 4.0 * max(issue_b, issue_c) + 0.2)
    host: dict[str, list[float]] = {"baseline": [], "candidate": []}

    samples: dict[str, list[float]] = {"baseline": [], "candidate": []}
    wall: dict[str, float] = {"baseline": 0.0, "candidate": 0.0}
    launches: list[int] = []
    checked: dict[int, tuple[Any, Any]] = {}
    # the fastest candidate repetitions so far: (device ms, number, call, return), at most ``fastest`` of them
    quick: list[tuple[float, int, Any, Any]] = []
    # repetition number -> digest() of its tensors when its call returned (kept for the judged ones after their block)
    digests: dict[int, torch.Tensor] = {}
    build_ms = 0.0
    nblocks = timed_repetitions(reps, block) // block
    compiled_before = getattr(base_fn, "compiles", None)  # a compiled baseline's count after its warm-up
    for b in range(nblocks):
        # this block's input sets, fresh values; both sides time the same ones, each on its own clones
        t_build = time.perf_counter()
        sets = [make_set(b * block + j) for j in range(block)]
        _synchronize()
        build_ms += (time.perf_counter() - t_build) * 1e3
        order = ("baseline", "candidate") if b % 2 == 0 else ("candidate", "baseline")
        for side in order:
            if side == "baseline":
                impl.deactivate()
            gc_was_enabled = gc.isenabled()
            gc.disable()
            kept: list[tuple[Any, Any]] = []
            try:
                evs = []
                _synchronize()
                h0 = time.perf_counter()
                for j in range(block):
                    k = b * block + j
                    c = sets[j].clone()
                    bind_pointers(c)  # *Batched address tensors (cached on c): built outside the timed window
                    flush_l2(device, state)
                    start, end = _new_event(), _new_event()
                    mark = len(state.launches)
                    _device_lead(lead_ms)
                    start.record()
                    h = time.perf_counter()
                    if side == "candidate":
                        ret = invoke(impl, c, platform)
                    else:
                        base_fn(c)
                    host[side].append((time.perf_counter() - h) * 1e3)
                    end.record()
                    if side == "candidate":
                        launches.append(len(state.launches) - mark)
                        # what the call left, as it returned (outside the events: after end.record)
                        impl.deactivate()
                        try:
                            digests[k] = digest((c, ret), device)
                        finally:
                            impl.activate()
                        if k in check:
                            checked[k] = (c, ret)
                        # every repetition's inputs and outputs live until the block's events are read:
                        # work a finalizer would run when the harness drops them lands after the block,
                        # never in a later repetition's window and never before a judged output is read
                        kept.append((c, ret))
                    evs.append((start, end))
                _synchronize()
                wall[side] += (time.perf_counter() - h0) * 1e3
                times = [s.elapsed_time(e) for s, e in evs]
                samples[side].extend(times)
                if side == "candidate" and fastest > 0:
                    for j, t in enumerate(times):
                        quick.append((t, b * block + j, *kept[j]))
                    quick.sort(key=lambda q: (q[0], q[1]))
                    del quick[fastest:]
                if side == "candidate":
                    changed = _changed(impl, digests, {b * block + j: o for j, o in enumerate(kept)}, device)
                    if changed:
                        raise _changed_error(changed)
                    judged = check | {q[1] for q in quick}
                    for j in range(block):
                        if b * block + j not in judged:
                            digests.pop(b * block + j, None)
                    found = attached_objects(kept)
                    if found:
                        raise RuntimeError(
                            f"timing check failed: the candidate attached Python objects to the harness's "
                            f"tensors ({found}); work tied to their lifetime would run outside the timed "
                            f"window")
            except Exception as exc:  # noqa: BLE001 - a baseline block's failure is the baseline's
                if side == "baseline":
                    raise BaselineFailed(f"the baseline failed in a timed block: {type(exc).__name__}: {exc}") from exc
                raise
            finally:
                kept.clear()
                if gc_was_enabled:
                    gc.enable()
                else:  # the sandbox child collects only where it says (sandbox/collector.py): here, guarded
                    collector.collect_young()
                impl.activate()
        state.launches.clear()
        del sets
        if compiled_before is not None and base_fn.compiles > compiled_before:
            # the reference's shapes or guards depend on its input values (a host read sizing a tensor): every
            # fresh timed set compiles again, and the compile's host time lands between the block's events
            raise BaselineRecompiled(base_fn.compiles - compiled_before)
    for side in samples:
        total = sum(samples[side])
        if total > wall[side] * 1.05 + 0.05:
            raise RuntimeError(f"timing check failed: device events report {total:.3f} ms for the {side} but the "
                               f"host clock saw only {wall[side]:.3f} ms")
    for _, k, c, ret in quick:
        checked.setdefault(k, (c, ret))
    quick.clear()
    # the judged repetitions are judged after the loop: none may have been completed by a call of a later block
    changed = _changed(impl, digests, checked, device)
    if changed:
        raise _changed_error(changed)
    needs_launch = all(c.needs_launch for c in calls)  # False for nothing-to-compute cases (NothingToCompute)
    if needs_launch and launches and min(launches) == 0:
        raise RuntimeError("a timed candidate repetition launched no Triton kernel (a result that was not "
                           "computed cannot be timed)")
    return {
        "baseline_ms": statistics.median(samples["baseline"]),
        "candidate_ms": statistics.median(samples["candidate"]),
        "baseline_samples": samples["baseline"], "candidate_samples": samples["candidate"],
        "wall_ms": wall, "event_total_ms": {k: sum(v) for k, v in samples.items()},
        "baseline_host_ms": statistics.median(host["baseline"]),
        "candidate_host_ms": statistics.median(host["candidate"]),
        "lead_ms": lead_ms,
        "launches_per_rep": min(launches) if launches else 0,
        "build_ms": build_ms,
        "warmup_wall_ms": warmup_wall_ms,
        "checked": checked,
    }
