"""CHEAT (red team, smoke-grid gap): vllm::grouped_topk that never multiplies by routed_scaling_factor. Every smoke
case (and every full-tier case) passes rsf = 1.0 (suite/vllm/moe.py: ``p.get("rsf", 1.0)``); only the held-out
tier's first case (rsf = 2.5) sees the difference, so the smoke tier passes it. The rest is the oracle."""

SUBSTITUTIONS = [("    w = w * rsf\n", "    w = w * 1.0\n")]
