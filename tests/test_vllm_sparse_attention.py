"""vllm::convert_vertical_slash_indexes (vllm.md § convert_vertical_slash_indexes): the state machine on a case
worked by hand from the spec's steps, rows past q_seqlen, the vectorised reference against the one-row emulation,
and the grid."""
from __future__ import annotations

import pytest
import torch

from kernelgenbench.suite.registry import get_operator
from kernelgenbench.suite.vllm.sparse_attention import (
    vertical_slash_batched,
    vertical_slash_native,
    vertical_slash_row,
)

I32 = torch.int32


def test_hand_case_causal() -> None:
    # q = kv = 8, BM = BN = 4, vertical (1, 6), slash (2, 0).
    # row block 0 (rows 0-3): slash 2 -> range [0, 4); slash 0 -> s = 4, no change; verticals exhausted -> save:
    #   BO = [0]; column 1 lies inside the range, column 6 right of it: CI = [].
    # row block 1 (rows 4-7): slash 2 -> s = 6, range [2, 6); column 1 < 2 joins CI; slash 0 -> s = 8 > 6:
    #   re = 10; save clips at kv: BO = [2, 6], CI = [1].
    assert vertical_slash_row([1, 6], [2, 0], 0, 8, 8, 4, 4, True) == ([0], [])
    assert vertical_slash_row([1, 6], [2, 0], 4, 8, 8, 4, 4, True) == ([2, 6], [1])
    bc, bo, cc, ci = vertical_slash_native(torch.tensor([8], dtype=I32), torch.tensor([8], dtype=I32),
                                           torch.tensor([[[1, 6]]], dtype=I32), torch.tensor([[[2, 0]]], dtype=I32),
                                           8, 4, 4, True)
    assert bc.tolist() == [[[1, 2]]] and cc.tolist() == [[[0, 1]]]
    assert bo.tolist() == [[[[0, 0], [2, 6]]]] and ci.tolist() == [[[[0, 0], [1, 0]]]]
    assert bc.dtype == bo.dtype == cc.dtype == ci.dtype == I32


def test_no_slash_in_reach_and_rows_past_q() -> None:
    # q = 4 < context 8: row block 1 stays zero. Row block 0 (end 4, off = kv - q = 4): slash 9 >= 8 is skipped,
    # the last one (9) is still > 8, so there is no slash: range [off + end, off + end + BN) = [8, 12) starts at kv
    # and saves nothing; columns 2 and 7 (< 8) join CI, then the verticals run out.
    assert vertical_slash_row([2, 7], [9, 9], 0, 4, 8, 4, 4, True) == ([], [2, 7])
    # a slash equal to end + off still counts (s <= end + off): s = max(8 - 8, BM) = 4, range [0, 4)
    assert vertical_slash_row([2, 7], [9, 8], 0, 4, 8, 4, 4, True) == ([0], [])
    bc, bo, cc, ci = vertical_slash_native(torch.tensor([4], dtype=I32), torch.tensor([8], dtype=I32),
                                           torch.tensor([[[2, 7]]], dtype=I32), torch.tensor([[[9, 9]]], dtype=I32),
                                           8, 4, 4, True)
    assert bc.tolist() == [[[0, 0]]] and cc.tolist() == [[[2, 0]]] and ci.tolist() == [[[[2, 7], [0, 0]]]]
    assert not bool(bo.any())


def test_non_causal_keeps_a_last_vertical_below_kv() -> None:
    # not causal: off = kv = 8; slash 6 -> s = max(8 + 4 - 6, 4) = 6, range [2, 6); column 0 < 2 joins CI; column 7
    # is right of the range when the verticals and slashes run out: kept since 7 < kv (step 5.b.ii); BO = [2]
    assert vertical_slash_row([0, 7], [6], 0, 8, 8, 4, 4, False) == ([2], [0, 7])
    # causal: off = 0, slash 6 > end: no slash, range [4, 8); column 7 lies inside it; BO = [4], CI = [0]
    assert vertical_slash_row([0, 7], [6], 0, 8, 8, 4, 4, True) == ([4], [0])


