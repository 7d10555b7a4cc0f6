//! toolhost guest SDK for Rust: write a handler, and the module speaks
//! toolhost's wasm ABI ("toolhost-abi 1", docs/abi.md) without ABI code.
//!
//! ```ignore
//! use toolhost::{json::Value, Context, Error, Output, Schema};
//!
//! fn greet(ctx: &mut Context, args: &Value) -> Result<Output, Error> {
//!     let name = args.get_str("name").unwrap_or("world");
//!     let greeting = ctx.config("greeting").unwrap_or_else(|| "Hello".into());
//!     Ok(Output::text(format!("{}, {}!", greeting, name)))
//! }
//!
//! toolhost::tool!(main, "Greets someone.",
//!     Schema::object().string("name", "Who to greet", true), greet);
//! ```
//!
//! `tool!(main, …)` exports `description`, `schema` and `execute` (the tool
//! named after the .wasm file); `tool!(create, …)` exports
//! `create_description`, `create_schema`, `create_execute` (the tool
//! `<file>_create`).
//!
//! Why it is built this way:
//!   - No dependencies at all, not even the Extism Rust PDK: it must build
//!     with a bare `rustc` (Debian's, with `libstd-rust-dev-wasm32`) where
//!     no crate can be fetched, and the ABI it needs is a dozen imports.
//!     Authors who have crates.io are free to add serde; arguments arrive
//!     as a small `json::Value` they can also turn back into text.
//!   - It works on both `wasm32-unknown-unknown` (smallest modules) and
//!     `wasm32-wasip1`/`wasm32-wasi`; it uses nothing of WASI.
//!   - Edition 2021 and Rust 1.63 features only (Debian 12's rustc), so the
//!     same file builds there and on a current toolchain.

#![allow(clippy::missing_safety_doc)]

use std::fmt;

pub mod json;
pub use json::Value;

/// The Extism kernel functions (import module `extism:host/env`).
mod env {
    #[link(wasm_import_module = "extism:host/env")]
    extern "C" {
        pub fn input_length() -> u64;
        pub fn input_load_u8(offset: u64) -> u8;
        pub fn input_load_u64(offset: u64) -> u64;
        pub fn length(offset: u64) -> u64;
        pub fn alloc(length: u64) -> u64;
        pub fn free(offset: u64);
        pub fn output_set(offset: u64, length: u64);
        pub fn error_set(offset: u64);
        pub fn config_get(offset: u64) -> u64;
        pub fn load_u8(offset: u64) -> u8;
        pub fn load_u64(offset: u64) -> u64;
        pub fn store_u8(offset: u64, value: u8);
        pub fn store_u64(offset: u64, value: u64);
    }
}

/// toolhost's host functions (import module `extism:host/user`). Each takes
/// the offset of a block the guest filled and returns the offset of a
/// response block, or 0.
mod user {
    #[link(wasm_import_module = "extism:host/user")]
    extern "C" {
        pub fn ask(offset: u64) -> u64;
        pub fn metadata(offset: u64) -> u64;
        pub fn log(offset: u64) -> u64;
        pub fn state_get(offset: u64) -> u64;
        pub fn state_set(offset: u64) -> u64;
        pub fn call(offset: u64) -> u64;
    }
}

/// Copies bytes into a new Extism block and returns its offset. Eight
/// bytes per host call where possible: each call crosses into the host.
fn to_block(data: &[u8]) -> u64 {
    unsafe {
        let off = env::alloc(data.len() as u64);
        let mut chunks = data.chunks_exact(8);
        let mut i = 0u64;
        for c in &mut chunks {
            let mut b = [0u8; 8];
            b.copy_from_slice(c);
            env::store_u64(off + i, u64::from_le_bytes(b));
            i += 8;
        }
        for &b in chunks.remainder() {
            env::store_u8(off + i, b);
            i += 1;
        }
        off
    }
}

/// Reads an Extism block into a Vec.
fn from_block(off: u64) -> Vec<u8> {
    unsafe {
        let n = env::length(off) as usize;
        let mut out = Vec::with_capacity(n);
        let mut i = 0usize;
        while i + 8 <= n {
            out.extend_from_slice(&env::load_u64(off + i as u64).to_le_bytes());
            i += 8;
        }
        while i < n {
            out.push(env::load_u8(off + i as u64));
            i += 1;
        }
        out
    }
}

/// The call's input (execute's JSON).
fn input() -> Vec<u8> {
    unsafe {
        let n = env::input_length() as usize;
        let mut out = Vec::with_capacity(n);
        let mut i = 0usize;
        while i + 8 <= n {
            out.extend_from_slice(&env::input_load_u64(i as u64).to_le_bytes());
            i += 8;
        }
        while i < n {
            out.push(env::input_load_u8(i as u64));
            i += 1;
        }
        out
    }
}

