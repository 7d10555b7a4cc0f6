/*
 * toolhost.h — write toolhost wasm tools in C (toolhost-abi 1, docs/abi.md).
 *
 * One header, no library: it declares the Extism kernel and toolhost host
 * functions the module imports, and small helpers over them. Build a tool
 * as a WASI reactor with Debian's clang-14, lld-14 and wasi-libc:
 *
 *   clang-14 --target=wasm32-wasi --sysroot=/usr/share/wasi-sysroot \
 *     -O2 -mexec-model=reactor -o mytool.wasm mytool.c
 *
 * A tool exports three functions (a named tool N exports N_description,
 * N_schema and N_execute instead):
 *
 *   #include "toolhost.h"
 *   TOOLHOST_EXPORT("description") int32_t description(void) {
 *     return th_output_str("Says hello.");
 *   }
 *   TOOLHOST_EXPORT("schema") int32_t schema(void) {
 *     return th_output_str("{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}}}");
 *   }
 *   TOOLHOST_EXPORT("execute") int32_t execute(void) {
 *     char *in = th_input(NULL);
 *     char *name = th_json_string(th_json_find(in, "args.name"));
 *     ...
 *     return th_output_str(result);   // or: return th_error("what went wrong");
 *   }
 *
 * Strings returned by th_* functions are malloc'd and NUL-terminated; free
 * them. Extism memory offsets (uint64_t) never mix with C pointers: bytes
 * move between the two with load/store calls.
 */
#ifndef TOOLHOST_H
#define TOOLHOST_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define TOOLHOST_ABI_VERSION "toolhost-abi 1"

#define TOOLHOST_EXPORT(name) __attribute__((export_name(name)))
#define TH_ENV(name) __attribute__((import_module("extism:host/env"), import_name(name)))
#define TH_USER(name) __attribute__((import_module("extism:host/user"), import_name(name)))

/* The Extism kernel (extism:host/env). */
TH_ENV("input_length") uint64_t extism_input_length(void);
TH_ENV("input_load_u8") uint32_t extism_input_load_u8(uint64_t off);
TH_ENV("input_load_u64") uint64_t extism_input_load_u64(uint64_t off);
TH_ENV("length") uint64_t extism_length(uint64_t off);
TH_ENV("alloc") uint64_t extism_alloc(uint64_t n);
TH_ENV("free") void extism_free(uint64_t off);
TH_ENV("output_set") void extism_output_set(uint64_t off, uint64_t n);
TH_ENV("error_set") void extism_error_set(uint64_t off);
TH_ENV("config_get") uint64_t extism_config_get(uint64_t key);
TH_ENV("load_u8") uint32_t extism_load_u8(uint64_t off);
TH_ENV("load_u64") uint64_t extism_load_u64(uint64_t off);
TH_ENV("store_u8") void extism_store_u8(uint64_t off, uint32_t v);
TH_ENV("store_u64") void extism_store_u64(uint64_t off, uint64_t v);

/* toolhost's host functions (extism:host/user): each takes the offset of a
 * block holding its argument and returns the offset of a reply, or 0. */
TH_USER("ask") uint64_t toolhost_ask(uint64_t req);
TH_USER("metadata") uint64_t toolhost_metadata(uint64_t update);
TH_USER("log") uint64_t toolhost_log(uint64_t entry);
TH_USER("state_get") uint64_t toolhost_state_get(uint64_t key);
TH_USER("state_set") uint64_t toolhost_state_set(uint64_t kv);
TH_USER("call") uint64_t toolhost_call(uint64_t req);

/* th_store copies n bytes into a new Extism block and returns its offset. */
static inline uint64_t th_store(const void *p, size_t n) {
  const unsigned char *b = (const unsigned char *)p;
  uint64_t off = extism_alloc(n), i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t v;
    memcpy(&v, b + i, 8);
    extism_store_u64(off + i, v);
  }
  for (; i < n; i++) extism_store_u8(off + i, b[i]);
  return off;
}

/* th_load copies the Extism block at off into a malloc'd, NUL-terminated
 * buffer; *len (if not NULL) receives its length. */
static inline char *th_load(uint64_t off, size_t *len) {
  uint64_t n = extism_length(off), i = 0;
  char *b = (char *)malloc(n + 1);
  if (!b) return NULL;
  for (; i + 8 <= n; i += 8) {
    uint64_t v = extism_load_u64(off + i);
    memcpy(b + i, &v, 8);
  }
  for (; i < n; i++) b[i] = (char)extism_load_u8(off + i);
  b[n] = 0;
  if (len) *len = n;
  return b;
}

/* th_input returns the call's input (for execute: the JSON described in
 * docs/abi.md), malloc'd and NUL-terminated. */
static inline char *th_input(size_t *len) {
  uint64_t n = extism_input_length(), i = 0;
  char *b = (char *)malloc(n + 1);
  if (!b) return NULL;
  for (; i + 8 <= n; i += 8) {
    uint64_t v = extism_input_load_u64(i);
    memcpy(b + i, &v, 8);
  }
  for (; i < n; i++) b[i] = (char)extism_input_load_u8(i);
  b[n] = 0;
  if (len) *len = n;
  return b;
}

