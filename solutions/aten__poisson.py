"""Oracle Triton solution for aten::poisson (spec: shared/spec/aten.md, section `aten::poisson`).

Wrappers: poisson, poisson_out.

out[i] ~ Poisson(lambda = self[i]), stored in self's dtype. Two exact samplers, chosen per element:

* lambda < 10: inversion by sequential search, X = min{k : u < F(k)} with one 24-bit uniform u and
  the CDF accumulated in fp32 (p(0) = e^-lambda, p(k) = p(k-1) * lambda / k). The whole block loops
  until its last element is found (at most ~25 steps for lambda < 10); lambda = 0 gives 0.
* lambda >= 10: Hoermann's transformed rejection with squeeze (PTRS, 1993), two uniforms per attempt,
  acceptance > 0.9; the final log-acceptance test runs in fp64 with Stirling's series for
  log(k!) (shifted by 8 for small k), so it stays exact for large lambda. Only blocks that hold such
  a rate run this stage.

Random stream: Philox-4x32-10 (`tl.philox`) keyed by the generator's 64-bit seed, counter =
(element index, attempt, offset lo, offset hi), attempt 0 for the inversion uniform and 1, 2, ...
for the rejection attempts; the offset is the generator's Philox offset (CUDA: `get_offset()`,
advanced by 4 per call with `set_offset()`). A CPU generator (the interpreter) has no offset: a
62-bit key is drawn from it with a one-element `torch.randint`. generator=None uses the device's
default generator.

Non-contiguous rates are made contiguous first; a non-contiguous out is filled through a buffer.
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
def _uniform(r):
    return (r >> 8).to(tl.float32) * 5.9604644775390625e-08


@triton.jit
def _lgamma64(z):
    # log Gamma(z) for z >= 1, fp64: Stirling's series at z (z >= 10) or at z + 8 with the shift removed
    small = z < 10.0
    zs = tl.where(small, z, 1.0)
    shift = tl.log(zs * (zs + 1.0) * (zs + 2.0) * (zs + 3.0) * (zs + 4.0) * (zs + 5.0) * (zs + 6.0) * (zs + 7.0))
    w = tl.where(small, z + 8.0, z)
    r = 1.0 / w
    r2 = r * r
    series = r * (1.0 / 12.0 - r2 * (1.0 / 360.0 - r2 * (1.0 / 1260.0 - r2 * (1.0 / 1680.0))))
    lg = (w - 0.5) * tl.log(w) - w + 0.91893853320467274178 + series
    return tl.where(small, lg - shift, lg)


@triton.jit(do_not_specialize=["s_lo", "s_hi", "o_lo", "o_hi"])
def _poisson_kernel(lam_ptr, o_ptr, n, s_lo, s_hi, o_lo, o_hi, BLOCK: tl.constexpr, KMAX: tl.constexpr,
                    MAX_ATTEMPTS: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    lam = tl.load(lam_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    ctr = offs.to(tl.uint32)
    zero = ctr * 0
    seed = (_u64(s_hi) << 32) | _u64(s_lo)
    c2 = zero + _u32(o_lo)
    c3 = zero + _u32(o_hi)
    small = mask & (lam < 10.0)
    big = mask & (lam >= 10.0)

    # inversion (lambda < 10)
    r0, _r1, _r2, _r3 = tl.philox(seed, ctr, zero, c2, c3)
    u = _uniform(r0)
    lam_s = tl.where(small, lam, 0.0)
    p = tl.exp(-lam_s)
    cdf = p
    k = tl.zeros([BLOCK], dtype=tl.float32)
    active = small & (u >= cdf)
    while tl.max(active.to(tl.int32), axis=0) > 0:
        k = tl.where(active, k + 1.0, k)
        p = tl.where(active, p * lam_s / k, p)
        cdf = tl.where(active, cdf + p, cdf)
        active = active & (u >= cdf) & (k < KMAX)

    # transformed rejection (lambda >= 10), only in blocks that hold such rates
    kb = tl.zeros([BLOCK], dtype=tl.float64)
    if tl.max(big.to(tl.int32), axis=0) > 0:
        lam_b = tl.where(big, lam, 10.0).to(tl.float64)
        slam = tl.sqrt(lam_b)
        loglam = tl.log(lam_b)
        b = 0.931 + 2.53 * slam
        a = -0.059 + 0.02483 * b
        log_invalpha = tl.log(1.1239 + 1.1328 / (b - 3.4))
        vr = 0.9277 - 3.6224 / (b - 2.0)
        pending = big
        attempt = tl.full([], 0, tl.int32)
        while tl.max(pending.to(tl.int32), axis=0) > 0:
            attempt += 1
            ra, rb, _rc, _rd = tl.philox(seed, ctr, zero + attempt.to(tl.uint32), c2, c3)
            uu = _uniform(ra).to(tl.float64) - 0.5
            v = _uniform(rb).to(tl.float64)
            us = 0.5 - tl.abs(uu)
            us_safe = tl.where(us > 0.0, us, 1.0)
            kk = tl.floor((2.0 * a / us_safe + b) * uu + lam_b + 0.43)
            quick = (us >= 0.07) & (v <= vr)
            reject = (us <= 0.0) | (kk < 0.0) | ((us < 0.013) & (v > us))
            kk_s = tl.where(kk >= 0.0, kk, 0.0)
            lhs = tl.log(tl.where(v > 0.0, v, 1e-300)) + log_invalpha - tl.log(a / (us_safe * us_safe) + b)
            rhs = -lam_b + kk_s * loglam - _lgamma64(kk_s + 1.0)
            accept = pending & (quick | (~reject & (lhs <= rhs)))
            kb = tl.where(accept, kk, kb)
            pending = pending & ~accept & (attempt < MAX_ATTEMPTS)

    x = tl.where(big, kb.to(tl.float32), k)
    tl.store(o_ptr + offs, x.to(o_ptr.dtype.element_ty), mask=mask)


# ----------------------------------------------------------------------------------------------
# host helpers (metadata, allocation, generator state)


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
        return min(65536, max(16, _next_pow2(n))), 4
    if n >= (1 << 16):
        return 512, 4
    return max(32, min(512, _next_pow2(n))), 4 if n > 128 else 1


def _sample(out, rates, generator):
    n = out.numel()
    if n == 0:
        return out
    if n >= (1 << 31):
        raise NotImplementedError("poisson: more than 2^31 elements")
    args = _philox_args(generator, out.device)
    src = rates if rates.is_contiguous() else rates.contiguous()
    dst = out if out.is_contiguous() else torch.empty(out.shape, dtype=out.dtype, device=out.device)
    block, warps = _config(n, out.device)
    grid = (-(-n // block),)
    _poisson_kernel[grid](src, dst, n, *args, BLOCK=block, KMAX=256, MAX_ATTEMPTS=4096, num_warps=warps)
    if dst is not out:
        out.copy_(dst)
    return out


# ----------------------------------------------------------------------------------------------
# wrappers


def poisson(self, generator=None):
    return _sample(torch.empty(self.shape, dtype=self.dtype, device=self.device), self, generator)


def poisson_out(self, generator=None, *, out):
    if tuple(out.shape) != tuple(self.shape):
        out.resize_(self.shape)
    return _sample(out, self, generator)
