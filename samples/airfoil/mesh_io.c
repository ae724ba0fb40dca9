/* SPDX-License-Identifier: BSD-3-Clause */
#include "mesh_io.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static void set_err(char *err, size_t errlen, const char *fmt, ...) {
  if (err == NULL || errlen == 0) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

/* malloc(0) may return NULL, which would read as out of memory for empty sections. */
static void *alloc_array(size_t n, size_t size) {
  return malloc(n ? n * size : 1);
}

int airfoil_mesh_alloc(airfoil_mesh *m, int nnode, int ncell, int nedge, int nbedge) {
  memset(m, 0, sizeof *m);
  if (nnode < 0 || ncell < 0 || nedge < 0 || nbedge < 0) return -1;
  m->nnode = nnode;
  m->ncell = ncell;
  m->nedge = nedge;
  m->nbedge = nbedge;
  m->x = alloc_array(2 * (size_t)nnode, sizeof(double));
  m->cell = alloc_array(4 * (size_t)ncell, sizeof(int));
  m->edge = alloc_array(2 * (size_t)nedge, sizeof(int));
  m->ecell = alloc_array(2 * (size_t)nedge, sizeof(int));
  m->bedge = alloc_array(2 * (size_t)nbedge, sizeof(int));
  m->becell = alloc_array((size_t)nbedge, sizeof(int));
  m->bound = alloc_array((size_t)nbedge, sizeof(int));
  if (!m->x || !m->cell || !m->edge || !m->ecell || !m->bedge || !m->becell || !m->bound) {
    airfoil_mesh_free(m);
    return -1;
  }
  return 0;
}

void airfoil_mesh_free(airfoil_mesh *m) {
  free(m->x);
  free(m->cell);
  free(m->edge);
  free(m->ecell);
  free(m->bedge);
  free(m->becell);
  free(m->bound);
  memset(m, 0, sizeof *m);
}

/* ---- reading ---------------------------------------------------------------------------- */

/* zlib prefixes its messages with the path, which ours carry already. */
static const char *zlib_message(gzFile g, const char *path, int *zerr) {
  const char *msg = gzerror(g, zerr);
  size_t n = strlen(path);
  if (*zerr == Z_ERRNO) return strerror(errno);
  return strncmp(msg, path, n) == 0 && strncmp(msg + n, ": ", 2) == 0 ? msg + n + 2 : msg;
}

/* A record line is a few numbers: anything far longer is not a mesh. */
enum { MAX_LINE = 1024 };

/* Bytes a mesh file may hold: printable ASCII and white space. */
static int is_text(unsigned char c) {
  return (c >= 0x20 && c < 0x7f) || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* What the header (the first line, NUL-terminated) lets the rest of the file hold: one line of
 * at most MAX_LINE bytes per record. 0 when it is no header of four non-negative counts: the
 * parser then reports what is wrong with it, and nothing more needs reading. */
static long long bytes_allowed(const char *header) {
  long long counts[4];
  if (sscanf(header, "%lld %lld %lld %lld", &counts[0], &counts[1], &counts[2], &counts[3]) != 4)
    return 0;
  long long records = 1; /* a last line without its newline, blank lines at the end */
  for (int k = 0; k < 4; k++) {
    if (counts[k] < 0 || counts[k] > INT_MAX) return 0;
    records += counts[k];
  }
  return records * MAX_LINE;
}

/* Where a read stands: lines seen, and how much the file may hold once its header is read. */
typedef struct {
  int line;
  size_t line_start, header_end, limit; /* limit == header_end: a bad header, read no further */
} read_state;

/* is_text for n bytes at once, without a branch per byte: 0x09..0x0d and 0x20..0x7e. */
static int all_text(const char *p, size_t n) {
  unsigned bad = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)p[i];
    bad |= ((unsigned char)(c - 0x20) >= 0x5f) & ((unsigned char)(c - 0x09) >= 5);
  }
  return !bad;
}

/* Checks the bytes buf[from, to) as they arrive, so that input that is no mesh (binary data,
 * /dev/zero, a stream without end) stops the read early. */
