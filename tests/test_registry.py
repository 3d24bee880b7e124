"""The registry finds its family modules by walking ``suite/<source>/`` and credits each row to its file."""
from __future__ import annotations

import sys
import types

import pytest

from kernelgenbench.suite import registry
from kernelgenbench.suite.registry import all_operators, defined_in, family_modules, get_operator


def test_every_family_module_is_found_and_every_row_credited_to_an_existing_file() -> None:
    found = family_modules()
    for name in ("aten.binary", "aten.shape", "aten.random.operators", "vllm.norms", "cublas.level1"):
        assert f"kernelgenbench.suite.{name}" in found
    ops = all_operators()
    assert len(ops) == len({o.id for o in ops}) >= 116
    files = {o.id: defined_in(o) for o in ops}
    assert files["aten::bmm"] == "suite/aten/shape.py"
    assert files["vllm::rms_norm"] == "suite/vllm/norms.py"
    # A package re-exporting its submodule's rows: the submodule is credited, not the package.
    assert files["aten::bernoulli"] == "suite/aten/random/operators.py"
    assert defined_in("aten::bernoulli") == files["aten::bernoulli"]
    for op in ops:
        assert files[op.id].startswith(f"suite/{op.source}/") and files[op.id].endswith(".py")
        assert op in sys.modules[registry._registry()[1][op.id]].OPERATORS
    with pytest.raises(KeyError):
        defined_in("aten::no_such_op")


def _fake_families(monkeypatch: pytest.MonkeyPatch, **modules: list) -> None:
    for name, rows in modules.items():
        mod = types.ModuleType(name)
        mod.OPERATORS = rows  # type: ignore[attr-defined]
        monkeypatch.setitem(sys.modules, name, mod)
    monkeypatch.setattr(registry, "family_modules", lambda: list(modules))
    registry._registry.cache_clear()


@pytest.fixture()
def fresh_registry():
    yield
    registry._registry.cache_clear()


def test_a_row_listed_by_two_unrelated_modules_or_two_rows_with_one_id_are_errors(
        monkeypatch: pytest.MonkeyPatch, fresh_registry: None) -> None:
    add, mm = get_operator("aten::add"), get_operator("aten::mm")
    _fake_families(monkeypatch, **{"fam.pkg": [add], "fam.pkg.sub": [add, mm]})
    assert registry._registry()[1] == {"aten::add": "fam.pkg.sub", "aten::mm": "fam.pkg.sub"}
    _fake_families(monkeypatch, **{"fam.a": [add], "fam.b": [add]})
    with pytest.raises(RuntimeError, match=r"aten::add is listed by both fam\.a and fam\.b"):
        registry._registry()
    twin = type(add).__new__(type(add))
    twin.__dict__.update(add.__dict__)
    _fake_families(monkeypatch, **{"fam.a": [add], "fam.b": [twin]})
    with pytest.raises(RuntimeError, match=r"aten::add is defined twice \(fam\.a, fam\.b\)"):
        registry._registry()


def test_loading_every_family_imports_no_compiler_stack() -> None:
    """Every process that loads the registry (the CLI, each sandbox child until it imports its one family) pays
    for what family modules import: a module-level ``@torch.compiler.disable`` imported torch._dynamo, 1.3 s of
    CPU per process (ssm.py, 2026-12-05). The families import no compiler stack; the child imports one family."""
    import subprocess
    import sys

    code = ("import sys, torch; import kernelgenbench.suite.registry as r; r.all_operators(); "
            "print(sorted(m for m in ('torch._dynamo', 'torch._inductor') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]", out
    from kernelgenbench.suite.registry import defining_module, operator_from_module

    mod = defining_module("vllm::selective_scan_fwd")
    assert mod == "kernelgenbench.suite.vllm.ssm"
    assert operator_from_module("vllm::selective_scan_fwd", mod).id == "vllm::selective_scan_fwd"
    with pytest.raises(KeyError):
        operator_from_module("vllm::rms_norm", mod)
    with pytest.raises(KeyError):
        operator_from_module("vllm::rms_norm", "os")
