"""The losses and backward family (aten.md §8): four losses (``binary_cross_entropy_with_logits``,
``huber_loss``, ``margin_ranking_loss``, ``soft_margin_loss``) and eight backward operators
(``log_sigmoid_backward``, ``mish_backward``, ``smooth_l1_loss_backward``, ``softplus_backward``,
``rrelu_with_noise_backward``, ``reflection_pad1d_backward``, ``select_backward``,
``upsample_nearest2d_backward``).

Every op is one row: a :class:`LossOperator` or a :class:`BackwardOperator`. Both are thin over
:class:`TensorRow`, which supplies the rest:

* **inputs.** A row lists its tensor inputs as :class:`In` (a role, a distribution, a shape rule,
  an optional condition) and an ``args(params, tensors)`` function that places them, with the case's
  scalars, in the schema's positional order. A case is ``dict(shape, dtype, ...)`` plus the row's
  parameters; per-input overrides use the role as prefix: ``<role>_shape`` (broadcast operands),
  ``<role>_layout`` (a layout of :func:`~kernelgenbench.suite.common.make_tensor`: ``transposed``,
  ``step2``, ...), ``<role>_range`` (uniform values) and ``<role>_values`` (pinned leading values in
  logical order, numbers or ``"inf"``/``"nan"``).
* **driving.** Every case calls the dispatcher entry ``torch.ops.aten.<op>.<overload>`` (no public
  API reaches these overloads with the upstream arguments; aten.md "How the tests call it"). The
  out overload (``overload="out"`` or ``"grad_input"``) gets a poisoned buffer of PyTorch's result
  shape and dtype as its keyword. On the interpreter the CompositeImplicit ``margin_ranking_loss``
  (no CPU kernel: a dispatch mode would only see its decomposition) calls the wrapper directly.
* **reference.** ``"upcast"``: PyTorch's functional op on fp64 copies of the floating inputs, cast to
  PyTorch's result dtype; a mean or sum is then an fp64 reduction (aten.md §3.1's fp32-upcast rule
  for the ⚑ ops bce, huber and margin_ranking, in higher precision). ``"native"``: the op itself on
  the inputs (``select_backward``: a copy, compared exactly). A row may give its own reference where
  PyTorch's rounding points or device semantics must be pinned (``soft_margin_loss``'s exp in the
  dtype, ``log_sigmoid_backward``'s CUDA formula).
* **tolerance.** aten.md §3 and §6b.10: rtol by dtype, atol 1e-4, reduce_dim 1 for every case,
  the mean and sum reductions of the long-tail losses included (see :meth:`LossOperator.tolerance`), which with
  fp32 or fp64 results are also held to the loss-reduction bound (:meth:`LossOperator.reduction_rule`; red team
  31); ``select_backward`` exact.
* **cost.** bytes = every tensor input the op reads, once at its own size, + the result written once; flops =
  ``flops`` per result element (per reduced element for reductions). Memory bound.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

import torch

from ..common import make_tensor, upcast
from ..spec import (
    EXACT,
    EXACT_TEXT,
    Call,
    Cost,
    Counts,
    Expected,
    Tolerance,
    Wrapper,
    dtype_of,
    loss_reduction_rule,
    numel,
    product,
    written_expected,
)
from ..tensors import poison_
from .family import DIRECT, AtenCase, AtenOperator, elem_bytes, pin_leading, schema_of

LONGTAIL = [[2, 3], [128, 256], [512, 512]]
LONGTAIL_BIG = [[2, 3], [128, 256], [1024, 1024]]
DTYPES = ["fp32", "fp16", "bf16"]  # the long-tail tests' dtype axis, in upstream order
REDUCTIONS = [0, 1, 2]            # none, mean, sum (at::Reduction)


def _key(op: str, overload: str) -> str:
    return op if overload == "default" else f"{op}.{overload}"


@dataclass(frozen=True)
class In:
    """One tensor input of a row.

    Attributes:
        role: the argument's name (``"self"``, ``"target"``, ``"grad"``); case keys ``<role>_shape``,
            ``<role>_layout``, ``<role>_range`` and ``<role>_values`` override its draw.
        dist: ``"randn"``; ``"rand"`` (uniform [0, 1)); ``"sign"`` (±1, upstream's
            ``randint(0, 2) * 2 - 1`` cast to the dtype); ``("uniform", lo, hi)``; or a function
            ``dist(params, tensors so far, device)`` deriving the tensor from earlier ones (then
            ``<role>_shape`` replaces it by an empty-valued tensor of that shape).
        shape: ``shape(params) -> list[int]``; default ``params["shape"]``.
        when: ``when(params) -> bool``: the input exists in this case (an optional ``Tensor?``).
        read: the op reads the values (False for inputs that only give a shape or are ignored, such
            as reflection_pad1d_backward's ``self``): the cost model counts only read inputs.
    """

    role: str
    dist: Any = "randn"
    shape: Callable[[dict[str, Any]], list[int]] | None = None
    when: Callable[[dict[str, Any]], bool] | None = None
    read: bool = True

    def shape_of(self, p: dict[str, Any]) -> list[int]:
        """The input's shape in case ``p`` (``<role>_shape`` wins over the row's rule)."""
        if f"{self.role}_shape" in p:
            return list(p[f"{self.role}_shape"])
        return list(self.shape(p)) if self.shape else list(p["shape"])

    def draw(self, p: dict[str, Any], tensors: dict[str, torch.Tensor], device: torch.device,
             gen: torch.Generator) -> torch.Tensor:
        """The seeded input of case ``p`` on ``device`` in the case's dtype (``tensors``: the inputs drawn
        before it, for derived inputs).

        Raises:
            ValueError: an unknown distribution.
        """
        dt = dtype_of(p["dtype"])
        shape = self.shape_of(p)
        layout = p.get(f"{self.role}_layout", "contig")
        if callable(self.dist):
            if f"{self.role}_shape" in p:
                return torch.zeros(shape, dtype=dt, device=device)
            x = self.dist(p, tensors, device)
        elif f"{self.role}_range" in p or isinstance(self.dist, tuple):
            lo, hi = p.get(f"{self.role}_range") or self.dist[1:]
            x = make_tensor(shape, dt, device, gen, layout=layout, low=lo, high=hi, dist="uniform")
        elif self.dist == "rand":
            x = make_tensor(shape, dt, device, gen, layout=layout, low=0.0, high=1.0, dist="uniform")
        elif self.dist == "sign":
            x = make_tensor(shape, dt, device, gen, layout=layout)
            x.copy_(torch.randint(0, 2, tuple(shape), generator=gen, device=device) * 2 - 1)
        elif self.dist == "randn":
            x = make_tensor(shape, dt, device, gen, layout=layout)
        else:
            raise ValueError(f"unknown input distribution {self.dist!r}")
        pin_leading(x, p.get(f"{self.role}_values", []))
        return x


class TensorRow(AtenOperator):
    """The machinery shared by :class:`LossOperator` and :class:`BackwardOperator` (module docstring).

    Args:
        name: the op (``"huber_loss"``).
        inputs: its tensor inputs, in drawing order.
        args: ``args(params, tensors) -> list``: the schema's positional arguments.
        out_overload: the out overload's suffix (``"out"``, ``"grad_input"``) or None; its keyword
            argument has the same name.
        grids: the case parameters per tier.
        reference: ``"upcast"``, ``"native"`` or ``reference(params, call, result_dtype) -> tensor``.
        exact: compare bit for bit.
        untimed: ``untimed(params)``: full-tier cases whose upstream test is untimed.
        flops: floating-point operations per result element (cost model).
        exercised: the overloads the upstream tests reach (default: every overload of the op).

    Raises:
        ValueError: the installed PyTorch lacks one of the row's overloads.
    """

    def __init__(self, name: str, *, category: str, semantics: str, inputs: Sequence[In],
                 args: Callable[[dict[str, Any], dict[str, torch.Tensor]], list[Any]],
                 out_overload: str | None, grids: dict[str, list[dict[str, Any]]],
                 reference: str | Callable[..., torch.Tensor] = "upcast", exact: bool = False,
                 untimed: Callable[[dict[str, Any]], bool] | None = None, flops: float = 1.0,
                 exercised: Sequence[str] | None = None, notes: str = "") -> None:
        self.fn = getattr(torch.ops.aten, name).default
        self.inputs, self.args, self.out_overload = tuple(inputs), args, out_overload
        self.ref_kind, self.exact, self.untimed, self.flops = reference, exact, untimed, flops
        if exact:
            self.tolerance_text = EXACT_TEXT
        #: CompositeImplicitAutograd with no CPU kernel (``margin_ranking_loss``): on the interpreter a
        #: dispatch mode would only see its decomposition, so the wrapper is called directly there.
        self.composite = (torch._C._dispatch_has_kernel_for_dispatch_key(f"aten::{name}", "CompositeImplicitAutograd")
                          and not torch._C._dispatch_has_kernel_for_dispatch_key(f"aten::{name}", "CPU"))
        overloads = ["default"] + ([out_overload] if out_overload else [])
        if not set(overloads) <= set(getattr(torch.ops.aten, name).overloads()):
            raise ValueError(f"aten::{name}: PyTorch {torch.__version__} has overloads "
                             f"{getattr(torch.ops.aten, name).overloads()}, the row names {overloads}")
        ex = set(exercised) if exercised is not None else {_key(name, o) for o in overloads}
        wrappers = [Wrapper(_key(name, o), schema_of(name, o), exercised=_key(name, o) in ex) for o in overloads]
        super().__init__(name, category=category, semantics=semantics, wrappers=wrappers, grids=grids,
                         build=self._build_case, reference=self._reference, cost=self._cost_of,
                         timed=self._timed_of, notes=notes)

    # -- cases ------------------------------------------------------------------------------------------
    def wants_out(self, p: dict[str, Any]) -> bool:
        """Whether case ``p`` drives the out overload."""
        return self.out_overload is not None and p.get("overload") == self.out_overload

    def overload_of(self, p: dict[str, Any]) -> str:
        """The overload key a case drives (``huber_loss.out``)."""
        return _key(self.name, self.out_overload if self.wants_out(p) else "default")

    def draw(self, p: dict[str, Any], device: torch.device, gen: torch.Generator) -> dict[str, torch.Tensor]:
        """The tensor inputs of a case, by role, in drawing order."""
        tensors: dict[str, torch.Tensor] = {}
        for spec in self.inputs:
            if spec.when is None or spec.when(p):
                tensors[spec.role] = spec.draw(p, tensors, device, gen)
        return tensors

    def native_meta(self, args: Sequence[Any]) -> torch.Tensor:
        """PyTorch's functional result on meta tensors (its shape and dtype)."""
        def meta(v: Any) -> Any:
            return torch.empty(v.shape, dtype=v.dtype, device="meta") if isinstance(v, torch.Tensor) else v

        return self.fn(*[meta(a) for a in args])

    def _build_case(self, p: dict[str, Any], device: torch.device, gen: torch.Generator) -> AtenCase:
        args = self.args(p, self.draw(p, device, gen))
        api = f"torch.ops.aten.{self.overload_of(p)}"
        if not self.wants_out(p):
            return AtenCase(api, args)
        res = self.native_meta(args)
        out = poison_(torch.empty(res.shape, dtype=res.dtype, device=device))
        return AtenCase(api, args, {self.out_overload: out}, (self.out_overload,))

    def interpreter_route(self, call: Call) -> tuple[str, Sequence[Any], dict[str, Any]] | None:
        if self.composite and not str(call.api).startswith(DIRECT):
            # Interpreter: a dispatch mode sees only the decomposition of a CompositeImplicit op.
            wrapper = self.name + (f"_{self.out_overload}" if self.out_overload in call.kwargs else "")
            return wrapper, call.args, call.kwargs
        return super().interpreter_route(call)

    # -- reference ----------------------------------------------------------------------------------------
    def tolerance(self, p: dict[str, Any]) -> Tolerance:
        """aten.md §3: exact for exact rows, else rtol by dtype and atol 1e-4."""
        return EXACT if self.exact else Tolerance()

    def ref_value(self, p: dict[str, Any], call: Call) -> torch.Tensor:
        """The expected result, in PyTorch's result dtype and shape."""
        rd = self.native_meta(call.args).dtype
        if self.ref_kind == "native":
            return self.fn(*call.args).to(rd)
        if self.ref_kind == "upcast":
            return self.fn(*upcast(list(call.args))).to(rd)
        return self.ref_kind(p, call, rd)

    def _reference(self, p: dict[str, Any], call: Call) -> list[Expected]:
        ref, tol = self.ref_value(p, call), self.tolerance(p)
        if self.out_overload is None or self.out_overload not in call.kwargs:
            return [Expected("return", ref, tol)]
        slot = f"arg.{self.out_overload}"
        return [written_expected(slot, call.kwargs[self.out_overload], ref, tol),
                Expected("return", None, tol, alias=slot)]

    # -- timing gate and cost -----------------------------------------------------------------------------
    def _timed_of(self, p: dict[str, Any]) -> bool:
        return not (self.untimed and self.untimed(p))

    def result_shape(self, p: dict[str, Any]) -> list[int]:
        """The result's shape (from PyTorch's meta kernel)."""
        meta = torch.device("meta")
        return list(self.native_meta(self.args(p, self.draw_meta(p, meta))).shape)

    def draw_meta(self, p: dict[str, Any], device: torch.device) -> dict[str, torch.Tensor]:
        """Empty inputs of the case's shapes and dtype (no values: for shapes and the cost model)."""
        dt = dtype_of(p["dtype"])
        return {s.role: torch.empty(s.shape_of(p), dtype=dt, device=device) for s in self.inputs
                if s.when is None or s.when(p)}

    def _cost_of(self, p: dict[str, Any]) -> Cost:
        size = elem_bytes(p["dtype"])
        ins = self.draw_meta(p, torch.device("meta"))
        read = sum(ins[s.role].numel() for s in self.inputs if s.read and s.role in ins) * size
        out = numel(self.result_shape(p))
        return Cost(self.flops * self.work(p, ins, out), read + out * size)

    def work(self, p: dict[str, Any], ins: dict[str, torch.Tensor], out_numel: int) -> int:
        """The number of elements the per-element flops apply to."""
        return out_numel