fn set_output(data: &[u8]) {
    let off = to_block(data);
    unsafe { env::output_set(off, data.len() as u64) }
}

fn set_error(msg: &str) {
    let off = to_block(msg.as_bytes());
    unsafe { env::error_set(off) }
}

/// Calls a host function with a payload and returns its response, if any.
fn call_host(f: unsafe extern "C" fn(u64) -> u64, payload: &[u8]) -> Option<Vec<u8>> {
    let arg = to_block(payload);
    let resp = unsafe { f(arg) };
    unsafe { env::free(arg) };
    if resp == 0 {
        return None;
    }
    let out = from_block(resp);
    unsafe { env::free(resp) };
    Some(out)
}

/// What a handler returns when it fails. Its text reaches the model as the
/// tool's error.
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// `ask` refused: kind is "denied", "rejected" or "corrected". Return it
    /// unchanged (`ctx.ask(…)?`) and the host reports the same typed
    /// refusal a built-in tool would.
    Permission { kind: String, message: String },
    /// Anything else, in words the model can act on.
    Message(String),
}

impl Error {
    /// Whether this is a refused permission.
    pub fn is_permission(&self) -> bool {
        matches!(self, Error::Permission { .. })
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Permission { message, .. } => f.write_str(message),
            Error::Message(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for Error {}

impl From<String> for Error {
    fn from(s: String) -> Self {
        Error::Message(s)
    }
}

impl From<&str> for Error {
    fn from(s: &str) -> Self {
        Error::Message(s.to_string())
    }
}

/// A tool's result: output text for the model, with an optional title for
/// people and metadata for front ends.
#[derive(Debug, Clone, Default)]
pub struct Output {
    pub output: String,
    pub title: Option<String>,
    pub metadata: Option<Value>,
}

impl Output {
    /// A result with only output text.
    pub fn text(s: impl Into<String>) -> Output {
        Output { output: s.into(), title: None, metadata: None }
    }
    /// Sets the title.
    pub fn title(mut self, t: impl Into<String>) -> Output {
        self.title = Some(t.into());
        self
    }
    /// Sets the metadata (a JSON object).
    pub fn metadata(mut self, m: Value) -> Output {
        self.metadata = Some(m);
        self
    }
    fn to_json(&self) -> String {
        let mut fields = vec![("output".to_string(), Value::String(self.output.clone()))];
        if let Some(t) = &self.title {
            fields.push(("title".to_string(), Value::String(t.clone())));
        }
        if let Some(m) = &self.metadata {
            fields.push(("metadata".to_string(), m.clone()));
        }
        Value::Object(fields).to_string()
    }
}

/// A permission request (see `Context::ask`).
#[derive(Debug, Clone, Default)]
pub struct AskRequest {
    /// The permission, as in the user's rules: "edit", "webfetch", or one
    /// of the tool's own.
    pub permission: String,
    /// What this call touches; every one must be allowed.
    pub patterns: Vec<String>,
    /// What an "always" answer approves for the rest of the session.
    pub always: Vec<String>,
    /// Shown to the person deciding (a diff, a URL…).
    pub metadata: Option<Value>,
}

/// What a running call knows about itself and can ask of the host.
#[derive(Debug, Clone, Default)]
pub struct Context {
    pub session_id: String,
    pub message_id: String,
    pub agent: String,
    pub call_id: String,
    /// Caller data passed through by the host (a JSON object).
    pub extra: Value,
}

fn strings(v: &[String]) -> Value {
    Value::Array(v.iter().map(|s| Value::String(s.clone())).collect())
}

impl Context {
    /// Asks the host's permission engine — the user's rules, the session's
    /// approvals, the person — and blocks until answered. Ok when allowed;
    /// otherwise an `Error::Permission` to return unchanged. Waiting for a
    /// person does not count against the tool's timeout.
    pub fn ask(&mut self, req: &AskRequest) -> Result<(), Error> {
        let mut fields = vec![
            ("permission".to_string(), Value::String(req.permission.clone())),
            ("patterns".to_string(), strings(&req.patterns)),
        ];
        if !req.always.is_empty() {
            fields.push(("always".to_string(), strings(&req.always)));
        }
        if let Some(m) = &req.metadata {
            fields.push(("metadata".to_string(), m.clone()));
        }
        let payload = Value::Object(fields).to_string();
        let resp = call_host(user::ask, payload.as_bytes()).unwrap_or_default();
        let v = json::parse(&String::from_utf8_lossy(&resp))
            .map_err(|e| Error::Message(format!("toolhost: malformed ask response: {}", e)))?;
        if v.get("ok").and_then(Value::as_bool) == Some(true) {
            return Ok(());
        }
        Err(Error::Permission {
            kind: v.get_str("kind").unwrap_or("denied").to_string(),
            message: v.get_str("error").unwrap_or("permission refused").to_string(),
        })
    }

    /// Calls `name`, a host function the program embedding toolhost added
    /// (docs/hostfns.md), with `args`, and returns its result. The host
    /// checks the function's permission first, as for `ask`: a refusal is
    /// an `Error::Permission` to return unchanged; an unknown function,
    /// arguments it does not take, or its own failure is an
    /// `Error::Message`.
    pub fn call_host(&mut self, name: &str, args: Value) -> Result<Value, Error> {
        let payload = Value::Object(vec![
            ("fn".to_string(), Value::String(name.to_string())),
            ("args".to_string(), args),
        ])
        .to_string();
        let resp = call_host(user::call, payload.as_bytes()).unwrap_or_default();
        let v = json::parse(&String::from_utf8_lossy(&resp))
            .map_err(|e| Error::Message(format!("toolhost: malformed call response: {}", e)))?;
        let message = v.get_str("error").unwrap_or("").to_string();
        match v.get_str("kind") {
            Some("denied") | Some("rejected") | Some("corrected") => Err(Error::Permission {
                kind: v.get_str("kind").unwrap_or("denied").to_string(),
                message,
            }),
            Some(_) => Err(Error::Message(message)),
            None if !message.is_empty() => Err(Error::Message(message)),
            None => Ok(v.get("value").cloned().unwrap_or(Value::Null)),
        }
    }

    /// Reports live progress to the caller: a title and partial metadata.
    pub fn metadata(&mut self, title: &str, meta: Option<Value>) {
        let mut fields = Vec::new();
        if !title.is_empty() {
            fields.push(("title".to_string(), Value::String(title.to_string())));
        }
        if let Some(m) = meta {
            fields.push(("metadata".to_string(), m));
        }
        call_host(user::metadata, Value::Object(fields).to_string().as_bytes());
    }

    /// A value the user configured for this tool
    /// (`"wasm": {"<tool>": {"config": {"key": "value"}}}`).
    pub fn config(&self, key: &str) -> Option<String> {
        let arg = to_block(key.as_bytes());
        let off = unsafe { env::config_get(arg) };
        unsafe { env::free(arg) };
        if off == 0 {
            return None;
        }
        let v = from_block(off);
        unsafe { env::free(off) };
        Some(String::from_utf8_lossy(&v).into_owned())
    }

    /// The session's value under key (per session, per tool), if any.
    pub fn state_get(&mut self, key: &str) -> Option<Value> {
        let resp = call_host(user::state_get, key.as_bytes())?;
        json::parse(&String::from_utf8_lossy(&resp)).ok()
    }

    /// Stores value under key for this session; `Value::Null` deletes it.
    /// Keep values small (at most 1 MiB).
    pub fn state_set(&mut self, key: &str, value: Value) {
        let payload = Value::Object(vec![
            ("key".to_string(), Value::String(key.to_string())),
            ("value".to_string(), value),
        ]);
        call_host(user::state_set, payload.to_string().as_bytes());
    }

    /// Writes to the host's structured log, tagged with the tool id.
    /// level is "debug", "info", "warn" or "error".
    pub fn log(&mut self, level: &str, message: &str) {
        log(level, message)
    }
}

fn log(level: &str, message: &str) {
    let payload = Value::Object(vec![
        ("level".to_string(), Value::String(level.to_string())),
        ("message".to_string(), Value::String(message.to_string())),
    ]);
    call_host(user::log, payload.to_string().as_bytes());
}

/// A handler: the call's context and its arguments (already validated
/// against the schema by the host) in, a result or an error out.
pub type Handler = fn(&mut Context, &Value) -> Result<Output, Error>;

/// Builds the JSON Schema of a tool's arguments.
#[derive(Debug, Clone)]
pub struct Schema {
    properties: Vec<(String, Value)>,
    required: Vec<String>,
}

impl Schema {
    /// An object schema with no properties yet.
    pub fn object() -> Schema {
        Schema { properties: Vec::new(), required: Vec::new() }
    }
    fn prop(mut self, name: &str, typ: &str, description: &str, required: bool) -> Schema {
        self.properties.push((
            name.to_string(),
            Value::Object(vec![
                ("type".to_string(), Value::String(typ.to_string())),
                ("description".to_string(), Value::String(description.to_string())),
            ]),
        ));
        if required {
            self.required.push(name.to_string());
        }
        self
    }
    /// Adds a string property.
    pub fn string(self, name: &str, description: &str, required: bool) -> Schema {
        self.prop(name, "string", description, required)
    }
    /// Adds an integer property.
    pub fn integer(self, name: &str, description: &str, required: bool) -> Schema {
        self.prop(name, "integer", description, required)
    }
    /// Adds a number property.
    pub fn number(self, name: &str, description: &str, required: bool) -> Schema {
        self.prop(name, "number", description, required)
    }
    /// Adds a boolean property.
    pub fn boolean(self, name: &str, description: &str, required: bool) -> Schema {
        self.prop(name, "boolean", description, required)
    }
    /// Adds a property with a schema of its own (an enum, an array…).
    pub fn property(mut self, name: &str, schema: Value, required: bool) -> Schema {
        self.properties.push((name.to_string(), schema));
        if required {
            self.required.push(name.to_string());
        }
        self
    }
    /// The schema as JSON.
    pub fn to_json(&self) -> String {
        Value::Object(vec![
            ("type".to_string(), Value::String("object".to_string())),
            ("properties".to_string(), Value::Object(self.properties.clone())),
            ("required".to_string(), strings(&self.required)),
            ("additionalProperties".to_string(), Value::Bool(false)),
        ])
        .to_string()
    }
}

/// Something that can be a tool's schema: a `Schema` or JSON text.
pub trait IntoSchema {
    fn schema_json(self) -> String;
}

impl IntoSchema for Schema {
    fn schema_json(self) -> String {
        self.to_json()
    }
}

impl IntoSchema for &str {
    fn schema_json(self) -> String {
        self.to_string()
    }
}

impl IntoSchema for String {
    fn schema_json(self) -> String {
        self
    }
}

/// Implements a description export (used by `tool!`).
#[doc(hidden)]
pub fn export_description(description: &str) -> i32 {
    set_output(description.as_bytes());
    0
}

/// Implements a schema export (used by `tool!`).
#[doc(hidden)]
pub fn export_schema(schema: impl IntoSchema) -> i32 {
    set_output(schema.schema_json().as_bytes());
    0
}

/// Implements an execute export (used by `tool!`): decodes the input, runs
/// the handler, sets the output or the error.
#[doc(hidden)]
pub fn export_execute(handler: Handler) -> i32 {
    install_panic_hook();
    let raw = input();
    let v = match std::str::from_utf8(&raw).map_err(|e| e.to_string()).and_then(|s| json::parse(s)) {
        Ok(v) => v,
        Err(e) => {
            set_error(&format!("toolhost: malformed execute input: {}", e));
            return 1;
        }
    };
    let c = v.get("context").cloned().unwrap_or(Value::Null);
    let field = |k: &str| c.get_str(k).unwrap_or("").to_string();
    let mut ctx = Context {
        session_id: field("sessionID"),
        message_id: field("messageID"),
        agent: field("agent"),
        call_id: field("callID"),
        extra: c.get("extra").cloned().unwrap_or(Value::Object(Vec::new())),
    };
    let args = v.get("args").cloned().unwrap_or(Value::Object(Vec::new()));
    match handler(&mut ctx, &args) {
        Ok(out) => {
            set_output(out.to_json().as_bytes());
            0
        }
        Err(e) => {
            set_error(&e.to_string());
            1
        }
    }
}

/// A panic aborts the module (wasm has no unwinding here); the hook puts its
/// message in the host's log first, so the trap the host reports can be
/// explained.
fn install_panic_hook() {
    use std::sync::Once;
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        std::panic::set_hook(Box::new(|info| log("error", &format!("tool panicked: {}", info))));
    });
}

/// Declares a tool and generates its three exports.
///
/// `tool!(main, description, schema, handler)` is the tool named after the
/// .wasm file; `tool!(name, description, schema, handler)` is `<file>_name`.
/// schema is a `Schema` or JSON text; handler is a `Handler`.
#[macro_export]
macro_rules! tool {
    (main, $description:expr, $schema:expr, $handler:expr) => {
        const _: () = {
            #[export_name = "description"]
            pub extern "C" fn __toolhost_description() -> i32 {
                $crate::export_description($description)
            }
            #[export_name = "schema"]
            pub extern "C" fn __toolhost_schema() -> i32 {
                $crate::export_schema($schema)
            }
            #[export_name = "execute"]
            pub extern "C" fn __toolhost_execute() -> i32 {
                $crate::export_execute($handler)
            }
        };
    };
    ($name:ident, $description:expr, $schema:expr, $handler:expr) => {
        const _: () = {
            #[export_name = concat!(stringify!($name), "_description")]
            pub extern "C" fn __toolhost_description() -> i32 {
                $crate::export_description($description)
            }
            #[export_name = concat!(stringify!($name), "_schema")]
            pub extern "C" fn __toolhost_schema() -> i32 {
                $crate::export_schema($schema)
            }
            #[export_name = concat!(stringify!($name), "_execute")]
            pub extern "C" fn __toolhost_execute() -> i32 {
                $crate::export_execute($handler)
            }
        };
    };
}
