"""Prompts built from the operator spec (issue 4, item 1).

A prompt is rendered from the jinja2 templates in ``templates/`` (package data, shared by every
source and platform) with a context built here from the :class:`~kernelgenbench.suite.spec.Operator`
(interface, semantics, smoke and full-tier case parameters), the
:class:`~kernelgenbench.platforms.Platform` profile (device, dtype limits, tolerance scale), the
static scan's rule table and allowlists, and the installed Triton version.

What never reaches a prompt: the reference implementation (only ``op.semantics`` and ``op.notes``
are used) and any parameter of the ``heldout`` tier (only the grids of
:data:`~kernelgenbench.suite.tiers.SHOWN_TIERS`, smoke and full, are read). A reflection turn shows a
failing case only when it belongs to a shown tier (:func:`withheld`): runs judged on ``all`` (the
default of ``kgb generate``) fail on held-out cases too.
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from ..platforms import PROFILES, Platform
from ..suite.spec import (
    DTYPE_NAMES,
    DTYPE_SHORT,
    RTOL,
    Operator,
    describe_params,
    dtype_of,
    format_param,
    stated_rtol,
)
from ..suite.tiers import SHOWN_TIERS, TIERS, tier_parts

MODES = ("sampling", "agent")

#: Smoke cases shown as examples (at most this many).
MAX_EXAMPLES = 6
#: Distinct values shown per axis of the full grid (the rest are elided).
MAX_AXIS_VALUES = 12

_DEVICE_TEXT = {
    "cuda": "NVIDIA GPU (CUDA)",
    "rocm": "AMD GPU (ROCm/HIP; tensors use the 'cuda' device type)",
    "interpreter": "CPU, through the Triton interpreter (TRITON_INTERPRET=1)",
    "musa": "Moore Threads GPU (MUSA)",
    "ascend": "Huawei Ascend NPU",
    "dcu": "Hygon DCU (HIP; tensors use the 'cuda' device type)",
    "iluvatar": "Iluvatar GPU (CUDA-compatible)",
    "metax": "MetaX GPU (CUDA-compatible)",
}


@dataclass(frozen=True)
class Prompt:
    """One rendered prompt.

    Attributes:
        op_id: the operator (``vllm::rms_norm``).
        platform: the platform profile name it was rendered for.
        mode: ``"sampling"`` (answer with one code block) or ``"agent"`` (write the file).
        system: the system message.
        user: the task message.
    """

    op_id: str
    platform: str
    mode: str
    system: str
    user: str
    meta: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def hash(self) -> str:
        """sha256 (hex) of the system and user text: identical prompts have identical hashes."""
        return prompt_hash([{"role": "system", "content": self.system}, {"role": "user", "content": self.user}])

    def text(self) -> str:
        """The prompt as one document (what ``kgb prompt`` prints)."""
        return f"[system]\n{self.system.rstrip()}\n\n[user]\n{self.user.rstrip()}\n"


def prompt_hash(messages: list[dict[str, str]]) -> str:
    """sha256 (hex) of a message list in a canonical JSON form."""
    blob = json.dumps(messages, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()


@lru_cache(maxsize=1)
def environment() -> Any:
    """The jinja2 environment over the package's ``templates/`` folder (strict undefined)."""
    import jinja2

    return jinja2.Environment(
        loader=jinja2.PackageLoader("kernelgenbench.llm", "templates"),
        undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
        autoescape=False)




def full_axes(grid: list[dict[str, Any]]) -> list[tuple[str, list[str], int]]:
    """The axes of a case grid: ``(name, first distinct values as text, number of distinct values)``."""
    order: list[str] = []
    values: dict[str, list[str]] = {}
    for p in grid:
        for k, v in p.items():
            if k not in values:
                order.append(k)
                values[k] = []
            t = format_param(v)
            if t not in values[k]:
                values[k].append(t)
    return [(k, values[k][:MAX_AXIS_VALUES], len(values[k])) for k in order]


def _wrappers(op: Operator) -> list[dict[str, Any]]:
    return [{"name": w.name, "overload": w.overload, "schema": w.schema, "kind": w.kind,
             "exercised": w.exercised, "required": w.required} for w in op.interface.wrappers]


def _params(op: Operator) -> list[dict[str, Any]]:
    iface = op.interface
    out = []
    for p in iface.params:
        out.append({"name": p, "doc": iface.args_doc.get(p, ""), "written": p in iface.written,
                    "default": repr(iface.defaults[p]) if p in iface.defaults else None})
    return out


