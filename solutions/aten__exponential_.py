"""Oracle Triton solution for aten::exponential_ (spec: shared/spec/aten.md, section `aten::exponential_`).

Wrappers: exponential_.

In place: self[i] = -log(v) / lambd with v = 1 - u in (0, 1], u a 24-bit uniform in [0, 1) from
Philox-4x32-10 (`tl.philox`), computed in fp32. As PyTorch's CUDA kernel does, log(v) is replaced by
-eps(dtype)/2 when it is closer to 0 than that, and the result is kept above the dtype's smallest
positive value, so no sample rounds to 0 in fp16/bf16 (every sample is strictly positive).

Random stream: Philox key = the generator's 64-bit seed; counter = (lane index, 0, offset lo,
offset hi), the offset being the generator's Philox offset (CUDA: `get_offset()`, advanced by 4
per call with `set_offset()`). A CPU generator (the interpreter) has no offset: a 62-bit key is
drawn from it with a one-element `torch.randint`. generator=None uses the device's default
generator (upstream calls `x.exponential_()`). One Philox call gives four uniforms, for four
sub-blocks of a program.

A non-contiguous self is filled through a contiguous buffer and copied back into the view (the
elements outside the view are not touched).
"""
import torch
import triton
import triton.language as tl

_M32 = (1 << 32) - 1


@triton.jit
def _u32(a):
    return (a.to(tl.int64) + 2147483648).to(tl.uint32)


@triton.jit
def _u64(a):
    return (a.to(tl.int64) + 2147483648).to(tl.uint64)


@triton.jit
def _store_exp(o_ptr, offs, n, r, inv_lambd, HALF_EPS: tl.constexpr, TINY: tl.constexpr):
    u = (r >> 8).to(tl.float32) * 5.9604644775390625e-08  # [0, 1)
    lg = tl.log(1.0 - u)  # 1 - u in (0, 1]: exact in fp32
    lg = tl.minimum(lg, -HALF_EPS)
    y = tl.maximum(-lg * inv_lambd, TINY)
    tl.store(o_ptr + offs, y.to(o_ptr.dtype.element_ty), mask=offs < n)


@triton.jit(do_not_specialize=["s_lo", "s_hi", "o_lo", "o_hi"])
def _exponential_kernel(o_ptr, n, inv_lambd, s_lo, s_hi, o_lo, o_hi,
                        HALF_EPS: tl.constexpr, TINY: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    lane = tl.arange(0, BLOCK)
    ctr = (pid * BLOCK + lane).to(tl.uint32)
    zero = ctr * 0
    seed = (_u64(s_hi) << 32) | _u64(s_lo)
    r0, r1, r2, r3 = tl.philox(seed, ctr, zero, zero + _u32(o_lo), zero + _u32(o_hi))
    base = pid * (4 * BLOCK) + lane
    _store_exp(o_ptr, base, n, r0, inv_lambd, HALF_EPS, TINY)
    _store_exp(o_ptr, base + BLOCK, n, r1, inv_lambd, HALF_EPS, TINY)
    _store_exp(o_ptr, base + 2 * BLOCK, n, r2, inv_lambd, HALF_EPS, TINY)
    _store_exp(o_ptr, base + 3 * BLOCK, n, r3, inv_lambd, HALF_EPS, TINY)


# ----------------------------------------------------------------------------------------------
# host helpers (metadata, allocation, generator state)

# per output dtype: eps/2 (PyTorch's guard) and the smallest positive value the result keeps
# (fp16: its smallest subnormal; fp32/bf16: fp32's smallest normal, safe under flush-to-zero)
_GUARD = {torch.float16: (2.0 ** -11, 2.0 ** -24), torch.bfloat16: (2.0 ** -8, 2.0 ** -126),
          torch.float32: (2.0 ** -24, 2.0 ** -126), torch.float64: (2.0 ** -24, 2.0 ** -126)}


def _i32(v):
    return (v & _M32) - (1 << 31)


def _philox_args(generator, device):
    """(seed lo, seed hi, offset lo, offset hi) as int32 kernel arguments; advances the generator."""
    gen = generator
    if gen is None:
        if device.type == "cuda":
            gen = torch.cuda.default_generators[device.index if device.index is not None
                                                else torch.cuda.current_device()]
        else:
            gen = torch.default_generator
    if gen.device.type == "cuda":
        seed = gen.initial_seed()
        off = gen.get_offset()
        gen.set_offset(off + 4)
    else:
        seed = int(torch.randint(0, 1 << 62, (1,), generator=gen, dtype=torch.int64).item())
        off = 0
    return _i32(seed), _i32(seed >> 32), _i32(off), _i32(off >> 32)


def _next_pow2(n):
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def _config(n, device):
    if device.type == "cpu":  # Triton CPU interpreter: few, large programs
        return min(16384, max(16, _next_pow2(-(-n // 4)))), 4
    if n >= (1 << 22):
        return 1024, 8
    if n >= (1 << 16):
        return 256, 2
    return max(32, min(256, _next_pow2(-(-n // 4)))), 1


# ----------------------------------------------------------------------------------------------
# wrapper


def exponential_(self, lambd=1.0, *, generator=None):
    lambd = float(lambd)
    if not lambd > 0.0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    n = self.numel()
    if n == 0:
        return self
    if n >= (1 << 31):
        raise NotImplementedError("exponential_: more than 2^31 elements")
    if self.dtype not in _GUARD:
        raise NotImplementedError(f"exponential_: dtype {self.dtype} is not supported by this solution")
    args = _philox_args(generator, self.device)
    dst = self if self.is_contiguous() else torch.empty(self.shape, dtype=self.dtype, device=self.device)
    half_eps, tiny = _GUARD[self.dtype]
    block, warps = _config(n, self.device)
    grid = (-(-n // (4 * block)),)
    _exponential_kernel[grid](dst, n, 1.0 / lambd, *args, HALF_EPS=half_eps, TINY=tiny, BLOCK=block,
                              num_warps=warps)
    if dst is not self:
        self.copy_(dst)
    return self
