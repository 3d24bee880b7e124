"""GPU check of session 43's iq43 fix: the vLLM int8 quantisation cases the H100's full tier at 76a872c timed
eagerly ("torch.compile's result differs from the eager reference") must now get a ``native-compiled`` baseline
(Inductor with suite/vllm/common.py ``eager_numerics``), and static asymmetric scaled_int8_quant must compile.
Prints each case's label (``DEV=cpu`` runs it with Inductor's C++ backend)::

    PYTHONPATH=src .venv/bin/python bench/vllm_quant_baseline_check.py
"""
import os

import torch

from kernelgenbench.suite.common import generator
from kernelgenbench.suite.registry import get_operator
from kernelgenbench.suite.vllm import common as vc

vc.vllm_ops = lambda: None   # time against native-compiled even where vLLM imports
dev = torch.device(os.environ.get("DEV", "cuda"))
print(torch.__version__, vc.eager_numerics())
cases = [("vllm::rms_norm_dynamic_per_token_quant", dict(t=t, h=h, dtype="bf16", quant="int8", eps=1e-6, residual=r))
         for t, h in ((1024, 4096), (5333, 512)) for r in (False, True)]
cases += [("vllm::scaled_int8_quant", dict(shape=[1024, 4096], dtype="bf16", symmetric=False, provide_scale=False,
                                           provide_azp=a, scale=None, azp=None)) for a in (False, True)]
cases += [("vllm::scaled_int8_quant", dict(shape=[1024, 4096], dtype="bf16", symmetric=False, provide_scale=True,
                                           provide_azp=True, scale=0.1, azp=0))]
for op_id, p in cases:
    op = get_operator(op_id)
    call = op.build(p, dev, generator(dev, 7))
    print(op_id, p, "->", op.baseline(call, None)[1][:160], flush=True)
