"""What the vLLM families share (vllm.md §2): the dtype axis, the baseline picker and its label, row
views of padded inputs, element sizes for cost models."""
from __future__ import annotations

import importlib
import itertools
import types
import weakref
from typing import Any, Callable

import torch

from ..baselines import BASELINE_KINDS, NotIsolated, ahead
from ..common import flat_tensors, make_tensor
from ..spec import Call, dtype_of

#: The activation dtypes of most vLLM grids.
FLOAT3 = ["fp16", "bf16", "fp32"]


def vllm_ops() -> Any | None:
    """The ``vllm._custom_ops`` module when it imports here, else None."""
    try:
        return importlib.import_module("vllm._custom_ops")
    except Exception:  # noqa: BLE001 - any import failure means "not available"
        return None


NATIVE_COMPILED = "native-compiled (the native PyTorch reference under torch.compile, compiled before timing)"
NATIVE_EAGER = "native-eager (the native PyTorch reference, eager)"


def baseline_label() -> str:
    """The baseline an unforced timing run uses here (vllm.md §2.4; recorded as the job's ``baseline``
    on platforms that time nothing): ``vllm`` when ``vllm._custom_ops`` imports, else ``native-compiled``
    (which falls back to ``native-eager`` per operator where compilation fails; the timed record says)."""
    return "vllm (vllm._custom_ops)" if vllm_ops() is not None else f"{NATIVE_COMPILED}; vLLM not importable"


def _compiled(native: Callable[[Call], Any], call: Call, backend: str, dynamic: bool = False,
              numerics: bool = False) -> Callable[[Call], Any]:
    """``native`` under ``torch.compile`` over the call's arguments, compiled now on a clone of ``call``
    (so that compilation stays outside the timed region), then checked against ``native`` run eagerly on another
    clone (:func:`disagreement`). ``dynamic``: ``torch.compile``'s, static shapes unless set (:func:`pick_baseline`'s
    ``dynamic_reason``). ``numerics``: Inductor keeps the reference's rounding points (:func:`eager_numerics`;
    :func:`pick_baseline` asks for it only where the default compile disagreed). Raises whatever compilation raises,
    and :class:`CompiledDisagrees`."""
    from torch._dynamo.utils import counters

    written, unchanged = call.written, call.unchanged

    def core(*args: Any, **kwargs: Any) -> Any:
        return native(Call(list(args), dict(kwargs), written, unchanged))

    # A fresh cache per case: the recompile limit of one code object would otherwise turn the later cases of a grid
    # (new shapes) silently eager. Made in its case, ``torch._dynamo.reset()`` first, as always. Made ahead of the
    # job's timing (sandbox/child.py ``run_ahead``), the job's other baselines made ahead must keep their graphs, so
    # no reset (but before the first): each case's ``core`` has a code object of its own (:func:`own_code`), whose
    # cache, guards and recompile count are its own. That keeps the case apart only where the reference compiles to
    # one graph of that frame: a graph break compiles the rest as frames of the reference's own functions and of
    # dynamo's resume functions, whose code every case shares (:class:`NotIsolated`: made in its case instead).
    made_ahead = ahead()
    if not made_ahead or not _MADE_AHEAD:
        torch._dynamo.reset()
    core = own_code(core)
    graphs, breaks = counters["stats"]["unique_graphs"], sum(counters["graph_break"].values())
    compiled = torch.compile(core, dynamic=dynamic, backend=backend,
                             options=eager_numerics() if numerics and backend == "inductor" else None)
    warm = call.clone()
    ret = compiled(*warm.args, **warm.kwargs)
    cuda = any(isinstance(t, torch.Tensor) and t.is_cuda for t in flat_tensors([warm.args, warm.kwargs]))
    if cuda:
        torch.cuda.synchronize()
    made = counters["stats"]["unique_graphs"] - graphs
    isolated = made <= 1 and sum(counters["graph_break"].values()) == breaks and cache_entries(core.__code__) == made
    if made_ahead and not isolated:
        raise NotIsolated(f"the reference compiles to {made} graph(s) and "
                          f"{sum(counters['graph_break'].values()) - breaks} graph break(s), frames whose caches "
                          f"every case shares")
    if made <= 0:  # dynamo skipped the frame: the reference would run eagerly
        raise RuntimeError("torch.compile captured no graph")
    # the compiled reference must compute what the eager one does (pytorch/pytorch#182343: Inductor read a sliced
    # searchsorted sequence from its buffer's start), else the baseline times different work
    plain = call.clone()
    eager_ret = native(plain)
    if cuda:
        torch.cuda.synchronize()
    off = disagreement([_written(warm), ret], [_written(plain), eager_ret])
    if off:
        raise CompiledDisagrees(f"torch.compile's result differs from the eager reference on the warm-up set: {off}")
    base = CompiledBaseline(compiled, native, core.__code__, isolated=isolated)
    if made_ahead:
        _MADE_AHEAD.add(base)
    return base


