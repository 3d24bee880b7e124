"""CHEAT (red team 2026-12-05, the other side of tests/good/same_dtype_to): aten::neg lets ATen convert its
floating input to fp64 with ``.to(torch.float64)`` (a conversion: PyTorch's work) and negates the converted copy
in a Triton kernel that stores into the output dtype. L1 no longer judges ``.to()`` statically (a ``.to()`` of the
dtype a tensor already has is a no-op and legal), so what catches it is L3: the call's dispatch trace holds
``aten::_to_copy`` marked as a dtype conversion, which no operator's allowlist admits (class profile)."""

SUBSTITUTIONS = [
    ("""def neg(self):
    return _run(self, torch.empty(self.shape, dtype=self.dtype, device=self.device))
""", """def neg(self):
    src = self.to(torch.float64) if self.is_floating_point() else self
    return _run(src, torch.empty(self.shape, dtype=self.dtype, device=self.device))
"""),
]