class LossOperator(TensorRow):
    """A loss (aten.md "Category: loss"): an elementwise loss, then ``reduction`` 0 (none), 1 (mean)
    or 2 (sum) over all elements into a 0-d result. ``.out`` receives PyTorch's result shape: the
    loss's shape for reduction 0, 0-d otherwise. Rows are built as for :class:`TensorRow`; the case
    key ``reduction`` is required."""

    def __init__(self, name: str, **kw: Any) -> None:
        kw["notes"] = (kw.get("notes", "") + " Mean and sum results are compared with upstream's atol of 1e-4 "
                       "(reduce_dim 1, aten.md §6b.10) against an fp64 reduction; fp32 results also within the "
                       "loss-reduction bound (ours): min(spec, 8u|ref| + 4 sqrt(n) u sum|terms| + 4 sum|terms - "
                       "PyTorch's fp32 terms|), /n for a mean, u = 2^-24: fp32 accumulation in any order of terms "
                       "computed in fp32 passes it, terms rounded to fp16 or bf16 fail it on short reductions "
                       "(README \"Tolerance and precision policy\").").strip()
        super().__init__(name, **kw)

    def tolerance(self, p: dict[str, Any]) -> Tolerance:
        """aten.md §3 and §6b.10: rtol by dtype and atol 1e-4 × reduce_dim with reduce_dim 1, the mean
        and sum reductions included. Upstream compares these long-tail losses with reduce_dim 1; here
        the reference is an fp64 reduction (no accumulated rounding of its own), so a candidate that
        accumulates in fp32 is well inside ``rtol × |sum|`` (about 2.0 absolute for the 512×512 sums
        of ~1.8e5), and reduce_dim = numel (atol 26 there) would pass sums that drop elements."""
        return Tolerance(reduce_dim=1)

    def reduction_rule(self, p: dict[str, Any], call: Call, ref: torch.Tensor) -> tuple[Tolerance, torch.Tensor | None]:
        """The tolerance of a mean or sum (reduction 1 or 2): the loss-reduction bound for fp32 and fp64 results
        (:func:`~kernelgenbench.suite.tolerance.loss_reduction_rule`, README "Tolerance and precision policy"),
        from the case's terms: the reference of reduction 0 in fp64 and PyTorch's own terms in the result dtype."""
        if ref.dtype not in (torch.float32, torch.float64):
            return self.tolerance(p), None
        names = [a.name for a in self.fn._schema.arguments]
        at = names.index("reduction")
        args0 = list(call.args)
        args0[at] = 0
        call0 = Call(args0, {})
        p0 = {**p, "reduction": 0}
        if self.ref_kind == "upcast":
            terms = self.fn(*upcast(args0)).to(torch.float64)
        else:
            terms = self.ref_kind(p0, call0, torch.float64)
        native = self.fn(*args0).to(torch.float64)  # PyTorch's own terms, computed in the inputs' dtype
        fin = torch.isfinite(terms) & torch.isfinite(native)
        abs_sum = torch.where(fin, terms.abs(), 0.0).sum()
        term_err = torch.where(fin, (native - terms).abs(), 0.0).sum()
        return loss_reduction_rule(ref.dtype, ref, abs_sum.reshape(ref.shape), term_err.reshape(ref.shape),
                                   terms.numel(), p["reduction"] == 1)

    def _reference(self, p: dict[str, Any], call: Call) -> list[Expected]:
        if p.get("reduction") not in (1, 2) or self.exact:
            return super()._reference(p, call)
        ref = self.ref_value(p, call)
        tol, extra = self.reduction_rule(p, call, ref)
        if self.out_overload is None or self.out_overload not in call.kwargs:
            return [Expected("return", ref, tol, atol_extra=extra)]
        slot = f"arg.{self.out_overload}"
        return [written_expected(slot, call.kwargs[self.out_overload], ref, tol, atol_extra=extra),
                Expected("return", None, tol, alias=slot)]

    def work(self, p: dict[str, Any], ins: dict[str, torch.Tensor], out_numel: int) -> int:
        return numel(torch.broadcast_shapes(*(t.shape for t in ins.values())))


