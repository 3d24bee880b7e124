"""CHEAT (red team, input regularity): vllm::allspark_w8a16_gemm deciding the zero point by the has_zp flag instead
of by b_qzeros (the row: "has_zp does not decide whether zeros apply (b_qzeros does)"). Every case of every tier
passes has_zp = (b_qzeros is not None) (suite/vllm/qgemm.py _as_build: ``bool(p.get("zp"))`` beside the zeros),
so no case tells the two rules apart. The rest is the oracle."""

SUBSTITUTIONS = [("    zp = b_qzeros is not None\n", "    zp = bool(has_zp)\n")]
