"""Limits of a job's sandbox (issue 11): the output a submission writes is kept only up to a cap per job
(recorded as truncated), and the import timeout is a documented, configurable setting."""
from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kernelgenbench.sandbox.runner import LOG_TAIL_BYTES, LogPump


def test_log_pump_keeps_the_head_and_the_tail_and_counts_what_it_dropped(tmp_path: Path) -> None:
    r, w = os.pipe()
    log = tmp_path / "child.log"
    pump = LogPump(r, log, limit=1000)
    payload = b"".join(b"%07d\n" % i for i in range(40_000))  # 320,000 bytes
    os.write(w, payload[:100_000])
    os.write(w, payload[100_000:])
    os.close(w)
    pump.finish()
    text = log.read_bytes()
    assert pump.total == len(payload) and pump.truncated
    assert pump.dropped == len(payload) - 1000 - LOG_TAIL_BYTES
    assert text.startswith(payload[:1000])
    assert text.endswith(payload[-LOG_TAIL_BYTES:])
    assert b"the sandbox wrote 320000 bytes; the job's log keeps the first 1000" in text
    assert len(text) < 1000 + LOG_TAIL_BYTES + 200


def test_log_pump_under_the_limit_writes_everything_unmarked(tmp_path: Path) -> None:
    r, w = os.pipe()
    log = tmp_path / "child.log"
    pump = LogPump(r, log, limit=1 << 20)
    os.write(w, b"hello\n" * 10)
    os.close(w)
    pump.finish()
    assert log.read_bytes() == b"hello\n" * 10 and not pump.truncated and pump.dropped == 0


NOISY = '''import torch
import triton
import triton.language as tl


@triton.jit
def _neg(x_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(o_ptr + offs, -tl.load(x_ptr + offs, mask=mask, other=0), mask=mask)


def _run(x, out):
    print("x" * 300_000)
    res = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    n = x.numel()
    if n:
        _neg[(triton.cdiv(n, 256),)](x.contiguous(), res, n, BLOCK=256)
    if out is None:
        return res
    out.resize_(x.shape)
    out.copy_(res)
    return out


def neg(self):
    return _run(self, None)


def neg_out(self, *, out):
    return _run(self, out)
'''


@pytest.mark.slow
def test_a_noisy_submission_passes_with_its_log_capped_and_recorded(tmp_path: Path) -> None:
    from kernelgenbench.cli import app
    from kernelgenbench.run.rundir import RunDir

    sub = tmp_path / "subs"
    sub.mkdir()
    (sub / "aten__neg.py").write_text(NOISY)
    res = CliRunner().invoke(app, ["eval", str(sub), "--tier", "smoke", "--out", str(tmp_path / "run"),
                                   "--platform", "interpreter", "--log-limit-mb", "0.5"])
    assert res.exit_code == 0, res.output
    rec = RunDir.open(tmp_path / "run").records()[-1]
    assert rec["status"] == "passed"
    cut = rec["log_truncated"]
    assert cut["limit"] == 1 << 19 and cut["bytes_written"] > 1_000_000
    assert cut["bytes_dropped"] == cut["bytes_written"] - (1 << 19) - LOG_TAIL_BYTES
    assert Path(rec["log"]).stat().st_size < (1 << 19) + LOG_TAIL_BYTES + 4096
    assert "keeps the first 0.5 MB" in " ".join(res.output.split())


@pytest.mark.slow
def test_import_timeout_is_configurable_and_named_in_the_failure(tmp_path: Path) -> None:
    from kernelgenbench.cli import app
    from kernelgenbench.run.rundir import RunDir

    sub = tmp_path / "subs"
    sub.mkdir()
    hang = Path(__file__).parent / "bad" / "import_hang__vllm__rms_norm.py"
    (sub / "vllm__rms_norm.py").write_text(hang.read_text())
    t0 = time.monotonic()
    res = CliRunner().invoke(app, ["eval", str(sub), "--tier", "smoke", "--out", str(tmp_path / "run"),
                                   "--platform", "interpreter", "--import-timeout", "4"])
    assert res.exit_code == 1, res.output
    assert time.monotonic() - t0 < 60  # not the default 180 s
    rec = RunDir.open(tmp_path / "run").records()[-1]
    assert rec["failure_class"] == "timeout"
    assert "took longer than 4 s" in rec["first_failure"]["message"]
    assert "--import-timeout" in rec["first_failure"]["message"]
