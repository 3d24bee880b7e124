"""Tests of the real-cuBLAS baseline binding (``kernelgenbench.suite.cublas.blas``, cublas.md §2.7).

CPU part (runs everywhere): flag conversion, import without CUDA, library search and its error, the
signature table, status handling and the generic call path against a stand-in library.
GPU part (skipped without CUDA): Saxpy, Sgemm, Strsv against fp64 torch references on column-major
views of raw storage (§2.2, §2.6), with sentinel/NaN memory that must stay untouched or unread (§2.5).
"""
from __future__ import annotations

import ctypes
import inspect
import itertools
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]
try:
    from kernelgenbench.suite.cublas import blas
except ImportError:  # not installed: use the checkout
    sys.path.insert(0, str(ROOT / "src"))
    from kernelgenbench.suite.cublas import blas

CUDA = torch.cuda.is_available()
gpu = pytest.mark.skipif(not CUDA, reason="needs a CUDA device (the real cuBLAS)")

#: The 50 routines of cublas.md §1, in CUBLAS_OPERATOR_NAMES order.
ROUTINES_50 = [
    "cublasCcopy_v2", "cublasCdotu_v2", "cublasCgemmStridedBatched", "cublasCgemmStridedBatched_64",
    "cublasCgemm_v2", "cublasCgemvBatched_64", "cublasCgemvStridedBatched", "cublasCgemv_v2",
    "cublasCgeru_v2", "cublasCsymm_v2", "cublasCsymv_v2", "cublasCsyrkEx", "cublasDasum_v2",
    "cublasDaxpy_v2", "cublasDcopy_v2", "cublasDgemmBatched", "cublasDgemmStridedBatched",
    "cublasDgemmStridedBatched_64", "cublasDgemvBatched", "cublasDgemvStridedBatched", "cublasDgemv_v2",
    "cublasDsbmv_v2", "cublasDsyr2_v2", "cublasDtrsmBatched", "cublasHgemmBatched",
    "cublasHgemmStridedBatched", "cublasSaxpy_v2", "cublasSdgmm", "cublasSdot_v2", "cublasSgeam",
    "cublasSgemmBatched_64", "cublasSgemmEx", "cublasSgemmStridedBatched", "cublasSgemm_v2",
    "cublasSgemvBatched", "cublasSgemvStridedBatched", "cublasSger_v2", "cublasSscal_v2",
    "cublasSsyrk_v2", "cublasStbmv_v2", "cublasStrsm_v2", "cublasStrsv_v2", "cublasZdotc_v2",
    "cublasZgemmBatched", "cublasZgemmStridedBatched", "cublasZgemvBatched",
    "cublasZgemvStridedBatched", "cublasZgerc_v2", "cublasZswap_v2", "cublasZtrsmBatched",
]

#: Python interfaces of the bound routines (cublas.md, sections of the three routines).
INTERFACES = {
    "cublasSaxpy_v2": ("saxpy", ["n", "alpha", "x", "incx", "y", "incy"]),
    "cublasSgemm_v2": ("sgemm", ["transa", "transb", "m", "n", "k", "alpha", "A", "lda", "B", "ldb",
                                 "beta", "C", "ldc"]),
    "cublasStrsv_v2": ("strsv", ["uplo", "trans", "diag", "n", "A", "lda", "x", "incx"]),
}


# ====================================================================================================
# CPU: flags
# ====================================================================================================

@pytest.mark.parametrize("fn,good", [
    (blas.trans_code, {"N": 0, "n": 0, 0: 0, "T": 1, "t": 1, 1: 1, "C": 2, "c": 2, 2: 2}),
    (blas.uplo_code, {"L": 0, "l": 0, 0: 0, "U": 1, "u": 1, 1: 1}),
    (blas.diag_code, {"N": 0, "n": 0, 0: 0, "U": 1, "u": 1, 1: 1}),
    (blas.side_code, {"L": 0, "l": 0, 0: 0, "R": 1, "r": 1, 1: 1}),
])
def test_flag_codes_accept_both_encodings(fn, good):
    for value, code in good.items():
        assert fn(value) == code, (fn.__name__, value)
    # numpy-style integers (numbers.Integral) work too
    assert fn(torch.tensor(1).item()) == 1


@pytest.mark.parametrize("fn,flag,bad", [
    (blas.trans_code, "trans", ["X", "NT", "", 3, -1, None, 1.0, True, b"N"]),
    (blas.uplo_code, "uplo", ["X", "lower", 2, -1, None, 0.0, False]),
    (blas.diag_code, "diag", ["X", "unit", 2, None, 1.5]),
    (blas.side_code, "side", ["X", "U", 2, None, 0.0]),
])
def test_flag_codes_reject_bad_values_naming_the_flag(fn, flag, bad):
    for value in bad:
        with pytest.raises(ValueError, match=rf"invalid {flag} flag"):
            fn(value)


