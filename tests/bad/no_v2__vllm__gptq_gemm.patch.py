"""CHEAT (red team, smoke-grid gap): vllm::gptq_gemm that ignores use_v2_format and always adds 1 to the stored
zero (the v1 rule). No smoke or full-tier case passes use_v2_format=True (suite/vllm/qgemm.py: only the held-out
8-bit case does), so the smoke tier passes it. The rest is the oracle."""

SUBSTITUTIONS = [("0 if use_v2_format else 1,", "1,")]
