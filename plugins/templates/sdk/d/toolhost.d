/**
 * toolhost guest SDK for D (LDC, -betterC): write a handler, and the
 * module speaks toolhost's wasm ABI ("toolhost-abi 1", docs/abi.md)
 * without ABI code.
 *
 * ---
 * import toolhost;
 *
 * Result greet(ref Context ctx, Json args) {
 *     auto b = Buf();
 *     b.put("hello ");
 *     b.put(args.get("name").str);
 *     return Result.text(b.data);
 * }
 *
 * mixin Tool!("", "Greets someone.",
 *     `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`, greet);
 * ---
 *
 * `mixin Tool!("", …)` exports description, schema and execute (the tool
 * named after the .wasm file); `mixin Tool!("create", …)` exports
 * create_description, create_schema and create_execute (`<file>_create`).
 *
 * Build: ldc2 -mtriple=wasm32-unknown-unknown-wasm -betterC -O
 * -mattr=+bulk-memory --linker=wasm-ld -L--no-entry -L--strip-all
 * tool.d toolhost.d (docs/languages.md).
 *
 * Why it is built this way:
 *   - -betterC on wasm32-unknown-unknown: no D runtime, no GC and no libc,
 *     so modules are a few kilobytes and need nothing but LDC and wasm-ld.
 *     In exchange, memory comes from an arena this module owns, reset at
 *     the start of every export call: everything a call allocates lives
 *     until the call ends, and a pooled instance never grows across calls.
 *   - Bulk memory (-mattr=+bulk-memory) makes LLVM lower array copies to
 *     memory.copy/memory.fill instead of calls to a libc memcpy there is
 *     none of.
 *   - JSON is read lazily (Json.get scans the text) and written with Buf:
 *     tool arguments are small, and this keeps the SDK one short file.
 */
module toolhost;

import ldc.attributes : llvmAttr;
import ldc.intrinsics : llvm_memmove, llvm_trap, llvm_wasm_memory_grow, llvm_wasm_memory_size;

@nogc nothrow:

// The Extism kernel (import module extism:host/env).
private extern (C)
{
    @llvmAttr("wasm-import-module", "extism:host/env") ulong input_length();
    @llvmAttr("wasm-import-module", "extism:host/env") ubyte input_load_u8(ulong offset);
    @llvmAttr("wasm-import-module", "extism:host/env") ulong input_load_u64(ulong offset);
    @llvmAttr("wasm-import-module", "extism:host/env") ulong length(ulong offset);
    @llvmAttr("wasm-import-module", "extism:host/env") ulong alloc(ulong length);
    @llvmAttr("wasm-import-module", "extism:host/env") void free(ulong offset);
    @llvmAttr("wasm-import-module", "extism:host/env") void output_set(ulong offset, ulong length);
    @llvmAttr("wasm-import-module", "extism:host/env") void error_set(ulong offset);
    @llvmAttr("wasm-import-module", "extism:host/env") ulong config_get(ulong offset);
    @llvmAttr("wasm-import-module", "extism:host/env") ubyte load_u8(ulong offset);
    @llvmAttr("wasm-import-module", "extism:host/env") ulong load_u64(ulong offset);
    @llvmAttr("wasm-import-module", "extism:host/env") void store_u8(ulong offset, ubyte value);
    @llvmAttr("wasm-import-module", "extism:host/env") void store_u64(ulong offset, ulong value);
}

// toolhost's host functions (import module extism:host/user).
private extern (C)
{
    @llvmAttr("wasm-import-module", "extism:host/user") ulong ask(ulong offset);
    @llvmAttr("wasm-import-module", "extism:host/user") ulong metadata(ulong offset);
    @llvmAttr("wasm-import-module", "extism:host/user") ulong log(ulong offset);
    @llvmAttr("wasm-import-module", "extism:host/user") ulong state_get(ulong offset);
    @llvmAttr("wasm-import-module", "extism:host/user") ulong state_set(ulong offset);
}

// ---- the two druntime hooks -betterC code still calls ----

/// Called by LDC for a failed assert or array bounds check: the message
/// goes to the host's log, and the module traps, which the host reports
/// with the tool's name (and discards the instance).
extern (C) void __assert(const(char)* msg, const(char)* file, int line)
{
    JsonObject o;
    o.add("level", "error");
    auto b = Buf();
    b.put("tool failed: ");
    b.put(cstr(msg));
    b.put(" at ");
    b.put(cstr(file));
    b.put(':');
    b.put(cast(long) line);
    o.add("message", b.data);
    callHost(&.log, o.json);
    llvm_trap();
}

