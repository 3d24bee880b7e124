"""Correctness comparisons: tolerances, NaN/inf rules, poison, degenerate outputs, untouched memory."""
from __future__ import annotations

import math

import torch

from kernelgenbench.suite.compare import compare_slot, compare_values, outside_untouched, unchanged
from kernelgenbench.suite.spec import Expected, Tolerance, written_expected
from kernelgenbench.suite.tensors import is_poison, poison_


def test_within_and_outside_tolerance() -> None:
    e = torch.tensor([1.0, 2.0, 3.0])
    assert compare_values(e * (1 + 5e-6), e, Tolerance()).ok
    res = compare_values(e + torch.tensor([0.0, 0.0, 1e-3]), e, Tolerance())
    assert not res.ok and "1 of 3 elements outside tolerance" in res.message and "(2,)" in res.message
    assert abs(res.max_abs - 1e-3) < 1e-6


def test_atol_scales_with_reduce_dim() -> None:
    e = torch.zeros(4) + 0.5
    a = e + 0.05
    assert not compare_values(a, e, Tolerance(reduce_dim=100)).ok
    assert compare_values(a, e, Tolerance(reduce_dim=1000)).ok


def test_nan_positions_and_unwritten_nan() -> None:
    e = torch.tensor([float("nan"), 1.0])
    assert compare_values(torch.tensor([float("nan"), 1.0]), e, Tolerance()).ok
    assert "NaN positions differ" in compare_values(torch.tensor([0.0, 1.0]), e, Tolerance()).message
    unwritten = poison_(torch.empty(2))
    unwritten[1] = 1.0
    assert is_poison(unwritten).tolist() == [True, False]
    res = compare_values(unwritten, e, Tolerance())
    assert not res.ok and "never written" in res.message


def test_infinities_must_match_with_sign() -> None:
    e = torch.tensor([math.inf, 1.0])
    assert compare_values(e.clone(), e, Tolerance()).ok
    assert not compare_values(torch.tensor([-math.inf, 1.0]), e, Tolerance()).ok


def test_degenerate_output_fails_even_within_atol() -> None:
    e = torch.tensor([1e-5, -2e-5, 3e-5])
    res = compare_values(torch.zeros(3), e, Tolerance())
    assert not res.ok and "degenerate" in res.message


def test_exact_dtypes_and_shape() -> None:
    e = torch.tensor([1, 2, 3], dtype=torch.int64)
    assert compare_values(e.clone(), e, Tolerance()).ok
    assert not compare_values(e + torch.tensor([0, 0, 1]), e, Tolerance()).ok
    assert "shape" in compare_values(e[:2], e, Tolerance()).message


def test_return_dtype_is_checked() -> None:
    e = Expected("return", torch.ones(3, dtype=torch.float16), Tolerance())
    assert "dtype" in compare_slot(e, torch.ones(3, dtype=torch.float32)).message
    assert compare_slot(e, torch.ones(3, dtype=torch.float16)).ok


def test_written_argument_padding_must_stay_untouched() -> None:
    buf = torch.randn(3, 8)
    view = buf[:, :5]
    exp = written_expected("arg.0", view, torch.ones(3, 5), Tolerance())
    good = buf.clone()
    good[:, :5] = 1.0
    assert compare_slot(exp, good[:, :5]).ok
    bad = good.clone()
    bad[1, 6] = 0.0
    res = compare_slot(exp, bad[:, :5])
    assert not res.ok and "outside the written region were modified" in res.message


def test_elementwise_allowance() -> None:
    e = torch.tensor([1.0, 1.0], dtype=torch.float16)
    a = torch.tensor([1.0, 1.00390625], dtype=torch.float16)  # two fp16 ulps at 1.0
    assert not compare_values(a, e, Tolerance()).ok
    assert compare_values(a, e, Tolerance(), atol_extra=torch.tensor([0.0, 0.004])).ok


def test_unchanged_inputs() -> None:
    x = torch.randn(5)
    assert unchanged(x, x.clone(), "arg.1").ok
    y = x.clone()
    y[3] += 1
    assert "modified" in unchanged(x, y, "arg.1").message


def test_constant_output_is_fine_when_the_reference_is_constant_within_rounding() -> None:
    e = torch.tensor([0.25, 0.25 + 1e-9, 0.25 - 1e-9], dtype=torch.float64).float()
    assert compare_values(torch.full((3,), 0.25), e, Tolerance()).ok


