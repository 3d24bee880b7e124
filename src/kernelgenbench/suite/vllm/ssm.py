"""vLLM Mamba-1 selective scan forward (vllm.md §3: selective_scan_fwd), varlen and batch modes, with the optional
D, z, delta_bias, softplus, cache indices, initial states and padded sequences the spec grades.

The reference is pure PyTorch written from the spec: fp32 arithmetic, a sequential loop over the tokens of each
sequence, vectorised over channels and state dims; y is rounded to the input dtype once, the gated output once."""
from __future__ import annotations

import dataclasses
from typing import Any

import torch

from ..common import make_tensor
from ..function import FunctionOperator
from ..spec import Call, Cost, Expected, Interface, Tolerance, dtype_of, product
from .common import baseline, baseline_label, esize
from .kv_cache import storage_expected

_OP = "vllm::selective_scan_fwd"

#: Positions of the arguments in the call.
U, DELTA, A_, B_, C_, D_, Z, BIAS, SOFTPLUS, QSL, CACHE, HAS_INIT, STATES, PAD = range(14)


def _sequences(u: torch.Tensor, qsl: torch.Tensor | None) -> list[tuple[int, int, int]]:
    """``(b, first token, length)`` of every sequence: from query_start_loc (varlen) or the batch dim."""
    if qsl is not None:
        q = qsl.tolist()
        return [(b, q[b], q[b + 1] - q[b]) for b in range(len(q) - 1)]
    return [(b, 0, u.shape[2]) for b in range(u.shape[0])]


def selective_scan_native(u: torch.Tensor, delta: torch.Tensor, A: torch.Tensor, B: torch.Tensor, C: torch.Tensor,
                          D: torch.Tensor | None, z: torch.Tensor | None, delta_bias: torch.Tensor | None,
                          delta_softplus: bool, query_start_loc: torch.Tensor | None,
                          cache_indices: torch.Tensor | None, has_initial_state: torch.Tensor | None,
                          ssm_states: torch.Tensor, pad_slot_id: int, acc: torch.dtype = torch.float32
                          ) -> tuple[torch.Tensor, torch.Tensor | None, torch.Tensor, list[int]]:
    """What ``selective_scan_fwd`` writes (vllm.md § vllm::selective_scan_fwd), computed on copies.

    Per sequence b (tokens ``[qsl[b], qsl[b+1])``, or batch row b), channel d of group ``g = d // (Dm/G)``:
    ``ci = cache_indices[b]`` (b if None), skipped when ``ci == pad_slot_id``; ``h = ssm_states[ci, d]`` if
    ``has_initial_state[b]`` else 0 (fp32); per token ``dt = delta + bias`` (softplus ``log1p(exp(dt))`` where
    ``dt <= 20``), ``h <- exp(dt·A)·h + dt·u·B``, ``y = D·u + Σ_n h·C``; delta ← rd_T(y), z ← rd_T(y·silu(z));
    then ``ssm_states[ci, d] <- h``.

    Args:
        u, delta, z: ``[Dm, Ltot]`` (varlen) or ``[Bt, Dm, L]`` (batch), dtype T; A fp32 ``[Dm, N]``;
        B, C: ``[G, N, Ltot]`` or ``[Bt, G, N, L]``, dtype T; D, delta_bias: None or fp32 ``[Dm]``;
        query_start_loc: int32 ``[Bt+1]`` or None (batch mode); cache_indices: None or int32 ``[Bt]``;
        has_initial_state: None or bool ``[Bt]``; ssm_states ``[slots, Dm, N]``; pad_slot_id: int.
        acc: the arithmetic dtype (fp32, the spec's; fp64 for the tests' error estimates).

    Returns:
        ``(delta', z' or None, ssm_states', slots)``: the new tensors (input dtypes) and the state slots written.

    Raises:
        ValueError: shapes disagree (Dm not a multiple of G, B/C/state shapes).
    """
    varlen = query_start_loc is not None
    dm, n = A.shape
    g = B.shape[-3]
    if dm % g or B.shape != C.shape or B.shape[-2] != n or ssm_states.shape[1:] != (dm, n):
        raise ValueError(f"{_OP}: shapes disagree: A {tuple(A.shape)}, B {tuple(B.shape)}, C {tuple(C.shape)}, "
                         f"ssm_states {tuple(ssm_states.shape)}")
    grp = torch.arange(dm, device=u.device) // (dm // g)
    y_out = delta.clone()
    z_out = z.clone() if z is not None else None
    st_out = ssm_states.clone()
    A32 = A.to(acc)
    written: list[int] = []
    for b, t0, ln in _sequences(u, query_start_loc):
        ci = int(cache_indices[b]) if cache_indices is not None else b
        if ci == pad_slot_id:
            continue
        if has_initial_state is not None and bool(has_initial_state[b]):
            h = ssm_states[ci].to(acc).clone()
        else:
            h = torch.zeros(dm, n, dtype=acc, device=u.device)
        uu = u[:, t0:t0 + ln] if varlen else u[b]
        dd = delta[:, t0:t0 + ln] if varlen else delta[b]
        bb = (B[:, :, t0:t0 + ln] if varlen else B[b])[grp].to(acc)      # [Dm, N, ln]
        cc = (C[:, :, t0:t0 + ln] if varlen else C[b])[grp].to(acc)
        zz = None if z is None else (z[:, t0:t0 + ln] if varlen else z[b])
        ys = torch.empty(dm, ln, dtype=acc, device=u.device)
        for t in range(ln):
            dt = dd[:, t].to(acc)
            if delta_bias is not None:
                dt = dt + delta_bias.to(acc)
            if delta_softplus:
                dt = torch.where(dt <= 20.0, torch.log1p(torch.exp(dt)), dt)
            ut = uu[:, t].to(acc)
            h = torch.exp(dt[:, None] * A32) * h + (dt * ut)[:, None] * bb[:, :, t]
            y = (h * cc[:, :, t]).sum(1)
            if D is not None:
                y = D.to(acc) * ut + y
            ys[:, t] = y
        yv = y_out[:, t0:t0 + ln] if varlen else y_out[b]
        yv.copy_(ys.to(delta.dtype))
        if zz is not None:
            zf = zz.to(acc)
            gated = ys * zf / (1.0 + torch.exp(-zf))
            (z_out[:, t0:t0 + ln] if varlen else z_out[b]).copy_(gated.to(z.dtype))
        st_out[ci] = h.to(ssm_states.dtype)
        written.append(ci)
    return y_out, z_out, st_out, written


