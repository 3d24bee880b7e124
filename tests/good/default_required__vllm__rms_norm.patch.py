"""LEGAL (red team 26, rms_default_eps): vllm::rms_norm declared with a default on a parameter the interface requires
(epsilon=1e-6): every call passes epsilon, so the default never applies; the signature check refused it. The rest is
the oracle."""

SUBSTITUTIONS = [("def rms_norm(out, input, weight, epsilon):", "def rms_norm(out, input, weight, epsilon=1e-6):")]
