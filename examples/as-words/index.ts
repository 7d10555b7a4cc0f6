// words: text tools written in AssemblyScript with the toolhost SDK. The
// same tool set exists in every guest language (examples/*-words) so that
// examples/matrix can run one conformance suite on all of them.

import { AskRequest, Context, Result, Schema, Tool, Value } from "../../sdk-guest/assemblyscript/index";

function isSpace(c: i32): bool {
  return c == 0x20 || c == 0x09 || c == 0x0a || c == 0x0d || c == 0x0b || c == 0x0c || c == 0xa0 || c == 0x3000;
}

function isHighSurrogate(c: i32): bool {
  return c >= 0xd800 && c < 0xdc00;
}

// Counts lines, words and characters (Unicode code points, not UTF-16 units).
function count(ctx: Context, args: Value): Result {
  const text = args.getString("text");
  const s = text === null ? "" : text;
  let lines = 0;
  let words = 0;
  let chars = 0;
  let inWord = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (isHighSurrogate(c) && i + 1 < s.length) i++; // one code point
    chars++;
    if (c == 0x0a) lines++;
    if (isSpace(c)) {
      inWord = false;
    } else if (!inWord) {
      inWord = true;
      words++;
    }
  }
  if (s.length > 0 && s.charCodeAt(s.length - 1) != 0x0a) lines++;
  ctx.metadata("counted " + words.toString() + " words");
  const meta = Value.object()
    .set("lines", Value.number(lines))
    .set("words", Value.number(words))
    .set("characters", Value.number(chars));
  return Result.text(lines.toString() + " lines, " + words.toString() + " words, " + chars.toString() + " characters")
    .withTitle("words")
    .withMetadata(meta);
}

// Reverses text by code point, keeping surrogate pairs whole.
function reverse(ctx: Context, args: Value): Result {
  const text = args.getString("text");
  const s = text === null ? "" : text;
  const parts = new Array<string>();
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (isHighSurrogate(c) && i + 1 < s.length) {
      parts.push(s.substr(i, 2));
      i++;
    } else {
      parts.push(String.fromCharCode(c));
    }
  }
  return Result.text(parts.reverse().join(""));
}

// Greets someone with the greeting the user configured.
function greet(ctx: Context, args: Value): Result {
  const configured = ctx.config("greeting");
  const greeting = configured === null ? "Hello" : configured;
  const name = args.getString("name");
  return Result.text(greeting + ", " + (name === null ? "" : name) + "!");
}

// Remembers a note for the session when given a value, after asking
// permission "remember" for its key; recalls it when not.
function note(ctx: Context, args: Value): Result {
  const k = args.getString("key");
  const key = k === null ? "" : k;
  const value = args.getString("value");
  if (value === null) {
    const v = ctx.stateGet(key);
    if (v === null || v.str == "") return Result.error('nothing remembered under "' + key + '"; call words_note with a value first');
    return Result.text(v.str);
  }
  const req = new AskRequest("remember", [key]);
  req.always = [key];
  const refused = ctx.ask(req);
  if (refused !== null) return refused;
  ctx.stateSet(key, Value.string(value));
  return Result.text("remembered " + key);
}

const main = new Tool(
  "Counts the lines, words and characters (Unicode code points) of a text.",
  new Schema().string("text", "The text to count", true),
  count,
);
export function description(): i32 { return main.description(); }
export function schema(): i32 { return main.schema(); }
export function execute(): i32 { return main.execute(); }

const reverseTool = new Tool(
  "Reverses a text character by character.",
  new Schema().string("text", "The text to reverse", true),
  reverse,
);
export function reverse_description(): i32 { return reverseTool.description(); }
export function reverse_schema(): i32 { return reverseTool.schema(); }
export function reverse_execute(): i32 { return reverseTool.execute(); }

const greetTool = new Tool(
  'Greets someone with the configured greeting (config key "greeting", default Hello).',
  new Schema().string("name", "Who to greet", true),
  greet,
);
export function greet_description(): i32 { return greetTool.description(); }
export function greet_schema(): i32 { return greetTool.schema(); }
export function greet_execute(): i32 { return greetTool.execute(); }

const noteTool = new Tool(
  'Remembers a note under a key for the rest of the session when given a value (asks permission "remember" for the key), or recalls the note when not.',
  new Schema().string("key", "Name of the note", true).string("value", "The note to remember; leave out to recall", false),
  note,
);
export function note_description(): i32 { return noteTool.description(); }
export function note_schema(): i32 { return noteTool.schema(); }
export function note_execute(): i32 { return noteTool.execute(); }
