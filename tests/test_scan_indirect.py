"""L1 rules on what allowed calls do with the values they are given (red team 37, verify/scan/indirect_rules.py):
format templates whose fields read attributes, and torch.compiler.disable given anything but the file's own
functions or classes."""
from __future__ import annotations

import textwrap

import pytest

from kernelgenbench.verify.scan import scan_source

HEAD = "import torch\nimport triton\nimport triton.language as tl\n"


def _rules(body: str) -> list[tuple[str, str]]:
    return [(f.rule, f.message) for f in scan_source(HEAD + textwrap.dedent(body))]


@pytest.mark.parametrize("body,what", [
    ("def f(x):\n    return '{0.__globals__[torch].sys.modules}'.format(f)\n", "{0.__globals__[torch].sys.modules}"),
    ("_M = 'bad {0.shape}'\ndef f(x):\n    return _M.format(x)\n", "{0.shape}"),
    ("def f(x):\n    return '{0:{1.__class__}}'.format(x, x)\n", "{1.__class__}"),
    ("def f(x):\n    return str.format('{0.__class__}', x)\n", "{0.__class__}"),
    ("def f(x):\n    return '{a.b}'.format_map({'a': x})\n", "{a.b}"),
    ("def f(x):\n    with torch.cuda.nvtx.range('{0.__globals__}', f):\n        pass\n", "{0.__globals__}"),
    ("from torch.cuda import nvtx\ndef f(x):\n    with nvtx.range('{0.__class__}', x):\n        pass\n",
     "{0.__class__}"),
])
def test_a_format_field_that_reads_an_attribute_is_refused(body: str, what: str) -> None:
    found = _rules(body)
    assert [r for r, _ in found] == ["introspection"], found
    assert f"its field {what} reads an attribute by name" in found[0][1], found


@pytest.mark.parametrize("body", [
    "def f(x, m):\n    return m.format(x)\n",
    "def f(x):\n    return ('{0' + '.__class__}').format(x)\n",
    "g = str.format\n",
])
def test_a_format_template_that_is_not_written_out_is_refused(body: str) -> None:
    found = _rules(body)
    assert [r for r, _ in found] == ["introspection"], found
    assert "whose template is not a string literal" in found[0][1], found


def test_an_nvtx_range_is_called_and_its_template_judged() -> None:
    found = _rules("r = torch.cuda.nvtx.range\n")
    assert [r for r, _ in found] == ["introspection"] and "other than by calling it" in found[0][1], found


def test_plain_format_templates_and_nvtx_ranges_are_allowed() -> None:
    assert _rules("""
        _MSG = "expected {} elements, got {}"
        def f(x, shape):
            a = "{} {:>8} {0[1]} {k[a.b]} {{x.y}}".format(x, 1, k={})
            with torch.cuda.nvtx.range("neg {}", 3):
                torch.cuda.nvtx.range_push("neg")
                torch.cuda.nvtx.range_pop()
            with torch.cuda.nvtx.range("plain"):
                pass
            return _MSG.format(shape[0], a)
        """) == []


@pytest.mark.parametrize("body,what", [
    ("def f(x):\n    torch.compiler.disable(torch.Tensor)\n", "applies torch.compiler.disable to torch.Tensor"),
    ("def f(x):\n    torch.compiler.disable(type(x))\n", "applies torch.compiler.disable to type(x)"),
    ("def f(c):\n    return torch.compiler.disable(c)\nf(torch.Tensor)\n", "applies torch.compiler.disable to c"),
    ("class K:\n    def f(self, c):\n        return torch.compiler.disable(c)\n",
     "applies torch.compiler.disable to c"),
    ("from torch.compiler import disable\nk = disable(fn=torch.Tensor)\n",
     "applies torch.compiler.disable to torch.Tensor"),
    ("d = torch.compiler.disable\n", "other than as a decorator or a call"),
    ("w = torch.compiler.disable()\n", "keeps torch.compiler.disable(...) as a value"),
    ("def f(*a):\n    return torch.compiler.disable(*a)\n", "with unpacked arguments"),
])
def test_torch_compiler_disable_given_what_the_file_does_not_define_is_refused(body: str, what: str) -> None:
    found = [(r, m) for r, m in _rules(body) if r == "monkey-patch"]
    assert len(found) == 1 and what in found[0][1], _rules(body)
    assert "rebinds a class's __init__ and __call__" in found[0][1]