/* th_output sets the call's output and returns 0, for `return th_output(…)`. */
static inline int32_t th_output(const void *p, size_t n) {
  extism_output_set(th_store(p, n), n);
  return 0;
}

static inline int32_t th_output_str(const char *s) { return th_output(s, strlen(s)); }

/* th_error fails the call with msg, which the model sees, and returns 1. */
static inline int32_t th_error(const char *msg) {
  extism_error_set(th_store(msg, strlen(msg)));
  return 1;
}

/* th_config returns the tool's configured value for key, or NULL. */
static inline char *th_config(const char *key) {
  uint64_t k = th_store(key, strlen(key));
  uint64_t v = extism_config_get(k);
  extism_free(k);
  if (!v) return NULL;
  char *s = th_load(v, NULL);
  extism_free(v);
  return s;
}

static inline char *th_call(uint64_t (*fn)(uint64_t), const char *arg, size_t n) {
  uint64_t in = th_store(arg, n);
  uint64_t out = fn(in);
  extism_free(in);
  if (!out) return NULL;
  char *s = th_load(out, NULL);
  extism_free(out);
  return s;
}

/* th_ask asks permission with an AskRequest JSON
 * ({"permission","patterns":[…],"always":[…],"metadata":{…}}) and returns
 * 1 when allowed. Otherwise it returns 0 and, if err is not NULL, stores
 * the malloc'd message to return with th_error. */
static inline int th_ask(const char *request_json, char **err);

/* th_call_host calls a host function the program embedding toolhost
 * added (docs/hostfns.md): request_json is {"fn":"weather","args":{…}}.
 * It returns the malloc'd reply, {"value":…} or {"error":"…","kind":"…"};
 * a kind of "denied", "rejected" or "corrected" is a permission refusal,
 * whose "error" the tool should return unchanged with th_error. */
static inline char *th_call_host(const char *request_json) {
  return th_call(toolhost_call, request_json, strlen(request_json));
}

/* th_metadata reports progress: {"title":…, "metadata":{…}}. */
static inline void th_metadata(const char *update_json) {
  free(th_call(toolhost_metadata, update_json, strlen(update_json)));
}

/* th_state_get returns the JSON value stored under key, or NULL. */
static inline char *th_state_get(const char *key) {
  return th_call(toolhost_state_get, key, strlen(key));
}

/* th_state_set stores a JSON value under key ("null" deletes it). */
static inline void th_state_set(const char *key, const char *value_json);

/* ---- minimal JSON helpers ---------------------------------------------
 * Enough to read arguments and write results without a JSON library; use
 * a real one (cJSON compiles for wasm32-wasi) for anything bigger. */

