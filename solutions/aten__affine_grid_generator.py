"""Oracle Triton solution for aten::affine_grid_generator (spec: shared/spec/aten.md, section
`aten::affine_grid_generator`).

Wrappers: affine_grid_generator, affine_grid_generator_out.

For size [N, C, H, W] (theta (N, 2, 3)) the output is (N, H, W, 2); for [N, C, D, H, W] (theta
(N, 3, 4)) it is (N, D, H, W, 3). One kernel walks the spatial positions in flat order; each program
computes the base coordinates of BLOCK positions in fp32 (PyTorch's linspace(-1, 1, S): the first half
from -1 upward, the second from 1 downward; align_corners=False scales by (S - 1) / S; S == 1 gives 0),
takes the 3- or 4-term dot product with theta (gathered per batch entry, fp32) and stores the 2 or 3
coordinates of each position as one [BLOCK, 2|4] tile (contiguous rows), rounded once to the dtype.
"""
import torch
import triton
import triton.language as tl


@triton.jit
def _base_coord(i, S, ALIGN: tl.constexpr):
    """linspace(-1, 1, S)[i] (align_corners) or that times (S - 1) / S, in fp32; 0 when S == 1."""
    sf = S.to(tl.float32)
    denom = tl.maximum(sf - 1.0, 1.0)
    step = 2.0 / denom
    fi = i.to(tl.float32)
    v = tl.where(i < S // 2, -1.0 + step * fi, 1.0 - step * (sf - 1.0 - fi))
    if not ALIGN:
        v = v * (sf - 1.0) / sf
    return tl.where(S > 1, v, 0.0)


@triton.jit(do_not_specialize=["D", "H", "W"])  # a size of 1 must stay a tensor value (S.to in _base_coord)
def _affine_grid_kernel(theta_ptr, out_ptr, total, D, H, W,
                        st_n, st_i, st_k, so_n, so_d, so_h, so_w, so_c,
                        IS3D: tl.constexpr, ALIGN: tl.constexpr, NC: tl.constexpr, NC_P2: tl.constexpr,
                        BLOCK: tl.constexpr, USE_I64: tl.constexpr):
    pid = tl.program_id(0)
    if USE_I64:
        offs = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    else:
        offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < total
    w = offs % W
    t = offs // W
    h = t % H
    t = t // H
    d = t % D
    n = t // D
    x = _base_coord(w, W, ALIGN)
    y = _base_coord(h, H, ALIGN)
    c = tl.arange(0, NC_P2)
    cm = c < NC
    m2 = mask[:, None] & cm[None, :]
    th = theta_ptr + n[:, None] * st_n + c[None, :] * st_i
    t0 = tl.load(th, mask=m2, other=0.0).to(tl.float32)
    t1 = tl.load(th + st_k, mask=m2, other=0.0).to(tl.float32)
    t2 = tl.load(th + 2 * st_k, mask=m2, other=0.0).to(tl.float32)
    acc = x[:, None] * t0 + y[:, None] * t1
    if IS3D:
        z = _base_coord(d, D, ALIGN)
        t3 = tl.load(th + 3 * st_k, mask=m2, other=0.0).to(tl.float32)
        acc = acc + z[:, None] * t2 + t3
    else:
        acc = acc + t2
    optr = out_ptr + n * so_n + d * so_d + h * so_h + w * so_w
    tl.store(optr[:, None] + c[None, :] * so_c, acc.to(out_ptr.dtype.element_ty), mask=m2)


# ----------------------------------------------------------------------------------------------
# host helpers (metadata only)


def _cdiv(a, b):
    return -(-a // b)


def _next_pow2(n):
    return 1 if n <= 1 else 1 << (n - 1).bit_length()


def _check(theta, size):
    size = [int(s) for s in size]
    if len(size) == 4:
        if theta.dim() != 3 or tuple(theta.shape) != (size[0], 2, 3):
            raise RuntimeError("Expected a batch of 2D affine matrices of shape Nx2x3 for size %s. Got %s."
                               % (size, list(theta.shape)))
    elif len(size) == 5:
        if theta.dim() != 3 or tuple(theta.shape) != (size[0], 3, 4):
            raise RuntimeError("Expected a batch of 3D affine matrices of shape Nx3x4 for size %s. Got %s."
                               % (size, list(theta.shape)))
    else:
        raise RuntimeError("AffineGridGenerator needs 4d (spatial) or 5d (volumetric) inputs.")
    if not theta.dtype.is_floating_point:
        raise RuntimeError("affine_grid_generator: theta must be floating point, got %s" % theta.dtype)
    return size


def _out_shape(size):
    if len(size) == 4:
        return (size[0], size[2], size[3], 2)
    return (size[0], size[2], size[3], size[4], 3)


def _grid_into(theta, size, align, out):
    is3d = len(size) == 5
    N = size[0]
    D = size[2] if is3d else 1
    H, W = (size[3], size[4]) if is3d else (size[2], size[3])
    total = N * D * H * W
    if total == 0:
        return out
    if is3d:
        so_n, so_d, so_h, so_w, so_c = out.stride()
    else:
        so_n, so_h, so_w, so_c = out.stride()
        so_d = 0
    span = 1 + sum((s - 1) * abs(st) for s, st in zip(out.shape, out.stride()))
    use_i64 = max(total * 4, span) >= 2 ** 31 - 65536
    if out.device.type == "cpu":
        BLOCK = min(65536, max(16, _next_pow2(total)))
        warps = 4
    else:
        BLOCK = 512 if total >= (1 << 16) else max(32, min(512, _next_pow2(total)))
        warps = 4
    nc = 3 if is3d else 2
    _affine_grid_kernel[(_cdiv(total, BLOCK),)](
        theta, out, total, D, H, W, theta.stride(0), theta.stride(1), theta.stride(2),
        so_n, so_d, so_h, so_w, so_c,
        IS3D=is3d, ALIGN=bool(align), NC=nc, NC_P2=4 if is3d else 2, BLOCK=BLOCK, USE_I64=use_i64,
        num_warps=warps)
    return out


# ----------------------------------------------------------------------------------------------
# wrappers

def affine_grid_generator(theta, size, align_corners):
    size = _check(theta, size)
    out = torch.empty(_out_shape(size), dtype=theta.dtype, device=theta.device)
    return _grid_into(theta, size, align_corners, out)


def affine_grid_generator_out(theta, size, align_corners, *, out):
    size = _check(theta, size)
    shape = _out_shape(size)
    if tuple(out.shape) != shape:
        out.resize_(shape)
    _grid_into(theta, size, align_corners, out)
    return out