#: Relative error allowed for dt (bias add, softplus with the GPU's exp/log) in units of the fp32 unit roundoff.
DT_ULPS = 32.0
_U32 = 2.0 ** -24


def selective_scan_allowance(u: torch.Tensor, delta: torch.Tensor, A: torch.Tensor, B: torch.Tensor,
                             C: torch.Tensor, D: torch.Tensor | None, z: torch.Tensor | None,
                             delta_bias: torch.Tensor | None, delta_softplus: bool,
                             query_start_loc: torch.Tensor | None, cache_indices: torch.Tensor | None,
                             has_initial_state: torch.Tensor | None, ssm_states: torch.Tensor, pad_slot_id: int
                             ) -> tuple[torch.Tensor, torch.Tensor | None, torch.Tensor]:
    """Elementwise absolute allowances (fp64, shaped like delta, z and ssm_states; 0 where nothing is written) for
    an honest fp32 evaluation of the scan in any order, added to the spec's tolerance.

    The recurrence ``h <- a·h + b`` (``a = exp(dt·A)``, ``b = dt·u·B``) carries every rounding forward, and
    without softplus ``a`` exceeds 1 for negative dt: on the spec's own grid states reach 1e11 and an fp32
    evaluation differs from exact math by 20 times the spec's rtol (1e-5), so a kernel differing from our fp32
    reference only in rounding order or in the GPU's exp/log could fail. The bound propagates the error of each
    step: ``M <- a·M + |a·h|·(ea + u) + |b|·(edt + 4u) + u·|h'|`` with ``edt = DT_ULPS·u`` (dt's relative error),
    ``ea = |dt·A|·(edt + 2u) + 8u`` (exp's), u = 2^-24; y's allowance is ``Σ_n M·|C| + (N+2)·u·(|D·u| + Σ_n |h·C|)``,
    z's ``|silu(z)|`` times y's. A kernel rounding an intermediate to fp16 or bf16, or dropping a term, exceeds it.
    """
    varlen = query_start_loc is not None
    f8 = torch.float64
    dm, n = A.shape
    grp = torch.arange(dm, device=u.device) // (dm // B.shape[-3])
    ay = torch.zeros(delta.shape, dtype=f8, device=u.device)
    az = torch.zeros(z.shape, dtype=f8, device=u.device) if z is not None else None
    ast = torch.zeros(ssm_states.shape, dtype=f8, device=u.device)
    edt = DT_ULPS * _U32
    A64 = A.to(f8)
    for b, t0, ln in _sequences(u, query_start_loc):
        ci = int(cache_indices[b]) if cache_indices is not None else b
        if ci == pad_slot_id:
            continue
        init = has_initial_state is not None and bool(has_initial_state[b])
        h = ssm_states[ci].to(f8).clone() if init else torch.zeros(dm, n, dtype=f8, device=u.device)
        m = torch.zeros(dm, n, dtype=f8, device=u.device)
        uu = (u[:, t0:t0 + ln] if varlen else u[b]).to(f8)
        dd = (delta[:, t0:t0 + ln] if varlen else delta[b]).to(f8)
        bb = (B[:, :, t0:t0 + ln] if varlen else B[b])[grp].to(f8)
        cc = (C[:, :, t0:t0 + ln] if varlen else C[b])[grp].to(f8)
        ey = torch.empty(dm, ln, dtype=f8, device=u.device)
        for t in range(ln):
            dt = dd[:, t] + (delta_bias.to(f8) if delta_bias is not None else 0.0)
            if delta_softplus:
                dt = torch.where(dt <= 20.0, torch.log1p(torch.exp(dt)), dt)
            x = dt[:, None] * A64
            a = torch.exp(x)
            bt = (dt * uu[:, t])[:, None] * bb[:, :, t]
            ah = a * h
            h = ah + bt
            ea = x.abs() * (edt + 2 * _U32) + 8 * _U32
            m = a * m + ah.abs() * (ea + _U32) + bt.abs() * (edt + 4 * _U32) + _U32 * h.abs()
            hc = (h * cc[:, :, t]).abs().sum(1)
            du = (D.to(f8) * uu[:, t]).abs() if D is not None else 0.0
            ey[:, t] = (m * cc[:, :, t].abs()).sum(1) + (n + 2) * _U32 * (du + hc)
        (ay[:, t0:t0 + ln] if varlen else ay[b]).copy_(ey)
        if az is not None:
            zf = (z[:, t0:t0 + ln] if varlen else z[b]).to(f8)
            (az[:, t0:t0 + ln] if varlen else az[b]).copy_(ey * (zf / (1.0 + torch.exp(-zf))).abs())
        ast[ci] = m
    return ay, az, ast


