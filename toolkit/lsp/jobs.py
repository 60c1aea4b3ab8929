"""Lint work off the event loop that a newer edit can stop.

A full lint of a large domain runs for minutes (the grammar parse is the slow
part), and an edit made meanwhile makes its result worthless: stale lints used
to run on (the full result of airport p50 arrived 436 s after the last edit,
and the process lived 112 s after ``exit``). Python threads cannot be killed,
but a pure-Python computation can be interrupted: :meth:`Job.cancel` raises
:class:`Cancelled` inside the job's thread at its next bytecode
(``PyThreadState_SetAsyncExc``, CPython's documented C API for this). Job
threads are daemons, so a pending job never keeps the process alive.
"""

from __future__ import annotations

import asyncio
import ctypes
import threading
from typing import Any, Callable


class Cancelled(BaseException):
    """Raised inside a job's thread when a newer edit made its work stale (a BaseException: no
    ``except Exception`` in the lint swallows it)."""


class Job:
    """One function call on a daemon thread, awaited from the event loop, stoppable with :meth:`cancel`."""

    def __init__(self, fn: Callable[..., Any], *args: Any, name: str = "pgt-lint") -> None:
        self.fn, self.args = fn, args
        self.cancelled = False
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._future: asyncio.Future | None = None

    def _run(self) -> None:
        try:
            result, error = self.fn(*self.args), None
        except Cancelled:
            return
        except BaseException as exc:  # noqa: BLE001 - handed to the awaiting coroutine
            result, error = None, exc
        loop, future = self._loop, self._future
        if loop is not None and future is not None and not loop.is_closed():
            loop.call_soon_threadsafe(_settle, future, result, error)

    async def result(self) -> Any:
        """Start the job and wait for its result (raises asyncio.CancelledError if cancelled meanwhile)."""
        self._loop = asyncio.get_running_loop()
        self._future = self._loop.create_future()
        self._thread.start()
        return await self._future

    def cancel(self) -> None:
        """Stop the job's thread at its next bytecode, and its awaiting coroutine."""
        self.cancelled = True
        ident = self._thread.ident
        if ident is not None and self._thread.is_alive():
            ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), ctypes.py_object(Cancelled))
        if self._future is not None and not self._future.done():
            self._future.cancel()

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()


def _settle(future: asyncio.Future, result: Any, error: BaseException | None) -> None:
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)
