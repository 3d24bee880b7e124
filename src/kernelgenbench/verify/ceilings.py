"""Device ceilings for % of speed-of-light, measured once per run per device (METHOD.md "Two
numbers first"): copy bandwidth and matrix-unit rates in fp32 (no TF32), fp16, fp64, int8 and fp8."""
from __future__ import annotations

import functools
from typing import Any

import torch


def _time_ms(fn, reps: int = 10) -> float:
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(reps):
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    times.sort()
    return times[len(times) // 2]


def _low_precision_rates(device: torch.device, size: int = 8192) -> dict[str, float]:
    """``int8_tflops`` and ``fp8_tflops`` of :func:`measure` (each left out where it raises: unsupported)."""
    rates: dict[str, float] = {}
    a = torch.randint(-128, 128, (size, size), device=device, dtype=torch.int8)
    b = torch.randint(-128, 128, (size, size), device=device, dtype=torch.int8)
    # both layouts of b, the faster counts: cuBLASLt's int8 kernels want b column-major (TN), and row-major b ran
    # 10x below the fp8 rate on H100 and H200 (127 against 1320-1430 TOPS), which put int8 GEMMs at 612% of SOL
    for rhs in (b.t().contiguous().t(), b):
        try:
            ms = _time_ms(functools.partial(torch._int_mm, a, rhs))
        except (RuntimeError, AttributeError):
            continue
        rate = round(2 * size ** 3 / (ms * 1e-3) / 1e12, 2)
        rates["int8_tflops"] = max(rate, rates.get("int8_tflops", 0.0))
    del a, b
    try:
        a8 = torch.randn(size, size, device=device).to(torch.float8_e4m3fn)
        b8 = torch.randn(size, size, device=device).to(torch.float8_e4m3fn).t()  # column-major, as it must be
        one = torch.ones((), device=device)
        ms = _time_ms(functools.partial(torch._scaled_mm, a8, b8, scale_a=one, scale_b=one,
                                        out_dtype=torch.bfloat16))
        rates["fp8_tflops"] = round(2 * size ** 3 / (ms * 1e-3) / 1e12, 2)
        del a8, b8
    except (RuntimeError, AttributeError):
        pass
    return rates


def measure(device: torch.device) -> dict[str, Any]:
    """Measure the ceilings of ``device``.

    Returns:
        ``bandwidth_gbps`` (device-to-device copy, bytes read + written, GB/s), ``fp32_tflops``
        (8192³ fp32 GEMM with TF32 disabled), ``fp16_tflops`` (8192³ bf16 GEMM), ``fp64_tflops``
        (4096³ fp64 GEMM), ``int8_tflops`` (8192³ int8 x int8 -> int32 GEMM, ``torch._int_mm``, the faster of b
        column- and row-major; tera-ops),
        ``fp8_tflops`` (8192³ e4m3 x e4m3 -> bf16 GEMM, ``torch._scaled_mm`` with unit scales), all on random
        data, each the median of 10 timed runs. A rate the device or this PyTorch cannot measure (no fp8 matrix
        unit before sm_89) is left out: the % of SOL of work costed against it then uses the bandwidth floor only.
    """
    with torch.cuda.device(device):
        n = 1 << 30  # 1 GiB of fp32 per buffer
        src = torch.randn(n // 4, device=device)
        dst = torch.empty_like(src)
        ms = _time_ms(functools.partial(torch.Tensor.copy_, dst, src))
        bw = 2 * src.numel() * 4 / (ms * 1e-3) / 1e9
        del src, dst
        out: dict[str, Any] = {"bandwidth_gbps": round(bw, 1)}
        prev = torch.backends.cuda.matmul.allow_tf32
        torch.backends.cuda.matmul.allow_tf32 = False
        try:
            for key, dtype, size in (("fp32_tflops", torch.float32, 8192), ("fp16_tflops", torch.bfloat16, 8192),
                                     ("fp64_tflops", torch.float64, 4096)):
                a = torch.randn(size, size, device=device, dtype=dtype)
                b = torch.randn(size, size, device=device, dtype=dtype)
                ms = _time_ms(functools.partial(torch.matmul, a, b))
                out[key] = round(2 * size ** 3 / (ms * 1e-3) / 1e12, 2)
                del a, b
        finally:
            torch.backends.cuda.matmul.allow_tf32 = prev
        out.update(_low_precision_rates(device))
        torch.cuda.empty_cache()
        out["device"] = torch.cuda.get_device_name(device)
        return out
