/* SPDX-License-Identifier: BSD-3-Clause */
/* The manifest of a cache entry: what was compiled, how, and the hashes that prove the files on
 * disk are the ones that were written. JSON through cJSON so people and tools can read it. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#define XXH_STATIC_LINKING_ONLY /* for the streaming state on the stack */
#include <xxhash.h>

#include "cache_entry.h"

void op2_hash_hex64(const void *data, size_t len, char out[17]) {
  snprintf(out, 17, "%016llx", (unsigned long long)XXH3_64bits(data, len));
}

char *op2_manifest_format(const op2_manifest *m) {
  cJSON *j = cJSON_CreateObject();
  if (!j) return NULL;
  cJSON_AddNumberToObject(j, "op2jit_manifest", 1);
  cJSON_AddStringToObject(j, "loop", m->loop);
  cJSON_AddStringToObject(j, "key", m->key);
  cJSON_AddStringToObject(j, "target", m->target);
  cJSON_AddStringToObject(j, "compiler", m->compiler);
  cJSON_AddStringToObject(j, "flags", m->flags);
  cJSON *sig = cJSON_AddArrayToObject(j, "signature");
  for (const char *p = m->signature; sig && p && *p;) {
    const char *e = strchr(p, '\n');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    char *line = strndup(p, len);
    if (line) cJSON_AddItemToArray(sig, cJSON_CreateString(line));
    free(line);
    p += len + (e != NULL);
  }
  cJSON_AddStringToObject(j, "source_file", m->source_file);
  cJSON_AddNumberToObject(j, "source_bytes", (double)m->source_bytes);
  cJSON_AddStringToObject(j, "source_xxh3", m->source_xxh3);
  cJSON_AddStringToObject(j, "binary_file", m->binary_file);
  cJSON_AddNumberToObject(j, "binary_bytes", (double)m->binary_bytes);
  cJSON_AddStringToObject(j, "binary_xxh3", m->binary_xxh3);
  cJSON_AddStringToObject(j, "created", m->created);
  cJSON_AddNumberToObject(j, "compile_ms", m->compile_ms);
  if (m->resources[0]) cJSON_AddStringToObject(j, "resources", m->resources);
  char *text = cJSON_Print(j);
  cJSON_Delete(j);
  if (!text) return NULL;
  size_t len = strlen(text);
  char *out = realloc(text, len + 2);
  if (!out) return free(text), NULL;
  out[len] = '\n', out[len + 1] = '\0';
  return out;
}

static int get_string(const cJSON *j, const char *key, char *out, size_t len) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
  if (!cJSON_IsString(v) || strlen(v->valuestring) >= len) return -1;
  memcpy(out, v->valuestring, strlen(v->valuestring) + 1);
  return 0;
}

static int get_number(const cJSON *j, const char *key, double *out) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
  if (!cJSON_IsNumber(v)) return -1;
  *out = v->valuedouble;
  return 0;
}

int op2_manifest_parse(const char *text, size_t len, op2_manifest *m, char *err, size_t errlen) {
  memset(m, 0, sizeof *m);
  cJSON *j = cJSON_ParseWithLength(text, len);
  if (!j) return snprintf(err, errlen, "not JSON"), -1;
  double version = 0, sbytes = -1, bbytes = -1;
  int bad = get_number(j, "op2jit_manifest", &version) || version != 1 ||
            get_string(j, "loop", m->loop, sizeof m->loop) ||
            get_string(j, "key", m->key, sizeof m->key) ||
            get_string(j, "target", m->target, sizeof m->target) ||
            get_string(j, "compiler", m->compiler, sizeof m->compiler) ||
            get_string(j, "flags", m->flags, sizeof m->flags) ||
            get_string(j, "source_file", m->source_file, sizeof m->source_file) ||
            get_number(j, "source_bytes", &sbytes) ||
            get_string(j, "source_xxh3", m->source_xxh3, sizeof m->source_xxh3) ||
            get_string(j, "binary_file", m->binary_file, sizeof m->binary_file) ||
            get_number(j, "binary_bytes", &bbytes) ||
            get_string(j, "binary_xxh3", m->binary_xxh3, sizeof m->binary_xxh3) ||
            get_string(j, "created", m->created, sizeof m->created) ||
            get_number(j, "compile_ms", &m->compile_ms);
  if (cJSON_GetObjectItemCaseSensitive(j, "resources")) /* optional: absent without ptxas */
    bad |= get_string(j, "resources", m->resources, sizeof m->resources);
  cJSON_Delete(j);
  m->source_bytes = (long long)sbytes;
  m->binary_bytes = (long long)bbytes;
  if (bad) return snprintf(err, errlen, "a field is missing or wrong"), -1;
  return 0;
}

void op2_utc_now(char *out, size_t len) {
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(out, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int op2_manifest_read(const char *path, op2_manifest *m, char *err, size_t errlen) {
  char *text;
  size_t len;
  memset(m, 0, sizeof *m);
  if (op2_read_file(path, &text, &len) != 0)
    return snprintf(err, errlen, "cannot read %s", path), -1;
  int rc = op2_manifest_parse(text, len, m, err, errlen);
  free(text);
  return rc;
}
