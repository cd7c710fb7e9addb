#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""jmem headroom on the captured trees: each verdict and its exit status,
the reason it names, the figures against the tree's own files, the JSON
against docs/headroom.schema.json, human lines within 80 columns, and every
usage error with exit 64. Prints TAP.
Usage: test-headroom.py JMEM FIXTURES VALIDATOR DOCS"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: tap, scratch
import tap
from tap import test

JMEM, FIXTURES, VALIDATOR, DOCS = sys.argv[1:5]
TREES = os.path.join(FIXTURES, 'trees')
GIB = 1024 * 1024



def jmem(*args):
    return subprocess.run([JMEM, 'headroom', '--no-ask-password', *args], capture_output=True,
                          text=True, timeout=120)


def on(tree, *args):
    return jmem('--sysroot', os.path.join(TREES, tree), *args)


def doc(tree, *args):
    """The JSON document, checked against its schema, and the exit status."""
    r = on(tree, '--json', *args)
    assert r.returncode in (0, 1, 2), r.stderr
    v = subprocess.run(['python3', VALIDATOR, os.path.join(DOCS, 'headroom.schema.json'), '-'],
                       input=r.stdout, capture_output=True, text=True, timeout=60)
    assert v.returncode == 0, v.stdout + v.stderr
    d = json.loads(r.stdout)
    assert d['exit_status'] == r.returncode, (d['exit_status'], r.returncode)
    return d['headroom'], r.returncode


def meminfo(tree, field):
    with open(os.path.join(TREES, tree, 'proc', 'meminfo')) as f:
        for line in f:
            name, value = line.split(':', 1)
            if name == field:
                return int(value.split()[0])
    raise KeyError(field)


def term(h, name):
    return next(t for t in h['terms'] if t['name'] == name)


def human(tree, *args):
    r = on(tree, *args)
    for line in r.stdout.splitlines():
        assert len(line) <= 80, 'wider than 80 columns: %r' % line
    return r


@test
def fits_now():
    h, status = doc('r36-orin-nano', '--need', '2G')
    assert status == 0 and h['verdict'] == 'fits-now', (status, h['verdict'])
    assert h['need_kib'] == 2 * GIB and h['shortfall_kib'] == 0
    assert h['actions'] == [], h['actions']
    # now is MemFree - CmaFree - min_free_kbytes + NvMap's pool, from the tree's files
    with open(os.path.join(TREES, 'r36-orin-nano', 'proc', 'sys', 'vm', 'min_free_kbytes')) as f:
        reserve = int(f.read())
    pool = term(h, 'nvmap_pool')['kib']
    assert pool == (7000 + 168) * 4, pool
    assert h['allocatable_now_kib'] == (meminfo('r36-orin-nano', 'MemFree') - meminfo('r36-orin-nano', 'CmaFree')
                                        - reserve + pool), h['allocatable_now_kib']
    r = human('r36-orin-nano', '--need', '2G')
    assert r.returncode == 0 and r.stdout.startswith('Fits now: 2.0 GiB needed'), r.stdout


@test
def fits_only_after_dropping_six_gib_of_page_cache():
    h, status = doc('headroom-page-cache', '--need', '7.5G')
    assert status == 1 and h['verdict'] == 'fits-after-reclaim', (status, h['verdict'])
    # what must be freed is about 6 GiB, and dropping the caches gives that
    assert 6 * GIB <= h['shortfall_kib'] <= h['drop_caches_kib'], (h['shortfall_kib'], h['drop_caches_kib'])
    cache = meminfo('headroom-page-cache', 'Active(file)') + meminfo('headroom-page-cache', 'Inactive(file)')
    assert term(h, 'page_cache')['kib'] == cache - meminfo('headroom-page-cache', 'Mapped')
    assert h['actions'][0]['action'].startswith('jmem drop-caches: frees up to 8.9 GiB'), h['actions']
    # the command as one types it, with the need (7.5G is 7680M)
    assert 'jmem headroom --need 7680M --drop does it' in h['actions'][0]['action'], h['actions']
    # the jmem group's members drop caches without an administrator
    assert h['actions'][0]['admin'] is False, h['actions']
    r = human('headroom-page-cache', '--need', '7.5G')
    assert r.returncode == 1
    assert r.stdout.startswith('Fits after reclaim: 7.5 GiB needed, 1.3 GiB allocatable now'), r.stdout
    assert '  - jmem drop-caches: frees up to 8.9 GiB' in r.stdout, r.stdout


