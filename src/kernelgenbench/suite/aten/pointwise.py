"""The pointwise unary family (aten.md §8: ``acosh``, ``asin``, ``cos``, …, ``logit``).

Every op of the family is one :func:`unary` row: its wrappers, the public call of each form, the
input distribution, the grids per tier, the timing gate and a per-element FLOP count. The family
supplies the rest:

* **cases.** A tensor case is ``dict(shape, dtype)`` plus optional keys: ``overload="out"`` (the
  ``.out`` form), ``layout`` (an input layout of :func:`~kernelgenbench.suite.common.make_tensor`),
  ``out_layout`` (``"contiguous"`` by default; ``"step2"`` or ``"noncontiguous"``: a view
  ``base[..., ::2]`` of a wider poisoned buffer; ``"resize"``: an empty out the wrapper must
  resize), ``values`` (pinned leading values in logical order, numbers or ``"nan"``/``"inf"``/
  ``"-0.0"``), ``range`` (uniform range overriding the row's distribution), and the row's extra
  arguments (``eps`` for logit).
  A JIT case is ``dict(overload=<int|float|complex|Scalar>, a=value)`` (a complex value as
  ``[re, im]``), optionally with the ``dtype`` the test wraps results in. Per aten.md §6b.5 it calls
  the candidate's plain Python wrapper directly (``wrapper:acosh_int``), launches nothing, and is
  compared with ``torch.ops.aten.<op>.<overload>(a)`` as 0-d tensors (rtol of fp32, complex64 or
  exact for ints, §3). JIT cases have no native baseline to time against, so they are untimed.
* **driving.** On GPUs the public call goes through the dispatcher, where the wrappers are
  registered at the device key (which also intercepts CompositeImplicit ops such as ``square``). On
  the interpreter a dispatch mode routes the reached overload to the wrapper; it only sees the
  decomposition of a CompositeImplicit op, so there the family calls the op's wrapper directly.
* **reference.** PyTorch on fp64-upcast inputs (integers included where the op promotes them to
  float), cast to the native result dtype; integer/bool results and exact ops use the native op on
  the same inputs. A row may replace it (logit pins the CUDA clamp semantics).
* **tolerance.** aten.md §3: rtol by dtype, atol 1e-4; ``exact=True`` rows compare bit for bit.
* **cost.** bytes = input read + output written; flops = ``flops`` per element; memory bound.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import torch

from ..common import make_tensor
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
    numel,
    product,
    written_expected,
)
from ..tensors import poison_
from .family import DIRECT, AtenCase, AtenOperator, elem_bytes, pin_leading, schema_of
from .pools import POINTWISE_SHAPES

JIT_OVERLOADS = ("int", "float", "complex", "Scalar")


def _scalar(v: Any) -> Any:
    """A JIT case's argument: ``[re, im]`` is a complex number; anything else is taken as is."""
    if isinstance(v, (list, tuple)):
        return complex(float(v[0]), float(v[1]))
    return v


