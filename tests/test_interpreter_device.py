"""Device queries on the CPU interpreter (sandbox/interpreter.py ``_cpu_device_queries``)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"

DRIVER = r'''
import os
os.environ["TRITON_INTERPRET"] = "1"
import triton, torch
from kernelgenbench.sandbox.interpreter import install_interpreter_patches
install_interpreter_patches()
d = triton.runtime.driver.active
print(d.get_active_torch_device(), d.get_current_device(), d.get_current_target().backend)
try:
    d.utils.load_binary
except RuntimeError as e:
    import traceback
    where = traceback.extract_tb(e.__traceback__)[-1].filename
    print("raised", "active drivers" in str(e), where.endswith("driver.py"))
props = d.utils.get_device_properties(d.get_active_torch_device().index)
print(props["multiprocessor_count"], props["max_num_regs"], props["max_shared_mem"], props["warpSize"])
p = torch.cuda.get_device_properties(torch.device("cpu"))
print(p.multi_processor_count, p.major, torch.cuda.get_device_capability(), type(torch.cuda.get_device_name()).__name__)
print(torch.cuda.get_device_properties().multi_processor_count, torch.cuda.get_device_properties(0).warp_size)
'''


def test_the_interpreter_answers_device_queries_for_the_cpu() -> None:
    """The tutorials' ``triton.runtime.driver.active.get_active_torch_device()`` works on the interpreter (the CPU),
    and so do the device property queries a persistent grid is sized from (false-rejection hunt 35: Triton's
    fused-softmax tutorial reads ``driver.active.utils.get_device_properties(DEVICE.index)`` at import, other code
    ``torch.cuda.get_device_properties(x.device).multi_processor_count``; both raised at import, ``import_error``):
    they answer an sm_90 GPU's figures, and the target is that GPU's (``get_current_target().backend == "cuda"``:
    tp38, Triton's matmul tutorial chose its HIP autotune configs on ``"cpu"``). Any other driver query raises inside
    Triton as before (an interpreter limit, not the submission's fault)."""
    env = dict(os.environ, PYTHONPATH=str(SRC), TRITON_INTERPRET="1")
    out = subprocess.run([sys.executable, "-c", DRIVER], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split("\n")[:5] == ["cpu 0 cuda", "raised True True", "132 65536 232448 32",
                                          "132 9 (9, 0) str", "132 32"], out.stdout


RUNTIME = r'''
import os
os.environ["TRITON_INTERPRET"] = "1"
import torch
from kernelgenbench.sandbox.interpreter import install_interpreter_patches
install_interpreter_patches()
x = torch.ones(3)
s = torch.cuda.current_stream(x.device)
print(torch.cuda.synchronize(), torch.cuda.synchronize(x.device), s.synchronize(), s.cuda_stream,
      torch.cuda.current_stream().device, torch.cuda.current_device(), torch.cuda.set_device(x.device),
      torch.cuda.is_current_stream_capturing())
'''


CONTEXT = r'''
import os
os.environ["TRITON_INTERPRET"] = "1"
import torch
from kernelgenbench.sandbox.interpreter import install_interpreter_patches
install_interpreter_patches()
x = torch.ones(3)
for dev in (x.device.index, -1, x.device, "cpu"):
    with torch.cuda.device(dev):
        print(dev, end=" ")
'''


def test_a_device_context_of_no_index_does_nothing_on_the_cpu() -> None:
    """tp39 (real third-party kernels): mamba's and flash-attention's launchers enter ``torch.cuda.device(
    x.device.index)``; on a GPU that selects x's device, and PyTorch documents None (a CPU tensor's index) and a
    negative index as a no-op, yet without CUDA PyTorch raised ``TypeError: '<' not supported between NoneType and
    int`` there, failing every case as runtime_error."""
    env = dict(os.environ, PYTHONPATH=str(SRC), TRITON_INTERPRET="1")
    out = subprocess.run([sys.executable, "-c", CONTEXT], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["None", "-1", "cpu", "cpu"], out.stdout


def test_the_cuda_runtime_calls_l1_admits_answer_on_the_cpu() -> None:
    """False-rejection hunt 36: a wrapper written for a GPU that reads ``torch.cuda.current_stream()`` or calls
    ``torch.cuda.synchronize()`` after its launch (both admitted by L1) raised "Torch not compiled with CUDA enabled"
    on the interpreter and failed as ``runtime_error``. They answer as a GPU with nothing in flight would."""
    env = dict(os.environ, PYTHONPATH=str(SRC), TRITON_INTERPRET="1")
    out = subprocess.run([sys.executable, "-c", RUNTIME], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["None", "None", "None", "0", "cpu", "0", "None", "False"], out.stdout


IS_CUDA = r'''
import os, sys, tempfile
os.environ["TRITON_INTERPRET"] = "1"
import torch
from kernelgenbench.sandbox import launch_args
from kernelgenbench.sandbox.interpreter import install_interpreter_patches
install_interpreter_patches()
install_interpreter_patches()
path = os.path.join(tempfile.mkdtemp(), "sub.py")
with open(path, "w") as f:
    f.write("def check(x):\n    assert x.is_cuda, 'input must be a CUDA tensor'\n    return x.is_cuda, x.device.type\n")
x = torch.ones(3)
print(x.is_cuda)                                   # the harness's own read, before a submission is known
launch_args.KERNEL_BODIES = (path, frozenset())
sys.path.insert(0, os.path.dirname(path))
import sub
print(*sub.check(x))                               # the submission's read
print(x.is_cuda, torch.Tensor.is_cuda.__get__(x))  # the harness's read, the submission known
'''


def test_is_cuda_read_by_the_submission_answers_as_on_a_gpu() -> None:
    """False-rejection hunt 37: ``assert x.is_cuda`` in a wrapper written for a GPU failed every case on the
    interpreter (CPU tensors) as runtime_error. Read from the submission's own file a CPU tensor's ``is_cuda`` is
    True; everywhere else (the harness, PyTorch) it stays False, and ``x.device.type`` stays "cpu"."""
    env = dict(os.environ, PYTHONPATH=str(SRC), TRITON_INTERPRET="1")
    out = subprocess.run([sys.executable, "-c", IS_CUDA], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["False", "True", "cpu", "False", "False"], out.stdout


NVTX = r'''
import os
os.environ["TRITON_INTERPRET"] = "1"
import torch
from kernelgenbench.sandbox.interpreter import install_interpreter_patches
install_interpreter_patches()
a = torch.cuda.nvtx.range_push("outer")
b = torch.cuda.nvtx.range_push("inner")
with torch.cuda.nvtx.range("ctx"):
    torch.cuda.nvtx.mark("here")
print(a, b, torch.cuda.nvtx.range_pop(), torch.cuda.nvtx.range_pop())
# red team 37: the message is formatted with the extra arguments, as PyTorch's range does on a GPU (a tensor argument
# is printed, ATen ops the trace sees there), so the interpreter judges what the GPU runs
seen = []
class Probe:
    def __format__(self, spec):
        seen.append(spec)
        return "probe"
with torch.cuda.nvtx.range("n={:>3} {p}", Probe(), p=Probe()):
    pass
print(len(seen))
'''


def test_nvtx_ranges_do_nothing_where_pytorch_has_no_nvtx() -> None:
    """False-rejection hunt 37: NVTX ranges around a launch (admitted by L1) raised "NVTX functions not installed" in
    a PyTorch built without CUDA; there they do nothing, and ``range_push``/``range_pop`` answer depths as NVTX does."""
    env = dict(os.environ, PYTHONPATH=str(SRC), TRITON_INTERPRET="1")
    out = subprocess.run([sys.executable, "-c", NVTX], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["0", "1", "1", "0", "2"], out.stdout


CUDA_ALLOC = r'''
import os, sys, tempfile
os.environ["TRITON_INTERPRET"] = "1"
import torch
from kernelgenbench.sandbox import launch_args
from kernelgenbench.sandbox.interpreter import install_interpreter_patches
install_interpreter_patches()
path = os.path.join(tempfile.mkdtemp(), "sub.py")
with open(path, "w") as f:
    f.write("import torch\n"
            "def alloc(x):\n"
            "    a = torch.empty(4, device='cuda')\n"
            "    b = torch.zeros_like(x, device=torch.device('cuda', 0))\n"
            "    c = torch.full((2,), 1.5, device='cuda:0', dtype=torch.float16)\n"
            "    d = x.cuda()\n"
            "    e = x.to('cuda')\n"
            "    f = x.to(device='cuda', dtype=torch.float64)\n"
            "    return [t.device.type for t in (a, b, c, d, e, f)], d is x, f.dtype\n"
            "def present():\n"
            "    return torch.cuda.is_available(), torch.cuda.device_count()\n")
x = torch.ones(3)
launch_args.KERNEL_BODIES = (path, frozenset())
sys.path.insert(0, os.path.dirname(path))
import sub
kinds, same, dt = sub.alloc(x)
print(*kinds, same, dt)
print(*sub.present(), torch.cuda.is_available(), torch.cuda.device_count())
for make in (lambda: torch.empty(4, device="cuda"), lambda: x.to("cuda"), lambda: x.cuda()):
    try:
        make()
        print("allocated")
    except (AssertionError, RuntimeError):
        print("refused")
'''


def test_cuda_allocations_of_the_submission_land_on_the_cpu() -> None:
    """False-rejection hunt 37: ``torch.empty(n, device="cuda")``, ``x.cuda()`` and ``x.to("cuda")`` in a wrapper
    written for one GPU raised "Torch not compiled with CUDA enabled" on the interpreter. Made from the submission's
    file they allocate on (or keep the tensor on) the CPU, and ``torch.cuda.is_available()``/``device_count()`` answer
    as a one-GPU machine; the same calls from anywhere else keep the truth (they fail, or say there is no GPU)."""
    env = dict(os.environ, PYTHONPATH=str(SRC), TRITON_INTERPRET="1")
    out = subprocess.run([sys.executable, "-c", CUDA_ALLOC], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["cpu"] * 6 + ["True", "torch.float64", "True", "1", "False", "0",
                                                "refused", "refused", "refused"], out.stdout


def test_the_current_stream_l1_admits_answers_on_the_cpu() -> None:
    """False-rejection hunt 37: ``triton.runtime.driver.active.get_current_stream(dev)``, which L1 admits beside the
    device queries, raised inside Triton on the interpreter (no driver), so every case of a launcher that reads it was
    unsupported; it answers 0, the handle ``torch.cuda.current_stream().cuda_stream`` answers there."""
    script = ("import os\nos.environ['TRITON_INTERPRET'] = '1'\nimport triton\n"
              "from kernelgenbench.sandbox.interpreter import install_interpreter_patches\n"
              "install_interpreter_patches()\nd = triton.runtime.driver.active\n"
              "print(d.get_current_stream(), d.get_current_stream(d.get_current_device()))\n")
    env = dict(os.environ, PYTHONPATH=str(SRC), TRITON_INTERPRET="1")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["0", "0"], out.stdout


ACCELERATOR = r'''
import os, sys, tempfile
os.environ["TRITON_INTERPRET"] = "1"
import torch
from kernelgenbench.sandbox import launch_args
from kernelgenbench.sandbox.interpreter import install_interpreter_patches
install_interpreter_patches()
install_interpreter_patches()
path = os.path.join(tempfile.mkdtemp(), "sub.py")
with open(path, "w") as f:
    f.write("import torch\n"
            "device_type = torch.accelerator.current_accelerator().type\n"
            "def ask():\n"
            "    return (torch.accelerator.current_accelerator(), torch.accelerator.is_available(),\n"
            "            torch.accelerator.device_count())\n")
launch_args.KERNEL_BODIES = (path, frozenset())
sys.path.insert(0, os.path.dirname(path))
import sub
print(sub.device_type, *sub.ask())
print(torch.accelerator.current_accelerator(), torch.accelerator.is_available(), torch.accelerator.device_count())
'''


def test_the_current_accelerator_answers_cuda_to_the_submission() -> None:
    """False-rejection hunt 43: bitsandbytes picks its device module at import with
    ``torch.accelerator.current_accelerator().type``; in a PyTorch without CUDA that is None, and the import failed
    (import_error). Asked from the submission's file it answers as the one-GPU machine of the other stand-ins
    (cuda, available, one device); the harness's own questions keep the truth (None, False, 0)."""
    env = dict(os.environ, PYTHONPATH=str(SRC), TRITON_INTERPRET="1")
    out = subprocess.run([sys.executable, "-c", ACCELERATOR], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split("\n")[:2] == ["cuda cuda True 1", "None False 0"], out.stdout


HAS_TRITON = r'''
import os, sys, tempfile
os.environ["TRITON_INTERPRET"] = "1"
import torch
from kernelgenbench.sandbox import launch_args
from kernelgenbench.sandbox.interpreter import install_interpreter_patches
install_interpreter_patches()
install_interpreter_patches()
path = os.path.join(tempfile.mkdtemp(), "sub.py")
with open(path, "w") as f:
    f.write("from torch.utils._triton import has_triton\n"
            "if has_triton():\n"
            "    KERNELS = 'triton'\n"
            "else:\n"
            "    KERNELS = 'fallback'\n"
            "def ask():\n"
            "    return has_triton()\n")
launch_args.KERNEL_BODIES = (path, frozenset())
sys.path.insert(0, os.path.dirname(path))
import sub
import torch.utils._triton as triton_utils
print(sub.KERNELS, sub.ask(), triton_utils.has_triton(), triton_utils.has_triton.__wrapped__())
'''


def test_has_triton_answers_true_to_the_submission() -> None:
    """False-rejection hunt 44: torchao defines its Triton kernel modules under ``if has_triton():``
    (``torch.utils._triton``), which asks for a CUDA device: on the interpreter's CPU PyTorch it was False and the
    file defined its fallback wrapper instead of its kernels. Asked from the submission's file it answers True, as on
    a GPU; the harness's own question (and PyTorch's) keeps the truth, False."""
    env = dict(os.environ, PYTHONPATH=str(SRC), TRITON_INTERPRET="1")
    out = subprocess.run([sys.executable, "-c", HAS_TRITON], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split("\n")[0] == "triton True False False", out.stdout
