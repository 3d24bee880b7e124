"""``kgb show``: one operator's task as a submission's author reads it (interface, semantics, tiers with case
counts, tolerance, anti-hack rules), and with ``--cases`` every shown case with what each axis means. Held-out
cases are never shown. Registered on the ``kgb`` app by :mod:`kernelgenbench.cli`."""
from __future__ import annotations

from typing import Any, Optional

import typer
from rich.markup import escape
from rich.table import Table

from .console import console, exc_text
from .tables import plural


def show(op: str = typer.Argument(..., metavar="OP", help="operator id, e.g. aten::add or vllm::rms_norm"),
         cases: bool = typer.Option(False, "--cases", help="list every case of the shown tiers (smoke, full) with "
                                                           "what each axis means, instead of the overview"),
         tier: Optional[str] = typer.Option(None, help="with --cases: only this tier (smoke or full; held-out "
                                                       "cases are never shown)")) -> None:
    """Show one operator: interface, semantics, tiers with case counts, tolerance, anti-hack rules.

    With --cases: every case of the smoke and full tiers, with what each axis means."""
    from .suite.registry import defined_in, get_operator
    from .suite.tiers import ALL_TIERS, TIERS

    try:
        o = get_operator(op)
    except KeyError as exc:
        raise typer.BadParameter(exc_text(exc)) from None
    if tier is not None and not cases:
        raise typer.BadParameter("--tier goes with --cases (kgb show OP --cases --tier smoke)", param_hint="'--tier'")
    if cases:
        _show_cases(o, tier)
        return
    console.print(f"[bold]{o.id}[/bold]  ({o.category}; {o.section})")
    console.print(f"submission file: [cyan]{o.filename}[/cyan]")
    console.print(f"defined in {defined_in(o)} (under src/kernelgenbench/: the row with its grids, reference "
                  "and scan policy)")
    console.print(f"\n[bold]Semantics[/bold]\n{escape(o.semantics)}")
    console.print("\n[bold]Interface[/bold]")
    iface = o.interface
    if iface.function is None:
        t = Table()
        for c in ("wrapper", "overload", "kind", "required", "schema"):
            t.add_column(c)
        for w in iface.wrappers:
            t.add_row(w.name, w.overload, w.kind + (" (exercised)" if w.exercised else ""),
                      "yes" if w.required else "no", escape(w.schema))
        console.print(t)
        if any(w.exercised for w in iface.wrappers):
            console.print("(exercised): the full tier's cases call this overload; smoke and held-out cases also "
                          "call others (--cases shows a case's overload, e.g. overload=out); 'required' says which "
                          "wrappers a submission must define (a missing one fails the job as missing_wrapper).")
        console.print("ATen wrappers are registered at the device's dispatch key on GPUs and driven through the "
                      "public PyTorch API; on the CPU interpreter they are called directly with the dispatcher's "
                      "arguments.")
    else:
        console.print(f"  {escape(iface.signature)}")
        for p in iface.params:
            console.print(f"    {p}: {escape(iface.args_doc.get(p, ''))}")
    console.print("\n[bold]Tiers[/bold]")
    t = Table()
    for c in ("tier", "cases", "timed", "first case"):
        t.add_column(c)
    for tier in TIERS:
        cases = o.cases(tier)
        first = cases[0].describe() if cases and tier != "heldout" else ("(held out)" if cases else "—")
        t.add_row(tier, str(len(cases)), str(sum(c.timed for c in cases)), escape(first))
    union = o.cases(ALL_TIERS)
    t.add_row(ALL_TIERS, str(len(union)), str(sum(c.timed for c in union)), f"(the {' + '.join(TIERS)} cases)")
    console.print(t)
    rule = o.nothing_to_compute
    if rule:
        console.print("\n[bold]Tolerance[/bold]: none: values are compared exactly (allocations: not at all); see "
                      "the nothing-to-compute rule below.")
    elif getattr(o, "tolerance_text", None):  # an operator's own judge (random operators: statistics)
        console.print(f"\n[bold]Tolerance[/bold]: {escape(o.tolerance_text)}")
    else:
        console.print(f"\n[bold]Tolerance[/bold]: {escape(_tolerance_text(o))}")
    if rule:
        console.print("[bold]Anti-hack[/bold]: L1 static scan, L3 dispatch trace and kernel list; L2 ghost replay "
                      "only where a case needs a launch.")
        console.print(f"\n[bold]Nothing to compute ({rule.kind})[/bold] (aten.md §4.6, §6b.7)")
        for what, text in (("aliasing", rule.aliasing), ("layout", rule.layout), ("values", rule.values),
                           ("Triton launch", rule.launch)):
            console.print(f"  {what}: {escape(text)}")
        if rule.methods:
            console.print(f"  allowed for this kind: {', '.join(f'.{m}()' for m in rule.methods)}")
    else:
        console.print("[bold]Anti-hack[/bold]: L1 static scan, L2 ghost replay, L3 dispatch trace and kernel list. "
                      "Every case must launch a Triton kernel, except cases with nothing to compute: an empty "
                      "result, a result a no-op already gives, or a result PyTorch returns as the input itself.")
    how = getattr(o, "baseline_description", None) or o.baseline_label()
    console.print(f"[bold]Baseline[/bold] (full tier's timed cases, on GPUs; the interpreter times nothing): "
                  f"{escape(how)}")
    if o.data_movement:
        console.print("[bold]Data movement[/bold]: this operator's work is moving elements, so an ATen copy may only "
                      "take an argument exactly as given (.contiguous() of an input, out.copy_(result) into an "
                      "out= tensor) or a whole new buffer of the call on each side; a copy from or into a view the "
                      "wrapper derived (slice, select, transpose, expand, unfold, out[...] = x) and a fill of part "
                      "of a tensor fail as profile.")
    if o.packed_args:
        console.print(f"[bold]Packed inputs[/bold] ({', '.join(sorted(o.packed_args))}): their layout is decoded by "
                      "Triton kernels; an ATen copy or fill of packed data (or of a copy of it) along a view the "
                      "wrapper derived, or through a view of another element size, fails as profile (a copy exactly "
                      "as given and dtype views handed to a kernel are fine).")
    if o.notes:
        console.print(f"\n[bold]Notes[/bold]: {escape(o.notes)}")