class UnaryOperator(AtenOperator):
    """One row of the pointwise unary family (see the module docstring).

    Args:
        name: the op (``"acosh"``).
        api: the public call of the functional form (``"torch.cos"``, ``"torch.ops.aten.acosh"``).
        out_api: the public call of the ``.out`` form.
        dist: the float input distribution: ``("randn", scale)`` (scale applied in the dtype, after
            the cast) or ``("uniform", low, high)`` (drawn in fp32, then cast).
        int_range: ``[low, high)`` of integer inputs.
        pin: ``pin(params) -> values`` pinned at the start of every input of the row (upstream's
            ``flat[0] = 0`` and the like).
        extra: names of extra positional arguments after ``self``, taken from the case params.
        reference: ``reference(x, params, result_dtype) -> tensor`` replacing the default.
        exact: compare bit for bit (neg, floor, bitwise_not, sgn on real inputs).
        untimed: tensor forms whose upstream test is untimed (``"out"``).
        flops: floating-point operations per element (cost model).
        jit: ``{overload: exercised}`` for the JIT-only scalar overloads the op has.
    """

    def __init__(self, name: str, *, category: str, semantics: str, api: str, out_api: str | None,
                 grids: dict[str, list[dict[str, Any]]], out_exercised: bool, dist: tuple = ("randn", 1.0),
                 int_range: tuple[int, int] = (-100, 100), pin: Callable[[dict[str, Any]], list] | None = None,
                 extra: tuple[str, ...] = (), reference: Callable[..., torch.Tensor] | None = None,
                 exact: bool = False, untimed: tuple[str, ...] = (), flops: float = 1.0,
                 jit: dict[str, bool] | None = None, own_ops: frozenset[str] | None = None, notes: str = "") -> None:
        self.fn = getattr(torch.ops.aten, name).default
        self.api, self.out_api = api, out_api
        self.dist, self.int_range, self.pin, self.extra = dist, int_range, pin, extra
        self.ref_fn, self.exact, self.untimed, self.flops = reference, exact, untimed, flops
        if exact:
            self.tolerance_text = EXACT_TEXT + " (complex results: rtol by dtype)"
        self.jit = dict(jit or {})
        #: CompositeImplicitAutograd (no backend kernel of its own: ``square``)
        self.composite = torch._C._dispatch_has_kernel_for_dispatch_key(f"aten::{name}", "CompositeImplicitAutograd")
        wrappers = [Wrapper(name, schema_of(name, "default"), exercised=True)]
        wrappers.append(Wrapper(f"{name}.out", schema_of(name, "out"), exercised=out_exercised))
        wrappers += [Wrapper(f"{name}.{ov}", schema_of(name, ov), kind="jit", exercised=ex)
                     for ov, ex in self.jit.items()]
        super().__init__(name, category=category, semantics=semantics, wrappers=wrappers, grids=grids,
                         build=self._build_case, reference=self._reference, cost=self._cost_of,
                         timed=self._timed_of, own_ops=own_ops, notes=notes)

    # -- case shapes --------------------------------------------------------------------------------
    @staticmethod
    def is_jit(p: dict[str, Any]) -> bool:
        return p.get("overload") in JIT_OVERLOADS

    def wrapper_of(self, p: dict[str, Any]) -> str:
        """The wrapper a case drives (``acosh``, ``acosh_out``, ``acosh_int``)."""
        ov = p.get("overload", "default")
        return self.name if ov == "default" else f"{self.name}_{ov}"

    def result_dtype(self, dtype: torch.dtype, extra: Sequence[Any] = ()) -> torch.dtype:
        """The op's result dtype for an input of ``dtype`` (PyTorch's own promotion)."""
        return self.fn(torch.empty(0, dtype=dtype), *extra).dtype

    def _extra_args(self, p: dict[str, Any]) -> list[Any]:
        return [p.get(k) for k in self.extra]

    # -- build ------------------------------------------------------------------------------------------
    def _input(self, p: dict[str, Any], device: torch.device, gen: torch.Generator) -> torch.Tensor:
        dt = dtype_of(p["dtype"])
        shape, layout = p["shape"], p.get("layout", "contig")
        if not (dt.is_floating_point or dt.is_complex):
            lo, hi = p.get("range", self.int_range)
            x = make_tensor(shape, dt, device, gen, layout=layout, low=lo, high=hi)
        else:
            kind, *args = ("uniform", *p["range"]) if "range" in p else self.dist
            if kind == "uniform":
                x = make_tensor(shape, dt, device, gen, layout=layout, low=args[0], high=args[1], dist="uniform")
            else:
                x = make_tensor(shape, dt, device, gen, layout=layout)
                if args and args[0] != 1:
                    x.mul_(args[0])  # upstream scales after the cast, in the dtype
        values = list(self.pin(p) if self.pin else []) + list(p.get("values", []))
        pin_leading(x, values)
        return x

    def _out(self, p: dict[str, Any], x: torch.Tensor, device: torch.device) -> torch.Tensor:
        od = self.result_dtype(x.dtype, self._extra_args(p))
        shape = list(x.shape)
        kind = p.get("out_layout", "contig")
        if kind == "resize":
            return poison_(torch.empty(0, dtype=od, device=device))
        if kind in ("step2", "noncontiguous") and shape:
            base = poison_(torch.empty(shape[:-1] + [2 * shape[-1]], dtype=od, device=device))
            return base[..., ::2]
        return poison_(torch.empty(shape, dtype=od, device=device))

    def _build_case(self, p: dict[str, Any], device: torch.device, gen: torch.Generator) -> AtenCase:
        if self.is_jit(p):
            return AtenCase(DIRECT + self.wrapper_of(p), [_scalar(p["a"])], needs_launch=False)
        x = self._input(p, device, gen)
        args = [x, *self._extra_args(p)]
        if p.get("overload") == "out":
            return AtenCase(str(self.out_api), args, {"out": self._out(p, x, device)}, ("out",))
        return AtenCase(self.api, args)

    def interpreter_route(self, call: Call) -> tuple[str, Sequence[Any], dict[str, Any]] | None:
        if self.composite and not str(call.api).startswith(DIRECT):
            # Interpreter: a dispatch mode sees only the decomposition of a CompositeImplicit op.
            wrapper = self.name + ("_out" if "out" in call.kwargs else "")
            return wrapper, call.args, call.kwargs
        return super().interpreter_route(call)

    # -- reference ----------------------------------------------------------------------------------
    def _reference(self, p: dict[str, Any], call: Call) -> list[Expected]:
        if self.is_jit(p):
            r = getattr(getattr(torch.ops.aten, self.name), p["overload"])(call.args[0])
            want = torch.tensor(r, dtype=dtype_of(p["dtype"])) if "dtype" in p else torch.tensor(r)
            return [Expected("return", want, Tolerance(), check_dtype=False)]
        x, extra = call.args[0], list(call.args[1:])
        rd = self.result_dtype(x.dtype, extra)
        if self.ref_fn is not None:
            ref = self.ref_fn(x, p, rd)
        elif (rd.is_floating_point or rd.is_complex) and not self.exact:
            up = x.to(torch.complex128 if x.is_complex() else torch.float64)
            ref = self.fn(up, *extra).to(rd)
        else:
            ref = self.fn(x, *extra)
        tol = EXACT if self.exact and not rd.is_complex else Tolerance()
        if "out" not in call.kwargs:
            return [Expected("return", ref, tol)]
        out = call.kwargs["out"]
        if p.get("out_layout") == "resize":  # a fresh storage: compare the resized tensor itself
            return [Expected("arg.out", ref, tol), Expected("return", None, tol, alias="arg.out")]
        return [written_expected("arg.out", out, ref, tol), Expected("return", None, tol, alias="arg.out")]

    # -- timing gate and cost ------------------------------------------------------------------------
    def _timed_of(self, p: dict[str, Any]) -> bool:
        return not self.is_jit(p) and p.get("overload", "default") not in self.untimed

    def _cost_of(self, p: dict[str, Any]) -> Cost:
        if self.is_jit(p):
            return Cost(0.0, 0.0)
        n = numel(p["shape"])
        od = self.result_dtype(dtype_of(p["dtype"]), self._extra_args(p))
        out_bytes = torch.empty(0, dtype=od).element_size()
        return Cost(self.flops * n, n * (elem_bytes(p["dtype"]) + out_bytes))


