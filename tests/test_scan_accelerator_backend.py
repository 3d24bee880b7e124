"""tp43: bitsandbytes' device module as L1 reads it (verify/scan/backend_names.py, scope.py ``torch_backend_getattr``).

bitsandbytes' Triton backend picks PyTorch's device module at import: ``device_type =
torch.accelerator.current_accelerator().type if hasattr(torch, "accelerator") else "cuda"`` and
``torch_accelerator_module = getattr(torch, device_type, torch.cuda)``, then ``with
torch_accelerator_module.device(A.device):``. Refused before (dynamic-attr, dynamic-import, tensor-method); the tests
pin what passes now and the neighbouring forms that stay refused."""
from __future__ import annotations

import textwrap

import pytest

from kernelgenbench.verify.scan import scan_source

_BNB = '''
    import functools
    import torch

    device_type = torch.accelerator.current_accelerator().type if hasattr(torch, "accelerator") else "cuda"
    torch_accelerator_module = getattr(torch, device_type, torch.cuda)

    def run(A):
        with torch_accelerator_module.device(A.device):
            return A
'''


def rules(source: str) -> list[str]:
    """The rules of every finding of the dedented ``source``."""
    return [f.rule for f in scan_source(textwrap.dedent(source))]


def test_the_current_accelerator_type_picks_a_device_module() -> None:
    assert rules(_BNB) == []
    # what else it reaches is judged as torch.cuda's
    assert rules(_BNB + '''
    def grab():
        return torch_accelerator_module.memory_allocated()
    ''') == ["torch-compute"]


@pytest.mark.parametrize("source", [
    # inline at module level, no default
    "import torch\nlib = getattr(torch, torch.accelerator.current_accelerator().type)\n",
    # a memoized function of no arguments returning it
    "import functools\nimport torch\n@functools.cache\ndef dev():\n"
    "    return torch.accelerator.current_accelerator().type\n"
    "lib = getattr(torch, dev(), torch.xpu)\n",
    # a device module default with the None form of rb38 kept
    "import torch\nd = torch.accelerator.current_accelerator().type\nlib = getattr(torch, d, None)\n",
])
def test_other_spellings_of_the_accelerator_pick_pass(source: str) -> None:
    assert rules(source) == []


@pytest.mark.parametrize("change", [
    ('.current_accelerator().type', '.current_accelerator().index'),        # not the device's type
    ('.current_accelerator().type', '.current_accelerator(x).type'),        # a call with arguments
    ('torch.accelerator.current_accelerator()', 'torch.device("cuda")'),   # not the accelerator query
    ('getattr(torch, device_type, torch.cuda)', 'getattr(torch, device_type, torch.nn)'),   # another module
    ('getattr(torch, device_type, torch.cuda)', 'getattr(torch, device_type, object())'),   # any object
    ('getattr(torch, device_type, torch.cuda)', 'getattr(torch.nn, device_type, torch.cuda)'),  # another base
    ('def run(A):', 'device_type = "add"\n\ndef run(A):'),                  # a second binding of another string
])
def test_neighbouring_forms_stay_refused(change: tuple[str, str]) -> None:
    old, new = change
    src = textwrap.dedent(_BNB)
    assert old in src
    found = rules(src.replace(old, new, 1))
    assert {"dynamic-attr", "dynamic-import"} & set(found), found


def test_a_shadowed_torch_is_no_accelerator() -> None:
    """The form is vouched for by the module's view of ``torch``: a function that binds ``torch`` itself (whose
    object could answer any string, ``getattr(torch, "add")``) or reads it inside a function where a local
    binding may shadow it keeps the getattr a dynamic-attr finding."""
    assert "dynamic-attr" in rules('''
        import functools
        import torch

        @functools.cache
        def dev():
            torch = Fake()
            return torch.accelerator.current_accelerator().type

        lib = getattr(torch, dev())
    ''')
    assert "dynamic-attr" in rules('''
        import torch as T

        def pick(torch):
            return getattr(T, torch.accelerator.current_accelerator().type)
    ''')
