#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""docs/preflight.md's examples, extracted (preflight-examples.py) and run
against captured boards: the shell script and each systemd unit start the
job on a board where it fits and not on one where a TensorRT build holds
the memory, and say why. `jmem` here is the built one reading a capture
(--sysroot); a --drop is dropped from its arguments, which is exact only
where SIZE fits now or not at all (it then drops nothing): a board where
it would fit only after reclaim fails the test instead. The drop itself is
run by test-e2e-audit.c against the real helper. Prints TAP.
Usage: test-preflight.py JMEM FIXTURES DOCS PREFLIGHT-EXAMPLES"""

import atexit
import importlib.util
import os
import shlex
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: tap, scratch
import scratch
import tap
from tap import test

JMEM, FIXTURES, DOCS, EXAMPLES = sys.argv[1:5]
spec = importlib.util.spec_from_file_location('examples', EXAMPLES)
examples = importlib.util.module_from_spec(spec)
spec.loader.exec_module(examples)

TMP = scratch.mkdtemp('jmem-test-preflight-')
atexit.register(shutil.rmtree, TMP, True)
BIN = os.path.join(TMP, 'bin')
LOG = os.path.join(TMP, 'started.log')
UNITS = examples.extract(os.path.join(DOCS, 'preflight.md'), TMP)
JOBS = ('trtexec', 'ollama', 'deepstream-app')

os.makedirs(BIN)
with open(os.path.join(BIN, 'jmem'), 'w') as f:
    f.write('''#!/usr/bin/env python3
import os, subprocess, sys
args = sys.argv[1:]
drop = '--drop' in args
if args[:1] == ['headroom']:
    args = [a for a in args if a != '--drop'] + ['--sysroot', os.environ['PREFLIGHT_TREE']]
status = subprocess.run([os.environ['JMEM_EXE']] + args).returncode
if drop and status == 1:
    sys.stderr.write('test-preflight: this board fits only after reclaim: a capture cannot drop\\n')
    sys.exit(99)
sys.exit(status)
''')
for job in JOBS:
    with open(os.path.join(BIN, job), 'w') as f:
        f.write('#!/bin/sh\necho "%s $*" >> "%s"\n' % (job, LOG))
for name in os.listdir(BIN):
    os.chmod(os.path.join(BIN, name), 0o755)



def env(tree):
    return dict(os.environ, PATH=BIN + ':' + TMP + ':' + os.environ['PATH'], JMEM_EXE=JMEM,
                PREFLIGHT_TREE=os.path.join(FIXTURES, 'trees', tree))


def started():
    if not os.path.exists(LOG):
        return []
    with open(LOG) as f:
        lines = f.read().splitlines()
    os.unlink(LOG)
    return lines


def sh(command, tree):
    return subprocess.run(['sh', '-c', command], env=env(tree), capture_output=True, text=True,
                          timeout=120)


def usage_lines():
    with open(os.path.join(TMP, 'usage.sh')) as f:
        return [l for l in f.read().splitlines() if l.strip()]


@test
def script_starts_each_job_where_it_fits():
    lines = usage_lines()
    assert [shlex.split(l)[2] for l in lines] == list(JOBS), lines
    for line in lines:
        r = sh(line, 'orin-agx-nvgpu')
        assert r.returncode == 0, (line, r.returncode, r.stderr)
        job = shlex.split(line)[2:]
        assert started() == [' '.join(job)], line
        assert r.stdout.startswith('Fits now: '), r.stdout


@test
def script_starts_nothing_where_a_build_holds_the_memory():
    for line in usage_lines():
        r = sh(line, 'headroom-nvmap')
        assert r.returncode == 75, (line, r.returncode, r.stderr)
        assert started() == [], line
        assert r.stdout.startswith('Does not fit: '), r.stdout
        # jmem says what holds it; the script says what it did not start
        assert '  - held by PID 7100 trtexec 5.9 GiB, 5.5 GiB of it NvMap' in r.stdout, r.stdout
        assert 'does not fit; not starting %s' % shlex.split(line)[2] in r.stderr, r.stderr


@test
def script_refuses_bad_use():
    r = sh('jmem-preflight 9G', 'orin-agx-nvgpu')
    assert r.returncode == 64 and 'usage: jmem-preflight SIZE COMMAND' in r.stderr, r.stderr
    r = sh('jmem-preflight 9X trtexec', 'orin-agx-nvgpu')
    assert r.returncode == 75 and started() == [], r.stderr
    assert 'unknown unit "X"' in r.stderr and 'jmem headroom failed (exit 64)' in r.stderr, r.stderr


def unit_lines(name, key):
    with open(os.path.join(TMP, 'units', name)) as f:
        return [l.split('=', 1)[1] for l in f.read().splitlines() if l.startswith(key + '=')]


def start_unit(name, tree):
    """What systemd does at start: each ExecStartPre=, stopping at the
    first that fails, then ExecStart=. /usr/bin/ is left to PATH."""
    for pre in unit_lines(name, 'ExecStartPre'):
        r = sh(pre.replace('/usr/bin/', ''), tree)
        if r.returncode != 0:
            return r
    for main in unit_lines(name, 'ExecStart'):
        r = sh(main.replace('/usr/bin/', ''), tree)
    return r


@test
def units_guard_their_start():
    assert sorted(UNITS) == ['deepstream.service', 'ollama.service.d@headroom.conf',
                             'trt-engine.service'], UNITS
    for name in UNITS:
        pres = unit_lines(name, 'ExecStartPre')
        assert len(pres) == 1 and pres[0].startswith('/usr/bin/jmem headroom --need '), (name, pres)
        r = start_unit(name, 'orin-agx-nvgpu')
        assert r.returncode == 0, (name, r.stderr)
        jobs = started()
        # the drop-in adds only the check: the package's unit has the ExecStart
        assert len(jobs) == (0 if name.endswith('.conf') else 1), (name, jobs)
        r = start_unit(name, 'headroom-nvmap')
        assert r.returncode == 2, (name, r.returncode, r.stderr)
        assert started() == [] and 'held by PID 7100 trtexec' in r.stdout, (name, r.stdout)


tap.main()
