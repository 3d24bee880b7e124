"""Legal (red-team round 2): the vllm::rms_norm oracle taking its square root from
``triton.language.extra.libdevice`` rather than ``tl.sqrt``. The interpreter maps the libdevice
functions that tl.math has; a libdevice failure would be the platform's, not the submission's. Must
pass. The rest is the oracle (solutions/vllm__rms_norm.py)."""

SUBSTITUTIONS = [
    ("import triton.language as tl\n",
     "import triton.language as tl\nfrom triton.language.extra import libdevice\n"),
    ("    return (1.0 / tl.sqrt(v)).to(tl.float32)\n",
     "    return (1.0 / libdevice.sqrt(v)).to(tl.float32)\n"),
]
