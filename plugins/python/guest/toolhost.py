"""toolhost: what a Python tool imports inside toolhost's sandbox.

    import toolhost

    @toolhost.tool
    def weather(city: str, days: int = 1, ctx: toolhost.Context = None) -> str:
        \"\"\"Forecast for a city.\"\"\"
        ctx.metadata(title=f"weather in {city}")
        r = toolhost.fetch(f"https://api.example.com/{city}?days={days}")
        return r.text()

The sandbox has no sockets, threads or subprocesses: everything that
reaches outside it (fetch, ask, metadata, log, sample, elicit) is a
request to the host, which checks it against the tool's "wasm" config.
"""

import binascii as _binascii  # not base64: that imports re and struct, for nothing here
import json as _json

__all__ = ["tool", "Context", "Response", "HostError", "fetch", "log"]

_tools = []  # (function, id override, description override), in order
_chan = None  # (writer, reader) of the host channel, set by _main


def tool(fn=None, *, name=None, description=None):
    """Mark a function as a tool: @tool, or @tool(name=..., description=...).

    The id is the file's name for a function named like the file, else
    <file>_<function>; name= replaces it. The description is the docstring
    unless description= is given; the arguments' JSON Schema comes from the
    annotations and defaults.
    """

    def mark(f):
        _tools.append((f, name, description))
        return f

    return mark(fn) if fn is not None else mark


class HostError(Exception):
    """The host refused or failed a request (fetch, ask, metadata, sample, elicit)."""


def _host(op, arg):
    if _chan is None:
        raise HostError(op + ": the host is reachable only while a tool runs")
    w, r = _chan
    w.write(_json.dumps({"op": op, "arg": arg}).encode() + b"\n")
    w.flush()
    line = r.readline()
    if not line:
        raise SystemExit(1)
    reply = _json.loads(line)
    if reply.get("error"):
        raise HostError(reply["error"])
    return reply.get("value")


def _answered(r):
    # sample's and elicit's reply: the answer, or its "error" raised.
    r = r or {}
    if r.get("error"):
        raise HostError(r["error"])
    return r


class Context:
    """The call: its ids and folders, ask(), metadata(), sample(), elicit() and call_host()."""

    def __init__(self, info):
        self.session_id = info.get("sessionID", "")
        self.message_id = info.get("messageID", "")
        self.agent = info.get("agent", "")
        self.call_id = info.get("callID", "")
        self.directory = info.get("directory", "")
        self.worktree = info.get("worktree", "")

    def ask(self, permission, patterns=(), always=(), metadata=None):
        """Ask the permission engine (and maybe the user); raises HostError when refused."""
        _host("ask", {"permission": permission, "patterns": list(patterns),
                      "always": list(always), "metadata": metadata or {}})

    def call_host(self, fn, args=None):
        """Call a host function the embedder added (hostfns.Define) and return its result.

        Raises HostError, with .kind ("denied", "rejected", "unknown", "invalid",
        "failed" ...), when the permission engine refuses it or it fails.
        """
        r = _host("call", {"fn": fn, "args": args}) or {}
        if r.get("error"):
            e = HostError(r["error"])
            e.kind = r.get("kind", "")
            raise e
        return r.get("value")

    def sample(self, messages, max_tokens, system_prompt=None, temperature=None, stop_sequences=None):
        """Ask the model of the client the call comes from for one message (MCP sampling).

        messages is a str (one user message of text) or a list of
        {"role": "user" | "assistant", "content": {"type": "text", "text": ...}}.
        Returns {"role", "content", "model", "stopReason"}. Needs the tool's
        "sampling": true grant; raises HostError when it is missing, when the
        request is malformed, and when the client cannot or will not sample.
        """
        if isinstance(messages, str):
            messages = [{"role": "user", "content": {"type": "text", "text": messages}}]
        req = {"messages": messages, "maxTokens": max_tokens}
        for key, v in (("systemPrompt", system_prompt), ("temperature", temperature), ("stopSequences", stop_sequences)):
            if v is not None:
                req[key] = v
        return _answered(_host("sample", req))

    def elicit(self, message, schema):
        """Ask the person behind the client to fill in a form (MCP elicitation).

        schema is a flat JSON Schema object ({"type": "object", "properties": ...}).
        Returns {"action": "accept", "content": {...}}, or {"action": "decline"}
        or {"action": "cancel"}; raises HostError when the client cannot ask.
        """
        return _answered(_host("elicit", {"message": message, "requestedSchema": schema}))

    def metadata(self, title=None, metadata=None):
        """Show a live title and metadata for the running call."""
        _host("metadata", {"title": title or "", "metadata": metadata or {}})


class Response:
    """An HTTP response: status, headers (lower-case names), content (bytes)."""

    def __init__(self, status, headers, content):
        self.status = status
        self.headers = headers
        self.content = content

    @property
    def ok(self):
        return 200 <= self.status < 300

    def text(self, encoding="utf-8"):
        return self.content.decode(encoding, "replace")

    def json(self):
        return _json.loads(self.content)


def fetch(url, method="GET", headers=None, body=None):
    """HTTP through the host's egress policy (the tool's allowed_hosts)."""
    if isinstance(body, str):
        body = body.encode()
    v = _host("fetch", {"url": url, "method": method, "headers": headers or {},
                        "body": _binascii.b2a_base64(body or b"", newline=False).decode()})
    return Response(v["status"], v.get("headers") or {}, _binascii.a2b_base64(v.get("body") or ""))


def log(msg, level="info"):
    """A line in toolhost's log, attributed to the tool."""
    _host("log", {"level": level, "message": str(msg)})