def _with_allowance(e: Expected, before: torch.Tensor, extra: torch.Tensor) -> Expected:
    """``e`` (from ``storage_expected``) with ``extra`` (shaped like ``before``) as its elementwise allowance."""
    full = torch.zeros(e.region.shape, dtype=torch.float64, device=before.device)
    full.as_strided(before.size(), before.stride(), before.storage_offset()).copy_(extra)
    return dataclasses.replace(e, atol_extra=full[e.region])


def _token_mask(x: torch.Tensor, call_args: list[Any], keep: set[int]) -> torch.Tensor:
    """Bool mask shaped like delta/z: the tokens of the sequences in ``keep`` (not padded)."""
    mask = torch.zeros(x.shape, dtype=torch.bool, device=x.device)
    qsl = call_args[QSL]
    for b, t0, ln in _sequences(call_args[U], qsl):
        if b in keep:
            if qsl is not None:
                mask[:, t0:t0 + ln] = True
            else:
                mask[b] = True
    return mask


def _kept(args: list[Any]) -> set[int]:
    ci, pad = args[CACHE], args[PAD]
    nb = (args[QSL].numel() - 1) if args[QSL] is not None else args[U].shape[0]
    return {b for b in range(nb) if (int(ci[b]) if ci is not None else b) != pad}


