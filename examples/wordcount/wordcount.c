/*
 * wordcount — a toolhost wasm tool in C: counts the lines, words,
 * characters and bytes of a text, and lists its most frequent words.
 * Models miscount text; this does not.
 *
 * Build (Debian: apt-get install clang-14 lld-14 wasi-libc):
 *   clang-14 --target=wasm32-wasi -O2 -mexec-model=reactor \
 *     -I ../../sdk-guest/c -o wordcount.wasm wordcount.c
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toolhost.h"

#define MAX_TOP 50

TOOLHOST_EXPORT("description") int32_t description(void) {
  return th_output_str(
      "Count the lines, words, characters (Unicode code points) and bytes of a text, "
      "and list its most frequent words (case-insensitive). Use it instead of counting by hand.");
}

TOOLHOST_EXPORT("schema") int32_t schema(void) {
  return th_output_str(
      "{\"type\":\"object\",\"properties\":{"
      "\"text\":{\"type\":\"string\",\"description\":\"The text to count\"},"
      "\"top\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":50,"
      "\"description\":\"How many of the most frequent words to list (default 5)\"}},"
      "\"required\":[\"text\"]}");
}

struct word {
  char *w;
  int n;
};

static int by_count(const void *a, const void *b) {
  const struct word *x = a, *y = b;
  if (x->n != y->n) return y->n - x->n;
  return strcmp(x->w, y->w);
}

TOOLHOST_EXPORT("execute") int32_t execute(void) {
  char *in = th_input(NULL);
  char *text = th_json_string(th_json_find(in, "args.text"));
  long long top = th_json_int(th_json_find(in, "args.top"), 5);
  free(in);
  if (!text) return th_error("argument text is missing or not a string");
  if (top < 0) top = 0;
  if (top > MAX_TOP) top = MAX_TOP;

  size_t bytes = strlen(text), lines = 0, words = 0, chars = 0;
  size_t cap = 64, nwords = 0;
  struct word *ws = malloc(cap * sizeof *ws);
  int in_word = 0, punct = 0;
  size_t start = 0;
  for (size_t i = 0; i <= bytes; i++) {
    unsigned char c = (unsigned char)text[i];
    if (i < bytes) {
      if ((c & 0xC0) != 0x80) chars++; /* count UTF-8 lead bytes */
      if (c == '\n') lines++;
    }
    /* Letters, digits, apostrophes and non-ASCII characters make words,
     * except General Punctuation (U+2000-U+206F: dashes, quotes, ellipsis),
     * encoded as E2 80 xx or E2 81 xx. */
    if (i + 1 < bytes && c == 0xE2 && ((unsigned char)text[i + 1] == 0x80 || (unsigned char)text[i + 1] == 0x81)) punct = 3;
    int wordch = i < bytes && !punct && (isalnum(c) || c == '\'' || c >= 0x80);
    if (punct) punct--;
    if (wordch && !in_word) {
      in_word = 1;
      start = i;
    } else if (!wordch && in_word) {
      in_word = 0;
      words++;
      size_t n = i - start;
      char *w = malloc(n + 1);
      for (size_t k = 0; k < n; k++) w[k] = (char)tolower((unsigned char)text[start + k]);
      w[n] = 0;
      size_t j = 0;
      for (; j < nwords && strcmp(ws[j].w, w) != 0; j++) {
      }
      if (j < nwords) {
        ws[j].n++;
        free(w);
      } else {
        if (nwords == cap) ws = realloc(ws, (cap *= 2) * sizeof *ws);
        ws[nwords].w = w;
        ws[nwords++].n = 1;
      }
    }
  }
  if (bytes > 0 && text[bytes - 1] != '\n') lines++; /* a last line without newline */
  free(text);
  qsort(ws, nwords, sizeof *ws, by_count);

  size_t outcap = 256 + (size_t)top * 96, len = 0;
  char *out = malloc(outcap);
  len += (size_t)snprintf(out + len, outcap - len, "lines: %zu\nwords: %zu\ncharacters: %zu\nbytes: %zu\n", lines, words,
                          chars, bytes);
  if (top > 0 && nwords > 0) len += (size_t)snprintf(out + len, outcap - len, "most frequent:\n");
  for (size_t j = 0; j < nwords && j < (size_t)top; j++) {
    char *q = ws[j].w;
    if (strlen(q) > 60) q[60] = 0;
    len += (size_t)snprintf(out + len, outcap - len, "  %s %d\n", q, ws[j].n);
  }
  for (size_t j = 0; j < nwords; j++) free(ws[j].w);
  free(ws);

  char *quoted = th_json_quote(out);
  char title[64];
  snprintf(title, sizeof title, "%zu words", words);
  char *qtitle = th_json_quote(title);
  size_t rn = strlen(quoted) + strlen(qtitle) + 64;
  char *result = malloc(rn);
  snprintf(result, rn, "{\"output\":%s,\"title\":%s}", quoted, qtitle);
  free(out);
  free(quoted);
  free(qtitle);
  int32_t rc = th_output_str(result);
  free(result);
  return rc;
}
