"""A stranger speaking ZMTP 3.0, ZeroMQ's wire protocol (rfc.zeromq.org/spec/23), with Python's
standard library: it connects to a netprof ZeroMQ endpoint over tcp or ipc, greets it with the
NULL mechanism (no security), says which socket type it is, and then sends whatever frames the
test wants, however large they claim to be. Only what the tests need.
"""

import socket
import struct
import time

GREETING_BYTES = 64
NETPROF_MAGIC = b"NPRF"  # the first bytes of every netprof message (wire.hpp, little-endian)


def greeting(mechanism=b"NULL"):
    """Signature, version 3.0, mechanism, as-server 0, filler: 64 bytes."""
    return (b"\xff" + b"\0" * 8 + b"\x7f" + bytes([3, 0]) + mechanism.ljust(20, b"\0")
            + b"\0" + b"\0" * 31)


def frame_header(size, command=False):
    """A frame's flags and size: one size byte up to 255, else eight (the LONG flag)."""
    flags = 0x04 if command else 0
    if size > 255:
        return bytes([flags | 0x02]) + struct.pack(">Q", size)
    return bytes([flags, size])


def frame(body, command=False):
    return frame_header(len(body), command) + body


def ready(socket_type):
    name = b"Socket-Type"
    properties = bytes([len(name)]) + name + struct.pack(">I", len(socket_type)) + socket_type
    return frame(bytes([5]) + b"READY" + properties, command=True)


class Stranger:
    """One connection. `address` is (host, port) for tcp or a path for ipc."""

    def __init__(self, address, receive_buffer=None, timeout_s=5):
        """Connects within timeout_s: a netprof started a moment ago may not listen yet (a
        loaded host, a sanitizer build), so a refused connection is tried again."""
        family = socket.AF_UNIX if isinstance(address, str) else socket.AF_INET
        deadline = time.monotonic() + timeout_s
        while True:
            self.sock = socket.socket(family, socket.SOCK_STREAM)
            if receive_buffer:
                # Before connecting, so the window it advertises stays small.
                self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
            self.sock.settimeout(timeout_s)
            try:
                self.sock.connect(address)
                return
            except (ConnectionRefusedError, FileNotFoundError):
                self.sock.close()
                if time.monotonic() >= deadline:
                    raise
                time.sleep(0.05)

    def greet(self, socket_type=b"SUB"):
        """Exchanges greetings and sends READY; returns the peer's greeting (b"" if it hung
        up, as a CURVE server does with a NULL client)."""
        self.sock.sendall(greeting())
        theirs = self.receive_exactly(GREETING_BYTES)
        self.sock.sendall(ready(socket_type))
        return theirs

    def subscribe_to_everything(self):
        self.sock.sendall(frame(b"\x01"))

    def receive_exactly(self, count):
        got = b""
        while len(got) < count:
            chunk = self.sock.recv(count - len(got))
            if not chunk:
                break
            got += chunk
        return got

    def receive_for(self, seconds):
        """Everything that arrives within `seconds`, or until the peer hangs up."""
        got = b""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            self.sock.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                break
            except OSError:
                break
            if not chunk:
                break
            got += chunk
        return got

    def send_oversized(self, announced, send_bytes):
        """Announces a frame of `announced` bytes and sends up to `send_bytes` of it; returns
        how many went before the peer closed the connection."""
        sent = 0
        chunk = b"\0" * 65536
        try:
            self.sock.sendall(frame_header(announced))
            while sent < send_bytes:
                self.sock.sendall(chunk)
                sent += len(chunk)
        except OSError:
            pass
        return sent

    def close(self):
        self.sock.close()