def _max_len(args: list[Any]) -> int:
    return max([ln for _, _, ln in _sequences(args[U], args[QSL])] + [1])


def _ref(p: dict[str, Any], call: Call) -> list[Expected]:
    a = call.args
    y, z, st, slots = selective_scan_native(*a)
    ay, az, ast = selective_scan_allowance(*a)
    keep = _kept(a)
    tol_y = Tolerance(reduce_dim=a[A_].shape[1])
    out = [_with_allowance(storage_expected("arg.1", a[DELTA], y, _token_mask(a[DELTA], a, keep), tol_y),
                           a[DELTA], ay)]
    if a[Z] is not None:
        out.append(_with_allowance(storage_expected("arg.6", a[Z], z, _token_mask(a[Z], a, keep), tol_y), a[Z], az))
    smask = torch.zeros(a[STATES].shape, dtype=torch.bool, device=a[STATES].device)
    smask[slots] = True
    tol_s = Tolerance(rtol=1e-5, atol=1e-4 * _max_len(a))
    out.append(_with_allowance(storage_expected("arg.12", a[STATES], st, smask, tol_s), a[STATES], ast))
    return out


def selective_scan_batched(u, delta, A, B, C, D, z, delta_bias, delta_softplus, query_start_loc, cache_indices,
                           has_initial_state, ssm_states, pad_slot_id) -> None:
    """The timed baseline of ``selective_scan_fwd``: :func:`selective_scan_native`'s writes, in place, with the
    sequences batched: every sequence padded to the longest (a host read of the lengths), one step of the
    recurrence per token position for all sequences at once (a sequence's state frozen past its end), the
    reference's elementwise formulas and fp32 rounding points unchanged. The loop over token positions stays (the
    recurrence is sequential); the loop over sequences goes. Written state slots are taken to be distinct (every
    graded case; the reference lets the last sequence win)."""
    acc = torch.float32
    varlen = query_start_loc is not None
    dm, n = A.shape
    g = B.shape[-3]
    dev = u.device
    grp = torch.arange(dm, device=dev) // (dm // g)
    if varlen:
        qsl = query_start_loc.long()
        starts, lens = qsl[:-1], qsl[1:] - qsl[:-1]
        bt = lens.numel()
        lmax = max(int(lens.max()) if bt else 0, 1)
        pos = torch.arange(lmax, device=dev)
        tok = (starts[:, None] + pos[None, :]).clamp(0, max(u.shape[-1] - 1, 0))         # [Bt, L]
        us, ds = u[:, tok].permute(1, 0, 2), delta[:, tok].permute(1, 0, 2)              # [Bt, Dm, L]
        bs_, cs_ = B[:, :, tok].permute(2, 0, 1, 3), C[:, :, tok].permute(2, 0, 1, 3)   # [Bt, G, N, L]
    else:
        bt, lmax = u.shape[0], u.shape[2]
        lens = torch.full((bt,), lmax, dtype=torch.long, device=dev)
        pos = torch.arange(lmax, device=dev)
        us, ds, bs_, cs_ = u, delta, B, C
    ci = cache_indices.long() if cache_indices is not None else torch.arange(bt, device=dev)
    run = ci != pad_slot_id                                                              # [Bt]
    cic = torch.where(run, ci, 0)
    h = ssm_states[cic].to(acc)
    if has_initial_state is not None:
        h = torch.where(has_initial_state.bool()[:, None, None], h, 0.0)
    else:
        h = torch.zeros_like(h)
    A32 = A.to(acc)
    ys = torch.empty(bt, dm, lmax, dtype=acc, device=dev)
    for t in range(lmax):
        dt = ds[:, :, t].to(acc)
        if delta_bias is not None:
            dt = dt + delta_bias.to(acc)
        if delta_softplus:
            dt = torch.where(dt <= 20.0, torch.log1p(torch.exp(dt)), dt)
        ut = us[:, :, t].to(acc)
        bb = bs_[:, :, :, t].to(acc)[:, grp]
        cc = cs_[:, :, :, t].to(acc)[:, grp]
        hn = torch.exp(dt[:, :, None] * A32) * h + (dt * ut)[:, :, None] * bb
        y = (hn * cc).sum(2)
        if D is not None:
            y = D.to(acc) * ut + y
        ys[:, :, t] = y
        h = torch.where((t < lens)[:, None, None], hn, h)
    ok = run[:, None] & (pos[None, :] < lens[:, None])                                  # [Bt, L]
    gated = None
    if z is not None:
        zs = z[:, tok].permute(1, 0, 2) if varlen else z
        zf = zs.to(acc)
        gated = (ys * zf / (1.0 + torch.exp(-zf))).to(z.dtype)
    if varlen:
        b_i, t_i = torch.nonzero(ok, as_tuple=True)
        delta[:, tok[b_i, t_i]] = ys[b_i, :, t_i].to(delta.dtype).t()
        if gated is not None:
            z[:, tok[b_i, t_i]] = gated[b_i, :, t_i].t()
    else:
        delta.copy_(torch.where(ok[:, None, :], ys.to(delta.dtype), delta))
        if gated is not None:
            z.copy_(torch.where(ok[:, None, :], gated, z))
    w = torch.nonzero(run).flatten()
    ssm_states[ci[w]] = h[w].to(ssm_states.dtype)