def test_alternate_poison_pattern() -> None:
    from kernelgenbench.suite.tensors import poison_variant

    b = torch.empty(3, dtype=torch.bool)
    assert poison_(b).tolist() == [True] * 3
    with poison_variant(True):
        assert poison_(b).tolist() == [False] * 3
        assert poison_(torch.empty(2, dtype=torch.int32)).tolist() == [1234567891] * 2
    assert poison_(torch.empty(2, dtype=torch.int32)).tolist() == [-1234567891] * 2


def test_main_and_alternate_poison_differ_for_every_dtype_without_a_nan_payload() -> None:
    from kernelgenbench.suite.tensors import (
        INT_POISON,
        INT_POISON_ALT,
        POISON_BITS,
        holds_poison,
        poison_is_ambiguous,
        poison_variant,
    )

    assert set(INT_POISON) == set(INT_POISON_ALT)
    ints = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.uint16, torch.uint32,
            torch.uint64, torch.float8_e4m3fn, torch.float8_e5m2]
    for dt in ints:
        assert poison_is_ambiguous(dt), dt
        main = poison_(torch.empty(4, dtype=dt))
        with poison_variant(True):
            alt = poison_(torch.empty(4, dtype=dt))
        raw = lambda t: t.view(torch.uint8).reshape(4, -1)  # noqa: E731
        assert bool((raw(main) != raw(alt)).any(-1).all()), dt
        assert holds_poison(main).all() and not holds_poison(alt).any(), dt
        assert holds_poison(alt, alt=True).all() and not holds_poison(main, alt=True).any(), dt
    for dt in POISON_BITS:  # payload NaNs: told from any computed value, never ambiguous
        assert not poison_is_ambiguous(dt)
        assert holds_poison(poison_(torch.empty(2, 3, dtype=dt))).shape == (2, 3)


def test_an_expected_nan_does_not_mask_an_unwritten_element_in_any_comparison() -> None:
    for dt in (torch.float32, torch.float16, torch.float64, torch.complex64, torch.complex128):
        e = torch.tensor([[float("nan"), 1.0, 2.0], [3.0, float("nan"), 4.0]], dtype=dt)
        unwritten = poison_(torch.empty(2, 3, dtype=dt))
        unwritten[~torch.isnan(e)] = e[~torch.isnan(e)]
        assert is_poison(unwritten).tolist() == [[True, False, False], [False, True, False]], dt
        computed = e.clone()  # a computed NaN is canonical: not the payload
        for tol in (Tolerance(), Tolerance(exact=True)):
            res = compare_values(unwritten, e, tol)
            assert not res.ok and "never written" in res.message, (dt, tol)
            assert compare_values(computed, e, tol).ok, (dt, tol)


def test_unwritten_element_where_the_reference_is_nan_gets_the_mask_hint() -> None:
    # fresh user 37: an off-by-one mask left only the last element unwritten, where the reference was NaN; the
    # message ("1 elements ... never written (they still hold the poison pattern)") lacked the hint that every
    # other unwritten element's message gives
    e = torch.tensor([[-3.0, 3.0, -4.0], [4.0, 0.0, float("nan")]])
    got = poison_(torch.empty(2, 3))
    got[~torch.isnan(e)] = e[~torch.isnan(e)]
    for tol in (Tolerance(), Tolerance(exact=True)):
        res = compare_values(got, e, tol, what="return")
        assert not res.ok
        assert res.message == (
            "return: 1 element where the reference is NaN was never written: still the poison NaN the harness fills "
            "outputs with (was the result written to another tensor, or a mask too narrow?); first at (1, 2)"), tol
    # the off-by-one mask's other cases: one unwritten element where the reference is finite
    last = poison_(torch.empty(2, 2))
    last.view(-1)[:3] = torch.tensor([0.5, 0.25, 0.75])
    res = compare_values(last, torch.tensor([[0.5, 0.25], [0.75, 1.0]]), Tolerance(), what="arg.out")
    assert res.message == (
        "arg.out: NaN positions differ (1 element); first at (1, 1): got nan, expected 1.0; 1 of them was never "
        "written: still the poison NaN the harness fills outputs with (was the result written to another tensor, "
        "or a mask too narrow?)"), res.message
    both = poison_(torch.empty(2))
    res = compare_values(both, torch.tensor([float("nan"), float("nan")]), Tolerance(), what="out")
    assert res.message.startswith("out: 2 elements (every element) where the reference is NaN were never written: ")


