"""The pointwise binary family (aten.md §8: ``add_``, ``sub``, ``mul``, ``div``, ``div_``, ``rsub``, ``eq``,
``gt``, ``le``, ``fmax``, ``floor_divide``, ``heaviside``, ``logaddexp2``, ``pow``, ``prelu``).

Every op of the family is one :class:`BinaryOperator` row: the public call of its functional (or
in-place) form, the native functional op the references are computed with, the wrappers the tests
exercise, the input distribution, the grids per tier, the reference kind, the timing gate and a
per-element FLOP count. The wrappers themselves (every overload of the installed PyTorch, dispatcher
and JIT-only, with their schemas) are read from PyTorch. The family supplies the rest:

* **cases.** ``dict(form, shape, dtype, ...)``. Operands are positional: ``x`` (``self``) is built
  from ``shape``/``dtype``/``layout``/``range``/``values``, ``y`` (``other``, ``exponent``,
  ``values``, ``weight``) from ``shape2``/``dtype2``/``layout2``/``range2``/``values2``, each
  defaulting to the first. ``form`` places them: ``"tt"`` tensor-tensor (default), ``"ts"`` tensor op
  Python number ``scalar``, ``"st"`` Python number op tensor (the tensor is ``y``), ``"td"``/``"dt"``
  a tensor and a 0-d tensor on the same device (upstream's ``inp1 // d`` and ``d // inp1``).
  Optional keys: ``alpha`` and ``mode`` (``rounding_mode``) become keyword arguments of the call;
  ``overload`` calls ``torch.ops.aten.<op>.<overload>`` (a dispatcher entry with no public call of
  its own); ``out=True`` adds ``out=`` to the public call; ``out_layout`` is ``"contig"``,
  ``"step2"`` (a view ``base[..., ::2]`` of a wider poisoned buffer) or ``"resize"`` (an empty out
  the wrapper must resize); ``weight`` (prelu) is ``"scalar"`` or ``"per_channel"``.
  Python numbers reach the wrappers as Python numbers (wrapped numbers, aten.md §7).
* **driving.** As for every ATen row (:mod:`.family`): through the dispatcher on GPUs, through a
  dispatch mode on the interpreter; a CompositeImplicit op (``prelu``) is called directly there.
* **inputs.** randn in the dtype by default; a row may draw ``("randint", lo, hi)`` values cast to
  the dtype, or uniform ones, and pin leading values (a case's ``values`` override them by position).
  Integer divisors on the CPU never hold zero (PyTorch's CPU kernels raise there, aten.md §5b); on
  GPUs they keep upstream's zeros.
* **reference.** ``"upcast"``: operands cast to the common dtype, floats to fp64, the native op, the
  result cast to the native result dtype. ``"opmath"``: the same in the op's compute type (fp32 for
  fp16/bf16, the dtype otherwise), for ops whose result is defined by that arithmetic (trunc/floor
  division). ``"native"``: the native op on the inputs themselves (comparisons and other exact
  selections). A row may give its own (``pow``'s scalar conversion). In-place rows expect the
  mutated ``self`` (its whole storage) and the returned alias.
* **tolerance.** aten.md §3: rtol by dtype and atol 1e-4; integer/bool results and ``exact`` rows
  bit for bit.
* **cost.** bytes = tensor operands read + result written; flops = ``flops`` per output element.
"""
from __future__ import annotations

from typing import Any, Callable, Sequence

import torch

from ..common import make_tensor, poisoned, upcast
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
from .family import (
    AtenCase,
    AtenOperator,
    ReachedOverloads,
    elem_bytes,
    is_dispatcher,
    native_then_exact,
    pin_leading,
    std_expected,
    wrappers_of,
)
from .pools import ALPHAS, FLOAT3, INT2, POINTWISE_SHAPES

FORMS = ("tt", "ts", "st", "td", "dt")
LONGTAIL = [[2, 3], [128, 256], [512, 512]]
PRELU_SHAPES = [[2, 3], [128, 256], [512, 512], [4, 8, 16], [2, 32, 16, 16], [2, 128, 64, 64]]
KWARGS = {"alpha": "alpha", "mode": "rounding_mode"}