#: Inductor options that keep the reference's rounding points (torch 2.11 and later name them so; those missing in
#: the installed torch are left out). ``emulate_precision_casts``: a fused ``.to(bf16/fp16).float()`` otherwise drops
#: the rounding the reference states (rms_norm_dynamic_per_token_quant's y = rd_T(rd_T(x*inv)*w) kept in fp32 moved
#: 2-3% of bf16 cases' int8 values by one); it also turns off Triton's fma contraction. ``division_rounding``:
#: Triton's fp32 ``x / y`` is otherwise ``div.full`` (approximate), where the reference's division is IEEE's (the
#: dynamic asymmetric zero point rne(-128 - min/s) is an exact tie in the ~1.5% of bf16 rows whose min is -max, and
#: an approximate quotient rounds it either way: scaled_int8_quant on an H100, session 43).
#: torch 2.10 named the division knob ``emulate_divison_rounding`` (sic), 2.11 renamed it: whichever exists is passed.
EAGER_NUMERICS = {"emulate_precision_casts": True, "eager_numerics.division_rounding": True,
                  "emulate_divison_rounding": True}

#: What a ``native-compiled`` label adds where the baseline was compiled with :data:`EAGER_NUMERICS`.
NUMERICS_TEXT = ("compiled keeping the reference's rounding points (Inductor's emulate_precision_casts and IEEE fp32 "
                 "division)")


def eager_numerics() -> dict[str, bool]:
    """The :data:`EAGER_NUMERICS` options this torch's Inductor knows (``torch.compile(options=...)`` refuses an
    unknown one), so that the compiled reference computes the eager reference's function at its rounding points."""
    from torch._inductor import config

    known = {}
    for key, value in EAGER_NUMERICS.items():
        node: Any = config
        try:
            for part in key.split("."):
                node = getattr(node, part)
        except AttributeError:
            continue
        known[key] = value
    return known


_CODES = itertools.count()

#: the compiled baselines made ahead that are still alive (:func:`_compiled` resets dynamo before the first)
_MADE_AHEAD: weakref.WeakSet[CompiledBaseline] = weakref.WeakSet()