def test_complex_poison_is_per_element() -> None:
    z = poison_(torch.empty(3, 2, dtype=torch.complex64))
    z[0, 0] = complex(1.0, 2.0)
    z[1, 1] = complex(float("nan"), 0.0)
    mask = is_poison(z)
    assert mask.shape == (3, 2) and mask.tolist() == [[False, True], [True, False], [True, True]]


def test_written_complex_storage_outside_the_region_is_compared_bitwise() -> None:
    # complex128 has 16-byte elements: the bitwise check of memory outside the written region compares its
    # (re, im) words (it raised KeyError before); complex64 likewise, one word per part.
    for dt in (torch.complex64, torch.complex128):
        buf = (torch.arange(6, dtype=torch.float64) * (1 + 2j)).to(dt)
        region = torch.tensor([True, False, True, False, True, False])
        exp = Expected("arg.0", buf.clone(), Tolerance(), region)
        assert compare_slot(exp, buf.clone()).ok
        bad = buf.clone()
        bad[3] = complex(3.0, 6.5)                                    # a gap element, imaginary part changed
        res = compare_slot(exp, bad)
        assert not res.ok and "outside the written region" in res.message and "offset 3" in res.message
        inside = buf.clone()
        inside[2] = complex(99.0, 0.0)                                # a region element: judged by tolerance
        assert not compare_slot(exp, inside).ok


def test_written_argument_failure_names_the_multidimensional_index() -> None:
    """A wrong element of a written [2, 2, 48] argument is named by its index in the argument, not by its
    position among the region's flat values (which read "(0,)" for any first element)."""
    out = torch.zeros(2, 2, 48)
    ref = torch.randn(2, 2, 48, generator=torch.Generator().manual_seed(0))
    exp = written_expected("arg.0", out, ref, Tolerance())
    got = ref.clone()
    got[1, 0, 7] += 1.0
    res = compare_slot(exp, got)
    assert not res.ok and "first at (1, 0, 7):" in res.message, res.message
    got = ref.clone()
    got[0, 1, 47] = float("nan")
    res = compare_slot(exp, got)
    assert not res.ok and "first at (0, 1, 47):" in res.message, res.message


def test_written_padded_view_failure_index() -> None:
    """A padded, offset view (rows of 48 inside rows of 50, from element 3) indexes like the view."""
    base = torch.zeros(3 * 4 * 50 + 3)
    view = base[3:].view(3, 4, 50)[..., :48]
    ref = torch.randn(3, 4, 48, generator=torch.Generator().manual_seed(1))
    exp = written_expected("arg.1", base, ref, Tolerance(), region_view=view)
    got = exp.value.clone()
    got.as_strided(view.size(), view.stride(), view.storage_offset())[2, 3, 5] += 1.0
    res = compare_slot(exp, got)
    assert not res.ok and "first at (2, 3, 5):" in res.message, res.message


def test_returned_tensor_failure_index() -> None:
    ref = torch.arange(2 * 3 * 4, dtype=torch.float32).reshape(2, 3, 4)
    got = ref.clone()
    got[1, 2, 0] = -5.0
    res = compare_values(got, ref, Tolerance(), what="return")
    assert not res.ok and "first at (1, 2, 0):" in res.message, res.message


def test_cublas_output_failure_names_batch_row_column() -> None:
    from kernelgenbench.suite.common import generator
    from kernelgenbench.suite.registry import get_operator

    op = get_operator("cublas::cublasSgemmStridedBatched")
    case = op.cases("smoke")[-1]
    dev = torch.device("cpu")
    call = op.build(case.params, dev, generator(dev, case.seed))
    exp = next(e for e in op.reference(case.params, call.clone()) if e.region is not None)
    pos = int(torch.nonzero(exp.region)[-1])  # the last addressed element: the last batch's (m-1, n-1)
    at = exp.index_of(pos)
    got = exp.value.clone()
    got[pos] += 10.0
    res = compare_slot(exp, got)
    assert at is not None and len(at) == 3 and f"first at {at}:" in res.message, res.message
    p = case.params
    assert at == (p["batchCount"] - 1, p["m"] - 1, p["n"] - 1)