static int check_bytes(const char *path, const char *buf, size_t from, size_t to, read_state *r,
                       char *err, size_t errlen) {
  /* The common case, text past the header: only line lengths to follow, a line at a time. At
   * anything else the byte-by-byte loop below takes over from the current line. */
  if (r->line > 1 && all_text(buf + from, to - from)) {
    for (;;) {
      const char *nl = memchr(buf + from, '\n', to - from);
      size_t end = nl ? (size_t)(nl - buf) : to;
      if (end - r->line_start > MAX_LINE) break;
      if (nl == NULL) return 0;
      r->line++;
      r->line_start = from = end + 1;
    }
  }
  for (size_t i = from; i < to; i++) {
    unsigned char c = (unsigned char)buf[i];
    if (!is_text(c)) {
      set_err(err, errlen, "%s:%d: byte 0x%02x is not text: this is not an Airfoil mesh file", path,
              r->line, c);
      return -1;
    }
    if (c != '\n') {
      if (i - r->line_start >= MAX_LINE) {
        set_err(err, errlen, "%s:%d: line longer than %d bytes: this is not an Airfoil mesh file",
                path, r->line, (int)MAX_LINE);
        return -1;
      }
      continue;
    }
    if (r->line == 1) {
      char header[MAX_LINE + 1];
      memcpy(header, buf, i);
      header[i] = '\0';
      r->header_end = i + 1;
      r->limit = r->header_end + (size_t)bytes_allowed(header);
    }
    r->line++;
    r->line_start = i + 1;
  }
  return 0;
}

/* Whole-file buffer, NUL-terminated so strtod cannot run past the end. */
static int slurp(const char *path, char **out, size_t *outlen, long *err_order, char *err,
                 size_t errlen) {
  errno = 0;
  gzFile g = gzopen(path, "rb");
  if (g == NULL) {
    set_err(err, errlen, "%s: cannot open: %s", path, errno ? strerror(errno) : "out of memory");
    return -1;
  }
  gzbuffer(g, 1 << 20);
  size_t cap = (size_t)1 << 24, len = 0;
  read_state r = {.line = 1, .limit = SIZE_MAX};
  int bad = 0;
  char *buf = malloc(cap + 1);
  for (int got = 1; buf != NULL && got > 0 && !bad && len <= r.limit;) {
    if (cap - len < ((size_t)1 << 20)) {
      char *bigger = realloc(buf, 2 * cap + 1);
      if (bigger == NULL) free(buf);
      buf = bigger;
      cap *= 2;
      continue;
    }
    got = gzread(g, buf + len, (unsigned)(cap - len < INT_MAX ? cap - len : INT_MAX));
    if (got <= 0) break;
    bad = check_bytes(path, buf, len, len + (size_t)got, &r, err, errlen);
    len += (size_t)got;
  }
  if (buf != NULL && !bad && len > r.limit) {
    if (r.limit > r.header_end) { /* more than the header's counts can fill */
      int line = 1;
      for (const char *q = buf; (q = memchr(q, '\n', (size_t)(buf + r.limit - q))) != NULL; q++)
        line++;
      set_err(err, errlen,
              "%s:%d: more data than the header's counts allow (%d bytes a line at most): this "
              "is not an Airfoil mesh file",
              path, line, (int)MAX_LINE);
      r.line = line;
      bad = 1;
    }
    len = r.limit; /* a bad header: the parser says what is wrong with it */
  }
  /* Checked even after a clean end of file: gzread reports a cut-off gzip stream only here. */
  int zerr = Z_OK;
  const char *msg = buf && !bad ? zlib_message(g, path, &zerr) : NULL;
  if (buf == NULL) {
    set_err(err, errlen, "%s: out of memory", path);
  } else if (bad) {
    free(buf);
    buf = NULL;
  } else if (zerr != Z_OK) {
    set_err(err, errlen, "%s:%d: read failed: %s", path, r.line, msg);
    free(buf);
    buf = NULL;
  }
  gzclose_r(g);
  if (buf == NULL) {
    *err_order = 2L * r.line; /* the line every message above names */
    return -1;
  }
  buf[len] = '\0';
  *out = buf;
  *outlen = len;
  return 0;
}

typedef struct {
  const char *path;
  const char *p, *end;
  int line;
  char *err;
  size_t errlen;
  long err_order; /* where the fault lies in reading order (airfoil_mesh_part.error_order) */
} scanner;

