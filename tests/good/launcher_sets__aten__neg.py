"""LEGAL (false-rejection hunt 43): aten::neg through a launcher object that keeps its bookkeeping on ``self``, as
caching launchers (FlagGems' ``LibEntry``, vLLM's and SGLang's kernel wrappers) do: ``self._compiled = set()`` and
``self._compiled.add(key)`` the first time a (dtype, block) key launches, ``self.block_sizes = [1024, 256, 4096]``
sorted in place with ``self.block_sizes.sort()``, ``self._launches = {}`` counted per key. L1 judged ``.add`` and
``.sort`` on an attribute as the tensor methods of those names (tensor-method): it proves names plain Python from
their bindings, not attributes; now an attribute of the file's own plain class whose every store in the file is a
plain container is one."""
import torch
import triton
import triton.language as tl


@triton.jit
def _neg_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(y_ptr + offs, -tl.load(x_ptr + offs, mask=mask), mask=mask)


class NegLauncher:
    def __init__(self):
        self._compiled = set()
        self._launches = {}
        self.block_sizes = [1024, 256, 4096]

    def pick_block(self, n):
        self.block_sizes.sort()
        for b in self.block_sizes:
            if n <= 4 * b:
                return b
        return self.block_sizes[-1]

    def __call__(self, x, out):
        n = out.numel()
        if n == 0:
            return out
        block = self.pick_block(n)
        key = (x.dtype, block)
        if key not in self._compiled:
            self._compiled.add(key)
        self._launches[key] = self._launches.get(key, 0) + 1
        _neg_kernel[(triton.cdiv(n, block),)](x, out, n, BLOCK=block)
        return out


_launcher = NegLauncher()


def neg(self):
    x = self.contiguous()
    return _launcher(x, torch.empty(self.shape, dtype=self.dtype, device=self.device))


def neg_out(self, *, out):
    res = neg(self)
    if tuple(out.shape) != tuple(res.shape):
        out.resize_(res.shape)
    out.copy_(res)
    return out
