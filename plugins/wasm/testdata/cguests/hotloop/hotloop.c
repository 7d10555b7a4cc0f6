/*
 * hotloop — the C guest of the termination-check benchmark
 * (checks_bench_test.go): a tool whose time goes to tight loops, a
 * sieve of Eratosthenes and a hash over the sieve, sized by its "n"
 * argument; "rounds" hashes the sieve that many times (a guest that
 * runs past its time limit). It prints the prime count and the hash, so
 * the loops cannot be optimised away.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toolhost.h"

TOOLHOST_EXPORT("description") int32_t description(void) {
  return th_output_str("Count the primes below n, and hash the sieve.");
}

TOOLHOST_EXPORT("schema") int32_t schema(void) {
  return th_output_str(
      "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\",\"minimum\":2},"
      "\"rounds\":{\"type\":\"integer\",\"minimum\":0}}}");
}

TOOLHOST_EXPORT("execute") int32_t execute(void) {
  size_t len;
  char *in = th_input(&len);
  long long n = th_json_int(th_json_find(in, "args.n"), 100000);
  long long rounds = th_json_int(th_json_find(in, "args.rounds"), 1);
  if (n < 2 || n > 50000000) {
    return th_error("n must be between 2 and 50000000");
  }
  unsigned char *composite = calloc((size_t)n, 1);
  if (!composite) {
    return th_error("out of memory");
  }
  long long count = 0;
  for (long long i = 2; i < n; i++) {
    if (composite[i]) {
      continue;
    }
    count++;
    for (long long j = i * i; j < n; j += i) {
      composite[j] = 1;
    }
  }
  unsigned h = 2166136261u;
  for (long long r = 0; r < rounds; r++) {
    for (long long i = 0; i < n; i++) {
      h = (h ^ composite[i]) * 16777619u;
    }
  }
  free(composite);
  char out[64];
  snprintf(out, sizeof out, "%lld primes, hash %08x", count, h);
  return th_output_str(out);
}