def own_code(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` as a new function over a code object of its own (named ``<name>_<n>``, n counting the copies made in
    this process): dynamo's cache of compiled graphs, its guards and its recompile limit belong to a code object, so
    each copy compiles and keeps its graphs apart from every other copy's."""
    code = fn.__code__.replace(co_name=f"{fn.__code__.co_name}_{next(_CODES)}")
    copy = types.FunctionType(code, fn.__globals__, code.co_name, fn.__defaults__, fn.__closure__)
    copy.__kwdefaults__ = fn.__kwdefaults__
    return copy


def cache_entries(code: types.CodeType) -> int:
    """How many compiled graphs dynamo keeps for ``code`` (its cache entries): 0 where a call of it would compile
    again or, past the recompile limit, run eagerly."""
    from torch._dynamo.eval_frame import _debug_get_cache_entry_list

    return len(_debug_get_cache_entry_list(code))


class CompiledBaseline:
    """The ``native-compiled`` baseline's function: runs the compiled reference on a :class:`Call` and counts the
    graphs ``torch.compile`` compiled during its calls (``compiles``; dynamo's ``unique_graphs``). The timed loop
    (sandbox/timed_loop.py) reads the count around its timed blocks: a reference whose shapes depend on its input
    values (``int(counts.max())`` sizing a tensor, as ggml_moe_a8's did) compiles again on every fresh timed set,
    and an H100 timed 150 ms of compilation as its baseline (a 3000x "speedup"). The sandbox child runs it on fresh
    probe sets before timing; where it compiles there, :meth:`eager_fallback` is the baseline the case is timed
    against, labelled ``native-eager`` with the reason."""

    def __init__(self, compiled: Callable[..., Any], native: Callable[[Call], Any],
                 code: types.CodeType | None = None, isolated: bool = True) -> None:
        self.compiled, self.native, self.compiles, self.code = compiled, native, 0, code
        #: compiled in one graph of its own frame (no graph break), kept apart from other cases' (:func:`_compiled`)
        self.isolated = isolated

    def graphs_kept(self) -> int | None:
        """The compiled graphs dynamo still keeps for this baseline's own code object (:func:`cache_entries`; None
        where it has none of its own): a baseline made ahead of its case's timing must still have its graph when it
        is timed, else it would compile again there or, past the recompile limit, run eagerly unseen."""
        return cache_entries(self.code) if self.code is not None else None

    def __call__(self, c: Call) -> Any:
        from torch._dynamo.utils import counters

        before = counters["stats"]["unique_graphs"]
        try:
            return self.compiled(*c.args, **c.kwargs)
        finally:
            self.compiles += counters["stats"]["unique_graphs"] - before

    def eager_fallback(self, graphs: int, sets: int) -> tuple[Callable[[Call], Any], str]:
        """``(fn, label)``: the native reference run eagerly, labelled with why: ``graphs`` new graphs compiled on
        ``sets`` fresh input sets of the case before timing (sandbox/child.py ``probe_baseline``)."""
        return self.native, (f"{NATIVE_EAGER}; torch.compile compiled {graphs} new graph(s) on {sets} fresh input "
                             f"sets of the case (the reference's shapes or guards depend on its input values), so "
                             f"the case is timed eagerly")


class CompiledDisagrees(RuntimeError):
    """The native reference under ``torch.compile`` computed something else than it does eagerly on the same
    input set (an Inductor defect): the baseline falls back to ``native-eager`` and its label says why."""


def _written(call: Call) -> list[Any]:
    """The values of ``call``'s written arguments (positions and names of ``call.written``), in order."""
    return [call.args[k] if isinstance(k, int) else call.kwargs[k] for k in call.written]


#: The share of an output's elements that may differ between the compiled and the eager reference (fused
#: arithmetic rounds differently, and a rounding difference can move a quantised value by one step).
DISAGREE_SHARE = 0.01


def disagreement(got: Any, want: Any) -> str | None:
    """Whether the compiled reference's outputs ``got`` disagree with the eager reference's ``want`` beyond
    rounding: None when they agree, else a short description of the first output that does not.

    Outputs are matched tensor by tensor (nested lists and tuples; non-tensor leaves compared with ``==``).
    A floating output element agrees when ``|got - want| <= 1e-2 * |want| + 1e-3 * max|want|`` (NaN matches NaN),
    any other dtype when it is equal; an output disagrees when shapes or dtypes differ or more than
    :data:`DISAGREE_SHARE` of its elements do not agree. A miscompiled index or a skipped step moves most
    elements; fusion's rounding moves few, by little.
    """
    g, w = flat_tensors(got), flat_tensors(want)
    if len(g) != len(w):
        return f"{len(g)} output tensors where the eager reference gives {len(w)}"
    for i, (a, b) in enumerate(zip(g, w)):
        if a.shape != b.shape or a.dtype != b.dtype:
            return f"output {i}: {a.dtype}{list(a.shape)} where the eager reference gives {b.dtype}{list(b.shape)}"
        if a.numel() == 0:
            continue
        if a.is_floating_point() or a.is_complex():
            x, y = a.detach().to(torch.complex128 if a.is_complex() else torch.float64), \
                b.detach().to(torch.complex128 if b.is_complex() else torch.float64)
            finite = torch.isfinite(y)
            scale = float(y[finite].abs().max()) if bool(finite.any()) else 0.0
            ok = ((x - y).abs() <= 1e-2 * y.abs() + 1e-3 * scale) | (torch.isnan(x) & torch.isnan(y)) | (x == y)
        else:
            ok = a == b
        bad = int((~ok).sum())
        if bad > DISAGREE_SHARE * a.numel():
            return f"output {i} ({a.dtype}{list(a.shape)}): {bad} of {a.numel()} elements differ"
    if [v for v in _leaves(got) if not isinstance(v, torch.Tensor)] != \
            [v for v in _leaves(want) if not isinstance(v, torch.Tensor)]:
        return "a non-tensor output differs"
    return None


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in _leaves(v)]
    return [value]


def pick_baseline(name: str, native: Callable[[Call], Any], call: Call, prefer: str | None = None,
                  backend: str = "inductor", eager_reason: str | None = None,
                  dynamic_reason: str | None = None) -> tuple[Callable[[Call], Any], str]:
    """The baseline the vLLM op ``name`` is timed against on ``call``'s case: ``(fn, label)``, the label
    starting with its kind (:data:`BASELINE_KINDS`).

    Args:
        name: the ``vllm._custom_ops`` function.
        native: the native reference, ``native(call)`` runs one call (writes its written arguments,
            returns what the op returns).
        call: a warm-up input set of the case (not modified: compilation runs on a clone).
        prefer: None picks ``vllm`` when importable, else ``native-compiled``; a kind forces it
            (``kgb eval --baseline``). ``native-compiled`` falls back to ``native-eager`` where
            ``torch.compile`` fails or its result disagrees with the eager reference on the warm-up set, and the
            label says why.
        backend: the ``torch.compile`` backend (tests use ``"eager"``).
        eager_reason: set where the native reference must not be compiled (a Python loop over tokens that
            ``torch.compile`` would unroll): ``native-compiled`` runs it eagerly instead, and the label says why.
        dynamic_reason: set where the reference is compiled with dynamic shapes (``torch.compile(dynamic=True)``,
            as vLLM compiles its own native reference of the op) instead of static ones; the label says so and why.

    Raises:
        ValueError: ``prefer`` is not a kind.
        RuntimeError: ``prefer="vllm"`` where ``vllm._custom_ops`` (or its ``name``) is not importable.
    """
    if prefer is not None and prefer not in BASELINE_KINDS:
        raise ValueError(f"vllm::{name}: unknown baseline {prefer!r}; expected one of {', '.join(BASELINE_KINDS)}")
    if prefer in (None, "vllm"):
        ops = vllm_ops()
        if ops is not None and hasattr(ops, name):
            fn = getattr(ops, name)
            return (lambda c: fn(*c.args, **c.kwargs)), f"vllm (vllm._custom_ops.{name})"
        if prefer == "vllm":
            why = "vllm._custom_ops is not importable" if ops is None else f"vllm._custom_ops has no {name}"
            raise RuntimeError(f"vllm::{name}: the vllm baseline was requested but "
                               f"{why}"
                               f" here")
    if prefer == "native-eager":
        return native, NATIVE_EAGER
    if eager_reason:
        return native, f"{NATIVE_EAGER}; not compiled: {eager_reason}"
    label = f"{NATIVE_COMPILED}; dynamic shapes: {dynamic_reason}" if dynamic_reason else NATIVE_COMPILED
    try:
        try:
            return _compiled(native, call, backend, dynamic=bool(dynamic_reason)), label
        except CompiledDisagrees as first:
            # Inductor's defaults drop rounding points the reference states (EAGER_NUMERICS): compiled once more
            # keeping them, before the case falls back to eager; the default compile is kept wherever it agrees,
            # so the baselines of operators it computes right do not change
            fn = _compiled(native, call, backend, dynamic=bool(dynamic_reason), numerics=True)
            return fn, f"{label}; {NUMERICS_TEXT} (the default compile disagreed: {str(first)[:200]})"
    except CompiledDisagrees as exc:
        return native, f"{NATIVE_EAGER}; {exc}"
    except NotIsolated:
        raise  # not a compile failure: made in its case instead (sandbox/child.py run_ahead)
    except Exception as exc:  # noqa: BLE001 - any compilation failure falls back to eager, said in the label
        # (a fall back while the device allocator counted an out-of-memory failure is refused by the sandbox child,
        # which holds that evidence: sandbox/child.py make_baseline)
        reason = f"{type(exc).__name__}: {str(exc).strip().splitlines()[0][:160] if str(exc).strip() else ''}"
        return native, f"{NATIVE_EAGER}; torch.compile failed ({reason})"


def baseline(name: str, native: Callable[[Call], Any], eager_reason: str | None = None,
             dynamic_reason: str | None = None) -> Callable[..., tuple[Callable[[Call], Any], str]]:
    """The ``baseline(call, platform, prefer=None) -> (fn, label)`` hook of the vLLM op ``name`` whose
    native reference runs a call as ``native(call)`` (:func:`pick_baseline`; ``eager_reason``: never compiled;
    ``dynamic_reason``: compiled with dynamic shapes)."""
    def pick(call: Call, platform: Any, prefer: str | None = None) -> tuple[Callable[[Call], Any], str]:
        return pick_baseline(name, native, call, prefer, eager_reason=eager_reason, dynamic_reason=dynamic_reason)
    pick.kinds = BASELINE_KINDS  # type: ignore[attr-defined]
    pick.describe = lambda: describe_baseline(name, eager_reason, dynamic_reason)  # type: ignore[attr-defined]
    return pick


def describe_baseline(name: str, eager_reason: str | None = None, dynamic_reason: str | None = None) -> str:
    """What the vLLM op ``name``'s timed cases are compared against, in words (``kgb show``; README "Baselines")."""
    if eager_reason:
        native = f"native-eager: the native PyTorch reference run eagerly, never compiled ({eager_reason})"
    elif dynamic_reason:
        native = ("native-compiled: the native PyTorch reference under torch.compile with dynamic shapes "
                  f"({dynamic_reason}: sizes are symbolic, so cases that differ only in sizes share one compiled "
                  "graph; the label of a timed record says 'dynamic shapes')")
    else:
        native = ("native-compiled: the native PyTorch reference under torch.compile, static shapes (one graph "
                  "per case); native-eager where compilation fails")
    return (f"vllm (vllm._custom_ops.{name}, vLLM's own kernel) where vLLM imports, else {native}. "
            "`kgb eval --baseline` forces one; README \"Baselines\" says what a speedup against each means.")


def rows_view(shape: list[int], dtype: str, device: torch.device, gen: torch.Generator, pad: int = 0,
              heads_pad: int = 0) -> torch.Tensor:
    """An input of ``shape`` whose last dim is contiguous; rows padded by ``pad`` elements, or (3-D)
    the middle dim sliced out of a larger buffer (``heads_pad`` extra heads)."""
    if heads_pad and len(shape) == 3:
        buf = make_tensor([shape[0], shape[1] + heads_pad, shape[2]], dtype, device, gen)
        return buf[:, : shape[1], :]
    if pad:
        buf = make_tensor(list(shape[:-1]) + [shape[-1] + pad], dtype, device, gen)
        return buf[..., : shape[-1]]
    return make_tensor(shape, dtype, device, gen)


def true_div(a: torch.Tensor, c: float) -> torch.Tensor:
    """``a / c``, correctly rounded in a's dtype on every device. PyTorch's CUDA division by a Python number
    multiplies by its rounded reciprocal (not the IEEE quotient), so a reference written ``a / 255.0`` was a
    different function on a GPU than on the CPU: scales the spec defines as fp32 divisions (vLLM's kernels
    divide, e.g. ``(max - min) / 255.0f``) differ by one ulp in some rows, and every value quantised with them
    may round the other way (found on the H200: scaled_int8_quant held-out)."""
    return a / torch.full_like(a, c)


def esize(dtype: str | torch.dtype) -> int:
    """Bytes per element of ``dtype`` (short name or torch dtype)."""
    return torch.empty(0, dtype=dtype_of(dtype)).element_size()
