"""The cuBLAS smoke tier covers every flag value and increment sign its routine's other tiers use (cublas.md
§2.11: smoke is the default tier of ``kgb eval``, so a kernel that ignores uplo, op C, side = right, diag =
unit or a negative increment must fail there, not only on the full or held-out tier).

A smoke case counts for a flag value or a negative increment only where it can tell (see :func:`_observable`):
sizes m, n >= 2; alpha != 0 (alpha == 0 leaves the flags' operands unread); uplo not on symmetric data
(``sym``: both triangles equal); trans not on upstream triangular data (its referenced triangle is diagonal,
cublas.md §2.13 item 4; a triangular routine's case without ``data`` has upstream data); side not on upstream
data with diag UNIT (op(A) = I); uplo and trans of a band only with k >= 1; diag UNIT of a band only with NaN in
the diagonal row (``nan_band``; otherwise that row holds the ones a kernel ignoring diag would read).

The quick-return rules (cublas.md §2.5, declared as ``Routine.not_read``) are exercised the same way: every routine
with one has a smoke case with that scalar 0 and NaN throughout the operands it must not read (checked on the built
case), and a held-out case of the same kind (checked on the parameters)."""
from __future__ import annotations

from typing import Any

import pytest

from kernelgenbench.suite.cublas.decl import flag_code
from kernelgenbench.suite.registry import select

#: grid key -> flag kind of decl.flag_code
FLAG_KIND = {"uplo": "uplo", "trans": "trans", "transa": "trans", "transb": "trans", "side": "side", "diag": "diag"}
INCS = ("incx", "incy")

CUBLAS = select(source="cublas")


def _observable(p: dict[str, Any], key: str, has_data: bool = False) -> bool:
    """Whether smoke case ``p`` can tell a kernel that ignores ``key`` (a flag or an increment's sign);
    ``has_data``: the routine's grids choose the triangular data (``data``, upstream by default)."""
    if any(isinstance(p.get(s), int) and p[s] < 2 for s in ("m", "n")):
        return False
    if "alpha" in p and complex(p["alpha"]) == 0:
        return False
    upstream = p.get("data") == "upstream" or (has_data and "data" not in p)
    unit = "diag" in p and flag_code("diag", p["diag"]) == 1
    if key == "uplo" and p.get("sym"):
        return False
    if key in ("trans", "transa", "transb") and upstream:
        return False
    if key == "side" and upstream and unit:
        return False
    if p.get("band") and p.get("k", 1) < 1 and key in ("uplo", "trans"):
        return False
    if key == "diag" and p.get("band") and unit and not p.get("nan_band"):
        return False
    return True


def _uses(grid: list[dict[str, Any]], smoke: bool) -> set[tuple[str, Any]]:
    """(flag key, enum code) and (increment, "negative") pairs of a grid; for smoke only observable cases."""
    out: set[tuple[str, Any]] = set()
    has_data = any("data" in p for p in grid)
    for p in grid:
        for key, kind in FLAG_KIND.items():
            if key in p and (not smoke or _observable(p, key, has_data)):
                out.add((key, flag_code(kind, p[key], key)))
        for key in INCS:
            v = p.get(key)
            if isinstance(v, int) and v < 0 and (not smoke or _observable(p, key, has_data)):
                out.add((key, "negative"))
    return out


def missing_in_smoke(op) -> list[tuple[str, Any]]:
    """The flag values and negative increments ``op``'s full or held-out grid uses and no observable smoke
    case does, sorted."""
    rest = _uses(op.grid("full") + op.grid("heldout"), smoke=False)
    return sorted(rest - _uses(op.grid("smoke"), smoke=True), key=repr)


@pytest.mark.parametrize("op", CUBLAS, ids=lambda o: o.id)
def test_smoke_covers_every_flag_value_and_increment_sign(op) -> None:
    missing = missing_in_smoke(op)
    assert not missing, f"{op.id}: smoke tier lacks (observably) {missing}"


