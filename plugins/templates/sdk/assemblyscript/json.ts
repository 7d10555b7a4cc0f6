// Just enough JSON for tool arguments and results, so the SDK needs no
// package beyond the compiler and the Extism PDK. AssemblyScript has no
// exceptions, so parse returns null and leaves the reason in parseError.

export enum Kind {
  Null,
  Bool,
  Number,
  String,
  Array,
  Object,
}

/** A JSON value. Objects keep their keys in order. */
export class Value {
  kind: Kind = Kind.Null;
  bool: bool = false;
  num: f64 = 0;
  str: string = "";
  items: Value[] = [];
  keys: string[] = [];

  static null(): Value {
    return new Value();
  }
  static bool(b: bool): Value {
    const v = new Value();
    v.kind = Kind.Bool;
    v.bool = b;
    return v;
  }
  static number(n: f64): Value {
    const v = new Value();
    v.kind = Kind.Number;
    v.num = n;
    return v;
  }
  static string(s: string): Value {
    const v = new Value();
    v.kind = Kind.String;
    v.str = s;
    return v;
  }
  static array(): Value {
    const v = new Value();
    v.kind = Kind.Array;
    return v;
  }
  static object(): Value {
    const v = new Value();
    v.kind = Kind.Object;
    return v;
  }

  /** Sets key (an object's) to value, replacing an earlier one; returns this. */
  set(key: string, value: Value): Value {
    for (let i = 0; i < this.keys.length; i++) {
      if (this.keys[i] == key) {
        this.items[i] = value;
        return this;
      }
    }
    this.keys.push(key);
    this.items.push(value);
    return this;
  }
  /** Appends to an array; returns this. */
  push(value: Value): Value {
    this.items.push(value);
    return this;
  }
  /** The value under key, for an object. */
  get(key: string): Value | null {
    if (this.kind != Kind.Object) return null;
    for (let i = 0; i < this.keys.length; i++) {
      if (this.keys[i] == key) return this.items[i];
    }
    return null;
  }
  /** The string under key, or null when absent or not a string. */
  getString(key: string): string | null {
    const v = this.get(key);
    if (v === null || v.kind != Kind.String) return null;
    return v.str;
  }
  /** The number under key, or def when absent or not a number. */
  getNumber(key: string, def: f64 = 0): f64 {
    const v = this.get(key);
    if (v === null || v.kind != Kind.Number) return def;
    return v.num;
  }
  /** The boolean under key, or def when absent or not a boolean. */
  getBool(key: string, def: bool = false): bool {
    const v = this.get(key);
    if (v === null || v.kind != Kind.Bool) return def;
    return v.bool;
  }

  /** Compact JSON text. */
  toString(): string {
    switch (this.kind) {
      case Kind.Null:
        return "null";
      case Kind.Bool:
        return this.bool ? "true" : "false";
      case Kind.Number:
        return formatNumber(this.num);
      case Kind.String:
        return quote(this.str);
      case Kind.Array: {
        const parts = new Array<string>();
        for (let i = 0; i < this.items.length; i++) parts.push(this.items[i].toString());
        return "[" + parts.join(",") + "]";
      }
      default: {
        const parts = new Array<string>();
        for (let i = 0; i < this.keys.length; i++) parts.push(quote(this.keys[i]) + ":" + this.items[i].toString());
        return "{" + parts.join(",") + "}";
      }
    }
  }
}

function formatNumber(n: f64): string {
  if (!isFinite(n)) return "null";
  // AssemblyScript prints whole f64s as "3.0"; JSON readers expect "3".
  if (n == Math.floor(n) && Math.abs(n) < 1e15) return (<i64>n).toString();
  return n.toString();
}

const HEX = "0123456789abcdef";

/** s as a JSON string literal. */
export function quote(s: string): string {
  let out = '"';
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c != 0x22 && c != 0x5c) continue;
    out += s.substring(start, i);
    start = i + 1;
    if (c == 0x22) out += '\\"';
    else if (c == 0x5c) out += "\\\\";
    else if (c == 0x0a) out += "\\n";
    else if (c == 0x0d) out += "\\r";
    else if (c == 0x09) out += "\\t";
    else out += "\\u00" + HEX.charAt(c >> 4) + HEX.charAt(c & 15);
  }
  return out + s.substring(start) + '"';
}

/** Why the last parse returned null. */
export let parseError = "";

/** Parses JSON text; null (and parseError) when it is not JSON. */
export function parse(text: string): Value | null {
  const p = new Parser(text);
  const v = p.value(0);
  if (v === null) {
    parseError = p.err;
    return null;
  }
  p.ws();
  if (p.i != text.length) {
    parseError = "unexpected text after the value at " + p.i.toString();
    return null;
  }
  return v;
}

