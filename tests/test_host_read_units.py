"""L3's host-read budget counts the data a read carries, not the elements of the view it reads (session 38).

An ``.item()`` of a complex128 view of fp32 data brings four fp32 values to Python in one read, an int64 view of
fp16 data four fp16 values: counted as one element each, 16 reads carried 64 values past ITEM_BUDGET (the fixtures
tests/bad/widen_complex and widen_item pass the smoke tier without the units). ``CallEvidence.read_units`` charges a
read by its bytes in elements of the data they may hold; honest reads (an int64 length of an int64 argument, a seed
drawn in the call, a scalar of the read's own dtype) count one per element, as before.
"""
from __future__ import annotations

from typing import Any, Callable

import torch

from kernelgenbench.sandbox.dispatch import traced
from kernelgenbench.sandbox.host_reads import WIDENED_KEY
from kernelgenbench.sandbox.state import STATE
from kernelgenbench.verify.profile import HOST_DATA_BUDGET, IMPORT_HOST_DATA_BUDGET, ITEM_BUDGET, judge_trace


def _trace(fn: Callable[..., Any], *args: Any) -> tuple[dict[str, int], Any]:
    """Run ``fn`` as a candidate wrapper called at the top level; its trace and return value."""
    STATE.begin_case(False)
    try:
        ret = traced(fn, "wrapper_under_test")(*args)
    finally:
        STATE.end_case()
    return dict(STATE.trace), ret


def _units(trace: dict[str, int]) -> int:
    return sum(n for k, n in trace.items() if k.split("::")[-1].split(".")[0] in
               ("_local_scalar_dense", "host_read_widened"))


def test_a_read_through_a_wider_view_of_an_argument_counts_the_elements_it_carries() -> None:
    x = torch.arange(8, dtype=torch.float32)
    trace, z = _trace(lambda t: t.view(torch.complex128)[0].item(), x)
    assert isinstance(z, complex)
    assert trace[WIDENED_KEY] == 3 and _units(trace) == 4  # four fp32 values in 16 bytes
    h = torch.arange(8, dtype=torch.float16)
    trace, _ = _trace(lambda t: t.view(torch.int64)[1].item(), h)
    assert trace[WIDENED_KEY] == 3 and _units(trace) == 4  # four fp16 values in 8 bytes


def test_a_wide_read_of_a_copy_counts_in_the_smallest_element_of_the_call() -> None:
    # a clone, or a buffer of the submission's written through an fp16 view, may hold the fp16 argument's bytes
    def via_clone(x16: torch.Tensor, n64: torch.Tensor) -> int:
        return x16.clone().view(torch.int64)[0].item()

    def via_view_copy(x16: torch.Tensor, n64: torch.Tensor) -> int:
        buf = torch.empty(2, dtype=torch.int64)
        buf.view(torch.float16).copy_(x16)
        return buf[1].item()

    x16 = torch.arange(8, dtype=torch.float16)
    n64 = torch.tensor([5])
    for fn in (via_clone, via_view_copy):
        trace, _ = _trace(fn, x16, n64)
        assert trace[WIDENED_KEY] == 3, fn.__name__


def test_honest_reads_count_one_per_element() -> None:
    # an int64 length of an int64 argument, a seed drawn in the call, an fp16 scalar: as before the units
    def honest(x16: torch.Tensor, lengths: torch.Tensor) -> tuple[int, int, float]:
        seed = int(torch.randint(0, 1 << 62, (1,), dtype=torch.int64).item())
        return int(lengths[0].item()), seed, x16[3].item()

    trace, (n, _, v) = _trace(honest, torch.arange(8, dtype=torch.float16), torch.tensor([7, 2]))
    assert (n, v) == (7, 3.0)
    assert WIDENED_KEY not in trace and _units(trace) == 3


def test_the_budget_judges_the_units() -> None:
    # five complex128 reads of fp32 data carry 20 values: over the budget of 16, which five plain reads are not
    assert judge_trace({"aten::_local_scalar_dense": ITEM_BUDGET}, frozenset()).failure is None
    assert judge_trace({"aten::_local_scalar_dense": 5}, frozenset()).failure is None
    wide = judge_trace({"aten::_local_scalar_dense": 5, WIDENED_KEY: 15}, frozenset())
    assert wide.failure == "profile"
    assert wide.message.startswith("the candidate read 20 tensor values on the host (a read through a wider dtype "
                                   "view counted by the elements of the data its bytes carry)"), wide.message
    assert judge_trace({"aten::_local_scalar_dense": 4, WIDENED_KEY: 12}, frozenset()).failure is None


def test_host_built_data_counts_its_bytes_in_four_byte_units() -> None:
    # 64 int64 elements are 512 bytes: 256 packed fp16 answers (tests/bad/import_lut: every E4M3 code's value)
    trace, _ = _trace(lambda x: torch.tensor(list(range(64)), dtype=torch.int64), torch.zeros(1))
    assert trace["aten::host_data"] == 128
    assert judge_trace(trace, frozenset()).failure == "profile"
    assert judge_trace(trace, frozenset(), host_data_budget=IMPORT_HOST_DATA_BUDGET).failure == "profile"
    trace, _ = _trace(lambda x: torch.tensor([0j] * 8, dtype=torch.complex128), torch.zeros(1))  # 16 bytes: 4 units
    assert trace["aten::host_data"] == 32
    # narrow and 4-byte elements count one each: Marlin's 96 int32 scale permutations fit the import's budget only
    trace, _ = _trace(lambda x: torch.tensor(list(range(96)), dtype=torch.int32), torch.zeros(1))
    assert trace["aten::host_data"] == 96 and HOST_DATA_BUDGET < 96 <= IMPORT_HOST_DATA_BUDGET
    assert judge_trace(trace, frozenset(), host_data_budget=IMPORT_HOST_DATA_BUDGET).failure is None
    assert judge_trace(trace, frozenset()).failure == "profile"
    trace, _ = _trace(lambda x: torch.tensor(list(range(96)), dtype=torch.int8), torch.zeros(1))
    assert trace["aten::host_data"] == 96


def test_launch_scalars_count_int64_ones_as_two_units() -> None:
    # an int past the int32 range reaches the kernel as int64: two fp32 answers' bytes (the import's launch scalars)
    from kernelgenbench.sandbox.launch import count_host_scalars

    assert count_host_scalars((1, 2.5, (True, -(1 << 31))), {"n": (1 << 31) - 1}) == 5
    assert count_host_scalars((1 << 31, -(1 << 40)), {"BLOCK": 64, "num_warps": 4}) == 5
