"""Set-up and interface checks of the sandbox child (sandbox/child.py): ``torch.library.wrap_triton`` returns the
kernel itself in the child (``_eager_wrap_triton``; on GPUs its wrapper launched through a higher-order operator that
refuses to run under the verifier's dispatch trace), and a missing wrapper's message names the module's near misses
(``_near_misses``)."""
from __future__ import annotations

import pytest


def test_wrap_triton_returns_the_kernel_in_the_child(monkeypatch: pytest.MonkeyPatch) -> None:
    import torch
    import torch._library.triton as library_triton
    from triton.runtime.jit import JITFunction

    from kernelgenbench.sandbox.child import _eager_wrap_triton

    def body(x_ptr):
        pass

    kernel = JITFunction(body)
    monkeypatch.setattr(library_triton, "wrap_triton_enabled_default", True)
    assert torch.library.wrap_triton(kernel) is not kernel  # torch's tracing wrapper (goes through the HOP)
    _eager_wrap_triton()
    assert torch.library.wrap_triton(kernel) is kernel


def test_missing_wrapper_message_names_near_misses() -> None:
    import types

    from kernelgenbench.sandbox.child import _near_misses

    mod = types.ModuleType("sub")
    exec("def logaddexp2_Out(self, other, out):\n    pass\n\ndef add_Tesnor(a, b):\n    pass\n_helper = 1\n",
         mod.__dict__)
    assert _near_misses(mod, ["logaddexp2_out", "add_Tensor"]) == \
        "; the file defines logaddexp2_Out (rename it logaddexp2_out), add_Tesnor (rename it add_Tensor)"
    assert _near_misses(mod, ["mul_Tensor"]) == ""


def test_a_correctly_named_sibling_wrapper_is_no_near_miss() -> None:
    """A missing ``add_Scalar_out`` is close to ``add_Scalar`` (difflib ratio 0.83), which the file rightly defines as
    another wrapper of aten::add: naming it as the misspelling sent the author to rename a correct wrapper."""
    import types

    from kernelgenbench.sandbox.child import _near_misses

    mod = types.ModuleType("sub")
    exec("def add_Tensor(a, b):\n    pass\n\ndef add_Scalar(a, b):\n    pass\n\ndef add_out(a, b, *, out):\n"
         "    pass\n", mod.__dict__)
    iface = ("add_Tensor", "add_Scalar", "add_out", "add_Scalar_out")
    assert _near_misses(mod, ["add_Scalar_out"]) == "; the file defines add_Scalar (rename it add_Scalar_out)"
    assert _near_misses(mod, ["add_Scalar_out"], iface) == ""
    exec("def add_scalar_out(a, b, *, out):\n    pass\n", mod.__dict__)
    assert _near_misses(mod, ["add_Scalar_out"], iface) == \
        "; the file defines add_scalar_out (rename it add_Scalar_out)"


def test_tensor_files_are_written_without_checksums_and_still_load(tmp_path) -> None:
    import torch

    from kernelgenbench.sandbox.protocol import fast_tensor_files

    before = torch.serialization.get_crc32_options()
    try:
        fast_tensor_files(torch)
        assert torch.serialization.get_crc32_options() is False
        t = {"args": [torch.arange(1000, dtype=torch.float32)], "ret": None}
        torch.save(t, tmp_path / "a.pt")
        back = torch.load(tmp_path / "a.pt", weights_only=True)
        assert torch.equal(back["args"][0], t["args"][0]) and back["ret"] is None
    finally:
        torch.serialization.set_crc32_options(before)
