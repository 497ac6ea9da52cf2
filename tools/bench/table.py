#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn wsched_bench and wsched_ubench rows into a table; write gnuplot data.

Usage: table.py <results.log> <chart.dat>

Times are printed with their unit (ns, us, ms); a baseline that could not
run has base_ns=- and ratio=- and is left out of the chart.
"""
import re
import sys

ROW = re.compile(r'wsched_(?:u?bench|pages): row (.*)$')


def fmt(ns):
    """ns (a string) as a time with a unit; '-' stays '-'."""
    try:
        v = float(ns)
    except ValueError:
        return '-'
    if v >= 1e6:
        return '%.2f ms' % (v / 1e6)
    if v >= 1e3:
        return '%.2f us' % (v / 1e3)
    return '%.0f ns' % v


def spread(lo, hi):
    a, b = fmt(lo), fmt(hi)
    if a == '-' or b == '-':
        return '-'

    if a[-2:] == b[-2:]:
        a = a[:-3]
    return '%s-%s' % (a, b)


def ratio_spread(r):
    """min-max of the per-round ratios, or '-' for rows without them."""
    if 'ratio_min' not in r or 'ratio_max' not in r:
        return '-'
    return '%s-%s' % (r['ratio_min'], r['ratio_max'])


def main():
    rows = []
    with open(sys.argv[1], errors='replace') as f:
        for line in f:
            m = ROW.search(line.strip())
            if m:
                rows.append(dict(kv.split('=', 1) for kv in m.group(1).split()
                                 if '=' in kv))
    head = ('benchmark', 'baseline', 'baseline', 'wsched', 'ratio',
            'ratio min-max', 'spread (wsched)', 'notes')
    table = [head]
    for r in rows:
        notes = ' '.join('%s=%s' % (k, v) for k, v in r.items()
                         if k not in ('name', 'baseline', 'base_ns', 'ws_ns',
                                      'ratio', 'ratio_min', 'ratio_max',
                                      'min', 'max', 'base_min',
                                      'base_max'))
        table.append((r['name'], r['baseline'], fmt(r['base_ns']),
                      fmt(r['ws_ns']), r['ratio'],
                      ratio_spread(r), spread(r.get('min', '-'), r.get('max', '-')),
                      notes))
    width = [max(len(t[i]) for t in table) for i in range(len(head))]
    for i, t in enumerate(table):
        print('  '.join(c.ljust(width[j]) if j in (0, 1, 7) else
                        c.rjust(width[j]) for j, c in enumerate(t)).rstrip())
        if i == 0:
            print('  '.join('-' * w for w in width))
    if not rows:
        print('(no rows)')
    with open(sys.argv[2], 'w') as f:
        for r in rows:
            try:
                float(r['ratio'])
            except ValueError:
                continue
            f.write('"%s\\nvs %s" %s\n' % (r['name'], r['baseline'],
                                           r['ratio']))


if __name__ == '__main__':
    main()
