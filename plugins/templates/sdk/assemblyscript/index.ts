// toolhost guest SDK for AssemblyScript: write a handler, and the module
// speaks toolhost's wasm ABI ("toolhost-abi 1", docs/abi.md) without ABI
// code.
//
//   import { Context, Result, Schema, Tool, Value } from "toolhost";
//
//   function greet(ctx: Context, args: Value): Result {
//     const name = args.getString("name");
//     return Result.text("hello " + (name === null ? "world" : name));
//   }
//
//   const main = new Tool("Greets someone.", new Schema().string("name", "Who to greet", true), greet);
//   export function description(): i32 { return main.description(); }
//   export function schema(): i32 { return main.schema(); }
//   export function execute(): i32 { return main.execute(); }
//
// Build: asc index.ts --path <dir holding node_modules> --use abort=toolhost/abort
// (see docs/languages.md). The three exports are the only ABI in sight: a
// tool named N in the module exports N_description, N_schema, N_execute.
//
// Why it is built this way:
//   - On top of @extism/as-pdk for input, memory blocks and config, so it
//     stays an Extism guest like any other; but output and errors are set
//     here. The PDK's Host.outputString passes the UTF-16 length as the
//     byte length, cutting non-ASCII output short ("héllo wörld" became
//     "héllo wör"); this SDK always encodes UTF-8 first and passes the
//     encoded length.
//   - The PDK has no error or host-function helpers, so the toolhost
//     imports (extism:host/user) are declared here.
//   - AssemblyScript has no exceptions: a handler returns a Result that is
//     either output or an error, and Context.ask returns the refusal as
//     such a Result (or null when allowed), to return unchanged.

import { Config, Host, Memory } from "@extism/as-pdk";
import { error_set, length, output_set } from "@extism/as-pdk/lib/env";
import { Kind, Value, parse, parseError, quote } from "./json";

export { Kind, Value, parse, parseError, quote } from "./json";

@external("extism:host/user", "ask")
declare function host_ask(offset: u64): u64;
@external("extism:host/user", "metadata")
declare function host_metadata(offset: u64): u64;
@external("extism:host/user", "log")
declare function host_log(offset: u64): u64;
@external("extism:host/user", "state_get")
declare function host_state_get(offset: u64): u64;
@external("extism:host/user", "state_set")
declare function host_state_set(offset: u64): u64;

/** Sets the call's output to s, encoded as UTF-8 with its byte length. */
export function setOutput(s: string): void {
  const bytes = Uint8Array.wrap(String.UTF8.encode(s));
  // Host.output (unlike Host.outputString) passes the byte length.
  Host.output(bytes);
}

/** Sets the call's error message (UTF-8). */
export function setError(msg: string): void {
  const mem = Memory.allocateString(msg);
  error_set(mem.offset);
}

/** Calls a toolhost host function with a UTF-8 payload; null for "no response". */
function callHost(f: (offset: u64) => u64, payload: string): string | null {
  const arg = Memory.allocateString(payload);
  const resp = f(arg.offset);
  arg.free();
  if (resp == 0) return null;
  const mem = new Memory(resp, length(resp));
  const out = mem.toString();
  mem.free();
  return out;
}

/** Writes to the host's structured log; level is debug, info, warn or error. */
export function log(level: string, message: string): void {
  callHost(host_log, Value.object().set("level", Value.string(level)).set("message", Value.string(message)).toString());
}

/**
 * A tool's result: output text for the model, or an error. Title and
 * metadata are optional extras for people and front ends.
 */
export class Result {
  output: string = "";
  title: string = "";
  metadata: Value | null = null;
  /** Set for a failure: the message the model sees. */
  error: string | null = null;
  /** For a refused permission: denied, rejected or corrected. */
  permission: string = "";

  /** A result with only output text. */
  static text(output: string): Result {
    const r = new Result();
    r.output = output;
    return r;
  }
  /** A failure, in words the model can act on. */
  static error(message: string): Result {
    const r = new Result();
    r.error = message;
    return r;
  }
  /** Sets the title; returns this. */
  withTitle(title: string): Result {
    this.title = title;
    return this;
  }
  /** Sets the metadata (a JSON object); returns this. */
  withMetadata(meta: Value): Result {
    this.metadata = meta;
    return this;
  }
  /** Whether this is a failure. */
  get failed(): bool {
    return this.error !== null;
  }
  toJSON(): string {
    const v = Value.object().set("output", Value.string(this.output));
    if (this.title != "") v.set("title", Value.string(this.title));
    const m = this.metadata;
    if (m !== null) v.set("metadata", m);
    return v.toString();
  }
}

/** A permission request: see Context.ask. */
export class AskRequest {
  /** What an "always" answer approves for the rest of the session. */
  always: string[] = [];
  /** Shown to the person deciding. */
  metadata: Value | null = null;
  /**
   * permission is as in the user's rules ("edit", or the tool's own);
   * patterns are what this call touches, each of which must be allowed.
   */
  constructor(public permission: string, public patterns: string[]) {}
}

function strings(list: string[]): Value {
  const v = Value.array();
  for (let i = 0; i < list.length; i++) v.push(Value.string(list[i]));
  return v;
}

/** What a running call knows about itself and can ask of the host. */
export class Context {
  sessionID: string = "";
  messageID: string = "";
  agent: string = "";
  callID: string = "";
  /** Caller data passed through by the host (a JSON object). */
  extra: Value = Value.object();