class BackwardOperator(TensorRow):
    """A backward operator (aten.md "Category: backward"): a gradient of an activation, a loss, a
    padding, a selection or a resampling, computed from ``grad_output`` and saved forward values.
    ``.grad_input`` / ``.out`` write into a buffer of the result's shape. Rows are built as for
    :class:`TensorRow`."""

    def work(self, p: dict[str, Any], ins: dict[str, torch.Tensor], out_numel: int) -> int:
        # gathers and scatters (padding, resampling) add once per grad_output element
        return max(out_numel, ins["grad"].numel()) if "grad" in ins else out_numel


# -- grid helpers -----------------------------------------------------------------------------------------
def c(shape: list[int], dtype: str, **kw: Any) -> dict[str, Any]:
    """One case."""
    return dict(shape=shape, dtype=dtype, **kw)


def both(overload: str, **axes: Sequence[Any]) -> list[dict[str, Any]]:
    """Upstream's two test functions of one grid: the functional form, then the out form."""
    return product(**axes) + product(overload=[overload], **axes)


# -- references that pin PyTorch's rounding points or device semantics ---------------------------------------
def _soft_margin_ref(p: dict[str, Any], call: Call, rd: torch.dtype) -> torch.Tensor:
    """log1p(exp(-x·t)) in fp64 with exp's result rounded to the dtype, as PyTorch's composite
    ``neg → mul → exp → log1p`` stores it: exp overflows to inf past 11.09 in fp16 (88.7 in fp32) and
    the loss is then inf. Elsewhere the extra rounding moves the loss by < 1 ulp of the dtype."""
    x, t, reduction = call.args[0], call.args[1], call.args[2]
    e = torch.exp(-(x.double() * t.double())).to(rd).double()
    loss = torch.log1p(e)
    if reduction == 1:
        loss = loss.mean()
    elif reduction == 2:
        loss = loss.sum()
    return loss.to(rd)