/* Records are named in messages as "<what> <idx>"; idx < 0 names a record without an index. */
static int fail(scanner *s, const char *what, long long idx, const char *fmt, ...) {
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  s->err_order = 2L * s->line;
  if (idx >= 0)
    set_err(s->err, s->errlen, "%s:%d: %s %lld: %s", s->path, s->line, what, idx, msg);
  else
    set_err(s->err, s->errlen, "%s:%d: %s: %s", s->path, s->line, what, msg);
  return -1;
}

static int is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static void skip_blanks(scanner *s) {
  while (s->p < s->end && is_blank(*s->p)) s->p++;
}

static int at_eol(const scanner *s) {
  return s->p == s->end || *s->p == '\n';
}

static int ends_field(const scanner *s, const char *q) {
  return q == s->end || *q == '\n' || is_blank(*q);
}

/* Length of the offending token, capped so messages stay one short line. */
static int token_len(const scanner *s) {
  int n = 0;
  while (s->p + n < s->end && !is_blank(s->p[n]) && s->p[n] != '\n' && s->p[n] != '\0' && n < 32)
    n++;
  return n;
}

/* Leaves s->p on the first field; fails when the line is missing or has too few fields. */
static int next_field(scanner *s, const char *what, long long idx, int k, int n) {
  skip_blanks(s);
  if (at_eol(s)) return fail(s, what, idx, "expected %d fields, found %d", n, k);
  return 0;
}

static int end_record(scanner *s, const char *what, long long idx, int n) {
  skip_blanks(s);
  return at_eol(s) ? 0 : fail(s, what, idx, "expected %d fields, found more", n);
}

/* Kept apart from end_record so that checks on a record's values still report its line. */
static void next_line(scanner *s) {
  if (s->p < s->end) {
    s->p++;
    s->line++;
  }
}

static int read_ints(scanner *s, const char *what, long long idx, int *out, int n) {
  for (int k = 0; k < n; k++) {
    if (next_field(s, what, idx, k, n)) return -1;
    const char *q = s->p;
    int neg = *q == '-';
    if (*q == '-' || *q == '+') q++;
    long long v = 0;
    const char *digits = q;
    while (q < s->end && *q >= '0' && *q <= '9' && v <= INT_MAX) v = 10 * v + (*q++ - '0');
    if (q == digits || !ends_field(s, q) || v > INT_MAX)
      return fail(s, what, idx, "field %d: '%.*s' is not an integer in int range", k + 1,
                  token_len(s), s->p);
    out[k] = neg ? -(int)v : (int)v;
    s->p = q;
  }
  return end_record(s, what, idx, n);
}

static int read_doubles(scanner *s, const char *what, long long idx, double *out, int n) {
  for (int k = 0; k < n; k++) {
    if (next_field(s, what, idx, k, n)) return -1;
    char *q;
    double v = strtod(s->p, &q);
    if (q == s->p || !ends_field(s, q))
      return fail(s, what, idx, "field %d: '%.*s' is not a number", k + 1, token_len(s), s->p);
    if (!isfinite(v))
      return fail(s, what, idx, "field %d: '%.*s' is not finite", k + 1, token_len(s), s->p);
    out[k] = v;
    s->p = q;
  }
  return end_record(s, what, idx, n);
}

static const char *const section_name[4] = {"node", "cell", "edge", "boundary edge"};

static int begin_record(scanner *s, int section, long long expected, long long found) {
  if (s->p < s->end) return 0;
  s->err_order = 2L * s->line + 1; /* after a fault in the line's own record */
  set_err(s->err, s->errlen, "%s:%d: unexpected end of file: expected %lld %s lines, found %lld",
          s->path, s->line, expected, section_name[section], found);
  return -1;
}

/* How many records the rest of the file could hold. A header may promise far more than that;
 * since every record takes a line, arrays sized by this cannot overrun before parsing fails at
 * the right line, and a bogus header cannot make us allocate gigabytes. */
static long long room_for(const scanner *s, const int counts[4]) {
  long long fields = 2LL * counts[0] + 4LL * ((long long)counts[1] + counts[2] + counts[3]);
  if (2 * fields - 1 <= s->end - s->p) return LLONG_MAX;
  long long lines = 0;
  for (const char *q = s->p; q < s->end; lines++) {
    const char *nl = memchr(q, '\n', (size_t)(s->end - q));
    q = nl ? nl + 1 : s->end;
  }
  return lines;
}