# -- grid helpers ------------------------------------------------------------------------------------
def tensor_grid(shapes: list[list[int]], dtypes: Sequence[str] = ("fp32", "fp16", "bf16"), overload: str = "default",
                **axes: Sequence[Any]) -> list[dict[str, Any]]:
    """``product(**axes, dtype, shape)`` cases of one tensor form (the upstream axis order: extra
    axes outermost, then dtype, then shape)."""
    extra = {"overload": ["out"]} if overload == "out" else {}
    return product(**extra, **axes, dtype=list(dtypes), shape=shapes)


def jit_cases(overload: str, values: Sequence[Any], dtype: str | None = None) -> list[dict[str, Any]]:
    """JIT scalar cases ``a ∈ values`` of one overload (complex values as ``[re, im]``)."""
    return [dict(overload=overload, a=v, **({"dtype": dtype} if dtype else {})) for v in values]


def c(shape: list[int], dtype: str, **kw: Any) -> dict[str, Any]:
    """One tensor case."""
    return dict(shape=shape, dtype=dtype, **kw)


LONGTAIL = [[2, 3], [128, 256], [512, 512]]
LONGTAIL_BIG = [[2, 3], [128, 256], [1024, 1024]]
_OUT = dict(overload="out")


def _jit_names(*names: str, exercised: bool = False) -> dict[str, bool]:
    return {n: exercised for n in names}


# -- logit: the clamp runs in the accumulate type (fp32 for fp32/fp16/bf16), as on CUDA ----------------
def _logit_ref(x: torch.Tensor, p: dict[str, Any], rd: torch.dtype) -> torch.Tensor:
    acc = torch.float64 if x.dtype == torch.float64 else torch.float32
    z = x.to(acc)
    eps = p.get("eps")
    if eps is not None and eps >= 0:
        lo = torch.tensor(eps, dtype=acc)
        hi = torch.tensor(1.0, dtype=acc) - lo
        z = torch.where(z < lo, lo, torch.where(z > hi, hi, z))
    z = z.to(torch.float64)
    return torch.log(z / (1 - z)).to(rd)


def _logit_pin(p: dict[str, Any]) -> list:
    return [0.0, 1.0] if p.get("eps") is not None else []


# -- rows ----------------------------------------------------------------------------------------------
ACOSH = UnaryOperator(
    "acosh", category="pointwise unary (math)",
    semantics="Elementwise inverse hyperbolic cosine log(x + sqrt(x^2 - 1)): 1 gives 0, x < 1 gives NaN, +inf gives "
              "+inf, NaN stays NaN; integer/bool inputs promote to the default float dtype; fp16/bf16 compute in "
              "fp32 and round once; .out writes into out (resizing it) and returns it. JIT-only acosh.int/.float "
              "return a float, acosh.complex a complex, acosh.Scalar a float (complex for complex input).",
    api="torch.ops.aten.acosh", out_api="torch.ops.aten.acosh.out", out_exercised=True, dist=("uniform", 1.0, 10.0),
    int_range=(1, 10), flops=8, jit=_jit_names(*JIT_OVERLOADS, exercised=True),
    grids={
        "smoke": [c([2, 3], "fp32", values=[1.0, 1.5, 9.9, 0.5, "inf", "nan"]), c([64, 65], "fp16", **_OUT),
                  c([], "fp16"), c([64, 65], "bf16"), c([5], "int32"), c([4], "bool"),
                  *jit_cases("int", [2]), *jit_cases("float", [1.5]), *jit_cases("complex", [[2.0, 2.0]]),
                  *jit_cases("Scalar", [2.0], "fp32")],
        "full": tensor_grid(LONGTAIL) + tensor_grid(LONGTAIL, overload="out")
        + jit_cases("int", [1, 2, 10, 256]) + jit_cases("float", [1.0, 1.5, 3.0, 10.0, 100.0])
        + jit_cases("complex", [[1.5, 0.2], [3, -0.5], [10, 0], [2, 2]])
        + jit_cases("Scalar", [1, 2.0], "fp32"),
        "heldout": [c([511, 257], "fp16"), c([7, 17, 31], "fp32", layout="transposed"),
                    c([5, 7, 11, 13], "bf16", out_layout="step2", **_OUT), c([3, 0, 4], "fp32"),
                    c([9, 14], "fp32", out_layout="resize", **_OUT), *jit_cases("float", [0.5])],
    },
    notes="JIT scalar cases call the wrapper directly and are untimed (aten.md §6b.5; no native baseline). "
          "acosh.Scalar computes through a default-dtype (fp32) tensor in PyTorch, so its reference is "
          "fp32-rounded; the fp32 rtol covers a double-precision answer.",
).facts(counts=Counts(smoke=10, full=33, timed=18, heldout=6), aliases={"arccosh"})

ASIN = UnaryOperator(
    "asin", category="pointwise unary (math)",
    semantics="Elementwise arcsine: |x| > 1 gives NaN, ±1 gives ±pi/2, ±0 is preserved; integer/bool inputs promote "
              "to float; fp16/bf16 compute in fp32. JIT-only asin.int/.float return a float, asin.complex a "
              "complex, asin.Scalar a float (complex for complex input).",
    api="torch.ops.aten.asin", out_api="torch.ops.aten.asin.out", out_exercised=True, dist=("uniform", -1.0, 1.0),
    int_range=(-1, 2), untimed=("out",), flops=12, jit=_jit_names(*JIT_OVERLOADS, exercised=True),
    grids={
        "smoke": [c([2, 3], "fp32", values=[1.0, -1.0, 0.0, "-0.0", 0.75, 1.5]), c([64, 65], "fp16", **_OUT),
                  c([], "fp16"), c([64, 65], "bf16"), c([7], "int32"), c([4], "bool"),
                  *jit_cases("int", [1]), *jit_cases("float", [-0.5]), *jit_cases("complex", [[0.5, 0.5]]),
                  *jit_cases("Scalar", [[0.5, 0.25]])],
        "full": tensor_grid(LONGTAIL) + tensor_grid(LONGTAIL, overload="out")
        + jit_cases("int", [-1, 0, 1]) + jit_cases("float", [-1.0, -0.5, 0.0, 0.5, 1.0])
        + jit_cases("complex", [[0, 0], [0.5, 0.5], [-0.5, 0.75]])
        + jit_cases("Scalar", [0, 1.0, -0.5, [0.5, 0.25]]),
        "heldout": [c([511, 257], "fp16"), c([7, 17, 31], "fp32", layout="step2"),
                    c([5, 7, 11, 13], "bf16", out_layout="step2", **_OUT), c([], "fp32", values=[-1.0]),
                    *jit_cases("int", [2])],
    },
    notes="JIT scalar cases call the wrapper directly and are untimed (aten.md §6b.5).",
).facts(counts=Counts(smoke=10, full=33, timed=9, heldout=5), aliases={"arcsin"})

