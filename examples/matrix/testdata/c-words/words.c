/* words — the C member of the language matrix: the same tool set as
 * examples/rust-words, examples/as-words and examples/d-words, written
 * with sdk-guest/c/toolhost.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toolhost.h"

#define SCHEMA_TEXT(what) \
  "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\",\"description\":\"" what "\"}},\"required\":[\"text\"],\"additionalProperties\":false}"

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

/* arg returns the decoded string argument name ("" when absent); free it. */
static char *arg(const char *in, const char *name) {
  char path[64];
  snprintf(path, sizeof path, "args.%s", name);
  char *s = th_json_string(th_json_find(in, path));
  return s ? s : strdup("");
}

TOOLHOST_EXPORT("description") int32_t description(void) {
  return th_output_str("Counts the lines, words and characters (Unicode code points) of a text.");
}
TOOLHOST_EXPORT("schema") int32_t schema(void) { return th_output_str(SCHEMA_TEXT("The text to count")); }
TOOLHOST_EXPORT("execute") int32_t execute(void) {
  char *in = th_input(NULL);
  char *text = arg(in, "text");
  free(in);
  long lines = 0, words = 0, chars = 0;
  int in_word = 0;
  size_t n = strlen(text);
  for (size_t i = 0; i < n; i++) {
    char c = text[i];
    if ((c & 0xC0) != 0x80) chars++;
    if (c == '\n') lines++;
    if (is_space(c)) in_word = 0;
    else if (!in_word) in_word = 1, words++;
  }
  if (n > 0 && text[n - 1] != '\n') lines++;
  free(text);
  char buf[256];
  snprintf(buf, sizeof buf, "{\"title\":\"counted %ld words\"}", words);
  th_metadata(buf);
  snprintf(buf, sizeof buf,
           "{\"output\":\"%ld lines, %ld words, %ld characters\",\"title\":\"words\","
           "\"metadata\":{\"lines\":%ld,\"words\":%ld,\"characters\":%ld}}",
           lines, words, chars, lines, words, chars);
  return th_output_str(buf);
}

TOOLHOST_EXPORT("reverse_description") int32_t reverse_description(void) {
  return th_output_str("Reverses a text character by character.");
}
TOOLHOST_EXPORT("reverse_schema") int32_t reverse_schema(void) { return th_output_str(SCHEMA_TEXT("The text to reverse")); }
TOOLHOST_EXPORT("reverse_execute") int32_t reverse_execute(void) {
  char *in = th_input(NULL);
  char *text = arg(in, "text");
  free(in);
  size_t n = strlen(text), o = 0;
  char *out = malloc(n + 1);
  for (size_t end = n; end > 0;) {
    size_t start = end - 1;
    while (start > 0 && (text[start] & 0xC0) == 0x80) start--;
    memcpy(out + o, text + start, end - start);
    o += end - start;
    end = start;
  }
  out[o] = 0;
  free(text);
  int32_t rc = th_output(out, o);
  free(out);
  return rc;
}

TOOLHOST_EXPORT("greet_description") int32_t greet_description(void) {
  return th_output_str("Greets someone with the configured greeting (config key \"greeting\", default Hello).");
}
TOOLHOST_EXPORT("greet_schema") int32_t greet_schema(void) {
  return th_output_str("{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\",\"description\":\"Who to greet\"}},\"required\":[\"name\"],\"additionalProperties\":false}");
}
TOOLHOST_EXPORT("greet_execute") int32_t greet_execute(void) {
  char *in = th_input(NULL);
  char *name = arg(in, "name");
  free(in);
  char *greeting = th_config("greeting");
  const char *g = greeting ? greeting : "Hello";
  size_t n = strlen(g) + strlen(name) + 4;
  char *out = malloc(n);
  snprintf(out, n, "%s, %s!", g, name);
  free(greeting);
  free(name);
  int32_t rc = th_output_str(out);
  free(out);
  return rc;
}

TOOLHOST_EXPORT("note_description") int32_t note_description(void) {
  return th_output_str("Remembers a note under a key for the rest of the session when given a value (asks permission \"remember\" for the key), or recalls the note when not.");
}
TOOLHOST_EXPORT("note_schema") int32_t note_schema(void) {
  return th_output_str("{\"type\":\"object\",\"properties\":{\"key\":{\"type\":\"string\",\"description\":\"Name of the note\"},"
                       "\"value\":{\"type\":\"string\",\"description\":\"The note to remember; leave out to recall\"}},"
                       "\"required\":[\"key\"],\"additionalProperties\":false}");
}
TOOLHOST_EXPORT("note_execute") int32_t note_execute(void) {
  char *in = th_input(NULL);
  char *key = arg(in, "key");
  char *value = th_json_string(th_json_find(in, "args.value"));
  free(in);
  char *qkey = th_json_quote(key);
  int32_t rc;
  if (!value) {
    char *stored = th_state_get(key);
    char *text = stored ? th_json_string(stored) : NULL;
    if (!text) {
      size_t n = strlen(qkey) + 64;
      char *msg = malloc(n);
      snprintf(msg, n, "nothing remembered under %s; call words_note with a value first", qkey);
      rc = th_error(msg);
      free(msg);
    } else {
      rc = th_output_str(text);
    }
    free(text);
    free(stored);
  } else {
    size_t n = 2 * strlen(qkey) + 64;
    char *req = malloc(n);
    snprintf(req, n, "{\"permission\":\"remember\",\"patterns\":[%s],\"always\":[%s]}", qkey, qkey);
    char *err = NULL;
    if (!th_ask(req, &err)) {
      rc = th_error(err ? err : "permission refused");
    } else {
      char *qvalue = th_json_quote(value);
      th_state_set(key, qvalue);
      free(qvalue);
      size_t m = strlen(key) + 16;
      char *out = malloc(m);
      snprintf(out, m, "remembered %s", key);
      rc = th_output_str(out);
      free(out);
    }
    free(err);
    free(req);
  }
  free(qkey);
  free(value);
  free(key);
  return rc;
}