class Parser {
  s: string;
  i: i32 = 0;
  err: string = "";
  constructor(s: string) {
    this.s = s;
  }
  ws(): void {
    while (this.i < this.s.length) {
      const c = this.s.charCodeAt(this.i);
      if (c != 0x20 && c != 0x09 && c != 0x0a && c != 0x0d) break;
      this.i++;
    }
  }
  fail(what: string): Value | null {
    if (this.err == "") this.err = what + " at " + this.i.toString();
    return null;
  }
  eat(c: i32): bool {
    this.ws();
    if (this.i < this.s.length && this.s.charCodeAt(this.i) == c) {
      this.i++;
      return true;
    }
    return false;
  }
  literal(word: string, v: Value): Value | null {
    if (this.s.substr(this.i, word.length) != word) return this.fail("invalid literal");
    this.i += word.length;
    return v;
  }
  value(depth: i32): Value | null {
    if (depth > 512) return this.fail("JSON nested too deeply");
    this.ws();
    if (this.i >= this.s.length) return this.fail("unexpected end of JSON");
    const c = this.s.charCodeAt(this.i);
    if (c == 0x6e) return this.literal("null", Value.null());
    if (c == 0x74) return this.literal("true", Value.bool(true));
    if (c == 0x66) return this.literal("false", Value.bool(false));
    if (c == 0x22) {
      const s = this.string();
      return s === null ? null : Value.string(s);
    }
    if (c == 0x5b) {
      this.i++;
      const arr = Value.array();
      if (this.eat(0x5d)) return arr;
      while (true) {
        const v = this.value(depth + 1);
        if (v === null) return null;
        arr.push(v);
        if (this.eat(0x5d)) return arr;
        if (!this.eat(0x2c)) return this.fail("expected ',' or ']'");
      }
    }
    if (c == 0x7b) {
      this.i++;
      const obj = Value.object();
      if (this.eat(0x7d)) return obj;
      while (true) {
        this.ws();
        if (this.i >= this.s.length || this.s.charCodeAt(this.i) != 0x22) return this.fail("expected a key");
        const k = this.string();
        if (k === null) return null;
        if (!this.eat(0x3a)) return this.fail("expected ':'");
        const v = this.value(depth + 1);
        if (v === null) return null;
        obj.set(k, v);
        if (this.eat(0x7d)) return obj;
        if (!this.eat(0x2c)) return this.fail("expected ',' or '}'");
      }
    }
    if (c == 0x2d || (c >= 0x30 && c <= 0x39)) {
      const start = this.i;
      while (this.i < this.s.length) {
        const d = this.s.charCodeAt(this.i);
        if (!((d >= 0x30 && d <= 0x39) || d == 0x2d || d == 0x2b || d == 0x2e || d == 0x65 || d == 0x45)) break;
        this.i++;
      }
      const n = parseFloat(this.s.substring(start, this.i));
      if (isNaN(n)) return this.fail("invalid number");
      return Value.number(n);
    }
    return this.fail("unexpected character");
  }
  hex4(): i32 {
    if (this.i + 4 > this.s.length) return -1;
    let n = 0;
    for (let k = 0; k < 4; k++) {
      const c = this.s.charCodeAt(this.i + k);
      let d = -1;
      if (c >= 0x30 && c <= 0x39) d = c - 0x30;
      else if (c >= 0x61 && c <= 0x66) d = c - 0x61 + 10;
      else if (c >= 0x41 && c <= 0x46) d = c - 0x41 + 10;
      if (d < 0) return -1;
      n = n * 16 + d;
    }
    this.i += 4;
    return n;
  }
  // Strings are UTF-16 inside AssemblyScript, so a \u escape is one code
  // unit and a surrogate pair written as two escapes comes out whole.
  string(): string | null {
    this.i++; // the opening quote
    let out = "";
    let start = this.i;
    while (true) {
      if (this.i >= this.s.length) {
        this.fail("unterminated string");
        return null;
      }
      const c = this.s.charCodeAt(this.i);
      if (c == 0x22) {
        out += this.s.substring(start, this.i);
        this.i++;
        return out;
      }
      if (c != 0x5c) {
        this.i++;
        continue;
      }
      out += this.s.substring(start, this.i);
      this.i++;
      if (this.i >= this.s.length) {
        this.fail("unterminated string");
        return null;
      }
      const e = this.s.charCodeAt(this.i);
      this.i++;
      if (e == 0x22) out += '"';
      else if (e == 0x5c) out += "\\";
      else if (e == 0x2f) out += "/";
      else if (e == 0x62) out += "\b";
      else if (e == 0x66) out += "\f";
      else if (e == 0x6e) out += "\n";
      else if (e == 0x72) out += "\r";
      else if (e == 0x74) out += "\t";
      else if (e == 0x75) {
        const n = this.hex4();
        if (n < 0) {
          this.fail("invalid \\u escape");
          return null;
        }
        out += String.fromCharCode(n);
      } else {
        this.fail("invalid escape");
        return null;
      }
      start = this.i;
    }
  }
}