  /**
   * Asks the host's permission engine — the user's rules, the session's
   * approvals, the person — and blocks until answered. null when allowed;
   * otherwise the refusal as an error Result: return it unchanged, and the
   * host reports the same typed refusal a built-in tool would.
   */
  ask(req: AskRequest): Result | null {
    const v = Value.object().set("permission", Value.string(req.permission)).set("patterns", strings(req.patterns));
    if (req.always.length > 0) v.set("always", strings(req.always));
    const m = req.metadata;
    if (m !== null) v.set("metadata", m);
    const resp = callHost(host_ask, v.toString());
    if (resp === null) return Result.error("toolhost: ask gave no response");
    const r = parse(resp);
    if (r === null) return Result.error("toolhost: malformed ask response: " + parseError);
    if (r.getBool("ok")) return null;
    const msg = r.getString("error");
    const kind = r.getString("kind");
    const res = Result.error(msg === null ? "permission refused" : msg);
    res.permission = kind === null ? "denied" : kind;
    return res;
  }

  /** Reports live progress to the caller: a title and partial metadata. */
  metadata(title: string, meta: Value | null = null): void {
    const v = Value.object();
    if (title != "") v.set("title", Value.string(title));
    if (meta !== null) v.set("metadata", meta);
    callHost(host_metadata, v.toString());
  }

  /** A value the user configured for this tool, or null. */
  config(key: string): string | null {
    return Config.get(key);
  }

  /** The session's value under key (per session, per tool), or null. */
  stateGet(key: string): Value | null {
    const resp = callHost(host_state_get, key);
    if (resp === null) return null;
    return parse(resp);
  }

  /** Stores value under key for this session; Value.null() deletes it. */
  stateSet(key: string, value: Value): void {
    callHost(host_state_set, Value.object().set("key", Value.string(key)).set("value", value).toString());
  }

  /** Writes to the host's log, tagged with the tool id. */
  log(level: string, message: string): void {
    log(level, message);
  }
}

/** A handler: the call's context and arguments (validated by the host against the schema) in, a Result out. */
export type Handler = (ctx: Context, args: Value) => Result;

/** Builds the JSON Schema of a tool's arguments. */
export class Schema {
  properties: Value = Value.object();
  required: string[] = [];

  private prop(name: string, type: string, description: string, required: bool): Schema {
    this.properties.set(name, Value.object().set("type", Value.string(type)).set("description", Value.string(description)));
    if (required) this.required.push(name);
    return this;
  }
  /** Adds a string property. */
  string(name: string, description: string, required: bool): Schema {
    return this.prop(name, "string", description, required);
  }
  /** Adds an integer property. */
  integer(name: string, description: string, required: bool): Schema {
    return this.prop(name, "integer", description, required);
  }
  /** Adds a number property. */
  number(name: string, description: string, required: bool): Schema {
    return this.prop(name, "number", description, required);
  }
  /** Adds a boolean property. */
  boolean(name: string, description: string, required: bool): Schema {
    return this.prop(name, "boolean", description, required);
  }
  /** Adds a property with a schema of its own (an enum, an array…). */
  property(name: string, schema: Value, required: bool): Schema {
    this.properties.set(name, schema);
    if (required) this.required.push(name);
    return this;
  }
  toString(): string {
    return Value.object()
      .set("type", Value.string("object"))
      .set("properties", this.properties)
      .set("required", strings(this.required))
      .set("additionalProperties", Value.bool(false))
      .toString();
  }
}

/**
 * A tool: its description, schema and handler. Export its three methods
 * under the names the host looks for (description/schema/execute for the
 * module's main tool, N_description/N_schema/N_execute for tool N).
 */
export class Tool {
  constructor(public about: string, public args: Schema, public handler: Handler) {}

  /** The description export. */
  description(): i32 {
    setOutput(this.about);
    return 0;
  }
  /** The schema export. */
  schema(): i32 {
    setOutput(this.args.toString());
    return 0;
  }
  /** The execute export: decodes the input, runs the handler, sets output or error. */
  execute(): i32 {
    const input = parse(Host.inputString());
    if (input === null) {
      setError("toolhost: malformed execute input: " + parseError);
      return 1;
    }
    const ctx = new Context();
    const c = input.get("context");
    if (c !== null) {
      ctx.sessionID = orEmpty(c.getString("sessionID"));
      ctx.messageID = orEmpty(c.getString("messageID"));
      ctx.agent = orEmpty(c.getString("agent"));
      ctx.callID = orEmpty(c.getString("callID"));
      const extra = c.get("extra");
      if (extra !== null && extra.kind == Kind.Object) ctx.extra = extra;
    }
    let args = input.get("args");
    if (args === null) args = Value.object();
    const res = this.handler(ctx, args);
    const err = res.error;
    if (err !== null) {
      setError(err);
      return 1;
    }
    setOutput(res.toJSON());
    return 0;
  }
}

function orEmpty(s: string | null): string {
  return s === null ? "" : s;
}

/**
 * abort replaces AssemblyScript's env.abort import (a failed assertion,
 * an out-of-bounds access): the message becomes the call's error and the
 * log's, instead of an import the host does not provide. Build with
 * --use abort=<path to this file>/abort (docs/languages.md).
 */
export function abort(message: string | null, fileName: string | null, line: u32, column: u32): void {
  const msg = "tool aborted: " + (message === null ? "" : message) + " at " + (fileName === null ? "?" : fileName) + ":" + line.toString() + ":" + column.toString();
  log("error", msg);
  setError(msg);
  unreachable();
}