@pytest.mark.parametrize("causal", [True, False])
def test_vectorised_reference_matches_the_row_emulation(causal: bool) -> None:
    g = torch.Generator().manual_seed(7)
    b, h, nv, ns, kv, bm, bn = 3, 2, 6, 5, 48, 8, 8
    vert = torch.randint(0, kv, (b, h, nv), generator=g).to(I32)
    slash = torch.randint(0, kv, (b, h, ns), generator=g).to(I32)
    qs = torch.tensor([40, 17, 1], dtype=I32)
    kvs = torch.tensor([48, 48, 30], dtype=I32)
    bc, bo, cc, ci = vertical_slash_native(qs, kvs, vert, slash, kv, bm, bn, causal)
    nr = kv // bm
    assert bc.shape == (b, h, nr) and bo.shape == (b, h, nr, ns) and ci.shape == (b, h, nr, nv)
    for bi in range(b):
        for hi in range(h):
            for m in range(nr):
                rbo, rci = vertical_slash_row(vert[bi, hi].tolist(), slash[bi, hi].tolist(), m * bm, int(qs[bi]),
                                              int(kvs[bi]), bm, bn, causal)
                assert int(bc[bi, hi, m]) == len(rbo) and bo[bi, hi, m, :len(rbo)].tolist() == rbo
                assert int(cc[bi, hi, m]) == len(rci) and ci[bi, hi, m, :len(rci)].tolist() == rci
                assert not bool(bo[bi, hi, m, len(rbo):].any()) and not bool(ci[bi, hi, m, len(rci):].any())
    assert int(bc.sum()) > 0 and int(cc.sum()) > 0


def test_overflow_is_refused() -> None:
    # with BN = 1 a slash range of BM = 4 columns is 4 blocks, more than NS = 3 (vLLM would spill into the next row)
    with pytest.raises(ValueError, match="more than NS = 3 blocks"):
        vertical_slash_native(torch.tensor([64], dtype=I32), torch.tensor([64], dtype=I32),
                              torch.tensor([[[63]]], dtype=I32), torch.tensor([[[60, 40, 20]]], dtype=I32),
                              64, 4, 1, True)


def test_grid() -> None:
    op = get_operator("vllm::convert_vertical_slash_indexes")
    full = op.grid("full")
    assert len(full) == 13 and sum(op.timed(p) for p in full) == 9
    call = op.build(full[3], torch.device("cpu"), torch.Generator().manual_seed(0))
    qs, kvs, vert, slash, ctx, bm, bn, causal = call.args
    assert vert.shape == slash.shape == (4, 16, 16) and ctx == 32 and causal is True
    assert int(vert.max()) < 32 and int(slash.min()) >= 0
    exp = op.reference(full[3], call)
    assert [e.slot for e in exp] == ["return.0", "return.1", "return.2", "return.3"]
    held = op.build(op.grid("heldout")[0], torch.device("cpu"), torch.Generator().manual_seed(0)).args
    assert bool((held[2].diff(dim=-1) > 0).all()) and bool((held[3].diff(dim=-1) < 0).all())


# ------------------------------------------------------------------ the vectorised baseline (vertical_slash_batched)

def _batched_is_reference(qs: list[int], kvs: list[int], vert: list, slash: list, ctx: int, bm: int, bn: int,
                          causal: bool) -> tuple[torch.Tensor, ...]:
    """vertical_slash_batched on these inputs: bit for bit the native reference's four outputs (dtype, shape,
    every element: the zero tails included) and, row block by row block, the one-row emulation's lists."""
    args = (torch.tensor(qs, dtype=I32), torch.tensor(kvs, dtype=I32), torch.tensor(vert, dtype=I32),
            torch.tensor(slash, dtype=I32), ctx, bm, bn, causal)
    want = vertical_slash_native(*args)
    got = vertical_slash_batched(*args)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape and torch.equal(g, w), (args, g, w)
    bc, bo, cc, ci = got
    for b, (q, kv) in enumerate(zip(qs, kvs)):
        for h in range(len(vert[b])):
            for m in range(bc.shape[2]):
                rbo, rci = vertical_slash_row(vert[b][h], slash[b][h], m * bm, q, kv, bm, bn, causal)
                assert int(bc[b, h, m]) == len(rbo) and bo[b, h, m, :len(rbo)].tolist() == rbo
                assert int(cc[b, h, m]) == len(rci) and ci[b, h, m, :len(rci)].tolist() == rci
    return got