def _log_sigmoid_backward_ref(p: dict[str, Any], call: Call, rd: torch.dtype) -> torch.Tensor:
    """grad_output · sigmoid(-x) in fp64: the CUDA kernel's formula, which ignores ``buffer`` (the CPU
    kernel reads it; aten.md §8 aten::log_sigmoid_backward)."""
    g, x = call.args[0], call.args[1]
    return (g.double() * torch.sigmoid(-x.double())).to(rd)


def _log_sigmoid_buffer(p: dict[str, Any], t: dict[str, torch.Tensor], device: torch.device) -> torch.Tensor:
    """Upstream passes sigmoid(x), which CUDA ignores; the CPU kernel reads buffer as exp(-|x|)
    (aten.md §5b), so CPU cases pass that, and both devices agree."""
    x = t["self"]
    if device.type == "cpu":
        return torch.exp(-x.float().abs()).to(x.dtype)
    return torch.sigmoid(x.float()).to(x.dtype)


# -- the losses -----------------------------------------------------------------------------------------
_BCE_FULL = both("out", pos_weight=[False, True], weight=[False, True], reduction=REDUCTIONS, dtype=DTYPES,
                 shape=LONGTAIL)

BINARY_CROSS_ENTROPY_WITH_LOGITS = LossOperator(
    "binary_cross_entropy_with_logits", category="loss",
    semantics="With x = self (logits) and t = target: loss = (1 - t)·x - w_p·logsigmoid(x), logsigmoid(x) = "
              "min(x, 0) - log1p(exp(-|x|)) (stable), w_p = 1 + (pos_weight - 1)·t when pos_weight is given (else "
              "1); times weight when given (weight and pos_weight broadcast against the loss); reduction 0 none, 1 "
              "mean, 2 sum over all elements (fp32 accumulation; an fp16 sum may overflow to inf). The result has "
              "self's dtype; .out writes into out (the loss's shape for reduction 0, 0-d otherwise).",
    inputs=[In("self"), In("target", "rand"), In("weight", ("uniform", 0.5, 1.5), when=lambda p: p["weight"]),
            In("pos_weight", ("uniform", 0.5, 1.5), when=lambda p: p["pos_weight"])],
    args=lambda p, t: [t["self"], t["target"], t.get("weight"), t.get("pos_weight"), p["reduction"]],
    out_overload="out", flops=12,
    grids={
        "smoke": [c([2, 3], "fp32", weight=True, pos_weight=True, reduction=0),
                  c([64, 65], "bf16", weight=False, pos_weight=False, reduction=1),
                  c([16, 33], "fp16", weight=False, pos_weight=True, reduction=2, overload="out"),
                  c([4, 5], "fp32", weight=True, pos_weight=False, reduction=1, overload="out",
                    self_values=[30.0, -30.0, 0.0, 100.0, -100.0]),
                  # two more tiny fp32 reductions: terms rounded to fp16 before the reduction (the class of
                  # tests/bad/fp16_terms) escape the loss-reduction bound on ~1 % of the draws of one small
                  # fp32 reduction; these three miss on 1.1 %, 0.5 %, 0.6 % of draws each (simulated), together ~3e-7
                  c([1], "fp32", weight=False, pos_weight=False, reduction=1),
                  c([2], "fp32", weight=False, pos_weight=True, reduction=2, overload="out")],
        "full": _BCE_FULL,
        "heldout": [c([511, 257], "fp32", weight=False, pos_weight=False, reduction=1),
                    c([511, 257], "fp16", weight=True, pos_weight=True, reduction=0, pos_weight_shape=[257]),
                    c([257, 511], "fp32", weight=True, pos_weight=False, reduction=2, target_layout="transposed",
                      overload="out"),
                    c([7, 17, 31], "bf16", weight=False, pos_weight=True, reduction=0, target_layout="step2")],
    },
    notes="⚑ aten.md §3.1: PyTorch rounds every sub-op in fp16/bf16; the reference is the op on fp64 copies of the "
          "inputs (the spec's fp32-upcast rule, in higher precision), cast once. Inputs: self randn, target rand "
          "(soft targets), weight and pos_weight rand + 0.5. Full tier 216 cases, all timed.",
).facts(counts=Counts(smoke=6, full=216, timed=216, heldout=4))

