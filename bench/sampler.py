"""A sampling profiler for every thread of this process (cProfile sees only one thread).

The publisher works in thread pools (channels side by side, images a few at a time), so
the question "where does a publish's local time go" needs every thread's stack. This
samples ``sys._current_frames()`` every few milliseconds and counts, per function, the
share of samples in which it is on a stack (cumulative) or on top (own), the way py-spy
summarises, without a tool to install. Threads blocked on a socket or a lock count as
waiting, apart from work: a function of that name on top of the stack, and also a Python
function stopped at a C call that blocks (``lock.acquire()``, ``sock.sendall()``) or at
the ``with`` that takes a lock (``with self._lock:`` enters the lock in C, so without
this look at the frame's instruction the function holding the ``with`` seemed to work:
the ledger's ``find_asset`` waiting for its lock was half of a profile's "work").
"""

from __future__ import annotations

import dis
import sys
import threading
from collections import Counter
from functools import cache
from pathlib import Path
from types import CodeType, FrameType, TracebackType

from crosspost.issue.collector import collector_paused

#: Functions on top of a stack that mean the thread waits rather than works.
WAITS = frozenset(
    {"recv_into", "readinto", "recv", "select", "poll", "acquire", "wait", "sleep", "accept"}
)
#: C functions that block, called from a Python frame (the frame is then the top one).
BLOCKING_CALLS = WAITS | {"sendall", "connect"}
#: Instructions that load what a call calls.
_LOADS = frozenset({"LOAD_METHOD", "LOAD_ATTR", "LOAD_GLOBAL", "LOAD_NAME"})


@cache
def _instructions(code: CodeType) -> tuple[list[dis.Instruction], dict[int, int]]:
    """``code``'s instructions, and the index of each by its offset."""
    listed = list(dis.get_instructions(code))
    return listed, {each.offset: index for index, each in enumerate(listed)}


@cache
def _blocked_at(code: CodeType, offset: int) -> bool:
    """Whether the instruction at ``offset`` (a frame's ``f_lasti``) is one a thread
    blocks in without a Python frame of its own: a ``with`` entering a C context manager
    (a lock), or a call of a C function named in :data:`BLOCKING_CALLS`."""
    listed, by_offset = _instructions(code)
    index = by_offset.get(offset)
    if index is None:
        return False
    instruction = listed[index]
    if instruction.opname == "BEFORE_WITH":
        return True
    if instruction.opname != "CALL":
        return False
    # Walk back over the arguments (their net stack effect is the call's count) to the
    # instruction that loaded the callable. Straight-line arguments only: a jump among
    # them and the answer is "working", as before.
    wanted, pushed = instruction.arg or 0, 0
    for earlier in reversed(listed[:index]):
        if earlier.opname in ("PRECALL", "KW_NAMES", "CACHE"):
            continue
        if pushed >= wanted:
            return earlier.opname in _LOADS and earlier.argval in BLOCKING_CALLS
        try:
            pushed += dis.stack_effect(earlier.opcode, earlier.arg, jump=False)
        except ValueError:
            return False
    return False


def _name(frame: FrameType) -> str:
    code = frame.f_code
    parts = Path(code.co_filename).parts
    where = (
        "/".join(parts[-2:])
        if "crosspost" not in parts
        else "/".join(parts[parts.index("crosspost") :])
    )
    return f"{where}:{code.co_name}"


class Sampler:
    """``with Sampler() as s: ...`` then :meth:`table`."""

    def __init__(self, interval: float = 0.002) -> None:
        self.interval = interval
        self.cumulative: Counter[str] = Counter()
        self.own: Counter[str] = Counter()
        self.samples = 0
        self.waiting = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="sampler", daemon=True)

    def _run(self) -> None:
        me = threading.get_ident()
        while not self._stop.wait(self.interval):
            # One sample per call: the frames it holds are let go when it returns. A frame
            # held past its function's return would keep that function's locals (a cursor,
            # a connection, a socket) alive while the sampler sleeps.
            self._sample(me)

    def _sample(self, me: int) -> None:
        # Python 3.11 may collect garbage inside sys._current_frames() while it holds the
        # interpreter's lock on the thread list, and a finalizer that needs that lock
        # (a thread-local's) then waits for ever: the whole process stops. With the
        # collector paused there is no collection to run there.
        with collector_paused():
            frames = sys._current_frames()
        for ident, frame in frames.items():
            if ident == me:
                continue
            stack = []
            current: FrameType | None = frame
            while current is not None:
                stack.append(_name(current))
                current = current.f_back
            if frame.f_code.co_name in WAITS or _blocked_at(frame.f_code, frame.f_lasti):
                self.waiting += 1
                continue
            if not any("crosspost" in entry for entry in stack):
                continue  # idle pool threads, the interpreter's own
            self.samples += 1
            self.own[stack[0]] += 1
            for entry in set(stack):
                self.cumulative[entry] += 1

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        self._thread.join()

    def table(self, count: int = 15) -> list[str]:
        """The busiest crosspost functions (on a stack) and the busiest frames (on top), as
        lines of text; shares are of the samples in which a crosspost thread was working."""
        total = max(1, self.samples)
        ours = [(n, h) for n, h in self.cumulative.most_common() if n.startswith("crosspost/")]
        lines = [
            f"{self.samples} working samples, {self.waiting} waiting (socket or lock), "
            f"every {self.interval * 1000:.0f} ms",
            "",
            "on the stack  crosspost function",
            *(f"{hits / total:12.0%}  {name}" for name, hits in ours[:count]),
            "",
            "on top       function (where the thread actually was)",
            *(f"{hits / total:12.0%}  {name}" for name, hits in self.own.most_common(count)),
        ]
        return lines