class BinaryOperator(AtenOperator):
    """One row of the pointwise binary family (see the module docstring).

    Args:
        name: the op (``"sub"``).
        api: the public call of the row's own form (``"torch.sub"``, ``"torch.Tensor.add_"``).
        fn: ``fn(x, y, params)``, the native functional op (references, result dtype and shape).
        exercised: the overload keys the full tier reaches (``"sub.Tensor"``).
        reference: ``"upcast"``, ``"opmath"`` or ``"native"`` (module docstring), or
            ``reference(params) -> kind``; ``"custom"`` calls ``ref_fn(x, y, params, result_dtype)``.
        exact: compare bit for bit (or ``exact(params)``).
        inplace: the op mutates and returns ``self``.
        dist: the float input distribution: ``("randn",)``, ``("randint", lo, hi)`` (drawn as
            integers, cast to the dtype) or ``("uniform", lo, hi)``.
        int_range: ``[lo, hi)`` of integer inputs, or ``int_range(dtype) -> (lo, hi)``.
        pin: ``pin(params) -> (x values, y values)`` pinned at the start of every case's inputs.
        zero_frac: the fraction of ``x`` set to exactly 0 (heaviside).
        divisor: ``y`` is a divisor: no zeros in integer divisors on the CPU (aten.md §5b).
        shape2_of: ``shape2_of(params)`` for rows whose second operand's shape follows from others
            (prelu's weight).
        untimed: ``untimed(params)``: full-tier cases whose upstream test is untimed.
        flops: floating-point operations per output element (cost model).
    """

    def __init__(self, name: str, *, category: str, semantics: str, api: str,
                 fn: Callable[[Any, Any, dict[str, Any]], torch.Tensor], exercised: Sequence[str],
                 grids: dict[str, list[dict[str, Any]]], reference: str | Callable[[dict[str, Any]], str] = "upcast",
                 ref_fn: Callable[..., torch.Tensor] | None = None,
                 exact: bool | Callable[[dict[str, Any]], bool] = False, inplace: bool = False,
                 dist: tuple = ("randn",), int_range: tuple[int, int] | Callable[[torch.dtype], tuple] = (-100, 100),
                 pin: Callable[[dict[str, Any]], tuple[list, list]] | None = None, zero_frac: float = 0.0,
                 divisor: bool = False, shape2_of: Callable[[dict[str, Any]], list[int]] | None = None,
                 untimed: Callable[[dict[str, Any]], bool] | None = None, flops: float = 1.0,
                 own_ops: frozenset[str] | None = None, notes: str = "") -> None:
        self.api, self.fn, self.inplace = api, fn, inplace
        self.ref_kind, self.ref_fn, self.exact = reference, ref_fn, exact
        if exact is True:
            self.tolerance_text = EXACT_TEXT
        self.dist, self.int_range, self.pin, self.zero_frac = dist, int_range, pin, zero_frac
        self.divisor, self.shape2_of, self.untimed, self.flops = divisor, shape2_of, untimed, flops
        #: CompositeImplicitAutograd (no backend kernel of its own: ``prelu``)
        self.composite = (is_dispatcher(name, "default") and torch._C._dispatch_has_kernel_for_dispatch_key(
            f"aten::{name}", "CompositeImplicitAutograd"))
        super().__init__(name, category=category, semantics=semantics,
                         wrappers=wrappers_of(name, exercised, dispatcher_first=True), grids=grids,
                         build=self._build_case,
                         reference=self._reference, cost=self._cost_of, timed=self._timed_of, own_ops=own_ops,
                         notes=notes)

    # -- case shapes ----------------------------------------------------------------------------------
    def shapes(self, p: dict[str, Any]) -> tuple[list[int] | None, list[int] | None]:
        """The shapes of ``x`` and ``y`` (None for a Python number)."""
        form = p.get("form", "tt")
        s1 = list(p["shape"])
        s2 = list(self.shape2_of(p)) if self.shape2_of else list(p.get("shape2", s1))
        return {"tt": (s1, s2), "ts": (s1, None), "st": (None, s2), "td": (s1, []), "dt": ([], s2)}[form]

    def dtypes(self, p: dict[str, Any]) -> tuple[str, str]:
        return p["dtype"], p.get("dtype2", p["dtype"])

    def api_of(self, p: dict[str, Any]) -> str:
        """The public call (or dispatcher entry) a case drives."""
        ov = p.get("overload")
        if ov is None:
            return self.api
        return f"torch.ops.aten.{self.name}" + ("" if ov == "default" else f".{ov}")

    def wants_out(self, p: dict[str, Any]) -> bool:
        return bool(p.get("out")) or "out" in str(p.get("overload", "")).split("_")

    def tensor_dtypes(self, params: dict[str, Any]) -> set[torch.dtype]:
        s1, s2 = self.shapes(params)
        d1, d2 = self.dtypes(params)
        return {dtype_of(d) for d, s in ((d1, s1), (d2, s2)) if s is not None}

    # -- build --------------------------------------------------------------------------------------------
    def _draw(self, p: dict[str, Any], k: int, shape: list[int], device: torch.device,
              gen: torch.Generator) -> torch.Tensor:
        sfx = "" if k == 0 else "2"
        dt = dtype_of(self.dtypes(p)[k])
        layout = p.get("layout" + sfx, "contig")
        rng = p.get("range" + sfx)
        if dt == torch.bool:
            x = make_tensor(shape, dt, device, gen, layout=layout)
        elif not (dt.is_floating_point or dt.is_complex):
            lo, hi = rng or (self.int_range(dt) if callable(self.int_range) else self.int_range)
            x = make_tensor(shape, dt, device, gen, layout=layout, low=lo, high=hi)
        else:
            kind, *args = ("uniform", *rng) if rng else self.dist
            if kind == "uniform":
                x = make_tensor(shape, dt, device, gen, layout=layout, low=args[0], high=args[1], dist="uniform")
            else:
                x = make_tensor(shape, dt, device, gen, layout=layout)
                if kind == "randint":
                    x.copy_(torch.randint(int(args[0]), int(args[1]), tuple(shape), generator=gen, device=device))
        if k == 0 and self.zero_frac and x.numel():
            x.masked_fill_(torch.rand(tuple(shape), generator=gen, device=device) < self.zero_frac, 0)
        values = list(self.pin(p)[k]) if self.pin else []
        for i, v in enumerate(p.get("values" + sfx, [])):  # a case's values override the row's pins
            if i >= len(values):
                values.append(None)
            if v is not None:
                values[i] = v
        pin_leading(x, values)
        return x

    def _out(self, p: dict[str, Any], result: torch.Tensor, device: torch.device) -> torch.Tensor:
        shape, od = list(result.shape), result.dtype
        kind = p.get("out_layout", "contig")
        if kind == "resize":
            return poison_(torch.empty(0, dtype=od, device=device))
        if kind == "step2" and shape:
            return poison_(torch.empty(shape[:-1] + [2 * shape[-1]], dtype=od, device=device))[..., ::2]
        return poison_(torch.empty(shape, dtype=od, device=device))

    def _build_case(self, p: dict[str, Any], device: torch.device, gen: torch.Generator) -> AtenCase:
        s1, s2 = self.shapes(p)
        x: Any = p["scalar"] if s1 is None else self._draw(p, 0, s1, device, gen)
        y: Any = p["scalar"] if s2 is None else self._draw(p, 1, s2, device, gen)
        if self.divisor and device.type == "cpu" and isinstance(y, torch.Tensor) and not (
                y.is_floating_point() or y.is_complex()):
            y.masked_fill_(y == 0, 1)  # aten.md §5b: integer division by zero raises on the CPU
        kwargs = {KWARGS[k]: p[k] for k in KWARGS if k in p}
        written: tuple = (0,) if self.inplace else ()
        if self.wants_out(p):
            kwargs["out"] = self._out(p, self.native_meta(x, y, p), device)
            written = ("out",)
        return AtenCase(self.api_of(p), [x, y], kwargs, written)

    def interpreter_route(self, call: Call) -> tuple[str, Sequence[Any], dict[str, Any]] | None:
        if self.composite and str(call.api).startswith("torch."):
            # Interpreter: a dispatch mode sees only the decomposition of a CompositeImplicit op.
            wrapper = self.name + ("_out" if "out" in call.kwargs else "")
            return wrapper, call.args, call.kwargs
        return super().interpreter_route(call)

    # -- reference ------------------------------------------------------------------------------------
    def native_meta(self, x: Any, y: Any, p: dict[str, Any]) -> torch.Tensor:
        """The native functional result on meta tensors (its dtype and shape)."""
        def meta(v: Any) -> Any:
            return torch.empty(v.shape, dtype=v.dtype, device="meta") if isinstance(v, torch.Tensor) else v

        return self.fn(meta(x), meta(y), p)

    def reached(self, p: dict[str, Any]) -> str:
        """The overload key a case reaches (probed on the CPU with every dim of size 1; CompositeImplicit
        rows: the wrapper the interpreter calls directly)."""
        s1, s2 = self.shapes(p)
        d1, d2 = self.dtypes(p)
        x = p["scalar"] if s1 is None else torch.ones([1] * len(s1), dtype=dtype_of(d1))
        y = p["scalar"] if s2 is None else torch.ones([1] * len(s2), dtype=dtype_of(d2))
        kwargs = {KWARGS[k]: p[k] for k in KWARGS if k in p}
        if self.wants_out(p):
            kwargs["out"] = torch.empty(0, dtype=self.native_meta(x, y, p).dtype)
        if self.composite and p.get("overload") is None:
            return self.name + (".out" if "out" in kwargs else "")
        from .family import resolve_api

        mode = ReachedOverloads(self.name)
        with mode:
            resolve_api(self.api_of(p))(x, y, **kwargs)
        if not mode.seen:
            raise RuntimeError(f"aten::{self.name}: case {p} reaches no overload of the op")
        ov = mode.seen[0]
        return self.name if ov == "default" else f"{self.name}.{ov}"

    def _ref_value(self, p: dict[str, Any], x: Any, y: Any, rd: torch.dtype) -> torch.Tensor:
        kind = self.ref_kind(p) if callable(self.ref_kind) else self.ref_kind
        if kind == "native":
            return self.fn(x, y, p).to(rd)
        if kind == "custom":
            assert self.ref_fn is not None
            return self.ref_fn(x, y, p, rd)
        common = torch.result_type(x, y)

        def cast(v: Any) -> Any:
            if not isinstance(v, torch.Tensor):
                return v
            v = v.to(common)
            if kind == "upcast":
                return upcast(v)
            return v.float() if v.dtype in (torch.float16, torch.bfloat16) else v

        return self.fn(cast(x), cast(y), p).to(rd)

    def _reference(self, p: dict[str, Any], call: Call) -> list[Expected]:
        x, y = call.args[0], call.args[1]
        exact = self.exact(p) if callable(self.exact) else self.exact
        tol = EXACT if exact else Tolerance()
        if self.inplace:
            ref = self._ref_value(p, x, y, x.dtype)
            return [written_expected("arg.0", x, ref, tol), Expected("return", None, tol, alias="arg.0")]
        rd = self.native_meta(x, y, p).dtype
        ref = self._ref_value(p, x, y, rd)
        if "out" not in call.kwargs:
            return [Expected("return", ref, tol)]
        out = call.kwargs["out"]
        if p.get("out_layout") == "resize":  # a fresh storage: compare the resized tensor itself
            return [Expected("arg.out", ref, tol), Expected("return", None, tol, alias="arg.out")]
        return [written_expected("arg.out", out, ref, tol), Expected("return", None, tol, alias="arg.out")]

    # -- timing gate and cost ------------------------------------------------------------------------
    def _timed_of(self, p: dict[str, Any]) -> bool:
        return not (self.untimed and self.untimed(p))

    def _cost_of(self, p: dict[str, Any]) -> Cost:
        s1, s2 = self.shapes(p)
        d1, d2 = self.dtypes(p)
        x = p["scalar"] if s1 is None else torch.empty(s1, dtype=dtype_of(d1), device="meta")
        y = p["scalar"] if s2 is None else torch.empty(s2, dtype=dtype_of(d2), device="meta")
        res = self.native_meta(x, y, p)
        n = res.numel()
        read = sum(numel(s) * elem_bytes(d) for s, d in ((s1, d1), (s2, d2)) if s is not None)
        out_bytes = n * (elem_bytes(d1) if self.inplace else res.element_size())
        return Cost(self.flops * n, read + out_bytes)


