"""Red team (session 25, memory): vllm::rms_norm (the project's oracle) whose wrapper first moves the caller's
``out`` onto a fresh storage of the same size through the ``.data`` setter; the kernel writes the right values
there, the ``out`` object shows them, but the storage the caller gave (and every other view of it) is never
written. Caught by L3's memory provenance: a call may not replace an argument's storage that could hold it
(sandbox/dispatch.py replaced_storages) -> profile."""

SUBSTITUTIONS = [
    ("""def rms_norm(out, input, weight, epsilon):
""", """def rms_norm(out, input, weight, epsilon):
    if out.numel() > 0:
        out.data = torch.empty_strided(out.shape, out.stride(), dtype=out.dtype, device=out.device)
"""),
]
