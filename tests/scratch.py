# SPDX-License-Identifier: GPL-2.0-or-later
"""What every Python test imports: its scratch folders go however it ends,
and its output reaches the log as it goes.

- mkdtemp(prefix) and TemporaryDirectory(prefix=...) make folders in /tmp
  that are removed at exit, on SIGTERM, SIGHUP and SIGINT (meson's timeout
  sends SIGTERM; `finally:` does not run then), and after SIGKILL (which
  meson sends half a second later, before a large capture is removed): a
  watcher in a session of its own removes them once the pipe only this
  process holds ends, as the sandbox's watcher does.
- at_kill(argv...): a command the watcher runs then, to stop a server the
  test started in a session of its own.
- stdout is line-buffered, so a killed test's log shows its last step;
  step(...) prints one such progress line.
- scaled(seconds): a test's own deadline times JMEM_TEST_TIMEOUT_MULTIPLIER,
  the factor scripts/test and debian/rules pass to meson for a loaded machine.
"""
import atexit
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile

_WATCHER = r"""
import json, shutil, subprocess, sys
steps = [json.loads(line) for line in sys.stdin]
for kind, arg in steps:
    if kind == "run":
        subprocess.run(arg, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=30)
for kind, arg in steps:
    if kind == "rm":
        shutil.rmtree(arg, ignore_errors=True)
"""
_paths = []
_watcher = None


def _start_watcher():
    global _watcher
    if _watcher is None:
        # its stdout and stderr elsewhere, so that meson does not wait for it
        _watcher = subprocess.Popen([sys.executable, "-c", _WATCHER], stdin=subprocess.PIPE,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                    start_new_session=True, text=True)
        atexit.register(_remove_all)


def _remove_all():
    for path in _paths:
        shutil.rmtree(path, ignore_errors=True)
    if _watcher is not None:
        _watcher.stdin.close()
        _watcher.wait()


def _on_signal(signum, _frame):
    # SystemExit runs the `finally:` clauses and atexit on the way out
    sys.exit(128 + signum)


def _tell_watcher(kind, arg):
    _start_watcher()
    _watcher.stdin.write(json.dumps([kind, arg]) + "\n")
    _watcher.stdin.flush()


def mkdtemp(prefix):
    """A folder in /tmp that goes when this process ends, however it ends."""
    path = tempfile.mkdtemp(prefix=prefix)
    _paths.append(path)
    _tell_watcher("rm", path)
    return path


def at_kill(*argv):
    """Runs @argv (stopping a server this test started: a tmux server is
    in a session of its own) if this process is killed, before the folders
    go."""
    _tell_watcher("run", list(argv))


class TemporaryDirectory:
    """tempfile.TemporaryDirectory whose folder also goes on a kill."""

    def __init__(self, prefix="jmem-test-"):
        self.name = mkdtemp(prefix)

    def __enter__(self):
        return self.name

    def __exit__(self, *exc):
        shutil.rmtree(self.name, ignore_errors=True)


def scaled(seconds):
    try:
        factor = float(os.environ.get("JMEM_TEST_TIMEOUT_MULTIPLIER", "1"))
    except ValueError:
        factor = 1.0
    return seconds * max(factor, 1.0)


def step(*what):
    print("#", *what)


for _sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
    signal.signal(_sig, _on_signal)
sys.stdout.reconfigure(line_buffering=True)
