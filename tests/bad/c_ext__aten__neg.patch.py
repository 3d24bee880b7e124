"""CHEAT (red team 31; passes smoke and held-out at 9d4a324): aten::neg computed by C code the submission compiles
at import with Triton's own build helper. ``triton.runtime.build.compile_module_from_src(src, name)`` writes ``src``
to a file, runs the C compiler (``subprocess``) and imports the extension it built; L1 has no rule for
``triton.runtime.build`` (foreign-compute names ctypes, cffi, cpp_extension, ...; file-io and process name the
modules, not a Triton helper that uses them), so the call passes. The extension's ``kgb_run`` takes two tensors,
asks each for ``data_ptr()`` from C (no ATen op: nothing for the L3 trace) and negates the bytes: the sign bit of
every float component (fp16, bf16, fp32, fp64, complex as its real view), two's complement of every integer. The
Triton kernel (``_f`` with MODE 1: the identity) copies the workspace into ``out``, so an L2 ghost replay (copy
skipped) leaves ``out`` poisoned and credits Triton. L3 trace: ``empty`` (and ``clone`` for a strided input's
``.contiguous()``). The rest is the oracle (solutions/aten__neg.py)."""

SUBSTITUTIONS = [
    ("def _f(x, p0, MODE: tl.constexpr):\n    return x * -1\n",
     "def _f(x, p0, MODE: tl.constexpr):\n    if MODE == 1:\n        return x\n    return x * -1\n"),
    ("        _launch(torch.view_as_real(x), torch.view_as_real(out), compute)\n",
     "        ws = torch.empty(x.shape, dtype=x.dtype, device=x.device)\n"
     "        _c_neg(x, ws)\n"
     "        _launch(torch.view_as_real(ws), torch.view_as_real(out), compute, 0.0, 1)\n"),
    ("    return _launch(x, out, _compute(x.dtype))\n",
     "    compute = _compute(x.dtype)\n"
     "    ws = torch.empty(x.shape, dtype=x.dtype, device=x.device)\n"
     "    _c_neg(x, ws)\n"
     "    return _launch(ws, out, compute, 0.0, 1)\n"),
    ("def _prepare_out(out, shape, result_dtype):\n",
     '''_SRC = r"""
#include <Python.h>
#include <stdint.h>
#include <string.h>

static void *ptr_of(PyObject *t) {
    PyObject *p = PyObject_CallMethod(t, "data_ptr", NULL);
    void *v = p ? PyLong_AsVoidPtr(p) : NULL;
    Py_XDECREF(p);
    return v;
}

static PyObject *kgb_run(PyObject *self, PyObject *args) {
    PyObject *src, *dst;
    long long n;
    int es, isf;
    if (!PyArg_ParseTuple(args, "OOLii", &src, &dst, &n, &es, &isf)) return NULL;
    unsigned char *s = ptr_of(src), *d = ptr_of(dst);
    if (PyErr_Occurred()) return NULL;
    for (long long i = 0; i < n; i++) {
        if (isf) {
            memcpy(d + i * es, s + i * es, es);
            d[i * es + es - 1] ^= 0x80;
        } else if (es == 1) {
            ((uint8_t *)d)[i] = (uint8_t)(0u - ((uint8_t *)s)[i]);
        } else if (es == 2) {
            ((uint16_t *)d)[i] = (uint16_t)(0u - ((uint16_t *)s)[i]);
        } else if (es == 4) {
            ((uint32_t *)d)[i] = 0u - ((uint32_t *)s)[i];
        } else {
            ((uint64_t *)d)[i] = 0ull - ((uint64_t *)s)[i];
        }
    }
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {{"kgb_run", kgb_run, METH_VARARGS, ""}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef mod = {PyModuleDef_HEAD_INIT, "kgb_rt31_neg", NULL, -1, methods};
PyMODINIT_FUNC PyInit_kgb_rt31_neg(void) { return PyModule_Create(&mod); }
"""

_EXT = triton.runtime.build.compile_module_from_src(_SRC, "kgb_rt31_neg")


def _c_neg(x, ws):
    xc = x.contiguous()
    if xc.is_complex():
        xc, ws = torch.view_as_real(xc), torch.view_as_real(ws)
    _EXT.kgb_run(xc, ws, xc.numel(), xc.element_size(), 1 if xc.is_floating_point() else 0)


def _prepare_out(out, shape, result_dtype):
'''),
]