@test
def does_not_fit_names_the_nvmap_holder():
    h, status = doc('headroom-nvmap', '--need', '4G')
    assert status == 2 and h['verdict'] == 'does-not-fit', (status, h['verdict'])
    first = h['holders'][0]
    assert (first['pid'], first['name'], first['nvmap_kib']) == (7100, 'trtexec', 5767168), first
    assert h['shortfall_kib'] == 4 * GIB - h['allocatable_after_reclaim_kib']
    assert not any('drop-caches' in a['action'] for a in h['actions']), h['actions']
    r = human('headroom-nvmap', '--need', '4G')
    assert r.returncode == 2
    lines = r.stdout.splitlines()
    assert lines[0].startswith('Does not fit: 4.0 GiB needed'), r.stdout
    assert '  - held by PID 7100 trtexec 5.9 GiB, 5.5 GiB of it NvMap' in lines, r.stdout


@test
def fits_by_total_but_fragmented():
    h, status = doc('headroom-fragmented', '--need', '2G')
    assert status == 0 and h['verdict'] == 'fits-now', (status, h['verdict'])
    assert h['fragmented'] is True
    # no block above order 3 of 4 KiB pages; buddyinfo's blocks are MemFree
    assert h['largest_free_block_kib'] == 32 and h['page_size_bytes'] == 4096
    assert h['huge_free_kib'] == 0
    assert h['buddy_free_kib'] == meminfo('headroom-fragmented', 'MemFree'), h['buddy_free_kib']
    assert any('fragmented' in a['action'] and '--compact' in a['action'] for a in h['actions']), h['actions']
    r = human('headroom-fragmented', '--need', '2G')
    assert 'Largest free block      32 KiB' in r.stdout, r.stdout
    # and triage says so, from the same figures
    t = subprocess.run([JMEM, 'triage', '--json', '--sysroot', os.path.join(TREES, 'headroom-fragmented')],
                       capture_output=True, text=True, timeout=60)
    ids = [f['id'] for f in json.loads(t.stdout)['findings']]
    assert 'fragmented' in ids, ids


@test
def thor_counts_its_gpu_carveout():
    carveout = meminfo('thor-unified', 'HugePages_Free') * meminfo('thor-unified', 'Hugepagesize')
    h, status = doc('thor-unified', '--need', '47G')
    assert h['gpu_carveout'] is True
    assert term(h, 'gpu_carveout')['kib'] == carveout == 2 * GIB
    # 47G fits now only with the carveout's free huge pages
    assert h['allocatable_now_kib'] - carveout < 47 * GIB <= h['allocatable_now_kib'], h['allocatable_now_kib']
    assert status == 0 and h['verdict'] == 'fits-now'
    assert h['app_note_kib'] is None and any('unified stack has no NvMap' in n for n in h['notes'])
    r = human('thor-unified', '--need', '47G')
    assert re.search(r'^Huge pages free +2\.0 GiB  free of 6\.0 GiB', r.stdout, re.M), r.stdout