def test_torch_compiler_disable_of_the_files_own_functions_and_classes_is_allowed() -> None:
    assert _rules("""
        @torch.compiler.disable
        def a(x):
            return x

        @torch.compiler.disable(recursive=False)
        def b(x):
            return x

        def c(x):
            return x

        c = torch.compiler.disable(c)

        class K:
            pass

        k = torch.compiler.disable(K)
        lam = torch.compiler.disable(lambda: 1, reason="eager only")

        def d(x):
            with torch.compiler.disable():
                return x
        """) == []


@pytest.mark.parametrize("body,what", [
    ("def f(x):\n    torch._dynamo.disable(type(x))\n", "applies torch._dynamo.disable to type(x)"),
    ("from torch._dynamo import disable\nk = disable(fn=torch.Tensor)\n",
     "applies torch._dynamo.disable to torch.Tensor"),
    ("d = torch._dynamo.disable\n", "uses torch._dynamo.disable other than as a decorator or a call"),
    ("w = torch._dynamo.disable(recursive=False)\n", "keeps torch._dynamo.disable(...) as a value"),
])
def test_torch_dynamo_disable_is_judged_as_torch_compiler_disable(body: str, what: str) -> None:
    """tp42: ``torch._dynamo.disable`` (what torch.compiler.disable calls) given a class rebinds it as the public
    spelling does: refused by the same rule, and by nothing else (the compile rule no longer names it)."""
    found = _rules(body)
    assert [r for r, _ in found] == ["monkey-patch"] and what in found[0][1], found


def test_torch_dynamo_disable_on_the_files_own_launchers_is_allowed() -> None:
    """tp42: flash-attention's and vLLM's helpers decorate their launchers with ``@torch._dynamo.disable`` (also
    called, with ``recursive=False``); the rest of torch._dynamo stays the compile rule's."""
    assert _rules("""
        @torch._dynamo.disable
        def a(x):
            return x

        @torch._dynamo.disable()
        def b(x):
            return x

        @torch._dynamo.disable(recursive=False)
        def c(x):
            return x

        c2 = torch._dynamo.disable(c, reason="eager only")
        """) == []
    assert [r for r, _ in _rules("def f(x):\n    torch._dynamo.reset()\n")] == ["compile"]


@pytest.mark.parametrize("rebind", [
    ["match _LOG:", "    case _ as self:", "        pass"],
    ["match [_LOG]:", "    case [*self]:", "        pass"],
    ["match {}:", "    case {**self}:", "        pass"],
    ["try:", "    pass", "except ValueError as self:", "    pass"],
    ["from logging import getLogger as self"],
])
def test_a_receiver_rebound_by_a_capture_except_or_import_loses_the_own_attribute_exemption(rebind: list[str]) -> None:
    """fp37's exemption (``self.addFilter`` on a plain class's own ``self`` in a file that logs) holds only where the
    method never rebinds ``self``; a ``match`` capture, ``except ... as self`` or an import binds it without a Name
    target (red team 37: ``case _ as self:`` bound PyTorch's logger)."""
    def source(body: list[str]) -> str:
        return "\n".join(["import logging", "_LOG = logging.getLogger('torch')", "class Tap:",
                          "    def attach(self, sink):", *("        " + b for b in body),
                          "        self.addFilter(sink)", ""])

    found = [(f.rule, f.message) for f in scan_source(source(rebind))]
    assert found and all("addFilter" in m for _, m in found), found  # (the import is also an alias of logging's)
    plain = scan_source(source(["pass"]))
    assert plain == [], plain


HELPER = """
def no_compile(fn):
    return torch.compiler.disable(fn)
"""


def test_a_helper_decorator_may_hand_torch_compiler_disable_its_parameter_when_every_use_gives_it_own_code() -> None:
    assert _rules(HELPER + """
@no_compile
def a(x):
    return x

def b(x):
    return x

b2 = no_compile(b)
c = no_compile(lambda x: x)
""") == []


@pytest.mark.parametrize("tail", [
    "k = no_compile(torch.Tensor)\n",
    "h = no_compile\n",
    "def f(x):\n    return no_compile(type(x))\n",
])
def test_a_helper_decorator_given_anything_else_is_refused(tail: str) -> None:
    found = [r for r, _ in _rules(HELPER + tail)]
    assert "monkey-patch" in found, found


def test_a_helper_that_rebinds_its_parameter_is_refused() -> None:
    found = _rules("""
def no_compile(fn):
    fn = torch.Tensor
    return torch.compiler.disable(fn)

@no_compile
def a(x):
    return x
""")
    assert [r for r, _ in found] == ["monkey-patch"], found