static int at_most(int n, long long room) {
  return n < room ? n : (int)room;
}

static int check_index(scanner *s, const char *what, long long idx, const char *kind, int v,
                       int n) {
  if (v < 0 || v >= n) return fail(s, what, idx, "%s index %d out of range [0, %d)", kind, v, n);
  return 0;
}

/* Record i of a section of n belongs to part p of np when it lies in [n*p/np, n*(p+1)/np). */
static int part_begin(int n, int part, int nparts) {
  return (int)((long long)n * part / nparts);
}

/* A record of another part: its line is passed over unread, as the parser would leave it. */
static void skip_line(scanner *s) {
  const char *nl = memchr(s->p, '\n', (size_t)(s->end - s->p));
  if (nl == NULL) {
    s->p = s->end;
    return;
  }
  s->p = nl + 1;
  s->line++;
}

/* Records [lo, hi) of each section are this part's; every other record's line is skipped. */
typedef struct {
  int lo[4], hi[4];
} part_range;

/* Before record i of a section of n: -1 when the file has ended (err set), 0 when the record is
 * another part's (its line skipped), 1 when it is this part's to read. */
static int next_record(scanner *s, const part_range *r, int section, int n, int i) {
  if (begin_record(s, section, n, i)) return -1;
  if (i >= r->lo[section] && i < r->hi[section]) return 1;
  skip_line(s);
  return 0;
}

static int parse(scanner *s, airfoil_mesh_part *part, int which, int nparts) {
  static const char *const count_name[4] = {"nnode", "ncell", "nedge", "nbedge"};
  int counts[4];
  if (s->p == s->end)
    return fail(s, "header", -1, "unexpected end of file: expected 'nnode ncell nedge nbedge'");
  if (read_ints(s, "header", -1, counts, 4)) return -1;
  for (int k = 0; k < 4; k++)
    if (counts[k] < 0)
      return fail(s, "header", -1, "%s = %d is negative", count_name[k], counts[k]);
  next_line(s);
  part_range r;
  for (int k = 0; k < 4; k++) {
    r.lo[k] = part_begin(counts[k], which, nparts);
    r.hi[k] = part_begin(counts[k], which + 1, nparts);
  }
  long long room = room_for(s, counts);
  airfoil_mesh *m = &part->local;
  if (airfoil_mesh_alloc(m, at_most(r.hi[0] - r.lo[0], room), at_most(r.hi[1] - r.lo[1], room),
                         at_most(r.hi[2] - r.lo[2], room), at_most(r.hi[3] - r.lo[3], room)))
    return fail(s, "header", -1, "out of memory for the mesh");
  int nnode = counts[0], ncell = counts[1], nedge = counts[2], nbedge = counts[3];
  part->nnode = nnode, part->ncell = ncell, part->nedge = nedge, part->nbedge = nbedge;
  part->first_node = r.lo[0], part->first_cell = r.lo[1];
  part->first_edge = r.lo[2], part->first_bedge = r.lo[3];
  m->nnode = r.hi[0] - r.lo[0];
  m->ncell = r.hi[1] - r.lo[1];
  m->nedge = r.hi[2] - r.lo[2];
  m->nbedge = r.hi[3] - r.lo[3];

  for (int i = 0; i < nnode; i++) {
    int read = next_record(s, &r, 0, nnode, i);
    if (read < 0) return -1;
    if (read == 0) continue;
    if (read_doubles(s, "node", i, m->x + 2 * (i - r.lo[0]), 2)) return -1;
    next_line(s);
  }

  for (int i = 0; i < ncell; i++) {
    int read = next_record(s, &r, 1, ncell, i);
    if (read < 0) return -1;
    if (read == 0) continue;
    int *c = m->cell + 4 * (i - r.lo[1]);
    if (read_ints(s, "cell", i, c, 4)) return -1;
    for (int k = 0; k < 4; k++)
      if (check_index(s, "cell", i, "node", c[k], nnode)) return -1;
    next_line(s);
  }

  for (int i = 0; i < nedge; i++) {
    int f[4];
    int read = next_record(s, &r, 2, nedge, i);
    if (read < 0) return -1;
    if (read == 0) continue;
    if (read_ints(s, "edge", i, f, 4)) return -1;
    if (check_index(s, "edge", i, "node", f[0], nnode) ||
        check_index(s, "edge", i, "node", f[1], nnode) ||
        check_index(s, "edge", i, "cell", f[2], ncell) ||
        check_index(s, "edge", i, "cell", f[3], ncell))
      return -1;
    next_line(s);
    memcpy(m->edge + 2 * (i - r.lo[2]), f, 2 * sizeof(int));
    memcpy(m->ecell + 2 * (i - r.lo[2]), f + 2, 2 * sizeof(int));
  }

  for (int i = 0; i < nbedge; i++) {
    int f[4];
    int read = next_record(s, &r, 3, nbedge, i);
    if (read < 0) return -1;
    if (read == 0) continue;
    if (read_ints(s, "boundary edge", i, f, 4)) return -1;
    if (check_index(s, "boundary edge", i, "node", f[0], nnode) ||
        check_index(s, "boundary edge", i, "node", f[1], nnode) ||
        check_index(s, "boundary edge", i, "cell", f[2], ncell))
      return -1;
    if (f[3] != AIRFOIL_BOUND_WALL && f[3] != AIRFOIL_BOUND_FARFIELD)
      return fail(s, "boundary edge", i, "bound %d is neither 1 (wall) nor 2 (far field)", f[3]);
    next_line(s);
    int j = i - r.lo[3];
    memcpy(m->bedge + 2 * j, f, 2 * sizeof(int));
    m->becell[j] = f[2];
    m->bound[j] = f[3];
  }

  for (; s->p < s->end; s->p++) {
    if (*s->p == '\n')
      s->line++;
    else if (!is_blank(*s->p))
      return fail(s, "end of file", -1, "unexpected data '%.*s' after the last boundary edge",
                  token_len(s), s->p);
  }
  return 0;
}