@test
def r38_pool_counts_in_after_reclaim():
    """thor-r38-pool: 20 GiB stays pooled by R38's driver after the model
    exited; dropping caches returns it (its shrinker), so 70G fits after
    reclaim instead of falling 9.7 GiB short."""
    h, status = doc('thor-r38-pool', '--need', '70G')
    pool = term(h, 'gpu_pool')
    assert pool['source'] == 'estimate' and pool['kib'] == 20 * GIB + 307200, pool
    assert pool['part'] == 'reclaim' and 'jetson-memory-audit' in pool['note'], pool
    assert h['drop_caches_kib'] >= pool['kib'], h['drop_caches_kib']
    assert h['allocatable_now_kib'] < 70 * GIB <= h['allocatable_after_reclaim_kib'], h
    assert status == 1 and h['verdict'] == 'fits-after-reclaim', (status, h['verdict'])
    r = human('thor-r38-pool', '--need', '70G')
    text = ' '.join(r.stdout.split())
    assert 'GPU driver pool (estimate) 20.3 GiB' in text, r.stdout
    assert "slab and the GPU driver's pool (an estimate)" in text, r.stdout


@test
def no_need_is_no_verdict():
    for tree in sorted(os.listdir(TREES)):
        if not os.path.isdir(os.path.join(TREES, tree)):
            continue
        h, status = doc(tree)
        assert status == 0 and h['verdict'] is None and h['need_kib'] is None, tree
        r = human(tree)
        assert r.returncode == 0, (tree, r.stderr)
        assert r.stdout.startswith('Allocatable now '), (tree, r.stdout)


@test
def bad_sizes_are_usage_errors():
    for bad, why in (('-1', 'cannot be negative'), ('1e999', 'exponents'), ('6X', 'unknown unit "X"'),
                     ('', 'empty'), ('18446744073709551616', 'more than 4 PiB'), ('6 gigs', 'unknown unit')):
        r = on('r36-orin-nano', '--need=' + bad)
        assert r.returncode == 64, (bad, r.returncode, r.stderr)
        assert r.stdout == '', r.stdout
        assert why in r.stderr and '6G, 6GiB, 6144M' in r.stderr, r.stderr
        assert r.stderr.startswith('jmem headroom: --need: "'), r.stderr
    # the same sizes however they are written
    sizes = set()
    for good in ('6G', '6GiB', '6144M', '6gb', '6442450944'):
        h, _ = doc('r36-orin-nano', '--need', good)
        sizes.add(h['need_kib'])
    assert sizes == {6 * GIB}, sizes


@test
def decimal_unit_names_are_read_as_binary_and_said_once():
    note = '4 GB read as 4 GiB'
    r = human('r36-orin-nano', '--need', '4GB')
    assert r.returncode in (0, 1, 2) and r.stdout.count(note) == 1, r.stdout
    assert 'Note: ' + note in r.stdout and note not in r.stderr, r.stdout
    h, _ = doc('r36-orin-nano', '--need', '4GB')
    assert h['need_kib'] == 4 * GIB and h['notes'].count(note) == 1, h['notes']
    for same in ('4G', '4GiB'):
        h, _ = doc('r36-orin-nano', '--need', same)
        assert h['need_kib'] == 4 * GIB and not any('read as' in n for n in h['notes']), h['notes']
        assert 'read as' not in human('r36-orin-nano', '--need', same).stdout


@test
def administrators_steps_are_marked():
    # a step with sudo is an administrator's: admin in the JSON, marked in the text
    h, status = doc('orin-agx-nvgpu', '--need', '4P')
    assert status == 2, status
    stop = [a for a in h['actions'] if 'sudo systemctl stop' in a['action']]
    assert stop and stop[0]['admin'] is True, h['actions']
    assert all(a['admin'] is False for a in h['actions'] if a['action'].startswith('held by')), h['actions']
    r = human('orin-agx-nvgpu', '--need', '4P')
    assert '  - (as administrator) stop what holds memory (sudo systemctl stop UNIT)' in r.stdout, r.stdout
    assert '(as administrator) held by' not in r.stdout, r.stdout