# -- grid helpers ------------------------------------------------------------------------------------
def c(shape: list[int], dtype: str, **kw: Any) -> dict[str, Any]:
    """One case (the form defaults to tensor-tensor)."""
    return dict(shape=shape, dtype=dtype, **kw)


def _forms(form: str, **axes: Sequence[Any]) -> list[dict[str, Any]]:
    return [dict(form=form, **d) for d in product(**axes)]


def _nan_pin(p: dict[str, Any]) -> tuple[list, list]:
    """fmax: upstream sets self.flat[0] and other.flat[1] to NaN (floating inputs)."""
    if not all(dtype_of(d).is_floating_point for d in (p["dtype"], p.get("dtype2", p["dtype"]))):
        return [], []
    return ["nan"], [None, "nan"]


def _full_int_range(dt: torch.dtype) -> tuple[int, int]:
    """upstream's floor_divide int test: randint(iinfo.min, iinfo.max)."""
    info = torch.iinfo(dt)
    return info.min, info.max


# -- pow: the Python scalar is converted to the tensor's dtype first (aten.md §8 aten::pow) -----------
def _to_dtype_scalar(s: Any, dt: torch.dtype) -> Any:
    """c10::Scalar::to<scalar_t>(): double -> float -> the dtype for the reduced float types."""
    if isinstance(s, bool) or not dt.is_floating_point:
        return s
    return torch.tensor(float(s), dtype=torch.float32 if dt != torch.float64 else torch.float64).to(dt).item()


def _pow_ref(x: Any, y: Any, p: dict[str, Any], rd: torch.dtype) -> torch.Tensor:
    if not rd.is_floating_point:
        return torch.pow(x, y).to(rd)
    if not isinstance(x, torch.Tensor):
        x = _to_dtype_scalar(x, rd)
    if not isinstance(y, torch.Tensor):
        y = _to_dtype_scalar(y, rd)
    up = [upcast(v.to(rd)) if isinstance(v, torch.Tensor) else v for v in (x, y)]
    return torch.pow(*up).to(rd)


def _div_ref_kind(p: dict[str, Any]) -> str:
    return "opmath" if p.get("mode") else "upcast"


# -- rows ------------------------------------------------------------------------------------------
PW = POINTWISE_SHAPES

ADD_ = BinaryOperator(
    "add_", category="pointwise binary (in-place)",
    semantics="self <- self + alpha * other in place, returning self (the same object). other broadcasts to self's "
              "shape (self never grows); the sum is computed in the common dtype of self and other (fp16/bf16 in "
              "fp32, rounded once) and cast to self's dtype, which must be allowed (no float into an int self); a "
              "Python number other does not promote; integer alpha for integer results, bool alpha for bool "
              "(logical or/and). add_.Scalar takes other as a Scalar; add_.t is the JIT list form (extends the list).",
    api="torch.Tensor.add_", fn=lambda x, y, p: torch.add(x, y, alpha=p.get("alpha", 1)),
    exercised=["add_.Tensor"], inplace=True, flops=2,
    grids={
        "smoke": [c([64, 33], "fp32", alpha=-0.999), c([17], "bf16", form="ts", scalar=2.5, alpha=100.001),
                  c([], "fp16", alpha=0.5), c([16, 5], "fp32", form="ts", scalar=-1.5, alpha=2.0),
                  c([6, 8], "fp16", shape2=[8], alpha=-111.999), c([9, 4], "int32", alpha=3),
                  c([10], "bool", alpha=True), c([7, 3], "fp32", form="ts", scalar=0.25, alpha=4, overload="Scalar")],
        "full": _forms("tt", dtype=FLOAT3, alpha=ALPHAS, shape=PW)
        + _forms("ts", dtype=FLOAT3, alpha=ALPHAS, scalar=ALPHAS, shape=PW),
        "heldout": [c([511, 257], "fp32", shape2=[257], alpha=1),
                    c([257, 511], "fp16", layout="transposed", alpha=-2.0),
                    c([5, 7, 11, 13], "bf16", form="ts", scalar=100.001, alpha=0.5),
                    c([7, 17, 31], "int16", form="ts", scalar=3, alpha=-2, overload="Scalar"),
                    c([2, 3, 4, 5, 6], "fp32", dtype2="fp16", alpha=0.001)],
    },
    notes="Smoke adds int, bool, broadcast and add_.Scalar cases to the spec's three.",
).facts(counts=Counts(smoke=8, full=360, timed=360, heldout=5))

SUB = BinaryOperator(
    "sub", category="pointwise binary (arithmetic)",
    semantics="self - alpha * other with broadcasting and type promotion (wrapped Python numbers do not raise the "
              "category's dtype; an int tensor minus a float gives the default float); fp16/bf16 compute in fp32 and "
              "round once; integer alpha for integer results; bool operands are an error. sub.Scalar, sub.out and "
              "sub.Scalar_out as for add; the JIT-only scalar forms follow Python -.",
    api="torch.sub", fn=lambda x, y, p: torch.sub(x, y, alpha=p.get("alpha", 1)), exercised=["sub.Tensor"], flops=2,
    grids={
        "smoke": [c([64, 33], "fp32", alpha=-0.999), c([17], "bf16", form="ts", scalar=2.5, alpha=100.001),
                  c([], "fp16", form="st", scalar=0.001, alpha=-111.999), c([16, 5], "fp32", form="ts", scalar=2.5,
                                                                              alpha=0.5),
                  c([4, 1, 5], "fp32", shape2=[3, 5], alpha=1), c([9, 4], "int32", alpha=2),
                  c([6, 7], "fp16", alpha=2.0, out=True), c([5, 3], "fp32", form="ts", scalar=-1.5, alpha=3,
                                                            overload="Scalar"),
                  c([8, 3], "int16", form="ts", scalar=7, alpha=2, overload="Scalar_out")],
        "full": _forms("tt", dtype=FLOAT3, alpha=ALPHAS, shape=PW)
        + _forms("ts", dtype=FLOAT3, alpha=ALPHAS, scalar=ALPHAS, shape=PW)
        + _forms("st", dtype=FLOAT3, alpha=ALPHAS, scalar=ALPHAS, shape=PW),
        "heldout": [c([511, 257], "fp16", shape2=[257], alpha=1), c([7, 17, 31], "int32", alpha=2),
                    c([257, 511], "bf16", form="ts", layout="transposed", scalar=-0.999, alpha=0.001),
                    c([129, 65], "fp32", layout="step2", alpha=-2.0, out=True, out_layout="step2"),
                    c([5, 7, 11, 13], "fp16", form="ts", scalar=100.001, alpha=1, overload="Scalar_out"),
                    c([6, 9], "fp32", alpha=0.5, out=True, out_layout="resize")],
    },
    notes="The CPU scalar-scalar test (2 cases) never reaches the candidate and is dropped (aten.md §6b.5): 648 "
          "full-tier cases.",
).facts(counts=Counts(smoke=9, full=648, timed=648, heldout=6), aliases={"rsub", "subtract"})

