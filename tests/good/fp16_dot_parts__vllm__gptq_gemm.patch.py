"""LEGAL (red team of the quantised GEMMs): vllm::gptq_gemm accumulating each BK-row part in fp16, as vLLM's exllama
kernel does for M <= 50 (half2 dot products of a part, then added up): ``tl.dot(a, q - z, out_dtype=tl.float16)``
per part, scaled and added into an fp32 accumulator. The row's tolerance allows fp16 rounding of every term. The
rest is the oracle."""

SUBSTITUTIONS = [("        part = tl.dot(a, d)\n", "        part = tl.dot(a, d, out_dtype=tl.float16).to(tl.float32)\n")]
