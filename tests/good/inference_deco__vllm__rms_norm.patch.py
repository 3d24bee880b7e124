"""LEGAL (false-rejection hunt 33): vllm::rms_norm with its wrapper decorated ``@torch.inference_mode()``, as
inference libraries write their entry points (the output written in place runs under inference mode; the decorator
exits before the wrapper returns, on its errors too). Pins today's run-time check of PyTorch's global state
(sandbox/drive.py ``global_state_change``: grad mode, inference mode and dynamo's ``GlobalStateGuard``, before and
after every call, timed ones included): nothing is left changed, so the compiled baseline's guards hold in its timed
blocks (GPU) and the job must pass. The rest is the oracle (solutions/vllm__rms_norm.py)."""

SUBSTITUTIONS = [
    ("""\
def rms_norm(out, input, weight, epsilon):
    H = input.shape[-1]
""", """\
@torch.inference_mode()  # LEGAL: restored as the wrapper returns or raises
def rms_norm(out, input, weight, epsilon):
    H = input.shape[-1]
"""),
]