int airfoil_mesh_read_part(const char *path, int which, int nparts, airfoil_mesh_part *part,
                           char *err, size_t errlen) {
  memset(part, 0, sizeof *part);
  if (nparts < 1 || which < 0 || which >= nparts) {
    set_err(err, errlen, "%s: part %d of %d does not exist", path, which, nparts);
    return -1;
  }
  char *buf;
  size_t len;
  if (slurp(path, &buf, &len, &part->error_order, err, errlen)) return -1;
  scanner s = {path, buf, buf + len, 1, err, errlen, 0};
  int rc = parse(&s, part, which, nparts);
  free(buf);
  if (rc) {
    airfoil_mesh_free(&part->local);
    part->error_order = s.err_order;
  }
  return rc;
}

int airfoil_mesh_read(const char *path, airfoil_mesh *m, char *err, size_t errlen) {
  airfoil_mesh_part whole;
  int rc = airfoil_mesh_read_part(path, 0, 1, &whole, err, errlen);
  *m = whole.local;
  return rc;
}

/* ---- writing ---------------------------------------------------------------------------- */

enum { OUT_CAP = 1 << 20, OUT_LINE_MAX = 128 };

typedef struct {
  gzFile g;
  char *buf;
  size_t n;
  int failed;
} out_buf;

static void out_flush(out_buf *o) {
  if (o->n && !o->failed && gzwrite(o->g, o->buf, (unsigned)o->n) != (int)o->n) o->failed = 1;
  o->n = 0;
}

/* printf's %d is a noticeable share of writing a multi-million-line mesh. */
static void put_int(out_buf *o, int v, char sep) {
  char tmp[16];
  int k = 0;
  unsigned u = v < 0 ? 0u - (unsigned)v : (unsigned)v;
  do tmp[k++] = (char)('0' + u % 10);
  while (u /= 10);
  if (v < 0) o->buf[o->n++] = '-';
  while (k) o->buf[o->n++] = tmp[--k];
  o->buf[o->n++] = sep;
}

static void put_double(out_buf *o, double v, char sep) {
  o->n += (size_t)snprintf(o->buf + o->n, 40, "%.17g", v);
  o->buf[o->n++] = sep;
}

static void put_ints(out_buf *o, const int *v, int n) {
  if (OUT_CAP - o->n < OUT_LINE_MAX) out_flush(o);
  for (int k = 0; k < n; k++) put_int(o, v[k], k + 1 < n ? ' ' : '\n');
}