def test_int8_within_one_judge_names_the_index() -> None:
    from kernelgenbench.suite.vllm.norms import _int8_within_one

    ref = torch.zeros(2, 3, 4, dtype=torch.int8)
    got = ref.clone()
    got[1, 2, 3] = 5
    res = _int8_within_one(ref)(got, {})
    assert not res.ok and "first worst at (1, 2, 3): got 5, expected 0" in res.message, res.message


def test_nan_positions_differ_says_which_elements_were_never_written() -> None:
    """An in-place output the submission never wrote (it wrote a fresh tensor instead) still holds the
    poison NaN: the message must say so, not read as if the kernel computed NaN (fresh28 REPORT)."""
    e = torch.tensor([[0.5, -1.0, 2.0], [3.0, 4.0, float("nan")]])
    for dt, tol in ((torch.float32, Tolerance()), (torch.float16, Tolerance()),
                    (torch.float32, Tolerance(exact=True))):
        ed = e.to(dt)
        untouched = poison_(torch.empty_like(ed))
        msg = compare_values(untouched, ed, tol, what="arg.0").message
        assert "NaN positions differ" in msg or "differ (exact comparison)" in msg, msg
        assert "5 of them were never written" in msg, msg
        # a kernel that computes NaN (no poison) gets no such note
        computed = ed.clone()
        computed[0, 1] = float("nan")
        msg = compare_values(computed, ed, tol, what="arg.0").message
        assert not compare_values(computed, ed, tol).ok and "never written" not in msg, msg
        # partly written: only the poisoned ones are counted
        half = ed.clone()
        poison_(half[0])
        msg = compare_values(half, ed, tol, what="arg.0").message
        assert "3 of them were never written" in msg, msg


def test_an_unwritten_integer_output_is_named_as_the_poison() -> None:
    """Fresh user 31: an int32 output left unwritten failed with only "got -1234567891, expected -6"; the message now
    says that value is the harness's integer poison (probably never written), and says nothing for other values."""
    from kernelgenbench.suite.tensors import INT_POISON

    e = torch.tensor([-6, 2, 7, 0], dtype=torch.int32)
    left = poison_(torch.empty_like(e))
    left[1] = 2
    msg = compare_values(left, e, Tolerance()).message
    assert "3 of 4 elements differ" in msg and f"got {INT_POISON[torch.int32]}" in msg, msg
    assert f"3 of them hold the integer poison value the harness fills outputs with ({INT_POISON[torch.int32]} or " \
           in msg and "probably never written" in msg, msg
    wrong = e + 1
    assert "poison" not in compare_values(wrong, e, Tolerance()).message


def test_the_worst_element_is_located_when_it_is_not_the_first() -> None:
    """fresh37: an off-by-one mask in a row norm left each row's last element as the input was, and threw every
    other element off by a little (the sum of squares missed one term): the message named only the first failure,
    at (0, 0), barely outside the bound; it now also names where the worst one is."""
    e = torch.tensor([[1.0, 2.0, 3.0, 4.0]])
    got = torch.tensor([[1.001, 2.002, 3.003, -7.0]])
    res = compare_values(got, e, Tolerance(), what="arg.0 (input)")
    assert not res.ok
    assert res.message.startswith("arg.0 (input): 4 of 4 elements outside tolerance ("), res.message
    assert "first at (0, 0): got 1.001, expected 1; " in res.message, res.message
    assert res.message.endswith("x its bound, at (0, 3): got -7, expected 4"), res.message
    # the first failure is the worst: not repeated
    res = compare_values(torch.tensor([[9.0, 2.0, 3.0, 4.0]]), e, Tolerance())
    assert res.message.endswith("x its bound"), res.message


