"""Legal (fp30): the aten::neg oracle with a typed launch helper, ``def _go(kernel: triton.JITFunction, ...)``, and an
``isinstance(kernel, triton.runtime.JITFunction)`` check: L1 refused both once Triton's runtime classes joined
TORCH_PATH_RULES on branch next (a reference in an annotation or a type check reaches nothing). Must pass."""

SUBSTITUTIONS = [
    ("""def _run(x, out):
""", """def _checked(kernel: triton.JITFunction) -> bool:
    return isinstance(kernel, triton.runtime.JITFunction)


def _run(x, out):
"""),
    ("""    return _launch(x, out, _compute(x.dtype))
""", """    _checked(_contig_kernel)  # False under TRITON_INTERPRET=1 (an InterpretedFunction): only read, never asserted
    return _launch(x, out, _compute(x.dtype))
"""),
]
