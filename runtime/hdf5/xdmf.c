/* SPDX-License-Identifier: BSD-3-Clause */
/* An XDMF 3 description of a dumped mesh, so that ParaView and VisIt open the HDF5 file: one
 * uniform grid whose cells come from a map of arity 3 (triangles) or 4 (quadrilaterals) into a
 * set with 2-D or 3-D double coordinates; dats on the cells and on the nodes become attributes.
 * The description names the HDF5 file relative to itself (they sit side by side). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "runtime/hdf5/hdf5_impl.h"
#include "runtime/output_file.h"
#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/mesh.h"

static const char *base_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

/* How much a dat looks like node coordinates: -1 not at all (wrong type or dim), 2 for the
 * usual names, 1 for a usual suffix, 0 otherwise. */
static int geometry_score(op_dat d) {
  if (d->type != OP2_TYPE_DOUBLE || (d->dim != 2 && d->dim != 3)) return -1;
  const char *name = base_name(d->name);
  static const char *exact[] = {"x",   "p_x",      "coords",  "coord", "coordinates",
                                "xyz", "p_coords", "p_coord", "p_xyz", "node_coords"};
  for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
    if (strcmp(name, exact[i]) == 0) return 2;
  static const char *suffix[] = {"_x", "_coords", "_coord", "_xyz"};
  size_t n = strlen(name);
  for (size_t i = 0; i < sizeof suffix / sizeof suffix[0]; i++) {
    size_t m = strlen(suffix[i]);
    if (n > m && strcmp(name + n - m, suffix[i]) == 0) return 1;
  }
  return 0;
}

/* The topology map and its geometry: the best-named coordinates win, then declaration order. */
static void choose(op_map *topology, op_dat *geometry) {
  op2_context *ctx = op2_ctx();
  int best = -1;
  *topology = NULL;
  *geometry = NULL;
  for (int m = 0; m < ctx->maps.count; m++) {
    op_map map = ctx->maps.items[m];
    if ((map->dim != 3 && map->dim != 4) || map->from == map->to) continue;
    for (int d = 0; d < ctx->dats.count; d++) {
      op_dat dat = ctx->dats.items[d];
      int score = dat->set == map->to ? geometry_score(dat) : -1;
      if (score > best) {
        best = score;
        *topology = map;
        *geometry = dat;
      }
    }
  }
}

static void put_escaped(FILE *f, const char *s) {
  for (; *s; s++) {
    switch (*s) {
      case '&':
        fputs("&amp;", f);
        break;
      case '<':
        fputs("&lt;", f);
        break;
      case '>':
        fputs("&gt;", f);
        break;
      case '"':
        fputs("&quot;", f);
        break;
      case '\'':
        fputs("&apos;", f);
        break;
      default:
        fputc(*s, f);
        break;
    }
  }
}

static void put_data_item(FILE *f, const char *indent, const char *h5_name, const char *dataset,
                          long rows, int cols, op2_type type) {
  int is_float = type == OP2_TYPE_DOUBLE || type == OP2_TYPE_FLOAT;
  fprintf(f,
          "%s<DataItem Dimensions=\"%ld %d\" NumberType=\"%s\" Precision=\"%zu\" "
          "Format=\"HDF\">",
          indent, rows, cols, is_float ? "Float" : "Int", op2_type_size(type));
  put_escaped(f, h5_name);
  fputs(":", f);
  if (dataset[0] != '/') fputc('/', f);
  put_escaped(f, dataset);
  fputs("</DataItem>\n", f);
}

/* Scalar and vector attributes as such; other widths as a Matrix (one row per element), which
 * ParaView shows as a multi-component array. */
static void put_attribute(FILE *f, const char *h5_name, op_dat dat, const char *center) {
  const char *kind = dat->dim == 1 ? "Scalar" : dat->dim <= 3 ? "Vector" : "Matrix";
  fputs("      <Attribute Name=\"", f);
  put_escaped(f, dat->name);
  fprintf(f, "\" AttributeType=\"%s\" Center=\"%s\">\n", kind, center);
  put_data_item(f, "        ", h5_name, dat->name, dat->set->global_size, dat->dim, dat->type);
  fputs("      </Attribute>\n", f);
}

static void put_description(FILE *f, const char *h5_name, op_map topo, op_dat geom) {
  op2_context *ctx = op2_ctx();
  fputs(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
      "<Xdmf Version=\"3.0\">\n"
      "  <Domain>\n"
      "    <Grid Name=\"",
      f);
  put_escaped(f, topo->from->name);
  fputs("\" GridType=\"Uniform\">\n", f);
  fprintf(f, "      <Topology TopologyType=\"%s\" NumberOfElements=\"%ld\">\n",
          topo->dim == 4 ? "Quadrilateral" : "Triangle", topo->from->global_size);
  put_data_item(f, "        ", h5_name, topo->name, topo->from->global_size, topo->dim,
                OP2_TYPE_INT);
  fputs("      </Topology>\n", f);
  fprintf(f, "      <Geometry GeometryType=\"%s\">\n", geom->dim == 2 ? "XY" : "XYZ");
  put_data_item(f, "        ", h5_name, geom->name, geom->set->global_size, geom->dim, geom->type);
  fputs("      </Geometry>\n", f);
  for (int d = 0; d < ctx->dats.count; d++) {
    op_dat dat = ctx->dats.items[d];
    if (dat->set == topo->from) put_attribute(f, h5_name, dat, "Cell");
  }
  for (int d = 0; d < ctx->dats.count; d++) {
    op_dat dat = ctx->dats.items[d];
    if (dat->set == geom->set && dat != geom) put_attribute(f, h5_name, dat, "Node");
  }
  fputs(
      "    </Grid>\n"
      "  </Domain>\n"
      "</Xdmf>\n",
      f);
}

int op2_h5_write_xdmf(const char *h5_path, const char *xdmf_path, int *written) {
  op_map topo;
  op_dat geom;
  choose(&topo, &geom);
  *written = topo != NULL;
  if (!topo) return OP2_OK;
  /* Through op2_output: replaced whole, or written through a device, FIFO or link. */
  op2_output o;
  op2_jit_error why;
  if (op2_output_open(&o, xdmf_path, &why) != 0)
    return op2_error_record(&why, "op_dump_to_hdf5: file %s: %s", xdmf_path, why.msg);
  put_description(o.f, base_name(h5_path), topo, geom);
  if (op2_output_close(&o, 0, &why) != 0)
    return op2_error_record(&why, "op_dump_to_hdf5: file %s: %s", xdmf_path, why.msg);
  return OP2_OK;
}