# The native scan is a Python loop over tokens (selective_scan_batched: over token positions, the sequences batched):
# torch.compile would unroll every token of a sequence into one
# graph (thousands of steps in the held-out tier), so the baseline runs it eagerly and its label says so
# (baseline(..., eager_reason=...); a @torch.compiler.disable here imported torch._dynamo with the registry:
# 1.3 s of CPU in every process, every sandbox child included).
def _base(c: Call) -> None:
    selective_scan_batched(*c.args)


def _lens(p: dict[str, Any], gen: torch.Generator) -> list[int]:
    if p.get("lens") == "random":
        return torch.randint(1, p["max_len"] + 1, (p["bt"],), generator=gen, device=gen.device).tolist()
    return list(p["lens"])


def _build(p: dict[str, Any], device: torch.device, gen: torch.Generator) -> Call:
    """Inputs as upstream: u, delta, B, C, z randn in T; A = -rand - 0.1; D = randn; delta_bias = rand·0.2 - 0.1;
    states zeros unless ``init_states`` (randn) ; cache_indices arange(Bt) unless given."""
    dt = p["dtype"]
    bt, dm, n, g = p["bt"], p["dm"], p["n"], p["g"]
    opts = p.get("options", 0)
    batch = p.get("mode") == "batch"
    if batch:
        lens = [p["l"]] * bt
        shape_x, shape_bc = [bt, dm, p["l"]], [bt, g, n, p["l"]]
        qsl = None
    else:
        lens = _lens(p, gen)
        ltot = sum(lens)
        shape_x, shape_bc = [dm, ltot], [g, n, ltot]
        qsl = torch.tensor([0] + torch.tensor(lens).cumsum(0).tolist(), dtype=torch.int32, device=device)
    u = make_tensor(shape_x, dt, device, gen)
    delta = make_tensor(shape_x, dt, device, gen)
    A = -torch.rand(dm, n, generator=gen, device=device) - 0.1
    B = make_tensor(shape_bc, dt, device, gen)
    C = make_tensor(shape_bc, dt, device, gen)
    D = torch.randn(dm, generator=gen, device=device) if opts & 1 else None
    z = make_tensor(shape_x, dt, device, gen) if opts & 2 else None
    bias = (torch.rand(dm, generator=gen, device=device) * 0.2 - 0.1) if opts & 4 else None
    slots = p.get("slots", bt)
    if p.get("init_states"):
        states = torch.randn(slots, dm, n, generator=gen, device=device)
    else:
        states = torch.zeros(slots, dm, n, device=device)
    ci = p.get("cache_indices")
    cache = (torch.tensor(ci, dtype=torch.int32, device=device) if ci is not None
             else torch.arange(bt, dtype=torch.int32, device=device))
    his = p.get("has_init")
    if his == "random":
        has = torch.randint(0, 2, (bt,), generator=gen, device=device).bool()
    elif isinstance(his, list):
        has = torch.tensor(his, dtype=torch.bool, device=device)
    else:
        has = None
    return Call([u, delta, A, B, C, D, z, bias, p["softplus"], qsl, cache, has, states, p.get("pad", -1)],
                written=(DELTA, Z, STATES) if z is not None else (DELTA, STATES))


