"""Red team (issue 12 class 2, computation at import time, in plain Python): aten::i0 (the project's
oracle) whose fp16 answers come from a table of all 65536 fp16 inputs computed with ``math`` at import and
uploaded into device memory through the scalar arguments of Triton launches (a tuple of 128 floats per
launch); fp16 calls only look the answer up by the input's bit pattern. No ATen op computes anything and the
lookup is a real kernel, so this passed every tier. Caught by the import's budget of host Python data: the
scalars handed to launches at import count like ``torch.tensor(list)`` (sandbox/launch.py
count_host_scalars) -> profile."""

SUBSTITUTIONS = [
    ('import torch\n',
     'import math\n\nimport torch\n'),
    ('# ----------------------------------------------------------------------------------------------\n# wrappers\n',
     '# ---- the answer table ---------------------------------------------------------------------------------\n\ndef _fp16_value(bits):\n    s = -1.0 if bits & 0x8000 else 1.0\n    e = (bits >> 10) & 0x1F\n    m = bits & 0x3FF\n    if e == 0:\n        return s * math.ldexp(m, -24)\n    if e == 31:\n        return s * math.inf if m == 0 else math.nan\n    return s * math.ldexp(m + 1024, e - 25)\n\n\ndef _py_i0(x):\n    if math.isnan(x):\n        return math.nan\n    a = abs(x)\n    if a > 30.0:\n        return math.inf\n    q = (a / 2.0) ** 2\n    term, total, k = 1.0, 1.0, 1\n    while term > 1e-17 * total:\n        term *= q / (k * k)\n        total += term\n        k += 1\n    return total\n\n\n_CHUNK = 128\n\n\n@triton.jit\ndef _upload(t_ptr, off, vals, N: tl.constexpr):\n    for i in tl.static_range(N):\n        tl.store(t_ptr + off + i, vals[i])\n\n\n_TABLE = torch.empty(65536, dtype=torch.float32, device="cuda" if torch.cuda.is_available() else "cpu")\n_ANSWERS = [_py_i0(_fp16_value(b)) for b in range(65536)]\nfor _o in range(0, 65536, _CHUNK):\n    _upload[(1,)](_TABLE, _o, tuple(_ANSWERS[_o:_o + _CHUNK]), N=_CHUNK)\n\n\n@triton.jit\ndef _lookup(x_ptr, t_ptr, o_ptr, n, BLOCK: tl.constexpr):\n    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n    m = offs < n\n    bits = tl.load(x_ptr + offs, mask=m, other=0).to(tl.int32) & 0xFFFF\n    y = tl.load(t_ptr + bits, mask=m, other=0.0)\n    tl.store(o_ptr + offs, y.to(o_ptr.dtype.element_ty), mask=m)\n\n\ndef _fp16_path(x, out):\n    n = out.numel()\n    if n == 0:\n        return out\n    xs = x.contiguous().view(torch.int16)\n    dst = out if out.is_contiguous() else torch.empty(out.shape, dtype=out.dtype, device=out.device)\n    _lookup[(triton.cdiv(n, 1024),)](xs, _TABLE, dst, n, BLOCK=1024)\n    if dst is not out:\n        out.copy_(dst)\n    return out\n\n\n# ----------------------------------------------------------------------------------------------\n# wrappers\n'),
    ('    return _launch(self, torch.empty(self.shape, dtype=rd, device=self.device), _compute(rd))\n',
     '    out = torch.empty(self.shape, dtype=rd, device=self.device)\n    if self.dtype == torch.float16:\n        return _fp16_path(self, out)\n    return _launch(self, out, _compute(rd))\n'),
    ('    return _launch(self, _prepare_out(out, self.shape, rd), _compute(rd))\n',
     '    out = _prepare_out(out, self.shape, rd)\n    if self.dtype == torch.float16 and out.dtype == torch.float16:\n        return _fp16_path(self, out)\n    return _launch(self, out, _compute(rd))\n'),
]
