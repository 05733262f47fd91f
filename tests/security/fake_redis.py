"""A Redis stand-in on a local socket for the throttle counter's protocol tests: it speaks RESP for the
commands the counter sends (AUTH, SELECT, INCR, EXPIRE), records them, and can refuse with an error reply
or drop its clients."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections import Counter
from types import TracebackType


class FakeRedis:
    def __init__(self, refuse: bytes | None = None) -> None:
        self.refuse = refuse  # answer every command with this error line instead
        self.commands: list[list[bytes]] = []
        self.counts: Counter[bytes] = Counter()
        self.expiries: dict[bytes, int] = {}
        self.connections = 0
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.02)  # accept() wakes up to see `_stopped`
        self._stopped = threading.Event()
        self.port = int(self._listener.getsockname()[1])
        self._clients: list[socket.socket] = []
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def __enter__(self) -> FakeRedis:
        self._thread.start()
        return self

    def __exit__(self, *exc: object | TracebackType) -> None:
        self._stopped.set()
        self._thread.join(timeout=5)
        self._listener.close()
        self.drop_clients()

    def drop_clients(self) -> None:
        for client in self._clients:
            with contextlib.suppress(OSError):  # the reader's file keeps the socket open past close()
                client.shutdown(socket.SHUT_RDWR)
            client.close()
        self._clients.clear()

    def _serve(self) -> None:
        while not self._stopped.is_set():
            try:
                client, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            client.settimeout(None)
            self.connections += 1
            self._clients.append(client)
            threading.Thread(target=self._talk, args=(client,), daemon=True).start()

    def _talk(self, client: socket.socket) -> None:
        reader = client.makefile("rb")
        try:
            while True:
                header = reader.readline()
                if not header:
                    return
                parts = []
                for _ in range(int(header[1:])):
                    size = int(reader.readline()[1:])
                    parts.append(reader.read(size + 2)[:-2])
                self.commands.append(parts)
                client.sendall(self._answer(parts) + b"\r\n")
        except (OSError, ValueError):
            return

    def _answer(self, parts: list[bytes]) -> bytes:
        if self.refuse is not None:
            return self.refuse
        name = parts[0].upper()
        if name == b"INCR":
            self.counts[parts[1]] += 1
            return b":%d" % self.counts[parts[1]]
        if name == b"EXPIRE":
            self.expiries[parts[1]] = int(parts[2])
            return b":1"
        return b"+OK"