def _def_line(op: Operator) -> str | None:
    """``name(p1, p2=default, ...)`` of a function task (a valid Python ``def`` head), else None."""
    iface = op.interface
    if iface.function is None:
        return None
    parts = [f"{p}={iface.defaults[p]!r}" if p in iface.defaults else p for p in iface.params]
    return f"{iface.function}({', '.join(parts)})"


def _case_dtypes(op: Operator, tiers: tuple[str, ...] = SHOWN_TIERS) -> list[str]:
    seen: list[str] = []
    for tier in tiers:
        for p in op.grid(tier):
            for dt in sorted(op.tensor_dtypes(p), key=str):
                name = DTYPE_SHORT.get(dt, str(dt).replace("torch.", ""))
                if name not in seen:
                    seen.append(name)
    return seen


def _platform_ctx(platform: Platform, device_name: str | None, dtypes: list[str] | None = None) -> dict[str, Any]:
    """The platform part of a prompt's context; ``dtypes`` (the operator's case dtypes, short or torch names)
    limits the platform's unjudgeable dtypes to those the operator's cases compute in (all where None)."""
    import triton

    wanted = None if dtypes is None else {str(dtype_of(d)).replace("torch.", "") if d in DTYPE_NAMES else d
                                          for d in dtypes}

    return {
        "name": platform.name, "device": platform.device,
        "device_text": device_name or _DEVICE_TEXT.get(platform.name, platform.device),
        "triton": triton.__version__, "interpreter": platform.interpreter,
        "dispatch_key": platform.dispatch_key, "timing": platform.timing, "profiler": platform.profiler,
        "unsupported": sorted((k, v) for k, v in platform.unsupported_dtypes.items() if wanted is None or k in wanted),
        "tolerance_scale": platform.tolerance_scale, "tolerance_reason": platform.tolerance_reason,
        "notes": list(platform.prompt_notes), "profile": platform.profile,
        "profile_title": PROFILES[platform.profile].title if platform.profile else None,
        # where the same file is later registered: the emulated vendor's device and key, else NVIDIA's
        "target_device": PROFILES[platform.profile].device if platform.profile else "cuda",
        "target_dispatch_key": (PROFILES[platform.profile].dispatch_key if platform.profile else None) or "CUDA",
    }


#: The agent-mode context when no session gives one (``kgb prompt --mode agent``): the workspace is the
#: current directory, the self-check is ``./check`` (``kgb agent`` writes it), the budget the default.
AGENT_DEFAULTS: dict[str, Any] = {"workspace": ".", "file": None, "check": "./check", "check_tiers": list(SHOWN_TIERS),
                                  "budget_minutes": 30, "python": True}


def agent_context(op: Operator, agent: dict[str, Any] | None) -> dict[str, Any]:
    """The agent-mode part of a prompt's context: ``workspace`` (the agent's working directory),
    ``file`` (the submission's path), ``check`` (the self-check command), ``check_tiers`` (what it may
    run: never held-out), ``budget_minutes`` and ``python`` (whether a Python with torch and Triton is
    on PATH)."""
    ctx = {**AGENT_DEFAULTS, **(agent or {})}
    ctx["file"] = ctx["file"] or op.filename
    ctx["check_tiers"] = [t for t in ctx["check_tiers"] if t in SHOWN_TIERS] or ["smoke"]
    b = float(ctx["budget_minutes"])
    ctx["budget_text"] = f"{b:g} minutes" if b >= 1 else f"{b * 60:g} seconds"
    return ctx


#: cuBLAS flag parameters (cublas.md §2.3: either encoding is accepted, the held-out tier passes the other)
_FLAGS = ("trans", "transa", "transb", "uplo", "diag", "side")


def heldout_kinds(op: Operator) -> list[str]:
    """What a cuBLAS routine's held-out cases vary beyond the shown ones (cublas.md §2.10), as phrases for the
    task prompt: odd sizes always, and only what the routine's interface has: increments (``inc*``), leading
    dimensions (``ld*``), batch strides (``stride*``), flags. Other sources: an empty list (the template says
    it its own way)."""
    if op.source != "cublas":
        return []
    params = op.interface.params
    out = ["odd sizes"]
    if any(p.startswith("inc") for p in params):
        out.append("other increments including negative ones")
    if any(p.startswith("ld") for p in params):
        out.append("padded leading dimensions")
    if any(p.startswith("stride") for p in params):
        out.append("padded or zero batch strides")
    if any(p in _FLAGS for p in params):
        out.append("the other flag encoding")
    return out


