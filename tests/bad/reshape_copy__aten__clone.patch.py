"""Red team (issue 12 class 6, the same code, the same verdict): aten::clone (the project's oracle) whose
calls for a contiguous result of a non-contiguous input go through reshape's copy path
(``self.reshape(-1).view(self.shape)``) beside a launch of the oracle's kernel into a scratch buffer
nobody reads. Copies through PyTorch are the operator itself here (its row forbids them). On the Triton
interpreter the wrapper runs inside another dispatch mode's handler, where the composite ``reshape``
reached the trace whole and passed as a view (only the L2 replay caught this, as ``ghost``); on GPUs the
dispatcher decomposed it into ``aten::clone``, the op itself, and the same code failed as
``dispatch_recursion``. The trace now decomposes composite ops on every path: aten::clone ->
dispatch_recursion on both."""

SUBSTITUTIONS = [
    ("""def clone(self, *, memory_format=None):
    out = _new_like(self, self.dtype, memory_format)
    return _assign(out, self)
""", """def clone(self, *, memory_format=None):
    out = _new_like(self, self.dtype, memory_format)
    if out.is_contiguous() and not self.is_contiguous() and self.numel():
        _assign(out, self)  # a real launch, into a buffer nobody reads
        return self.reshape(-1).view(self.shape)
    return _assign(out, self)
"""),
]
