"""Legal (false-rejection hunt 28): the vllm::rms_norm oracle taking its square root from libdevice
through the common version fallback ``try: from triton.language.extra import libdevice`` / ``except
ImportError: libdevice = tl.math``. Red team 28's module rule rejected it (dynamic-import): the name is
bound twice, so ``tl.math`` was not one plain alias. Both bindings are Triton language modules, so
``libdevice.x`` is judged alike whichever holds. Must pass. The rest is the oracle
(solutions/vllm__rms_norm.py)."""

SUBSTITUTIONS = [
    ("import triton.language as tl\n",
     "import triton.language as tl\n\ntry:\n    from triton.language.extra import libdevice\n"
     "except ImportError:  # Triton 2.x\n    libdevice = tl.math\n"),
    ("    return (1.0 / tl.sqrt(v)).to(tl.float32)\n",
     "    return (1.0 / libdevice.sqrt(v)).to(tl.float32)\n"),
]