def test_batched_hand_case_and_rows_past_q() -> None:
    bc, bo, cc, ci = _batched_is_reference([8], [8], [[[1, 6]]], [[[2, 0]]], 8, 4, 4, True)
    assert bc.tolist() == [[[1, 2]]] and bo.tolist() == [[[[0, 0], [2, 6]]]] and ci.tolist() == [[[[0, 0], [1, 0]]]]
    # q = 4 < context 8: row block 1 stays zero
    bc, bo, cc, ci = _batched_is_reference([4], [8], [[[2, 7]]], [[[9, 9]]], 8, 4, 4, True)
    assert bc.tolist() == [[[0, 0]]] and cc.tolist() == [[[2, 0]]] and ci.tolist() == [[[[2, 7], [0, 0]]]]
    _batched_is_reference([4], [8], [[[2, 7]]], [[[9, 8]]], 8, 4, 4, True)      # a slash equal to end + off


@pytest.mark.parametrize("causal", [True, False])
def test_batched_nothing_in_reach(causal: bool) -> None:
    # "empty" lists (NV, NS >= 1 by contract): no slash below end + off, every vertical at or right of kv
    _batched_is_reference([16], [16], [[[16, 17, 20]]], [[[40, 30, 20]]], 16, 4, 4, causal)
    # no slash in reach but columns left of kv: they all join CI (non-causal: the last one by step 5.b.ii)
    bc, bo, cc, ci = _batched_is_reference([16], [16], [[[0, 5, 9]]], [[[40, 30, 20]]], 16, 4, 4, causal)
    assert int(cc.sum()) > 0


@pytest.mark.parametrize("causal", [True, False])
def test_batched_all_verticals_covered(causal: bool) -> None:
    # q = kv = 16, BM = BN = 4, row block 3 (end 16): slash 0 -> s = 16, range [12, 16) when causal; the verticals
    # 12..15 lie inside it and never join CI
    bc, bo, cc, ci = _batched_is_reference([16], [16], [[[12, 13, 14, 15]]], [[[0, 1]]], 16, 4, 4, causal)
    if causal:
        assert int(cc[0, 0, 3]) == 0 and bo[0, 0, 3, :int(bc[0, 0, 3])].tolist() == [12]


@pytest.mark.parametrize("causal", [True, False])
def test_batched_ranges_touching_overlapping_and_apart(causal: bool) -> None:
    # q = kv = 64, BM = BN = 4; in the last row block (end 64, causal off 0) the slashes 44, 40, 42, 35, 20 give
    # s = 20: range [16, 20); 24 = re + BM: touching, re -> 24; 22 <= re: inside, nothing; 29 = re + BM + 1: apart,
    # save [16, 24), range [25, 29); 44: save [25, 29), range [40, 44); then save [40, 44) at the stop.
    # Columns: 3 joins CI, 18 is covered, 24 is taken under [25, 29) and joins CI, 26 is covered, 50 stops it.
    vert = [[[3, 18, 24, 26, 50, 63]]]
    bc, bo, cc, ci = _batched_is_reference([64], [64], vert, [[[44, 40, 42, 35, 20]]], 64, 4, 4, causal)
    if causal:
        assert bo[0, 0, 15, :int(bc[0, 0, 15])].tolist() == [16, 20, 25, 40]
        assert ci[0, 0, 15, :int(cc[0, 0, 15])].tolist() == [3, 24]
    # more (inert) slashes for the capacity: BN < BM (several blocks per range), BN > BM (ranges clipped at kv)
    sl = [[[44, 40, 42, 35, 20, 63, 63, 63, 63, 63]]]
    for bm, bn in [(4, 2), (8, 4), (8, 8), (4, 16)]:
        _batched_is_reference([64], [64], vert, sl, 64, bm, bn, causal)
    # slashes left of the row block stop the non-causal walk (5.b.i needs Ss[si] >= start)
    _batched_is_reference([64], [64], [[[3, 30, 62]]], [[[63, 10, 61, 2, 50]]], 64, 8, 8, causal)