HUBER_LOSS = LossOperator(
    "huber_loss", category="loss",
    semantics="With z = |self - target| (target broadcasts): loss = 0.5·z² if z < delta (strict), else "
              "delta·(z - 0.5·delta); reduction 0 none, 1 mean, 2 sum over all elements (fp32 accumulation; an fp16 "
              "sum may overflow to inf). .out writes into out (the loss's shape, or 0-d when reduced).",
    inputs=[In("self"), In("target")],
    args=lambda p, t: [t["self"], t["target"], p["reduction"], float(p["delta"])],
    out_overload="out", untimed=lambda p: p.get("overload") == "out", flops=5,
    grids={
        "smoke": [c([2, 3], "fp32", reduction=0, delta=1.0, self_values=[0.0, 1.0, -2.0]),
                  c([64, 65], "bf16", reduction=1, delta=0.5),
                  c([32, 32], "fp16", reduction=2, delta=2.0, overload="out"),
                  c([3, 5], "fp32", reduction=1, delta=0.5, overload="out"),
                  # two more tiny fp32 reductions: terms rounded to fp16 before the reduction (the class of
                  # tests/bad/fp16_terms) escape the loss-reduction bound on ~1 % of the draws of one small
                  # fp32 reduction; these three miss on 1.7 %, 0.13 %, 0.27 % of draws each (simulated), together ~6e-8
                  c([1], "fp32", reduction=1, delta=2.0), c([2], "fp32", reduction=2, delta=1.0, overload="out")],
        "full": both("out", delta=[0.5, 1.0, 2.0], reduction=REDUCTIONS, dtype=DTYPES, shape=LONGTAIL),
        "heldout": [c([511, 257], "fp32", reduction=1, delta=1.0),
                    c([511, 257], "fp16", reduction=0, delta=2.0, target_shape=[257]),
                    c([257, 129], "fp32", reduction=2, delta=0.5, self_layout="transposed", overload="out"),
                    c([5, 7, 11, 13], "bf16", reduction=0, delta=1.0, self_layout="step2")],
    },
    notes="⚑ aten.md §3.1: PyTorch's CUDA kernel computes in fp16/bf16; the reference is the op on fp64 copies of the "
          "inputs (the spec's fp32-upcast rule, in higher precision). self and target are randn. "
          "test_huber_loss_out is untimed upstream: 162 cases, 81 timed.",
).facts(counts=Counts(smoke=6, full=162, timed=81, heldout=4))

MARGIN_RANKING_LOSS = LossOperator(
    "margin_ranking_loss", category="loss (composite)",
    semantics="loss = max(0, -target·(input1 - input2) + margin) elementwise (NaN propagates), broadcasting the "
              "three inputs; reduction 0 none, 1 mean, 2 sum over all elements (fp32 accumulation; an fp16 sum may "
              "overflow to inf). CompositeImplicit: the backend registration intercepts it.",
    inputs=[In("input1"), In("input2"), In("target", "sign")],
    args=lambda p, t: [t["input1"], t["input2"], t["target"], float(p["margin"]), p["reduction"]],
    out_overload=None, flops=4,
    grids={
        "smoke": [c([2, 3], "fp32", margin=0.0, reduction=0),
                  c([64, 65], "bf16", margin=0.5, reduction=1),
                  c([32, 32], "fp16", margin=1.0, reduction=2),
                  c([3, 4], "fp32", margin=0.5, reduction=1),
                  # two more tiny fp32 reductions: terms rounded to fp16 before the reduction (the class of
                  # tests/bad/fp16_terms) escape the loss-reduction bound on ~1 % of the draws of one small
                  # fp32 reduction; these three miss on 1.3 %, 0.7 %, 2.2 % of draws each (simulated), together ~2e-6
                  # (margin 1 and 4 terms: a zero term, exact in fp16, is rarer)
                  c([4], "fp32", margin=1.0, reduction=1), c([3], "fp32", margin=1.0, reduction=2)],
        "full": product(reduction=REDUCTIONS, margin=[0.0, 0.5, 1.0], dtype=DTYPES,
                        shape=[[2, 3], [128, 256], [1024, 256]]),
        "heldout": [c([511, 257], "fp32", margin=0.5, reduction=1),
                    c([511, 257], "fp16", margin=1.0, reduction=0, target_shape=[257]),
                    c([257, 129], "fp32", margin=0.0, reduction=2, input1_layout="transposed",
                      input2_layout="step2")],
    },
    notes="⚑ aten.md §3.1: PyTorch rounds each sub-op in fp16/bf16; the reference is the op on fp64 copies of the "
          "inputs. target is ±1 (randint(0, 2)·2 - 1 in the dtype). On the interpreter the wrapper is called "
          "directly (no CPU kernel of its own). 81 cases, all timed.",
).facts(counts=Counts(smoke=6, full=81, timed=81, heldout=3))