@test
def drop_misuse_is_refused():
    r = on('headroom-page-cache', '--drop')
    assert r.returncode == 64 and '--drop needs --need SIZE' in r.stderr, r.stderr
    r = on('headroom-page-cache', '--drop', '--need', '7.5G')
    assert r.returncode == 64 and 'not on a capture' in r.stderr, r.stderr
    r = jmem('--sysroot', os.path.join(FIXTURES, 'vm'), '--need', '1G')
    assert r.returncode == 69 and 'holds no capture' in r.stderr, (r.returncode, r.stderr)


def broken(tree, edit):
    """A copy of the captured tree in a temporary folder, after edit(copy)."""
    base = tempfile.mkdtemp(prefix='jmem-test-headroom-')
    copy = os.path.join(base, tree)
    shutil.copytree(os.path.join(TREES, tree), copy, symlinks=True)
    edit(copy)
    return base, copy


def snapshot_warnings(root, source):
    r = subprocess.run([JMEM, 'snapshot', '--json', '--sysroot', root], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return [w['message'] for w in json.loads(r.stdout)['warnings'] if w['source'] == source]


def reserve_removed(root):
    os.unlink(os.path.join(root, 'proc', 'sys', 'vm', 'min_free_kbytes'))


def reserve_damaged(root):
    with open(os.path.join(root, 'proc', 'sys', 'vm', 'min_free_kbytes'), 'w') as f:
        f.write('garbage\n')


@test
def an_unread_reserve_is_said():
    # counted as 0 without a word, the reserve made the headroom optimistic
    for edit in (reserve_removed, reserve_damaged):
        base, tree = broken('r36-orin-nano', edit)
        try:
            h, status = doc(tree)
            assert term(h, 'reserve')['kib'] is None, term(h, 'reserve')
            assert any(n.startswith('/proc/sys/vm/min_free_kbytes was not read') and 'upper bound' in n
                       for n in h['notes']), (edit.__name__, h['notes'])
            assert 'Note: /proc/sys/vm/min_free_kbytes was not read' in human(tree).stdout
            said = [m for m in snapshot_warnings(tree, 'headroom') if 'min_free_kbytes' in m]
            assert len(said) == 1 and 'upper bound' in said[0], (edit.__name__, said)
        finally:
            shutil.rmtree(base)
    # read, it is taken off without a note
    h, _ = doc('r36-orin-nano')
    assert term(h, 'reserve')['kib'] > 0 and not any('min_free_kbytes' in n for n in h['notes'])
    assert not any('min_free_kbytes' in m for m in snapshot_warnings(os.path.join(TREES, 'r36-orin-nano'),
                                                                     'headroom'))


def free_above_total(root):
    path = os.path.join(root, 'proc', 'meminfo')
    with open(path) as f:
        text = f.read()
    with open(path, 'w') as f:
        f.write(re.sub(r'^MemFree: .*$', 'MemFree:        999999999 kB', text, flags=re.M))


@test
def free_above_total_never_makes_the_board_larger():
    total = meminfo('r36-orin-nano', 'MemTotal')
    base, tree = broken('r36-orin-nano', free_above_total)
    try:
        # 953 GiB free on a board of 7.4 GiB once said that 16 GiB fits now
        h, status = doc(tree, '--need', '16G')
        assert status == 2 and h['verdict'] == 'does-not-fit', (status, h['verdict'])
        assert 0 < h['allocatable_now_kib'] <= h['allocatable_after_reclaim_kib'] <= total, h
        assert term(h, 'free')['kib'] == total, term(h, 'free')
        assert any(n.startswith('MemFree (953.7 GiB) is above MemTotal') for n in h['notes']), h['notes']
        r = human(tree, '--need', '16G')
        assert 'Note: MemFree (953.7 GiB) is above MemTotal' in r.stdout, r.stdout
        said = [m for m in snapshot_warnings(tree, 'meminfo') if 'above MemTotal' in m]
        assert len(said) == 1, said
    finally:
        shutil.rmtree(base)


tap.main()
