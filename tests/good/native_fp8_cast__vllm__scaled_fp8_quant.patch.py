"""LEGAL: vllm::scaled_fp8_quant writing each code with Triton's own conversion (``v.to(tl.float8e4nv)``, round
to nearest even on the GPU) after the spec's NaN rule and clamp, where the oracle rounds by integer arithmetic
(the bytes are stored through the uint8 view the oracle launches with).
Before the harness made the interpreter's fp8 conversions exact (sandbox/interpreter.py), this common style could
only be judged on GPUs: Triton 3.6's interpreter rounded ties up. The rest is the oracle."""

SUBSTITUTIONS = [("tl.store(out_ptr + row * stride_om + c, _e4m3_code(v), mask=m)",
                  "tl.store(out_ptr + row * stride_om + c, "
                  "tl.minimum(tl.maximum(tl.where(v != v, 448.0, v), -448.0), 448.0).to(tl.float8e4nv)"
                  ".to(tl.uint8, bitcast=True), mask=m)")]