SOFT_MARGIN_LOSS = LossOperator(
    "soft_margin_loss", category="loss",
    semantics="loss = log1p(exp(-target·self)) elementwise, with exp's result stored in the input dtype as "
              "PyTorch's composite does (neg, mul, exp, log1p): exp overflows to inf past -x·t ≈ 11.09 in fp16 and "
              "88.7 in fp32, giving an inf loss; reduction 0 none, 1 mean, 2 sum (fp32 accumulation). .out writes "
              "into out (the input's shape, or 0-d when reduced).",
    inputs=[In("self"), In("target", "sign")],
    args=lambda p, t: [t["self"], t["target"], p["reduction"]],
    out_overload="out", reference=_soft_margin_ref, flops=6,
    grids={
        "smoke": [c([2, 3], "fp32", reduction=2),
                  c([128, 256], "bf16", reduction=1),
                  c([16, 16], "fp16", reduction=2, overload="out"),
                  c([8, 9], "fp16", reduction=0, overload="out", self_range=[-15.0, 15.0]),
                  # two more tiny fp32 reductions: a sum of terms rounded to fp16 (tests/bad/fp16_terms) escapes the
                  # loss-reduction bound only where the roundings cancel or vanish, which one small sum allows on
                  # ~1-2 % of input draws (6 terms; measured 2 of 89 secret draws); the three together about 1e-7
                  c([1], "fp32", reduction=1), c([2], "fp32", reduction=2, overload="out")],
        "full": both("out", reduction=REDUCTIONS, dtype=DTYPES, shape=LONGTAIL),
        "heldout": [c([511, 257], "fp32", reduction=1),
                    c([7, 17, 31], "fp16", reduction=0, self_range=[-20.0, 20.0]),
                    c([257, 129], "fp32", reduction=2, target_layout="transposed", overload="out")],
    },
    notes="The reference computes in fp64 but rounds exp's result to the dtype (PyTorch's composite stores it), so "
          "fp16 inputs with -x·t > 11.09 give inf as PyTorch does. target is ±1. "
          "54 cases, all timed.",
).facts(counts=Counts(smoke=6, full=54, timed=54, heldout=3))


# -- the backward operators ------------------------------------------------------------------------------
LOG_SIGMOID_BACKWARD = BackwardOperator(
    "log_sigmoid_backward", category="backward (activation gradient)",
    semantics="grad_input = grad_output·sigmoid(-x), computed stably as grad_output·(1/(1+z) if x < 0 else "
              "z/(1+z)) with z = exp(-|x|), in fp32 for half types. buffer is ignored (the CUDA kernel's "
              "behaviour; it may be empty). .grad_input writes into grad_input.",
    inputs=[In("grad"), In("self"), In("buffer", _log_sigmoid_buffer, read=False)],
    args=lambda p, t: [t["grad"], t["self"], t["buffer"]],
    out_overload="grad_input", reference=_log_sigmoid_backward_ref, flops=5,
    grids={
        "smoke": [c([2, 3], "fp32"), c([128, 256], "bf16", overload="grad_input"),
                  c([16, 16], "fp16", self_values=[-20.0, 0.0, 20.0]),
                  c([10, 7], "fp32", overload="grad_input", self_values=[-100.0, 100.0, 0.0])],
        "full": both("grad_input", dtype=DTYPES, shape=LONGTAIL),
        "heldout": [c([511, 257], "fp32"), c([7, 17, 31], "fp16", self_layout="transposed", grad_layout="step2"),
                    c([5, 7, 11, 13], "bf16", buffer_shape=[0], overload="grad_input")],
    },
    notes="CPU cases pass buffer = exp(-|x|) (the CPU kernel reads it), GPU cases upstream's sigmoid(x) (ignored); "
          "the reference is the CUDA formula in fp64 on every device. 18 cases, all timed.",
).facts(counts=Counts(smoke=4, full=18, timed=18, heldout=3))

MISH_BACKWARD = BackwardOperator(
    "mish_backward", category="backward (activation gradient)",
    semantics="grad_input = grad_output·(t + x·s·(1 - t²)) with s = sigmoid(x), t = tanh(softplus(x)), "
              "softplus(x) = log1p(exp(x)); fp32 for half types; large |x| stays finite.",
    inputs=[In("grad"), In("self")],
    args=lambda p, t: [t["grad"], t["self"]], out_overload=None, flops=12,
    grids={
        "smoke": [c([2, 3], "fp32"), c([128, 256], "bf16"), c([16], "fp16", self_values=[20.0, -20.0, 0.0, 8.0, -8.0]),
                  c([9, 7], "fp32", self_values=[50.0, -50.0, 100.0, -100.0])],
        "full": product(dtype=DTYPES, shape=LONGTAIL),
        "heldout": [c([511, 257], "fp32"), c([7, 17, 31], "fp16", self_layout="transposed"),
                    c([5, 7, 11, 13], "bf16")],
    },
    notes="9 cases, all timed.",
).facts(counts=Counts(smoke=4, full=9, timed=9, heldout=3))


def _sl1_grad_shape(p: dict[str, Any]) -> list[int]:
    """grad_output: the loss's shape for reduction 0, 0-d (broadcast) for mean and sum."""
    return list(p["shape"]) if p["reduction"] == 0 else []


