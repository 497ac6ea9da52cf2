#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Profile per function of the guest instructions that make bench's
BENCH_INSNS=1 counted (tools/bench/tcg_insns.c): per function, the
instructions executed, the times it was entered, the instructions and
memory accesses per entry, and how many of its instructions were locked,
returns or indirect calls.  Symbols come from
the "# ksym" lines the guest wrote to results.log.

Usage: insns.py results.log insns.txt [top] [blocks=FUNCTION]

With blocks=F, the blocks of function F are listed too: each one's
offset in F, its instructions, and how many times it ran per entry of F,
to read beside F's disassembly.
"""
import bisect
import sys
from collections import defaultdict


# Addresses below this are user space (x86-64, 4-level or 5-level paging).
USER_END = 1 << 56


def load_syms(path):
    syms = []
    with open(path, errors='replace') as f:
        for line in f:
            if not line.startswith('# ksym '):
                continue
            parts = line.split()
            if len(parts) < 5:
                continue
            addr = int(parts[2], 16)
            if not addr:
                continue
            # The module's name in brackets, if any, is left out:
            # blocks= names a function alone.
            syms.append((addr, parts[4]))
    syms.sort()
    return syms


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    syms = load_syms(sys.argv[1])
    if not syms:
        sys.exit('no "# ksym" lines in ' + sys.argv[1])
    top = 30
    blocks_of = None
    for a in sys.argv[3:]:
        if a.startswith('blocks='):
            blocks_of = a[7:]
        else:
            top = int(a)
    addrs = [a for a, _ in syms]
    ins = defaultdict(int)
    entries = defaultdict(int)
    locked = defaultdict(int)
    rets = defaultdict(int)
    icalls = defaultdict(int)
    mems = defaultdict(int)
    blocks = defaultdict(int)
    block_mems = defaultdict(int)
    total = 0
    with open(sys.argv[2]) as f:
        for line in f:
            v, n, e, lk, r, ic, m = line.split()
            v, n, e, m = int(v, 16), int(n), int(e), int(m)
            i = bisect.bisect_right(addrs, v) - 1
            if v < USER_END:
                name = '(user space)'
            elif i < 0:
                name = '(no symbol)'
            else:
                name = syms[i][1]
                if syms[i][0] == v:
                    entries[name] += e
                if name == blocks_of:
                    blocks[(v - syms[i][0], n)] += e
                    block_mems[(v - syms[i][0], n)] += m
            ins[name] += n * e
            locked[name] += int(lk) * e
            rets[name] += int(r) * e
            icalls[name] += int(ic) * e
            mems[name] += m
            total += n * e
    print('# guest instructions executed: %d' % total)
    print('%-34s %12s %6s %10s %7s %7s %10s %10s %10s' %
          ('function', 'insns', 'share', 'entries', 'ins/e', 'mem/e',
           'locked', 'rets', 'icalls'))
    for name in sorted(ins, key=ins.get, reverse=True)[:top]:
        ent = entries[name]
        print('%-34s %12d %5.1f%% %10d %7s %7s %10d %10d %10d' %
              (name[:34], ins[name], 100.0 * ins[name] / total, ent,
               '%.1f' % (ins[name] / ent) if ent else '-',
               '%.1f' % (mems[name] / ent) if ent else '-', locked[name],
               rets[name], icalls[name]))
    if blocks_of:
        base = entries.get(blocks_of, 0)
        if not base:
            sys.exit('%s was never entered' % blocks_of)
        print('\n# the blocks of %s, per entry (%d entries)' %
              (blocks_of, base))
        print('%8s %6s %9s %9s %9s' %
              ('offset', 'insns', 'runs', 'insns', 'mems'))
        for (off, n), e in sorted(blocks.items()):
            print('%8x %6d %9.3f %9.1f %9.1f' %
                  (off, n, e / base, n * e / base,
                   block_mems[(off, n)] / base))
        print('%8s %6s %9s %9.1f %9.1f' % ('', '', 'in all',
                                           ins[blocks_of] / base,
                                           mems[blocks_of] / base))


if __name__ == '__main__':
    main()