/// Called by LDC to copy one slice into another of the same length.
extern (C) void _d_array_slice_copy(void* dst, size_t dstlen, void* src, size_t srclen, size_t elemsz)
{
    if (dstlen != srclen)
        __assert("array lengths differ in a slice copy", __FILE__.ptr, __LINE__);
    llvm_memmove(dst, src, dstlen * elemsz, false);
}

private const(char)[] cstr(const(char)* p)
{
    if (p is null)
        return "?";
    size_t n = 0;
    while (p[n])
        n++;
    return p[0 .. n];
}

// ---- memory: a per-call arena ----

private extern (C) extern __gshared ubyte __heap_base;
private __gshared size_t heapTop;

/// Frees everything allocated by the previous call. The generated exports
/// call it first; tools never need to.
void resetArena()
{
    heapTop = cast(size_t)&__heap_base;
}

/// Allocates n bytes from the arena, 8-aligned. Traps when the memory
/// limit is reached, which the host reports as such.
char[] allocate(size_t n)
{
    if (heapTop == 0)
        resetArena();
    size_t start = (heapTop + 7) & ~cast(size_t) 7;
    size_t end = start + n;
    size_t have = cast(size_t) llvm_wasm_memory_size(0) * 65_536;
    if (end > have)
    {
        int pages = cast(int)((end - have + 65_535) / 65_536);
        if (llvm_wasm_memory_grow(0, pages) < 0)
            assert(0, "out of memory");
    }
    heapTop = end;
    return (cast(char*) start)[0 .. n];
}

/// A growable byte buffer in the arena: build output, JSON, messages.
struct Buf
{
@nogc nothrow:
    private char[] mem;
    private size_t len;

    /// Appends text.
    void put(const(char)[] s)
    {
        reserve(s.length);
        mem[len .. len + s.length] = s[];
        len += s.length;
    }
    /// Appends one byte.
    void put(char c)
    {
        reserve(1);
        mem[len++] = c;
    }
    /// Appends a whole number in decimal.
    void put(long n)
    {
        char[20] tmp;
        size_t i = tmp.length;
        ulong u = n < 0 ? -cast(ulong) n : n;
        do
        {
            tmp[--i] = cast(char)('0' + u % 10);
            u /= 10;
        }
        while (u);
        if (n < 0)
            put('-');
        put(tmp[i .. $]);
    }
    /// Appends s as a JSON string literal.
    void putQuoted(const(char)[] s)
    {
        put('"');
        foreach (char c; s)
        {
            switch (c)
            {
            case '"': put(`\"`); break;
            case '\\': put(`\\`); break;
            case '\n': put(`\n`); break;
            case '\r': put(`\r`); break;
            case '\t': put(`\t`); break;
            default:
                if (c < 0x20)
                {
                    put(`\u00`);
                    put("0123456789abcdef"[c >> 4]);
                    put("0123456789abcdef"[c & 15]);
                }
                else
                    put(c);
            }
        }
        put('"');
    }
    /// The bytes so far.
    const(char)[] data() const
    {
        return mem[0 .. len];
    }
    private void reserve(size_t n)
    {
        if (len + n <= mem.length)
            return;
        size_t cap = mem.length * 2;
        if (cap < len + n)
            cap = len + n + 64;
        char[] bigger = allocate(cap);
        bigger[0 .. len] = mem[0 .. len];
        mem = bigger;
    }
}

/// Builds a JSON object: JsonObject o; o.add("k", "v"); o.add("n", 3); o.json.
struct JsonObject
{
@nogc nothrow:
    private Buf b;
    private void key(const(char)[] k)
    {
        b.put(b.data.length == 0 ? '{' : ',');
        b.putQuoted(k);
        b.put(':');
    }
    /// Adds a string member.
    void add(const(char)[] k, const(char)[] v)
    {
        key(k);
        b.putQuoted(v);
    }
    /// Adds a whole-number member.
    void add(const(char)[] k, long v)
    {
        key(k);
        b.put(v);
    }
    /// Adds a boolean member.
    void add(const(char)[] k, bool v)
    {
        key(k);
        b.put(v ? "true" : "false");
    }
    /// Adds a member whose value is JSON text.
    void addRaw(const(char)[] k, const(char)[] json)
    {
        key(k);
        b.put(json);
    }
    /// The object's JSON text.
    const(char)[] json()
    {
        if (b.data.length == 0)
            return "{}";
        auto out_ = Buf();
        out_.put(b.data);
        out_.put('}');
        return out_.data;
    }
}

