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

:class:`AgentServer` (below) scripts *agent sessions* instead: it streams answers with tool calls in the
protocol each agent CLI speaks -- Anthropic messages over SSE (Claude Code), the OpenAI Responses API over
SSE (Codex), OpenAI Chat Completions over SSE (OpenCode), Gemini ``streamGenerateContent`` (Gemini CLI) --
so that the real CLIs write kernels, run the workspace's ``./check`` and stop::

    python tests/llm_server.py --agent-script fix --port 8765
    ANTHROPIC_BASE_URL=http://127.0.0.1:8765 ANTHROPIC_API_KEY=sk-fake kgb agent --agent claude-code --op vllm::rms_norm
"""
from __future__ import annotations

import argparse
import json
import re
import threading
import time
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


# == Agent sessions: tool calls over the streaming protocols of the agent CLIs ==============================
#
# A script maps an operator to a list of actions; the session's n-th model request (n = the assistant turns
# already in the conversation) performs action n, and a request past the end answers "Done." (the agent
# stops). Actions:
#   ("write", KIND)   write the submission file: KIND is "wrong" (tests/bad/wrong_values__vllm__rms_norm.py),
#                     "correct" (the oracle of the operator), "bad:<fixture file>" (a file of tests/bad/) or
#                     "code:<text>"
#   ("check", TIER)   run ./check (TIER "" for the default tier)
#   ("run", CMD)      run a shell command
#   ("forever", CMD)  run CMD now and on every later request: a session that never stops
#   ("say", TEXT)     answer TEXT without a tool call (the agent stops)
# Requests that carry no task (a CLI's side requests) are answered with a short text.

AGENT_SCRIPTS: dict[str, dict[str, list[tuple[str, str]]]] = {
    # the done-when: a wrong kernel, the self-check, the fix, the self-check, stop
    "fix": {op: [("write", "wrong" if op == "vllm::rms_norm" else "correct"), ("check", ""), ("write", "correct"),
                 ("check", "")] for op in ("vllm::rms_norm", "aten::add", "aten::neg")},
}


def agent_usage(op_id: str, step: int, protocol: str) -> dict[str, int]:
    """The usage served for a session's request ``step`` (deterministic), normalised: ``input`` (uncached),
    ``cache_read``, ``cache_write`` (0 where the protocol has no cache writes), ``output`` (every generated
    token, reasoning included), ``reasoning`` (0 where the protocol has no reasoning count)."""
    salt = sum(op_id.encode()) % 97
    anthropic = protocol == "anthropic"
    return {"input": 1000 + 37 * step + salt, "cache_read": 256 * step + 3,
            "cache_write": (64 + step) if anthropic else 0,
            "output": 120 + 11 * step, "reasoning": 0 if anthropic else 7 + step}


def _wire_usage(u: dict[str, int], protocol: str) -> dict[str, Any]:
    if protocol == "anthropic":
        return {"input_tokens": u["input"], "cache_read_input_tokens": u["cache_read"],
                "cache_creation_input_tokens": u["cache_write"], "output_tokens": u["output"]}
    if protocol == "responses":
        return {"input_tokens": u["input"] + u["cache_read"],
                "input_tokens_details": {"cached_tokens": u["cache_read"]},
                "output_tokens": u["output"], "output_tokens_details": {"reasoning_tokens": u["reasoning"]},
                "total_tokens": u["input"] + u["cache_read"] + u["output"]}
    if protocol == "chat":
        return {"prompt_tokens": u["input"] + u["cache_read"], "completion_tokens": u["output"],
                "total_tokens": u["input"] + u["cache_read"] + u["output"],
                "prompt_tokens_details": {"cached_tokens": u["cache_read"]},
                "completion_tokens_details": {"reasoning_tokens": u["reasoning"]}}
    return {"promptTokenCount": u["input"] + u["cache_read"], "cachedContentTokenCount": u["cache_read"],
            "candidatesTokenCount": u["output"] - u["reasoning"], "thoughtsTokenCount": u["reasoning"],
            "totalTokenCount": u["input"] + u["cache_read"] + u["output"]}


def file_text(kind: str, op_id: str) -> str:
    """The submission text of a ``write`` action."""
    if kind == "wrong":
        return (BAD / "wrong_values__vllm__rms_norm.py").read_text()
    if kind == "correct":
        return (SOLUTIONS / (op_id.replace("::", "__") + ".py")).read_text()
    if kind.startswith("bad:"):
        return (BAD / kind[4:]).read_text()
    if kind.startswith("code:"):
        return kind[5:]
    raise ValueError(f"unknown write kind {kind!r}")


class AgentServer:
    """The agent-session server; ``start()`` returns the port.

    Attributes:
        log: every request: ``path``, ``protocol``, ``op``, ``step``, ``action``, ``headers``, ``body``.
        served: every answered model response: ``op``, ``step``, ``protocol``, ``id`` (the message id),
            ``usage`` (normalised, :func:`agent_usage`).
    """

    def __init__(self, script: dict[str, list[tuple[str, str]]], port: int = 0, fail: dict[str, int] | None = None,
                 delay_s: float = 0.0, on_request: Any = None) -> None:
        self.script = script
        self.on_request = on_request  # called with each log entry (the standalone server prints it)
        self._port = port
        self.fail = fail or {}  # op -> HTTP status answered to every request of that operator
        self.delay_s = delay_s
        self.log: list[dict[str, Any]] = []
        self.served: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._n = 0
        self.httpd: ThreadingHTTPServer | None = None
        self.thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        assert self.httpd is not None
        return self.httpd.server_address[1]

    def requests(self, op_id: str | None = None) -> list[dict[str, Any]]:
        return [r for r in self.log if op_id is None or r["op"] == op_id]

    def totals(self, op_id: str | None = None) -> dict[str, int]:
        """The normalised usage served (for ``op_id``, or all), summed."""
        out = {"input": 0, "cache_read": 0, "cache_write": 0, "output": 0, "reasoning": 0, "responses": 0}
        for s in self.served:
            if op_id is None or s["op"] == op_id:
                for k in ("input", "cache_read", "cache_write", "output", "reasoning"):
                    out[k] += s["usage"][k]
                out["responses"] += 1
        return out

    def start(self) -> int:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a: Any) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 - model lists and health probes
                data = json.dumps({"object": "list", "data": [], "models": []}).encode()
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:  # noqa: N802
                raw = self.rfile.read(int(self.headers.get("content-length", 0)))
                try:
                    body = json.loads(raw or b"{}")
                except json.JSONDecodeError:
                    body = {}
                status, events, plain = server.answer(self.path, dict(self.headers), body)
                if plain is not None or status != 200:
                    data = json.dumps(plain if plain is not None
                                      else {"error": {"message": f"scripted {status}"}}).encode()
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("cache-control", "no-cache")
                self.send_header("connection", "close")
                self.end_headers()
                self.close_connection = True
                for name, data in events:
                    chunk = (f"event: {name}\n" if name else "") + "data: " + (
                        data if isinstance(data, str) else json.dumps(data)) + "\n\n"
                    self.wfile.write(chunk.encode())
                    self.wfile.flush()

        self.httpd = ThreadingHTTPServer(("127.0.0.1", self._port), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        return self.port

    def stop(self) -> None:
        if self.httpd is not None:
            self.httpd.shutdown()
            self.httpd.server_close()

    # -- one request ---------------------------------------------------------------------------------------
    @staticmethod
    def protocol(path: str) -> str | None:
        p = path.split("?", 1)[0].rstrip("/")
        if p.endswith("/messages"):
            return "anthropic"
        if p.endswith("/responses"):
            return "responses"
        if p.endswith("/chat/completions"):
            return "chat"
        if "generatecontent" in p.lower():
            return "gemini"
        return None

    @staticmethod
    def steps(body: dict[str, Any], protocol: str) -> tuple[int, str | None]:
        """(assistant turns already in the conversation, the last tool result's text)."""
        if protocol in ("anthropic", "chat"):
            msgs = body.get("messages") or []
            n = sum(1 for m in msgs if m.get("role") == "assistant")
            last = None
            for m in msgs:
                c = m.get("content")
                if m.get("role") == "tool":
                    last = c if isinstance(c, str) else json.dumps(c)
                elif isinstance(c, list):
                    for b in c:
                        if isinstance(b, dict) and b.get("type") == "tool_result":
                            last = json.dumps(b.get("content"))
            return n, last
        if protocol == "responses":
            items = body.get("input") or []
            n = sum(1 for i in items if isinstance(i, dict) and i.get("type") == "function_call"
                    and i.get("name") != "write_stdin")
            outs = [i for i in items if isinstance(i, dict) and i.get("type") == "function_call_output"]
            return n, json.dumps(outs[-1].get("output")) if outs else None
        contents = body.get("contents") or []
        n = sum(1 for c in contents if c.get("role") == "model")
        last = None
        for c in contents:
            for part in c.get("parts") or []:
                if isinstance(part, dict) and "functionResponse" in part:
                    last = json.dumps(part["functionResponse"])
        return n, last

    def answer(self, path: str, headers: dict[str, str], body: dict[str, Any]) -> tuple[int, list, Any]:
        protocol = self.protocol(path)
        if protocol is None:
            return 404, [], {"error": {"message": f"unknown path {path}"}}
        if protocol == "anthropic" and "count_tokens" in path:
            return 200, [], {"input_tokens": 100}
        blob = json.dumps(body)
        m = re.search(r"# Task: replace `([^`]+)`", blob)
        op_id = m.group(1) if m else None
        fm = re.search(r"File to write: `([^`]+)`", blob)
        target = fm.group(1) if fm else None
        step, last_output = self.steps(body, protocol)
        with self._lock:
            self._n += 1
            n = self._n
            entry = {"path": path, "protocol": protocol, "op": op_id, "step": step, "action": None,
                     "headers": {k.lower(): v for k, v in headers.items()}, "body": body, "last_output": last_output}
            self.log.append(entry)
            if op_id in self.fail:
                entry["action"] = ("http", str(self.fail[op_id]))
                return self.fail[op_id], [], None
        if self.delay_s:
            time.sleep(self.delay_s)
        script = self.script.get(op_id or "", [])
        poll = (protocol == "responses" and last_output is not None and "session ID" in last_output
                and "Process exited" not in last_output)
        if op_id is None:
            action: tuple[str, str] = ("say", "ok")
        elif poll:  # Codex: a command still running after its yield time; ask for its output
            action = ("poll", re.search(r"session ID (\d+)", last_output).group(1))  # type: ignore[union-attr]
        elif step < len(script):
            action = script[step]
        elif script and script[-1][0] == "forever":
            action = script[-1]
        else:
            action = ("say", "Done.")
        entry["action"] = action
        if self.on_request is not None:
            self.on_request(entry)
        tools = self._tool_names(body, protocol)
        call = None if action[0] == "say" else self._tool_call(action, op_id or "", target, tools, protocol)
        text = f"Step {step}: {action[0]}." if call else action[1]
        u = agent_usage(op_id or "side", step, protocol)
        mid = {"anthropic": "msg_", "responses": "resp_", "chat": "chatcmpl-", "gemini": "gem-"}[protocol] + f"{n:05d}"
        with self._lock:
            self.served.append({"op": op_id, "step": step, "protocol": protocol, "id": mid, "usage": u,
                                "action": action})
        model = str(body.get("model") or "scripted") + "-served"
        return 200, getattr(self, f"_sse_{protocol}")(mid, model, text, call, u), None

    @staticmethod
    def _tool_names(body: dict[str, Any], protocol: str) -> set[str]:
        names = set()
        for t in body.get("tools") or []:
            if protocol == "chat":
                names.add(((t.get("function") or {}).get("name")) or "")
            elif protocol == "gemini":
                names |= {f.get("name") for f in t.get("functionDeclarations") or []}
            else:
                names.add(t.get("name") or "")
        return names

    @staticmethod
    def _tool_call(action: tuple[str, str], op_id: str, target: str | None, tools: set[str],
                   protocol: str) -> tuple[str, dict[str, Any]]:
        """(tool name, arguments) performing ``action`` with the tools the CLI offers."""
        kind, arg = action
        shell = next((t for t in ("Bash", "bash", "exec_command", "run_shell_command", "shell") if t in tools), None)
        write = next((t for t in ("Write", "write", "write_file") if t in tools), None)
        if kind == "poll":
            return "write_stdin", {"session_id": int(arg), "chars": "", "yield_time_ms": 30000}
        if kind == "write":
            content = file_text(arg, op_id)
            path = target or (op_id.replace("::", "__") + ".py")
            if write in ("Write", "write_file"):
                return write, {"file_path": path, "content": content}
            if write == "write":
                return write, {"filePath": path, "content": content}
            cmd = f"cat > {path} <<'KGB_EOF'\n{content}\nKGB_EOF"
        elif kind == "check":
            cmd = "./check" + (f" --tier {arg}" if arg else "")
        else:
            cmd = arg
        if shell is None:
            raise RuntimeError(f"no shell tool among {sorted(tools)}")
        if shell == "exec_command":
            return shell, {"cmd": cmd, "yield_time_ms": 30000}
        if shell == "shell":
            return shell, {"command": ["bash", "-lc", cmd]}
        return shell, {"command": cmd, "description": f"{kind} for the task"}

    # -- the four streaming protocols ----------------------------------------------------------------------
    @staticmethod
    def _sse_anthropic(mid: str, model: str, text: str, call: Any, u: dict[str, int]) -> list:
        w = _wire_usage(u, "anthropic")
        start_usage = {**w, "output_tokens": 1}
        ev: list = [("message_start", {"type": "message_start", "message": {
            "id": mid, "type": "message", "role": "assistant", "model": model, "content": [], "stop_reason": None,
            "stop_sequence": None, "usage": start_usage}}),
            ("content_block_start", {"type": "content_block_start", "index": 0,
                                     "content_block": {"type": "text", "text": ""}}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                     "delta": {"type": "text_delta", "text": text}}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0})]
        if call:
            name, args = call
            ev += [("content_block_start", {"type": "content_block_start", "index": 1, "content_block": {
                "type": "tool_use", "id": f"toolu_{mid}", "name": name, "input": {}}}),
                ("content_block_delta", {"type": "content_block_delta", "index": 1, "delta": {
                    "type": "input_json_delta", "partial_json": json.dumps(args)}}),
                ("content_block_stop", {"type": "content_block_stop", "index": 1})]
        ev += [("message_delta", {"type": "message_delta", "delta": {"stop_reason": "tool_use" if call else "end_turn",
                                                                      "stop_sequence": None},
                                  "usage": {"output_tokens": u["output"]}}),
               ("message_stop", {"type": "message_stop"})]
        return ev

    @staticmethod
    def _sse_responses(mid: str, model: str, text: str, call: Any, u: dict[str, int]) -> list:
        msg = {"type": "message", "id": f"msg_{mid}", "role": "assistant", "status": "completed",
               "content": [{"type": "output_text", "text": text, "annotations": []}]}
        out = [msg]
        ev: list = [("response.created", {"type": "response.created", "response": {
            "id": mid, "object": "response", "status": "in_progress", "model": model, "output": []}}),
            ("response.output_item.added", {"type": "response.output_item.added", "output_index": 0,
                                            "item": {**msg, "status": "in_progress", "content": []}}),
            ("response.output_text.delta", {"type": "response.output_text.delta", "item_id": msg["id"],
                                            "output_index": 0, "content_index": 0, "delta": text}),
            ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": msg})]
        if call:
            name, args = call
            fc = {"type": "function_call", "id": f"fc_{mid}", "call_id": f"call_{mid}", "name": name,
                  "arguments": json.dumps(args), "status": "completed"}
            out.append(fc)
            ev += [("response.output_item.added", {"type": "response.output_item.added", "output_index": 1,
                                                   "item": {**fc, "arguments": "", "status": "in_progress"}}),
                   ("response.function_call_arguments.delta", {"type": "response.function_call_arguments.delta",
                                                               "item_id": fc["id"], "output_index": 1,
                                                               "delta": fc["arguments"]}),
                   ("response.function_call_arguments.done", {"type": "response.function_call_arguments.done",
                                                              "item_id": fc["id"], "output_index": 1,
                                                              "arguments": fc["arguments"]}),
                   ("response.output_item.done", {"type": "response.output_item.done", "output_index": 1, "item": fc})]
        ev.append(("response.completed", {"type": "response.completed", "response": {
            "id": mid, "object": "response", "status": "completed", "model": model, "output": out,
            "usage": _wire_usage(u, "responses")}}))
        return ev

    @staticmethod
    def _sse_chat(mid: str, model: str, text: str, call: Any, u: dict[str, int]) -> list:
        def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
            return {"id": mid, "object": "chat.completion.chunk", "created": 0, "model": model,
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

        ev: list = [(None, chunk({"role": "assistant", "content": ""})), (None, chunk({"content": text}))]
        if call:
            name, args = call
            ev += [(None, chunk({"tool_calls": [{"index": 0, "id": f"call_{mid}", "type": "function",
                                                 "function": {"name": name, "arguments": ""}}]})),
                   (None, chunk({"tool_calls": [{"index": 0, "function": {"arguments": json.dumps(args)}}]}))]
        ev += [(None, chunk({}, "tool_calls" if call else "stop")),
               (None, {"id": mid, "object": "chat.completion.chunk", "created": 0, "model": model, "choices": [],
                       "usage": _wire_usage(u, "chat")}),
               (None, "[DONE]")]
        return ev

    @staticmethod
    def _sse_gemini(mid: str, model: str, text: str, call: Any, u: dict[str, int]) -> list:
        parts: list[dict[str, Any]] = [{"text": text}]
        if call:
            name, args = call
            parts.append({"functionCall": {"name": name, "args": args}})
        return [(None, {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP",
                                        "index": 0}],
                        "usageMetadata": _wire_usage(u, "gemini"), "modelVersion": model, "responseId": mid})]