def test_batched_non_causal_takes_a_slash_at_the_row_start() -> None:
    # not causal, q = kv = 1, BM = 1, BN = 4, unsorted verticals (1, 0), slashes (1, 0): row block 0 (end 1, off 1)
    # starts at [0, 1); column 1 is right of it, so slash 0 (= start: still taken, 5.b.i) gives s = 2, re = 2;
    # columns 1 and 0 are covered; BO = [0] (clipped at kv), CI = []. Were it not taken, 5.b.iii would open
    # [1, 5) and column 0 would join CI.
    bc, bo, cc, ci = _batched_is_reference([1], [1], [[[1, 0]]], [[[1, 0]]], 1, 1, 4, False)
    assert bc.tolist() == [[[1]]] and bo.tolist() == [[[[0, 0]]]] and cc.tolist() == [[[0]]]


@pytest.mark.parametrize("causal", [True, False])
def test_batched_context_shorter_than_a_block(causal: bool) -> None:
    _batched_is_reference([3], [3], [[[0, 2], [1, 1]]], [[[2, 0], [0, 0]]], 3, 4, 4, causal)
    _batched_is_reference([5, 2], [9, 6], [[[1, 4, 8]], [[0, 3, 5]]], [[[8, 3, 0]], [[2, 1, 0]]], 6, 8, 8, causal)
    # a context not a multiple of BM and a prefix (q < kv), per-batch lengths
    _batched_is_reference([7, 12], [20, 12], [[[1, 4, 8, 19]], [[0, 3, 5, 11]]], [[[8, 3, 0]], [[2, 11, 7]]], 13, 4,
                          4, causal)


def test_batched_matches_the_reference_on_random_inputs() -> None:
    """Small random cases of every kind the procedure defines (unsorted or sorted, repeated values, indexes
    beyond kv or negative, per-batch q <= kv, causal or not, BM != BN); cases where the reference refuses
    (capacity overflow, a procedure that does not stop) are skipped, and most are not."""
    g = torch.Generator().manual_seed(31)

    def ri(lo: int, hi: int) -> int:
        return int(torch.randint(lo, hi + 1, (1,), generator=g))
    checked = 0
    for _ in range(1500):
        b, h, nv, ns = ri(1, 3), ri(1, 3), ri(1, 8), ri(1, 8)
        bm, bn = [1, 2, 3, 4, 8][ri(0, 4)], [1, 2, 3, 4, 8][ri(0, 4)]
        kv, ctx, causal = ri(1, 40), ri(1, 48), bool(ri(0, 1))
        lo, hi = (-5 if ri(0, 4) == 0 else 0), kv + (10 if ri(0, 2) == 0 else 0)
        vert = torch.randint(lo, max(hi, lo + 1), (b, h, nv), generator=g)
        slash = torch.randint(lo, max(hi, lo + 1), (b, h, ns), generator=g)
        if ri(0, 1):
            vert, slash = vert.sort(-1).values, slash.sort(-1, descending=True).values
        kvs = torch.randint(1, kv + 1, (b,), generator=g) if ri(0, 2) == 0 else torch.full((b,), kv)
        qs = torch.minimum(torch.randint(1, kv + 1, (b,), generator=g), kvs)
        args = (qs.to(I32), kvs.to(I32), vert.to(I32), slash.to(I32), ctx, bm, bn, causal)
        try:
            want = vertical_slash_native(*args)
        except (ValueError, RuntimeError):
            continue
        got = vertical_slash_batched(*args)
        for x, y in zip(got, want):
            assert x.dtype == y.dtype and x.shape == y.shape and torch.equal(x, y), args
        checked += 1
    assert checked >= 800
