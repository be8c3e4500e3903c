#!/usr/bin/python3
"""ssh's ProxyCommand for the lab: connects to HOST PORT from inside the lab's control
namespace (the caller runs it with `ip netns exec`) and relays bytes between that connection
and stdin/stdout. This is how an ssh client in the root namespace reaches a lab host's sshd
without any address or route outside the namespaces. Standard library only.

Exit status 0 when either side closes, 255 (ssh's own code for "could not connect") when the
connection cannot be made, with the reason on stderr, which ssh shows the user.
"""

import os
import socket
import sys
import threading

CONNECT_TIMEOUT_S = 5
CHUNK = 65536


def copy_stdin_to(sock):
    while True:
        data = os.read(0, CHUNK)
        if not data:
            break
        sock.sendall(data)
    try:
        sock.shutdown(socket.SHUT_WR)  # ssh closed its side: pass the EOF on
    except OSError:
        pass


def main(argv):
    if len(argv) != 3:
        print("usage: netns_relay.py HOST PORT", file=sys.stderr)
        return 2
    host, port = argv[1], argv[2]
    try:
        sock = socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT_S)
    except (OSError, ValueError) as error:
        print(f"netns_relay: cannot connect to {host}:{port}: {error}", file=sys.stderr)
        return 255
    sock.settimeout(None)
    threading.Thread(target=copy_stdin_to, args=(sock,), daemon=True).start()
    try:
        while True:
            data = sock.recv(CHUNK)
            if not data:
                return 0
            os.write(1, data)
    except OSError:
        return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
