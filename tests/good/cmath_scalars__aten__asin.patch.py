"""Legal (issue 11, item 2.3): the aten::asin oracle with its JIT-only complex scalar overload written
with ``cmath``, as aten.md tells submissions to ("the scalar overloads ... follow Python
``math``/``cmath``"). L1 rejected ``import cmath`` as host-side numeric computation although it, like
``math``, computes on Python numbers only. Must pass. The rest is the oracle (solutions/aten__asin.py)."""

SUBSTITUTIONS = [
    ("import math\n", "import cmath\nimport math\n"),
    ("""\
    z = complex(a)
    s1 = _csqrt(1.0 - z)
    s2 = _csqrt(1.0 + z)
    re = math.atan2(z.real, s1.real * s2.real - s1.imag * s2.imag)
    im = math.asinh(s1.real * s2.imag - s1.imag * s2.real)
    return complex(re, im)
""", """\
    return cmath.asin(complex(a))  # LEGAL: cmath for the complex scalar overload
"""),
]
