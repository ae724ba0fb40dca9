/* SPDX-License-Identifier: BSD-3-Clause */
/* Getting data out of a distributed mesh in the user's order. Usage:
 *   t430-fetch local|replicated after   fetches after op_partition and loops that changed dats
 *   t430-fetch local|replicated early   the same fetches first before anything distributed the
 *                                       mesh, then after
 *
 * op_fetch_data gives the whole dat on every rank when every rank declared the whole mesh, and
 * this rank's declared block when each rank declared its block; op_fetch_data_idx gives any
 * global range (the whole range, single elements, an empty range, and ranges that differ from
 * rank to rank) on every rank; op_print_dat_to_txtfile writes the whole dat once, from rank 0, as
 * `size dim` then one line per element; op_get_size counts over all ranks. Dats of every type,
 * on sets declared unevenly (one set empty on rank 0). A range outside the set is an error on
 * every rank. */
#include "mpi_test.h"

enum { NN = 257, NE = 500 };

KERNEL(
    shift, static void shift(const int *g, double *d, float *f) {
      d[0] = d[0] * 2.0 + (double)*g;
      d[1] = -d[1];
      d[2] += 0.125;
      f[0] = f[0] * 0.5f - 1.0f;
    })

KERNEL(
    shift_e, static void shift_e(const int *g, const int *n1, int *i, long long *l) {
      i[0] = i[0] * 3 + *n1;
      i[1] -= *g;
      l[0] = l[0] * -7LL + 123456789012LL;
    })

typedef struct dat_case {
  op_dat dat;
  const mt_set *set;
  size_t elem; /* bytes per element */
  const char *type;
  int dim;
  void *want; /* the whole dat in the user's order */
} dat_case;

/* The file holds `G dim` and then the values of every element, one line each, in order; each
 * value must read back to the value held within what OP2's number format keeps (16 significant
 * digits for doubles, 6 decimals for floats); integers exactly. */
static void check_txt(const dat_case *c, const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "rank %d: %s was not written\n", mt_rank(), path);
    exit(1);
  }
  long n;
  int dim;
  CHECK(fscanf(f, "%ld %d\n", &n, &dim) == 2);
  CHECK_EQ_INT(n, c->set->global);
  CHECK_EQ_INT(dim, c->dim);
  char line[1024];
  for (long e = 0; e < n; e++) {
    CHECK(fgets(line, sizeof line, f) != NULL);
    const char *row = (const char *)c->want + (size_t)e * c->elem;
    char *at = line, *end;
    for (int k = 0; k < c->dim; k++, at = end) {
      int same;
      if (!strcmp(c->type, "double"))
        same = fabs(strtod(at, &end) - ((const double *)row)[k]) <=
               1e-15 * fabs(((const double *)row)[k]);
      else if (!strcmp(c->type, "float"))
        same = fabs(strtod(at, &end) - ((const float *)row)[k]) <= 6e-7;
      else if (!strcmp(c->type, "int"))
        same = strtol(at, &end, 10) == ((const int *)row)[k];
      else
        same = strtoll(at, &end, 10) == ((const long long *)row)[k];
      if (end == at || !same) {
        fprintf(stderr, "rank %d: %s: element %ld, value %d of line '%s' is wrong\n", mt_rank(),
                path, e, k, line);
        exit(1);
      }
    }
    while (*at == ' ') at++;
    CHECK(*at == '\n'); /* one element per line, nothing more */
  }
  CHECK(fgets(line, sizeof line, f) == NULL); /* nothing after the last element */
  fclose(f);
}

static void check_fetches(dat_case *cases, int ncases, mt_mode mode, const char *dir,
                          const char *tag) {
  int me = mt_rank(), p = mt_size();
  for (int i = 0; i < ncases; i++) {
    dat_case *c = &cases[i];
    int g = c->set->global;
    char what[128];
    CHECK_EQ_INT(op_get_size(c->set->set), g); /* elements over all ranks */
    /* op_fetch_data: the whole dat, or this rank's block */
    char *out = rm_alloc(c->elem * (size_t)g + 1);
    memset(out, 0xa5, c->elem * (size_t)g + 1);
    op_fetch_data(c->dat, out);
    snprintf(what, sizeof what, "%s: op_fetch_data of %s", tag, c->type);
    if (mode == MT_REPLICATED) {
      mt_check_bytes(out, c->want, (size_t)g, c->elem, what);
    } else {
      mt_check_bytes(out, (const char *)c->want + (size_t)c->set->b.first * c->elem,
                     (size_t)c->set->b.count, c->elem, what);
      for (size_t k = (size_t)c->set->b.count * c->elem; k < c->elem * (size_t)g + 1; k++)
        CHECK_EQ_INT((unsigned char)out[k], 0xa5); /* nothing past the block */
    }
    /* op_fetch_data_idx: everything, single elements, empty, and ranges that differ by rank */
    int ranges[][2] = {{0, g - 1},   {0, 0},         {g - 1, g - 1},
                       {5, 4},       {g / 3, g / 2}, {(g * me) / (p + 1), g - 1 - me},
                       {me, me + 17}};
    for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++) {
      int lo = ranges[r][0], hi = ranges[r][1];
      size_t n = (size_t)(hi - lo + 1);
      memset(out, 0xa5, c->elem * (size_t)g + 1);
      op_fetch_data_idx(c->dat, out, lo, hi);
      snprintf(what, sizeof what, "%s: op_fetch_data_idx [%d, %d] of %s", tag, lo, hi, c->type);
      mt_check_bytes(out, (const char *)c->want + (size_t)lo * c->elem, n, c->elem, what);
      CHECK_EQ_INT((unsigned char)out[n * c->elem], 0xa5);
    }
    EXPECT_ERROR(op_fetch_data_idx(c->dat, out, 0, g), "outside");
    EXPECT_ERROR(op_fetch_data_idx(c->dat, out, -1, 3), "outside");
    free(out);
    /* op_print_dat_to_txtfile: one file, the whole dat */
    char path[600];
    snprintf(path, sizeof path, "%s/%s-%d.txt", dir, tag, i);
    op_print_dat_to_txtfile(c->dat, path);
    MPI_Barrier(MPI_COMM_WORLD);
    check_txt(c, path);
  }
}

