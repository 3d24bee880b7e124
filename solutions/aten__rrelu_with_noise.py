"""Oracle Triton solution for aten::rrelu_with_noise (spec: shared/spec/aten.md, section
`aten::rrelu_with_noise`).

Wrappers: rrelu_with_noise, rrelu_with_noise_out.

training=True: where x <= 0 (x == 0 included, as PyTorch does) r = lower + u * (upper - lower) with u
a 24-bit uniform from Philox-4x32-10 (`tl.philox`), out = x * r and noise = r; where x > 0, out = x
and noise = 1. training=False: leaky ReLU with slope (lower + upper) / 2, noise untouched. All
arithmetic in fp32, rounded once to the tensor dtype.

Random stream: Philox key = the generator's 64-bit seed; counter = (lane index, 0, offset lo,
offset hi), the offset being the generator's Philox offset (CUDA: `get_offset()`, advanced by 4
per call with `set_offset()`). A CPU generator (the interpreter) has no offset: a 62-bit key is
drawn from it with a one-element `torch.randint`. generator=None uses the device's default
generator. One Philox call gives four uniforms, for four sub-blocks of a program. The eval path
draws nothing and leaves the generator as it is.

Non-contiguous x is made contiguous; non-contiguous out or noise are written through contiguous
buffers and copied back into the views.
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
def _train_block(x_ptr, o_ptr, nz_ptr, offs, n, r, lower, span):
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    u = (r >> 8).to(tl.float32) * 5.9604644775390625e-08
    slope = lower + u * span
    neg = x <= 0.0
    tl.store(o_ptr + offs, tl.where(neg, x * slope, x).to(o_ptr.dtype.element_ty), mask=mask)
    tl.store(nz_ptr + offs, tl.where(neg, slope, 1.0).to(nz_ptr.dtype.element_ty), mask=mask)


@triton.jit(do_not_specialize=["s_lo", "s_hi", "o_lo", "o_hi"])
def _rrelu_train_kernel(x_ptr, o_ptr, nz_ptr, n, lower, span, s_lo, s_hi, o_lo, o_hi, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    lane = tl.arange(0, BLOCK)
    ctr = (pid * BLOCK + lane).to(tl.uint32)
    zero = ctr * 0
    seed = (_u64(s_hi) << 32) | _u64(s_lo)
    r0, r1, r2, r3 = tl.philox(seed, ctr, zero, zero + _u32(o_lo), zero + _u32(o_hi))
    base = pid * (4 * BLOCK) + lane
    _train_block(x_ptr, o_ptr, nz_ptr, base, n, r0, lower, span)
    _train_block(x_ptr, o_ptr, nz_ptr, base + BLOCK, n, r1, lower, span)
    _train_block(x_ptr, o_ptr, nz_ptr, base + 2 * BLOCK, n, r2, lower, span)
    _train_block(x_ptr, o_ptr, nz_ptr, base + 3 * BLOCK, n, r3, lower, span)


@triton.jit
def _rrelu_eval_kernel(x_ptr, o_ptr, n, slope, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(o_ptr + offs, tl.where(x > 0.0, x, x * slope).to(o_ptr.dtype.element_ty), mask=mask)


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


def _config(n, device, per_program):
    """(block, num_warps); a program covers per_program * block elements."""
    if device.type == "cpu":  # Triton CPU interpreter: few, large programs
        return min(65536 // per_program, max(16, _next_pow2(-(-n // per_program)))), 4
    if n >= (1 << 22):
        return 1024, 8
    if n >= (1 << 16):
        return 256 if per_program == 4 else 1024, 2 if per_program == 4 else 4
    return max(32, min(256, _next_pow2(-(-n // per_program)))), 1


def _dense(t):
    return t if t.is_contiguous() else torch.empty(t.shape, dtype=t.dtype, device=t.device)


def _rrelu(x, noise, lower, upper, training, generator, out):
    n = x.numel()
    if tuple(noise.shape) != tuple(x.shape):
        raise RuntimeError(f"rrelu_with_noise: noise of shape {tuple(noise.shape)} for input {tuple(x.shape)}")
    if n == 0:
        return out
    if n >= (1 << 31):
        raise NotImplementedError("rrelu_with_noise: more than 2^31 elements")
    lower, upper = float(lower), float(upper)
    src = x if x.is_contiguous() else x.contiguous()
    dst = _dense(out)
    if training:
        args = _philox_args(generator, x.device)
        nz = _dense(noise)
        block, warps = _config(n, x.device, 4)
        _rrelu_train_kernel[(-(-n // (4 * block)),)](src, dst, nz, n, lower, upper - lower, *args, BLOCK=block,
                                                     num_warps=warps)
        if nz is not noise:
            noise.copy_(nz)
    else:
        block, warps = _config(n, x.device, 1)
        _rrelu_eval_kernel[(-(-n // block),)](src, dst, n, (lower + upper) / 2.0, BLOCK=block, num_warps=warps)
    if dst is not out:
        out.copy_(dst)
    return out


# ----------------------------------------------------------------------------------------------
# wrappers


def rrelu_with_noise(self, noise, lower=0.125, upper=0.3333333333333333, training=False, generator=None):
    out = torch.empty(self.shape, dtype=self.dtype, device=self.device)
    return _rrelu(self, noise, lower, upper, training, generator, out)


def rrelu_with_noise_out(self, noise, lower=0.125, upper=0.3333333333333333, training=False, generator=None, *,
                         out):
    if tuple(out.shape) != tuple(self.shape):
        out.resize_(self.shape)
    return _rrelu(self, noise, lower, upper, training, generator, out)