COS = UnaryOperator(
    "cos", category="pointwise unary (math)",
    semantics="Elementwise cosine (libdevice precision, full range reduction); ±inf gives NaN; integer/bool inputs "
              "promote to float; fp16/bf16 compute in fp32. cos.out writes into out. The JIT-only "
              "cos.int/.float/.complex/.Scalar follow Python math/cmath.",
    api="torch.cos", out_api="torch.ops.aten.cos.out", out_exercised=False, flops=10,
    jit=_jit_names(*JIT_OVERLOADS),
    grids={
        "smoke": [c([64, 33], "fp32"), c([], "bf16"), c([16, 7, 5], "fp16"), c([6], "int32"), c([4], "bool"),
                  c([9, 10], "fp32", values=["inf", "nan", 1000.0], **_OUT)],
        "full": tensor_grid(POINTWISE_SHAPES, ("fp16", "fp32", "bf16")),
        "heldout": [c([511, 257], "fp32", range=[-1e4, 1e4]), c([7, 17, 31], "bf16", layout="transposed"),
                    c([2, 3, 4, 5, 6], "fp16"), c([33, 17], "fp32", out_layout="step2", **_OUT), c([0, 5], "fp16")],
    },
).facts(counts=Counts(smoke=6, full=18, timed=18, heldout=5))

COSH = UnaryOperator(
    "cosh", category="pointwise unary (math)",
    semantics="Elementwise hyperbolic cosine (e^x + e^-x)/2; overflows to +inf (never NaN) past ~89.4 in fp32 "
              "and ~11.1 in fp16; integer/bool inputs promote to float; fp16/bf16 compute in fp32. JIT-only "
              "cosh.int/.float return a float, cosh.complex a complex, cosh.Scalar a float or complex.",
    api="torch.ops.aten.cosh", out_api="torch.ops.aten.cosh.out", out_exercised=True, dist=("uniform", -3.0, 3.0),
    int_range=(-5, 6), flops=6, jit=_jit_names(*JIT_OVERLOADS, exercised=True),
    grids={
        "smoke": [c([2, 3], "fp32", values=[0.0, 89.0, -95.0, "nan"]), c([64, 65], "fp16", **_OUT),
                  c([], "fp16"), c([64, 65], "bf16"), c([5], "int16"), c([4], "bool"),
                  *jit_cases("int", [True]), *jit_cases("float", [-0.75]), *jit_cases("complex", [[1.0, 0.5]]),
                  *jit_cases("Scalar", [1.5])],
        "full": tensor_grid(LONGTAIL) + tensor_grid(LONGTAIL, overload="out")
        + jit_cases("int", [-3, -1, 0, 1, 7]) + jit_cases("float", [-2.5, -0.75, 0.0, 0.75, 3.25])
        + jit_cases("complex", [[0, 0], [1, 0.5], [-2, -1], [0.5, -1.5]])
        + jit_cases("int", [True, False]),
        "heldout": [c([511, 257], "fp32", range=[-20.0, 20.0]), c([7, 17, 31], "fp16", range=[-12.0, 12.0]),
                    c([13, 21], "fp32", out_layout="step2", **_OUT), c([], "bf16"), *jit_cases("Scalar", [[0.5, 0.5]])],
    },
    notes="test_cosh_Scalar_bool calls torch.ops.aten.cosh(True/False), which PyTorch resolves to cosh.int "
          "(cosh.Scalar itself fails an internal assert on bool in PyTorch 2.13), so those two cases drive "
          "cosh_int with a bool. JIT scalar cases are untimed (aten.md §6b.5).",
).facts(counts=Counts(smoke=10, full=34, timed=18, heldout=5))

ERFC = UnaryOperator(
    "erfc", category="pointwise unary (special function)",
    semantics="Elementwise complementary error function 1 - erf(x), accurate in the tails (no cancellation): tends "
              "to 2 as x -> -inf and underflows to 0 past ~10 (fp32); integer/bool inputs promote to float; "
              "fp16/bf16 compute in fp32. JIT-only erfc.int/.float/.Scalar return a Python float (math.erfc).",
    api="torch.ops.aten.erfc", out_api="torch.ops.aten.erfc.out", out_exercised=True, untimed=("out",), flops=20,
    jit=_jit_names("int", "float", "Scalar", exercised=True),
    grids={
        "smoke": [c([2, 3], "fp32", values=[0.0, 3.5, -3.5, 10.0, "-inf", "nan"]), c([128, 256], "fp16", **_OUT),
                  c([], "fp16"), c([64, 65], "bf16"), c([5], "int32", range=[-3, 4]), c([4], "bool"),
                  *jit_cases("int", [-1]), *jit_cases("float", [1.5]), *jit_cases("Scalar", [0.25])],
        "full": tensor_grid(LONGTAIL_BIG) + tensor_grid(LONGTAIL_BIG, overload="out")
        + jit_cases("int", [-5, -1, 0, 2, 7]) + jit_cases("float", [-3.0, -0.5, 0.0, 1.5, 10.25])
        + jit_cases("int", [False, True]),
        "heldout": [c([511, 257], "fp32", range=[-6.0, 12.0]), c([7, 17, 31], "fp16"),
                    c([19, 23], "fp32", out_layout="step2", **_OUT), c([0], "fp32"), *jit_cases("Scalar", [2.5])],
    },
    notes="test_erfc_scalar calls torch.ops.aten.erfc(False/True), which PyTorch resolves to erfc.int (erfc.Scalar "
          "fails an internal assert on bool in PyTorch 2.13), so those cases drive erfc_int with a bool. JIT "
          "scalar cases are untimed (aten.md §6b.5).",
).facts(counts=Counts(smoke=9, full=30, timed=9, heldout=5))

