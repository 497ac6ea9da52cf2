#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Parse the results of the wsched QEMU rig.

Usage: parse-results.py [--all FILE] [-v] STAGE=DIR [STAGE=DIR ...]

Each DIR may hold host.tap (host-side checks), results.log (second serial
port of the guest, in sections written by guest-init.sh), console.log
(kernel console, scanned for splats), kernel (the kernel it ran) and
stage-seconds; a file host-only marks a stage without a guest.  Writes one
PASS/FAIL/SKIP line per test to FILE (--all) and prints the FAIL and SKIP
lines (-v: every line), then one line per stage, "stage NAME (KERNEL):
N passed, N failed[, N skipped], T s", then exactly one summary line
"N passed, N failed[, N skipped]".  Exits 1 on any failure.
"""

import os
import re
import subprocess
import sys

RESULT_RE = re.compile(r'^(\s*)(not ok|ok)\b\s*(\d+)?\s*(?:-\s*)?([^#]*?)\s*(?:#\s*(.*))?$')
SUBTEST_RE = re.compile(r'^(\s*)#\s*Subtest:\s*(.*)$')
PLAN_RE = re.compile(r'^(\s*)1\.\.(\d+)\s*(?:#.*)?$')

# Headline patterns start a new splat; follow-up patterns (a report's own
# trace) start one only if no splat was seen within SPLAT_WINDOW lines.
SPLAT_HEAD_RES = [
    re.compile(p) for p in (
        r'BUG:', r'WARNING:', r'possible circular locking',
        r'inconsistent lock state', r'INFO: task .* blocked',
        r'soft lockup', r'rcu_.*detected stall', r'Oops', r'Kernel panic',
        r'kmemleak: .*(suspected memory leak|unreferenced object)',
        r'unreferenced object 0x', r'general protection fault', r'UBSAN:',
    )
]
SPLAT_FOLLOW_RES = [
    re.compile(p) for p in (r'KASAN', r'DEADLOCK', r'Call Trace', r'hung_task')
]
# Lines a healthy boot prints that the patterns above would match.
BENIGN_RES = [
    re.compile(p) for p in (
        r'KernelAddressSanitizer initialized',
        r'kasan: ',
        r'Command line:', r'Kernel command line:',
        r'\[wsched-guest\]',
    )
]
# Reports of a failure a test injected on purpose (failslab, fail_page_alloc,
# fail_usercopy with verbose set): not a splat, nor is the stack trace that
# follows within SPLAT_WINDOW lines.
INJECTED_RES = [re.compile(r'FAULT_INJECTION: forcing a failure')]
# A splat's own follow-up lines (e.g. its Call Trace) within this many lines
# count as the same splat.
SPLAT_WINDOW = 60
# The last diagnostic lines of a failed TAP test shown with its FAIL line.
DIAG_LINES = 12

KMSG_PREFIX_RE = re.compile(r'^\[\s*\d+\.\d+\]\s*')

# A KCSAN report (stage kcsan) runs from its "BUG: KCSAN:" line to the
# "=====" line that closes it.  A race is wsched's when a frame of either
# access's stack is in one of its modules ("[wsched]", "[wsched_test]",
# ...): then it is a splat like any other.  A report with no such frame is
# a race inside the kernel itself (e.g. do_exit() against the load
# balancer's kthread_is_per_cpu()), which wsched can neither cause nor
# fix: it is listed as a SKIP with its headline, not counted as a failure.
KCSAN_HEAD_RE = re.compile(r'BUG: KCSAN: ')
KCSAN_END_RE = re.compile(r'^={20,}')
WSCHED_FRAME_RE = re.compile(r'\[wsched[a-z0-9_]*\]')


class Results:
    def __init__(self, log=None, verbose=False):
        self.passed = self.failed = self.skipped = 0
        self.failed_in = {}  # "stage:suite/" -> failures
        self.stages = {}  # stage -> [passed, failed, skipped]
        self.log = log
        self.verbose = verbose

    def emit(self, status, name, why=''):
        if status not in ('PASS', 'SKIP'):
            pre = name.split('/')[0] + '/'
            self.failed_in[pre] = self.failed_in.get(pre, 0) + 1
        per = self.stages.setdefault(name.split(':')[0], [0, 0, 0])
        if status == 'PASS':
            self.passed += 1
            per[0] += 1
        elif status == 'SKIP':
            self.skipped += 1
            per[2] += 1
        else:
            status = 'FAIL'
            self.failed += 1
            per[1] += 1
        line = f'{status} {name}' + (f' ({why})' if why else '')
        if self.log:
            self.log.write(line + '\n')
        if status != 'PASS' or self.verbose or not self.log:
            print(line)

    def detail(self, line):
        """Context of a failure: on stdout and in the log."""
        if self.log:
            self.log.write(line + '\n')
        print(line)


def clean(line):
    return line.replace('\r', '').rstrip('\n')


def parse_tap(lines, prefix, res, check_plan=True, where=None):
    """Count the leaf results of a (K)TAP document.

    A result line is a leaf unless result lines more deeply indented
    directly precede it (its subtests).  Leaves are named by the chain of
    their parents.  Plans are checked against the results at their level.
    """
    items = []  # (indent, ok, name, directive, headers seen before it)
    plans = []  # (indent, count, index into items where the block starts)
    headers = []  # (indent, name) of "# Subtest:" lines, in order
    notes = {}  # index into items -> the diagnostics printed before it
    said = []  # diagnostic ("# ...") lines since the last result
    for raw in lines:
        line = clean(raw).expandtabs(8)
        m = SUBTEST_RE.match(line)
        if m:
            headers.append((len(m.group(1)), m.group(2).strip()))
            continue
        m = PLAN_RE.match(line)
        if m:
            plans.append((len(m.group(1)), int(m.group(2)), len(items)))
            continue
        m = RESULT_RE.match(line)
        if not m:
            if line.lstrip().startswith('#'):
                said.append(line.strip())
            continue
        name = m.group(4).strip() or f'#{m.group(3)}'
        if m.group(2) != 'ok':
            notes[len(items)] = said[-DIAG_LINES:]
        said = []
        items.append((len(m.group(1)), m.group(2) == 'ok', name,
                      (m.group(5) or '').strip(), len(headers)))

    n = len(items)
    if n == 0:
        res.emit('FAIL', where or prefix.rstrip('/:'), 'no test results')
        return
    for i, (ind, ok, name, directive, nhdr) in enumerate(items):
        if i > 0 and items[i - 1][0] > ind:
            continue  # parent of the preceding subtests
        # Name the leaf by the open "# Subtest:" headers above it: for each
        # indent <= ours, the latest header preceding the deeper one.
        path = [name]
        limit = nhdr
        for e in sorted({h[0] for h in headers[:nhdr] if h[0] <= ind}, reverse=True):
            for k in range(limit - 1, -1, -1):
                if headers[k][0] == e:
                    path.insert(0, headers[k][1])
                    limit = k
                    break
        full = prefix + '/'.join(path)
        if directive.upper().startswith('SKIP'):
            res.emit('SKIP', full, directive)
        elif ok:
            res.emit('PASS', full)
        else:
            res.emit('FAIL', full, directive)
            # What the test printed before it failed (the harness's
            # "Expected ..." lines, its TH_LOG()s): CI shows only the
            # summary, and a failure seen once must say where it was.
            for note in notes.get(i, []):
                res.detail(f'    {note[:200]}')

    if not check_plan:
        return
    for pi, (ind, count, start) in enumerate(plans):
        # results at this indent after the plan, until a less-indented result
        got = 0
        for ind2 in (it[0] for it in items[start:]):
            if ind2 < ind:
                break
            if ind2 == ind:
                got += 1
        if got != count:
            res.emit('FAIL', (where + '/' if where else prefix) + 'plan', f'plan 1..{count} at indent {ind} but {got} results')
            break  # one truncation is one failure


def parse_results_log(stage, path, res):
    try:
        with open(path, errors='replace') as f:
            lines = f.readlines()
    except OSError:
        res.emit('FAIL', f'{stage}:results', f'cannot read {path}')
        return False
    done = False
    section = None
    body = []
    sections = []
    for raw in lines:
        line = clean(raw)
        s = line.strip()
        if s.startswith('# wsched-begin '):
            section = s[len('# wsched-begin '):].split()
            body = []
            continue
        if s == '# wsched-end' and section:
            sections.append((section, body))
            section = None
            continue
        if s == '# wsched-done':
            done = True
            continue
        if section is not None:
            body.append(line)
    if section:
        sections.append((section, body))
    kunit_seen = {sec[1] for sec, _ in sections if sec[0] == 'kunit' and
                  any(RESULT_RE.match(clean(x).expandtabs(8)) for x in _)}
    for sec, body in sections:
        if sec[0] == 'kunit-debugfs':
            check_kunit_debugfs(stage, sec[1], body, sec[1] in kunit_seen, res)
        elif not (sec[0] == 'kunit' and sec[1] not in kunit_seen):
            handle_section(stage, sec, body, res)
    return done


def check_kunit_debugfs(stage, suite, body, have_log, res):
    """Use a suite's debugfs results: as the leaf source if the kernel log
    had none, else to cross-check the suite's overall status."""
    if not have_log:
        parse_tap(body, f'{stage}:', res, where=f'{stage}:{suite}')
        return
    status = None
    for line in body:
        m = RESULT_RE.match(clean(line))
        if m and not m.group(1) and m.group(4).strip() == suite:
            status = m.group(2)
    if status is None:
        res.emit('FAIL', f'{stage}:{suite}/debugfs-status', 'no suite result in debugfs')
    elif status == 'not ok' and not res.failed_in.get(f'{stage}:{suite}/'):
        res.emit('FAIL', f'{stage}:{suite}/debugfs-status', 'debugfs reports the suite failed')