static inline const char *th__ws(const char *p) {
  while (p && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
  return p;
}

/* th__skip returns the end of the JSON value starting at p, or NULL. */
static inline const char *th__skip(const char *p) {
  p = th__ws(p);
  if (!p || !*p) return NULL;
  if (*p == '"') {
    for (p++; *p && *p != '"'; p++)
      if (*p == '\\' && p[1]) p++;
    return *p ? p + 1 : NULL;
  }
  if (*p == '{' || *p == '[') {
    int depth = 0;
    for (; *p; p++) {
      if (*p == '"') {
        p = th__skip(p);
        if (!p) return NULL;
        p--;
      } else if (*p == '{' || *p == '[') depth++;
      else if ((*p == '}' || *p == ']') && --depth == 0) return p + 1;
    }
    return NULL;
  }
  while (*p && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\n') p++;
  return p;
}

/* th_json_find returns a pointer to the value at a dot path of object keys
 * ("args.name") in json, or NULL when absent. */
static inline const char *th_json_find(const char *json, const char *path) {
  const char *p = th__ws(json);
  while (p && *path) {
    const char *dot = strchr(path, '.');
    size_t klen = dot ? (size_t)(dot - path) : strlen(path);
    if (*p != '{') return NULL;
    p = th__ws(p + 1);
    const char *found = NULL;
    while (p && *p == '"') {
      const char *kend = th__skip(p);
      if (!kend) return NULL;
      int match = (size_t)(kend - p - 2) == klen && strncmp(p + 1, path, klen) == 0;
      p = th__ws(kend);
      if (*p != ':') return NULL;
      p = th__ws(p + 1);
      if (match) { found = p; break; }
      p = th__ws(th__skip(p));
      if (p && *p == ',') p = th__ws(p + 1);
    }
    if (!found) return NULL;
    p = found;
    path += klen + (dot ? 1 : 0);
    if (!dot) break;
  }
  return p;
}

static inline void th__utf8(char **o, unsigned c) {
  char *q = *o;
  if (c < 0x80) *q++ = (char)c;
  else if (c < 0x800) { *q++ = (char)(0xC0 | c >> 6); *q++ = (char)(0x80 | (c & 0x3F)); }
  else if (c < 0x10000) { *q++ = (char)(0xE0 | c >> 12); *q++ = (char)(0x80 | (c >> 6 & 0x3F)); *q++ = (char)(0x80 | (c & 0x3F)); }
  else { *q++ = (char)(0xF0 | c >> 18); *q++ = (char)(0x80 | (c >> 12 & 0x3F)); *q++ = (char)(0x80 | (c >> 6 & 0x3F)); *q++ = (char)(0x80 | (c & 0x3F)); }
  *o = q;
}

static inline unsigned th__hex4(const char *p) {
  unsigned v = 0;
  for (int i = 0; i < 4; i++) {
    char c = p[i];
    v <<= 4;
    if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
  }
  return v;
}

/* th_json_string decodes the JSON string value at v into a malloc'd UTF-8
 * string, or returns NULL when v is not a string. */
static inline char *th_json_string(const char *v) {
  v = th__ws(v);
  if (!v || *v != '"') return NULL;
  const char *end = th__skip(v);
  if (!end) return NULL;
  char *out = (char *)malloc((size_t)(end - v) + 1), *o = out;
  if (!out) return NULL;
  for (const char *p = v + 1; p < end - 1; p++) {
    if (*p != '\\') { *o++ = *p; continue; }
    switch (*++p) {
      case 'n': *o++ = '\n'; break;
      case 't': *o++ = '\t'; break;
      case 'r': *o++ = '\r'; break;
      case 'b': *o++ = '\b'; break;
      case 'f': *o++ = '\f'; break;
      case 'u': {
        if (p + 4 >= end) break;
        unsigned c = th__hex4(p + 1);
        p += 4;
        if (c >= 0xD800 && c < 0xDC00 && p + 6 < end && p[1] == '\\' && p[2] == 'u') {
          unsigned lo = th__hex4(p + 3);
          c = 0x10000 + ((c - 0xD800) << 10) + (lo - 0xDC00);
          p += 6;
        }
        th__utf8(&o, c);
        break;
      }
      default: *o++ = *p; /* \" \\ \/ */
    }
  }
  *o = 0;
  return out;
}

/* th_json_int reads the number at v, or returns def when v is not one. */
static inline long long th_json_int(const char *v, long long def) {
  v = th__ws(v);
  if (!v || !(*v == '-' || (*v >= '0' && *v <= '9'))) return def;
  return strtoll(v, NULL, 10);
}

/* th_json_quote returns s as a malloc'd JSON string literal, quotes
 * included. */
static inline char *th_json_quote(const char *s) {
  size_t n = strlen(s);
  char *out = (char *)malloc(n * 6 + 3), *o = out;
  if (!out) return NULL;
  *o++ = '"';
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    switch (*p) {
      case '"': *o++ = '\\'; *o++ = '"'; break;
      case '\\': *o++ = '\\'; *o++ = '\\'; break;
      case '\n': *o++ = '\\'; *o++ = 'n'; break;
      case '\r': *o++ = '\\'; *o++ = 'r'; break;
      case '\t': *o++ = '\\'; *o++ = 't'; break;
      default:
        if (*p < 0x20) { static const char hx[] = "0123456789abcdef"; *o++ = '\\'; *o++ = 'u'; *o++ = '0'; *o++ = '0'; *o++ = hx[*p >> 4]; *o++ = hx[*p & 15]; }
        else *o++ = (char)*p;
    }
  }
  *o++ = '"';
  *o = 0;
  return out;
}

/* th_log writes msg to the host's log at level (debug, info, warn, error). */
static inline void th_log(const char *level, const char *msg) {
  char *q = th_json_quote(msg), *l = th_json_quote(level);
  size_t n = strlen(q) + strlen(l) + 32;
  char *buf = (char *)malloc(n);
  if (buf && q && l) {
    strcpy(buf, "{\"level\":");
    strcat(buf, l);
    strcat(buf, ",\"message\":");
    strcat(buf, q);
    strcat(buf, "}");
    free(th_call(toolhost_log, buf, strlen(buf)));
  }
  free(buf); free(q); free(l);
}

static inline int th_ask(const char *request_json, char **err) {
  char *resp = th_call(toolhost_ask, request_json, strlen(request_json));
  if (err) *err = NULL;
  if (!resp) return 0;
  const char *ok = th_json_find(resp, "ok");
  int allowed = ok && strncmp(ok, "true", 4) == 0;
  if (!allowed && err) *err = th_json_string(th_json_find(resp, "error"));
  free(resp);
  return allowed;
}

static inline void th_state_set(const char *key, const char *value_json) {
  char *k = th_json_quote(key);
  size_t n = strlen(k) + strlen(value_json) + 24;
  char *buf = (char *)malloc(n);
  if (buf && k) {
    strcpy(buf, "{\"key\":");
    strcat(buf, k);
    strcat(buf, ",\"value\":");
    strcat(buf, value_json);
    strcat(buf, "}");
    free(th_call(toolhost_state_set, buf, strlen(buf)));
  }
  free(buf); free(k);
}

#endif /* TOOLHOST_H */