FLOOR = UnaryOperator(
    "floor", category="pointwise unary (rounding)",
    semantics="Elementwise floor; integer inputs are returned unchanged in their dtype (bool is an error); ±inf, NaN "
              "and -0.0 are preserved; fp16/bf16 round-trip exactly. JIT-only floor.int/.float/.Scalar return a "
              "Python int.",
    api="torch.ops.aten.floor", out_api="torch.ops.aten.floor.out", out_exercised=True, exact=True,
    untimed=("out",), flops=1, jit=_jit_names("int", "float", "Scalar", exercised=True),
    grids={
        "smoke": [c([2, 3], "fp32", values=[-0.5, "-0.0", 2.0, 2.5, "-inf", "nan"]), c([128, 256], "fp16", **_OUT),
                  c([5], "int32"), c([64, 65], "bf16"),
                  *jit_cases("int", [-37]), *jit_cases("float", [-2.3]), *jit_cases("Scalar", [3.7], "fp32")],
        "full": tensor_grid(LONGTAIL) + tensor_grid(LONGTAIL, overload="out")
        + jit_cases("int", [0, 1, -1, 42, -37, 123456]) + jit_cases("float", [0.0, 0.5, -0.5, 3.7, -2.3, 123.999])
        + jit_cases("Scalar", [0.0, 3.7, -2.3], "fp32") + jit_cases("Scalar", [5, -7], "int64"),
        "heldout": [c([511, 257], "fp16", range=[-2048.5, 2048.5]), c([7, 17, 31], "fp32", layout="permuted"),
                    c([4, 6], "fp32", values=["inf", "-inf", "nan", -1e30, 1e30, "-0.0"]),
                    c([9, 11], "int64", out_layout="step2", **_OUT)],
    },
    notes="JIT scalar cases call the wrapper directly and are untimed (aten.md §6b.5).",
).facts(counts=Counts(smoke=7, full=35, timed=9, heldout=4))

I0 = UnaryOperator(
    "i0", category="pointwise unary (special function)",
    semantics="Modified Bessel function of the first kind, order 0, elementwise: even, i0(0) = 1, grows like "
              "e^|x|/sqrt(2 pi |x|) and overflows to +inf past ~89 in fp32. PyTorch evaluates the Cephes "
              "Chebyshev expansions (30 coefficients for |x| <= 8 at |x|/2 - 2; 25 for |x| > 8 at 32/|x| - 2, "
              "divided by sqrt(|x|)), both times e^|x|. Integer/bool inputs promote to float; half types compute "
              "in fp32.",
    api="torch.ops.aten.i0", out_api="torch.ops.aten.i0.out", out_exercised=True, dist=("randn", 3.0),
    untimed=("out",), flops=70,
    grids={
        "smoke": [c([2, 3], "fp32", values=[0.0, 8.0, -8.0, 12.0, 90.0, "nan"]), c([128, 256], "fp16", **_OUT),
                  c([], "fp16"), c([64, 65], "bf16"), c([5], "int32", range=[-20, 20]), c([4], "bool")],
        "full": tensor_grid(LONGTAIL) + tensor_grid(LONGTAIL, overload="out"),
        "heldout": [c([511, 257], "fp32", range=[-30.0, 30.0]), c([7, 17, 31], "fp16"),
                    c([5, 7, 11, 13], "fp32", layout="transposed"), c([3, 0], "fp32", **_OUT)],
    },
    notes="Inputs are randn in the dtype, then multiplied by 3 in the dtype (upstream casts before the multiply). "
          "The fp64-upcast reference stays finite up to |x| ~ 91.9 in fp32, where PyTorch's own fp32 kernel "
          "(e^|x| first) already gives inf past ~88.7; no full-tier input gets there.",
).facts(counts=Counts(smoke=6, full=18, timed=9, heldout=4))

LOG10 = UnaryOperator(
    "log10", category="pointwise unary (math)",
    semantics="Elementwise log base 10: x < 0 gives NaN, ±0 gives -inf, +inf gives +inf; integer/bool inputs "
              "promote to float; half types compute in fp32. JIT-only log10.int/.float return a float, "
              "log10.complex a complex, log10.Scalar a float or complex.",
    api="torch.ops.aten.log10", out_api="torch.ops.aten.log10.out", out_exercised=True,
    dist=("uniform", 0.01, 1.01), int_range=(0, 1000), flops=4, jit=_jit_names(*JIT_OVERLOADS, exercised=True),
    grids={
        "smoke": [c([2, 3], "fp32", values=[1.0, 0.0, -1.0, "inf", 1e-30, 1e30]), c([128, 256], "fp16", **_OUT),
                  c([5], "fp16", values=[1.0]), c([64, 65], "bf16"), c([6], "int32"), c([4], "bool"),
                  *jit_cases("int", [1000]), *jit_cases("float", [3.14]), *jit_cases("complex", [[3, -4]]),
                  *jit_cases("Scalar", [3.5])],
        "full": tensor_grid(LONGTAIL_BIG) + tensor_grid(LONGTAIL_BIG, overload="out")
        + jit_cases("int", [1, 2, 10, 1000, 1000000]) + jit_cases("float", [0.1, 1.0, 3.14, 10.0, 123.456])
        + jit_cases("complex", [[1, 0], [0.1, 2], [3, -4], [10, 0.5]])
        + jit_cases("Scalar", [1, 10.0, 3.5]),
        "heldout": [c([511, 257], "fp32", range=[1e-30, 1e30]), c([7, 17, 31], "fp16", layout="transposed"),
                    c([4, 5], "fp32", values=[0.0, "-0.0", -1.0, -2.5, "-inf"], out_layout="step2", **_OUT),
                    *jit_cases("float", [0.0])],
    },
    notes="JIT scalar cases call the wrapper directly and are untimed (aten.md §6b.5).",
).facts(counts=Counts(smoke=10, full=35, timed=18, heldout=4))

