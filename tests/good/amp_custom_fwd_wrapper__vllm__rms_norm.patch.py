"""LEGAL (false-rejection hunt 33, README known gap until session 35): vllm::rms_norm whose plain wrapper is
decorated ``@torch.amp.custom_fwd(device_type="cuda")``, as authors copy it from ``autograd.Function`` forwards.
PyTorch's decorator then writes ``_dtype`` (a dtype) and ``_fwd_used_autocast`` (a bool) on the wrapper's first
argument, the harness's ``out`` tensor, which the kernel is then launched on. Those two names shadow nothing the
harness calls (``launch_args.amp_tags_only``); the child clears them when the call ends. The job must pass. The rest
is the oracle (solutions/vllm__rms_norm.py)."""

SUBSTITUTIONS = [
    ("""\
def rms_norm(out, input, weight, epsilon):
""", """\
@torch.amp.custom_fwd(device_type="cuda")  # LEGAL: tags `out` with _dtype and _fwd_used_autocast
def rms_norm(out, input, weight, epsilon):
"""),
]
