//! words: text tools written in Rust with the toolhost SDK. The same tool
//! set exists in every guest language (examples/*-words) so that
//! examples/matrix can run one conformance suite on all of them.

use toolhost::{json::Value, tool, AskRequest, Context, Error, Output, Schema};

/// Counts lines, words and characters (Unicode code points, not bytes).
fn count(ctx: &mut Context, args: &Value) -> Result<Output, Error> {
    let text = args.get_str("text").unwrap_or("");
    let lines = if text.is_empty() { 0 } else { text.lines().count() };
    let words = text.split_whitespace().count();
    let chars = text.chars().count();
    ctx.metadata(&format!("counted {} words", words), None);
    Ok(Output::text(format!("{} lines, {} words, {} characters", lines, words, chars))
        .title("words")
        .metadata(Value::object([
            ("lines", Value::from(lines)),
            ("words", Value::from(words)),
            ("characters", Value::from(chars)),
        ])))
}

/// Reverses text by code point, so non-ASCII letters survive.
fn reverse(_: &mut Context, args: &Value) -> Result<Output, Error> {
    let text = args.get_str("text").unwrap_or("");
    Ok(Output::text(text.chars().rev().collect::<String>()))
}

/// Greets someone with the greeting the user configured.
fn greet(ctx: &mut Context, args: &Value) -> Result<Output, Error> {
    let greeting = ctx.config("greeting").unwrap_or_else(|| "Hello".to_string());
    Ok(Output::text(format!("{}, {}!", greeting, args.get_str("name").unwrap_or(""))))
}

/// Remembers a note for the session when given a value, after asking
/// permission "remember" for its key; recalls it when not.
fn note(ctx: &mut Context, args: &Value) -> Result<Output, Error> {
    let key = args.get_str("key").unwrap_or("");
    match args.get_str("value") {
        Some(value) => {
            ctx.ask(&AskRequest {
                permission: "remember".into(),
                patterns: vec![key.into()],
                always: vec![key.into()],
                metadata: None,
            })?;
            ctx.state_set(key, Value::from(value));
            Ok(Output::text(format!("remembered {}", key)))
        }
        None => match ctx.state_get(key) {
            Some(Value::String(s)) => Ok(Output::text(s)),
            _ => Err(format!("nothing remembered under \"{}\"; call words_note with a value first", key).into()),
        },
    }
}

tool!(
    main,
    "Counts the lines, words and characters (Unicode code points) of a text.",
    Schema::object().string("text", "The text to count", true),
    count
);
tool!(
    reverse,
    "Reverses a text character by character.",
    Schema::object().string("text", "The text to reverse", true),
    reverse
);
tool!(
    greet,
    "Greets someone with the configured greeting (config key \"greeting\", default Hello).",
    Schema::object().string("name", "Who to greet", true),
    greet
);
tool!(
    note,
    "Remembers a note under a key for the rest of the session when given a value (asks permission \"remember\" for the key), or recalls the note when not.",
    Schema::object()
        .string("key", "Name of the note", true)
        .string("value", "The note to remember; leave out to recall", false),
    note
);