def test_the_check_sees_a_gap() -> None:
    """The check is not vacuous: dropping the smoke cases that carry a flag value is reported."""
    op = next(o for o in CUBLAS if o.id == "cublas::cublasStrsm_v2")
    assert ("side", 1) in _uses(op.grid("heldout"), smoke=False)
    assert ("side", 1) in _uses(op.grid("smoke"), smoke=True)
    pruned = [p for p in op.grid("smoke") if flag_code("side", p["side"]) != 1]
    assert ("side", 1) not in _uses(pruned, smoke=True)
    assert not _observable(dict(n=1, incx=-1), "incx") and not _observable(dict(n=5, alpha=0.0, incx=-1), "incx")
    assert not _observable(dict(n=9, uplo=1, sym=True, alpha=1.0), "uplo")
    assert _observable(dict(m=3, n=2, incx=-2, alpha=0.5 + 0.5j), "incx")
    assert not _observable(dict(n=9, trans=1, uplo=0, diag=0), "trans", has_data=True)
    assert _observable(dict(n=9, trans=1, uplo=0, diag=0, data="genuine"), "trans", has_data=True)
    assert not _observable(dict(n=9, k=2, diag=1, band=True), "diag")
    assert len(CUBLAS) >= 40


# ---------------------------------------------------------------------------------------------------------
# Not-read rules (cublas.md §2.5): every routine whose declaration states that a zero alpha (beta) leaves
# operands unread has a smoke case with that scalar 0 and those operands NaN throughout their logical region
# (a kernel that reads them, even to multiply by 0, propagates the NaN and fails on the default tier).
# ---------------------------------------------------------------------------------------------------------

def _routine(op):
    from kernelgenbench.suite.cublas.decl import ROUTINES

    return ROUTINES[op.name]


def poisoned_rules(op, tier: str = "smoke") -> set[tuple[str, tuple[str, ...]]]:
    """The not-read rules of ``op``'s declaration that some case of ``tier`` exercises: the scalar is 0 and,
    in the built case, every element of each named operand's logical region (every batch) is NaN."""
    import torch

    from kernelgenbench.suite.cublas.decl import Ref

    r = _routine(op)
    done: set[tuple[str, tuple[str, ...]]] = set()
    gen = torch.Generator().manual_seed(0)
    for p in op.grid(tier):
        rules = [(s, names) for s, names in r.not_read if s in p and complex(p[s]) == 0 and (s, names) not in done]
        if not rules:
            continue
        ref = Ref(r, op.build(p, torch.device("cpu"), gen))
        for s, names in rules:
            if all(bool(torch.isnan(ref.operand(n)).all()) and ref.operand(n).numel() > 0 for n in names):
                done.add((s, names))
    return done


QUICK = [o for o in CUBLAS if _routine(o).not_read]


def test_the_not_read_rules_are_declared_per_the_spec() -> None:
    """§2.5's families: gemm-like (gemm, batched gemm, symm, syrk, geam, gemv, sbmv, symv, their Ex and batched
    forms), axpy/ger/syr2 (alpha only), trsm (alpha: B); scal multiplies, so it has none."""
    names = {o.name for o in QUICK}
    assert len(names) == 39, sorted(names)
    assert {"cublasSscal_v2", "cublasSdgmm", "cublasStbmv_v2", "cublasStrsv_v2", "cublasSdot_v2"}.isdisjoint(names)
    rules = {o.name: dict(_routine(o).not_read) for o in QUICK}
    assert rules["cublasSgemmStridedBatched"] == {"alpha": ("A", "B"), "beta": ("C",)}
    assert rules["cublasSgeam"] == {"alpha": ("A",), "beta": ("B",)}
    assert rules["cublasStrsm_v2"] == {"alpha": ("B",)} and rules["cublasZtrsmBatched"] == {"alpha": ("Barray",)}
    assert rules["cublasSger_v2"] == {"alpha": ("x", "y")} and rules["cublasSaxpy_v2"] == {"alpha": ("x",)}
    assert rules["cublasSgemvBatched"] == {"alpha": ("Aarray", "xarray"), "beta": ("yarray",)}