MUL = BinaryOperator(
    "mul", category="pointwise binary (arithmetic)",
    semantics="self * other with broadcasting and type promotion (wrapped Python numbers do not promote); bool x bool "
              "is logical and; integers wrap; fp16/bf16 compute in fp32 and round once. mul.Scalar takes a Scalar "
              "other; mul.out/mul.Scalar_out write into out. JIT-only: mul.left_t/right_ repeat lists, the numeric "
              "forms follow Python *.",
    api="torch.mul", fn=lambda x, y, p: torch.mul(x, y), exercised=["mul.Tensor"], flops=1,
    grids={
        "smoke": [c([64, 33], "fp32"), c([17], "bf16", form="ts", scalar=100.001),
                  c([], "fp16", form="st", scalar=-111.999), c([16, 5], "fp32", form="ts", scalar=-0.999),
                  c([4, 1, 5], "fp16", shape2=[3, 5]), c([9, 4], "int32"), c([12], "bool"),
                  c([6, 7], "fp32", out=True), c([5, 3], "int16", form="ts", scalar=-3, overload="Scalar"),
                  c([4, 6], "fp16", form="ts", scalar=0.5, overload="Scalar_out")],
        "full": _forms("tt", dtype=FLOAT3, shape=PW) + _forms("ts", dtype=FLOAT3, scalar=ALPHAS, shape=PW)
        + _forms("st", dtype=FLOAT3, scalar=ALPHAS, shape=PW),
        "heldout": [c([511, 257], "fp16", shape2=[257]), c([7, 17, 31], "int32"),
                    c([5, 7, 11, 13], "fp32", layout="permuted"), c([2, 3, 4, 5, 6], "bf16", form="st", scalar=0.001),
                    c([9, 33], "fp32", form="ts", scalar=2.5, overload="Scalar_out", out_layout="step2"),
                    c([7, 9], "int32", dtype2="fp16", out=True)],
    },
    notes="The CPU scalar-scalar test (2 cases) never reaches the candidate and is dropped (aten.md §6b.5): 162 "
          "full-tier cases.",
).facts(counts=Counts(smoke=10, full=162, timed=162, heldout=6), aliases={"multiply"})

DIV = BinaryOperator(
    "div", category="pointwise binary (arithmetic)",
    semantics="div.Tensor: true division; the result is floating (int/int gives the default float), with broadcasting "
              "and promotion; x/0 gives ±inf and 0/0 NaN; fp16/bf16 compute in fp32 and round once. div.Tensor_mode: "
              "rounding_mode None (true division), 'trunc' (the true quotient in the compute type rounded toward "
              "zero) or 'floor' (PyTorch's div_floor: Python // semantics; floats through fmod with a sign fix-up, "
              "b = 0 gives a/b; integers: the truncated quotient minus 1 when the signs differ and the remainder is "
              "non-zero). With integer inputs and a mode the result is integer. div.Scalar/.Scalar_mode take a Scalar "
              "divisor; the out variants write into out; the JIT forms return Python true division.",
    api="torch.div", fn=lambda x, y, p: torch.div(x, y, rounding_mode=p.get("mode")),
    exercised=["div.Tensor", "div.Tensor_mode"], reference=_div_ref_kind, divisor=True, flops=1,
    grids={
        "smoke": [c([64, 33], "fp32"), c([17], "bf16", form="ts", scalar=-0.999),
                  c([], "fp16", form="st", scalar=100.001),
                  c([8, 8], "fp32", mode="trunc", values=[-7.0, 7.0, 0.0, "-0.0", 5.0, -6.0, "inf", "nan"],
                    values2=[2.0, 2.0, 3.0, 3.0, 0.0, 0.0, 2.0, 1.0]),
                  c([16, 5], "fp32", form="ts", scalar=100.001, overload="Scalar"),
                  c([12, 5], "fp16", form="st", scalar=-111.999),
                  c([9, 4], "int32", range=[-50, 50]), c([10, 6], "int32", mode="floor", range=[-50, 50],
                                                         range2=[-7, 8]),
                  c([6, 6], "fp32", mode="floor", values=[-7.0, 7.0, -7.5, 0.0, "-0.0", 1e30],
                    values2=[2.0, -2.0, 0.5, -3.0, 3.0, 3.0]),
                  c([8], "bool"), c([7, 5], "fp16", out=True),
                  c([5, 4], "fp32", form="ts", scalar=-2.0, mode="floor", overload="Scalar_mode"),
                  c([6, 4], "int32", mode="trunc", range2=[-5, 5], overload="out_mode"),
                  c([5, 3], "fp16", form="ts", scalar=4.0, overload="Scalar_out"),
                  c([4, 4], "fp32", form="ts", scalar=0.5, mode="floor", overload="Scalar_mode_out")],
        "full": _forms("tt", dtype=FLOAT3, shape=PW) + _forms("ts", dtype=FLOAT3, scalar=ALPHAS, shape=PW)
        + _forms("st", dtype=FLOAT3, scalar=ALPHAS, shape=PW)
        + _forms("tt", mode=["trunc"], dtype=["fp32"], shape=PW),
        "heldout": [c([511, 257], "fp16", shape2=[257]), c([7, 17, 31], "int32"),
                    c([5, 7, 11, 13], "fp32", mode="floor"), c([2, 3, 4, 5, 6], "int16", mode="trunc",
                                                               overload="out_mode"),
                    c([33, 17], "bf16", form="ts", scalar=0.25, mode="trunc", overload="Scalar_mode_out",
                      out_layout="step2"),
                    c([9, 11], "fp32", form="ts", scalar=-111.999, overload="Scalar"),
                    c([4, 127], "fp16", form="ts", scalar=3, overload="Scalar_out"),
                    c([257, 129], "fp32", layout="transposed", out=True, out_layout="resize")],
    },
    notes="Full tier: the pre-damage grid (aten.md §6b.2: the trunc test divides randn fp32 tensors with "
          "rounding_mode='trunc'), without the two CPU scalar-scalar tests that never reach the candidate (the "
          "mislabelled torch.mul one, §6b.5, and trunc_divide_scalar_scalar, which also runs on the CPU): 168 cases. "
          "The trunc/floor references compute in the compute type (fp32 for fp16/bf16) as PyTorch does, since "
          "the rounded quotient depends on it. Float Scalar_mode cases divide by powers of two: PyTorch's CUDA "
          "kernel multiplies by the reciprocal of a CPU-scalar divisor there, which is the true quotient only then.",
).facts(counts=Counts(smoke=15, full=168, timed=168, heldout=8), aliases={"divide", "true_divide"})

