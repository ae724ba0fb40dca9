/* SPDX-License-Identifier: BSD-3-Clause */
/* The XDMF description written next to a dump: well-formed XML (checked by xmllint when found,
 * and by the small parser below), the right topology, geometry and attributes, and every
 * DataItem naming a dataset of the .h5 file with exactly the dimensions it states.
 * Usage: t503-xdmf quad|tri|none [XMLLINT]
 *   quad: quadrilaterals with 2-D "coords" (a decoy quad map onto badly named coordinates is
 *         declared first: the coordinate name decides); tri: triangles with 3-D "p_x";
 *   none: no map of arity 3 or 4: no description, and a diagnostic says why. */
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include "h5_test.h"

extern char **environ;

/* ---- a minimal XML reader: elements with attributes and text, nesting checked ---- */

enum { MAX_ELEMS = 128, MAX_ATTRS = 8 };
typedef struct elem {
  char name[32];
  int parent, nattrs;
  char attr_name[MAX_ATTRS][32], attr_value[MAX_ATTRS][256];
  char text[512];
} elem;
static elem elems[MAX_ELEMS];
static int nelems;

/* Decodes the five predefined entities; any other '&' is malformed. */
static void decode(const char *s, size_t n, char *out, size_t len) {
  size_t o = 0;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (c == '&') {
      static const struct {
        const char *ent;
        char c;
      } ents[] = {{"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
      size_t k = 0;
      while (k < 5 && strncmp(s + i, ents[k].ent, strlen(ents[k].ent)) != 0) k++;
      CHECK(k < 5);
      c = ents[k].c;
      i += strlen(ents[k].ent) - 1;
    } else {
      CHECK(c != '<');
    }
    CHECK(o + 1 < len);
    out[o++] = c;
  }
  out[o] = '\0';
}

static int is_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == ':' || c == '-' || c == '.';
}

static void parse_xml(const char *s) {
  int stack[32], depth = 0, roots = 0;
  nelems = 0;
  CHECK(strncmp(s, "<?xml ", 6) == 0);
  const char *p = s;
  while (*p) {
    if (*p != '<') { /* text: only inside an element, and whitespace outside DataItems */
      const char *end = strchr(p, '<');
      if (!end) end = p + strlen(p);
      int blank = 1;
      for (const char *q = p; q < end; q++) blank &= *q == ' ' || *q == '\n' || *q == '\t';
      if (!blank) {
        CHECK(depth > 0);
        decode(p, (size_t)(end - p), elems[stack[depth - 1]].text, 512);
      }
      p = end;
    } else if (p[1] == '?' || p[1] == '!') { /* declaration, doctype: before the root only */
      CHECK(depth == 0 && roots == 0);
      const char *end = strstr(p, p[1] == '?' ? "?>" : "]>");
      CHECK(end != NULL);
      p = end + 2;
    } else if (p[1] == '/') {
      CHECK(depth > 0);
      const char *name = elems[stack[depth - 1]].name;
      size_t n = strlen(name);
      CHECK(strncmp(p + 2, name, n) == 0 && p[2 + n] == '>');
      depth--;
      p += 3 + n;
    } else {
      CHECK(nelems < MAX_ELEMS && depth < 32);
      elem *e = &elems[nelems];
      memset(e, 0, sizeof *e);
      e->parent = depth ? stack[depth - 1] : -1;
      if (!depth) roots++;
      p++;
      size_t n = 0;
      while (is_name_char(p[n])) n++;
      CHECK(n > 0 && n < sizeof e->name);
      memcpy(e->name, p, n);
      p += n;
      for (;;) {
        while (*p == ' ' || *p == '\n') p++;
        if (*p == '>' || (p[0] == '/' && p[1] == '>')) break;
        CHECK(e->nattrs < MAX_ATTRS);
        n = 0;
        while (is_name_char(p[n])) n++;
        CHECK(n > 0 && n < 32 && p[n] == '=' && p[n + 1] == '"');
        memcpy(e->attr_name[e->nattrs], p, n);
        const char *v = p + n + 2, *end = strchr(v, '"');
        CHECK(end != NULL);
        for (int a = 0; a < e->nattrs; a++) CHECK(strcmp(e->attr_name[a], e->attr_name[e->nattrs]));
        decode(v, (size_t)(end - v), e->attr_value[e->nattrs++], 256);
        p = end + 1;
      }
      int self_closing = *p == '/';
      p += self_closing ? 2 : 1;
      if (!self_closing) stack[depth++] = nelems;
      nelems++;
    }
  }
  CHECK(depth == 0 && roots == 1);
}

