// toolhost's JavaScript prelude: the web APIs a tool may use, built on the
// one host function __host(op, json). Runs before the tool's bundle.
(function () {
  "use strict";
  const host = globalThis.__host;
  delete globalThis.__host;
  const hidden = (name, value) =>
    Object.defineProperty(globalThis, name, { value, writable: false, enumerable: false, configurable: false });

  function call(op, arg) {
    const r = JSON.parse(host(op, JSON.stringify(arg === undefined ? null : arg)));
    if (r.error !== undefined) throw new Error(r.error);
    return r.value;
  }

  // --- console → the host log
  const fmt = (args) => args.map((a) => {
    if (typeof a === "string") return a;
    if (a instanceof Error) return String(a) + (a.stack ? "\n" + a.stack : "");
    try { return JSON.stringify(a); } catch { return String(a); }
  }).join(" ");
  const log = (level) => (...args) => { call("log", { level, message: fmt(args) }); };
  globalThis.console = { log: log("info"), info: log("info"), debug: log("debug"), warn: log("warn"), error: log("error"), trace: log("debug") };

  // --- UTF-8 and base64
  function utf8encode(s) {
    s = String(s);
    const out = [];
    for (let i = 0; i < s.length; i++) {
      let c = s.charCodeAt(i);
      if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length) {
        const d = s.charCodeAt(i + 1);
        if (d >= 0xdc00 && d < 0xe000) { c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00); i++; } else c = 0xfffd;
      } else if (c >= 0xd800 && c < 0xe000) c = 0xfffd;
      if (c < 0x80) out.push(c);
      else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
      else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
      else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    }
    return new Uint8Array(out);
  }
  function utf8decode(b) {
    let s = "";
    for (let i = 0; i < b.length;) {
      const c = b[i];
      let cp = 0xfffd, n = 1;
      if (c < 0x80) cp = c;
      else if (c >= 0xc2 && c < 0xe0 && i + 1 < b.length && (b[i + 1] & 0xc0) === 0x80) { cp = ((c & 31) << 6) | (b[i + 1] & 63); n = 2; }
      else if (c >= 0xe0 && c < 0xf0 && i + 2 < b.length && (b[i + 1] & 0xc0) === 0x80 && (b[i + 2] & 0xc0) === 0x80) {
        cp = ((c & 15) << 12) | ((b[i + 1] & 63) << 6) | (b[i + 2] & 63); n = 3;
        if (cp < 0x800 || (cp >= 0xd800 && cp < 0xe000)) cp = 0xfffd;
      } else if (c >= 0xf0 && c < 0xf5 && i + 3 < b.length && (b[i + 1] & 0xc0) === 0x80 && (b[i + 2] & 0xc0) === 0x80 && (b[i + 3] & 0xc0) === 0x80) {
        cp = ((c & 7) << 18) | ((b[i + 1] & 63) << 12) | ((b[i + 2] & 63) << 6) | (b[i + 3] & 63); n = 4;
        if (cp < 0x10000 || cp > 0x10ffff) cp = 0xfffd;
      }
      s += String.fromCodePoint(cp);
      i += n;
    }
    return s;
  }
  const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  function b64encode(b) {
    let s = "";
    for (let i = 0; i < b.length; i += 3) {
      const n = (b[i] << 16) | ((b[i + 1] || 0) << 8) | (b[i + 2] || 0);
      s += B64[(n >> 18) & 63] + B64[(n >> 12) & 63] + (i + 1 < b.length ? B64[(n >> 6) & 63] : "=") + (i + 2 < b.length ? B64[n & 63] : "=");
    }
    return s;
  }
  function b64decode(s) {
    s = String(s).replace(/[^A-Za-z0-9+/]/g, "");
    const out = new Uint8Array(Math.floor((s.length * 3) / 4));
    let j = 0;
    for (let i = 0; i < s.length; i += 4) {
      const n = (B64.indexOf(s[i]) << 18) | (B64.indexOf(s[i + 1]) << 12) | ((B64.indexOf(s[i + 2]) & 63) << 6) | (B64.indexOf(s[i + 3]) & 63);
      out[j++] = (n >> 16) & 255;
      if (i + 2 < s.length) out[j++] = (n >> 8) & 255;
      if (i + 3 < s.length) out[j++] = n & 255;
    }
    return out.slice(0, j);
  }
  const toBytes = (body) => {
    if (body == null) return null;
    if (typeof body === "string") return utf8encode(body);
    if (body instanceof ArrayBuffer) return new Uint8Array(body);
    if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
    if (body instanceof URLSearchParams) return utf8encode(body.toString());
    return utf8encode(String(body));
  };

  if (typeof globalThis.TextEncoder !== "function") {
    globalThis.TextEncoder = class TextEncoder {
      get encoding() { return "utf-8"; }
      encode(s = "") { return utf8encode(s); }
    };
  }
  if (typeof globalThis.TextDecoder !== "function") {
    globalThis.TextDecoder = class TextDecoder {
      constructor(label = "utf-8") {
        if (!/^utf-?8$/i.test(label)) throw new RangeError(`TextDecoder: only utf-8 is supported, not ${label}`);
      }
      get encoding() { return "utf-8"; }
      decode(b) { return b == null ? "" : utf8decode(toBytes(b)); }
    };
  }
  if (typeof globalThis.btoa !== "function") {
    globalThis.btoa = (s) => b64encode(Uint8Array.from(String(s), (c) => c.charCodeAt(0) & 255));
    globalThis.atob = (s) => String.fromCharCode(...b64decode(s));
  }

  // --- timers: the host's event loop asks __toolhost.nextTimer() how long
  // to wait and calls __toolhost.fireTimers() when it is time.
  const timers = new Map();
  let timerSeq = 1;
  const addTimer = (fn, ms, args, every) => {
    const id = timerSeq++;
    const delay = Math.max(0, Number(ms) || 0);
    timers.set(id, { at: Date.now() + delay, fn, args, every: every ? Math.max(1, delay) : 0 });
    return id;
  };
  globalThis.setTimeout = (fn, ms, ...args) => addTimer(fn, ms, args, false);
  globalThis.setInterval = (fn, ms, ...args) => addTimer(fn, ms, args, true);
  globalThis.clearTimeout = globalThis.clearInterval = (id) => { timers.delete(id); };
  if (typeof globalThis.queueMicrotask !== "function") globalThis.queueMicrotask = (fn) => { Promise.resolve().then(fn); };

  // --- crypto, and Math.random from the host's randomness: QuickJS seeds
  // its own generator once, and every call starts from the same snapshot,
  // so its sequence would repeat call after call.
  const random = (n) => Uint8Array.from(call("random", n));
  let entropy = new Uint8Array(0), entropyAt = 0;
  const resetEntropy = () => { entropy = new Uint8Array(0); entropyAt = 0; };
  Math.random = function random53() {
    if (entropyAt + 7 > entropy.length) { entropy = random(1024); entropyAt = 0; }
    let x = 0;
    for (let i = 0; i < 7; i++) x = x * 256 + entropy[entropyAt++];
    return (x % 2 ** 53) / 2 ** 53;
  };
  globalThis.crypto = {
    getRandomValues(ta) {
      if (!ArrayBuffer.isView(ta)) throw new TypeError("crypto.getRandomValues: argument is not a typed array");
      if (ta.byteLength > 65536) throw new RangeError("crypto.getRandomValues: more than 65536 bytes requested");
      new Uint8Array(ta.buffer, ta.byteOffset, ta.byteLength).set(random(ta.byteLength));
      return ta;
    },
    randomUUID() {
      const b = random(16);
      b[6] = (b[6] & 15) | 0x40;
      b[8] = (b[8] & 63) | 0x80;
      const h = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
    },
  };

  // --- URL, URLSearchParams, Headers, AbortController
  class URLSearchParams {
    constructor(init = "") {
      this._list = [];
      if (typeof init === "string") {
        for (const part of init.replace(/^\?/, "").split("&")) {
          if (!part) continue;
          const i = part.indexOf("=");
          const dec = (s) => decodeURIComponent(s.replace(/\+/g, " "));
          this._list.push(i < 0 ? [dec(part), ""] : [dec(part.slice(0, i)), dec(part.slice(i + 1))]);
        }
      } else if (init && typeof init[Symbol.iterator] === "function") {
        for (const [k, v] of init) this._list.push([String(k), String(v)]);
      } else if (init && typeof init === "object") {
        for (const k of Object.keys(init)) this._list.push([k, String(init[k])]);
      }
    }
    append(k, v) { this._list.push([String(k), String(v)]); }
    delete(k) { this._list = this._list.filter(([x]) => x !== k); }
    get(k) { const e = this._list.find(([x]) => x === k); return e ? e[1] : null; }
    getAll(k) { return this._list.filter(([x]) => x === k).map((e) => e[1]); }
    has(k) { return this._list.some(([x]) => x === k); }
    set(k, v) { this.delete(k); this.append(k, v); }
    forEach(fn) { for (const [k, v] of this._list) fn(v, k, this); }
    entries() { return this._list.map((e) => [e[0], e[1]])[Symbol.iterator](); }
    keys() { return this._list.map((e) => e[0])[Symbol.iterator](); }
    values() { return this._list.map((e) => e[1])[Symbol.iterator](); }
    [Symbol.iterator]() { return this.entries(); }
    toString() {
      const enc = (s) => encodeURIComponent(s).replace(/%20/g, "+");
      return this._list.map(([k, v]) => enc(k) + "=" + enc(v)).join("&");
    }
  }
  globalThis.URLSearchParams = URLSearchParams;

  class URL {
    constructor(url, base) {
      const p = call("url", { url: String(url), base: base === undefined ? "" : String(base) });
      Object.assign(this, p);
      this.searchParams = new URLSearchParams(p.search);
    }
    get search() { const s = this.searchParams.toString(); return s ? "?" + s : ""; }
    set search(v) { this.searchParams = new URLSearchParams(String(v)); }
    get host() { return this.port ? `${this.hostname}:${this.port}` : this.hostname; }
    get origin() { return `${this.protocol}//${this.host}`; }
    get href() {
      const auth = this.username ? this.username + (this.password ? ":" + this.password : "") + "@" : "";
      return `${this.protocol}//${auth}${this.host}${this.pathname}${this.search}${this.hash}`;
    }
    toString() { return this.href; }
    toJSON() { return this.href; }
    static canParse(u, b) { try { new URL(u, b); return true; } catch { return false; } }
  }
  globalThis.URL = URL;

  class Headers {
    constructor(init) {
      this._m = new Map();
      if (init instanceof Headers) init.forEach((v, k) => this.append(k, v));
      else if (Array.isArray(init)) for (const [k, v] of init) this.append(k, v);
      else if (init) for (const k of Object.keys(init)) this.append(k, init[k]);
    }
    append(k, v) { k = String(k).toLowerCase(); const o = this._m.get(k); this._m.set(k, o === undefined ? String(v) : o + ", " + v); }
    set(k, v) { this._m.set(String(k).toLowerCase(), String(v)); }
    get(k) { const v = this._m.get(String(k).toLowerCase()); return v === undefined ? null : v; }
    has(k) { return this._m.has(String(k).toLowerCase()); }
    delete(k) { this._m.delete(String(k).toLowerCase()); }
    forEach(fn) { for (const [k, v] of this._m) fn(v, k, this); }
    entries() { return this._m.entries(); }
    keys() { return this._m.keys(); }
    values() { return this._m.values(); }
    [Symbol.iterator]() { return this._m.entries(); }
  }
  globalThis.Headers = Headers;

  class AbortSignal {
    constructor() { this.aborted = false; this.reason = undefined; this._fns = []; this.onabort = null; }
    addEventListener(type, fn) { if (type === "abort") this._fns.push(fn); }
    removeEventListener(type, fn) { this._fns = this._fns.filter((f) => f !== fn); }
    throwIfAborted() { if (this.aborted) throw this.reason; }
    _abort(reason) {
      if (this.aborted) return;
      this.aborted = true;
      this.reason = reason === undefined ? new Error("This operation was aborted") : reason;
      for (const fn of [this.onabort, ...this._fns]) if (typeof fn === "function") fn({ type: "abort" });
    }
  }
  globalThis.AbortSignal = AbortSignal;
  globalThis.AbortController = class AbortController {
    constructor() { this.signal = new AbortSignal(); }
    abort(reason) { this.signal._abort(reason); }
  };

  // --- fetch through the host's egress policy
  class Response {
    constructor(body, init = {}) {
      this._body = toBytes(body) || new Uint8Array(0);
      this.status = init.status ?? 200;
      this.statusText = init.statusText ?? "";
      this.headers = new Headers(init.headers);
      this.url = init.url ?? "";
      this.ok = this.status >= 200 && this.status < 300;
      this.bodyUsed = false;
    }
    async arrayBuffer() { this.bodyUsed = true; return this._body.slice().buffer; }
    async bytes() { this.bodyUsed = true; return this._body.slice(); }
    async text() { this.bodyUsed = true; return utf8decode(this._body); }
    async json() { return JSON.parse(await this.text()); }
  }
  globalThis.Response = Response;
  globalThis.fetch = async function fetch(input, init = {}) {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : String(input.url ?? input);
    const headers = {};
    new Headers(init.headers).forEach((v, k) => { headers[k] = v; });
    const body = toBytes(init.body);
    const r = call("fetch", { url, method: init.method || "GET", headers, body: body ? b64encode(body) : "" });
    return new Response(b64decode(r.body), { status: r.status, headers: r.headers, url });
  };

  // --- Node and Bun built-ins: fs (within allowed_paths) and path; the
  // rest fail on use with the toolhost alternative.
  const alternatives = {
    child_process: "use toolhost's bash tool instead of running commands from a tool",
    fs: "file access goes through allowed_paths in the tool's \"wasm\" config",
  };
  const refuse = (what, hint) => {
    throw new Error(`${what} is not available in toolhost's JavaScript sandbox; ${hint || "grant what the tool needs in its \"wasm\" config (allowed_hosts for fetch, allowed_paths for files) or use a toolhost tool (bash, read, write)"}`);
  };
  // esbuild's CommonJS interop copies a module's own keys and inherits the
  // rest from its prototype, so unknown names are answered there.
  const refuser = (name, hint) => new Proxy({}, {
    get(_, prop) {
      if (typeof prop === "symbol" || prop === "then" || prop === "__esModule") return undefined;
      return () => refuse(`${name}.${String(prop)}`, hint);
    },
  });
  const refusing = (name) => {
    const proto = refuser(name, alternatives[name.replace(/^node:/, "")]);
    return new Proxy(function () {}, {
      get(_, prop) {
        if (prop === "__esModule") return false;
        if (prop === "default") return refusing(name);
        return proto[prop];
      },
      getPrototypeOf: () => proto,
      apply() { refuse(name, alternatives[name.replace(/^node:/, "")]); },
    });
  };
  const str = (d, enc) => (enc === "utf8" || enc === "utf-8" || (enc && enc.encoding) ? utf8decode(d) : d);
  const fsSync = {
    readFileSync: (p, enc) => str(b64decode(call("fs.read", { path: String(p) })), enc),
    writeFileSync: (p, data) => { call("fs.write", { path: String(p), data: b64encode(toBytes(data)) }); },
    existsSync: (p) => call("fs.exists", { path: String(p) }),
    readdirSync: (p) => call("fs.readdir", { path: String(p) }),
    mkdirSync: (p) => { call("fs.mkdir", { path: String(p) }); },
  };
  const fsPromises = {
    readFile: async (p, enc) => fsSync.readFileSync(p, enc),
    writeFile: async (p, data) => fsSync.writeFileSync(p, data),
    readdir: async (p) => fsSync.readdirSync(p),
    mkdir: async (p) => fsSync.mkdirSync(p),
  };
  const withRefusal = (name, obj) => Object.setPrototypeOf(obj, refuser(name, alternatives.fs));
  const pathMod = {
    sep: "/",
    isAbsolute: (p) => String(p).startsWith("/"),
    normalize(p) {
      const abs = String(p).startsWith("/"), out = [];
      for (const s of String(p).split("/")) {
        if (!s || s === ".") continue;
        if (s === "..") { if (out.length && out[out.length - 1] !== "..") out.pop(); else if (!abs) out.push(".."); } else out.push(s);
      }
      return (abs ? "/" : "") + out.join("/") || (abs ? "/" : ".");
    },
    join: (...p) => pathMod.normalize(p.filter((x) => x !== "").join("/")),
    resolve: (...p) => {
      let r = "";
      for (const s of p) r = String(s).startsWith("/") ? String(s) : r + "/" + s;
      return pathMod.normalize(r.startsWith("/") ? r : "/" + r);
    },
    dirname: (p) => { const n = pathMod.normalize(p), i = n.lastIndexOf("/"); return i < 0 ? "." : i === 0 ? "/" : n.slice(0, i); },
    basename: (p, ext) => { let b = pathMod.normalize(p).split("/").pop(); if (ext && b.endsWith(ext)) b = b.slice(0, -ext.length); return b; },
    extname: (p) => { const b = pathMod.basename(p), i = b.lastIndexOf("."); return i <= 0 ? "" : b.slice(i); },
    relative(from, to) {
      const f = pathMod.resolve(from).split("/").filter(Boolean), t = pathMod.resolve(to).split("/").filter(Boolean);
      let i = 0;
      while (i < f.length && i < t.length && f[i] === t[i]) i++;
      return [...f.slice(i).map(() => ".."), ...t.slice(i)].join("/");
    },
  };
  pathMod.posix = pathMod;
  hidden("__toolhostBuiltin", (name) => {
    if (name === "fs") return withRefusal("fs", { ...fsSync, promises: fsPromises });
    if (name === "fs/promises") return withRefusal("fs/promises", fsPromises);
    if (name === "path" || name === "path/posix") return pathMod;
    return refusing(name.startsWith("bun") ? "Bun" : "node:" + name);
  });
  hidden("Bun", new Proxy({}, {
    get(_, prop) {
      if (typeof prop === "symbol") return undefined;
      refuse(`Bun.${String(prop)}`, prop === "$" || prop === "spawn" ? alternatives.child_process : prop === "file" || prop === "write" ? alternatives.fs : undefined);
    },
  }));

  // --- process: env holds what the tool's "wasm" config grants ("env":
  // ["NAME", …], values from toolhost's environment), set for each call;
  // Node's other process members are absent. A library probing for Node
  // (process.versions, process.platform) reads undefined; calling one of
  // process's functions fails with the alternative.
  let callEnv = Object.freeze(Object.create(null));
  hidden("process", new Proxy(Object.create(null), {
    get(_, prop) {
      if (typeof prop === "symbol") return undefined;
      if (prop === "env") return callEnv;
      if (["exit", "cwd", "chdir", "kill", "abort", "on", "once", "nextTick", "hrtime", "memoryUsage", "uptime", "umask"].includes(prop)) {
        return () => refuse(`process.${prop}`, prop === "cwd" ? "the call's context has directory and worktree" : prop === "nextTick" ? "use queueMicrotask or setTimeout" : "a tool returns its result or throws; it cannot control toolhost's process");
      }
      return undefined;
    },
    set() { return false; },
    defineProperty() { return false; },
  }));

  // --- the tool protocol, driven by the host (run.go)
  let result = null;
  // Each export's args schema, built once while describing and parsed
  // once there (zod compiles an object's parser with new Function on its
  // first parse), so both live in the snapshot: a call neither builds nor
  // compiles it again, which was two thirds of a warm call. That parse of
  // {} runs the args' defaults and transforms once at load, as top-level code
  // runs; whatever it leaves is in the snapshot every call starts from.
  const argSchemas = new Map();
  const argsSchema = (z, name, t) => {
    let s = argSchemas.get(name);
    if (!s) { s = z.object(t.args || {}); argSchemas.set(name, s); }
    return s;
  };
  // sample's and elicit's reply: the answer, or its "error" (a client
  // that cannot, a model that failed) thrown, as a refusal is.
  const answered = (r) => { if (r.error !== undefined) throw new Error(r.error); return r; };
  const errText = (e) => (e instanceof Error ? (e.message || String(e)) : typeof e === "string" ? e : JSON.stringify(e) ?? String(e));
  hidden("__toolhost", Object.freeze({
    describe(file) {
      const mod = globalThis.__toolMod, z = globalThis.__toolZ, out = [];
      for (const name of Object.keys(mod)) {
        const t = mod[name];
        if (!t || typeof t !== "object" || typeof t.execute !== "function") continue;
        const id = name === "default" ? file : `${file}_${name}`;
        const args = argsSchema(z, name, t);
        try { args.safeParse({}); } catch { /* a transform that throws: the call reports it */ }
        const schema = z.toJSONSchema(args, { io: "input", unrepresentable: "any" });
        delete schema.$schema;
        out.push({ id, export: name, description: String(t.description ?? ""), schema });
      }
      return JSON.stringify(out);
    },
    start(name, argsJSON, ctxJSON) {
      result = null;
      resetEntropy();
      const mod = globalThis.__toolMod, z = globalThis.__toolZ, t = mod[name], info = JSON.parse(ctxJSON);
      callEnv = Object.freeze(Object.assign(Object.create(null), info.env || {}));
      const signal = new AbortSignal();
      const context = {
        sessionID: info.sessionID, messageID: info.messageID, agent: info.agent,
        directory: info.directory, worktree: info.worktree, callID: info.callID, abort: signal,
        metadata(input = {}) { call("metadata", { title: input.title ?? "", metadata: input.metadata ?? {} }); },
        async ask(input) { call("ask", input); },
        // An embedder's host function (hostfns.Define): its result, or an
        // Error with .kind ("denied", "rejected", "unknown", "invalid", "failed" …).
        async callHost(fn, args) {
          const r = call("call", { fn: String(fn), args: args === undefined ? null : args });
          if (r.error !== undefined) { const e = new Error(r.error); e.kind = r.kind; throw e; }
          return r.value;
        },
        // The client's model completes a prompt (MCP sampling; the tool's
        // "sampling": true grant): {messages, maxTokens, systemPrompt,
        // temperature, stopSequences} → {role, content, model, stopReason}.
        async sample(request) { return answered(call("sample", request)); },
        // A question to the person behind the client, with a form (a flat
        // JSON Schema object): {message, requestedSchema} →
        // {action: "accept", content} or {action: "decline" | "cancel"}.
        async elicit(request) { return answered(call("elicit", request)); },
      };
      const parsed = argsSchema(z, name, t).safeParse(JSON.parse(argsJSON));
      const run = parsed.success
        ? Promise.resolve().then(() => t.execute(parsed.data, context))
        : Promise.reject(new Error("invalid arguments: " + (z.prettifyError ? z.prettifyError(parsed.error) : parsed.error.message)));
      run.then(
        (v) => {
          if (typeof v === "string") result = { output: v };
          else if (v && typeof v === "object") result = { output: String(v.output ?? ""), title: v.title, metadata: v.metadata, attachments: v.attachments };
          else result = { output: v === undefined ? "" : String(v) };
        },
        (e) => { result = { error: errText(e) }; },
      );
    },
    // poll says what the host should do: the result when the call is
    // done, else how long until the next timer (-1: nothing left to wait for).
    poll() {
      if (result) return JSON.stringify({ done: true, result });
      let next = -1;
      for (const t of timers.values()) { const d = Math.max(0, t.at - Date.now()); if (next < 0 || d < next) next = d; }
      return JSON.stringify({ done: false, wait: next });
    },
    fireTimers() {
      const now = Date.now();
      for (const [id, t] of [...timers]) {
        if (t.at > now) continue;
        if (t.every) t.at = now + t.every; else timers.delete(id);
        try { t.fn(...t.args); } catch (e) { console.error("uncaught error in a timer:", e); }
      }
    },
  }));
})();