NEG = UnaryOperator(
    "neg", category="pointwise unary",
    semantics="-x by flipping the sign (0 gives -0.0; the sign of a zero is not compared, README Tolerance); "
              "integers wrap at the minimum; bool is an error; neg.out writes into out. The JIT-only "
              "neg.int/.float/.complex/.Scalar follow Python unary minus.",
    api="torch.neg", out_api="torch.ops.aten.neg.out", out_exercised=False, exact=True, flops=1,
    jit=_jit_names(*JIT_OVERLOADS),
    grids={
        "smoke": [c([64, 33], "fp32"), c([], "bf16"), c([16, 7, 5], "fp16", values=[0.0, "-0.0", "inf", "nan"]),
                  c([9], "int32", values=[-2147483648, 2147483647]), c([10, 12], "fp32", out_layout="step2", **_OUT)],
        "full": tensor_grid(POINTWISE_SHAPES, ("fp16", "fp32", "bf16")),
        "heldout": [c([511, 257], "int32", values=[-2147483648]), c([7, 17, 31], "fp16", layout="transposed"),
                    c([2, 3, 4, 5, 6], "bf16"), c([8, 8], "int64", out_layout="resize", **_OUT)],
    },
).facts(counts=Counts(smoke=5, full=18, timed=18, heldout=4), aliases={"negative"})

RSQRT = UnaryOperator(
    "rsqrt", category="pointwise unary (math)",
    semantics="1/sqrt(x): x < 0 gives NaN, +0 gives +inf, -0 gives -inf, +inf gives 0; integer/bool inputs promote "
              "to float; half types compute in fp32. rsqrt.out writes into out.",
    api="torch.rsqrt", out_api="torch.ops.aten.rsqrt.out", out_exercised=False, int_range=(0, 100), flops=2,
    grids={
        "smoke": [c([64, 33], "fp32", values=[0.0, "-0.0", "inf", -1.0]), c([], "bf16"),
                  c([16, 7, 5], "fp16", values=[0.0, "-0.0"]), c([5], "int32"), c([4], "bool"),
                  c([9, 6], "fp32", out_layout="step2", **_OUT)],
        "full": tensor_grid(POINTWISE_SHAPES, ("fp16", "fp32", "bf16")),
        "heldout": [c([511, 257], "fp32", range=[1e-30, 1e30]), c([7, 17, 31], "fp16", layout="transposed"),
                    c([2, 3, 4, 5, 6], "bf16"), c([6, 5], "fp32", out_layout="resize", **_OUT)],
    },
).facts(counts=Counts(smoke=6, full=18, timed=18, heldout=4))

SIN = UnaryOperator(
    "sin", category="pointwise unary (math)",
    semantics="Elementwise sine (libdevice precision, full range reduction); ±inf gives NaN, -0.0 is preserved; "
              "integer/bool inputs promote to float; half types compute in fp32. sin.out writes into out. The "
              "JIT-only sin.int/.float/.complex/.Scalar follow Python math/cmath.",
    api="torch.sin", out_api="torch.ops.aten.sin.out", out_exercised=False, flops=10,
    jit=_jit_names(*JIT_OVERLOADS),
    grids={
        "smoke": [c([64, 33], "fp32"), c([], "bf16"), c([16, 7, 5], "fp16"), c([6], "int32"), c([4], "bool"),
                  c([9, 10], "fp32", values=["-0.0", "inf", "nan", 1000.0], **_OUT)],
        "full": tensor_grid(POINTWISE_SHAPES, ("fp16", "fp32", "bf16")),
        "heldout": [c([511, 257], "fp32", range=[-1e4, 1e4]), c([7, 17, 31], "bf16", layout="transposed"),
                    c([2, 3, 4, 5, 6], "fp16"), c([33, 17], "fp32", out_layout="step2", **_OUT)],
    },
).facts(counts=Counts(smoke=6, full=18, timed=18, heldout=4))

SGN = UnaryOperator(
    "sgn", category="pointwise unary",
    semantics="Real inputs: sign(x) in {-1, 0, +1} in the input dtype, 0 for ±0 and for NaN (CUDA and CPU agree); "
              "integers give integer signs, bool is returned as is. Complex inputs: x/|x|, 0 for 0. .out writes "
              "into out.",
    api="torch.ops.aten.sgn", out_api="torch.ops.aten.sgn.out", out_exercised=True, exact=True, untimed=("out",),
    pin=lambda p: [0] if p["dtype"] == "bool" else [], flops=2,
    grids={
        "smoke": [c([2, 3], "fp32", values=[0.0, "-0.0", -2.5, "inf", "-inf"]), c([128, 256], "fp16", **_OUT),
                  c([4], "fp16", values=["nan"]), c([64, 65], "bf16"), c([9], "int32"), c([5], "bool")],
        "full": tensor_grid(LONGTAIL) + tensor_grid(LONGTAIL, overload="out"),
        "heldout": [c([511, 257], "int32"), c([7, 17, 31], "c64"), c([7, 17, 31], "fp32", layout="permuted"),
                    c([8, 9], "c64", values=[0.0], out_layout="step2", **_OUT)],
    },
    notes="Bool inputs have their first element set to False, so that an expected result is never all True "
          "(the bool poison pattern, which ghost replay could not tell from a no-op).",
).facts(counts=Counts(smoke=6, full=18, timed=9, heldout=4))

