"""A scripted model server for the LLM-track tests (stdlib only).

It answers OpenAI chat completions (``POST /v1/chat/completions``) and Anthropic messages
(``POST /v1/messages``) on 127.0.0.1 from a *script*: for each operator, a list of samples, each a
list of rounds, each a list of attempts. An attempt that is a number (``"429"``, ``"500"``,
``"401"``) answers with that HTTP status; anything else with a reply of that kind. The operator is
read from the prompt (``# Task: replace `OP```); a request with a single turn opens a new sample
(round 0), a request with more turns is the next round of the current sample.

Reply kinds: ``correct`` (the oracle solution of the operator from ``solutions/``), ``wrong``
(a kernel with wrong values), ``static_scan`` (computes with PyTorch), ``no_code`` (prose only),
``truncated`` (a code block cut off at the token limit).

Run it standalone for the issue's done-when command::

    python tests/llm_server.py --script demo --port 8765
"""
from __future__ import annotations

import argparse
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SOLUTIONS = ROOT / "solutions"
BAD = Path(__file__).resolve().parent / "bad"

#: The done-when script: rms_norm fixed by reflection; fused_add_rms_norm solved by its second
#: sample after a reply with no code, a truncated reply and a 429; topk_softmax never solved.
DEMO: dict[str, list[list[list[str]]]] = {
    "vllm::rms_norm": [[["wrong"], ["correct"]]],
    "vllm::fused_add_rms_norm": [[["no_code"], ["truncated"]], [["429", "correct"]]],
    "vllm::topk_softmax": [[["static_scan"], ["static_scan"]]] * 3,
}
SCRIPTS = {"demo": DEMO}


def usage_for(kind: str, round_index: int) -> dict[str, int]:
    """Deterministic token counts of a reply (the tests sum what the server served)."""
    prompt = 1000 * (round_index + 1) + {"correct": 11, "wrong": 22, "static_scan": 33, "no_code": 44,
                                          "truncated": 55}.get(kind, 0)
    return {"prompt": prompt, "cached": 512 if round_index > 0 else 128, "completion": 400 + 7 * round_index,
            "reasoning": 100, "cache_write": 64}


def reply_text(kind: str, op_id: str) -> str:
    """The text of a reply of ``kind`` for ``op_id``."""
    filename = op_id.replace("::", "__") + ".py"
    name = op_id.split("::", 1)[1]
    if kind == "correct":
        code = (SOLUTIONS / filename).read_text()
        return f"Here is the kernel.\n\n```python\n{code}```\n\nIt computes in fp32 and rounds once."
    if kind == "wrong":
        code = (BAD / "wrong_values__vllm__rms_norm.py").read_text()
        return f"First attempt:\n```python\n{code}```\n"
    if kind == "static_scan":
        return (f"```python\nimport torch\n\n\ndef {name}(*args, **kwargs):\n    x = args[-2]\n"
                f"    return torch.softmax(x, dim=-1)\n```\n")
    if kind == "no_code":
        return "I would write a Triton kernel that normalises each row, but I will not show code."
    if kind == "truncated":
        return "```python\nimport torch\nimport triton\nimport triton.language as tl\n\n@triton.jit\ndef _k(x_ptr"
    raise ValueError(f"unknown reply kind {kind!r}")


