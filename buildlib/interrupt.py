"""Ctrl-C and SIGTERM: the build stops cleanly, never half-writes, and never exits 0 after one.

Python turns SIGINT into KeyboardInterrupt wherever the main thread happens to be, including a
finalizer (`__del__`), where the exception is printed and dropped and the build would carry on
and write. So the handler also remembers the signal: `raise_if_interrupted()` before the commit
refuses to write, and `run_guarded` never returns 0 once a signal came. SIGTERM gets the same
handler, so every `finally` runs (temporary folders, the kernel's shutdown) instead of the
process vanishing. Only the first signal raises: a second Ctrl-C must not break the cleanup the
first one started. During the commit itself (`signals_blocked`) the signals wait until every
rename is done.
"""

from __future__ import annotations

import contextlib
import signal
import sys

SIGNALS = (signal.SIGINT, signal.SIGTERM)
_received: list[int] = []


class Interrupted(KeyboardInterrupt):
    """A signal asked the build to stop."""


_holding: list[bool] = []  # non-empty while a commit renames


def _handler(signum, frame) -> None:
    _received.append(signum)
    if len(_received) == 1 and not _holding:
        raise Interrupted(signal.Signals(signum).name)


def raise_if_interrupted() -> None:
    """Before writing: a signal swallowed on the way (in a finalizer) still stops the build."""
    if _received:
        raise Interrupted(signal.Signals(_received[0]).name)


@contextlib.contextmanager
def signals_blocked():
    """Hold SIGINT and SIGTERM until the block ends (the renames of one commit).

    The mask holds them for this thread; a signal that another thread (zmq's, the kernel
    client's) receives still runs Python's handler here, which then only records it."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)
    _holding.append(True)
    try:
        yield
    finally:
        _holding.clear()
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def run_guarded(func, *args) -> int:
    """Run a command with the handlers installed; 130 (143 for SIGTERM) once a signal came."""
    _received.clear()
    old = {s: signal.signal(s, _handler) for s in SIGNALS}
    try:
        code = func(*args)
    except KeyboardInterrupt:
        code = None
    except BaseException:
        if not _received:
            raise
        code = None  # an error the interruption caused (the kernel got the Ctrl-C too)
    finally:
        for s, h in old.items():
            signal.signal(s, h)
    if _received or code is None:
        name = signal.Signals(_received[0]).name if _received else "SIGINT"
        print(f"error: interrupted ({name}); outputs are all as before or all new", file=sys.stderr)
        return 128 + (_received[0] if _received else signal.SIGINT)
    return code
