"""The patched-oracle fixtures (tests/fixture_files.py): every patch still applies to its oracle, and
a patch that no longer applies fails loudly instead of evaluating the unpatched oracle."""
from __future__ import annotations

from pathlib import Path

import pytest
from fixture_files import (
    PATCH_SUFFIX,
    PatchDoesNotApply,
    fixture_kind,
    fixture_name,
    fixture_op,
    oracle_of,
    submission_text,
    write_submission,
)

from kernelgenbench.suite.registry import get_operator
from kernelgenbench.verify.scan import scan_source

TESTS = Path(__file__).parent
PATCHES = sorted([*TESTS.glob(f"*/*{PATCH_SUFFIX}"), *(TESTS.parent / "bench" / "redteam").glob(f"*{PATCH_SUFFIX}")])


def test_there_are_patched_fixtures() -> None:
    assert {p.parent.name for p in PATCHES} == {"bad", "good", "bad_timing", "redteam"}


#: Legal-in-intent fixtures that L1 refuses by policy (tests/test_legal_submissions.py XFAIL says why), with the
#: rule that refuses them: they must keep failing L1 for that rule and no other.
L1_POLICY_REFUSED = {"ptr_stack": "raw-storage", "sig_bind": "introspection"}

#: Cheats (tests/bad, EXPECTED static_scan) that L1 refuses since red team 31, with the rules that refuse them: they
#: must keep failing L1 for exactly these rules.
L1_CAUGHT = {
    "pkg_import": {"monkey-patch"},                     # a torch.package importer as a base class
    "dispatch_off": {"monkey-patch"},                   # torch._C._DisableTorchDispatch as a base class
    "mode_relay": {"monkey-patch", "introspection"},    # a TorchDispatchMode base, an assigned __torch_dispatch__
    "param_subclass": {"introspection"},                # a torch.nn.Parameter (tensor) subclass, an assigned handler
    "np_handle": {"kernel-body"},                       # x.handle in a kernel body (interpreter: NumPy)
    "hints_eval": {"exec-eval"},                        # typing.get_type_hints evaluates a string annotation
    "c_ext": {"foreign-compute"},                       # triton.runtime.build compiles C
    "code_rewrite": {"introspection", "monkey-patch"},  # update_wrapper(..., ("__code__",), ()): names judged (rt37);
                                                        # a store into its target, Triton's tl.maximum (rt39b)
    "fn_code": {"introspection", "monkey-patch"},       # the same on a kernel's own function (red team 37): k.fn
    "fn_swap": {"monkey-patch"},                        # k.fn = a host def through an alias of the kernel (rt39b)
    "loader_exec": {"introspection"},                   # __loader__ ran a bytes literal as the module (rt42)
    "loader_rebound": {"introspection"},                # the same after `__loader__ = __loader__` (rb42)
    "code_rebuild": {"introspection"},                  # a coroutine's cr_code rebuilt into a function (rt43)
    "getstate_exec": {"introspection"},                 # a module's globals through object.__getstate__ (rt43)
    "tensor_method_value": {"tensor-method"},           # torch.Tensor.erf as operator.call's argument (rt43)
    "attr_error_obj": {"introspection"},                # an AttributeError's obj: the torch module (rt44)
    "global_enum": {"monkey-patch"},                    # enum.global_enum into the harness's module (rt44)
}


@pytest.mark.parametrize("path", PATCHES, ids=fixture_name)
def test_patch_applies_and_the_submission_passes_l1(path: Path) -> None:
    """Each patched fixture is a whole submission that differs from its oracle and passes L1 (every
    one is caught later, or is legal), except the policy refusals, which fail L1 for their rule only, and the
    cheats L1 catches (L1_CAUGHT), which fail L1 for their rules only."""
    text = submission_text(path)
    assert text != oracle_of(path).read_text()
    op = get_operator(fixture_op(path))
    findings = scan_source(text, filename=path.name, **op.scan_policy())
    rule = L1_POLICY_REFUSED.get(fixture_kind(path))
    if rule is not None:
        assert findings and {f.rule for f in findings} == {rule}, [(f.rule, f.message) for f in findings]
        return
    rules = L1_CAUGHT.get(fixture_kind(path)) if path.parent.name == "bad" else None
    if rules is not None:
        assert findings and {f.rule for f in findings} == rules, [(f.rule, f.message) for f in findings]
        return
    assert not findings, [f.message for f in findings]


def test_a_patch_that_no_longer_applies_fails_loudly(tmp_path: Path) -> None:
    stale = tmp_path / f"stale__aten__neg{PATCH_SUFFIX}"
    stale.write_text('"""A patch whose text the oracle no longer has."""\n\n'
                     'SUBSTITUTIONS = [("def neg_no_such_wrapper(", "def neg_other(")]\n')
    with pytest.raises(PatchDoesNotApply, match="occurs 0 time"):
        write_submission(stale, tmp_path / "aten__neg.py")
    assert not (tmp_path / "aten__neg.py").exists()
