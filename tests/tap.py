# SPDX-License-Identifier: GPL-2.0-or-later
"""What the Python tests share: a decorator that lists a test, and a runner
that prints TAP, a failure's exception as comment lines, a skip with its
reason."""

import sys

_tests = []


class Skip(Exception):
    """Raised by a test that cannot run here; the message says why."""


def test(func):
    _tests.append(func)
    return func


def main():
    """Runs every test in the order listed; exits 1 when one failed."""
    print('1..%d' % len(_tests))
    failed = 0
    for i, func in enumerate(_tests, 1):
        try:
            func()
            print('ok %d %s' % (i, func.__name__))
        except Skip as e:
            print('ok %d %s # SKIP %s' % (i, func.__name__, e))
        except Exception as e:  # noqa: BLE001 - every failure is reported
            failed += 1
            print('not ok %d %s' % (i, func.__name__))
            for line in ('%s: %s' % (type(e).__name__, e)).splitlines():
                print('# ' + line)
    sys.exit(1 if failed else 0)


# For a test that makes many checks of one kind: each a TAP line.
_checks = []


def check(ok, what, detail=""):
    """One TAP line: @what, and when not @ok, @detail's last lines as comments."""
    _checks.append((bool(ok), what, detail or ""))


def report():
    """Prints the checks as TAP; returns the exit status (1 when one failed)."""
    print("1..%d" % len(_checks))
    for n, (ok, what, detail) in enumerate(_checks, 1):
        print("%s %d - %s" % ("ok" if ok else "not ok", n, what))
        if not ok:
            for line in detail.splitlines()[-30:]:
                print("# " + line)
    return 0 if all(ok for ok, _, _ in _checks) else 1