static const char *attr(int e, const char *name) {
  for (int a = 0; a < elems[e].nattrs; a++)
    if (strcmp(elems[e].attr_name[a], name) == 0) return elems[e].attr_value[a];
  return "";
}

/* The only child of e named `name` (exactly one must exist). */
static int child(int e, const char *name) {
  int found = -1;
  for (int i = 0; i < nelems; i++)
    if (elems[i].parent == e && strcmp(elems[i].name, name) == 0) {
      CHECK(found < 0);
      found = i;
    }
  CHECK(found >= 0);
  return found;
}

/* A DataItem: its attributes as stated, and the dataset it names has those dimensions. */
static void check_item(int item, hid_t h5, const char *h5_name, const char *dataset, long rows,
                       int cols, const char *number_type, int precision) {
  char want[256], dims[64];
  snprintf(want, sizeof want, "%s:/%s", h5_name, dataset);
  if (strcmp(elems[item].text, want) != 0) {
    fprintf(stderr, "DataItem names '%s', expected '%s'\n", elems[item].text, want);
    exit(1);
  }
  snprintf(dims, sizeof dims, "%ld %d", rows, cols);
  CHECK(strcmp(attr(item, "Dimensions"), dims) == 0);
  CHECK(strcmp(attr(item, "NumberType"), number_type) == 0);
  CHECK_EQ_INT(atoi(attr(item, "Precision")), precision);
  CHECK(strcmp(attr(item, "Format"), "HDF") == 0);
  hsize_t d[2];
  CHECK_EQ_INT(h5t_shape(h5, dataset, d), 2);
  CHECK_EQ_INT(d[0], rows);
  CHECK_EQ_INT(d[1], cols);
}

typedef struct want_attr {
  const char *name, *type, *center;
  long rows;
  int cols;
  const char *number_type;
  int precision;
} want_attr;

/* ---- the meshes ---- */

enum { NX = 3, NY = 2, NNODE = (NX + 1) * (NY + 1), NQUAD = NX * NY };

static void declare_block_dat(op_set set, long global, int dim, const char *type, size_t elem,
                              const void *table, const char *name) {
  long first, count;
  h5t_block(global, &first, &count);
  CHECK(op_decl_dat(set, dim, type, (const char *)table + (size_t)first * elem, name) != NULL);
}

static op_map declare_block_map(op_set from, op_set to, long global, int dim, const int *table,
                                const char *name) {
  long first, count;
  h5t_block(global, &first, &count);
  op_map m = op_decl_map(from, to, dim, table + first * dim, name);
  CHECK(m != NULL);
  return m;
}

static op_set declare_block_set(long global, const char *name) {
  long first, count;
  h5t_block(global, &first, &count);
  op_set s = op_decl_set((int)count, name);
  CHECK(s != NULL);
  return s;
}

