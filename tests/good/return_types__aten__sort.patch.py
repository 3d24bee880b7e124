"""Legal (false-rejection hunt 28): the aten::sort oracle returning ``torch.return_types.sort((values,
indices))`` (functional and out forms), the very class ATen's sort returns. L1 flagged the call as
torch-compute (not on the allowlist) and, the class being named ``sort``, as dispatch-recursion, although
building one only packs the two tensors and the sandbox accepts return_types results (sandbox/dispatch.py
plain_result). Must pass. The rest is the oracle (solutions/aten__sort.py)."""

SUBSTITUTIONS = [
    ("""\
    _sort_into(self, dim, descending, values, indices)
    return values, indices
""", """\
    _sort_into(self, dim, descending, values, indices)
    return torch.return_types.sort((values, indices))  # LEGAL: ATen's own result class
""", 2),
]
