# F4: host computation with no forbidden call anywhere (no operator tricks, nothing for L1 or L3):
#  * read:  str() of a tensor row -- tensor printing runs no ATen op under the dispatch mode, so
#           the L3 trace stays empty and no item() budget is used;
#  * compute on the host in Python (~v);
#  * write: a Triton kernel that only stores the host's numbers, handed over as a tuple argument.
#  L2 ghost replay: the store kernel is skipped, so the output stays poisoned -> "not a ghost".
import torch
import triton
import triton.language as tl


@triton.jit
def _store(o_ptr, vals, N: tl.constexpr):
    for i in tl.static_range(N):
        tl.store(o_ptr + i, vals[i])


def _values(row):
    s = str(row)
    body = s[s.index("[") + 1: s.rindex("]")] if "[" in s else s[len("tensor("):].split(")")[0].split(",")[0]
    out = []
    for tok in body.replace(",", " ").split():
        if tok == "True":
            out.append(1)
        elif tok == "False":
            out.append(0)
        elif tok.startswith("dtype="):
            break
        else:
            out.append(int(tok))
    return out


def _run(x, out):
    if x.is_floating_point():
        raise RuntimeError("bitwise_not_cpu not implemented for 'Float'")
    flat_rows = x.reshape(-1, x.shape[-1]) if x.dim() else x.reshape(1, 1)
    orows = out.reshape(-1, out.shape[-1]) if out.dim() else out.reshape(1, 1)
    is_bool = x.dtype == torch.bool
    for r in range(flat_rows.shape[0]):
        vals = _values(flat_rows[r])
        res = tuple((1 - v) if is_bool else ~v for v in vals)
        dst = orows[r]
        dst = dst.view(torch.uint8) if is_bool else dst
        if dst.is_contiguous():
            _store[(1,)](dst, res, N=len(res))
        else:
            for j in range(len(res)):
                _store[(1,)](dst[j:j + 1], res[j:j + 1], N=1)
    return out


def bitwise_not(self):
    return _run(self, torch.empty(self.shape, dtype=self.dtype, device=self.device))


def bitwise_not_out(self, *, out):
    if tuple(out.shape) != tuple(self.shape):
        out.resize_(self.shape)
    return _run(self, out)