/// Whether two byte strings are equal (without druntime's array compare).
bool eq(const(char)[] a, const(char)[] b)
{
    if (a.length != b.length)
        return false;
    foreach (i; 0 .. a.length)
        if (a[i] != b[i])
            return false;
    return true;
}

// ---- JSON reading ----

/// A JSON value, read lazily from its text. An absent value has null raw.
struct Json
{
@nogc nothrow:
    /// The value's text; null when absent.
    const(char)[] raw;

    /// Whether the value is present (not absent; JSON null is present).
    bool present() const
    {
        return raw !is null;
    }
    /// Whether the value is a string.
    bool isString() const
    {
        return raw.length > 0 && raw[0] == '"';
    }
    /// The member key of an object, or an absent Json.
    Json get(const(char)[] key) const
    {
        size_t i = skipSpace(raw, 0);
        if (i >= raw.length || raw[i] != '{')
            return Json(null);
        i++;
        while (true)
        {
            i = skipSpace(raw, i);
            if (i >= raw.length || raw[i] != '"')
                return Json(null);
            size_t kEnd = skipValue(raw, i);
            auto k = Json(raw[i .. kEnd]).str;
            i = skipSpace(raw, kEnd);
            if (i >= raw.length || raw[i] != ':')
                return Json(null);
            i = skipSpace(raw, i + 1);
            size_t vEnd = skipValue(raw, i);
            if (eq(k, key))
                return Json(raw[i .. vEnd]);
            i = skipSpace(raw, vEnd);
            if (i >= raw.length || raw[i] != ',')
                return Json(null);
            i++;
        }
    }
    /// The decoded text of a string ("" for anything else).
    const(char)[] str() const
    {
        if (!isString)
            return "";
        auto b = Buf();
        for (size_t i = 1; i < raw.length; i++)
        {
            char c = raw[i];
            if (c == '"')
                break;
            if (c != '\\' || i + 1 >= raw.length)
            {
                b.put(c);
                continue;
            }
            char e = raw[++i];
            switch (e)
            {
            case 'b': b.put('\b'); break;
            case 'f': b.put('\f'); break;
            case 'n': b.put('\n'); break;
            case 'r': b.put('\r'); break;
            case 't': b.put('\t'); break;
            case 'u':
                uint cp = hex4(raw, i + 1);
                i += 4;
                if (cp >= 0xD800 && cp < 0xDC00 && i + 6 < raw.length && raw[i + 1] == '\\' && raw[i + 2] == 'u')
                {
                    uint lo = hex4(raw, i + 3);
                    cp = 0x10000 + ((cp - 0xD800) << 10) + ((lo - 0xDC00) & 0x3FF);
                    i += 6;
                }
                putUTF8(b, cp);
                break;
            default:
                b.put(e); // \" \\ \/
            }
        }
        return b.data;
    }
    /// The value of a whole number (0 for anything else).
    long integer() const
    {
        long n = 0;
        bool neg = raw.length > 0 && raw[0] == '-';
        foreach (c; raw[neg ? 1 : 0 .. $])
        {
            if (c < '0' || c > '9')
                break;
            n = n * 10 + (c - '0');
        }
        return neg ? -n : n;
    }
    /// Whether the value is true.
    bool boolean() const
    {
        return eq(raw, "true");
    }
}