int main(int argc, char **argv) {
  CHECK(argc >= 2);
  const char *mode = argv[1];
  const char *xmllint = argc > 2 ? argv[2] : "";
  int quad = strcmp(mode, "quad") == 0, tri = strcmp(mode, "tri") == 0;
  CHECK(quad || tri || strcmp(mode, "none") == 0);
  op_init(argc, argv, 1);
  test_catch_errors();
  char dir[512], h5[600], xdmf[700];
  h5t_scratch(dir, sizeof dir, "h5-xdmf");
  snprintf(h5, sizeof h5, "%s/mesh.h5", dir);
  snprintf(xdmf, sizeof xdmf, "%s.xdmf", h5);

  double xy[NNODE * 3], temp[NNODE];
  float vel[NNODE * 2];
  for (int j = 0, n = 0; j <= NY; j++)
    for (int i = 0; i <= NX; i++, n++) {
      xy[3 * n] = i, xy[3 * n + 1] = j, xy[3 * n + 2] = 0.5 * i * j;
      temp[n] = 300 + n;
      vel[2 * n] = (float)i, vel[2 * n + 1] = (float)-j;
    }
  int quads[NQUAD * 4], tris[NQUAD * 6], edges[NQUAD * 2];
  for (int j = 0, c = 0; j < NY; j++)
    for (int i = 0; i < NX; i++, c++) {
      int n0 = j * (NX + 1) + i, n1 = n0 + 1, n2 = n1 + NX + 1, n3 = n0 + NX + 1;
      int q[4] = {n0, n1, n2, n3}, t[6] = {n0, n1, n2, n0, n2, n3};
      memcpy(quads + 4 * c, q, sizeof q);
      memcpy(tris + 6 * c, t, sizeof t);
      edges[2 * c] = n0, edges[2 * c + 1] = n1;
    }
  int ncell = tri ? 2 * NQUAD : NQUAD;
  double q4[2 * NQUAD * 4], u2[2 * NQUAD * 2], rho[2 * NQUAD];
  int flag[2 * NQUAD];
  for (int c = 0; c < 2 * NQUAD; c++) {
    for (int k = 0; k < 4; k++) q4[4 * c + k] = c + 0.25 * k;
    u2[2 * c] = c, u2[2 * c + 1] = -c;
    rho[c] = 1.0 / (c + 1);
    flag[c] = c % 3;
  }

  if (quad) { /* declared first: a quad map onto badly named coordinates */
    op_set other = declare_block_set(NNODE, "other");
    op_set decoy = declare_block_set(NQUAD, "decoy");
    declare_block_map(decoy, other, NQUAD, 4, quads, "decoy_map");
    declare_block_dat(other, NNODE, 2, "double", 3 * sizeof(double), xy, "zz");
  }
  op_set nodes = declare_block_set(NNODE, "nodes");
  op_set cells = declare_block_set(ncell, "cells");
  op_set edge_set = declare_block_set(NQUAD, "edges");
  declare_block_map(edge_set, nodes, NQUAD, 2, edges, "edge_nodes");
  if (quad) {
    declare_block_map(cells, nodes, NQUAD, 4, quads, "cells2nodes");
    /* 2-D coordinates out of the 3-D table: one row at a time through a scratch copy. */
    double xy2[NNODE * 2];
    for (int n = 0; n < NNODE; n++) xy2[2 * n] = xy[3 * n], xy2[2 * n + 1] = xy[3 * n + 1];
    declare_block_dat(nodes, NNODE, 2, "double", 2 * sizeof(double), xy2, "coords");
  } else if (tri) {
    declare_block_map(cells, nodes, 2 * NQUAD, 3, tris, "tri");
    declare_block_dat(nodes, NNODE, 3, "double", 3 * sizeof(double), xy, "p_x");
  }
  declare_block_dat(nodes, NNODE, 1, "double", sizeof(double), temp, "temp");
  declare_block_dat(nodes, NNODE, 2, "float", 2 * sizeof(float), vel, "vel");
  declare_block_dat(cells, ncell, 4, "double", 4 * sizeof(double), q4, "q");
  declare_block_dat(cells, ncell, 2, "double", 2 * sizeof(double), u2, "grp/u");
  declare_block_dat(cells, ncell, 1, "double", sizeof(double), rho, "rho&<u>");
  declare_block_dat(cells, ncell, 1, "int", sizeof(int), flag, "flag");

  /* Diagnostics (level 1) go to stderr: capture them. */
  char log[700];
  snprintf(log, sizeof log, "%s/stderr.%d", dir, h5t_rank());
  fflush(stderr);
  int saved = dup(2), fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  CHECK(saved >= 0 && fd >= 0 && dup2(fd, 2) == 2);
  close(fd);
  op_dump_to_hdf5(h5);
  fflush(stderr);
  CHECK(dup2(saved, 2) == 2);
  close(saved);
  h5t_barrier();

  if (h5t_rank() == 0) {
    char *diag = h5t_read_text(log);
    CHECK(diag != NULL);
    if (!quad && !tri) {
      CHECK(!h5t_exists(xdmf));
      CHECK_CONTAINS(diag, "no XDMF description: no map of arity 3 or 4");
    } else {
      CHECK(strstr(diag, "no XDMF") == NULL);
      if (xmllint[0]) {
        pid_t pid;
        char *args[] = {(char *)xmllint, "--noout", xdmf, NULL};
        CHECK(posix_spawn(&pid, xmllint, NULL, NULL, args, environ) == 0);
        int status;
        CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status));
        CHECK_EQ_INT(WEXITSTATUS(status), 0);
      }
      char *text = h5t_read_text(xdmf);
      CHECK(text != NULL);
      parse_xml(text);
      free(text);
      hid_t f = h5t_open(h5);
      CHECK(strcmp(elems[0].name, "Xdmf") == 0 && strcmp(attr(0, "Version"), "3.0") == 0);
      int grid = child(child(0, "Domain"), "Grid");
      CHECK(strcmp(attr(grid, "GridType"), "Uniform") == 0);
      CHECK(strcmp(attr(grid, "Name"), "cells") == 0);
      int topo = child(grid, "Topology");
      CHECK(strcmp(attr(topo, "TopologyType"), quad ? "Quadrilateral" : "Triangle") == 0);
      CHECK_EQ_INT(atoi(attr(topo, "NumberOfElements")), ncell);
      check_item(child(topo, "DataItem"), f, "mesh.h5", quad ? "cells2nodes" : "tri", ncell,
                 quad ? 4 : 3, "Int", 4);
      int geom = child(grid, "Geometry");
      CHECK(strcmp(attr(geom, "GeometryType"), quad ? "XY" : "XYZ") == 0);
      check_item(child(geom, "DataItem"), f, "mesh.h5", quad ? "coords" : "p_x", NNODE,
                 quad ? 2 : 3, "Float", 8);
      const want_attr want[] = {
          {"q", "Matrix", "Cell", ncell, 4, "Float", 8},
          {"grp/u", "Vector", "Cell", ncell, 2, "Float", 8},
          {"rho&<u>", "Scalar", "Cell", ncell, 1, "Float", 8},
          {"flag", "Scalar", "Cell", ncell, 1, "Int", 4},
          {"temp", "Scalar", "Node", NNODE, 1, "Float", 8},
          {"vel", "Vector", "Node", NNODE, 2, "Float", 4},
      };
      int nwant = (int)(sizeof want / sizeof want[0]), seen = 0;
      for (int i = 0; i < nelems; i++) {
        if (elems[i].parent != grid || strcmp(elems[i].name, "Attribute") != 0) continue;
        int w = 0;
        while (w < nwant && strcmp(want[w].name, attr(i, "Name")) != 0) w++;
        if (w == nwant) {
          fprintf(stderr, "unexpected attribute '%s'\n", attr(i, "Name"));
          exit(1);
        }
        CHECK(strcmp(attr(i, "AttributeType"), want[w].type) == 0);
        CHECK(strcmp(attr(i, "Center"), want[w].center) == 0);
        check_item(child(i, "DataItem"), f, "mesh.h5", want[w].name, want[w].rows, want[w].cols,
                   want[w].number_type, want[w].precision);
        seen++;
      }
      CHECK_EQ_INT(seen, nwant);
      H5Fclose(f);
    }
    free(diag);
  }
  h5t_remove_tree(dir);
  op_exit();
  return 0;
}
