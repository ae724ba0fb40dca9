#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""docs/SCALE.md's model: mg3d's start-up and V-cycle cost at many ranks, from measured figures.

  bench/scale_model.py [--ranks 1000,10000] [--nodes 8e6,150e6] [--ranks-per-node 64]
                       [--latency 1.5e-6] [--node-bandwidth 12.5e9] [--fs-bandwidth 10e9]
                       [measured figures: see --help]

Every input is an option whose default is a figure measured here (bench/ranks.py, bench/mg3d.py,
docs/MPI.md; docs/SCALE.md says which run gave it) or a stated network or file-system
assumption. Prints, for every rank count and mesh size, each start-up phase and the V-cycle's
compute, halo and reduction times. A hexahedral mg3d mesh has about 3 edges per node on each
level and each coarser level 1/8 of the nodes; the levels run down to about MIN_COARSE nodes.
"""
import argparse
import math


def model(a, p, n):
    """Seconds per phase for p ranks and n finest nodes."""
    nodes_per_rank = n / p
    machines = max(1, math.ceil(p / a.ranks_per_node))
    levels = max(1, int(math.log(n / a.min_coarse, 8)) + 1)
    edges_all = 3 * n * sum(8.0 ** -l for l in range(levels))
    # halo: a rank's surface on level l shrinks 4x per level ((n/8^l / p)^(2/3)); bytes scale
    # from the measured figure by (nodes per rank)^(2/3); the neighbour count is the measured
    # largest (3-D partitions saturate); a level with fewer nodes than ranks still pays latency
    surface = sum(max(1.0, (nodes_per_rank / 8.0 ** l)) ** (2.0 / 3.0) for l in range(levels))
    bytes_per_cycle = a.halo_bytes_coef * surface
    exchanges = a.exchanges_per_level * levels
    per_rank_bw = a.node_bandwidth / min(p, a.ranks_per_node)
    t = {}
    t['MPI start'] = a.mpi_init_coef * math.log2(p) + a.mpi_init_base
    t['read'] = a.file_bytes_per_node * n / a.fs_bandwidth + a.read_open_s
    t['partition (RCB)'] = a.rcb_s_per_node * nodes_per_rank * math.log2(p) \
        + a.rcb_rounds * math.ceil(math.log2(p)) * 2 * a.latency * math.log2(p)
    t['partition (PT-Scotch)'] = a.scotch_s_per_edge * 3 * nodes_per_rank * math.log2(p)
    t['migration + halos'] = a.halo_s_per_node * nodes_per_rank + \
        a.alltoalls * (p * 8 / per_rank_bw + a.latency * math.log2(p))
    t['compile (per machine)'] = a.kernels * a.compile_s_per_kernel
    t['compute/cycle'] = a.ns_per_edge * 1e-9 * edges_all / p
    t['halo/cycle'] = exchanges * (a.neighbours * a.latency) + bytes_per_cycle / per_rank_bw
    t['reductions/cycle'] = a.reductions_per_level * levels * 2 * a.latency * math.log2(p)
    t['first cycle'] = t['compute/cycle'] + t['halo/cycle'] + t['reductions/cycle'] + a.first_extra_s
    t['V-cycle'] = t['compute/cycle'] + t['halo/cycle'] + t['reductions/cycle']
    t['start-up'] = sum(t[k] for k in ['MPI start', 'read', 'partition (RCB)',
                                       'migration + halos', 'compile (per machine)',
                                       'first cycle'])
    return t, levels, machines, nodes_per_rank


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[1])
    ap.add_argument('--ranks', default='1000,10000')
    ap.add_argument('--nodes', default='8e6,150e6')
    # assumptions (docs/SCALE.md)
    ap.add_argument('--ranks-per-node', type=int, default=64)
    ap.add_argument('--latency', type=float, default=1.5e-6, help='s per message')
    ap.add_argument('--node-bandwidth', type=float, default=12.5e9, help='bytes/s per machine')
    ap.add_argument('--fs-bandwidth', type=float, default=10e9, help='bytes/s, parallel file system')
    ap.add_argument('--mpi-init-base', type=float, default=0.5, help='s, launcher at 1 machine')
    ap.add_argument('--mpi-init-coef', type=float, default=0.15, help='s per doubling of ranks')
    ap.add_argument('--min-coarse', type=float, default=1000, help='coarsest level nodes')
    # measured here (docs/SCALE.md gives the runs)
    ap.add_argument('--ns-per-edge', type=float, default=170.0,
                    help='seq time per V-cycle per edge of all levels, 1 rank')
    ap.add_argument('--halo-bytes-coef', type=float, default=600.0,
                    help='bytes per rank per V-cycle per (finest nodes per rank)^(2/3)')
    ap.add_argument('--exchanges-per-level', type=float, default=12.0,
                    help='halo exchanges per level per V-cycle')
    ap.add_argument('--neighbours', type=float, default=22.0,
                    help='messages per exchange (busiest rank)')
    ap.add_argument('--reductions-per-level', type=float, default=61.0,
                    help='allreduces per level per V-cycle (one agreement per loop call, one '
                    'per reduction argument)')
    ap.add_argument('--file-bytes-per-node', type=float, default=306.0)
    ap.add_argument('--read-open-s', type=float, default=0.2,
                    help='s: collective open and metadata')
    ap.add_argument('--rcb-s-per-node', type=float, default=7.2e-7)
    ap.add_argument('--rcb-rounds', type=float, default=4)
    ap.add_argument('--scotch-s-per-edge', type=float, default=2.1e-5)
    ap.add_argument('--halo-s-per-node', type=float, default=4.6e-5)
    ap.add_argument('--alltoalls', type=float, default=12, help='count exchanges in the halo build')
    ap.add_argument('--kernels', type=int, default=13)
    ap.add_argument('--compile-s-per-kernel', type=float, default=0.25)
    ap.add_argument('--first-extra-s', type=float, default=0.2, help='plans, TinyCC, first calls')
    a = ap.parse_args()

    keys = ['MPI start', 'read', 'partition (RCB)', 'partition (PT-Scotch)', 'migration + halos',
            'compile (per machine)', 'first cycle', 'start-up', 'compute/cycle', 'halo/cycle',
            'reductions/cycle', 'V-cycle']
    print('| ranks | finest nodes | levels | nodes/rank | ' + ' | '.join(keys) + ' |')
    print('|' + '---|' * (4 + len(keys)))
    for p in [int(float(x)) for x in a.ranks.split(',')]:
        for n in [float(x) for x in a.nodes.split(',')]:
            t, levels, _, npr = model(a, p, n)
            cells = [str(p), '%.0fM' % (n / 1e6), str(levels), '%.0f' % npr]
            cells += [('%.3g s' % t[k]) if t[k] >= 1e-3 else ('%.3g ms' % (1e3 * t[k]))
                      for k in keys]
            print('| ' + ' | '.join(cells) + ' |')


if __name__ == '__main__':
    main()