SILU = UnaryOperator(
    "silu", category="pointwise unary (activation)",
    semantics="x * sigmoid(x) = x / (1 + e^-x), computed in fp32 for half types (no inf/inf NaN for large |x|); "
              "floating inputs only. silu.out writes into out.",
    api="torch.nn.functional.silu", out_api="torch.ops.aten.silu.out", out_exercised=False, flops=5,
    grids={
        "smoke": [c([64, 33], "fp32"), c([], "bf16"), c([16, 7, 5], "fp16", values=[20.0, -20.0, 0.0]),
                  c([10, 9], "fp32", values=[100.0, -100.0, "inf", "-inf", "nan"], out_layout="step2", **_OUT)],
        "full": tensor_grid(POINTWISE_SHAPES, ("fp16", "fp32", "bf16")),
        "heldout": [c([511, 257], "fp32"), c([7, 17, 31], "fp16", layout="transposed"), c([2, 3, 4, 5, 6], "bf16"),
                    c([5, 7], "fp32", out_layout="resize", **_OUT)],
    },
    notes="Upstream's label also carries a silu_backward test that never calls the candidate; aten.md §6b.5 drops "
          "it (18 of 36 registry cases remain).",
).facts(counts=Counts(smoke=4, full=18, timed=18, heldout=4))

SQUARE = UnaryOperator(
    "square", category="pointwise unary (composite)",
    semantics="x*x. CompositeImplicit (pow(x, 2) natively); integer inputs keep their dtype (wrapping), bool "
              "promotes to int64, half types compute in fp32. .out writes into out, which may be non-contiguous "
              "(strided stores) or need a resize.",
    api="torch.ops.aten.square", out_api="torch.ops.aten.square.out", out_exercised=True, untimed=("out",), flops=1,
    grids={
        "smoke": [c([2, 3], "fp32"), c([128, 256], "fp16", out_layout="step2", **_OUT),
                  c([64, 65], "bf16", out_layout="step2", **_OUT), c([4], "bool"),
                  c([6, 7], "int16", range=[-300, 300])],
        "full": tensor_grid(LONGTAIL_BIG)
        + product(overload=["out"], out_layout=["contiguous", "noncontiguous"], dtype=["fp32", "fp16", "bf16"],
                  shape=LONGTAIL_BIG),
        "heldout": [c([511, 257], "fp32"), c([7, 17, 31], "int32", range=[-50000, 50000]),
                    c([9, 10], "fp32", out_layout="resize", **_OUT), c([7, 17, 31], "fp16", layout="transposed")],
    },
    notes="square is CompositeImplicitAutograd: on GPUs the wrapper registered at the CUDA key intercepts the "
          "composite (aten.md §4.3); on the interpreter, where a dispatch mode sees only its pow decomposition, the "
          "family calls the wrapper directly.",
).facts(counts=Counts(smoke=5, full=27, timed=9, heldout=4))

SPECIAL_ENTR = UnaryOperator(
    "special_entr", category="pointwise unary (special function)",
    semantics="-x*ln(x) for x > 0; 0 for x == 0; -inf for x < 0; NaN stays NaN (branch order: NaN, < 0, == 0, "
              "formula); integer/bool inputs promote to float; half types compute in fp32.",
    api="torch.ops.aten.special_entr", out_api="torch.ops.aten.special_entr.out", out_exercised=True,
    dist=("uniform", -0.2, 0.8), int_range=(-2, 5), pin=lambda p: [0.0], flops=4,
    grids={
        "smoke": [c([2, 3], "fp32", values=[-0.5, 1.0, "nan", "inf", 1e-30]), c([128, 256], "fp16", **_OUT),
                  c([5], "fp16", values=["nan"]), c([64, 65], "bf16"), c([6], "int32"), c([4], "bool")],
        "full": tensor_grid(LONGTAIL) + tensor_grid(LONGTAIL, overload="out"),
        "heldout": [c([511, 257], "fp32"), c([7, 17, 31], "fp16", layout="transposed"),
                    c([20, 30], "fp32", range=[0.0, 1e-30]), c([6, 8], "fp32", out_layout="step2", **_OUT)],
    },
    notes="Inputs are rand - 0.2 with the first element 0 (upstream's flat[0] = 0).",
).facts(counts=Counts(smoke=6, full=18, timed=18, heldout=4))

BITWISE_NOT = UnaryOperator(
    "bitwise_not", category="pointwise unary (bitwise)",
    semantics="Integers: bitwise complement ~x (= -x - 1); bool: logical not; floating inputs are an error. "
              "bitwise_not.out writes into out.",
    api="torch.bitwise_not", out_api="torch.ops.aten.bitwise_not.out", out_exercised=False, exact=True,
    int_range=(-0x7FFF, 0x7FFF), pin=lambda p: [0] if p["dtype"] == "bool" else [], flops=1,
    grids={
        "smoke": [c([64, 33], "int16"), c([17], "int32", values=[-1, 0, -2147483648]), c([], "bool"),
                  c([9, 8], "bool", out_layout="step2", **_OUT), c([10], "int64", **_OUT)],
        "full": tensor_grid(POINTWISE_SHAPES, ("int16", "int32", "bool")),
        "heldout": [c([511, 257], "int64"), c([7, 17, 31], "bool", layout="transposed"), c([5, 7, 11, 13], "uint8"),
                    c([6, 6], "int32", out_layout="resize", **_OUT)],
    },
    notes="Bool inputs have their first element set to False, so the first result is True: L2 ghost replay poisons "
          "bool outputs with all-False, and could not tell a correct kernel from a no-op on a 0-d case whose result "
          "is False.",
).facts(counts=Counts(smoke=5, full=18, timed=18, heldout=4))

