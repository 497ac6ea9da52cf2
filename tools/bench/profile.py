#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise the function_graph trace that make bench's profile mode
(BENCH_PROFILE=N) writes between "# profile-begin" and "# profile-end" in
results.log: per function, calls, inclusive and self time, ordered by self
time.  Times are the tracer's, so small functions are inflated by its own
cost (more so under TCG): read the split, not the absolute figures.

Usage: profile.py results.log [top]
"""
import re
import sys
from collections import defaultdict

LINE = re.compile(r'^\s*(?:[\d.]+\s*\|\s*)?(\d+)\)\s+(?:[+!#*@$&]\s*)?'
                  r'(?:([\d.]+) us\s+)?\|\s*(.*)$')


def main():
    path = sys.argv[1]
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 25
    incl = defaultdict(float)
    selft = defaultdict(float)
    calls = defaultdict(int)
    stacks = defaultdict(list)   # cpu -> [[name, child_time]]
    inside = False
    roots = 0
    root_time = 0.0
    with open(path, errors='replace') as f:
        for raw in f:
            if raw.startswith('# profile-begin'):
                inside = True
                continue
            if raw.startswith('# profile-end'):
                break
            if not inside:
                continue
            m = LINE.match(raw)
            if not m:
                continue
            cpu, dur, body = m.group(1), m.group(2), m.group(3).strip()
            st = stacks[cpu]
            if body.endswith('{'):
                name = body[:-1].strip().rstrip('()').split(' ')[0]
                # Only the calls under wsd_enter() (the trace may start
                # inside the write that turned it on).
                if not st and name != 'wsd_enter':
                    continue
                st.append([name, 0.0])
            elif body.startswith('}'):
                if not st or dur is None:
                    continue
                name, child = st.pop()
                t = float(dur)
                incl[name] += t
                selft[name] += t - child
                calls[name] += 1
                if st:
                    st[-1][1] += t
                else:
                    roots += 1
                    root_time += t
            elif body.endswith(';') and dur is not None and st:
                name = body[:-1].strip().rstrip('()').split(' ')[0]
                t = float(dur)
                incl[name] += t
                selft[name] += t
                calls[name] += 1
                if st:
                    st[-1][1] += t
    if not roots:
        print('no complete wsd_enter() call in the trace')
        return 1
    print(f'{roots} traced calls, {root_time:.1f} us in all '
          f'({root_time / roots:.1f} us per call)')
    print(f'{"function":32} {"calls":>7} {"incl us":>10} {"self us":>10} {"self %":>7}')
    for name in sorted(selft, key=selft.get, reverse=True)[:top]:
        print(f'{name:32} {calls[name]:7d} {incl[name]:10.1f} {selft[name]:10.1f} '
              f'{100 * selft[name] / root_time:6.1f}%')
    return 0


if __name__ == '__main__':
    sys.exit(main())
