"""Legal (fp30): the aten::neg oracle whose ``neg`` wrapper is a ``torch.nn.Module`` instance (``neg = _Neg()``,
``forward`` doing the work), a style of real kernel libraries. Its class defines ``__getattr__`` only through
``torch.nn.Module``; wrapper_signature (sandbox/dispatch.py) refused it as a class defining ``__getattr__`` on branch
next, where it had passed before. It is read as ``nn.Module.__call__`` (``*args, **kwargs``) and must pass."""

SUBSTITUTIONS = [
    ("""def neg(self):
    return _run(self, torch.empty(self.shape, dtype=self.dtype, device=self.device))
""", """class _Neg(torch.nn.Module):
    def forward(self, x):
        return _run(x, torch.empty(x.shape, dtype=x.dtype, device=x.device))


neg = _Neg()
"""),
]
