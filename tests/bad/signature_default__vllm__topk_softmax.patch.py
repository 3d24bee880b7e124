"""BAD (signature): vllm::topk_softmax whose optional parameter has another default than the interface's
(renormalize=True where vLLM's is False): a call that leaves it out would compute another function. A default on a
parameter the interface requires is harmless (tests/good/default_required); on an optional one it must match. The
rest is the oracle."""

SUBSTITUTIONS = [("gating_output, renormalize=False):", "gating_output, renormalize=True):")]
