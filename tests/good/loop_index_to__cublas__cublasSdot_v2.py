"""LEGAL (false-rejection hunt 35): cublas::cublasSdot_v2 as a persistent two-stage reduction: a frozen dataclass of
launch settings from an ``functools.lru_cache``d picker, each program walking its blocks (whole rounds with
``tl.range(0, rounds, num_stages=2)`` after a jit helper computed its slice, the tail with
``for blk in range(first, n_blocks, nprog)``) and widening the loop index with ``.to(tl.int64)`` (on a GPU the index
is an int32 tensor), partials reduced by a second kernel in a fixed order. Refused before as runtime_error on the
interpreter ("'int' object has no attribute 'to'": Triton's interpreter iterates Python ints, and a jit helper's call
reset tl.range); loop indices now carry ``.to``/``.dtype`` there (sandbox/interpreter.py ``LoopIndex``,
sandbox/launch.py ``device_call``)."""
import dataclasses
import functools

import torch
import triton
import triton.language as tl


@dataclasses.dataclass(frozen=True)
class DotConfig:
    block: int
    programs: int
    num_warps: int


@functools.lru_cache(maxsize=64)
def _config(n: int, on_cpu: bool) -> DotConfig:
    block = 256 if on_cpu else 2048
    programs = max(1, min(triton.cdiv(n, block), 4 if on_cpu else 264))
    return DotConfig(block=block, programs=programs, num_warps=4 if on_cpu else 8)


@triton.jit
def _program_slice(n_blocks):
    # this program's share of the blocks: (first, step, how many whole rounds)
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)
    return pid, nprog, n_blocks // nprog


@triton.jit
def _dot_partial_kernel(x_ptr, y_ptr, part_ptr, n, incx, incy, x0, y0, n_blocks, BLOCK: tl.constexpr):
    pid, nprog, rounds = _program_slice(n_blocks)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    # whole rounds with tl.range (after a jit helper ran), the tail with a plain range
    for r in tl.range(0, rounds, num_stages=2):
        i = (r.to(tl.int64) * nprog + pid) * BLOCK + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + x0 + i * incx, mask=i < n, other=0.0)
        y = tl.load(y_ptr + y0 + i * incy, mask=i < n, other=0.0)
        acc += x * y
    for blk in range(rounds * nprog + pid, n_blocks, nprog):
        i = blk.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
        m = i < n
        x = tl.load(x_ptr + x0 + i * incx, mask=m, other=0.0)
        y = tl.load(y_ptr + y0 + i * incy, mask=m, other=0.0)
        acc += x * y
    tl.store(part_ptr + pid, tl.sum(acc, axis=0))


@triton.jit
def _dot_final_kernel(part_ptr, out_ptr, n_parts, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    p = tl.load(part_ptr + offs, mask=offs < n_parts, other=0.0)
    tl.store(out_ptr, tl.sum(p, axis=0))


def _first(n, inc):
    return 0 if inc >= 0 else (1 - n) * inc


def cublasSdot_v2(n, x, incx, y, incy, result):
    cfg = _config(max(int(n), 0), result.device.type == "cpu")
    partials = torch.empty(cfg.programs, dtype=torch.float32, device=result.device)
    n_blocks = triton.cdiv(max(n, 0), cfg.block)
    _dot_partial_kernel[(cfg.programs,)](x, y, partials, max(n, 0), incx, incy, _first(n, incx), _first(n, incy),
                                        n_blocks, BLOCK=cfg.block, num_warps=cfg.num_warps)
    _dot_final_kernel[(1,)](partials, result, cfg.programs, BLOCK=triton.next_power_of_2(cfg.programs))
    return result