class ScriptedServer:
    """The server; ``start()`` returns the port. ``log`` holds every request seen.

    Args:
        script: operator id -> samples -> rounds -> attempts (see the module docstring).
        default: the reply for requests the script does not cover (``no_code``).
    """

    def __init__(self, script: dict[str, list[list[list[str]]]], default: str = "no_code") -> None:
        self.script = script
        self.default = default
        self.log: list[dict[str, Any]] = []
        self.served: list[dict[str, Any]] = []  # answered replies with the usage sent
        self._lock = threading.Lock()
        self._samples: dict[str, int] = {}  # op -> answered round-0 requests
        self._attempts: dict[tuple[str, int, int], int] = {}
        self._next_round: dict[str, int] = {}  # op -> round of its next continuation request
        self.httpd: ThreadingHTTPServer | None = None
        self.thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        assert self.httpd is not None
        return self.httpd.server_address[1]

    def start(self) -> int:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a: Any) -> None:  # quiet
                pass

            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
                status, payload, headers = server.answer(self.path, dict(self.headers), body)
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0 if not hasattr(self, "_port") else self._port), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        return self.port

    def stop(self) -> None:
        if self.httpd is not None:
            self.httpd.shutdown()
            self.httpd.server_close()

    def requests_for(self, op_id: str) -> list[dict[str, Any]]:
        return [r for r in self.log if r["op"] == op_id]

    # -- the script ---------------------------------------------------------------------------------
    def answer(self, path: str, headers: dict[str, str], body: dict[str, Any]) -> tuple[int, dict[str, Any], dict]:
        anthropic = path.rstrip("/").endswith("/messages")
        msgs = [m for m in body.get("messages", []) if m.get("role") != "system"]
        first = msgs[0]["content"] if msgs else ""
        if isinstance(first, list):
            first = "".join(b.get("text", "") for b in first if isinstance(b, dict))
        m = re.search(r"# Task: replace `([^`]+)`", first)
        op_id = m.group(1) if m else "?"
        with self._lock:
            # A request with one turn opens a sample; the others continue the current one, round by round.
            round_index = 0 if len(msgs) <= 1 else self._next_round.get(op_id, 1)
            sample = self._samples.get(op_id, 0) if round_index == 0 else self._samples.get(op_id, 1) - 1
            key = (op_id, sample, round_index)
            attempt = self._attempts.get(key, 0)
            self._attempts[key] = attempt + 1
            try:
                attempts = self.script[op_id][sample][round_index]
                kind = attempts[min(attempt, len(attempts) - 1)]
            except (KeyError, IndexError):
                kind = self.default
            self.log.append({"path": path, "op": op_id, "sample": sample, "round": round_index, "attempt": attempt,
                             "kind": kind, "headers": {k.lower(): v for k, v in headers.items()}, "body": body})
            if kind.isdigit():
                return int(kind), {"error": {"message": f"scripted {kind}", "type": "scripted"}}, {"retry-after": "0"}
            if round_index == 0:
                self._samples[op_id] = self._samples.get(op_id, 0) + 1
            self._next_round[op_id] = round_index + 1
            u = usage_for(kind, round_index)
            self.served.append({"op": op_id, "sample": sample, "round": round_index, "kind": kind, "usage": u,
                                "api": "anthropic" if anthropic else "openai"})
        text = reply_text(kind, op_id) if op_id != "?" else "no task"
        model = body.get("model", "scripted")
        if anthropic:
            return 200, {
                "id": f"msg_{len(self.log)}", "type": "message", "role": "assistant", "model": f"{model}-served",
                "content": [{"type": "text", "text": text}], "stop_sequence": None,
                "stop_reason": "max_tokens" if kind == "truncated" else "end_turn",
                "usage": {"input_tokens": u["prompt"] - u["cached"] - u["cache_write"],
                          "cache_read_input_tokens": u["cached"], "cache_creation_input_tokens": u["cache_write"],
                          "output_tokens": u["completion"]},
            }, {}
        return 200, {
            "id": f"chatcmpl-{len(self.log)}", "object": "chat.completion", "created": 0, "model": f"{model}-served",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                         "finish_reason": "length" if kind == "truncated" else "stop"}],
            "usage": {"prompt_tokens": u["prompt"], "completion_tokens": u["completion"],
                      "total_tokens": u["prompt"] + u["completion"],
                      "prompt_tokens_details": {"cached_tokens": u["cached"]},
                      "completion_tokens_details": {"reasoning_tokens": u["reasoning"]}},
        }, {}


def main() -> None:  # pragma: no cover - manual use
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--script", default="demo", choices=sorted(SCRIPTS))
    ap.add_argument("--port", type=int, default=0)
    args = ap.parse_args()
    srv = ScriptedServer(SCRIPTS[args.script])
    srv._port = args.port  # type: ignore[attr-defined]
    port = srv.start()
    print(f"scripted server on http://127.0.0.1:{port}/v1 (script {args.script}); Ctrl-C to stop", flush=True)
    try:
        assert srv.thread is not None
        srv.thread.join()
    except KeyboardInterrupt:
        srv.stop()


if __name__ == "__main__":  # pragma: no cover
    main()