def _tokens(p: dict[str, Any]) -> int:
    if p.get("mode") == "batch":
        return p["bt"] * p["l"]
    if p.get("lens") == "random":
        return p["bt"] * (p["max_len"] + 1) // 2
    return sum(p["lens"])


def _cost(p: dict[str, Any]) -> Cost:
    tok, dm, n = _tokens(p), p["dm"], p["n"]
    es = esize(p["dtype"])
    z = 1 if p.get("options", 0) & 2 else 0
    # per (channel, token, state): exp, 2 muls for dt·A and the decay, 2 for dt·u·B, the add, C's multiply-add
    flops = 8.0 * tok * dm * n + 10.0 * tok * dm
    nbytes = (3 + 2 * z) * tok * dm * es + 2 * tok * p["g"] * n * es + 2 * p["bt"] * dm * n * 4 + dm * n * 4
    return Cost(flops, nbytes)


_UPSTREAM = [(1, 16, 8, 1, [1]), (2, 32, 16, 1, [3, 5]), (4, 64, 16, 1, [7, 3, 12, 1]), (2, 128, 32, 2, [16, 32]),
             (3, 256, 16, 4, [64, 32, 48])]


def _full() -> list[dict[str, Any]]:
    out = []
    for c in product(cfg=_UPSTREAM, dtype=["fp16", "bf16"], softplus=[False, True], options=[0, 1, 3, 7],
                     initial_state=[False, True]):
        bt, dm, n, g, lens = c["cfg"]
        out.append(dict(bt=bt, dm=dm, n=n, g=g, lens=lens, dtype=c["dtype"], softplus=c["softplus"],
                        options=c["options"], has_init="random" if c["initial_state"] else None))
    return out