def generate_command(script: dict[str, list[list[list[str]]]], port: int) -> str:
    """The ``kgb generate`` command line that asks this server for every operator of ``script``: as many
    samples as the script's longest operator has (``--k``) and as many rounds as its longest sample
    (``--rounds``, with ``--reflection`` when above 1), judged on the smoke tier on the interpreter."""
    k = max(len(samples) for samples in script.values())
    rounds = max(len(rounds) for samples in script.values() for rounds in samples)
    ops = " ".join(f"--op {op}" for op in script)
    more = f" --rounds {rounds} --reflection" if rounds > 1 else ""
    return (f".venv/bin/kgb generate --model openai/scripted "
            f"--base-url http://127.0.0.1:{port}/v1 {ops} --k {k}{more} --platform interpreter --tier smoke")


def main() -> None:  # pragma: no cover - manual use
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--script", default="demo", choices=sorted(SCRIPTS))
    ap.add_argument("--agent-script", choices=sorted(AGENT_SCRIPTS), help="serve agent sessions (tool calls) instead")
    ap.add_argument("--port", type=int, default=0)
    args = ap.parse_args()
    if args.agent_script:
        count = [0]

        def show(e: dict[str, Any]) -> None:
            count[0] += 1
            print(f"request {count[0]}: {e['protocol']} {e['op']} step {e['step']} -> {e['action'][0]}", flush=True)

        asrv = AgentServer(AGENT_SCRIPTS[args.agent_script], port=args.port, on_request=show)
        aport = asrv.start()
        print(f"scripted agent server on http://127.0.0.1:{aport} (script {args.agent_script}); Ctrl-C to stop",
              flush=True)
        try:
            assert asrv.thread is not None
            asrv.thread.join()
        except KeyboardInterrupt:
            asrv.stop()
        return
    srv = ScriptedServer(SCRIPTS[args.script])
    srv._port = args.port  # type: ignore[attr-defined]
    port = srv.start()
    print(f"scripted server on http://127.0.0.1:{port}/v1 (script {args.script}); Ctrl-C to stop", flush=True)
    print(f"ready; in another shell (a local endpoint needs no API key):\n  "
          f"{generate_command(SCRIPTS[args.script], port)}\n"
          f"the script is served once: a resumed run gets the rest of it, but a new run (--fresh, another --name) "
          f"gets '{srv.default}' replies past its end; restart this server for one", flush=True)
    try:
        assert srv.thread is not None
        srv.thread.join()
    except KeyboardInterrupt:
        srv.stop()


if __name__ == "__main__":  # pragma: no cover
    main()
