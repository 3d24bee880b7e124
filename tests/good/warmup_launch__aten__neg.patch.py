"""LEGAL (false-rejection hunt 35): aten::neg whose contiguous path compiles its kernel with ``warmup`` and launches
the compiled kernel it returns, as Triton's fused-softmax tutorial does (``k = kernel.warmup(*args, grid=(1,))``,
``k._init_handles()``, ``k[(programs, 1, 1)](*args)`` with every parameter, constexprs included, positional; the
runner of Triton 3.6 reads grid[0], grid[1] and grid[2], so the grid has three entries: a 1-tuple failed the gate at
9530296 on an H100 with IndexError, which the interpreter's stand-in now raises too). On a GPU Triton's
``CompiledKernel.__getitem__`` runner calls the C launcher directly, past ``JITFunction.run``: the harness counted
no launch there, and the ghost replay could not empty it (the job would fail as ``ghost`` or ``not_exercised``); on
the interpreter ``warmup`` returned None (runtime_error). The harness now hooks that runner (sandbox/launch.py
``_install_compiled_kernel_launches``) and gives the interpreter a stand-in compiled kernel
(``InterpretedCompiledKernel``). The warm-up runs on every call with the call's own tensors, so the binary it
returns is specialised for them (alignment, dtypes). The rest is the oracle (solutions/aten__neg.py)."""

SUBSTITUTIONS = [
    ("""\
        _contig_kernel[grid](src, dst, n, p0, COMPUTE=compute, MODE=mode, BLOCK=block,
                             USE_I64=n + block >= 2 ** 31, num_warps=warps)
        return out
""", """\
        wide = n + block >= 2 ** 31
        compiled = _contig_kernel.warmup(src, dst, n, p0, COMPUTE=compute, MODE=mode, BLOCK=block, USE_I64=wide,
                                         num_warps=warps, grid=(1,))
        compiled._init_handles()
        assert compiled.n_regs > 0 and compiled.metadata.num_warps == warps
        compiled[(grid[0], 1, 1)](src, dst, n, p0, compute, mode, block, wide)
        return out
"""),
]
