"""BAD (red-team regression): aten::add that computes the right values into the output it allocates,
then returns a fresh tensor on the ``meta`` device instead. A malformed output is the submission's
fault, not the platform's: the verifier must report ``wrong_result`` on the first case. The rest is
the oracle (solutions/aten__add.py)."""

SUBSTITUTIONS = [
    ("""\
    out = torch.empty(shape, dtype=common, device=device)
    return _run(a, a_val, b, b_val, common, shape, alpha, out)
""", """\
    out = torch.empty(shape, dtype=common, device=device)
    _run(a, a_val, b, b_val, common, shape, alpha, out)
    return torch.empty(shape, dtype=common, device="meta")
"""),
]
