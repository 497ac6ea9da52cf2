#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn wsched_bench rows into a table; write gnuplot data.

Usage: table.py <results.log> <chart.dat>
"""
import re
import sys

ROW = re.compile(r'wsched_bench: row (.*)$')


def ms(ns):
    return '%.2f' % (int(ns) / 1e6)


def main():
    rows = []
    with open(sys.argv[1], errors='replace') as f:
        for line in f:
            m = ROW.search(line.strip())
            if m:
                rows.append(dict(kv.split('=', 1) for kv in m.group(1).split()
                                 if '=' in kv))
    head = ('benchmark', 'baseline', 'baseline ms', 'wsched ms', 'ratio',
            'spread (wsched ms)', 'notes')
    table = [head]
    for r in rows:
        notes = ' '.join('%s=%s' % (k, v) for k, v in r.items()
                         if k not in ('name', 'baseline', 'base_ns', 'ws_ns',
                                      'ratio', 'min', 'max', 'base_min',
                                      'base_max'))
        table.append((r['name'], r['baseline'], ms(r['base_ns']),
                      ms(r['ws_ns']), r['ratio'],
                      '%s-%s' % (ms(r['min']), ms(r['max'])), notes))
    width = [max(len(t[i]) for t in table) for i in range(len(head))]
    for i, t in enumerate(table):
        print('  '.join(c.ljust(width[j]) if j in (0, 1, 6) else
                        c.rjust(width[j]) for j, c in enumerate(t)).rstrip())
        if i == 0:
            print('  '.join('-' * w for w in width))
    if not rows:
        print('(no rows)')
    with open(sys.argv[2], 'w') as f:
        for r in rows:
            f.write('"%s\\nvs %s" %s\n' % (r['name'], r['baseline'],
                                           r['ratio']))


if __name__ == '__main__':
    main()
