"""Token usage and cost of an agent session, read from the CLI's own machine-readable output.

Every parser reads what the CLI wrote (its stdout stream, kept as the run's transcript) and, where the
stream can lose numbers when the session is killed at the budget, the CLI's own session log in the
agent's private home. Totals are normalised into :class:`AgentUsage`:

=====================  =====================================================================
field                  meaning (the same for every CLI)
=====================  =====================================================================
``input_tokens``       input tokens billed at the full rate: *uncached* input only
``cache_read_tokens``  input tokens read from the provider's prompt cache
``cache_write_tokens`` input tokens written to the prompt cache (None: the CLI does not say)
``output_tokens``      every generated token, reasoning/thinking included
``reasoning_tokens``   the reasoning/thinking part of ``output_tokens`` (None: not reported)
``requests``           model API responses the session received (None: not determinable)
``cost_usd``           the cost the CLI itself reports (None: the CLI reports no cost)
``turns``              the CLI's own count of turns (per CLI below)
=====================  =====================================================================

How each CLI reports them (verified against the pinned versions, ``tools/install_agent_clis.sh``, with the
scripted server of ``tests/llm_server.py`` handing out known usage):

* **Claude Code 2.1.328** (``-p --output-format stream-json --verbose --include-partial-messages``): the
  final ``result`` event's ``modelUsage`` (per model, camelCase: ``inputTokens`` uncached,
  ``cacheReadInputTokens``, ``cacheCreationInputTokens``, ``outputTokens`` thinking included,
  ``thinkingTokens``, ``costUSD``) summed over models; ``total_cost_usd``; ``num_turns``. Requests: the
  distinct API message ids. Without a ``result`` (killed): per message id, ``message_start`` (input,
  cache) and the last ``message_delta`` (cumulative output) of the partial stream, the ``assistant``
  events (one per content block, all repeating one message's usage) and the session transcript
  ``$CLAUDE_CONFIG_DIR/projects/*/*.jsonl`` (final usage per message), merged by message id (the largest
  value of each field: a message is counted once however often it is repeated).
* **Codex CLI 0.171.0** (``exec --json``): ``turn.completed.usage`` summed over turns, OpenAI's
  convention: ``input_tokens`` *includes* ``cached_input_tokens`` (uncached = input - cached),
  ``cache_write_input_tokens``, ``output_tokens`` *includes* ``reasoning_output_tokens``. No cost. Without
  ``turn.completed`` (killed): the rollout ``$CODEX_HOME/sessions/**/rollout-*.jsonl``, whose
  ``token_usage_record`` lines (written as each response arrives, before its tool calls run) carry one
  response's ``usage`` and ``response_id`` (summed, one per id), else its last cumulative ``token_count``.
  Requests and turns: the responses (response ids).
* **OpenCode 1.18.33** (``run --format json``): ``step_finish`` events, one per model response, summed:
  ``tokens.input`` is *uncached* input, ``tokens.output`` *excludes* ``tokens.reasoning`` (so output =
  output + reasoning here), ``tokens.cache.read``/``cache.write``, ``cost`` (USD, 0 for models without a
  price). The stream carries each step as it finishes, so a killed session keeps every finished step, but
  a step finishes only when its tool calls have: a session killed while a tool runs (a hung experiment at
  the budget) loses that last response's usage -- OpenCode writes it nowhere (its session database holds
  zeros for it; SIGTERM and SIGINT do not end a running tool). ``complete`` is then False and a note says
  so. Its title-generation request (never in the stream) is switched off in the config the harness writes.
* **Gemini CLI 0.61.0** (``-o stream-json``): the ``result`` event's ``stats`` (``input_tokens`` = prompt
  tokens *including* ``cached``, ``input`` = uncached, ``output_tokens`` = candidates *excluding*
  thoughts); thoughts per response from the chat log ``$HOME/.gemini/tmp/*/chats/session-*.jsonl``
  (``tokens.thoughts``), else ``total_tokens - input_tokens - output_tokens``. No cost, no cache writes.
  Without ``result`` (killed): the chat log's per-response ``tokens`` (by message id).
* ``--agent command``: nothing is reported unless ``--stream-format`` names one of the formats above.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator

#: Token fields of :class:`AgentUsage`.
TOKEN_FIELDS = ("input_tokens", "cache_read_tokens", "cache_write_tokens", "output_tokens", "reasoning_tokens")


@dataclass
class AgentUsage:
    """One session's usage (see the module docstring for each field's meaning per CLI).

    Attributes:
        source: where the numbers come from: ``result`` (the CLI's final summary event), ``stream``
            (the partial stream, deduplicated by message id), ``session_log`` (the CLI's own log),
            ``stream+session_log`` (both, merged by message id), or ``none``.
        complete: the CLI's final summary was seen (the session was not cut short).
        model_served: the model names the responses carried (None when the CLI does not show them).
        raw: the raw usage objects the numbers were read from (verbatim).
        notes: what a field's None means, disagreements between sources.
    """

    input_tokens: int | None = None
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None
    output_tokens: int | None = None
    reasoning_tokens: int | None = None
    requests: int | None = None
    cost_usd: float | None = None
    turns: int | None = None
    model_served: list[str] | None = None
    source: str = "none"
    complete: bool = False
    raw: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def reported(self) -> bool:
        return any(getattr(self, f) is not None for f in TOKEN_FIELDS)

    @property
    def input_total(self) -> int | None:
        """Every input token: uncached + cache reads + cache writes (None when nothing is reported)."""
        parts = [self.input_tokens, self.cache_read_tokens, self.cache_write_tokens]
        return sum(p or 0 for p in parts) if any(p is not None for p in parts) else None

    @property
    def total(self) -> int | None:
        """Input (all of it) + output (reasoning included)."""
        if not self.reported:
            return None
        return (self.input_total or 0) + (self.output_tokens or 0)

    def generate_usage(self) -> dict[str, int | None]:
        """The usage in ``samples.jsonl``'s convention (``kgb generate``; what ``kgb report`` reads): input
        includes cached and cache-written tokens, output includes reasoning."""
        return {"input_tokens": self.input_total, "cached_input_tokens": self.cache_read_tokens,
                "cache_write_tokens": self.cache_write_tokens, "output_tokens": self.output_tokens,
                "reasoning_tokens": self.reasoning_tokens}

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class StreamInfo:
    """What a CLI's output says about how the session went.

    Attributes:
        usage: the session's usage.
        status: ``success``, ``error`` or ``turn_cap`` when the CLI said so in its stream; None when it
            said nothing (killed, crashed before its first event).
        error: the CLI's error message, if any.
        session_id: the CLI's session id, if any.
        final_text: the last assistant text.
        events: stream lines that parsed as JSON.
        tool_calls: tool calls the stream shows (when it shows them).
    """

    usage: AgentUsage
    status: str | None = None
    error: str | None = None
    session_id: str | None = None
    final_text: str | None = None
    events: int = 0
    tool_calls: int | None = None


def read_jsonl(path: Path | None) -> Iterator[dict[str, Any]]:
    """The JSON objects of a JSONL file; lines that are not JSON objects (a line cut by a kill, a
    CLI's plain-text warning) are skipped."""
    if path is None or not Path(path).is_file():
        return
    with open(path, "rb") as f:
        for raw in f:
            try:
                obj = json.loads(raw)
            except (json.JSONDecodeError, UnicodeDecodeError):
                continue
            if isinstance(obj, dict):
                yield obj


def _int(v: Any) -> int | None:
    return int(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _sum(values: Iterable[int | None]) -> int | None:
    vals = [v for v in values if v is not None]
    return sum(vals) if vals else None


def _merge_max(store: dict[str, dict[str, int]], key: str, fields: dict[str, int | None]) -> None:
    """Keep, per message id, the largest value seen of each field (streams repeat a message's usage,
    and an output count grows until the message ends)."""
    cur = store.setdefault(key, {})
    for k, v in fields.items():
        if v is not None:
            cur[k] = max(cur.get(k, 0), v)


# -- Claude Code --------------------------------------------------------------------------------------------
_CLAUDE_KEYS = {"input_tokens": "input_tokens", "cache_read_input_tokens": "cache_read_tokens",
                "cache_creation_input_tokens": "cache_write_tokens", "output_tokens": "output_tokens"}


def _claude_message_usage(u: dict[str, Any]) -> dict[str, int | None]:
    out = {dst: _int(u.get(src)) for src, dst in _CLAUDE_KEYS.items()}
    details = u.get("output_tokens_details") or {}
    out["reasoning_tokens"] = _int(details.get("thinking_tokens")) if isinstance(details, dict) else None
    return out


def parse_claude(transcript: Path | None, home: Path | None = None) -> StreamInfo:
    """Claude Code's ``stream-json`` transcript (and its session log under ``home``); see the module
    docstring."""
    per_msg: dict[str, dict[str, int]] = {}
    from_stream: set[str] = set()
    models: list[str] = []
    current: dict[Any, str] = {}  # parent_tool_use_id -> the message id being streamed
    result: dict[str, Any] | None = None
    info = StreamInfo(AgentUsage())
    tools = 0
    for ev in read_jsonl(transcript):
        info.events += 1
        t = ev.get("type")
        if t == "system" and ev.get("subtype") == "init":
            info.session_id = ev.get("session_id") or info.session_id
        elif t == "stream_event":
            e = ev.get("event") or {}
            parent = ev.get("parent_tool_use_id")
            if e.get("type") == "message_start":
                m = e.get("message") or {}
                if m.get("id"):
                    current[parent] = m["id"]
                    _merge_max(per_msg, m["id"], _claude_message_usage(m.get("usage") or {}))
                    from_stream.add(m["id"])
            elif e.get("type") == "message_delta" and parent in current:
                _merge_max(per_msg, current[parent], _claude_message_usage(e.get("usage") or {}))
        elif t == "assistant":
            m = ev.get("message") or {}
            if m.get("id"):
                _merge_max(per_msg, m["id"], _claude_message_usage(m.get("usage") or {}))
                from_stream.add(m["id"])
            if m.get("model") and m["model"] not in models:
                models.append(m["model"])
            for block in m.get("content") or []:
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    tools += 1
                elif isinstance(block, dict) and block.get("type") == "text" and block.get("text"):
                    info.final_text = block["text"]
        elif t == "result":
            result = ev
    from_log: set[str] = set()
    if home is not None:
        for f in sorted((Path(home) / ".claude" / "projects").glob("**/*.jsonl")):
            for ev in read_jsonl(f):
                m = ev.get("message") if isinstance(ev.get("message"), dict) else None
                if ev.get("type") == "assistant" and m and m.get("id") and isinstance(m.get("usage"), dict):
                    _merge_max(per_msg, m["id"], _claude_message_usage(m["usage"]))
                    from_log.add(m["id"])
                    if m.get("model") and m["model"] not in models and m["model"] != "<synthetic>":
                        models.append(m["model"])
    u = info.usage
    u.model_served = models or None
    u.requests = len(per_msg) if per_msg else None
    info.tool_calls = tools
    msg_sum = {f: _sum(m.get(f) for m in per_msg.values()) for f in TOKEN_FIELDS}
    if result is not None:
        info.status = ("turn_cap" if result.get("subtype") == "error_max_turns"
                       else "error" if result.get("is_error") or result.get("subtype") != "success" else "success")
        if info.status == "error":
            info.error = str(result.get("result") or result.get("subtype") or "error")[:2000]
        if result.get("result") and not result.get("is_error"):
            info.final_text = result["result"]
        mu = result.get("modelUsage") or {}
        usage = result.get("usage") or {}
        if mu:
            u.input_tokens = _sum(_int(m.get("inputTokens")) for m in mu.values())
            u.cache_read_tokens = _sum(_int(m.get("cacheReadInputTokens")) for m in mu.values())
            u.cache_write_tokens = _sum(_int(m.get("cacheCreationInputTokens")) for m in mu.values())
            u.output_tokens = _sum(_int(m.get("outputTokens")) for m in mu.values())
            u.reasoning_tokens = _sum(_int(m.get("thinkingTokens")) for m in mu.values())
        else:
            for f, v in _claude_message_usage(usage).items():
                setattr(u, f, v)
        u.cost_usd = float(result["total_cost_usd"]) if result.get("total_cost_usd") is not None else None
        u.turns = _int(result.get("num_turns"))
        u.source, u.complete = "result", True
        u.raw = [{"usage": usage, "modelUsage": mu, "total_cost_usd": result.get("total_cost_usd")}]
        for f in ("input_tokens", "cache_read_tokens", "cache_write_tokens", "output_tokens"):
            if per_msg and msg_sum[f] is not None and getattr(u, f) is not None and msg_sum[f] != getattr(u, f):
                u.notes.append(f"{f}: the result says {getattr(u, f)}, the messages sum to {msg_sum[f]}")
    elif per_msg:
        for f in TOKEN_FIELDS:
            setattr(u, f, msg_sum[f])
        u.source = ("stream+session_log" if from_stream and from_log else "stream" if from_stream else "session_log")
        u.raw = [{"message_id": k, **v} for k, v in per_msg.items()]
        u.notes.append("no result event (session cut short): usage summed per API message id from the partial "
                       "stream and the session log; no cost reported")
    return info


# -- Codex CLI ---------------------------------------------------------------------------------------------
def _codex_usage(u: dict[str, Any]) -> dict[str, int | None]:
    inp, cached = _int(u.get("input_tokens")), _int(u.get("cached_input_tokens"))
    return {"input_tokens": None if inp is None else inp - (cached or 0), "cache_read_tokens": cached,
            "cache_write_tokens": _int(u.get("cache_write_input_tokens")),
            "output_tokens": _int(u.get("output_tokens")),
            "reasoning_tokens": _int(u.get("reasoning_output_tokens"))}


def parse_codex(transcript: Path | None, home: Path | None = None) -> StreamInfo:
    """Codex's ``exec --json`` transcript (and its rollout under ``$CODEX_HOME``); see the module
    docstring."""
    info = StreamInfo(AgentUsage())
    turns: list[dict[str, Any]] = []
    tools = 0
    for ev in read_jsonl(transcript):
        info.events += 1
        t = ev.get("type")
        if t == "thread.started":
            info.session_id = ev.get("thread_id")
        elif t == "turn.completed":
            turns.append(ev.get("usage") or {})
        elif t == "turn.failed":
            info.status = "error"
            info.error = str((ev.get("error") or {}).get("message") or ev.get("error"))[:2000]
        elif t == "error":
            info.error = str(ev.get("message") or ev)[:2000]
        elif t == "item.completed":
            item = ev.get("item") or {}
            if item.get("type") in ("command_execution", "file_change", "mcp_tool_call", "web_search"):
                tools += 1
            elif item.get("type") == "agent_message":
                info.final_text = item.get("text")
    info.tool_calls = tools
    counts: list[dict[str, Any]] = []
    per_response: dict[str, dict[str, Any]] = {}
    model = None
    if home is not None:
        for f in sorted((Path(home) / ".codex" / "sessions").glob("**/rollout-*.jsonl")):
            for ev in read_jsonl(f):
                p = ev.get("payload") or {}
                if ev.get("type") == "token_usage_record" and isinstance(p.get("usage"), dict):
                    per_response[str(p.get("response_id") or len(per_response))] = p["usage"]
                elif ev.get("type") == "event_msg" and p.get("type") == "token_count" and p.get("info"):
                    tot = (p["info"] or {}).get("total_token_usage")
                    if isinstance(tot, dict) and (not counts or counts[-1] != tot):
                        counts.append(tot)
                elif ev.get("type") == "turn_context" and p.get("model"):
                    model = p["model"]
    u = info.usage
    n_resp = len(per_response) or len(counts)
    u.requests = u.turns = n_resp or None
    if turns:
        sums = [_codex_usage(x) for x in turns]
        for f in TOKEN_FIELDS:
            setattr(u, f, _sum(s[f] for s in sums))
        u.source, u.complete = "result", True
        u.raw = turns
        if info.status is None:
            info.status = "success"
        if counts and _codex_usage(counts[-1]) != {f: getattr(u, f) for f in TOKEN_FIELDS}:
            u.notes.append(f"the rollout's last cumulative token_count differs: {counts[-1]}")
    elif per_response:
        sums = [_codex_usage(x) for x in per_response.values()]
        for f in TOKEN_FIELDS:
            setattr(u, f, _sum(s[f] for s in sums))
        u.source = "session_log"
        u.raw = [{"response_id": k, **v} for k, v in per_response.items()]
        u.notes.append("no turn.completed event (session cut short): usage summed over the rollout's "
                       "token_usage_record lines, one per response id")
    elif counts:
        for f, v in _codex_usage(counts[-1]).items():
            setattr(u, f, v)
        u.source = "session_log"
        u.raw = [counts[-1]]
        u.notes.append("no turn.completed event (session cut short): usage from the rollout's last cumulative "
                       "token_count")
    u.notes.append("Codex reports no cost and no served model name")
    if model:
        u.notes.append(f"model requested (rollout turn_context): {model}")
    return info


# -- OpenCode ----------------------------------------------------------------------------------------------
def parse_opencode(transcript: Path | None, home: Path | None = None) -> StreamInfo:
    """OpenCode's ``run --format json`` transcript; see the module docstring."""
    info = StreamInfo(AgentUsage())
    steps: dict[str, dict[str, Any]] = {}
    last_reason = None
    tools = 0
    for ev in read_jsonl(transcript):
        info.events += 1
        t = ev.get("type")
        part = ev.get("part") or {}
        info.session_id = ev.get("sessionID") or info.session_id
        if t == "step_finish":
            steps[str(part.get("id") or len(steps))] = part
            last_reason = part.get("reason")
        elif t == "tool_use":
            tools += 1
        elif t == "text" and part.get("text"):
            info.final_text = part["text"]
        elif t == "error":
            err = ev.get("error") or part.get("error") or ev
            info.status = "error"
            info.error = (json.dumps(err) if not isinstance(err, str) else err)[:2000]
    info.tool_calls = tools
    u = info.usage
    if steps:
        tk = [p.get("tokens") or {} for p in steps.values()]
        out = _sum(_int(t.get("output")) for t in tk)
        reas = _sum(_int(t.get("reasoning")) for t in tk)
        u.input_tokens = _sum(_int(t.get("input")) for t in tk)
        u.cache_read_tokens = _sum(_int((t.get("cache") or {}).get("read")) for t in tk)
        u.cache_write_tokens = _sum(_int((t.get("cache") or {}).get("write")) for t in tk)
        u.output_tokens = None if out is None and reas is None else (out or 0) + (reas or 0)
        u.reasoning_tokens = reas
        costs = [p.get("cost") for p in steps.values() if isinstance(p.get("cost"), (int, float))]
        u.cost_usd = float(sum(costs)) if costs else None
        u.requests = u.turns = len(steps)
        u.raw = [{"tokens": p.get("tokens"), "cost": p.get("cost"), "reason": p.get("reason")} for p in steps.values()]
        u.complete = last_reason not in (None, "tool-calls")
        u.source = "result" if u.complete else "stream"
        if not u.complete:
            u.notes.append("the session ended after a step with tool calls (cut short): OpenCode records a "
                           "response's usage only when its tool calls finish, so a response whose tool call was "
                           "still running is missing from these totals")
        if info.status is None and u.complete:
            info.status = "success"
    u.notes.append("OpenCode shows no served model name; cost is 0 for models it has no price for")
    return info


# -- Gemini CLI --------------------------------------------------------------------------------------------
def _gemini_log(home: Path | None) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    if home is None:
        return out
    for f in sorted((Path(home) / ".gemini" / "tmp").glob("*/chats/session-*.json*")):
        objs: list[dict[str, Any]] = []
        if f.suffix == ".json":
            try:
                data = json.loads(f.read_text())
                objs = list(data.get("messages") or []) if isinstance(data, dict) else []
            except (OSError, json.JSONDecodeError):
                continue
        else:
            for ev in read_jsonl(f):
                msgs = (ev.get("$set") or {}).get("messages") if isinstance(ev.get("$set"), dict) else None
                objs.extend(msgs if isinstance(msgs, list) else [ev])
        for m in objs:
            if isinstance(m, dict) and m.get("type") == "gemini" and isinstance(m.get("tokens"), dict):
                out[str(m.get("id") or len(out))] = m
    return out


def parse_gemini(transcript: Path | None, home: Path | None = None) -> StreamInfo:
    """Gemini CLI's ``stream-json`` transcript (and its chat log under ``home``); see the module docstring."""
    info = StreamInfo(AgentUsage())
    result = None
    tools = 0
    text: list[str] = []
    for ev in read_jsonl(transcript):
        info.events += 1
        t = ev.get("type")
        if t == "init":
            info.session_id = ev.get("session_id")
        elif t == "tool_use":
            tools += 1
        elif t == "message" and ev.get("role") == "assistant":
            text = (text if ev.get("delta") else []) + [str(ev.get("content") or "")]
        elif t == "error":
            info.error = str(ev.get("message") or ev)[:2000]
        elif t == "result":
            result = ev
    info.tool_calls = tools
    info.final_text = "".join(text) or None
    log = _gemini_log(home)
    u = info.usage
    thoughts = _sum(_int(m["tokens"].get("thoughts")) for m in log.values()) if log else None
    if log:
        u.requests = u.turns = len(log)
        models = sorted({str(m.get("model")) for m in log.values() if m.get("model")})
        u.notes.append(f"models requested (chat log): {', '.join(models)}" if models else "")
    if result is not None:
        st = result.get("stats") or {}
        info.status = "success" if result.get("status") == "success" else "error"
        if info.status == "error":
            info.error = json.dumps(result.get("error"))[:2000] if result.get("error") else info.error
        prompt, uncached, cached = _int(st.get("input_tokens")), _int(st.get("input")), _int(st.get("cached"))
        cand, total = _int(st.get("output_tokens")), _int(st.get("total_tokens"))
        u.input_tokens = uncached if uncached is not None else (None if prompt is None else prompt - (cached or 0))
        u.cache_read_tokens = cached
        if thoughts is None and None not in (total, prompt, cand):
            thoughts = max(0, total - prompt - cand)  # type: ignore[operator]
            u.notes.append("reasoning = total_tokens - input_tokens - output_tokens (no chat log)")
        u.reasoning_tokens = thoughts
        u.output_tokens = None if cand is None else cand + (thoughts or 0)
        models = st.get("models") or {}
        u.model_served = sorted(models) or None
        u.source, u.complete = "result", True
        u.raw = [st]
        if st.get("tool_calls") is not None:
            info.tool_calls = _int(st.get("tool_calls"))
    elif log:
        tk = [m["tokens"] for m in log.values()]
        prompt = _sum(_int(t.get("input")) for t in tk)
        cached = _sum(_int(t.get("cached")) for t in tk)
        cand = _sum(_int(t.get("output")) for t in tk)
        u.input_tokens = None if prompt is None else prompt - (cached or 0)
        u.cache_read_tokens = cached
        u.reasoning_tokens = thoughts
        u.output_tokens = None if cand is None else cand + (thoughts or 0)
        u.source = "session_log"
        u.raw = tk
        u.notes.append("no result event (session cut short): usage summed over the chat log's responses")
    u.notes = [n for n in u.notes if n]
    u.notes.append("Gemini CLI reports no cost and no cache writes")
    return info


PARSERS = {"claude-code": parse_claude, "codex": parse_codex, "opencode": parse_opencode, "gemini": parse_gemini}
