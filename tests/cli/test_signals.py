"""SIGTERM in a worker process forked from the CLI (a pool being shut down).

The CLI turns SIGTERM into a clean exit of its own process; a worker forked
from it inherits the handler, and must end quietly as SIGTERM ends a process
(it printed an ``analytic.cli._Terminated`` traceback when a solve's pool was
closed: ``analytic report models/secrets_of_christmas.toml``).
"""

from __future__ import annotations

import functools
import multiprocessing
import os
import signal
import time

from analytic.cli import _on_sigterm


def _child(ready):
    ready.set()
    time.sleep(30)


def test_forked_worker_ends_quietly_on_sigterm(capfd):
    old = signal.signal(signal.SIGTERM, functools.partial(_on_sigterm, os.getpid()))
    try:
        ctx = multiprocessing.get_context("fork")
        ready = ctx.Event()
        p = ctx.Process(target=_child, args=(ready,))
        p.start()
        assert ready.wait(20)
        p.terminate()  # SIGTERM, as Pool.terminate() sends
        p.join(20)
    finally:
        signal.signal(signal.SIGTERM, old)
    assert p.exitcode == -signal.SIGTERM
    assert "Traceback" not in capfd.readouterr().err
