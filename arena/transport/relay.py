"""The bridge to a sandboxed bot that listens on TCP.

A sandbox offers its bot a Unix socket, which some runtimes cannot listen on
(grpc-java on Debian: Netty's native transport is not packaged). Such a bot
listens on a loopback port of the sandbox's own network namespace instead,
where nothing of the host can reach it. The arena listens on a Unix socket
of its own on the host and carries each connection to that port: its TCP
socket is made by a short-lived thread that has entered the sandbox's network
namespace (``setns``), so the socket belongs there; the bytes are then copied
by trio tasks. The bot's side of the namespace is never joined by anything else.
"""

from __future__ import annotations

import ctypes
import errno
import os
import socket
import threading
from pathlib import Path

import trio

from arena.errors import BotError, ConfigError, FaultKind

CLONE_NEWNET = 0x40000000
CHUNK_BYTES = 1 << 16
_libc = ctypes.CDLL(None, use_errno=True)


def _setns(fd: int) -> None:
    if _libc.setns(fd, CLONE_NEWNET) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


def socket_in_namespace(namespace: Path, family: int) -> socket.socket:
    """A new TCP socket of the network namespace ``namespace`` (a
    /proc/PID/ns/net path), made in a thread of its own that enters it and
    ends there, so that no other thread of the arena ever runs inside it."""
    box: list[socket.socket | BaseException] = []

    def make() -> None:
        try:
            fd = os.open(namespace, os.O_RDONLY | os.O_CLOEXEC)
            try:
                _setns(fd)
            finally:
                os.close(fd)
            box.append(socket.socket(family, socket.SOCK_STREAM))
        except BaseException as e:  # handed back to the caller's thread
            box.append(e)

    thread = threading.Thread(target=make, name="arena-netns", daemon=True)
    thread.start()
    thread.join()
    (made,) = box
    if isinstance(made, BaseException):
        raise made
    return made


def parse_loopback(address: str) -> tuple[int, str, int] | None:
    """``(family, host, port)`` of a loopback TCP address a bot printed
    (``127.0.0.1:PORT``, ``localhost:PORT``, ``[::1]:PORT``), or None."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or not 0 < int(port) < 65536:
        return None
    if host in ("127.0.0.1", "localhost"):
        return socket.AF_INET, "127.0.0.1", int(port)
    if host in ("[::1]", "::1"):
        return socket.AF_INET6, "::1", int(port)
    return None


async def _copy(source: trio.SocketStream, sink: trio.SocketStream) -> None:
    try:
        while data := await source.receive_some(CHUNK_BYTES):
            await sink.send_all(data)
        await sink.send_eof()
    except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
        pass


Target = tuple[int, str, int]  # family, host, port


async def _carry(host_side: trio.SocketStream, namespace: Path, target: Target) -> None:
    family, host, port = target
    async with host_side:
        try:
            raw = await trio.to_thread.run_sync(socket_in_namespace, namespace, family)
        except OSError:
            return  # the sandbox is gone: the bot's death is reported elsewhere
        tcp = trio.socket.from_stdlib_socket(raw)
        try:
            await tcp.connect((host, port))
        except OSError:
            tcp.close()
            return  # refused: to the arena's channel, a failed connection
        tcp.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        async with trio.SocketStream(tcp) as bot_side, trio.open_nursery() as nursery:
            nursery.start_soon(_copy, host_side, bot_side)
            await _copy(bot_side, host_side)
            nursery.cancel_scope.cancel()


async def check_reachable(namespace: Path, target: tuple[int, str, int]) -> None:
    """Connect once to the port the bot says it listens on, inside its
    namespace: BotError(STALL) when nothing listens there; ConfigError when
    this arena may not enter the namespace (entering another network
    namespace takes CAP_SYS_ADMIN, which an arena that is not root lacks)."""
    family, host, port = target
    try:
        raw = await trio.to_thread.run_sync(socket_in_namespace, namespace, family)
    except PermissionError:
        raise ConfigError(
            f"the bot listens on TCP ({host}:{port}) inside its sandbox, which only an arena "
            "running as root can reach: run the arena as root, or have the bot listen where "
            "$SCOPA_BOT_LISTEN says (a Unix socket)"
        ) from None
    tcp = trio.socket.from_stdlib_socket(raw)
    try:
        await tcp.connect((host, port))
    except OSError as e:
        why = os.strerror(e.errno) if e.errno else str(e)
        if e.errno == errno.ECONNREFUSED:
            why = "connection refused"
        raise BotError(
            FaultKind.STALL, f"it printed LISTENING {host}:{port} but nothing listens there: {why}"
        ) from None
    finally:
        tcp.close()


async def serve_relay(
    listen_path: Path,
    namespace: Path,
    target: tuple[int, str, int],
    *,
    task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Accept on the Unix socket ``listen_path`` and carry every connection to
    ``target`` inside the network namespace ``namespace``, until cancelled."""
    listener = trio.socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    with listener:
        await listener.bind(str(listen_path))
        listener.listen(16)
        task_status.started()
        async with trio.open_nursery() as nursery:
            while True:
                conn, _ = await listener.accept()
                nursery.start_soon(_carry, trio.SocketStream(conn), namespace, target)
