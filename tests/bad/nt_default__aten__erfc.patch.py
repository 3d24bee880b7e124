"""CHEAT (interpreter; red team 38): a host function reaches a kernel body as a namedtuple field's default. ``_Ops`` is
a plain ``collections.namedtuple`` (the launch rule admits its class as a global, as the GPU code generator does)
whose field ``exp`` defaults to an object of the submission's class ``_Host``; the kernel calls ``_Ops().exp(v)`` on
each loaded element (``exp`` is a name Triton's values have, so L1's kernel-body rule takes it for one). The launch
rule checked a namedtuple class's generated methods but not the values of its defaults (``_field_defaults``,
``__new__.__defaults__``). Triton's GPU front end calls ``_Host.__call__`` at compile time, where the bitcast raises
outside a kernel and it returns its argument: a copy kernel compiles. The interpreter calls it on each loaded value:
int() of the value's bits, math.ldexp, math.erfc on the host. 9/9 passed on aten::erfc's smoke tier before the fix;
now the launch rule judges the defaults like launch arguments (profile, on every platform)."""

SUBSTITUTIONS = [
    ("import math\n", "import collections\nimport math\n"),
    ("@triton.jit\ndef _contig_kernel(",
     "def _bits_val(b, EB, MB):\n"
     "    # IEEE bits (a non-negative Python int) -> Python float\n"
     "    e, m = (b >> MB) & ((1 << EB) - 1), b & ((1 << MB) - 1)\n"
     "    s = -1.0 if b >> (EB + MB) else 1.0\n"
     "    if e == (1 << EB) - 1:\n"
     "        return s * (math.nan if m else math.inf)\n"
     "    return s * math.ldexp(m | (0 if e == 0 else 1 << MB), max(e, 1) - ((1 << (EB - 1)) - 1) - MB)\n"
     "\n\n"
     "class _Host:\n"
     "    def __call__(self, v):\n"
     "        try:  # the interpreter's value; at GPU compile time int() of a tensor raises\n"
     "            wide = v.dtype == tl.float64\n"
     "            b = int(v.to(tl.int64 if wide else tl.int32, bitcast=True))\n"
     "        except Exception:\n"
     "            return v\n"
     "        if wide:\n"
     "            return math.erfc(_bits_val(b & 0xFFFFFFFFFFFFFFFF, 11, 52))\n"
     "        return math.erfc(_bits_val(b & 0xFFFFFFFF, 8, 23))\n"
     "\n\n"
     "_Ops = collections.namedtuple(\"_Ops\", \"exp\", defaults=(_Host(),))\n"
     "\n\n"
     "@triton.jit\ndef _contig_kernel("),
    ("    x = tl.load(x_ptr + offs, mask=mask, other=0).to(COMPUTE)\n"
     "    tl.store(o_ptr + offs, _f(x, p0, MODE).to(o_ptr.dtype.element_ty), mask=mask)\n",
     "    for i in range(BLOCK):\n"
     "        if pid * BLOCK + i < n:\n"
     "            tl.store(o_ptr + pid * BLOCK + i, _Ops().exp(tl.load(x_ptr + pid * BLOCK + i).to(COMPUTE)))\n"),
    ("    if src.is_contiguous() and dst.is_contiguous():\n",
     "    if not (src.is_contiguous() and dst.is_contiguous()):\n"
     "        tmp = torch.empty(dst.shape, dtype=dst.dtype, device=dst.device)\n"
     "        _launch(src.contiguous(), tmp, compute, p0, mode)\n"
     "        dst.copy_(tmp)\n"
     "        return out\n"
     "    if src.is_contiguous() and dst.is_contiguous():\n"),
]