int main(int argc, char **argv) {
  CHECK(argc >= 3);
  op_init(argc, argv, 0);
  test_catch_errors();
  mt_mode mode = mt_parse_mode(argv[1]);
  int early = strcmp(argv[2], "early") == 0;
  CHECK(early || strcmp(argv[2], "after") == 0);
  unsigned rng = rm_rng(430);
  mt_set nodes = mt_decl_set(mode, MT_SPLIT_SKEWED, NN, "nodes");
  mt_set edges = mt_decl_set(mode, MT_SPLIT_EMPTY_FIRST, NE, "edges");
  int *en = rm_map_values(NE, 2, NN, 200, &rng);
  op_map pedge = mt_decl_map(&edges, &nodes, 2, en, "pedge");
  double *d = rm_doubles(3 * NN, -1e3, 1e3, &rng);
  float *f = rm_alloc(sizeof(float) * NN);
  for (int n = 0; n < NN; n++) f[n] = (float)rm_uniform(&rng, -1, 1) / 3.0f;
  int *iv = rm_ints(2 * NE, -100000, 100000, &rng);
  long long *lv = rm_alloc(sizeof(long long) * NE);
  for (int e = 0; e < NE; e++) lv[e] = (long long)test_rand(&rng) * 4099LL - (1LL << 40);
  dat_case cases[] = {
      {mt_decl_dat(&nodes, 3, "double", sizeof(double), d, "d"), &nodes, 3 * sizeof(double),
       "double", 3, d},
      {mt_decl_dat(&nodes, 1, "float", sizeof(float), f, "f"), &nodes, sizeof(float), "float", 1,
       f},
      {mt_decl_dat(&edges, 2, "int", sizeof(int), iv, "i"), &edges, 2 * sizeof(int), "int", 2, iv},
      {mt_decl_dat(&edges, 1, "long long", sizeof(long long), lv, "l"), &edges, sizeof(long long),
       "long long", 1, lv},
  };
  int ncases = (int)(sizeof cases / sizeof cases[0]);

  char dir[512];
  mt_scratch_dir(dir, sizeof dir);
  if (early) check_fetches(cases, ncases, mode, dir, "early");
  op_partition("PTSCOTCH", "KWAY", nodes.set, pedge, cases[0].dat);
  op_par_loop(shift_src, "shift", nodes.set, op_arg_idx(-1, OP_ID),
              op_arg_dat(cases[0].dat, -1, OP_ID, 3, "double", OP_RW),
              op_arg_dat(cases[1].dat, -1, OP_ID, 1, "float", OP_RW));
  op_par_loop(shift_e_src, "shift_e", edges.set, op_arg_idx(-1, OP_ID), op_arg_idx(1, pedge),
              op_arg_dat(cases[2].dat, -1, OP_ID, 2, "int", OP_RW),
              op_arg_dat(cases[3].dat, -1, OP_ID, 1, "long long", OP_RW));
  for (int n = 0; n < NN; n++) shift(&n, d + 3 * n, f + n);
  for (int e = 0; e < NE; e++) shift_e(&e, en + 2 * e + 1, iv + 2 * e, lv + e);
  check_fetches(cases, ncases, mode, dir, "after");
  /* nothing but the printed files: no temporary file left behind */
  int nfiles = mt_scratch_remove(dir);
  if (mt_rank() == 0) CHECK_EQ_INT(nfiles, ncases * (early ? 2 : 1));
  free(d), free(f), free(iv), free(lv), free(en);
  int me = mt_rank(), p = mt_size();
  op_exit();
  if (me == 0) printf("t430 %s %s on %d ranks: fetches in the user's order\n", argv[1], argv[2], p);
  return 0;
}
