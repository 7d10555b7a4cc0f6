# JSON Schema from a tool function's signature: annotations, defaults and
# docstring. Run once per tool file content (toolhost caches the result).
import dataclasses
import enum
import inspect
import types
import typing

import toolhost

_SCALARS = {str: "string", int: "integer", float: "number", bool: "boolean", type(None): "null"}


class SchemaError(Exception):
    def __init__(self, msg, line):
        super().__init__(msg)
        self.line = line


class _Unsupported(Exception):
    pass


def _is_typeddict(t):
    return isinstance(t, type) and issubclass(t, dict) and hasattr(t, "__required_keys__")


def schema_of(t):
    if t is inspect.Parameter.empty or t is typing.Any or t is object:
        return {}
    origin, args = typing.get_origin(t), typing.get_args(t)
    if origin is typing.Annotated:
        s = schema_of(args[0])
        for m in args[1:]:
            if isinstance(m, str):
                s = dict(s, description=m)
        return s
    if t in _SCALARS:
        return {"type": _SCALARS[t]}
    if origin is typing.Literal:
        s = {"enum": list(args)}
        kinds = {_SCALARS.get(type(a)) for a in args}
        if len(kinds) == 1 and None not in kinds:
            s["type"] = kinds.pop()
        return s
    if origin is typing.Union or origin is types.UnionType:
        subs = [schema_of(a) for a in args]
        return {"anyOf": subs}
    if t in (list, tuple, set, frozenset) or origin in (list, tuple, set, frozenset, typing.Sequence):
        s = {"type": "array"}
        if args and not (origin is tuple and len(args) != 2 and args[-1] is not Ellipsis):
            s["items"] = schema_of(args[0])
        return s
    if t is dict or origin is dict:
        s = {"type": "object"}
        if len(args) == 2:
            if args[0] is not str:
                raise _Unsupported("dict keys must be str")
            s["additionalProperties"] = schema_of(args[1])
        return s
    if isinstance(t, type) and issubclass(t, enum.Enum):
        return {"enum": [m.value for m in t]}
    if _is_typeddict(t):
        hints = typing.get_type_hints(t, include_extras=True)
        return {"type": "object", "properties": {k: schema_of(v) for k, v in hints.items()},
                "required": sorted(t.__required_keys__)}
    if dataclasses.is_dataclass(t):
        hints = typing.get_type_hints(t, include_extras=True)
        props, req = {}, []
        for f in dataclasses.fields(t):
            props[f.name] = schema_of(hints.get(f.name, inspect.Parameter.empty))
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                req.append(f.name)
            elif f.default is not dataclasses.MISSING and _jsonable(f.default):
                props[f.name]["default"] = f.default
        return {"type": "object", "properties": props, "required": req}
    raise _Unsupported(repr(t))


def _jsonable(v):
    return v is None or isinstance(v, (str, int, float, bool)) or (
        isinstance(v, (list, tuple, dict)) and all(_jsonable(x) for x in (v.values() if isinstance(v, dict) else v)))


def _doc(fn):
    """The description (the docstring before an Args: section) and the
    parameters' descriptions from that section (Google style)."""
    doc = inspect.getdoc(fn) or ""
    desc, params, cur, in_args = [], {}, None, False
    for line in doc.splitlines():
        s = line.strip()
        if s in ("Args:", "Arguments:", "Parameters:"):
            in_args = True
            continue
        if in_args and s.endswith(":") and not line.startswith(" "):
            in_args = False
        if not in_args:
            desc.append(line)
            continue
        if line.startswith("    ") and not line.startswith("        ") and ":" in s:
            name, _, d = s.partition(":")
            cur = name.split("(")[0].strip()
            params[cur] = d.strip()
        elif cur and s:
            params[cur] += " " + s
    return "\n".join(desc).strip(), params


def is_context(name, annotation):
    return annotation is toolhost.Context or (annotation is inspect.Parameter.empty and name == "ctx")


def _def_line(fn, lines):
    """The line of fn's def (co_firstlineno is its first decorator's)."""
    n = fn.__code__.co_firstlineno
    for i in range(n - 1, min(len(lines), n + 50)):
        s = lines[i].lstrip()
        if s.startswith("def ") or s.startswith("async def "):
            return i + 1
    return n


def describe(tools, stem, lines):
    out, seen = [], set()
    for fn, name, description in tools:
        line = _def_line(fn, lines)
        try:
            hints = typing.get_type_hints(fn, include_extras=True)
        except Exception as e:
            raise SchemaError("%s: annotations: %s" % (fn.__name__, e), line)
        doc, pdocs = _doc(fn)
        props, req, ctx = {}, [], None
        for p in inspect.signature(fn).parameters.values():
            ann = hints.get(p.name, inspect.Parameter.empty)
            if is_context(p.name, ann):
                ctx = p.name
                continue
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD, p.POSITIONAL_ONLY):
                raise SchemaError("%s: parameter %s: *args, **kwargs and positional-only parameters cannot be tool arguments" % (fn.__name__, p.name), line)
            try:
                s = schema_of(ann)
            except _Unsupported as e:
                raise SchemaError("%s: parameter %s: unsupported annotation %s; use str, int, float, bool, list, dict, Literal, Optional, TypedDict or a dataclass" % (fn.__name__, p.name, e), line)
            if p.name in pdocs and "description" not in s:
                s["description"] = pdocs[p.name]
            if p.default is inspect.Parameter.empty:
                req.append(p.name)
            elif _jsonable(p.default):
                s["default"] = p.default
            props[p.name] = s
        if name:
            tid = name
        elif fn.__name__ == stem:
            tid = stem
        else:
            tid = stem + "_" + fn.__name__
        if tid in seen:
            raise SchemaError("two tools are named %s" % tid, line)
        seen.add(tid)
        desc = description or doc
        if not desc:
            raise SchemaError("%s: no description; give the function a docstring" % fn.__name__, line)
        schema = {"type": "object", "properties": props, "required": req, "additionalProperties": False}
        out.append({"id": tid, "function": fn.__name__, "context": ctx or "", "description": desc, "schema": schema, "line": line})
    return out