def test_flag_error_names_argument_and_routine():
    with pytest.raises(ValueError, match=r"cublasSgemm_v2: invalid transb flag 'Q'"):
        blas.trans_code("Q", "transb", "cublasSgemm_v2")


# ====================================================================================================
# CPU: import, library search, errors
# ====================================================================================================

def test_import_does_not_touch_cuda_or_libcublas():
    code = r"""
import ctypes, sys
import torch
_orig = ctypes.CDLL.__init__
def _guard(self, name, *a, **k):
    if name is not None and "cublas" in str(name):
        raise AssertionError(f"libcublas loaded at import time: {name}")
    return _orig(self, name, *a, **k)
ctypes.CDLL.__init__ = _guard
def _no_cuda(*a, **k):
    raise AssertionError("CUDA initialised at import time")
torch.cuda._lazy_init = _no_cuda
torch.cuda.init = _no_cuda
from kernelgenbench.suite.cublas import blas
assert not torch.cuda.is_initialized()
assert blas._INSTANCE is None
assert not any(m.split(".")[0] in ("cupy", "cupy_backends") for m in sys.modules), "CuPy imported"
print("IMPORT-OK")
"""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "IMPORT-OK" in proc.stdout


def test_load_cublas_raises_unavailable_listing_what_was_tried(monkeypatch, tmp_path):
    fake = tmp_path / "libcublas.so.13"
    fake.write_bytes(b"not an ELF file")
    missing = "libcublas_kgb_missing.so.99"
    monkeypatch.setattr(blas, "_candidate_libraries", lambda: [missing, str(fake)])
    with pytest.raises(blas.CublasUnavailable) as ei:
        blas.load_cublas()
    msg = str(ei.value)
    assert isinstance(ei.value, RuntimeError)
    assert "cannot load libcublas" in msg
    assert missing in msg and str(fake) in msg
    assert blas.LIB_ENV in msg                       # says how to point at a library


def test_load_cublas_with_no_candidates_and_explicit_list():
    with pytest.raises(blas.CublasUnavailable, match=r"\(no candidates\)"):
        blas.load_cublas(candidates=[])
    with pytest.raises(blas.CublasUnavailable, match=r"/nonexistent/libcublas\.so\.13"):
        blas.load_cublas(candidates=["/nonexistent/libcublas.so.13"])


def test_load_cublas_skips_a_library_without_cublas_symbols():
    import ctypes.util
    libc = ctypes.util.find_library("c") or "libc.so.6"
    with pytest.raises(blas.CublasUnavailable, match="does not export cublasCreate_v2"):
        blas.load_cublas(candidates=[libc])


def test_get_cublas_raises_unavailable_when_nothing_loads(monkeypatch):
    monkeypatch.setattr(blas, "_INSTANCE", None)
    monkeypatch.setattr(blas, "_candidate_libraries", lambda: ["libcublas_kgb_missing.so.99"])
    with pytest.raises(blas.CublasUnavailable, match="libcublas_kgb_missing"):
        blas.get_cublas()
    assert blas._INSTANCE is None                    # tried again next time
    with pytest.raises(blas.CublasUnavailable):
        blas.cublasSaxpy_v2(1, 1.0, None, 1, None, 1)