SMOOTH_L1_LOSS_BACKWARD = BackwardOperator(
    "smooth_l1_loss_backward", category="backward (loss gradient)",
    semantics="With d = self - target: grad_input = g(d)·grad_output·norm, g(d) = -1 if d < -beta, +1 if d > beta, "
              "d/beta otherwise (strict comparisons, as on CUDA); norm = 1/self.numel() for reduction 1 (mean), 1 "
              "otherwise; grad_output is full-shape for reduction 0 and 0-d otherwise (broadcast), target "
              "broadcasts. beta = 0 gives sign(d). .grad_input writes into grad_input.",
    inputs=[In("grad", shape=_sl1_grad_shape), In("self"), In("target")],
    args=lambda p, t: [t["grad"], t["self"], t["target"], p["reduction"], float(p["beta"])],
    out_overload="grad_input", flops=4,
    grids={
        "smoke": [c([2, 3], "fp32", reduction=0, beta=1.0),
                  c([128, 256], "bf16", reduction=1, beta=0.5),
                  c([16, 16], "fp16", reduction=2, beta=2.0, overload="grad_input"),
                  c([12, 10], "fp32", reduction=1, beta=1.0, overload="grad_input")],
        "full": both("grad_input", beta=[0.5, 1.0, 2.0], reduction=REDUCTIONS, dtype=DTYPES, shape=LONGTAIL),
        "heldout": [c([511, 257], "fp32", reduction=1, beta=0.0),
                    c([511, 257], "fp16", reduction=0, beta=1.0, target_shape=[257]),
                    c([257, 129], "fp32", reduction=2, beta=0.5, self_layout="transposed", overload="grad_input")],
    },
    notes="PyTorch wins over the spec at d = 0 with beta = 0: the CUDA kernel gives norm·0·grad/0 = NaN there and "
          "the CPU kernel (<= / >=) gives -norm·grad; the spec's 'sign(d), 0 at d = 0' is neither. No case draws "
          "d = 0 with beta = 0. Half types round d and norm in the dtype natively; the fp64 reference differs by "
          "< 1 ulp. 162 cases, all timed.",
).facts(counts=Counts(smoke=4, full=162, timed=162, heldout=3))

SOFTPLUS_BACKWARD = BackwardOperator(
    "softplus_backward", category="backward (activation gradient)",
    semantics="grad_input = grad_output if x·beta > threshold (strict), else grad_output·z/(z+1) = "
              "grad_output·sigmoid(x·beta) with z = exp(x·beta); fp32 for half types. .grad_input writes into "
              "grad_input.",
    inputs=[In("grad"), In("self")],
    args=lambda p, t: [t["grad"], t["self"], p["beta"], p["threshold"]],
    out_overload="grad_input", flops=5,
    grids={
        "smoke": [c([2, 3], "fp32", beta=1.0, threshold=20.0),
                  c([128, 256], "bf16", beta=0.5, threshold=10.0),
                  c([16, 16], "fp16", beta=2.0, threshold=10.0, overload="grad_input"),
                  c([9, 11], "fp32", beta=2.0, threshold=10.0, overload="grad_input", self_range=[4.9, 5.1],
                    self_values=[5.0, 5.0000005, 4.9999995])],
        "full": both("grad_input", threshold=[10.0, 20.0], beta=[0.5, 1.0, 2.0], dtype=DTYPES, shape=LONGTAIL),
        "heldout": [c([511, 257], "fp32", beta=2.0, threshold=20.0, self_range=[9.9, 10.1]),
                    c([7, 17, 31], "fp16", beta=1.0, threshold=10.0),
                    c([257, 129], "fp32", beta=0.5, threshold=20.0, grad_layout="transposed",
                      overload="grad_input")],
    },
    notes="108 cases, all timed.",
).facts(counts=Counts(smoke=4, full=108, timed=108, heldout=3))

RRELU_WITH_NOISE_BACKWARD = BackwardOperator(
    "rrelu_with_noise_backward", category="backward (activation gradient)",
    semantics="If training and upper - lower > 1e-6 (in double): grad_input = grad_output·noise, whatever the sign "
              "of self. Otherwise leaky-ReLU backward with slope (lower + upper)/2: grad_output where self > 0 "
              "(strict), grad_output·slope elsewhere. self_is_result does not change the result (slope >= 0). "
              ".out writes into out.",
    inputs=[In("grad"), In("self"), In("noise", ("uniform", 0.1, 0.3))],
    args=lambda p, t: [t["grad"], t["self"], t["noise"], 0.1, 0.3, p["training"], p.get("overload") == "out"],
    out_overload="out", flops=1,
    grids={
        "smoke": [c([2, 3], "fp32", training=True),
                  c([128, 256], "bf16", training=False),
                  c([16, 16], "fp16", training=True, overload="out"),
                  c([10, 12], "fp32", training=False, overload="out", self_values=[0.0, -0.0, 1e-30, -1e-30])],
        "full": both("out", training=[True, False], dtype=DTYPES, shape=LONGTAIL_BIG),
        "heldout": [c([1024, 1024], "fp32", training=False, self_values=[0.0] * 8),
                    c([511, 257], "fp16", training=True),
                    c([257, 129], "fp32", training=False, grad_layout="transposed", overload="out")],
    },
    notes="lower = 0.1 and upper = 0.3 in every case; the functional form passes self_is_result=False and .out "
          "True, as upstream does. noise is U(0.1, 0.3). 36 cases, all timed.",
).facts(counts=Counts(smoke=4, full=36, timed=36, heldout=3))


def _pad_grad_shape(p: dict[str, Any]) -> list[int]:
    s = list(p["shape"])
    return s[:-1] + [s[-1] + p["padding"][0] + p["padding"][1]]


REFLECTION_PAD1D_BACKWARD = BackwardOperator(
    "reflection_pad1d_backward", category="backward (padding gradient)",
    semantics="grad_input has self's shape (N, C, W) or (C, W), starting from zeros; each grad_output position j in "
              "[0, W + pl + pr) adds into input position i = j - pl reflected (i < 0 -> -i, i >= W -> 2(W-1) - i); "
              "each input position sums 1 to 3 contributions (padding < W). .grad_input writes into grad_input.",
    inputs=[In("grad", shape=_pad_grad_shape), In("self", read=False)],
    args=lambda p, t: [t["grad"], t["self"], list(p["padding"])],
    out_overload="grad_input", flops=1,
    grids={
        "smoke": [c([2, 3, 8], "fp32", padding=[1, 1]),
                  c([4, 16, 64], "bf16", padding=[2, 3], overload="grad_input"),
                  c([1, 1, 6], "fp16", padding=[5, 5]),
                  c([3, 5, 20], "fp32", padding=[7, 2], overload="grad_input")],
        "full": both("grad_input", padding=[[1, 1], [2, 3], [5, 5]], dtype=DTYPES,
                     shape=[[2, 3, 8], [4, 16, 64], [32, 64, 512]]),
        "heldout": [c([3, 7, 511], "fp32", padding=[100, 37]),
                    c([5, 17], "fp16", padding=[4, 4]),
                    c([4, 6, 40], "fp32", padding=[3, 9], grad_layout="transposed", overload="grad_input")],
    },
    notes="54 cases, all timed.",
).facts(counts=Counts(smoke=4, full=54, timed=54, heldout=3))