SELECTIVE_SCAN_FWD = FunctionOperator(
    "selective_scan_fwd", source="vllm", category="ssm scan", section="vllm.md § vllm::selective_scan_fwd",
    semantics="per sequence b (tokens [qsl[b], qsl[b+1]) in varlen mode, batch row b otherwise) and channel d "
              "(group g = d // (Dm/G)): ci = cache_indices[b] (b if None); ci == pad_slot_id skips the sequence "
              "entirely. h_n = ssm_states[ci, d, n] if has_initial_state[b] else 0 (fp32). Per token t in order: "
              "dt = float(delta[d,t]) + delta_bias[d]; softplus: dt = log1p(exp(dt)) when dt <= 20; "
              "h_n <- exp(dt*A[d,n])*h_n + dt*float(u[d,t])*float(B[g,n,t]); "
              "y = D[d]*float(u[d,t]) + sum_n h_n*float(C[g,n,t]); delta[d,t] <- rd_T(y); "
              "z given: z[d,t] <- rd_T(y*zf/(1 + exp(-zf))), zf = float(z[d,t]). "
              "After the last token ssm_states[ci, d, :] <- h. All arithmetic fp32.",
    interface=Interface(
        function="selective_scan_fwd",
        params=("u", "delta", "A", "B", "C", "D_", "z_", "delta_bias_", "delta_softplus", "query_start_loc",
                "cache_indices", "has_initial_state", "ssm_states", "pad_slot_id", "block_size",
                "block_idx_first_scheduled_token", "block_idx_last_scheduled_token", "initial_state_idx"),
        defaults={"block_size": 1024, "block_idx_first_scheduled_token": None,
                  "block_idx_last_scheduled_token": None, "initial_state_idx": None},
        written=("delta", "z_", "ssm_states"), returns="None",
        args_doc={"u": "[Dm, Ltot] (varlen) or [Bt, Dm, L] (batch), dtype T in {fp32, fp16, bf16}, last dim contiguous",
                  "delta": "written (y, the ungated output, rd_T); like u",
                  "A": "fp32 [Dm, N], N <= 256",
                  "B": "T [G, N, Ltot] (varlen) or [Bt, G, N, L] (batch); Dm % G == 0, last dim contiguous",
                  "C": "like B", "D_": "None or fp32 [Dm]",
                  "z_": "None, or written (the gated output y*silu(z), rd_T): like u",
                  "delta_bias_": "None or fp32 [Dm]", "delta_softplus": "bool",
                  "query_start_loc": "int32 [Bt+1] (varlen mode) or None (batch mode)",
                  "cache_indices": "None or int32 [Bt]: each sequence's state slot",
                  "has_initial_state": "None or bool [Bt]",
                  "ssm_states": "written; fp32 [num_slots, Dm, N]: initial states read, final states written at the "
                                "sequences' slots, other slots untouched",
                  "pad_slot_id": "int: a sequence whose slot equals it is skipped (its tokens and slot untouched)",
                  "block_size": "int (prefix-caching mode, not graded: default)",
                  "block_idx_first_scheduled_token": "None (prefix caching, not graded)",
                  "block_idx_last_scheduled_token": "None (prefix caching, not graded)",
                  "initial_state_idx": "None (prefix caching, not graded)"}),
    grids={
        "smoke": [
            dict(bt=2, dm=8, n=4, g=1, lens=[3, 2], dtype="fp32", softplus=True, options=7, init_states=True,
                 has_init=[True, False]),
            dict(bt=1, dm=4, n=16, g=2, lens=[5], dtype="bf16", softplus=False, options=1, slots=4,
                 cache_indices=[3], init_states=True, has_init=[True]),
            dict(bt=3, dm=8, n=8, g=2, lens=[2, 3, 4], dtype="fp16", softplus=False, options=6, slots=3,
                 cache_indices=[2, -1, 0], init_states=True, has_init=[True, True, False]),
            dict(bt=2, dm=4, n=4, g=1, mode="batch", l=3, dtype="fp32", softplus=True, options=3, init_states=True,
                 has_init=[False, True]),
        ],
        "full": _full(),
        "heldout": [
            dict(bt=4, dm=1536, n=16, g=1, lens="random", max_len=2048, dtype="bf16", softplus=True, options=7,
                 init_states=True, has_init="random"),
            dict(bt=2, dm=768, n=16, g=1, mode="batch", l=1024, dtype="fp16", softplus=True, options=3),
            dict(bt=5, dm=256, n=64, g=4, lens=[100, 37, 1, 64, 80], dtype="fp32", softplus=True, options=5,
                 slots=8, cache_indices=[6, 0, -1, 3, 7], init_states=True, has_init=[True, False, True, True, True]),
        ],
    },
    build=_build, reference=_ref, cost=_cost, dtypes=lambda p: {dtype_of(p["dtype"]), torch.float32},
    timed=lambda p: _tokens(p) * p["dm"] >= 4096,
    baseline=baseline("selective_scan_fwd", _base, eager_reason="torch.compile would unroll the per-token loop"),
    label=baseline_label,
    atol_text="delta and z: atol = 1e-4 x N (reduce_dim = N); ssm_states: rtol 1e-5, atol = 1e-4 x L (L the longest "
              "sequence); each plus an elementwise allowance for fp32 rounding carried through the recurrence "
              "(see notes)",
    notes="Full tier as upstream: varlen mode, ssm_states zeros [Bt, Dm, N], cache_indices = arange(Bt), pad_slot_id "
          "-1; the initial_state axis passes has_initial_state as random bools (True) or None (False), which has no "
          "effect on zero states. Every written output is judged (delta, z when given, the written state slots), "
          "not only z-or-delta as upstream. Smoke and held-out use non-zero initial states, cache indices into "
          "more slots, a padded sequence and batch mode. Tolerance (ours, added to the spec's): an elementwise "
          "allowance propagating fp32 rounding through the recurrence (selective_scan_allowance): without softplus "
          "the states reach 1e11 on this grid and fp32 in our order differs from exact math by 20x the spec's state "
          "rtol; fp32 stays within 0.02 of the allowance, fp16 arithmetic exceeds it. The native baseline runs "
          "eagerly (a per-token loop that torch.compile would unroll); it is a vectorized PyTorch statement of the "
          "reference over the sequences (selective_scan_batched: all sequences padded, one step per token position), "
          "the recurrence's loop over token positions kept.",
)

OPERATORS = [SELECTIVE_SCAN_FWD]