def test_candidate_order(monkeypatch, tmp_path):
    for rel in ("nvidia/cublas/lib/libcublas.so.12", "nvidia/cu13/lib/libcublas.so.13",
                "nvidia/cu13/lib/libcublasLt.so.13"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(b"")
    monkeypatch.setattr(blas, "_site_roots", lambda: [str(tmp_path)])
    monkeypatch.delenv(blas.LIB_ENV, raising=False)
    cands = blas._candidate_libraries()
    assert cands[:3] == ["libcublas.so.13", "libcublas.so.12", "libcublas.so"]
    found = [c for c in cands if c.startswith(str(tmp_path))]
    assert found == [str(tmp_path / "nvidia/cu13/lib/libcublas.so.13"),
                     str(tmp_path / "nvidia/cublas/lib/libcublas.so.12")]   # newest first, no Lt
    monkeypatch.setenv(blas.LIB_ENV, "/opt/x/libcublas.so.13")
    assert blas._candidate_libraries()[0] == "/opt/x/libcublas.so.13"


def test_status_names_and_error_message():
    expected = {1: "NOT_INITIALIZED", 3: "ALLOC_FAILED", 7: "INVALID_VALUE", 8: "ARCH_MISMATCH",
                11: "MAPPING_ERROR", 13: "EXECUTION_FAILED", 14: "INTERNAL_ERROR", 15: "NOT_SUPPORTED"}
    for code, name in expected.items():
        assert blas.status_name(code) == f"CUBLAS_STATUS_{name}"
        err = blas.CublasError("cublasSgemm_v2", code)
        assert isinstance(err, RuntimeError)
        assert "cublasSgemm_v2" in str(err) and f"CUBLAS_STATUS_{name}" in str(err)
        assert (err.routine, err.status, err.status_name) == ("cublasSgemm_v2", code, f"CUBLAS_STATUS_{name}")
    assert blas.status_name(99) == "CUBLAS_STATUS_UNKNOWN(99)"


def test_cupy_cross_check_available_is_a_bool():
    assert isinstance(blas.cupy_cross_check_available(), bool)


# ====================================================================================================
# CPU: signature table and interfaces
# ====================================================================================================

def test_signature_table_covers_the_50_routines():
    assert sorted(blas.SIGNATURES) == sorted(ROUTINES_50)
    for name, sig in blas.SIGNATURES.items():
        assert sig.routine == name
        assert len(sig.names) == len(sig.codes) == len(sig.argtypes) - 1
        assert sig.argtypes[0] is ctypes.c_void_p            # the handle
        assert len(set(sig.names)) == len(sig.names), name
    sg = blas.SIGNATURES["cublasSgemm_v2"]
    assert sg.codes == "eeiiippipippi"
    assert sg.argtypes[1:4] == [ctypes.c_int32] * 3 and sg.argtypes[6] is ctypes.c_void_p
    assert blas.SIGNATURES["cublasCgemmStridedBatched_64"].argtypes[4] is ctypes.c_int64
    assert blas.SIGNATURES["cublasSgemmStridedBatched"].argtypes[9] is ctypes.c_int64   # strideA


@pytest.mark.parametrize("routine", sorted(INTERFACES))
def test_bound_routines_have_the_spec_interface(routine):
    method, params = INTERFACES[routine]
    assert list(blas.SIGNATURES[routine].names) == params
    for fn in (getattr(blas.Cublas, method), getattr(blas.Cublas, routine)):
        assert list(inspect.signature(fn).parameters)[1:] == params
    assert list(inspect.signature(getattr(blas, routine)).parameters) == params
    assert blas.BASELINE_FUNCTIONS[routine] is getattr(blas, routine)
    doc = getattr(blas.Cublas, method).__doc__
    assert f"### cublas::{routine}" in doc and "Raises" in doc


def _spec_file() -> Path | None:
    for p in (os.environ.get("KGB_SPEC_DIR"), ROOT / "shared" / "spec", ROOT.parent / "shared" / "spec"):
        if p and (Path(p) / "cublas.md").is_file():
            return Path(p) / "cublas.md"
    return None


@pytest.mark.skipif(_spec_file() is None, reason="shared/spec/cublas.md not found")
def test_signature_names_match_the_spec_interfaces():
    text = _spec_file().read_text()
    found = {m.group(1): [p.strip() for p in m.group(2).split(",")]
             for m in re.finditer(r"\*\*Interface\*\*: `(cublas\w+)\(([^)]*)\)`", text)}
    assert sorted(found) == sorted(ROUTINES_50)
    for name, params in found.items():
        assert list(blas.SIGNATURES[name].names) == params, name


# ====================================================================================================
# CPU: the generic call path against a stand-in library
# ====================================================================================================

class _FakeFn:
    def __init__(self, lib, name):
        self.lib, self.name = lib, name
        self.argtypes = self.restype = None

    def __call__(self, *args):
        self.lib.calls.append((self.name, args))
        return self.lib.status.get(self.name, 0)


class _FakeLib:
    _name = "fake-libcublas"

    def __init__(self, exported=None):
        self.calls, self.status, self.exported = [], {}, exported

    def __getitem__(self, name):
        if self.exported is not None and name not in self.exported:
            raise AttributeError(name)
        return _FakeFn(self, name)


@pytest.fixture
def fake(monkeypatch):
    lib = _FakeLib()
    cb = blas.Cublas(lib=lib)
    cb._handles[0] = blas._Handle(0xABC, 0)
    stream = {"s": 77}
    monkeypatch.setattr(torch.cuda, "current_device", lambda: 0)
    monkeypatch.setattr(blas, "_current_raw_stream", lambda d: stream["s"])
    return cb, lib, stream


def test_bind_sets_argtypes_and_reports_missing_symbols():
    cb = blas.Cublas(lib=_FakeLib(exported={"cublasSgemm_v2"}))
    fn = cb._bind("cublasSgemm_v2")
    assert fn.argtypes == blas.SIGNATURES["cublasSgemm_v2"].argtypes and fn.restype is ctypes.c_int
    assert cb._bind("cublasSgemm_v2") is fn                     # cached
    with pytest.raises(blas.CublasUnavailable, match="cublasStrsv_v2 is not exported"):
        cb._bind("cublasStrsv_v2")
    with pytest.raises(KeyError):
        cb._bind("cublasNoSuchRoutine")


def test_call_sets_the_stream_once_per_change_and_checks_status(fake):
    cb, lib, stream = fake
    args = (5, 0x10, 0x20, 1, 0x30, -2)                          # n alpha x incx y incy
    cb._call("cublasSaxpy_v2", 0, *args)
    cb._call("cublasSaxpy_v2", 0, *args)
    assert lib.calls == [("cublasSetStream_v2", (0xABC, 77)), ("cublasSaxpy_v2", (0xABC,) + args),
                         ("cublasSaxpy_v2", (0xABC,) + args)]
    stream["s"] = 99
    lib.calls.clear()
    cb._call("cublasSaxpy_v2", 0, *args)
    assert [c[0] for c in lib.calls] == ["cublasSetStream_v2", "cublasSaxpy_v2"]
    assert lib.calls[0][1] == (0xABC, 99)

    lib.status["cublasSaxpy_v2"] = 13
    with pytest.raises(blas.CublasError, match=r"cublasSaxpy_v2 returned CUBLAS_STATUS_EXECUTION_FAILED \(13\)"):
        cb._call("cublasSaxpy_v2", 0, *args)
    stream["s"] = 5
    lib.status["cublasSetStream_v2"] = 7
    with pytest.raises(blas.CublasError, match="cublasSetStream_v2 returned CUBLAS_STATUS_INVALID_VALUE"):
        cb._call("cublasSaxpy_v2", 0, *args)


def test_call_checks_int_ranges_and_arity(fake):
    cb, lib, _ = fake
    with pytest.raises(ValueError, match=r"cublasSaxpy_v2: n=2147483648 does not fit"):
        cb._call("cublasSaxpy_v2", 0, 2 ** 31, 0x10, 0x20, 1, 0x30, 1)
    with pytest.raises(ValueError, match=r"incy=-2147483649"):
        cb._call("cublasSaxpy_v2", 0, 1, 0x10, 0x20, 1, 0x30, -(2 ** 31) - 1)
    with pytest.raises(TypeError, match="takes 6 arguments"):
        cb._call("cublasSaxpy_v2", 0, 1, 0x10)
    assert not lib.calls
    # 64-bit parameters of the _64 routines take values past 2**31
    big = 2 ** 40
    cb._call("cublasSgemmBatched_64", 0, 0, 0, big, 1, 1, 0x1, 0x2, big, 0x3, 1, 0x4, 0x5, big, 1)
    assert lib.calls[-1][0] == "cublasSgemmBatched_64"


def test_routines_validate_arguments_before_any_call():
    lib = _FakeLib()
    cb = blas.Cublas(lib=lib)
    cpu = torch.zeros(16)
    with pytest.raises(ValueError, match=r"cublasSaxpy_v2: y must be a CUDA tensor"):
        cb.saxpy(4, 1.0, cpu, 1, cpu, 1)
    with pytest.raises(ValueError, match=r"cublasSaxpy_v2: y must be a torch.Tensor"):
        cb.saxpy(4, 1.0, cpu, 1, [0.0] * 4, 1)
    with pytest.raises(ValueError, match=r"cublasSaxpy_v2: n must be an int"):
        cb.saxpy(4.0, 1.0, cpu, 1, cpu, 1)
    with pytest.raises(ValueError, match=r"cublasSaxpy_v2: incx must be an int"):
        cb.saxpy(4, 1.0, cpu, True, cpu, 1)
    with pytest.raises(ValueError, match=r"cublasSgemm_v2: invalid transb flag 'X'"):
        cb.sgemm("N", "X", 2, 2, 2, 1.0, cpu, 2, cpu, 2, 0.0, cpu, 2)
    with pytest.raises(ValueError, match=r"cublasSgemm_v2: C must be a CUDA tensor"):
        cb.sgemm("n", 1, 2, 2, 2, 1.0, cpu, 2, cpu, 2, 0.0, cpu, 2)
    with pytest.raises(ValueError, match=r"cublasStrsv_v2: invalid uplo flag 2"):
        cb.strsv(2, 0, 0, 4, cpu, 4, cpu, 1)
    with pytest.raises(ValueError, match=r"cublasStrsv_v2: invalid diag flag 'X'"):
        cb.strsv("U", "T", "X", 4, cpu, 4, cpu, 1)
    with pytest.raises(ValueError, match=r"cublasStrsv_v2: x must be a CUDA tensor"):
        cb.strsv("U", "T", "U", 4, cpu, 4, cpu, 1)
    assert not lib.calls


def test_tensor_and_extent_checks():
    with pytest.raises(ValueError, match=r"cublasSgemm_v2: A must have dtype torch.float32, got torch.float64"):
        blas.Cublas._tensor("cublasSgemm_v2", "A", torch.zeros(4, dtype=torch.float64), torch.float32, 0)
    with pytest.raises(ValueError, match=r"cublasSgemm_v2: B must be on cuda:0, got cpu"):
        blas.Cublas._tensor("cublasSgemm_v2", "B", torch.zeros(4), torch.float32, 0)
    t = torch.zeros(10)[3:]                                   # 7 elements from the data pointer
    assert blas._available(t) == 7
    blas.Cublas._extent("r", "x", t, 7, "it")
    with pytest.raises(ValueError, match=r"r: x has 7 elements from its data pointer, but it spans 8"):
        blas.Cublas._extent("r", "x", t, 8, "it")
    assert blas._vec_extent(0, 3) == 0 and blas._vec_extent(5, 1) == 5
    assert blas._vec_extent(5, -3) == 13 and blas._vec_extent(4, 0) == 1
    assert blas._mat_extent(3, 4, 5) == 18 and blas._mat_extent(0, 4, 5) == 0
    assert blas._mat_extent(3, 1, 100) == 3


def test_scalar_keys():
    k = blas._scalar_key
    assert k(0.0) != k(-0.0)
    assert k(float("nan")) == k(float("nan"))
    assert k(1) == k(1.0)
    assert k(1 + 2j) != k(1.0)


# ====================================================================================================
# GPU: the real cuBLAS against fp64 references on column-major views (§2.2, §2.6)
# ====================================================================================================

EPS32 = 2.0 ** -23


def f32(v: float) -> float:
    return float(torch.tensor(v, dtype=torch.float32))


def bits(t: torch.Tensor) -> torch.Tensor:
    assert t.dtype == torch.float32
    return t.contiguous().view(torch.int32)


def vec_offsets(n: int, inc: int, device) -> torch.Tensor:
    i = torch.arange(n, device=device)
    return i * inc if inc > 0 else (n - 1 - i) * (-inc)


def mat_view(t: torch.Tensor, rows: int, cols: int, ld: int) -> torch.Tensor:
    """The column-major BLAS matrix starting at t's data pointer, as a strided view."""
    return t.as_strided((rows, cols), (1, ld), t.storage_offset())


def mat_mask(buf_len: int, base: int, rows: int, cols: int, ld: int, device) -> torch.Tensor:
    """Bool mask over a flat buffer: True on the logical elements of the matrix at offset base."""
    m = torch.zeros(buf_len, dtype=torch.bool, device=device)
    mat_view(m[base:], rows, cols, ld).fill_(True)
    return m


@pytest.fixture(scope="module")
def cb():
    return blas.get_cublas()


@gpu
def test_handle_setup_info(cb):
    info = cb.info()
    assert info["pointer_mode"] == blas.CUBLAS_POINTER_MODE_DEVICE
    assert info["math_mode"] == blas.CUBLAS_DEFAULT_MATH
    assert info["version"] >= 120000, info


@gpu
@pytest.mark.parametrize("n,alpha,incx,incy", [
    (1, 1.0, 1, 1), (1000, 0.75, 2, 3), (1000, 0.75, -2, 3), (33, -1.5, 1, -1),
    (4097, -111.999, 3, -2), (71, 0.001, -3, -1), (5333, 100.001, 1, 1),
])
def test_saxpy(cb, n, alpha, incx, incy):
    dev = torch.device("cuda")
    g = torch.Generator(device=dev).manual_seed(n * 31 + incx * 7 + incy)
    ox, oy = 7, 5                                     # storage offsets: data_ptr() must include them
    xbuf = torch.randn(ox + blas._vec_extent(n, incx) + 3, device=dev, generator=g)
    ybuf = torch.randn(oy + blas._vec_extent(n, incy) + 4, device=dev, generator=g)
    x, y = xbuf[ox:], ybuf[oy:]
    x0, y0 = xbuf.clone(), ybuf.clone()

    out = cb.saxpy(n, alpha, x, incx, y, incy)
    torch.cuda.synchronize()
    assert out is y

    ix, iy = ox + vec_offsets(n, incx, dev), oy + vec_offsets(n, incy, dev)
    a = f32(alpha)
    ref = a * x0.double()[ix] + y0.double()[iy]
    scale = (a * x0.double()[ix]).abs() + y0.double()[iy].abs()
    err = (ybuf.double()[iy] - ref).abs()
    assert bool((err <= 2 * EPS32 * scale + 1e-38).all()), float(err.max())
    untouched = torch.ones_like(ybuf, dtype=torch.bool)
    untouched[iy] = False
    assert torch.equal(bits(ybuf)[untouched], bits(y0)[untouched])     # gaps and outside: bitwise
    assert torch.equal(bits(xbuf), bits(x0))                           # input unchanged


@gpu
def test_saxpy_alpha_zero_is_a_no_op_even_with_nan_x(cb):
    dev = torch.device("cuda")
    n = 4097
    x = torch.full((n * 2,), float("nan"), device=dev)
    y = torch.randn(n * 3, device=dev)
    y0 = y.clone()
    cb.saxpy(n, 0.0, x, -2, y, 3)
    torch.cuda.synchronize()
    assert torch.equal(bits(y), bits(y0))


@gpu
def test_saxpy_scalar_pool_and_device_tensor_alpha(cb):
    dev = torch.device("cuda")
    x, y = torch.ones(64, device=dev), torch.zeros(64, device=dev)
    cb.saxpy(64, 0.1, x, 1, y, 1)
    size = len(cb._scalars)
    s = cb.scalar(torch.float32, 0.1)
    assert s is cb.scalar(torch.float32, 0.1) and s.device.type == "cuda" and s.numel() == 1
    assert float(s) == f32(0.1)
    for _ in range(20):
        cb.saxpy(64, 0.1, x, 1, y, 1)
    assert len(cb._scalars) == size                  # no new scalars in a loop
    alpha_t = torch.tensor([2.0], device=dev)
    cb.saxpy(64, alpha_t, x, 1, y, 1)
    torch.cuda.synchronize()
    assert torch.allclose(y, torch.full_like(y, 21 * f32(0.1) + 2.0), rtol=1e-5, atol=0)
    assert blas.cublasSaxpy_v2(64, 1.0, x, 1, y, 1) is y


@gpu
def test_saxpy_runs_on_torchs_current_stream(cb):
    dev = torch.device("cuda")
    n = 1 << 20
    x = torch.ones(n, device=dev)
    y = torch.zeros(n, device=dev)
    y0 = torch.full((n,), 2.0, device=dev)
    torch.cuda.synchronize()
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        torch.cuda._sleep(100_000_000)               # keeps s busy; work on another stream overtakes
        y.copy_(y0)
        cb.saxpy(n, 3.0, x, 1, y, 1)
    s.synchronize()
    assert bool((y == 5.0).all())                    # saxpy ordered after the copy on s
    cb.saxpy(n, 1.0, x, 1, y, 1)                     # back on the default stream
    torch.cuda.synchronize()
    assert bool((y == 6.0).all())


@gpu
def test_saxpy_argument_errors(cb):
    dev = torch.device("cuda")
    y = torch.zeros(18, device=dev)
    with pytest.raises(ValueError, match=r"cublasSaxpy_v2: x must have dtype torch.float32"):
        cb.saxpy(4, 1.0, torch.zeros(4, device=dev, dtype=torch.float64), 1, y, 1)
    with pytest.raises(ValueError, match=r"cublasSaxpy_v2: x must be on cuda:"):
        cb.saxpy(4, 1.0, torch.zeros(4), 1, y, 1)
    with pytest.raises(ValueError, match=r"cublasSaxpy_v2: y has 18 elements .* spans 19"):
        cb.saxpy(10, 1.0, torch.zeros(10, device=dev), 1, y, 2)
    with pytest.raises(ValueError, match=r"cublasSaxpy_v2: alpha must be real"):
        cb.saxpy(4, 1j, torch.zeros(4, device=dev), 1, y, 1)


# ---- sgemm -------------------------------------------------------------------------------------------

def _gemm_case(cb, ta, tb, m, n, k, alpha, beta, *, pad=(5, 3, 7), c_fill=None, ab_fill=None, seed=0):
    """Run sgemm on padded column-major buffers; return everything needed for checks."""
    dev = torch.device("cuda")
    g = torch.Generator(device=dev).manual_seed(seed)
    tac, tbc = blas.trans_code(ta), blas.trans_code(tb)
    ra, ca = (m, k) if tac == 0 else (k, m)
    rb, cb_ = (k, n) if tbc == 0 else (n, k)
    lda, ldb, ldc = ra + pad[0], rb + pad[1], m + pad[2]
    ob = 3                                            # B starts 3 elements into its buffer
    nan = float("nan")
    Abuf = torch.full((lda * ca,), nan, device=dev)     # padding rows NaN: must not be read
    Bbuf = torch.full((ob + ldb * cb_,), nan, device=dev)
    Cbuf = torch.full((ldc * n,), nan, device=dev)      # padding rows NaN: must stay bitwise
    mat_view(Abuf, ra, ca, lda).copy_(torch.randn(ra, ca, device=dev, generator=g))
    mat_view(Bbuf[ob:], rb, cb_, ldb).copy_(torch.randn(rb, cb_, device=dev, generator=g))
    mat_view(Cbuf, m, n, ldc).copy_(torch.randn(m, n, device=dev, generator=g))
    if ab_fill is not None:
        mat_view(Abuf, ra, ca, lda).fill_(ab_fill)
        mat_view(Bbuf[ob:], rb, cb_, ldb).fill_(ab_fill)
    if c_fill is not None:
        mat_view(Cbuf, m, n, ldc).fill_(c_fill)
    A0, B0, C0 = Abuf.clone(), Bbuf.clone(), Cbuf.clone()
    C = Cbuf
    out = cb.sgemm(ta, tb, m, n, k, alpha, Abuf, lda, Bbuf[ob:], ldb, beta, C, ldc)
    torch.cuda.synchronize()
    assert out is C
    assert torch.equal(bits(Abuf), bits(A0)) and torch.equal(bits(Bbuf), bits(B0))
    logical = mat_mask(Cbuf.numel(), 0, m, n, ldc, dev)
    assert torch.equal(bits(Cbuf)[~logical], bits(C0)[~logical])       # padding rows bitwise
    A = mat_view(A0, ra, ca, lda).double()
    B = mat_view(B0[ob:], rb, cb_, ldb).double()
    opA = A if tac == 0 else A.T
    opB = B if tbc == 0 else B.T
    return mat_view(Cbuf, m, n, ldc).double(), opA, opB, mat_view(C0, m, n, ldc).double()


def _assert_gemm_close(got, opA, opB, C0, alpha, beta, k):
    a, b = f32(alpha), f32(beta)
    ref = torch.zeros_like(got)
    scale = torch.zeros_like(got)
    if a != 0.0 and k > 0:
        ref += a * (opA @ opB)
        scale += abs(a) * (opA.abs() @ opB.abs())
    if b != 0.0:
        ref += b * C0
        scale += abs(b) * C0.abs()
    assert bool(torch.isfinite(got).all())
    err = (got - ref).abs()
    bound = (k + 2) * EPS32 * scale + 1e-30          # true fp32 (a TF32 product would exceed it)
    assert bool((err <= bound).all()), f"max err {float(err.max())}, max ratio {float((err / bound).max())}"


TT4 = [("N", "N"), ("N", "T"), ("T", "N"), ("T", "T")]


@gpu
@pytest.mark.parametrize("ta,tb", TT4 + [("n", 1), (0, "t"), (1, 0), ("C", "c")])
def test_sgemm_all_transpose_combinations_padded(cb, ta, tb):
    got, opA, opB, C0 = _gemm_case(cb, ta, tb, 37, 29, 53, -0.999, 0.5, seed=1)
    _assert_gemm_close(got, opA, opB, C0, -0.999, 0.5, 53)


@gpu
@pytest.mark.parametrize("ta,tb", TT4)
@pytest.mark.parametrize("m,n,k,alpha,beta", [
    (1, 1, 1, 1.0, 0.0), (16, 16, 16, 0.0, 1.0), (33, 21, 40, 100.001, -1.0), (7, 9, 3, -0.999, 0.5),
    (128, 256, 64, 2.0, -0.5), (256, 128, 128, 0.001, 0.999),
])
def test_sgemm_shapes_and_scalars(cb, ta, tb, m, n, k, alpha, beta):
    got, opA, opB, C0 = _gemm_case(cb, ta, tb, m, n, k, alpha, beta, pad=(0, 2, 1), seed=m + n + k)
    _assert_gemm_close(got, opA, opB, C0, alpha, beta, k)


@gpu
@pytest.mark.parametrize("ta,tb", TT4)
def test_sgemm_beta_zero_does_not_read_nan_c(cb, ta, tb):
    got, opA, opB, C0 = _gemm_case(cb, ta, tb, 100, 99, 97, 1.5, 0.0, c_fill=float("nan"), seed=2)
    _assert_gemm_close(got, opA, opB, C0, 1.5, 0.0, 97)


@gpu
def test_sgemm_alpha_zero_in_device_pointer_mode_still_reads_a_b(cb):
    """alpha = 0 with finite A/B gives exactly 2*C; with NaN A/B the real routine in device pointer mode (the
    binding's, as upstream's) reads them anyway: every element is NaN (measured on the H200, cuBLAS 12; the
    spec's "A/B not read" probe was not made in this mode). The task's reference keeps the BLAS rule (not
    read); this pins what the baseline does."""
    got, opA, opB, C0 = _gemm_case(cb, "N", "T", 64, 64, 64, 0.0, 2.0, ab_fill=1.0, seed=3)
    assert torch.equal(got, 2.0 * C0)                # exact: one rounding of 2*C
    got, opA, opB, C0 = _gemm_case(cb, "N", "T", 64, 64, 64, 0.0, 2.0, ab_fill=float("nan"), seed=3)
    assert bool(got.isnan().all()), int(got.isnan().sum())


@gpu
def test_sgemm_is_true_fp32_not_tf32(cb):
    got, opA, opB, C0 = _gemm_case(cb, "N", "N", 64, 64, 512, 1.0, 0.0, pad=(0, 0, 0), seed=4)
    err = (got - opA @ opB).abs().max().item()
    assert err < 2e-3, f"max error {err}: looks like TF32 (true fp32 gives ~1e-4 at K=512)"


@gpu
def test_sgemm_status_error_and_recovery(cb):
    dev = torch.device("cuda")
    A, B, C = (torch.randn(64, device=dev) for _ in range(3))
    with pytest.raises(blas.CublasError, match=r"cublasSgemm_v2 returned CUBLAS_STATUS_INVALID_VALUE \(7\)"):
        cb.sgemm("N", "N", 8, 4, 4, 1.0, A, 4, B, 4, 0.0, C, 8)          # lda < m
    out = blas.cublasSgemm_v2("N", "N", 8, 4, 4, 1.0, A, 8, B, 4, 0.0, C, 8)
    torch.cuda.synchronize()
    ref = mat_view(A, 8, 4, 8).double() @ mat_view(B, 4, 4, 4).double()
    assert out is C and torch.allclose(mat_view(C, 8, 4, 8).double(), ref, rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match=r"cublasSgemm_v2: B must have dtype torch.float32"):
        cb.sgemm("N", "N", 8, 4, 4, 1.0, A, 8, B.half(), 4, 0.0, C, 8)
    with pytest.raises(ValueError, match=r"cublasSgemm_v2: A has 64 elements .* spans 67"):
        cb.sgemm("T", "N", 8, 4, 4, 1.0, A, 9, B, 4, 0.0, C, 8)          # A stored 4x8, lda 9


# ---- strsv -------------------------------------------------------------------------------------------

def _strsv_case(cb, uplo, trans, diag, n, incx, *, lda_pad=5, encoding="int", seed=0, offdiag=0.1):
    dev = torch.device("cuda")
    g = torch.Generator(device=dev).manual_seed(seed)
    lda = n + lda_pad
    nan = float("nan")
    Abuf = torch.full((lda * n,), nan, device=dev)      # other triangle and padding: NaN, never read
    A = mat_view(Abuf, n, n, lda)
    i = torch.arange(n, device=dev)
    tri = (i[:, None] >= i[None, :]) if uplo == 0 else (i[:, None] <= i[None, :])
    vals = offdiag * torch.randn(n, n, device=dev, generator=g)
    vals.diagonal().copy_(3.0 + torch.rand(n, device=dev, generator=g))
    A.copy_(torch.where(tri, vals, torch.full_like(vals, nan)))
    if diag == 1:
        A.diagonal().fill_(nan)                      # unit diagonal: not read
    ox = 2
    xbuf = torch.randn(ox + blas._vec_extent(n, incx) + 3, device=dev, generator=g)
    A0, x0 = Abuf.clone(), xbuf.clone()

    flags = (uplo, trans, diag) if encoding == "int" else ("LU"[uplo], "NT"[trans], "NU"[diag])
    out = cb.strsv(*flags, n, Abuf, lda, xbuf[ox:], incx)
    torch.cuda.synchronize()
    assert out.data_ptr() == xbuf[ox:].data_ptr()

    T = torch.where(tri, mat_view(A0, n, n, lda).double(), torch.zeros((), device=dev, dtype=torch.float64))
    if diag == 1:
        T.diagonal().fill_(1.0)
    op = T if trans == 0 else T.T
    ix = ox + vec_offsets(n, incx, dev)
    z = torch.linalg.solve(op, x0.double()[ix])
    got = xbuf.double()[ix]
    assert bool(torch.isfinite(got).all())
    torch.testing.assert_close(got, z, rtol=1e-4, atol=1e-5)
    untouched = torch.ones_like(xbuf, dtype=torch.bool)
    untouched[ix] = False
    assert torch.equal(bits(xbuf)[untouched], bits(x0)[untouched])
    assert torch.equal(bits(Abuf), bits(A0))


@gpu
@pytest.mark.parametrize("encoding", ["int", "str"])
@pytest.mark.parametrize("incx", [1, -2, 3])
@pytest.mark.parametrize("uplo,trans,diag", list(itertools.product((0, 1), repeat=3)))
def test_strsv_all_flag_combinations(cb, uplo, trans, diag, incx, encoding):
    _strsv_case(cb, uplo, trans, diag, 40, incx, encoding=encoding, seed=uplo * 4 + trans * 2 + diag)


@gpu
@pytest.mark.parametrize("n", [1, 17, 517, 1024])
@pytest.mark.parametrize("uplo,trans", [(0, 0), (1, 1), (0, 1), (1, 0)])
def test_strsv_sizes(cb, n, uplo, trans):
    _strsv_case(cb, uplo, trans, 0, n, 2 if n % 2 else -1, offdiag=1.0 / max(n, 1) ** 0.5, seed=n)


@gpu
def test_strsv_errors(cb):
    dev = torch.device("cuda")
    A, x = torch.eye(4, device=dev).flatten(), torch.ones(4, device=dev)
    with pytest.raises(blas.CublasError, match=r"cublasStrsv_v2 returned CUBLAS_STATUS_INVALID_VALUE"):
        cb.strsv(0, 0, 0, 4, torch.zeros(64, device=dev), 3, x, 1)        # lda < n
    with pytest.raises(ValueError, match=r"cublasStrsv_v2: A must have dtype torch.float32"):
        cb.strsv(0, 0, 0, 4, A.double(), 4, x, 1)
    assert blas.cublasStrsv_v2("L", "N", "N", 4, A, 4, x, 1) is x
