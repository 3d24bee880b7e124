"""Legal: the aten::embedding oracle that widens an int32 index operand to int64 before its launch
(``indices.long()``), the most common wrapper idiom for index operands. The widening changes no value and
computes nothing of the result (the rows are gathered by the Triton kernel); L3 marked it a dtype conversion
and failed the job as profile (false-rejection hunt 29). A conversion of the operator's data stays a finding
(tests/bad fp16_operands, fill_convert)."""

SUBSTITUTIONS = [
    ("    idx = indices.view(1) if indices.dim() == 0 else indices\n",
     "    if indices.dtype == torch.int32:\n"
     "        indices = indices.long()\n"
     "    idx = indices.view(1) if indices.dim() == 0 else indices\n"),
]