HARDSIGMOID = UnaryOperator(
    "hardsigmoid", category="pointwise unary (activation)",
    semantics="min(max(x + 3, 0), 6) / 6, computed in fp32 for half types: 0 for x <= -3, 1 for x >= 3, x/6 + 0.5 "
              "in between; NaN propagates; floating inputs only.",
    api="torch.ops.aten.hardsigmoid", out_api="torch.ops.aten.hardsigmoid.out", out_exercised=True, flops=4,
    grids={
        "smoke": [c([2, 3], "fp32", values=[-3.0, 3.0, -4.0, 4.0, 0.0, "nan"]), c([128, 256], "fp16", **_OUT),
                  c([], "fp16"), c([64, 65], "bf16")],
        "full": tensor_grid(LONGTAIL_BIG) + tensor_grid(LONGTAIL_BIG, overload="out"),
        "heldout": [c([511, 257], "fp32", range=[-5.0, 5.0]), c([7, 17, 31], "fp16", layout="transposed"),
                    c([3, 4], "fp32", values=["nan", "inf", "-inf"], out_layout="step2", **_OUT)],
    },
).facts(counts=Counts(smoke=4, full=18, timed=18, heldout=3))

MISH = UnaryOperator(
    "mish", category="pointwise unary (activation)",
    semantics="x * tanh(softplus(x)) with softplus(x) = log1p(exp(x)), computed in fp32 for half types; large x "
              "gives x (never NaN); floating inputs only.",
    api="torch.ops.aten.mish", out_api="torch.ops.aten.mish.out", out_exercised=True, untimed=("out",), flops=8,
    grids={
        "smoke": [c([2, 3], "fp32", values=[25.0, -25.0, 0.0, "inf", "nan"]), c([128, 256], "fp16", **_OUT),
                  c([5], "fp16", values=[30.0, -30.0]), c([64, 65], "bf16")],
        "full": tensor_grid([[2, 3], [128, 256], [512, 1024]])
        + tensor_grid([[2, 3], [128, 256], [512, 1024]], overload="out"),
        "heldout": [c([511, 257], "fp32", range=[-40.0, 40.0]), c([7, 17, 31], "fp16", layout="transposed"),
                    c([5, 7, 11, 13], "bf16"), c([6, 7], "fp32", out_layout="step2", **_OUT)],
    },
).facts(counts=Counts(smoke=4, full=18, timed=9, heldout=4))

LOGIT = UnaryOperator(
    "logit", category="pointwise unary (math)",
    semantics="log(z/(1 - z)) where z = clamp(x, eps, 1 - eps) when eps is given and >= 0 (clamped in the accumulate "
              "type: fp32 for fp32/fp16/bf16, as the CUDA kernel does), else z = x; x = 0 or 1 without eps gives "
              "-inf/+inf, x outside [0, 1] gives NaN; integer/bool inputs promote to float; half types compute in "
              "fp32.",
    api="torch.ops.aten.logit", out_api="torch.ops.aten.logit.out", out_exercised=True,
    dist=("uniform", 0.0, 1.0), int_range=(0, 2), pin=_logit_pin, extra=("eps",), reference=_logit_ref, flops=4,
    grids={
        "smoke": [c([2, 3], "fp32", eps=None, values=[0.0, 1.0, 0.5, -0.5, "nan"]),
                  c([128, 256], "bf16", eps=1e-6), c([128, 256], "fp32", eps=1e-6),
                  c([5], "fp16", eps=1e-3, **_OUT), c([4], "int32", eps=0.25), c([4], "bool", eps=None)],
        "full": [dict(d, range=[0.001, 0.999]) if d["eps"] is None else d
                 for d in tensor_grid(LONGTAIL, eps=[None, 1e-06, 0.001])
                 + tensor_grid(LONGTAIL, overload="out", eps=[None, 1e-06, 0.001])],
        "heldout": [c([511, 257], "fp32", eps=None, range=[0.0, 1.0], values=[1e-7, 0.9999999]),
                    c([7, 17, 31], "fp16", eps=-1.0), c([31, 17], "fp32", eps=1e-4, layout="transposed"),
                    c([9, 5], "bf16", eps=0.01, out_layout="step2", **_OUT)],
    },
    notes="PyTorch's CPU kernel clamps fp16/bf16 in the input dtype (1 - 1e-6 rounds to 1 in bf16, giving inf); "
          "the reference pins the CUDA semantics on every device: clamp in fp32, then log in fp64. With eps=None "
          "the inputs are rand*0.998 + 0.001 (range=[0.001, 0.999]); with eps given, rand with flat[0] = 0 and "
          "flat[1] = 1.",
).facts(counts=Counts(smoke=6, full=54, timed=54, heldout=4))

# The rows' full-tier counts (Counts.full, Counts.timed): the case counts of aten.md §1 (silu: 36 - the 18
# silu_backward cases that never call the candidate, §6b.5); timed = the section's timed tensor tests (JIT scalar
# cases call a Python wrapper directly and have no native baseline, so they are untimed).
OPERATORS: list[UnaryOperator] = [
    ACOSH, ASIN, BITWISE_NOT, COS, COSH, ERFC, FLOOR, HARDSIGMOID, I0, LOG10, LOGIT, MISH, NEG, RSQRT, SGN, SILU,
    SPECIAL_ENTR, SQUARE, SIN,
]

__all__ = ["OPERATORS", "UnaryOperator", "tensor_grid", "jit_cases"]