private size_t skipSpace(const(char)[] s, size_t i)
{
    while (i < s.length && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
        i++;
    return i;
}

// skipValue returns the index just past the value starting at i. The host
// produces the JSON, so this trusts it to be well formed.
private size_t skipValue(const(char)[] s, size_t i)
{
    if (i >= s.length)
        return i;
    if (s[i] == '"')
    {
        for (i++; i < s.length; i++)
        {
            if (s[i] == '\\')
                i++;
            else if (s[i] == '"')
                return i + 1;
        }
        return i;
    }
    if (s[i] == '{' || s[i] == '[')
    {
        int depth = 0;
        for (; i < s.length; i++)
        {
            char c = s[i];
            if (c == '"')
            {
                i = skipValue(s, i) - 1;
                continue;
            }
            if (c == '{' || c == '[')
                depth++;
            else if (c == '}' || c == ']')
            {
                if (--depth == 0)
                    return i + 1;
            }
        }
        return i;
    }
    while (i < s.length && s[i] != ',' && s[i] != '}' && s[i] != ']' && s[i] != ' ' && s[i] != '\n' && s[i] != '\t' && s[i] != '\r')
        i++;
    return i;
}

private uint hex4(const(char)[] s, size_t i)
{
    uint n = 0;
    foreach (k; 0 .. 4)
    {
        if (i + k >= s.length)
            return 0xFFFD;
        char c = s[i + k];
        uint d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : 16;
        if (d == 16)
            return 0xFFFD;
        n = n * 16 + d;
    }
    return n;
}

private void putUTF8(ref Buf b, uint cp)
{
    if (cp < 0x80)
        b.put(cast(char) cp);
    else if (cp < 0x800)
    {
        b.put(cast(char)(0xC0 | (cp >> 6)));
        b.put(cast(char)(0x80 | (cp & 0x3F)));
    }
    else if (cp < 0x10000)
    {
        b.put(cast(char)(0xE0 | (cp >> 12)));
        b.put(cast(char)(0x80 | ((cp >> 6) & 0x3F)));
        b.put(cast(char)(0x80 | (cp & 0x3F)));
    }
    else
    {
        b.put(cast(char)(0xF0 | (cp >> 18)));
        b.put(cast(char)(0x80 | ((cp >> 12) & 0x3F)));
        b.put(cast(char)(0x80 | ((cp >> 6) & 0x3F)));
        b.put(cast(char)(0x80 | (cp & 0x3F)));
    }
}

// ---- moving bytes across the boundary ----

private ulong toBlock(const(char)[] data)
{
    ulong off = alloc(data.length);
    size_t i = 0;
    for (; i + 8 <= data.length; i += 8)
    {
        ulong v = 0;
        foreach (k; 0 .. 8)
            v |= cast(ulong)(cast(ubyte) data[i + k]) << (8 * k);
        store_u64(off + i, v);
    }
    for (; i < data.length; i++)
        store_u8(off + i, cast(ubyte) data[i]);
    return off;
}

private const(char)[] fromBlock(ulong off)
{
    size_t n = cast(size_t) length(off);
    char[] out_ = allocate(n);
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
    {
        ulong v = load_u64(off + i);
        foreach (k; 0 .. 8)
            out_[i + k] = cast(char)(v >> (8 * k));
    }
    for (; i < n; i++)
        out_[i] = cast(char) load_u8(off + i);
    return out_;
}

private const(char)[] readInput()
{
    size_t n = cast(size_t) input_length();
    char[] out_ = allocate(n);
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
    {
        ulong v = input_load_u64(i);
        foreach (k; 0 .. 8)
            out_[i + k] = cast(char)(v >> (8 * k));
    }
    for (; i < n; i++)
        out_[i] = cast(char) input_load_u8(i);
    return out_;
}

private alias HostFn = extern (C) ulong function(ulong) @nogc nothrow;

private const(char)[] callHost(HostFn f, const(char)[] payload)
{
    ulong arg = toBlock(payload);
    ulong resp = f(arg);
    free(arg);
    if (resp == 0)
        return null;
    auto out_ = fromBlock(resp);
    free(resp);
    return out_;
}

// ---- the tool API ----

/// A tool's result: output for the model, or an error.
struct Result
{
@nogc nothrow:
    /// Output text for the model.
    const(char)[] output;
    /// A short label for people; optional.
    const(char)[] title;
    /// A JSON object for front ends (JsonObject.json); optional.
    const(char)[] metadata;
    /// Set when the call failed: the message the model sees.
    const(char)[] error;
    /// Whether the call failed.
    bool failed;
    /// For a refused permission: denied, rejected or corrected.
    const(char)[] permission;

    /// A result with only output text.
    static Result text(const(char)[] s)
    {
        Result r;
        r.output = s;
        return r;
    }
    /// A failure, in words the model can act on.
    static Result fail(const(char)[] message)
    {
        Result r;
        r.error = message;
        r.failed = true;
        return r;
    }
}

/// What a running call knows about itself and can ask of the host.
struct Context
{
@nogc nothrow:
    const(char)[] sessionID, messageID, agent, callID;
    /// Caller data passed through by the host (a JSON object).
    Json extra;

    /**
     * Asks the host's permission engine — the user's rules, the session's
     * approvals, the person — and blocks until answered. The result is
     * not failed when allowed; otherwise it is the refusal: return it
     * unchanged, and the host reports the same typed refusal a built-in
     * tool would.
     */
    Result ask(const(char)[] permission, const(char)[][] patterns, const(char)[][] always = null)
    {
        JsonObject o;
        o.add("permission", permission);
        o.addRaw("patterns", list(patterns));
        if (always.length)
            o.addRaw("always", list(always));
        auto resp = Json(callHost(&.ask, o.json));
        if (resp.get("ok").boolean)
            return Result();
        auto r = Result.fail(resp.get("error").str);
        r.permission = resp.get("kind").str;
        return r;
    }

    /// Reports live progress to the caller: a title and, optionally, a JSON object.
    void progress(const(char)[] title, const(char)[] metadataJSON = null)
    {
        JsonObject o;
        if (title.length)
            o.add("title", title);
        if (metadataJSON.length)
            o.addRaw("metadata", metadataJSON);
        callHost(&.metadata, o.json);
    }

    /// The configured value of key for this tool; found says whether there is one.
    const(char)[] config(const(char)[] key, out bool found)
    {
        ulong arg = toBlock(key);
        ulong off = config_get(arg);
        free(arg);
        found = off != 0;
        if (!found)
            return null;
        auto v = fromBlock(off);
        free(off);
        return v;
    }

    /// The session's value under key (per session, per tool); absent when none.
    Json stateGet(const(char)[] key)
    {
        return Json(callHost(&state_get, key));
    }

    /// Stores the JSON text value under key for this session; "null" deletes it.
    void stateSet(const(char)[] key, const(char)[] valueJSON)
    {
        JsonObject o;
        o.add("key", key);
        o.addRaw("value", valueJSON);
        callHost(&state_set, o.json);
    }

    /// Writes to the host's log (level debug, info, warn or error).
    void log(const(char)[] level, const(char)[] message)
    {
        JsonObject o;
        o.add("level", level);
        o.add("message", message);
        callHost(&.log, o.json);
    }
}

private const(char)[] list(const(char)[][] items)
{
    auto b = Buf();
    b.put('[');
    foreach (i, s; items)
    {
        if (i)
            b.put(',');
        b.putQuoted(s);
    }
    b.put(']');
    return b.data;
}

/// A handler: the call's context and arguments (validated by the host
/// against the schema) in, a Result out.
alias Handler = Result function(ref Context ctx, Json args) @nogc nothrow;

/// Implements a description or schema export (used by Tool).
int exportText(const(char)[] text)
{
    resetArena();
    output_set(toBlock(text), text.length);
    return 0;
}

/// Implements an execute export (used by Tool).
int exportExecute(Handler handler)
{
    resetArena();
    auto input = Json(readInput());
    auto c = input.get("context");
    Context ctx;
    ctx.sessionID = c.get("sessionID").str;
    ctx.messageID = c.get("messageID").str;
    ctx.agent = c.get("agent").str;
    ctx.callID = c.get("callID").str;
    ctx.extra = c.get("extra");
    auto args = input.get("args");
    if (!args.present)
        args = Json("{}");
    Result r = handler(ctx, args);
    if (r.failed)
    {
        error_set(toBlock(r.error));
        return 1;
    }
    JsonObject o;
    o.add("output", r.output);
    if (r.title.length)
        o.add("title", r.title);
    if (r.metadata.length)
        o.addRaw("metadata", r.metadata);
    auto out_ = o.json;
    output_set(toBlock(out_), out_.length);
    return 0;
}

/**
 * Declares a tool and generates its three exports. name "" is the tool
 * named after the .wasm file; any other name N exports N_description,
 * N_schema and N_execute. schema is the JSON Schema of the arguments.
 */
mixin template Tool(string name, string description, string schema, alias handler)
{
    private enum string toolhostPrefix = name.length ? name ~ "_" : "";
    private enum string toolhostID = name.length ? name : "main";
    mixin("pragma(mangle, \"" ~ toolhostPrefix ~ "description\") extern (C) export int toolhost_" ~ toolhostID
            ~ "_description() @nogc nothrow { return toolhost.exportText(description); }");
    mixin("pragma(mangle, \"" ~ toolhostPrefix ~ "schema\") extern (C) export int toolhost_" ~ toolhostID
            ~ "_schema() @nogc nothrow { return toolhost.exportText(schema); }");
    mixin("pragma(mangle, \"" ~ toolhostPrefix ~ "execute\") extern (C) export int toolhost_" ~ toolhostID
            ~ "_execute() @nogc nothrow { return toolhost.exportExecute(&handler); }");
}
