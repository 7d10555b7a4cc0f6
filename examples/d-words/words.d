/**
 * words: text tools written in D with the toolhost SDK. The same tool set
 * exists in every guest language (examples/*-words) so that
 * examples/matrix can run one conformance suite on all of them.
 */
module words;

import toolhost;

@nogc nothrow:

private bool isSpace(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/// Counts lines, words and characters (code points: bytes that do not
/// continue a UTF-8 sequence).
Result count(ref Context ctx, Json args)
{
    auto text = args.get("text").str;
    long lines, words, chars;
    bool inWord;
    foreach (char c; text)
    {
        if ((c & 0xC0) != 0x80)
            chars++;
        if (c == '\n')
            lines++;
        if (isSpace(c))
            inWord = false;
        else if (!inWord)
        {
            inWord = true;
            words++;
        }
    }
    if (text.length && text[$ - 1] != '\n')
        lines++;

    auto title = Buf();
    title.put("counted ");
    title.put(words);
    title.put(" words");
    ctx.progress(title.data);

    auto b = Buf();
    b.put(lines);
    b.put(" lines, ");
    b.put(words);
    b.put(" words, ");
    b.put(chars);
    b.put(" characters");
    JsonObject meta;
    meta.add("lines", lines);
    meta.add("words", words);
    meta.add("characters", chars);
    auto r = Result.text(b.data);
    r.title = "words";
    r.metadata = meta.json;
    return r;
}

/// Reverses text by code point, keeping each UTF-8 sequence whole.
Result reverse(ref Context ctx, Json args)
{
    auto text = args.get("text").str;
    auto b = Buf();
    size_t end = text.length;
    while (end > 0)
    {
        size_t start = end - 1;
        while (start > 0 && (text[start] & 0xC0) == 0x80)
            start--;
        b.put(text[start .. end]);
        end = start;
    }
    return Result.text(b.data);
}

/// Greets someone with the greeting the user configured.
Result greet(ref Context ctx, Json args)
{
    bool found;
    auto greeting = ctx.config("greeting", found);
    auto b = Buf();
    b.put(found ? greeting : "Hello");
    b.put(", ");
    b.put(args.get("name").str);
    b.put('!');
    return Result.text(b.data);
}

/// Remembers a note for the session when given a value, after asking
/// permission "remember" for its key; recalls it when not.
Result note(ref Context ctx, Json args)
{
    auto key = args.get("key").str;
    auto value = args.get("value");
    if (!value.present)
    {
        auto v = ctx.stateGet(key);
        if (!v.isString)
        {
            auto b = Buf();
            b.put("nothing remembered under ");
            b.putQuoted(key);
            b.put("; call words_note with a value first");
            return Result.fail(b.data);
        }
        return Result.text(v.str);
    }
    const(char)[][1] patterns = [key];
    auto refused = ctx.ask("remember", patterns[], patterns[]);
    if (refused.failed)
        return refused;
    auto quoted = Buf();
    quoted.putQuoted(value.str);
    ctx.stateSet(key, quoted.data);
    auto b = Buf();
    b.put("remembered ");
    b.put(key);
    return Result.text(b.data);
}

mixin Tool!("", "Counts the lines, words and characters (Unicode code points) of a text.",
        `{"type":"object","properties":{"text":{"type":"string","description":"The text to count"}},"required":["text"],"additionalProperties":false}`,
        count);
mixin Tool!("reverse", "Reverses a text character by character.",
        `{"type":"object","properties":{"text":{"type":"string","description":"The text to reverse"}},"required":["text"],"additionalProperties":false}`,
        reverse);
mixin Tool!("greet", `Greets someone with the configured greeting (config key "greeting", default Hello).`,
        `{"type":"object","properties":{"name":{"type":"string","description":"Who to greet"}},"required":["name"],"additionalProperties":false}`,
        greet);
mixin Tool!("note", `Remembers a note under a key for the rest of the session when given a value (asks permission "remember" for the key), or recalls the note when not.`,
        `{"type":"object","properties":{"key":{"type":"string","description":"Name of the note"},"value":{"type":"string","description":"The note to remember; leave out to recall"}},"required":["key"],"additionalProperties":false}`,
        note);
