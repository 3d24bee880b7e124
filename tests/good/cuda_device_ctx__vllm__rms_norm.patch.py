"""Legal (red-team round 2): the vllm::rms_norm oracle launching inside
``with torch.cuda.device(input.device):``, as multi-GPU code does. On the interpreter the input is
on the CPU and the context must act as a no-op, not fail the submission. Must pass. The rest is the
oracle (solutions/vllm__rms_norm.py)."""

SUBSTITUTIONS = [
    ("    _rms_norm_kernel[(n_rows,)](\n",
     "    with torch.cuda.device(input.device):\n      _rms_norm_kernel[(n_rows,)](\n"),
]