@pytest.mark.parametrize("op", QUICK, ids=lambda o: o.id)
def test_smoke_poisons_what_a_zero_scalar_leaves_unread(op) -> None:
    missing = set(_routine(op).not_read) - poisoned_rules(op)
    assert not missing, f"{op.id}: no smoke case with the scalar 0 and NaN in {sorted(missing)}"


def test_the_poison_check_sees_a_gap() -> None:
    """Not vacuous: a smoke tier without its NaN cases, or with a zero scalar but finite operands, is reported."""
    op = next(o for o in CUBLAS if o.id == "cublas::cublasSgemmStridedBatched")
    assert poisoned_rules(op) == {("alpha", ("A", "B")), ("beta", ("C",))}

    class Pruned:
        name = op.name
        build = staticmethod(op.build)

        @staticmethod
        def grid(tier):
            return [{k: v for k, v in p.items() if k != "nan"} for p in op.grid(tier)]
    assert poisoned_rules(Pruned) == set()
    assert heldout_rules(op) == {("alpha", ("A", "B")), ("beta", ("C",))}
    assert heldout_rules(Pruned) == {("beta", ("C",))}      # the spec's H2: beta 0 with NaN C (nan_C)


def heldout_rules(op) -> set[tuple[str, tuple[str, ...]]]:
    """The not-read rules some held-out case of ``op`` exercises, judged from the parameters (held-out cases are
    too large to build here): the scalar is 0 and ``nan`` names every operand of the rule, or (the spec's own
    held-out cases) a ``nan_*`` flag puts NaN into the case."""
    out = set()
    for s, names in _routine(op).not_read:
        for p in op.grid("heldout"):
            if s in p and complex(p[s]) == 0 and (set(names) <= set(p.get("nan", ()))
                                                  or any(k.startswith("nan_") and v for k, v in p.items())):
                out.add((s, names))
    return out


@pytest.mark.parametrize("op", QUICK, ids=lambda o: o.id)
def test_heldout_poisons_what_a_zero_scalar_leaves_unread(op) -> None:
    missing = set(_routine(op).not_read) - heldout_rules(op)
    assert not missing, f"{op.id}: no held-out case with the scalar 0 and NaN in {sorted(missing)}"


# ---------------------------------------------------------------------------------------------------------
# Padded leading dimensions: smoke (kgb eval's default tier) has, for every routine with a matrix, a case whose
# leading dimensions exceed the stored rows, so a kernel that reads m where it must read lda fails there and not
# only on a held-out case (fresh user 28: cublasSger_v2 passed smoke 4/4 with lda ignored).
# ---------------------------------------------------------------------------------------------------------

def _matrix_steps(op) -> list[str]:
    r = _routine(op)
    return [a.step for a in r.args if a.role == "mat" or (a.role == "ptrs" and a.kind == "mat")]


MATRIX_ROUTINES = [o for o in CUBLAS if _matrix_steps(o)]


@pytest.mark.parametrize("op", MATRIX_ROUTINES, ids=lambda o: o.id)
def test_smoke_has_a_case_with_padded_leading_dimensions(op) -> None:
    import torch

    r = _routine(op)
    padded = []
    for p in op.grid("smoke"):
        if complex(p.get("alpha", 1)) == 0 or "nan" in p:
            continue
        call = op.build(p, torch.device("cpu"), torch.Generator().manual_seed(0))
        bigger = []
        for a in r.args:
            if a.step in _matrix_steps(op):
                rows = a.shape({**{x.name: call.args[i] for i, x in enumerate(r.args) if not x.is_array},
                                **{k: v for k, v in p.items() if k not in {x.name for x in r.args}}})[0] \
                    if a.role == "mat" else None
                ld = call.args[r.position(a.step)]
                if rows is not None and isinstance(ld, int) and ld > rows:
                    bigger.append(a.step)
                elif rows is None and p.get("pad", 0) > 0:
                    bigger.append(a.step)
        if bigger:
            padded.append((p, bigger))
    assert padded, f"{op.id}: no smoke case with a leading dimension larger than its matrix's rows"
    assert len(MATRIX_ROUTINES) >= 35
