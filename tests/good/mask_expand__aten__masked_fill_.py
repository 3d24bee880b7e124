"""LEGAL (red team 26, maskedfill_expand_contig): masked_fill_ materialising the broadcast mask with
mask.expand(self.shape).contiguous() before the kernel: the mask selects, it is not the moved data (Operator.selector_args),
so the copy is not the data-movement operator's work. It failed as profile (a copy along a non-trivial mapping)."""
import torch
import triton
import triton.language as tl


@triton.jit
def _value(v_ptr, vs, DT: tl.constexpr, MODE: tl.constexpr, VIA32: tl.constexpr):
    # MODE 0: the kernel argument vs; 1: the one element at v_ptr
    if MODE == 0:
        v = vs
    else:
        v = tl.load(v_ptr)
    if VIA32:
        v = v.to(tl.float32)
    return v.to(DT)


@triton.jit
def _fill_flat_kernel(x_ptr, m_ptr, v_ptr, vs, n, MODE: tl.constexpr, VIA32: tl.constexpr,
                      BLOCK: tl.constexpr, I64: tl.constexpr):
    if I64:
        offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    else:
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    inb = offs < n
    m = tl.load(m_ptr + offs, mask=inb, other=0) != 0
    x = tl.load(x_ptr + offs, mask=inb)
    v = _value(v_ptr, vs, x_ptr.dtype.element_ty, MODE, VIA32)
    tl.store(x_ptr + offs, tl.where(m, v, x), mask=inb)


@triton.jit
def _fill_nd_kernel(x_ptr, m_ptr, v_ptr, vs, n, q1, q2, q3, q4, xs0, xs1, xs2, xs3, xs4, ms0, ms1, ms2, ms3, ms4,
                    MODE: tl.constexpr, VIA32: tl.constexpr, ND: tl.constexpr, BLOCK: tl.constexpr,
                    I64: tl.constexpr):
    # up to five coalesced dims, right-aligned (dim 4 innermost)
    if I64:
        lin = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    else:
        lin = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    inb = lin < n
    if ND == 1:
        xo = lin * xs4
        mo = lin * ms4
    else:
        i = lin % q4
        rem = lin // q4
        xo = i * xs4
        mo = i * ms4
        if ND == 2:
            xo += rem * xs3
            mo += rem * ms3
        else:
            i = rem % q3
            rem = rem // q3
            xo += i * xs3
            mo += i * ms3
            if ND == 3:
                xo += rem * xs2
                mo += rem * ms2
            else:
                i = rem % q2
                rem = rem // q2
                xo += i * xs2
                mo += i * ms2
                if ND == 4:
                    xo += rem * xs1
                    mo += rem * ms1
                else:
                    i = rem % q1
                    rem = rem // q1
                    xo += i * xs1 + rem * xs0
                    mo += i * ms1 + rem * ms0
    m = tl.load(m_ptr + mo, mask=inb, other=0) != 0
    v = _value(v_ptr, vs, x_ptr.dtype.element_ty, MODE, VIA32)
    tl.store(x_ptr + xo, tl.broadcast_to(v, [BLOCK]), mask=inb & m)


# ---------------------------------------------------------------------------------------------- host side
_SMALL_FLOATS = (torch.float16, torch.bfloat16, torch.float32)


def _cdiv(a, b):
    return -(-a // b)


def _pow2(n):
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def _coalesce(sizes, strides):
    dims = []
    for d, sz in enumerate(sizes):
        if sz == 1:
            continue
        st = [s[d] for s in strides]
        if dims:
            psz, pst = dims[-1]
            if all(pst[k] == st[k] * sz for k in range(len(st))):
                dims[-1] = (psz * sz, st)
                continue
        dims.append((sz, st))
    return dims


def _span(t):
    if t.numel() == 0:
        return 0
    return 1 + sum((s - 1) * abs(st) for s, st in zip(t.shape, t.stride()))


def _fill(self, mask, vptr, vs, mode, via32):
    if mask.dtype not in (torch.bool, torch.uint8):
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype {mask.dtype}")
    m = mask.expand(self.shape).contiguous()  # broadcast operand materialised densely (common style)
    n = self.numel()
    if n == 0:
        return self
    dims = _coalesce(list(self.shape), [list(self.stride()), list(m.stride())])
    on_cpu = self.device.type == "cpu"
    i64 = max(n, _span(self)) >= 2 ** 31 - 65536
    if len(dims) <= 1 and (not dims or dims[0][1] == [1, 1]):
        block = min(65536 if on_cpu else 2048, _pow2(n))
        _fill_flat_kernel[(_cdiv(n, block),)](self, m, vptr, vs, n, MODE=mode, VIA32=via32, BLOCK=block, I64=i64,
                                              num_warps=8 if block >= 2048 else 4)
        return self
    if len(dims) > 5:
        raise NotImplementedError("masked_fill_: more than 5 non-coalescable dims")
    full = [(1, [0, 0])] * (5 - len(dims)) + dims
    q = [d[0] for d in full]
    xs = [d[1][0] for d in full]
    ms = [d[1][1] for d in full]
    block = min(65536 if on_cpu else 1024, _pow2(n))
    _fill_nd_kernel[(_cdiv(n, block),)](self, m, vptr, vs, n, q[1], q[2], q[3], q[4], xs[0], xs[1], xs[2], xs[3],
                                        xs[4], ms[0], ms[1], ms[2], ms[3], ms[4], MODE=mode, VIA32=via32,
                                        ND=max(1, len(dims)), BLOCK=block, I64=i64, num_warps=8)
    return self


def _fill_scalar(self, mask, value):
    dt = self.dtype
    if isinstance(value, bool) or (isinstance(value, int) and not dt.is_complex):
        if isinstance(value, bool) or dt == torch.bool or -2 ** 63 <= value < 2 ** 63:
            return _fill(self, mask, self, int(value), 0, dt in (torch.float16, torch.bfloat16))
    if isinstance(value, float) and dt in _SMALL_FLOATS:
        return _fill(self, mask, self, value, 0, False)
    if isinstance(value, (int, float)) and not dt.is_complex:
        holder = torch.full((1,), float(value), dtype=torch.float64, device=self.device)
        return _fill(self, mask, holder, 0, 1, dt in (torch.float16, torch.bfloat16))
    raise NotImplementedError(f"masked_fill_: value {type(value).__name__} into {dt}")


# ---------------------------------------------------------------------------------------------- wrappers
def masked_fill__Scalar(self, mask, value):
    return _fill_scalar(self, mask, value)


def masked_fill__Tensor(self, mask, value):
    if value.dim() != 0:
        raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value.dim()} dimension(s).")
    if value.device != self.device:
        return _fill_scalar(self, mask, value.item())
    via32 = self.dtype in (torch.float16, torch.bfloat16)
    return _fill(self, mask, value, 0, 1, via32)
