"""Oracle Triton solution for aten::bernoulli (spec: shared/spec/aten.md, section `aten::bernoulli`).

Wrappers: bernoulli, bernoulli_out, bernoulli_p, bernoulli_Tensor, bernoulli_Tensor_out,
bernoulli_float_out.

x = 1 if u < q else 0, with u a 24-bit uniform in [0, 1) from Philox-4x32-10 (Triton's `tl.philox`)
and q read in fp32 (from self, the float p, or the p tensor broadcast to self's shape). q = 0 never
fires and q = 1 always does, so those entries are exact.

Random stream: Philox key = the generator's 64-bit seed; counter = (lane index, 0, offset lo,
offset hi), where the offset is the generator's Philox offset (CUDA generators: `get_offset()`,
advanced by 4 per call with `set_offset()`, so a second call on the same generator draws new
numbers and a re-seeded generator starts again at offset 0). A CPU generator (the Triton interpreter)
has no offset: a 62-bit key is drawn from it with a one-element `torch.randint`, which advances it.
With generator=None the device's default generator is used. One Philox call yields four uniforms,
used for four sub-blocks of a program (element = program*4*B + j*B + lane), so stores stay coalesced
and the stream does not depend on the launch configuration.

Layouts: contiguous tensors take the fast path; non-contiguous probabilities or a broadcast p tensor
are made contiguous first, and a non-contiguous out is filled through a contiguous buffer.
"""
import torch
import triton
import triton.language as tl

_M32 = (1 << 32) - 1


@triton.jit
def _u32(a):
    # an int32 argument carrying v - 2^31 (v in [0, 2^32)) back to the uint32 v
    return (a.to(tl.int64) + 2147483648).to(tl.uint32)


@triton.jit
def _u64(a):
    return (a.to(tl.int64) + 2147483648).to(tl.uint64)


@triton.jit
def _uniform(r):
    # top 24 bits -> [0, 1), exactly representable in fp32
    return (r >> 8).to(tl.float32) * 5.9604644775390625e-08


@triton.jit
def _sub_block(p_ptr, o_ptr, offs, n, ps, r, P_TENSOR: tl.constexpr):
    mask = offs < n
    if P_TENSOR:
        q = tl.load(p_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    else:
        q = ps
    x = tl.where(_uniform(r) < q, 1.0, 0.0)
    tl.store(o_ptr + offs, x.to(o_ptr.dtype.element_ty), mask=mask)


@triton.jit(do_not_specialize=["s_lo", "s_hi", "o_lo", "o_hi"])
def _bernoulli_kernel(p_ptr, o_ptr, n, ps, s_lo, s_hi, o_lo, o_hi,
                      P_TENSOR: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    lane = tl.arange(0, BLOCK)
    ctr = (pid * BLOCK + lane).to(tl.uint32)
    zero = ctr * 0
    seed = (_u64(s_hi) << 32) | _u64(s_lo)
    r0, r1, r2, r3 = tl.philox(seed, ctr, zero, zero + _u32(o_lo), zero + _u32(o_hi))
    base = pid * (4 * BLOCK) + lane
    _sub_block(p_ptr, o_ptr, base, n, ps, r0, P_TENSOR)
    _sub_block(p_ptr, o_ptr, base + BLOCK, n, ps, r1, P_TENSOR)
    _sub_block(p_ptr, o_ptr, base + 2 * BLOCK, n, ps, r2, P_TENSOR)
    _sub_block(p_ptr, o_ptr, base + 3 * BLOCK, n, ps, r3, P_TENSOR)


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
    """(sub-block size B, num_warps): a program covers 4*B elements."""
    if device.type == "cpu":  # Triton CPU interpreter: few, large programs
        return min(16384, max(16, _next_pow2(-(-n // 4)))), 4
    if n >= (1 << 22):
        return 1024, 8
    if n >= (1 << 16):
        return 256, 2
    return max(32, min(256, _next_pow2(-(-n // 4)))), 1


def _fill(out, probs, p_scalar, generator):
    """out[i] = Bernoulli(q_i); q from the tensor `probs` (out's shape) or the float `p_scalar`."""
    n = out.numel()
    if n == 0:
        return out
    if n >= (1 << 31):
        raise NotImplementedError("bernoulli: more than 2^31 elements")
    args = _philox_args(generator, out.device)
    dst = out if out.is_contiguous() else torch.empty(out.shape, dtype=out.dtype, device=out.device)
    if probs is not None and not probs.is_contiguous():
        probs = probs.contiguous()
    block, warps = _config(n, out.device)
    grid = (-(-n // (4 * block)),)
    _bernoulli_kernel[grid](probs if probs is not None else dst, dst, n, float(p_scalar), *args,
                            P_TENSOR=probs is not None, BLOCK=block, num_warps=warps)
    if dst is not out:
        out.copy_(dst)
    return out


def _prepare_out(out, shape):
    if tuple(out.shape) != tuple(shape):
        out.resize_(shape)
    return out


def _new_like(self):
    return torch.empty(self.shape, dtype=self.dtype, device=self.device)


# ----------------------------------------------------------------------------------------------
# wrappers


def bernoulli(self, *, generator=None):
    return _fill(_new_like(self), self, 0.0, generator)


def bernoulli_out(self, *, generator=None, out):
    return _fill(_prepare_out(out, self.shape), self, 0.0, generator)


def bernoulli_p(self, p, *, generator=None):
    return _fill(_new_like(self), None, p, generator)


def bernoulli_Tensor(self, p, *, generator=None):
    return _fill(_new_like(self), p.expand(self.shape), 0.0, generator)


def bernoulli_Tensor_out(self, p, *, generator=None, out):
    return _fill(_prepare_out(out, self.shape), p.expand(self.shape), 0.0, generator)


def bernoulli_float_out(self, p=0.5, *, generator=None, out):
    return _fill(_prepare_out(out, self.shape), None, p, generator)
