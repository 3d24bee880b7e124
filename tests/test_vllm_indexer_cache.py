"""vllm::cp_gather_indexer_k_quant_cache (vllm.md § cp_gather_indexer_k_quant_cache): the cache layout packer, the
reference quantiser and the native gather on hand-computed bytes, and the grid."""
from __future__ import annotations

import pytest
import torch

from kernelgenbench.suite.registry import get_operator
from kernelgenbench.suite.vllm.indexer_cache import (
    entry_bytes,
    indexer_gather_native,
    indexer_quant,
    pack_indexer_cache,
)


def test_pack_places_keys_then_all_scales_of_the_block() -> None:
    nb, bs, d = 2, 2, 128
    keys = torch.arange(3 * d, dtype=torch.int64).remainder(251).to(torch.uint8).reshape(3, d)
    scales = torch.tensor([[1.0], [2.0], [-0.5]])
    # token 0 -> block 1 slot 0, token 1 -> block 0 slot 1, token 2 -> block 1 slot 1
    cache = pack_indexer_cache(keys, scales, nb, bs, torch.tensor([2, 1, 3]))
    assert cache.shape == (2, 2, entry_bytes(d)) == (2, 2, 132)
    flat = cache.reshape(2, -1)
    assert torch.equal(flat[1, 0:d], keys[0]) and torch.equal(flat[0, d:2 * d], keys[1])
    assert torch.equal(flat[1, d:2 * d], keys[2])
    # the scales start after both key rows: byte BS*D = 256, slot i at 256 + 4i
    assert flat[1, 256:260].view(torch.float32).item() == 1.0
    assert flat[0, 260:264].view(torch.float32).item() == 2.0
    assert flat[1, 260:264].view(torch.float32).item() == -0.5
    assert not bool(flat[0, 0:d].any()) and not bool(flat[0, 256:260].any())  # slot 0 of block 0 never written


def test_pack_rejects_a_bad_slot() -> None:
    with pytest.raises(ValueError, match="cp_gather_indexer_k_quant_cache: slot mapping out of range"):
        pack_indexer_cache(torch.zeros(1, 128, dtype=torch.uint8), torch.ones(1, 1), 1, 2, torch.tensor([2]))


def test_quantiser_round_trips_within_fp8_precision() -> None:
    k = torch.randn(4, 256, generator=torch.Generator().manual_seed(1))
    q, s = indexer_quant(k)
    assert q.dtype == torch.float8_e4m3fn and s.shape == (4, 2)
    assert torch.allclose(s[0, 0], k[0, :128].abs().max() / 448.0)
    back = (q.float().reshape(4, 2, 128) * s[..., None]).reshape(4, 256)
    assert (back - k).abs().max() <= 0.07 * k.abs().max()


def test_gather_hand_case_and_pack_round_trip() -> None:
    nb, bs, d = 3, 2, 128
    g = torch.Generator().manual_seed(0)
    keys = torch.randint(0, 256, (nb * bs, d), generator=g).to(torch.uint8)
    scales = torch.randn(nb * bs, 1, generator=g)
    # slot s holds token s; the gather must recover them in block-table order
    cache = pack_indexer_cache(keys, scales, nb, bs, torch.arange(nb * bs))
    table = torch.tensor([[2, 0], [1, 1]], dtype=torch.int32)
    cu = torch.tensor([0, 3, 5], dtype=torch.int32)
    dk = torch.zeros(5, d, dtype=torch.uint8)
    ds = torch.zeros(5, 4, dtype=torch.uint8)
    k, s = indexer_gather_native(cache, dk, ds, table, cu)
    # seq 0: i = 0, 1 -> block 2 slots 0, 1 (tokens 4, 5); i = 2 -> block 0 slot 0 (token 0)
    # seq 1: i = 0, 1 -> block 1 slots 0, 1 (tokens 2, 3)
    order = [4, 5, 0, 2, 3]
    assert torch.equal(k, keys[order])
    assert torch.equal(s.view(torch.float32), scales[order])


def test_gather_places_tokens_after_empty_sequences() -> None:
    """Sequences of length 0 repeat an entry of cu_seq_lens: token t belongs to the last sequence whose start is at
    or before t (the reference counts sequence ends; it no longer uses searchsorted, which Inductor miscompiled)."""
    nb, bs, d = 2, 2, 128
    keys = torch.arange(nb * bs * d, dtype=torch.int64).remainder(253).to(torch.uint8).reshape(nb * bs, d)
    cache = pack_indexer_cache(keys, torch.ones(nb * bs, 1), nb, bs, torch.arange(nb * bs))
    table = torch.tensor([[1, 0], [0, 0], [0, 1], [1, 1]], dtype=torch.int32)
    cu = torch.tensor([0, 2, 2, 2, 3], dtype=torch.int32)  # lengths 2, 0, 0, 1
    k, _ = indexer_gather_native(cache, torch.zeros(3, d, dtype=torch.uint8), torch.zeros(3, 4, dtype=torch.uint8),
                                 table, cu)
    # seq 0: block 1 slots 0, 1 (tokens 2, 3); seq 3: i = 0 -> block 1 slot 0 (token 2)
    assert torch.equal(k, keys[[2, 3, 2]])


def test_gather_rejects_an_uncovered_token() -> None:
    cache = torch.zeros(1, 2, 132, dtype=torch.uint8)
    with pytest.raises(ValueError, match="cu_seq_lens ends at 1, expected T = 2"):
        indexer_gather_native(cache, torch.zeros(2, 128, dtype=torch.uint8), torch.zeros(2, 4, dtype=torch.uint8),
                              torch.zeros(1, 1, dtype=torch.int32), torch.tensor([0, 1], dtype=torch.int32))


def test_grid_and_fp8_held_out_case() -> None:
    op = get_operator("vllm::cp_gather_indexer_k_quant_cache")
    full = op.grid("full")
    assert len(full) == 13 and sum(op.timed(p) for p in full) == 9
    assert full[0]["d"] == 4 * 64 and full[-1]["d"] == 8 * 256
    p = op.grid("heldout")[1]
    call = op.build(p, torch.device("cpu"), torch.Generator().manual_seed(0))
    cache, dk, ds, table, cu = call.args
    assert dk.dtype == torch.float8_e4m3fn and dk.shape == (62, 128) and ds.shape == (62, 4)
    ek, es = op.reference(p, call)
    # real fp8 data: keys dequantise to about unit-normal values with their gathered scales
    vals = ek.value.reshape(62, 128).float() * es.value.reshape(62, 4).view(torch.float32)
    assert 0.5 < float(vals.std()) < 2.0