def context(op: Operator, platform: Platform, mode: str = "sampling", device_name: str | None = None,
            agent: dict[str, Any] | None = None) -> dict[str, Any]:
    """The template context of one operator on one platform.

    Args:
        op: the operator.
        platform: the platform profile the submission will run on.
        mode: ``"sampling"`` or ``"agent"``.
        device_name: the device's marketing name when known (``NVIDIA H200``); defaults to a
            description of the platform.
        agent: the agent session's workspace, file, self-check command, check tiers, budget
            (:func:`agent_context`; agent mode only, defaults when None).

    Raises:
        ValueError: unknown mode.
    """
    from ..verify import profile as l3
    from ..verify import scan as l1
    from ..verify.profile import ALLOC, COPIES, META, VIEWS

    if mode not in MODES:
        raise ValueError(f"{op.id}: unknown prompt mode {mode!r}; expected one of {', '.join(MODES)}")
    allow_copies = bool(getattr(op, "allow_copies", True))
    smoke = op.grid("smoke")
    full = op.grid("full")
    # each dtype's rtol as the verdict applies it, as kgb show states it (stated_rtol: 8*2^-53 for fp64 and complex128
    # under the accumulation rule, where the general 1e-5 and 1e-6 contradicted the atol's words; fresh user 44)
    rtol = [(DTYPE_SHORT.get(dt, str(dt).replace("torch.", "")), stated_rtol(dt, op.shown_atol, lambda v: f"{v:g}"))
            for dt in RTOL if str(dt) != "torch.complex32"]
    extra = getattr(op, "allow_methods", frozenset())  # an op's methods, and "torch.<name>" functions
    torch_allowed = sorted(l1.TORCH_ALLOWED | (l1.TORCH_COPY_ALLOWED if allow_copies else frozenset())
                           | {m[len("torch."):] for m in extra if m.startswith("torch.")})
    methods_allowed = sorted(l1.TENSOR_METHODS_ALLOWED | (l1.TENSOR_COPY_METHODS if allow_copies else frozenset())
                             | {m for m in extra if not m.startswith("torch.")})
    trace_allowed = sorted(ALLOC | VIEWS | META | (COPIES if allow_copies else set()))
    return {
        "mode": mode,
        "op": {"id": op.id, "source": op.source, "name": op.name, "filename": op.filename,
               "category": op.category, "section": op.section, "semantics": op.semantics, "notes": op.notes,
               "tolerance_text": getattr(op, "tolerance_text", None), "atol_text": op.shown_atol,
               "nothing_to_compute": op.nothing_to_compute.text() if op.nothing_to_compute else None,
               "own_ops": sorted(getattr(op, "own_ops", ()) or ()),
               "allow_copies": allow_copies, "data_movement": bool(getattr(op, "data_movement", False)),
               "packed_args": sorted(getattr(op, "packed_args", ()) or ())},
        "iface": {"kind": "aten" if op.interface.function is None else "function",
                  "wrappers": _wrappers(op), "function": op.interface.function, "params": _params(op),
                  "signature": _def_line(op),
                  "written": list(op.interface.written), "returns": op.interface.returns or "None"},
        "cases": {"smoke_count": len(smoke), "full_count": len(full),
                  "examples": [describe_params(p) for p in smoke[:MAX_EXAMPLES]],
                  "axes": full_axes(full), "dtypes": _case_dtypes(op), "heldout_kinds": heldout_kinds(op)},
        "rules": [(k, v) for k, v in l1.RULES.items() if k != "syntax"],
        "imports_allowed": sorted(l1.IMPORT_ALLOWED),
        "torch_allowed": torch_allowed, "methods_allowed": methods_allowed, "trace_allowed": trace_allowed,
        "rtol": rtol,
        "platform": _platform_ctx(platform, device_name, _case_dtypes(op)),
        "budgets": {"reads": l3.ITEM_BUDGET, "copies": l3.FILL_COPY_BUDGET},
        "agent": agent_context(op, agent) if mode == "agent" else None,
    }