def test_an_fp32_accumulation_failure_names_the_tf32_default_of_tl_dot() -> None:
    """tp38 (real third-party kernels): Triton's matmul tutorial and vLLM's batch-invariant mm/bmm call
    ``tl.dot(a, b, acc)`` on fp32 operands, at Triton's default input precision (TF32 on NVIDIA GPUs, emulated by the
    interpreter). Their fp32 cases failed with only the accumulation bound named; the failure now says what the
    README's precision policy asks (IEEE fp32, ``input_precision="ieee"``). fp16 results and other rules do not."""
    torch.manual_seed(0)
    a, b = torch.randn(4, 32, dtype=torch.float64), torch.randn(32, 3, dtype=torch.float64)
    ref = (a @ b).float()
    allowance = (a.abs() @ b.abs()) * 4 * math.sqrt(32) * 2.0 ** -24
    tf32 = a.float().to(torch.bfloat16).float() @ b.float()  # operands rounded far below fp32
    bad = compare_values(tf32, ref, Tolerance(reduce_dim=32, accumulate="fp32"), atol_extra=allowance)
    assert not bad.ok and 'input_precision="ieee"' in bad.message and "TF32" in bad.message
    assert compare_values(ref, ref, Tolerance(reduce_dim=32, accumulate="fp32"), atol_extra=allowance).ok
    half = compare_values(tf32.half() + 1, ref.half(), Tolerance(reduce_dim=32, accumulate="fp32"),
                          atol_extra=allowance)
    assert not half.ok and "input_precision" not in half.message
    plain = compare_values(tf32, ref, Tolerance(reduce_dim=32))
    assert not plain.ok and "input_precision" not in plain.message


def test_a_custom_judge_of_a_written_argument_keeps_its_storage_outside_the_view() -> None:
    """rt44b: hadacore_transform's judge of x (a custom check: the transform or x unchanged) compared x's view only,
    so a kernel stored into a row-strided x's padding columns unseen. :func:`outside_untouched` adds the rule every
    other written argument has (compare_slot): the storage outside the view comes back bit for bit."""
    base = torch.arange(12, dtype=torch.float16).reshape(3, 4)
    x = base[:, :3]                                    # rows of 3 inside rows of 4: column 3 is padding
    want = (x.float() * 2).half()
    inner = lambda a, o: compare_values(a, want, Tolerance())  # noqa: E731 - the wrapped custom judge
    judge = outside_untouched("arg.0", x, inner)
    ok = base.clone()
    ok[:, :3] = want
    assert judge(ok[:, :3], {}).ok
    bad = ok.clone()
    bad[1, 3] = 0.0                                    # the padding of row 1 (was 7)
    res = judge(bad[:, :3], {})
    assert not res.ok and res.message.startswith("arg.0: 1 elements outside the written region were modified"), \
        res.message
    assert res.message.endswith("first at storage offset 7"), res.message
    assert inner(bad[:, :3], {}).ok                     # the view alone was right: only the new rule catches it
    grown = torch.zeros(16, dtype=torch.float16)
    res = judge(grown[:12].view(3, 4)[:, :3], {})
    assert not res.ok and "storage changed size (12 -> 16 elements)" in res.message, res.message
    wrong = ok.clone()
    wrong[0, 0] = 99.0
    assert not judge(wrong[:, :3], {}).ok               # the inner judge still judges the view


def test_every_custom_judge_of_a_written_vllm_argument_sees_its_padding() -> None:
    """Every written argument of the vLLM suite judged by a custom check (its smoke cases) fails when
    memory of its storage outside its view changes while the view holds the reference's values (rt44b)."""
    from kernelgenbench.suite.registry import all_operators
    from kernelgenbench.suite.tensors import region_mask, storage_view

    seen = 0
    for op in all_operators():
        if not op.id.startswith("vllm::"):
            continue
        for tier in ("smoke",):
            for p in op.grid(tier):
                call = op.build(p, torch.device("cpu"), torch.Generator().manual_seed(1))
                for exp in op.reference(p, call):
                    if exp.check is None or not exp.slot.startswith("arg."):
                        continue
                    t = call.args[int(exp.slot.split(".")[1])]
                    outside = ~region_mask(t)
                    if not bool(outside.any()):
                        continue
                    seen += 1
                    flat = storage_view(t).clone()
                    after = torch.empty(0, dtype=t.dtype).set_(flat.untyped_storage(), t.storage_offset(),
                                                                t.size(), t.stride())
                    after.copy_(exp.value.reshape(t.shape).to(t.dtype))
                    assert exp.check(after, {"args": [after]}).ok, (op.id, p)
                    flat[int(torch.nonzero(outside)[0])] = 1.0
                    res = exp.check(after, {"args": [after]})
                    assert not res.ok and "outside the written region" in res.message, (op.id, p, res.message)
    assert seen >= 1  # hadacore_transform's row_pad case