DIV_ = BinaryOperator(
    "div_", category="pointwise binary (in-place)",
    semantics="self <- self / other in place, returning self; div_.Tensor_mode/.Scalar_mode round with 'trunc' or "
              "'floor' as div does. other broadcasts to self; the result must be castable to self's dtype (true "
              "division of an integer self is an error, a rounding mode keeps it integer); fp16/bf16 compute in fp32.",
    api="torch.Tensor.div_", fn=lambda x, y, p: torch.div(x, y, rounding_mode=p.get("mode")),
    exercised=["div_.Tensor", "div_.Tensor_mode"], inplace=True, reference=_div_ref_kind, divisor=True, flops=1,
    grids={
        "smoke": [c([64, 33], "fp32"), c([17], "bf16", form="ts", scalar=100.001),
                  c([8, 8], "fp32", mode="trunc", values=[-7.0, 7.0, 0.0, 5.0, "nan"],
                    values2=[2.0, -2.0, 3.0, 0.0, 1.0]),
                  c([16, 5], "fp32", form="ts", scalar=-0.999), c([6, 8], "fp16", shape2=[8]),
                  c([9, 4], "int32", mode="floor", range2=[-9, 9]),
                  c([7, 3], "fp32", form="ts", scalar=-111.999, overload="Scalar"),
                  c([5, 4], "int16", form="ts", scalar=-3, mode="trunc", overload="Scalar_mode")],
        "full": _forms("tt", dtype=FLOAT3, shape=PW) + _forms("ts", dtype=FLOAT3, scalar=ALPHAS, shape=PW)
        + _forms("tt", mode=["trunc"], dtype=["fp32"], shape=PW),
        "heldout": [c([511, 257], "fp16", shape2=[257]), c([257, 511], "fp32", layout="transposed"),
                    c([7, 17, 31], "fp32", mode="floor"), c([5, 7, 11, 13], "bf16", form="ts", scalar=0.001,
                                                             overload="Scalar"),
                    c([2, 3, 4, 5, 6], "fp32", form="ts", scalar=0.5, mode="floor", overload="Scalar_mode")],
    },
    notes="Full tier: the pre-damage grid (aten.md §6b.2), 96 cases.",
).facts(counts=Counts(smoke=8, full=96, timed=96, heldout=5), aliases={"divide_", "true_divide_"})

RSUB = BinaryOperator(
    "rsub", category="pointwise binary (arithmetic)",
    semantics="Reverse subtraction other - alpha * self, with broadcasting and promotion; fp16/bf16 compute in fp32 "
              "and round once. rsub.Scalar(self, other, alpha) takes a Scalar other (alpha positional); the out "
              "variants write into out.",
    api="torch.ops.aten.rsub", fn=lambda x, y, p: torch.rsub(x, y, alpha=p.get("alpha", 1)),
    exercised=["rsub.Tensor", "rsub.Scalar", "rsub.Tensor_out", "rsub.Scalar_out"], flops=2,
    grids={
        "smoke": [c([2, 3], "fp32", alpha=0.5), c([128, 256], "bf16", form="ts", scalar=3.25, alpha=1.0),
                  c([16, 16], "fp16", alpha=1.0, out=True), c([4, 4], "fp32", form="ts", scalar=0.0, alpha=0.5,
                                                              out=True),
                  c([16, 16], "fp16", form="ts", scalar=-2.0, alpha=0.5), c([9, 4], "int32", alpha=2)],
        "full": _forms("tt", alpha=[1.0, 0.5], dtype=["fp32", "fp16", "bf16"], shape=LONGTAIL)
        + _forms("ts", alpha=[1.0, 0.5], scalar=[-2.0, 0.0, 3.25], dtype=["fp32", "fp16", "bf16"], shape=LONGTAIL)
        + [dict(d, out=True) for d in _forms("tt", alpha=[1.0, 0.5], dtype=["fp32", "fp16", "bf16"], shape=LONGTAIL)]
        + [dict(d, out=True) for d in _forms("ts", alpha=[1.0, 0.5], scalar=[-2.0, 0.0, 3.25],
                                               dtype=["fp32", "fp16", "bf16"], shape=LONGTAIL)],
        "heldout": [c([511, 257], "fp32", shape2=[257], alpha=1.0), c([7, 17, 31], "int32", alpha=3),
                    c([64, 33], "fp16", alpha=0.5, out=True, out_layout="step2"),
                    c([5, 7, 11, 13], "bf16", form="ts", scalar=3.25, alpha=2.0, out=True, out_layout="resize")],
    },
    notes="Cases call the torch.ops.aten.rsub packet, which resolves to rsub.Tensor, rsub.Scalar, rsub.Tensor_out or "
          "rsub.Scalar_out from the arguments (aten.md § aten::rsub).",
).facts(counts=Counts(smoke=6, full=144, timed=144, heldout=4))


#: Leading values that make a comparison's first result True: (x, y) for tensor-tensor cases, x - scalar
#: for tensor-scalar ones.
_TRUE_FIRST = {"eq": ((1, 1), 0), "gt": ((1, 0), 1), "le": ((0, 1), -1)}

_PIN_NOTE = ("The first element of every case is pinned so that the first result is True: a 0-d or one-element "
             "result that is False equals the all-False pattern L2 ghost replay poisons bool outputs with, and a "
             "correct kernel would be reported as not computing it.")


def _true_first(name: str) -> Callable[[dict[str, Any]], tuple[list, list]]:
    (tx, ty), ds = _TRUE_FIRST[name]

    def pin(p: dict[str, Any]) -> tuple[list, list]:
        if p.get("form", "tt") == "ts":
            return [p["scalar"] + ds], []
        return [tx], [ty]

    return pin


def _compare(name: str, op: Callable, semantics: str, smoke: list, heldout: list, dist: tuple = ("randn",),
             notes: str = "") -> BinaryOperator:
    return BinaryOperator(
        name, category="pointwise comparison", semantics=semantics, api=f"torch.{name}",
        fn=lambda x, y, p: op(x, y), exercised=[f"{name}.Tensor", f"{name}.Scalar"], reference="native",
        exact=True, dist=dist, pin=_true_first(name), flops=1,
        grids={"smoke": smoke,
               "full": _forms("tt", dtype=FLOAT3, shape=PW) + _forms("ts", dtype=FLOAT3, scalar=[0], shape=PW),
               "heldout": heldout},
        notes=(notes + " " + _PIN_NOTE).strip())


EQ = _compare(
    "eq", torch.eq,
    "Elementwise == after promotion to the common dtype, a bool result; broadcasting; NaN == NaN is False and "
    "-0.0 == +0.0 True. eq.Scalar takes a Python number; the out variants write bool into out. The JIT forms "
    "compare Python values or lists with ==.",
    smoke=[c([64, 33], "fp32"), c([17], "bf16", form="ts", scalar=0),
           c([6], "fp16", values=[None, "nan", "-0.0", 2.0, "inf", 5.0], values2=[None, "nan", 0.0, 3.0, "inf", -5.0]),
           c([], "fp16"), c([16, 5], "fp32", form="ts", scalar=3),
           c([9, 4], "int32", range=[0, 4], range2=[0, 4]), c([12], "bool"),
           c([4, 1, 5], "fp32", shape2=[3, 5], out=True), c([7, 6], "int16", form="ts", scalar=2, range=[0, 4],
                                                             out=True)],
    heldout=[c([511, 257], "int32", shape2=[257], dtype2="int64", range=[0, 5], range2=[0, 5]),
             c([7, 17, 31], "fp16", form="ts", scalar=3.0), c([257, 129], "fp32", layout="transposed"),
             c([33, 20], "fp32", out=True, out_layout="step2"), c([5, 7, 11, 13], "bf16", form="td")],
    dist=("randint", 0, 10),
    notes="No test carries this label at HEAD: the pre-damage grid is adopted (aten.md §6b.2), inputs randint(0, 10) "
          "cast to the dtype so that equal values are frequent.",
).facts(counts=Counts(smoke=9, full=36, timed=36, heldout=5))

