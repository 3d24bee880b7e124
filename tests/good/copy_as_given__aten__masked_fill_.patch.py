"""Legal (issue 12 class 1, the honest side of the data-movement copy rule): aten::masked_fill_ (the
project's oracle) that fills a non-contiguous ``self`` (the smoke tier's transposed case) by making a dense
copy of it as given (``self.contiguous()``), filling that with the Triton kernel (the mask passed as a view)
and copying the dense result back into ``self`` as given (``self.copy_(work)``). Each copy maps a call
tensor exactly as given to or from a whole fresh buffer of the call, element for element: no element
moves to where the operator would move it, so the copies do none of its work."""

SUBSTITUTIONS = [
    ("""def masked_fill__Scalar(self, mask, value):
    return _fill_scalar(self, mask, value)
""", """def masked_fill__Scalar(self, mask, value):
    if self.is_contiguous():
        return _fill_scalar(self, mask, value)
    work = self.contiguous()
    _fill_scalar(work, mask, value)
    self.copy_(work)
    return self
"""),
]
