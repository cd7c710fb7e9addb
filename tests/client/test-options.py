#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Every option that takes a value, of every command, as each command's
--help lists it, through one table of bad values: empty, negative, zero
where zero is not allowed, hex, "+5" and " 5". Each is refused with a
message naming the option and what it takes, exit 64 (jmem(1)), nothing on
stdout: never a default, never the live system instead. An option missing
from the table below fails the test, so that a new one is classified.
Prints TAP.
Usage: test-options.py JMEM FIXTURES"""

import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: tap, scratch
import tap
from tap import test

JMEM, FIXTURES = (os.path.abspath(a) for a in sys.argv[1:3])
ORIN = os.path.join(FIXTURES, 'trees', 'orin-agx-nvgpu')
TMP = tempfile.mkdtemp(prefix='jmem-test-options-')
HISTORY = os.path.join(TMP, 'history.jsonl')

BAD = ['', '-1', '0', '0x10', '+5', ' 5']

# What each option's value is:
#   number, number0 (zero allowed): digits only, within a range
#   size: a size (jmem_size_parse()), more than zero
#   word: one of a list
#   time: plot's times
#   input: a file or directory read (only the empty name is always wrong:
#          the others name nothing there, which is said, naming the option)
#   output: a file or directory written (only the empty name is wrong)
KINDS = {
    'snapshot': {'top': 'number0', 'width': 'number', 'sysroot': 'input', 'tegrastats': 'number'},
    'capture': {'tegrastats': 'number'},
    'allocations': {'pid': 'number0', 'width': 'number', 'sysroot': 'input'},
    'triage': {'width': 'number', 'sysroot': 'input', 'history': 'input', 'need': 'size',
               'tegrastats': 'number'},
    'drop-caches': {'level': 'number', 'width': 'number'},
    'audit': {'level': 'number', 'interval': 'number0', 'top': 'number0', 'width': 'number'},
    'headroom': {'need': 'size', 'for': 'word', 'width': 'number', 'sysroot': 'input'},
    'diff': {'history': 'input', 'top': 'number0', 'width': 'number'},
    'mcp': {'max-result-kib': 'number', 'sysroot': 'input', 'history': 'input'},
    'watch': {'interval': 'number', 'count': 'number0', 'output': 'output', 'max-bytes': 'size',
              'top': 'number0', 'sysroot': 'input'},
    'summary': {'watch': 'number', 'sysroot': 'input', 'history': 'input'},
    'metrics': {'series': 'word', 'textfile': 'output', 'history': 'input', 'tegrastats': 'number',
                'interval': 'number', 'top': 'number0', 'sysroot': 'input'},
    'top': {'interval': 'number', 'count': 'number0', 'replay': 'input', 'speed': 'number',
            'sysroot': 'input'},
    'plot': {'output': 'output', 'metric': 'word', 'top': 'number', 'pid': 'number0', 'since': 'time',
             'until': 'time', 'width': 'number', 'height': 'number'},
}

# What each command needs besides the option to reach it (plot reads its
# history before its times).
BASE = {
    'capture': [os.path.join(TMP, 'capture')],
    'plot': [HISTORY, '-o', os.path.join(TMP, 'plot.png')],
}


def jmem(*args):
    return subprocess.run([JMEM, *args], capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL, cwd=TMP)


def commands():
    r = jmem('--help')
    listed = r.stdout.split('Commands:\n', 1)[1].split('\n\n', 1)[0]
    # a summary too long for the line goes on under itself
    return re.findall(r'^  (\S+)', listed, re.M)


def options(command):
    """The options of @command that take a value, from its --help."""
    r = jmem(command, '--help')
    assert r.returncode == 0, r.stderr
    return set(re.findall(r'^\s+(?:-\w, )?--([a-z-]+)=', r.stdout, re.M))


def refused(command, option, value, status=64):
    """jmem COMMAND --OPTION=VALUE: its stderr, asserting it was refused."""
    # the option given last: GLib keeps the last of two
    args = [command] + BASE.get(command, []) + ['--%s=%s' % (option, value)]
    r = jmem(*args)
    where = 'jmem %s --%s=%r' % (command, option, value)
    assert r.returncode == status, '%s: exit %d, expected %d; stderr %r' % (where, r.returncode, status,
                                                                            r.stderr)
    assert r.stdout == '', '%s wrote %r' % (where, r.stdout)
    assert '--' + option in r.stderr, '%s does not name the option: %r' % (where, r.stderr)
    return r.stderr


@test
def every_option_is_in_the_table():
    listed = commands()
    assert sorted(listed) == sorted(KINDS), (listed, sorted(KINDS))
    for command in listed:
        found = options(command)
        assert found == set(KINDS[command]), '%s: --help lists %s, the table %s' % (
            command, sorted(found), sorted(KINDS[command]))


@test
def every_bad_value_is_refused():
    for command, kinds in KINDS.items():
        for option, kind in kinds.items():
            for value in BAD:
                if kind == 'number0' and value == '0':
                    continue
                if kind in ('input', 'output') and value != '':
                    continue
                err = refused(command, option, value)
                if kind.startswith('number'):
                    assert '--%s takes ' % option in err and '"%s"' % value in err, err
                elif kind in ('input', 'output'):
                    assert 'not an empty name' in err, err
                assert 'Try "jmem %s --help"' % command in err or kind in ('size', 'word', 'time'), err


@test
def zero_where_it_means_something_is_taken():
    for args in (['snapshot', '--sysroot', ORIN, '--top', '0'],
                 ['allocations', '--sysroot', ORIN, '--pid', '0'],
                 ['watch', '--sysroot', ORIN, '--count', '1', '--top', '0']):
        r = jmem(*args)
        assert r.returncode == 0, (args, r.returncode, r.stderr)


@test
def a_sysroot_that_names_nothing_is_one_message_and_69():
    # a name that is no directory, and a directory that holds no capture:
    # the same message with what to do, and 69, from every command
    empty = os.path.join(TMP, 'empty')
    os.mkdir(empty)
    for command, kinds in KINDS.items():
        if 'sysroot' not in kinds:
            continue
        for sysroot, why in ((os.path.join(TMP, 'no-such-tree'), 'there is no such directory'),
                             (HISTORY, 'it is not a directory')):
            r = jmem(command, '--sysroot', sysroot)
            assert r.returncode == 69, (command, sysroot, r.returncode, r.stderr)
            assert r.stderr == 'jmem %s: --sysroot %s holds no capture: %s (write one with `jmem ' \
                'capture DIR`)\n' % (command, sysroot, why), r.stderr
        # mcp reads the tree at each call; allocations reads only NvMap's part
        if command not in ('mcp', 'allocations'):
            r = jmem(command, '--sysroot', empty, *(['--count', '1'] if command in ('watch', 'top') else []))
            assert r.returncode == 69 and 'holds no capture' in r.stderr, (command, r.returncode, r.stderr)
            assert '(write one with `jmem capture DIR`)' in r.stderr, r.stderr


def main():
    r = subprocess.run([JMEM, 'watch', '--sysroot', ORIN, '--count', '2', '--interval', '1',
                        '--output', HISTORY], capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        print('Bail out! cannot record a history: ' + r.stderr)
        return 1
    try:
        return tap.main()
    finally:
        subprocess.run(['rm', '-rf', TMP])


if __name__ == '__main__':
    sys.exit(main())
