"""Legal (red-team round 2): the vllm::rms_norm oracle behind a ``functools.wraps`` decorator that
makes tensor arguments contiguous (allowed copies), a common style in real kernels libraries. The
wrapper must still be found, traced and pass. The rest is the oracle (solutions/vllm__rms_norm.py)."""

SUBSTITUTIONS = [
    ("import torch\n", "import functools\nimport torch\n"),
    ("def rms_norm(", """\
def ensure_contiguous(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        def maybe_to_contiguous(x):
            return x.contiguous() if isinstance(x, torch.Tensor) else x

        args = [maybe_to_contiguous(arg) for arg in args]
        kwargs = {k: maybe_to_contiguous(v) for k, v in kwargs.items()}
        return fn(*args, **kwargs)

    return wrapper


@ensure_contiguous
def rms_norm("""),
]