static void write_records(out_buf *o, const airfoil_mesh *m) {
  int header[4] = {m->nnode, m->ncell, m->nedge, m->nbedge};
  put_ints(o, header, 4);
  for (int i = 0; i < m->nnode; i++) {
    if (OUT_CAP - o->n < OUT_LINE_MAX) out_flush(o);
    put_double(o, m->x[2 * i], ' ');
    put_double(o, m->x[2 * i + 1], '\n');
  }
  for (int i = 0; i < m->ncell; i++) put_ints(o, m->cell + 4 * i, 4);
  for (int i = 0; i < m->nedge; i++) {
    int f[4] = {m->edge[2 * i], m->edge[2 * i + 1], m->ecell[2 * i], m->ecell[2 * i + 1]};
    put_ints(o, f, 4);
  }
  for (int i = 0; i < m->nbedge; i++) {
    int f[4] = {m->bedge[2 * i], m->bedge[2 * i + 1], m->becell[i], m->bound[i]};
    put_ints(o, f, 4);
  }
  out_flush(o);
}

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), k = strlen(suffix);
  return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Streams the mesh into fd (which stays open) through zlib; 'T' writes it uncompressed. */
static int write_fd(int fd, const char *path, const airfoil_mesh *m, char *err, size_t errlen) {
  int gfd = dup(fd);
  gzFile g = gfd < 0 ? NULL : gzdopen(gfd, ends_with(path, ".gz") ? "wb6" : "wbT");
  out_buf o = {g, malloc(OUT_CAP), 0, 0};
  if (g == NULL || o.buf == NULL) {
    set_err(err, errlen, "%s: cannot start writing: %s", path, strerror(errno ? errno : ENOMEM));
    if (g)
      gzclose_w(g);
    else if (gfd >= 0)
      close(gfd);
    free(o.buf);
    return -1;
  }
  write_records(&o, m);
  free(o.buf);
  int zerr;
  const char *msg = gzerror(g, &zerr);
  if (o.failed) {
    set_err(err, errlen, "%s: write failed: %s", path, zerr == Z_ERRNO ? strerror(errno) : msg);
    gzclose_w(g);
    return -1;
  }
  errno = 0;
  if (gzclose_w(g) != Z_OK) {
    set_err(err, errlen, "%s: write failed: %s", path, errno ? strerror(errno) : "zlib error");
    return -1;
  }
  return 0;
}

int airfoil_mesh_write(const char *path, const airfoil_mesh *m, char *err, size_t errlen) {
  if (m->nnode < 0 || m->ncell < 0 || m->nedge < 0 || m->nbedge < 0) {
    set_err(err, errlen, "%s: refusing to write a mesh with negative counts", path);
    return -1;
  }
  size_t plen = strlen(path);
  char *tmp = malloc(plen + sizeof ".tmp-XXXXXX");
  if (tmp == NULL) {
    set_err(err, errlen, "%s: out of memory", path);
    return -1;
  }
  memcpy(tmp, path, plen);
  memcpy(tmp + plen, ".tmp-XXXXXX", sizeof ".tmp-XXXXXX");
  int fd = mkstemp(tmp);
  if (fd < 0) {
    set_err(err, errlen, "%s: cannot create temporary file: %s", path, strerror(errno));
    free(tmp);
    return -1;
  }
  /* mkstemp creates the file 0600; give the result the permissions a plain fopen would. */
  mode_t mask = umask(0);
  umask(mask);
  int rc = fchmod(fd, 0666 & ~mask) == 0 ? 0 : -1;
  if (rc) set_err(err, errlen, "%s: cannot set permissions: %s", tmp, strerror(errno));
  if (!rc) rc = write_fd(fd, path, m, err, errlen);
  /* Without the fsync a crash soon after the rename could leave an empty file under path. */
  if (!rc && fsync(fd) != 0) {
    set_err(err, errlen, "%s: fsync failed: %s", tmp, strerror(errno));
    rc = -1;
  }
  if (close(fd) != 0 && !rc) {
    set_err(err, errlen, "%s: close failed: %s", tmp, strerror(errno));
    rc = -1;
  }
  if (!rc && rename(tmp, path) != 0) {
    set_err(err, errlen, "%s: cannot rename %s into place: %s", path, tmp, strerror(errno));
    rc = -1;
  }
  if (rc) unlink(tmp);
  free(tmp);
  return rc;
}