def handle_section(stage, section, body, res):
    kind = section[0]
    name = section[1] if len(section) > 1 else ''
    if kind == 'kunit':
        parse_tap(body, f'{stage}:', res, where=f'{stage}:{name}')
    elif kind == 'selftest':
        exit_code = None
        tap = []
        for line in body:
            m = re.match(r'^# wsched-exit (\d+)', line.strip())
            if m:
                exit_code = int(m.group(1))
            else:
                tap.append(line)
        before = res.failed
        parse_tap(tap, f'{stage}:selftest/{name}/', res)
        if exit_code is None:
            res.emit('FAIL', f'{stage}:selftest/{name}/exit', 'no exit status (crashed?)')
        elif exit_code not in (0, 4) and res.failed == before:
            res.emit('FAIL', f'{stage}:selftest/{name}/exit', f'exit status {exit_code}')
    elif kind == 'rig':
        parse_tap(body, f'{stage}:rig/', res)
    elif kind == 'torture':
        parse_torture(stage, name, body, res)
    elif kind == 'kmemleak':
        for line in body[:40]:
            res.detail(f'    {stage} kmemleak: {line}')


def parse_torture(stage, name, body, res):
    """The log of wsched_torture.ko: its last "end of test" line decides;
    the statistics and any FAILURE lines are shown with the result."""
    end = None
    for line in body:
        line = clean(line).strip()
        if 'end of test:' in line:
            end = line
        if 'end of test:' in line or 'final:' in line or 'FAILURE' in line:
            print(f'    {stage} {line}')
    if end is None:
        res.emit('FAIL', f'{stage}:torture/{name}', 'no "end of test" line (stalled or crashed?)')
    elif 'end of test: SUCCESS' in end:
        res.emit('PASS', f'{stage}:torture/{name}')
    else:
        res.emit('FAIL', f'{stage}:torture/{name}', end[:200])