GT = _compare(
    "gt", torch.gt,
    "Elementwise a > b after promotion to the common dtype, a bool result; broadcasting; any comparison with NaN is "
    "False. gt.Scalar takes a Python number; the out variants write into out; the JIT forms compare Python numbers "
    "or strings.",
    smoke=[c([64, 33], "fp32"), c([17], "bf16", form="ts", scalar=0), c([], "fp16"),
           c([4], "fp16", values=[None, "nan", 1.0, "inf"], values2=[None, 0.0, "nan", "inf"]),
           c([16, 5], "fp32", form="ts", scalar=0), c([9, 4], "int32", range=[0, 4], range2=[0, 4]),
           c([12], "bool"), c([4, 1, 5], "fp16", shape2=[3, 5], out=True),
           c([7, 6], "fp32", form="ts", scalar=0.5, out=True)],
    heldout=[c([511, 257], "fp16", shape2=[257]), c([7, 17, 31], "int32", form="ts", scalar=2.5),
             c([257, 129], "fp32", layout="transposed"), c([33, 20], "bf16", out=True, out_layout="step2")],
).facts(counts=Counts(smoke=9, full=36, timed=36, heldout=4), aliases={"greater"})

LE = _compare(
    "le", torch.le,
    "Elementwise a <= b after promotion to the common dtype, a bool result; broadcasting; comparisons with NaN are "
    "False. le.Scalar takes a Python number; the out and JIT overloads are as for gt.",
    smoke=[c([64, 33], "fp32", values=[1.0, 2.0, -0.5], values2=[1.0, 1.5, -0.5]), c([17], "bf16", form="ts", scalar=0),
           c([], "fp16"), c([4], "fp16", values=[None, 1.0, "nan", "-inf"], values2=[None, "nan", 1.0, "-inf"]),
           c([16, 5], "fp32", form="ts", scalar=0),
           c([9, 4], "int32", range=[0, 4], range2=[0, 4]), c([12], "bool"),
           c([4, 1, 5], "fp16", shape2=[3, 5], out=True), c([7, 6], "fp32", form="ts", scalar=-0.5, out=True)],
    heldout=[c([511, 257], "fp16", shape2=[257]), c([7, 17, 31], "int16", form="ts", scalar=3),
             c([257, 129], "fp32", layout="transposed"), c([33, 20], "fp32", out=True, out_layout="resize")],
).facts(counts=Counts(smoke=9, full=36, timed=36, heldout=4), aliases={"less_equal"})

FMAX = BinaryOperator(
    "fmax", category="pointwise binary (NaN-ignoring max)",
    semantics="Elementwise maximum that ignores NaN: if exactly one operand is NaN the result is the other, if both "
              "are NaN the result is NaN; broadcasting and promotion; integers are a plain max, bool a logical or. "
              "fmax.out writes into out.",
    api="torch.ops.aten.fmax", fn=lambda x, y, p: torch.fmax(x, y), exercised=["fmax", "fmax.out"],
    reference="native", pin=_nan_pin, flops=1,
    grids={
        "smoke": [c([2, 3], "fp32", values=[None, None, "nan"], values2=[None, None, "nan", "-inf"]),
                  c([128, 256], "bf16", overload="out"), c([5], "fp16", shape2=[]),
                  c([9, 7], "fp32", overload="out"), c([6, 5], "int32"), c([8], "bool")],
        "full": _forms("tt", dtype=["fp32", "fp16", "bf16"], shape=LONGTAIL)
        + _forms("tt", overload=["out"], dtype=["fp32", "fp16", "bf16"], shape=LONGTAIL),
        "heldout": [c([511, 257], "fp32", shape2=[257]), c([7, 17, 31], "int32"),
                    c([33, 64], "fp16", overload="out", out_layout="step2"),
                    c([129, 33], "fp32", layout="transposed", dtype2="fp16")],
    },
    notes="NaN is injected at self.flat[0] and other.flat[1], as upstream does.",
).facts(counts=Counts(smoke=6, full=18, timed=18, heldout=4))

FLOOR_DIVIDE = BinaryOperator(
    "floor_divide", category="pointwise binary (floor division)",
    semantics="Elementwise floor division (Python //) with broadcasting and promotion. Floats: PyTorch's "
              "div_floor_floating (b = 0 gives a/b; else mod = fmod(a, b), d = (a - mod)/b, minus 1 if mod != 0 and "
              "the signs of b and mod differ; the result is floor(d), plus 1 if d - floor(d) > 0.5; a zero result "
              "takes the sign of a/b); fp16/bf16 compute in fp32. Integers: the truncated quotient minus 1 when the "
              "signs differ and the remainder is non-zero; by zero CUDA gives -1 (a >= 0) or -2 (a < 0) and never "
              "traps; the minimum // -1 wraps. floor_divide.Scalar takes a Scalar other; the out variants write "
              "into out.",
    api="torch.floor_divide", fn=lambda x, y, p: torch.floor_divide(x, y), exercised=["floor_divide"],
    reference="opmath", exact=True, divisor=True, int_range=_full_int_range, flops=4,
    grids={
        "smoke": [c([64, 33], "int32", range=[-1000, 1000], range2=[-9, 9], values2=[-1, -1, 3, -3]),
                  c([17], "int16", form="td"), c([9, 11], "int32", form="dt", range2=[-70, 70]),
                  c([8, 8], "fp32", values=[7.0, -7.0, 7.0, -7.0, 0.0, 1.0, -1.0, "inf", "nan", 1e30],
                    values2=[2.0, 2.0, -2.0, -2.0, -3.0, 0.0, 0.0, 3.0, 1.0, 3.0]),
                  c([5, 6], "fp16", range=[-20.0, 20.0]), c([33, 9], "bf16", range=[-50.0, 50.0]),
                  c([6, 4], "int32", form="ts", scalar=-3, range=[-100, 100], overload="Scalar"),
                  c([7, 5], "fp32", range2=[-4.0, 4.0], overload="out"),
                  c([5, 4], "int16", form="ts", scalar=7, range=[-300, 300], overload="Scalar_out")],
        "full": _forms("tt", dtype=["fp32"], shape=PW)
        + [dict(form=f, dtype=d, shape=s) for d in INT2 for s in PW for f in ("tt", "td", "dt")],
        "heldout": [c([511, 257], "int32", shape2=[257]), c([7, 17, 31], "fp16"),
                    c([9], "int16", values=[-32768, -32768, 7, -7], values2=[-1, 1, -1, 2]),
                    c([33, 17], "bf16", form="ts", scalar=-2.5, overload="Scalar_out", out_layout="step2"),
                    c([129, 63], "int64", layout="transposed", range=[-10 ** 12, 10 ** 12], range2=[1, 1000],
                      values2=[-7, -1, -999])],
    },
    notes="The float test calls torch.floor_divide on randn fp32 tensors (upstream's called "
          "div(rounding_mode='floor'), aten.md §6b.5); the CPU scalar-scalar test is dropped (§6b.5). Upstream's "
          "int test makes three calls per case (inp1 // inp2, inp1 // d, d // inp1, d a 0-d tensor on the "
          "device): here each is a case of its own (forms tt, td, dt), so the 12 upstream int cases are 36 here "
          "and the row has 42 full-tier cases. Integer inputs span the whole int16/int32 range; integer divisors "
          "on the CPU hold no zero (§5b), the GPU tiers keep upstream's zeros (the reference is PyTorch's CUDA "
          "kernel on the same device). The int64 held-out case has no zero divisor (CUDA's 64-bit division by "
          "zero was not measured).",
).facts(counts=Counts(smoke=9, full=42, timed=42, heldout=5))