def _select_grad_shape(p: dict[str, Any]) -> list[int]:
    s = list(p["sizes"])
    del s[p["dim"] % len(s)]
    return s


def _select_index(p: dict[str, Any]) -> int:
    if "index" in p:
        return p["index"]
    size = p["sizes"][p["dim"]]
    return {"first": 0, "mid": size // 2, "neg1": -1}[p["index_mode"]]


SELECT_BACKWARD = BackwardOperator(
    "select_backward", category="backward (scatter into zeros)",
    semantics="Returns zeros of shape input_sizes (grad_output's dtype and device) whose slice select(dim, index) "
              "holds grad_output; index may be negative (counted from the end of dim). .out writes into out "
              "(input_sizes-shaped). Exact.",
    inputs=[In("grad", shape=_select_grad_shape)],
    args=lambda p, t: [t["grad"], list(p["sizes"]), p["dim"], _select_index(p)],
    out_overload="out", reference="native", exact=True, flops=0,
    grids={
        "smoke": [dict(sizes=[2, 3], dim=0, index=-1, dtype="fp32"),
                  dict(sizes=[128, 256], dim=-1, index=128, dtype="bf16"),
                  dict(sizes=[4, 5], dim=1, index=0, dtype="fp16", overload="out"),
                  dict(sizes=[30, 40], dim=0, index=7, dtype="fp32", overload="out")],
        "full": both("out", dtype=DTYPES, index_mode=["first", "mid", "neg1"], dim=[0, -1],
                     sizes=LONGTAIL),
        "heldout": [dict(sizes=[511, 257], dim=1, index=-2, dtype="fp32"),
                    dict(sizes=[7, 17, 31], dim=1, index=8, dtype="fp16", grad_layout="transposed"),
                    dict(sizes=[9], dim=0, index=4, dtype="fp32", overload="out")],
    },
    notes="Cases carry sizes instead of shape; index_mode first/mid/neg1 is 0, size//2 and -1. 108 cases, all "
          "timed.",
).facts(counts=Counts(smoke=4, full=108, timed=108, heldout=3))


def _up_grad_shape(p: dict[str, Any]) -> list[int]:
    n, ch, _, _, oh, ow = p["case"]
    return [n, ch, oh, ow]


def _up_args(p: dict[str, Any], t: dict[str, torch.Tensor]) -> list[Any]:
    n, ch, ih, iw, oh, ow = p["case"]
    sh, sw = (oh / ih, ow / iw) if p["scales"] else (None, None)
    return [t["grad"], [oh, ow], [n, ch, ih, iw], sh, sw]


UPSAMPLE_NEAREST2D_BACKWARD = BackwardOperator(
    "upsample_nearest2d_backward", category="backward (resampling gradient)",
    semantics="grad_output (N, C, OH, OW) -> grad_input (N, C, IH, IW) = input_size: every output pixel (oy, ox) "
              "adds into input pixel (iy, ix) with iy = oy if OH == IH, oy >> 1 if OH == 2·IH, else "
              "min(floor(oy·sh), IH - 1) in fp32, sh = fp32(1/scales_h) if scales_h is given and > 0, else "
              "fp32(IH)/OH (likewise for x); legacy 'nearest'. .grad_input writes into grad_input.",
    inputs=[In("grad", shape=_up_grad_shape)],
    args=_up_args, out_overload="grad_input", flops=1,
    grids={
        "smoke": [dict(case=[1, 1, 4, 5, 8, 10], scales=False, dtype="fp32"),
                  dict(case=[2, 3, 16, 32, 24, 48], scales=True, dtype="bf16"),
                  dict(case=[1, 2, 3, 3, 7, 5], scales=False, dtype="fp16"),
                  dict(case=[2, 2, 5, 6, 10, 9], scales=True, dtype="fp32", overload="grad_input")],
        "full": both("grad_input", scales=[False, True], dtype=DTYPES,
                     case=[[2, 3, 4, 5, 8, 10], [4, 8, 16, 32, 24, 48], [1, 32, 64, 128, 128, 256]]),
        "heldout": [dict(case=[2, 3, 17, 9, 40, 31], scales=False, dtype="fp32"),
                    dict(case=[1, 4, 8, 8, 8, 8], scales=True, dtype="fp16"),
                    dict(case=[2, 3, 12, 10, 24, 25], scales=False, dtype="fp32", grad_layout="transposed",
                         overload="grad_input")],
    },
    notes="Cases give (N, C, IH, IW, OH, OW); scales are None or OH/IH. For every case of every tier the CPU "
          "mapping (per output pixel, floor) and the CUDA one (per input pixel, ceil ranges) select the same pixels "
          "(tested), so the fp64 reference is device-independent. 36 cases, all timed.",
).facts(counts=Counts(smoke=4, full=36, timed=36, heldout=3))

# The rows' full-tier counts (Counts.full, Counts.timed): aten.md §1 and the sections' grids; test_huber_loss_out is
# untimed upstream.
OPERATORS: list[TensorRow] = [
    BINARY_CROSS_ENTROPY_WITH_LOGITS, HUBER_LOSS, MARGIN_RANKING_LOSS, SOFT_MARGIN_LOSS, LOG_SIGMOID_BACKWARD,
    MISH_BACKWARD, SMOOTH_L1_LOSS_BACKWARD, SOFTPLUS_BACKWARD, RRELU_WITH_NOISE_BACKWARD, REFLECTION_PAD1D_BACKWARD,
    SELECT_BACKWARD, UPSAMPLE_NEAREST2D_BACKWARD,
]

__all__ = ["OPERATORS", "In", "TensorRow", "LossOperator", "BackwardOperator"]