def _show_cases(o: Any, tier: str | None) -> None:
    """``kgb show OP --cases``: every case of the shown tiers, then what each axis means."""
    from .report.author import case_rows, shown_tiers

    try:
        tiers = shown_tiers(tier)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="'--tier'") from None
    rows, axes = case_rows(o, tiers)
    console.print(f"[bold]{o.id}[/bold]  ({o.category}; {o.section}) · submission file [cyan]{o.filename}[/cyan]")
    which = f"the {' and '.join(tiers)} {'tier' if len(tiers) == 1 else 'tiers'}"
    example = rows[-1].id if rows else "smoke/0"   # an id this operator has (smoke/3 was named where it had none)
    ex_tier, _, ex_n = example.partition("/")
    t = Table(title=f"{plural(len(rows), 'case')} of {which}",
              caption=f"id: what a failure names ({example} is case {ex_n} of the {ex_tier} tier); timed: the full "
                      "tier's cases "
                      "that GPUs time; interpreter: cases the CPU interpreter cannot judge (reported unsupported "
                      "there): a dtype it cannot compute, or more MiB moved than its default case budget "
                      "(kgb eval --interpreter-max-mb)")
    for c in ("id", "timed", "parameters", "interpreter"):
        t.add_column(c, overflow="fold", no_wrap=c in ("id", "timed"))
    for r in rows:
        t.add_row(r.id, "yes" if r.timed else "", escape(r.params), r.interpreter)
    console.print(t)
    a = Table(title="what the axes mean")
    for c in ("axis", "values", "meaning"):
        a.add_column(c, overflow="fold")
    for name, vals, meaning in axes:
        a.add_row(name, escape(vals), escape(meaning))
    console.print(a)
    console.print(f"[dim]held-out cases ({len(o.cases('heldout'))}) are never shown: they judge whether a kernel "
                  f"generalises beyond these. `kgb init {o.id}` writes a skeleton; `kgb repro RUN {o.id} CASE` reruns "
                  f"a failing case in the foreground.[/dim]")


def _tolerance_text(o: Any) -> str:
    """The default comparison rule, for the dtypes the operator's cases compute in (each dtype's rtol as the verdict
    applies it: :func:`~kernelgenbench.suite.tolerance.stated_rtol`, as the prompts state it)."""
    from .suite.spec import DTYPE_NAMES, RTOL, RTOL_FP64_ACCUMULATION_TEXT, stated_rtol

    short = {v: k for k, v in DTYPE_NAMES.items()}
    used: set[Any] = set()
    for tier in ("smoke", "full", "heldout"):
        for p in o.grid(tier):
            try:
                used |= set(o.tensor_dtypes(p))
            except Exception:  # noqa: BLE001 - a case the dtype probe does not understand: show every dtype
                used |= set(RTOL)
    floats = [dt for dt in RTOL if dt in used and dt in short]
    if not floats:  # no float dtype named by the cases: the general rule
        floats = [dt for dt in RTOL if dt in short]
    atol = o.shown_atol
    # the accumulation rule's fp64/complex128 rtol, not the general 1e-5 (fresh user 44: cublasDgemv_v2 read "rtol
    # fp64 1e-5" and, further on, "fp64 and complex128: ... with rtol 8*2^-53")
    stated = [(short[dt], stated_rtol(dt, atol)) for dt in floats]
    rtol = ", ".join(f"{name} {v}" + (" (as below)" if v == RTOL_FP64_ACCUMULATION_TEXT else "") for name, v in stated)
    return (f"|out - ref| <= atol + rtol*|ref| with rtol {rtol}; atol = {atol}; integers, indices and bools "
            f"exact; NaN positions must match.")


def register(app: typer.Typer) -> None:
    """Add ``kgb show`` to ``app`` (the ``kgb`` command line)."""
    app.command("show")(show)