HEAVISIDE = BinaryOperator(
    "heaviside", category="pointwise binary (step)",
    semantics="heaviside(x, values): 0 where x < 0, values where x == 0 (-0.0 included), 1 where x > 0; a NaN x gives "
              "0 (x == 0 ? v : x > 0, as the CUDA kernel computes); broadcasting; both inputs must have the same dtype "
              "(no promotion). heaviside.out writes into out.",
    api="torch.ops.aten.heaviside", fn=lambda x, y, p: torch.heaviside(x, y), exercised=["heaviside", "heaviside.out"],
    reference="native", zero_frac=0.1, flops=1,
    grids={
        "smoke": [c([2, 3], "fp32", values=[0.0, "-0.0", -1.0, 2.0, "inf", "-inf"]),
                  c([128, 256], "bf16", overload="out"), c([4, 1], "fp16", shape2=[1, 5]),
                  c([9, 7], "fp32", overload="out"), c([6, 5], "int32", range=[-2, 3]), c([8], "bool")],
        "full": _forms("tt", dtype=["fp32", "fp16", "bf16"], shape=LONGTAIL)
        + _forms("tt", overload=["out"], dtype=["fp32", "fp16", "bf16"], shape=LONGTAIL),
        "heldout": [c([511, 257], "fp32", shape2=[257]), c([7, 17, 31], "int32", range=[-3, 3]),
                    c([4, 6], "fp32", values=["nan", "-0.0", 0.0, "-inf", "nan"], values2=[5.0, 7.0, "nan", 1.0]),
                    c([33, 64], "fp16", overload="out", out_layout="step2")],
    },
    notes="About 10 % of self is set to exactly 0, as upstream does. PyTorch's CPU kernel gives 0 for a NaN x like "
          "the CUDA one.",
).facts(counts=Counts(smoke=6, full=18, timed=18, heldout=4))

LOGADDEXP2 = BinaryOperator(
    "logaddexp2", category="pointwise binary (math)",
    semantics="log2(2^a + 2^b) computed stably as max(a, b) + log1p(2^-|a - b|) / ln 2; equal infinities give that "
              "infinity, NaN propagates; broadcasting; floating inputs only; fp16/bf16 compute in fp32. "
              "logaddexp2.out writes into out.",
    api="torch.ops.aten.logaddexp2", fn=lambda x, y, p: torch.logaddexp2(x, y),
    exercised=["logaddexp2", "logaddexp2.out"], untimed=lambda p: p.get("overload") == "out", flops=6,
    grids={
        "smoke": [c([2, 3], "fp32"), c([128, 256], "bf16", overload="out"),
                  c([6], "fp16", values=["inf", "-inf", "inf", "-inf", "nan", 60000.0],
                    values2=["inf", "-inf", "-inf", 3.0, 1.0, -60000.0]),
                  c([9, 7], "fp32", overload="out", range=[-40.0, 40.0]), c([5, 1], "fp32", shape2=[4])],
        "full": _forms("tt", dtype=["fp32", "fp16", "bf16"], shape=LONGTAIL)
        + _forms("tt", overload=["out"], dtype=["fp32", "fp16", "bf16"], shape=LONGTAIL),
        "heldout": [c([511, 257], "fp32", shape2=[257]), c([7, 17, 31], "fp16", range=[-40.0, 40.0]),
                    c([33, 64], "fp32", overload="out", out_layout="step2"),
                    c([5, 7, 11, 13], "bf16", layout="transposed")],
    },
    notes="test_logaddexp2_out is untimed upstream: 9 of the 18 full-tier cases are timed.",
).facts(counts=Counts(smoke=5, full=18, timed=9, heldout=4))

POW = BinaryOperator(
    "pow", category="pointwise binary (math)",
    semantics="Elementwise base^exponent with broadcasting and promotion, C pow semantics (x^0 = 1 even for NaN, "
              "1^y = 1, a negative finite base with a non-integer exponent gives NaN, 0^negative gives +inf, -0 with "
              "odd integers keeps the sign); fp16/bf16 compute in fp32. A Python-number exponent (pow.Tensor_Scalar) "
              "or base (pow.Scalar) is first converted to the tensor's dtype (fp16/bf16 through fp32, e.g. -111.999 "
              "becomes -112 and bf16 -0.999 becomes -1); pow.Scalar with base 1 gives 1. Integer tensors take integer "
              "powers (a negative Scalar exponent is an error; a negative tensor exponent gives 0 except for bases "
              "±1). The out variants write into out; the JIT forms follow Python ** (pow.int_to_int returns an int).",
    api="torch.pow", fn=lambda x, y, p: torch.pow(x, y),
    exercised=["pow.Tensor_Tensor", "pow.Scalar", "pow.Tensor_Scalar"], reference="custom", ref_fn=_pow_ref, flops=10,
    grids={
        "smoke": [c([64, 33], "fp32", values=[-2.0, -2.0, -0.5, 0.0, "-0.0", 1.0, "nan", 2.0],
                    values2=[3.0, 0.5, -3.0, -1.0, 3.0, "nan", 0.0, "inf"]),
                  c([17], "bf16", form="st", scalar=-0.999), c([16, 16], "fp16", form="ts", scalar=-111.999),
                  c([8], "fp32", form="ts", scalar=0.5), c([8], "fp32", form="ts", scalar=-1),
                  c([8], "fp32", form="ts", scalar=2), c([12, 5], "fp32", form="st", scalar=100.001),
                  c([9, 4], "fp16", form="st", scalar=-0.999), c([7, 6], "int32", range=[-5, 6], range2=[0, 6]),
                  c([6, 5], "int32", form="ts", scalar=3), c([5, 4], "fp32", shape2=[4], overload="Tensor_Tensor_out"),
                  c([4, 6], "fp16", form="st", scalar=2.5, overload="Scalar_out"),
                  c([6, 3], "fp32", form="ts", scalar=-2.5, overload="Tensor_Scalar_out")],
        "full": _forms("tt", dtype=FLOAT3, shape=PW) + _forms("st", dtype=FLOAT3, shape=PW, scalar=ALPHAS)
        + _forms("ts", dtype=FLOAT3, scalar=ALPHAS, shape=PW),
        "heldout": [c([511, 257], "fp32", shape2=[257]), c([7, 17, 31], "int32", form="ts", scalar=2),
                    c([8, 4], "fp32", values=[0.0, "-0.0", "inf", "-inf", "nan", 0.0, "-0.0", "-inf"],
                      values2=[-3.0, -3.0, -1.0, 3.0, 0.0, 2.5, 2.5, -2.5]),
                    c([5, 7, 11, 13], "fp16", form="ts", scalar=3, layout="transposed"),
                    c([33, 17], "bf16", form="st", scalar=2.0, overload="Scalar_out", out_layout="step2")],
    },
    notes="Full tier: the pre-damage tensor-scalar grid (aten.md §6b.2; HEAD's body is the resolve_neg test). The "
          "reference is fp64 with the Python scalar first converted to the tensor's dtype (double -> float -> dtype), "
          "PyTorch's scalar semantics (aten.md §3.1: the native semantics are the contract, not an fp32 upcast). "
          "Exponents ±0.5 take PyTorch's sqrt/rsqrt fast paths (which differ from C pow only at -0 and -inf); no case "
          "pairs them with those bases.",
).facts(counts=Counts(smoke=13, full=162, timed=162, heldout=5), aliases={"square"})


