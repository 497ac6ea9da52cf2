#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Record where a guest's vCPUs are, through QEMU's monitor.

Usage: monitor-dump.py SOCKET OUTPUT DELAY [quit]

Sleeps DELAY seconds, then asks the HMP monitor listening on the UNIX
socket SOCKET for "info cpus" and "info registers -a" and writes the answer
to OUTPUT.  run.sh starts it beside every boot, to fire shortly before the
boot's timeout and kills it when QEMU exits first: a guest that stopped
running user space (so that the stall watchdog of guest-init.sh never
fired) still leaves its instruction pointers.  Exits 0 whatever happens:
this is evidence for a failure already reported, never a failure itself.
With "quit" it then stops QEMU (run.sh's boot watch, for a guest that hung
before its /init printed anything).
"""

import socket
import sys
import time


def read_until_quiet(sock, quiet=2.0, limit=20.0):
    sock.settimeout(quiet)
    out = b''
    end = time.monotonic() + limit
    while time.monotonic() < end:
        try:
            chunk = sock.recv(65536)
        except socket.timeout:
            break
        if not chunk:
            break
        out += chunk
    return out


def main(argv):
    if len(argv) not in (3, 4) or (len(argv) == 4 and argv[3] != 'quit'):
        print(__doc__, file=sys.stderr)
        return 0
    path, output, delay = argv[0], argv[1], float(argv[2])
    quit_after = len(argv) == 4
    time.sleep(delay)
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.connect(path)
            text = read_until_quiet(sock)
            for cmd in (b'info cpus\n', b'info registers -a\n'):
                sock.sendall(cmd)
                text += read_until_quiet(sock)
            if quit_after:
                sock.sendall(b'quit\n')
                text += read_until_quiet(sock)
    except OSError as e:
        text = f'monitor-dump: {path}: {e}\n'.encode()
    with open(output, 'wb') as f:
        f.write(text)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