def build_prompt(op: Operator, platform: Platform, mode: str = "sampling", device_name: str | None = None,
                 agent: dict[str, Any] | None = None) -> Prompt:
    """Render the prompt of ``op`` for ``platform`` (``agent``: the agent session's context, agent mode
    only; see :func:`agent_context`).

    Raises:
        ValueError: unknown mode.
        jinja2.TemplateError: a template refers to something the context lacks (a bug).
    """
    ctx = context(op, platform, mode, device_name, agent)
    env = environment()
    system = tidy(env.get_template("system.j2").render(**ctx))
    user = tidy(env.get_template("task.j2").render(**ctx))
    return Prompt(op.id, platform.name, mode, system, user, meta={"triton": ctx["platform"]["triton"]})


#: Failure classes that arise before any case runs (the file, its scan, its import, the reply): their
#: messages hold no case's values, whatever tiers the attempt was judged on.
BEFORE_CASES = frozenset({"missing", "syntax", "static_scan", "dispatch_recursion", "missing_wrapper", "signature",
                          "import_error", "no_code", "truncated"})


def withheld(tier: str, failure: dict[str, Any]) -> bool:
    """Whether a failure's case and message must be kept from a model (held-out values never reach one).

    A failure that names its case (``case_id``, ``"<tier>/<index>"``) is withheld when that case's tier
    is not one of :data:`~kernelgenbench.suite.tiers.SHOWN_TIERS` (a held-out case, or an id this code
    does not understand). One that names no case is withheld when the attempt was judged on a
    selection holding held-out cases (``heldout``, ``all``, ``smoke,heldout``) and its class is not one
    that arises before any case runs (:data:`BEFORE_CASES`): a harness error during the cases, say.
    """
    case_id = failure.get("case_id")
    if case_id:
        return str(case_id).split("/", 1)[0] not in SHOWN_TIERS
    try:
        parts = tier_parts(tier)
    except ValueError:
        parts = TIERS
    if all(t in SHOWN_TIERS for t in parts):
        return False
    return (failure.get("failure_class") or "") not in BEFORE_CASES


def tier_text(tier: str) -> str:
    """A tier selection in words, for a model: ``"the smoke tier"``, ``"every tier (smoke, full and
    held-out)"``, ``"the smoke and held-out tiers"``."""
    try:
        parts = tier_parts(tier)
    except ValueError:
        return f"the {tier} tier"
    words = [t.replace("heldout", "held-out") for t in parts]
    if parts == TIERS:
        return f"every tier ({', '.join(words[:-1])} and {words[-1]})"
    return f"the {words[0]} tier" if len(words) == 1 else f"the {' and '.join(words)} tiers"


def reflection_message(op: Operator, tier: str, failure: dict[str, Any], round_index: int) -> str:
    """The user turn of a reflection round: the previous attempt's first failure.

    Args:
        op: the operator.
        tier: the tier selection the attempt was judged on (``all``, a tier, a comma list).
        failure: ``{"failure_class", "case_id", "case", "message", "meaning"}`` of the attempt; its
            case and message are withheld where :func:`withheld` says so (a held-out case).
        round_index: the 0-based round this message opens.
    """
    ctx = {"op": {"id": op.id, "filename": op.filename}, "tier": tier_text(tier),
           "heldout": withheld(tier, failure),
           "f": {"failure_class": failure.get("failure_class") or "unknown",
                 "meaning": failure.get("meaning") or "",
                 "case_id": failure.get("case_id"),
                 "case": describe_params(failure["case"]) if isinstance(failure.get("case"), dict) else None,
                 "message": _clip(failure.get("message") or "", 4000)},
           "round": round_index}
    return tidy(environment().get_template("reflection.j2").render(**ctx))


def tidy(text: str) -> str:
    """Collapse runs of blank lines outside fenced code blocks (template whitespace) to one; code
    blocks are kept byte for byte; the text ends with exactly one newline."""
    parts = text.split("```")
    for i in range(0, len(parts), 2):  # even parts are outside fences
        parts[i] = re.sub(r"\n{3,}", "\n\n", parts[i])
    return "```".join(parts).strip("\n") + "\n"


def _clip(text: str, limit: int) -> str:
    """``text`` shortened to about ``limit`` characters, keeping its head and tail."""
    if len(text) <= limit:
        return text
    head = limit // 3
    return text[:head] + f"\n[... {len(text) - limit} characters omitted ...]\n" + text[-(limit - head):]
