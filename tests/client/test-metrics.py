#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""jmem metrics checked by the tools that consume it: promtool on every
captured tree (and a hostile process name made at test time), node_exporter's
textfile collector serving the file, the textfile's replacement (mode,
links, no torn read), and what jmem-metrics.service publishes as shipped and
when per-process series are configured. Prints TAP.
Usage: test-metrics.py JMEM FIXTURES METRICS-UNIT"""

import json
import os
import re
import shlex
import shutil
import socket
import stat
import subprocess
import sys
import threading
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: tap, scratch
import tap
from tap import Skip, test

import scratch

JMEM, FIXTURES, UNIT = sys.argv[1], sys.argv[2], sys.argv[3]
TREES = os.path.join(FIXTURES, 'trees')
# What every tree yields; the others depend on the tree.
ALWAYS = ['jmem_meminfo_bytes', 'jmem_source_up', 'jmem_finding']




def jmem(*args, **kwargs):
    return subprocess.run([JMEM, 'metrics', '--no-ask-password', *args], capture_output=True,
                          text=True, timeout=120, **kwargs)


def need(program):
    path = shutil.which(program)
    if path is None:
        raise Skip(program + ' is not installed')
    return path


def promtool_ok(text, what):
    """promtool check metrics: exit 0 and no lint complaint."""
    r = subprocess.run([need('promtool'), 'check', 'metrics'], input=text, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0 and r.stdout == '' and r.stderr == '', \
        '%s: promtool says (exit %d):\n%s%s' % (what, r.returncode, r.stdout, r.stderr)


def families(text):
    """The families with their HELP and TYPE lines, and the sample names."""
    helps, types, samples = set(), set(), set()
    for line in text.splitlines():
        if line.startswith('# HELP '):
            helps.add(line.split()[2])
        elif line.startswith('# TYPE '):
            types.add(line.split()[2])
        elif line and not line.startswith('#'):
            samples.add(line.split('{')[0].split(' ')[0])
    return helps, types, samples


def copy_tree(name, tmp):
    dst = os.path.join(tmp, name)
    shutil.copytree(os.path.join(TREES, name), dst, symlinks=True)
    return dst


@test
def promtool_every_tree():
    trees = sorted(d for d in os.listdir(TREES) if os.path.isdir(os.path.join(TREES, d)))
    assert 'hostile' in trees, trees
    for tree in trees:
        r = jmem('--sysroot', os.path.join(TREES, tree))
        assert r.returncode == 0, '%s: exit %d: %s' % (tree, r.returncode, r.stderr)
        promtool_ok(r.stdout, tree)
        helps, types, samples = families(r.stdout)
        for name in ALWAYS:
            assert name in samples, '%s: no %s in:\n%s' % (tree, name, r.stdout)
        assert samples <= helps and samples <= types, '%s: HELP/TYPE missing for %s' % (
            tree, samples - (helps & types))
        assert all(s.startswith('jmem_') for s in samples), samples
    # and this machine, whatever its processes are called
    r = jmem()
    assert r.returncode == 0, 'live: exit %d: %s' % (r.returncode, r.stderr)
    promtool_ok(r.stdout, 'this machine')


@test
def nvmap_rows_and_containers():
    r = jmem('--sysroot', os.path.join(TREES, 'orin-agx-nvgpu'), '--top', '1')
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    nvmap = [l for l in lines if l.startswith('jmem_process_nvmap_bytes{')]
    # --top 1 keeps the largest, and every NvMap holder still has its series
    assert any('comm="VLLM::EngineCor"' in l and l.endswith(' 15035727872') for l in nvmap), nvmap
    assert any('comm="Xorg"' in l for l in nvmap), nvmap
    # an exited PID's NvMap is still held: named as NvMap names it
    assert 'jmem_process_nvmap_bytes{pid="5120",comm="gst-launch-1.0",user="",container=""} 20971520' \
        in nvmap, nvmap
    assert not any('comm="systemd"' in l for l in lines), 'systemd holds no NvMap and is not the top 1'
    assert any(l.startswith('jmem_container_nvmap_bytes{runtime="docker",container="3f4e8b2a')
               for l in lines), lines
    assert 'jmem_source_up{source="nvmap",reason="ok"} 1' in lines
    r = jmem('--sysroot', os.path.join(TREES, 'thor-unified'))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert any(l.startswith('jmem_source_up{source="nvmap",reason="the capture holds no NvMap')
               and l.endswith(' 0') for l in lines), r.stdout
    # buddyinfo's largest blocks, not the tegrastats line beside it ("lfb 34x4MB")
    assert 'jmem_largest_free_block_bytes{source="buddyinfo"} 4194304' in lines, r.stdout
    assert 'jmem_largest_free_blocks{source="buddyinfo"} 8280' in lines, r.stdout
    with scratch.TemporaryDirectory(prefix='jmem-metrics-') as tmp:
        tree = copy_tree('thor-unified', tmp)
        os.unlink(os.path.join(tree, 'proc', 'buddyinfo'))
        r = jmem('--sysroot', tree)
        lines = r.stdout.splitlines()
        assert 'jmem_largest_free_block_bytes{source="tegrastats"} 4194304' in lines, r.stdout
        assert 'jmem_largest_free_blocks{source="tegrastats"} 34' in lines, r.stdout


@test
def board_info():
    """The L4T release each board publishes, for the fleet's views by
    release: from nv_tegra_release, empty on a GB10 (no L4T), and a hostile
    model escaped as every label is."""
    r = jmem('--sysroot', os.path.join(TREES, 'orin-agx-nvgpu'))
    assert r.returncode == 0, r.stderr
    assert ('jmem_board_info{l4t_release="36.4.0",sku="orin-agx",'
            'model="NVIDIA Jetson AGX Orin Developer Kit"} 1') in r.stdout.splitlines(), r.stdout
    r = jmem('--sysroot', os.path.join(TREES, 'gb10-spark'))
    assert r.returncode == 0, r.stderr
    info = [l for l in r.stdout.splitlines() if l.startswith('jmem_board_info{')]
    assert len(info) == 1 and info[0].startswith('jmem_board_info{l4t_release="",'), info
    with scratch.TemporaryDirectory(prefix='jmem-metrics-') as tmp:
        tree = copy_tree('orin-agx-nvgpu', tmp)
        model = os.path.join(tree, 'proc', 'device-tree', 'model')
        with open(model, 'wb') as f:
            f.write(b'Evil"} 1\nx\x00')
        r = jmem('--sysroot', tree)
        assert r.returncode == 0, r.stderr
        promtool_ok(r.stdout, 'hostile model')
        info = [l for l in r.stdout.splitlines() if l.startswith('jmem_board_info{')]
        assert len(info) == 1 and 'model="Evil\\"} 1\\\\nx"' in info[0], info


@test
def allocatable():
    """jmem_allocatable_bytes: the headroom's two figures, as jmem headroom
    --json gives them, in bytes."""
    for tree in ('orin-agx-nvgpu', 'thor-unified', 'headroom-page-cache'):
        r = jmem('--sysroot', os.path.join(TREES, tree))
        assert r.returncode == 0, r.stderr
        promtool_ok(r.stdout, tree)
        h = subprocess.run([JMEM, 'headroom', '--json', '--sysroot', os.path.join(TREES, tree)],
                           capture_output=True, text=True, timeout=120)
        doc = json.loads(h.stdout)['headroom']
        lines = r.stdout.splitlines()
        assert 'jmem_allocatable_bytes{after="none"} %d' % (doc['allocatable_now_kib'] * 1024) in lines, \
            (tree, [l for l in lines if 'allocatable' in l])
        assert 'jmem_allocatable_bytes{after="reclaim"} %d' % (doc['allocatable_after_reclaim_kib'] * 1024) \
            in lines, tree


@test
def buckets_add_up():
    """jmem_memory_bucket_bytes: every tree's buckets and remainder are its
    MemTotal, as jmem_meminfo_bytes gives it, to the byte."""
    for tree in sorted(os.listdir(TREES)):
        if not os.path.isdir(os.path.join(TREES, tree)):
            continue
        r = jmem('--sysroot', os.path.join(TREES, tree))
        assert r.returncode == 0, r.stderr
        total = None
        buckets = {}
        for line in r.stdout.splitlines():
            if line.startswith('jmem_meminfo_bytes{field="MemTotal"} '):
                total = int(line.split()[-1])
            if line.startswith('jmem_memory_bucket_bytes{bucket="'):
                name = line.split('"')[1]
                assert name not in buckets, (tree, name)
                buckets[name] = int(float(line.split()[-1]))
        assert total is not None and 'unexplained' in buckets, (tree, r.stdout[:500])
        assert sum(buckets.values()) == total, (tree, buckets, total)


@test
def hostile_label():
    with scratch.TemporaryDirectory(prefix='jmem-metrics-') as tmp:
        tree = copy_tree('orin-agx-nvgpu', tmp)
        status = os.path.join(tree, 'proc', '1731', 'status')
        with open(status) as f:
            lines = f.read().split('\n')
        # the kernel writes a backslash as \\ and a newline as \n in Name:, the
        # other bytes as they are: ESC (a terminal sequence), CR, C1's CSI, RLO
        lines = ['Name:\tev"il\\\\x\\n} 1\\nnl\x1b[2J\r\u009b\u202e' if l.startswith('Name:') else l
                 for l in lines]
        with open(status, 'w', encoding='utf-8') as f:
            f.write('\n'.join(lines))
        with open(os.path.join(tree, 'proc', '1731', 'cmdline'), 'wb') as f:
            f.write(b'/usr/bin/secret-token\0--password=hunter2\0')
        r = jmem('--sysroot', tree)
        assert r.returncode == 0, r.stderr
        promtool_ok(r.stdout, 'hostile label')
        rows = [l for l in r.stdout.splitlines() if 'pid="1731"' in l]
        # the label value is what the human output shows (\\, \n, \x1b, \x0d,
        # \u009b, \u202e), with the exposition format's own escaping over it
        shown = 'ev\\"il\\\\\\\\x\\\\n} 1\\\\nnl\\\\x1b[2J\\\\x0d\\\\u009b\\\\u202e'
        assert rows and all('comm="%s"' % shown in l for l in rows), (shown, rows)
        for raw in ('\x1b', '\r', '\u009b', '\u202e'):
            assert raw not in r.stdout, repr(raw)
        human = subprocess.run([JMEM, 'snapshot', '--all', '--sysroot', tree, '--width', '200'],
                               capture_output=True, text=True, timeout=120)
        assert 'ev"il\\\\x\\n} 1\\nnl\\x1b[2J\\x0d\\u009b\\u202e' in human.stdout, human.stdout
        assert 'secret-token' not in r.stdout and 'hunter2' not in r.stdout


@test
def textfile_mode_and_links():
    with scratch.TemporaryDirectory(prefix='jmem-metrics-') as tmp:
        out = os.path.join(tmp, 'textfile')
        os.mkdir(out)
        elsewhere = os.path.join(tmp, 'elsewhere')
        with open(elsewhere, 'w') as f:
            f.write('keep\n')
        # a link in the file's place is replaced, its target left alone
        os.symlink(elsewhere, os.path.join(out, 'jmem.prom'))
        old = os.umask(0o077)
        try:
            r = jmem('--sysroot', os.path.join(TREES, 'orin-agx-nvgpu'), '--textfile', out)
        finally:
            os.umask(old)
        assert r.returncode == 0 and r.stdout == '', (r.returncode, r.stdout, r.stderr)
        st = os.lstat(os.path.join(out, 'jmem.prom'))
        assert stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o644, oct(st.st_mode)
        assert os.listdir(out) == ['jmem.prom'], os.listdir(out)
        with open(elsewhere) as f:
            assert f.read() == 'keep\n'
        with open(os.path.join(out, 'jmem.prom')) as f:
            promtool_ok(f.read(), 'textfile')
        # a directory given as a link is refused, nothing written through it
        link = os.path.join(tmp, 'link')
        target = os.path.join(tmp, 'target')
        os.mkdir(target)
        os.symlink(target, link)
        r = jmem('--sysroot', os.path.join(TREES, 'orin-agx-nvgpu'), '--textfile', link)
        assert r.returncode == 73 and 'symbolic link' in r.stderr, (r.returncode, r.stderr)
        assert os.listdir(target) == []
        r = jmem('--sysroot', os.path.join(TREES, 'orin-agx-nvgpu'), '--textfile',
                 os.path.join(tmp, 'missing'))
        assert r.returncode == 73 and 'missing' in r.stderr, (r.returncode, r.stderr)


@test
def textfile_never_torn():
    with scratch.TemporaryDirectory(prefix='jmem-metrics-') as tmp:
        trees = [os.path.join(TREES, t) for t in ('orin-agx-nvgpu', 'thor-unified')]
        expected = {jmem('--sysroot', t).stdout for t in trees}
        assert len(expected) == 2
        path = os.path.join(tmp, 'jmem.prom')
        seen, bad, stop = [0], [], threading.Event()

        def reader():
            while not stop.is_set():
                try:
                    with open(path) as f:
                        text = f.read()
                except FileNotFoundError:
                    continue
                seen[0] += 1
                if text not in expected:
                    bad.append(text)

        t = threading.Thread(target=reader)
        t.start()
        try:
            for i in range(40):
                r = jmem('--sysroot', trees[i % 2], '--textfile', tmp)
                assert r.returncode == 0, r.stderr
        finally:
            stop.set()
            t.join()
        assert not bad, 'a reader saw a partial file:\n' + bad[0][-300:]
        assert seen[0] > 40, 'the reader ran %d times only' % seen[0]
        assert os.listdir(tmp) == ['jmem.prom'], os.listdir(tmp)


def sample_names(text):
    return {l.split('{')[0].split(' ')[0] for l in text.splitlines() if l and not l.startswith('#')}


def is_per_process(name):
    return name.startswith('jmem_process_') or name.startswith('jmem_container_')


@test
def series_option():
    tree = os.path.join(TREES, 'orin-agx-nvgpu')
    full, board = jmem('--sysroot', tree), jmem('--sysroot', tree, '--series=board')
    assert full.returncode == 0 and board.returncode == 0, (full.stderr, board.stderr)
    promtool_ok(board.stdout, '--series=board')
    assert any(is_per_process(n) for n in sample_names(full.stdout)), full.stdout
    # no series that says who holds what, nor its HELP and TYPE
    assert not any(is_per_process(n) for n in sample_names(board.stdout)), board.stdout
    assert 'jmem_process_' not in board.stdout and 'jmem_container_' not in board.stdout
    assert 'VLLM' not in board.stdout
    # the board's own series are the same as in the full output
    kept = [l for l in full.stdout.splitlines()
            if not re.match(r'(# (HELP|TYPE) )?jmem_(process|container)_', l)]
    assert board.stdout.splitlines() == kept
    for args, says in ((['--series=nope'], 'takes processes or board, not "nope"'),
                       (['--series=board', '--top', '3'], '--series=board leaves out'),
                       (['--top', '-1'], 'count of 0 or more')):
        r = jmem('--sysroot', tree, *args)
        assert r.returncode == 64 and says in r.stderr, (args, r.returncode, r.stderr)


def unit_run(tmp, drop_in_series=None, drop_in_options=None):
    """jmem-metrics.service's ExecStart as systemd runs it, on a captured
    tree into TMP: ${VAR} from its Environment= lines, or from a drop-in's,
    and a word $VAR split at whitespace into none or more words. The unit's
    account and group are checked, not taken on."""
    env, exec_start, settings = {}, None, {}
    with open(UNIT) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith('#') or '=' not in line:
                continue
            key, value = line.split('=', 1)
            settings[key] = value
            if key == 'Environment':
                name, val = value.split('=', 1)
                env[name] = val
            elif key == 'ExecStart':
                exec_start = value
    assert settings.get('User') == 'jmem-metrics' and settings.get('Group') == 'jmem-metrics', settings
    assert 'SupplementaryGroups' not in settings, settings
    if drop_in_series is not None:
        env['JMEM_METRICS_SERIES'] = drop_in_series
    if drop_in_options is not None:
        env['JMEM_METRICS_OPTIONS'] = drop_in_options
    argv = []
    for a in shlex.split(exec_start):
        whole = re.fullmatch(r'\$(\w+)', a)
        if whole:
            argv += env.get(whole.group(1), '').split()
        else:
            argv.append(re.sub(r'\$\{(\w+)\}', lambda m: env.get(m.group(1), ''), a))
    assert os.path.basename(argv[0]) == 'jmem' and argv[1] == 'metrics', argv
    i = argv.index('--textfile')
    argv = [JMEM] + argv[1:i + 1] + [tmp] + argv[i + 2:] + ['--sysroot', os.path.join(TREES, 'orin-agx-nvgpu')]
    r = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, (argv, r.stderr)
    with open(os.path.join(tmp, 'jmem.prom')) as f:
        return f.read()


@test
def unit_publishes_board_series_unless_configured():
    with scratch.TemporaryDirectory(prefix='jmem-metrics-') as tmp:
        shipped = unit_run(tmp)
        promtool_ok(shipped, 'the unit as shipped')
        names = sample_names(shipped)
        assert not any(is_per_process(n) for n in names), sorted(names)
        assert 'VLLM' not in shipped and 'pid="' not in shipped
        for name in ALWAYS + ['jmem_nvmap_total_bytes']:
            assert name in names, name
        configured = unit_run(tmp, 'processes')
        promtool_ok(configured, 'the unit with JMEM_METRICS_SERIES=processes')
        assert 'jmem_process_nvmap_bytes{pid="1792595",comm="VLLM::EngineCor",' in configured
        assert any(l.startswith('jmem_container_nvmap_bytes{') for l in configured.splitlines())
        assert 'jmem_projection_up' not in shipped
        # JMEM_METRICS_OPTIONS=--history=FILE: the projection's families
        history = os.path.join(FIXTURES, 'history', 'history.reference-growing.jsonl')
        projected = unit_run(tmp, None, '--history=' + history)
        promtool_ok(projected, 'the unit with JMEM_METRICS_OPTIONS=--history')
        assert re.search(r'^jmem_projection_up\{reason=".*"\} [01]$', projected, re.M), projected
        assert re.search(r'^jmem_history_samples [1-9]', projected, re.M), projected


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


@test
def node_exporter_serves():
    exporter = need('prometheus-node-exporter')
    with scratch.TemporaryDirectory(prefix='jmem-metrics-') as tmp:
        r = jmem('--sysroot', os.path.join(TREES, 'orin-agx-nvgpu'), '--textfile', tmp)
        assert r.returncode == 0, r.stderr
        port = free_port()
        proc = subprocess.Popen([exporter, '--web.listen-address=127.0.0.1:%d' % port,
                                 '--collector.disable-defaults', '--collector.textfile',
                                 '--collector.textfile.directory=' + tmp],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            body, deadline = None, time.monotonic() + 20
            while body is None:
                assert proc.poll() is None, 'node_exporter exited: %s' % proc.stderr.read()
                try:
                    with urllib.request.urlopen('http://127.0.0.1:%d/metrics' % port,
                                                timeout=5) as resp:
                        body = resp.read().decode()
                except OSError:
                    assert time.monotonic() < deadline, 'node_exporter never answered'
                    time.sleep(0.2)
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
            proc.stderr.close()
        lines = body.splitlines()
        assert 'node_textfile_scrape_error 0' in lines, [l for l in lines if 'textfile' in l]
        assert any(l.startswith('jmem_process_nvmap_bytes{') and 'comm="VLLM::EngineCor"' in l
                   and l.endswith(' 1.5035727872e+10') for l in lines), \
            [l for l in lines if l.startswith('jmem_process_nvmap')]
        for name in ALWAYS + ['jmem_nvmap_total_bytes', 'jmem_container_nvmap_bytes']:
            assert any(l.startswith(name) for l in lines), name


@test
def textfile_interval():
    """--interval replaces the file every S seconds until SIGTERM, which ends
    it with status 0 after the sample in progress; each file is whole. A
    tree's process gets a new PSS in between and the file follows. The
    history of --history is not read again at every sample: removed after
    the first, its projection stays."""
    with scratch.TemporaryDirectory() as tmp:
        tree = copy_tree('orin-agx-nvgpu', tmp)
        out = os.path.join(tmp, 'out')
        os.mkdir(out)
        history = os.path.join(tmp, 'history.jsonl')
        shutil.copy(os.path.join(FIXTURES, 'history', 'history.reference-growing.jsonl'), history)
        proc = subprocess.Popen([JMEM, 'metrics', '--no-ask-password', '--sysroot', tree,
                                 '--textfile', out, '--interval', '1', '--history=' + history],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            prom = os.path.join(out, 'jmem.prom')
            deadline = time.monotonic() + 30
            while not os.path.exists(prom) and time.monotonic() < deadline:
                time.sleep(0.1)
            with open(prom) as f:
                first = f.read()
            assert 'jmem_process_pss_bytes{pid="1731"' in first, first[:300]
            samples = re.search(r'^jmem_history_samples [1-9]\d*$', first, re.M)
            assert samples, first
            os.unlink(history)
            rollup = os.path.join(tree, 'proc', '1731', 'smaps_rollup')
            with open(rollup) as f:
                text = f.read()
            with open(rollup, 'w') as f:
                f.write(re.sub(r'^Pss:(\s+)\d+ kB$', r'Pss:\g<1>1 kB', text, count=1, flags=re.M))
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                with open(prom) as f:
                    now = f.read()
                if re.search(r'^jmem_process_pss_bytes\{pid="1731"[^}]*\} 1024$', now, re.M):
                    break
                time.sleep(0.2)
            else:
                raise AssertionError('the new PSS never reached the file')
            assert now.endswith('\n') and 'jmem_source_up' in now
            assert samples.group(0) in now.splitlines(), now
        finally:
            proc.terminate()
            out_text, err = proc.communicate(timeout=30)
        assert proc.returncode == 0, (proc.returncode, err)
        assert sorted(os.listdir(out)) == ['jmem.prom'], os.listdir(out)
    r = jmem('--interval', '5')
    assert r.returncode == 64 and 'goes with --textfile' in r.stderr, r.stderr


tap.main()
