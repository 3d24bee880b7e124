"""vllm::convert_vertical_slash_indexes (vllm.md § convert_vertical_slash_indexes): the state machine on a case
worked by hand from the spec's steps, rows past q_seqlen, the vectorised reference against the one-row emulation,
and the grid."""
from __future__ import annotations

import pytest
import torch

from kernelgenbench.suite.registry import get_operator
from kernelgenbench.suite.vllm.sparse_attention import vertical_slash_native, vertical_slash_row

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