def _prelu_weight_shape(p: dict[str, Any]) -> list[int]:
    if p.get("weight", "scalar") == "scalar":
        return []
    return [p["shape"][1] if len(p["shape"]) > 1 else 1]


PRELU = BinaryOperator(
    "prelu", category="pointwise binary (activation, composite)",
    semantics="x > 0 ? x : w * x, where weight is 0-d or one element (a shared slope) or a 1-D tensor of "
              "C = self.size(1) slopes broadcast along dim 1 (a 1-D input takes a one-element weight); no type "
              "promotion (self and weight share the dtype); fp16/bf16 compute in fp32. CompositeImplicit: the backend "
              "registration intercepts it.",
    api="torch.ops.aten.prelu", fn=lambda x, y, p: torch.ops.aten.prelu(x, y), exercised=["prelu"],
    shape2_of=_prelu_weight_shape, flops=2,
    grids={
        "smoke": [c([2, 3], "fp32", weight="scalar"), c([4, 8, 16], "bf16", weight="per_channel"),
                  c([2, 32, 4, 4], "fp16", weight="per_channel"), c([4, 8, 16], "fp32", weight="per_channel"),
                  c([3, 5], "fp16", weight="scalar", values=[0.0, "-0.0", "-inf", "nan"])],
        "full": [dict(form="tt", **d) for d in product(weight=["scalar", "per_channel"], dtype=["fp32", "fp16", "bf16"],
                                                       shape=PRELU_SHAPES)],
        "heldout": [c([511, 257], "fp32", weight="per_channel"), c([17], "fp16", weight="per_channel"),
                    c([2, 5, 7, 9], "fp32", weight="per_channel", layout="permuted"),
                    c([3, 64, 33], "bf16", weight="scalar", layout="transposed")],
    },
    notes="PyTorch 2.13 rejects a 1-D input with a weight of its length (for a 1-D input the channel size is 1), so "
          "the held-out 1-D case of the spec ((17,) with w (17,)) uses a one-element weight.",
).facts(counts=Counts(smoke=5, full=36, timed=36, heldout=4))

# ---------------------------------------------------------------------------------------------- add
def _add_build(p: dict[str, Any], device, gen) -> AtenCase:
    form = p.get("form", "tt")
    layout = p.get("layout", "contig")
    a = make_tensor(p["shape"], p["dtype"], device, gen, layout=layout)
    kw: dict[str, Any] = {"alpha": p["alpha"]}
    if form == "tt":
        b = make_tensor(p.get("shape2", p["shape"]), p["dtype"], device, gen)
        args: list[Any] = [a, b]
    elif form == "ts":
        args = [a, p["scalar"]]
    elif form == "st":
        args = [p["scalar"], a]
    else:
        raise ValueError(f"aten::add: unknown form {form!r}")
    api = "torch.add"
    if p.get("overload") == "Scalar":
        api = "torch.ops.aten.add.Scalar"
    elif p.get("overload") == "Scalar_out":
        api = "torch.ops.aten.add.Scalar_out"
    written: tuple = ()
    if p.get("overload") in ("out", "Scalar_out"):
        shape = torch.broadcast_shapes(*(x.shape for x in args if isinstance(x, torch.Tensor)))
        kw["out"] = poisoned(shape, p["dtype"], device)
        written = ("out",)
    return AtenCase(api, args, kw, written)


def _add_ref(p: dict[str, Any], call: Call) -> list[Expected]:
    ref = native_then_exact(call)
    return std_expected(p, call, ref, Tolerance())


def _add_cost(p: dict[str, Any]) -> Cost:
    n = numel(p["shape"])
    reads = n + (numel(p.get("shape2", p["shape"])) if p.get("form", "tt") == "tt" else 0)
    return Cost(2.0 * n, (reads + n) * elem_bytes(p["dtype"]))


_ADD_FULL = (
    [dict(form="tt", **d) for d in product(dtype=FLOAT3, alpha=ALPHAS, shape=POINTWISE_SHAPES)]
    + [dict(form="ts", **d) for d in product(dtype=FLOAT3, alpha=ALPHAS, scalar=ALPHAS, shape=POINTWISE_SHAPES)]
    + [dict(form="st", **d) for d in product(dtype=FLOAT3, alpha=ALPHAS, scalar=ALPHAS, shape=POINTWISE_SHAPES)]
)

ADD = AtenOperator(
    "add", category="pointwise binary",
    semantics="out = self + alpha * other with NumPy broadcasting and PyTorch type promotion (wrapped Python "
              "numbers and 0-d tensors do not raise the category's dtype); fp16/bf16 compute in fp32 and round "
              "once; IEEE overflow.",
    wrappers=[
        Wrapper("add.Tensor", "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
                exercised=True),
        Wrapper("add.Scalar", "aten::add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor"),
        Wrapper("add.out", "aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)"),
        Wrapper("add.Scalar_out",
                "aten::add.Scalar_out(Tensor self, Scalar other, Scalar alpha=1, *, Tensor(a!) out) -> Tensor(a!)"),
    ],
    grids={
        "smoke": [
            dict(form="tt", shape=[64, 33], dtype="fp32", alpha=-0.999),
            dict(form="ts", shape=[17], dtype="bf16", scalar=2.5, alpha=100.001),
            dict(form="st", shape=[], dtype="fp16", scalar=0.001, alpha=-111.999),
            dict(form="tt", shape=[4, 1, 5], shape2=[3, 5], dtype="fp32", alpha=1),
            dict(form="tt", shape=[33, 7], dtype="fp16", alpha=2.0, overload="out"),
            dict(form="ts", shape=[9, 5], dtype="fp32", scalar=-1.5, alpha=0.5, overload="Scalar"),
        ],
        "full": _ADD_FULL,
        "heldout": [
            dict(form="tt", shape=[511, 257], shape2=[257], dtype="fp16", alpha=1),
            dict(form="tt", shape=[7, 17, 31], dtype="int32", alpha=3),
            dict(form="ts", shape=[257, 511], layout="transposed", dtype="bf16", scalar=-0.999, alpha=0.001),
            dict(form="tt", shape=[129, 65], layout="step2", dtype="fp32", alpha=-2.0, overload="out"),
            dict(form="ts", shape=[5, 7, 11, 13], dtype="fp16", scalar=100.001, alpha=1, overload="Scalar_out"),
        ],
    },
    build=_add_build, reference=_add_ref, cost=_add_cost,
).facts(counts=Counts(smoke=6, full=648, timed=648, heldout=5))


# The rows' full-tier counts (Counts.full, Counts.timed). aten.md §1 counts, with these corrections (§6b and the
# rows' notes):
#   sub 650 -> 648, mul 164 -> 162: the CPU scalar-scalar test never reaches the candidate (§6b.5);
#   div 172 (pre-damage, §6b.2) -> 168: the mislabelled torch.mul scalar-scalar test (§6b.5) and the pre-damage
#       trunc_divide_scalar_scalar test, which also runs on the CPU, are dropped;
#   floor_divide 20 -> 42: the scalar-scalar test is dropped (§6b.5), the float test calls torch.floor_divide
#       (6), and each of the 12 int cases' three calls (t // t, t // d, d // t) is a case of its own (36);
#   logaddexp2: test_logaddexp2_out is untimed upstream (9 of 18 timed).
# div_, eq and pow use the pre-damage grids (§6b.2) with §1's counts; the rest are HEAD's.
OPERATORS: list[AtenOperator] = [
    ADD, ADD_, DIV, DIV_, EQ, FLOOR_DIVIDE, FMAX, GT, HEAVISIDE, LE, LOGADDEXP2, MUL, POW, PRELU, RSUB, SUB,
]

__all__ = ["OPERATORS", "BinaryOperator"]
