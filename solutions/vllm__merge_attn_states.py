import torch
import triton
import triton.language as tl


@triton.jit
def _rne_bf16(v):
    bits = v.to(tl.uint32, bitcast=True)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    r = tl.where(v != v, v, bits.to(tl.float32, bitcast=True))
    return r.to(tl.bfloat16)


@triton.jit
def _merge_kernel(out_ptr, po_ptr, pl_ptr, so_ptr, sl_ptr, lse_ptr, T, H, D, o_hs, i_hs,
                  BLOCK_D: tl.constexpr, HAS_LSE: tl.constexpr, SOFT_BF16: tl.constexpr):
    t = tl.program_id(0).to(tl.int64)
    h = tl.program_id(1).to(tl.int64)
    p = tl.load(pl_ptr + h * T + t)
    s = tl.load(sl_ptr + h * T + t)
    ninf = float("-inf")
    p = tl.where((p == float("inf")) | (p == ninf), ninf, p)
    s = tl.where((s == float("inf")) | (s == ninf), ninf, s)
    # NaN-ignoring max
    m = tl.where(p != p, s, tl.where(s != s, p, tl.maximum(p, s)))
    both = (m == ninf)
    mm = tl.where(both, 0.0, m)
    pe = tl.exp(p - mm)
    se = tl.exp(s - mm)
    tot = pe + se
    pscale = tl.math.div_rn(pe, tot)
    sscale = tl.math.div_rn(se, tot)
    d = tl.arange(0, BLOCK_D)
    dm = d < D
    src = t * H * i_hs + h * i_hs + d
    po = tl.load(po_ptr + src, mask=dm, other=0.0).to(tl.float32)
    so = tl.load(so_ptr + src, mask=dm, other=0.0).to(tl.float32)
    res = tl.where(both, po, po * pscale + so * sscale)
    if SOFT_BF16:
        r = _rne_bf16(res)
    else:
        r = res.to(out_ptr.dtype.element_ty)
    tl.store(out_ptr + t * H * o_hs + h * o_hs + d, r, mask=dm)
    if HAS_LSE:
        tl.store(lse_ptr + h * T + t, tl.where(both, m, tl.log(tot) + mm))


def merge_attn_states(output, prefix_output, prefix_lse, suffix_output, suffix_lse, output_lse=None):
    T, H, D = output.shape
    if T == 0 or H == 0:
        return None
    soft = output.dtype == torch.bfloat16 and output.device.type == "cpu"
    has = output_lse is not None
    _merge_kernel[(T, H)](output, prefix_output, prefix_lse, suffix_output, suffix_lse,
                          output_lse if has else prefix_lse, T, H, D, output.stride(1), prefix_output.stride(1),
                          BLOCK_D=triton.next_power_of_2(D), HAS_LSE=has, SOFT_BF16=soft, num_warps=1)
    return None
