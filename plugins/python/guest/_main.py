# The guest side of a Python tool's instance: toolhost runs
#   python -I -S /toolhost/_main.py MODE FILE STEM
# with the tool's source at /toolhost/tool.py. MODE "describe" prints the
# tools' schemas; "call" signals ready, reads one call and answers it.
# fd 1 carries the protocol (one JSON object a line); print() goes to fd 2.
import sys

sys.path.insert(0, "/toolhost")
import io
import json
import types

_out = sys.stdout.buffer
_in = sys.stdin.buffer
sys.stdout = sys.stderr
sys.stdin = io.StringIO("")

import toolhost

mode, filename, stem = sys.argv[1], sys.argv[2], sys.argv[3]


def emit(obj):
    _out.write(json.dumps(obj, default=str).encode() + b"\n")
    _out.flush()


def error_line(e):
    tb, line = e.__traceback__, 0
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def load():
    with open("/toolhost/tool.py", "rb") as f:
        src = f.read()
    try:
        code = compile(src, filename, "exec")
    except SyntaxError as e:
        emit({"op": "load_error", "message": "SyntaxError: " + str(e.msg), "line": e.lineno or 0})
        sys.exit(0)
    # A real module, registered: dataclasses and typing look classes'
    # modules up in sys.modules. Not named after the file, which may be
    # called like a standard module (json.py).
    mod = types.ModuleType("__tool__")
    mod.__file__ = filename
    sys.modules["__tool__"] = mod
    try:
        exec(code, mod.__dict__)
    except MemoryError:
        emit({"op": "load_error", "kind": "memory", "message": "MemoryError"})
        sys.exit(0)
    except BaseException as e:
        emit({"op": "load_error", "message": type(e).__name__ + ": " + str(e), "line": error_line(e)})
        sys.exit(0)
    if not toolhost._tools:
        emit({"op": "load_error", "message": "it defines no tool; decorate a function with @toolhost.tool"})
        sys.exit(0)
    return src


def call():
    emit({"op": "ready"})
    line = _in.readline()
    if not line:
        sys.exit(0)
    req = json.loads(line)
    fns = {f.__name__: f for f, _, _ in toolhost._tools}
    fn = fns.get(req["fn"])
    if fn is None:
        emit({"op": "error", "message": "no tool function " + req["fn"]})
        return
    args = dict(req.get("args") or {})
    if any(isinstance(v, dict) for v in args.values()):
        # A dataclass parameter gets an instance; typing resolves string
        # annotations (from __future__ import annotations).
        import typing

        try:
            ann = typing.get_type_hints(fn)
        except Exception:
            ann = getattr(fn, "__annotations__", {})
        for k, v in list(args.items()):
            t = ann.get(k)
            if isinstance(v, dict) and hasattr(t, "__dataclass_fields__"):
                args[k] = t(**v)
    ctxname = req.get("ctx")
    if ctxname:
        args[ctxname] = toolhost.Context(req.get("info") or {})
    toolhost._chan = (_out, _in)
    try:
        r = fn(**args)
    except MemoryError:
        emit({"op": "error", "kind": "memory", "message": "MemoryError"})
        return
    except BaseException as e:
        msg = str(e)
        emit({"op": "error", "message": type(e).__name__ + (": " + msg if msg else "")})
        return
    finally:
        toolhost._chan = None
    if isinstance(r, dict):
        out = r.get("output", "")
        res = {"output": out if isinstance(out, str) else json.dumps(out, default=str)}
        if r.get("title"):
            res["title"] = str(r["title"])
        if isinstance(r.get("metadata"), dict):
            res["metadata"] = r["metadata"]
    elif r is None:
        res = {"output": ""}
    elif isinstance(r, str):
        res = {"output": r}
    else:
        res = {"output": json.dumps(r, default=str)}
    emit({"op": "result", "value": res})


source = load()
if mode == "describe":
    import _schema

    try:
        lines = source.decode("utf-8", "replace").splitlines()
        emit({"op": "describe", "value": _schema.describe(toolhost._tools, stem, lines)})
    except _schema.SchemaError as e:
        emit({"op": "load_error", "message": str(e), "line": e.line})
else:
    call()