WATCHDOG_RE = re.compile(r'\[wsched-guest\] WATCHDOG: ')
# Headers in the stall watchdog's dump: a task's (sysrq w, t), a CPU's (l).
WATCHDOG_HEAD_RE = re.compile(r'^task:|^CPU: |^NMI backtrace')


def watchdog_summary(lines, res):
    """The wsched part of a stall watchdog's dump (guest-init.sh): the
    frames in a wsched module, each task or CPU header once before them."""
    start = next((i for i, x in enumerate(lines) if WATCHDOG_RE.search(x)), None)
    if start is None:
        res.detail('    (no stall watchdog dump in the console)')
        return
    out, header = [], None
    for x in map(clean, lines[start:]):
        text = KMSG_PREFIX_RE.sub('', x).strip()
        if WATCHDOG_RE.search(x):
            out.append(x)
        elif WATCHDOG_HEAD_RE.search(text):
            header = x
        elif WSCHED_FRAME_RE.search(text):
            if header:
                out.append(header)
                header = None
            out.append(x)
    for x in out[:120]:
        res.detail(f'    ! {x}')


def map_symbols(path):
    """Sorted (address, name) of the text symbols of a System.map."""
    syms = []
    try:
        with open(path) as f:
            for x in f:
                f3 = x.split()
                if len(f3) == 3 and f3[1] in 'tT':
                    syms.append((int(f3[0], 16), f3[2]))
    except (OSError, ValueError):
        return []
    return sorted(syms)


