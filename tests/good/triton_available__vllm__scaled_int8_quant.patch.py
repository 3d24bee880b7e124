"""LEGAL (tp44): vllm::scaled_int8_quant behind bitsandbytes' guard (bitsandbytes/triton/triton_utils.py and its
kernel modules): ``import importlib``, ``def is_triton_available(): return importlib.util.find_spec("triton") is not
None``, and ``if not is_triton_available():`` binding a wrapper that returns None (bitsandbytes' kernel files keep
their Triton code in the ``else`` branch). L1 refused ``import importlib`` (dynamic-import) before tp44 admitted
it when every read of the module is such a test of a top-level name (stdlib_rules.importlib_spec_tests_only). The
rest is the oracle."""

SUBSTITUTIONS = [
    ("import torch\nimport triton\n",
     "import importlib\n\nimport torch\nimport triton\n\n\ndef is_triton_available():\n"
     "    return importlib.util.find_spec(\"triton\") is not None\n\n"),
    ("(no FMA)\n    return out, scales, azps\n",
     "(no FMA)\n    return out, scales, azps\n\n\nif not is_triton_available():\n\n"
     "    def scaled_int8_quant(input, scale=None, azp=None, symmetric=True):\n        return None\n"),
]