def ko_symbols(path):
    """Sorted (offset in .text, name) of a module's functions."""
    try:
        out = subprocess.run(['objdump', '-t', path], capture_output=True,
                             text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    # "offset l     F .text  size name"
    return sorted((int(f[0], 16), f[-1]) for f in map(str.split, out.splitlines())
                  if len(f) >= 6 and f[2] == 'F' and f[3] == '.text')


def symbolize(addr, base, syms):
    """name+offset of addr in a text section loaded at base, or ''."""
    off = addr - base
    best = None
    for a, name in syms:
        if a > off:
            break
        best = (a, name)
    if best is None or off - best[0] > 0x100000:
        return ''
    return f'{best[1]}+{off - best[0]:#x}'


def vcpu_summary(lines, path, res, stage_dir=None):
    """Where QEMU's monitor found the vCPUs before the timeout (run.sh)."""
    try:
        with open(path, errors='replace') as f:
            text = f.read().splitlines()
    except OSError:
        return
    text_line = next((clean(x) for x in lines if '[wsched-guest] text:' in x), '')
    out, cpu = [], None
    for x in text:
        x = x.replace('\r', '').strip()
        m = re.match(r'^CPU#(\d+)', x)
        if m:
            cpu = m.group(1)
            continue
        m = re.match(r'^RIP=([0-9a-f]+) RFL=\S+ \[.*?\] CPL=(\d)', x)
        if m and cpu is not None:
            out.append(f'CPU#{cpu} RIP={m.group(1)} CPL={m.group(2)}')
        m = re.search(r'HLT=(\d)', x)
        if m and out and cpu is not None and out[-1].startswith(f'CPU#{cpu} '):
            out[-1] += f' HLT={m.group(1)}'
    if not out:
        res.detail(f'    (QEMU monitor: {text[0][:120] if text else "no answer"})')
        return
    res.detail(f'    QEMU monitor before the timeout ({text_line or "no text addresses"}):')
    m = re.search(r'kernel ([0-9a-f]+) wsched (0x[0-9a-f]+)', text_line)
    kernel = read_first_line(os.path.join(stage_dir, 'kernel')) if stage_dir else ''
    # The debug kernels' own map (run.sh links it); Debian's
    # /boot/System.map-* is a stub naming the -dbg package.
    kmap = os.path.join(stage_dir or '', 'System.map')
    if not os.path.exists(kmap):
        kmap = f'/boot/System.map-{kernel}'
    ko = os.path.join(stage_dir or '', 'mod', 'kmod', 'wsched.ko')
    ksyms = map_symbols(kmap) if m else []
    ktext = next((a for a, n in ksyms if n == '_text'), None)
    wsyms = ko_symbols(ko) if m and os.path.exists(ko) else []
    for x in out:
        rip = int(re.search(r'RIP=([0-9a-f]+)', x).group(1), 16)
        where = ''
        if m and wsyms:
            where = symbolize(rip, int(m.group(2), 16), wsyms)
            where = f'[wsched] {where}' if where else ''
        if m and not where and ktext is not None:
            where = symbolize(rip, int(m.group(1), 16) - ktext, ksyms)
        res.detail(f'    @ {x}' + (f' {where}' if where else ''))


def scan_console(stage, path, res):
    try:
        with open(path, errors='replace') as f:
            lines = [clean(x) for x in f]
    except OSError:
        res.emit('FAIL', f'{stage}:console', f'cannot read {path}')
        return
    last = -SPLAT_WINDOW - 1
    injected = -SPLAT_WINDOW - 1
    nsplat = 0
    kernel_race_end = -1
    for i, line in enumerate(lines):
        text = KMSG_PREFIX_RE.sub('', line)
        if i <= kernel_race_end:
            continue
        if KCSAN_HEAD_RE.search(text):
            end = next((j for j in range(i + 1, min(len(lines), i + 200))
                        if KCSAN_END_RE.search(KMSG_PREFIX_RE.sub('', lines[j]))),
                       min(len(lines), i + 200) - 1)
            if not any(WSCHED_FRAME_RE.search(x) for x in lines[i:end + 1]):
                res.emit('SKIP', f'{stage}:console/kcsan-kernel-race-{i + 1}',
                         f'no wsched frame: {text.strip()[:140]}')
                kernel_race_end = end
                continue
        if any(b.search(text) for b in BENIGN_RES):
            continue
        if any(p.search(text) for p in INJECTED_RES):
            injected = i
            continue
        head = any(p.search(text) for p in SPLAT_HEAD_RES)
        if not head and i - injected <= SPLAT_WINDOW:
            continue  # the injected failure's own stack trace
        if not head and not any(p.search(text) for p in SPLAT_FOLLOW_RES):
            continue
        # a headline right after another matched line is the same report
        new = (head and i - last > 3) or i - last > SPLAT_WINDOW
        last = i
        if not new:
            continue
        nsplat += 1
        res.emit('FAIL', f'{stage}:console/splat', f'{os.path.basename(path)}:{i + 1}: {text.strip()[:160]}')
        for ctx in lines[i:i + 12]:
            res.detail(f'    | {ctx}')
    if nsplat == 0:
        res.emit('PASS', f'{stage}:console/no-splat')


def read_first_line(path):
    try:
        with open(path) as f:
            return f.readline().strip()
    except OSError:
        return ''


def main(argv):
    log = None
    verbose = False
    while argv and argv[0].startswith('-'):
        if argv[0] == '--all' and len(argv) > 1:
            log = open(argv[1], 'w')
            argv = argv[2:]
        elif argv[0] == '-v':
            verbose = True
            argv = argv[1:]
        else:
            break
    res = Results(log, verbose)
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    order = []
    for arg in argv:
        stage, _, d = arg.partition('=')
        order.append((stage, d))
        res.stages.setdefault(stage, [0, 0, 0])
        host = os.path.join(d, 'host.tap')
        if os.path.exists(host):
            with open(host) as f:
                parse_tap(f.readlines(), f'{stage}:host/', res, check_plan=False)
        rlog = os.path.join(d, 'results.log')
        clog = os.path.join(d, 'console.log')
        if stage == 'native' or os.path.exists(os.path.join(d, 'host-only')):
            if not os.path.exists(host):
                res.emit('FAIL', f'{stage}:host', 'no result')
            continue
        if not os.path.exists(clog):
            res.emit('FAIL', f'{stage}:boot', 'the stage did not boot')
            continue
        done = parse_results_log(stage, rlog, res)
        if done:
            res.emit('PASS', f'{stage}:final-marker')
        else:
            res.emit('FAIL', f'{stage}:final-marker', 'missing: guest timed out or crashed')
            lines = open(clog, errors='replace').read().splitlines()
            for line in lines[-25:]:
                res.detail(f'    | {clean(line)}')
            watchdog_summary(lines, res)
            vcpu_summary(lines, os.path.join(d, 'cpus.txt'), res, d)
        scan_console(stage, clog, res)
    for stage, d in order:
        p, f, sk = res.stages[stage]
        kernel = read_first_line(os.path.join(d, 'kernel'))
        secs = read_first_line(os.path.join(d, 'stage-seconds'))
        line = f'stage {stage}' + (f' ({kernel})' if kernel else '')
        line += f': {p} passed, {f} failed' + (f', {sk} skipped' if sk else '')
        if secs:
            line += f', {secs} s'
        res.detail(line)
    summary = f'{res.passed} passed, {res.failed} failed'
    if res.skipped:
        summary += f', {res.skipped} skipped'
    res.detail(summary)
    if log:
        log.close()
    return 1 if res.failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
