#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""jmem headroom's framework gates on the captured trees: the number each
framework reads, computed here from the tree's own meminfo; each
framework's verdict where it and jmem's estimate part, with what closes the
gap; --for; the JSON against docs/headroom.schema.json; the table within
80 columns. Prints TAP.
Usage: test-headroom-gates.py JMEM FIXTURES VALIDATOR DOCS"""

import json
import math
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: tap, scratch
import tap  # noqa: E402
from tap import test

JMEM, FIXTURES, VALIDATOR, DOCS = sys.argv[1:5]
TREES = os.path.join(FIXTURES, 'trees')
GIB = 1024 * 1024
FRAMEWORKS = ['vllm', 'sglang', 'tensorrt', 'pytorch', 'ollama', 'llama.cpp']


def jmem(tree, *args):
    return subprocess.run([JMEM, 'headroom', '--no-ask-password', '--sysroot',
                           os.path.join(TREES, tree), *args],
                          capture_output=True, text=True, timeout=120)


def doc(tree, *args):
    """The JSON document, checked against its schema."""
    r = jmem(tree, '--json', *args)
    assert r.returncode in (0, 1, 2), r.stderr
    v = subprocess.run(['python3', VALIDATOR, os.path.join(DOCS, 'headroom.schema.json'), '-'],
                       input=r.stdout, capture_output=True, text=True, timeout=60)
    assert v.returncode == 0, v.stdout + v.stderr
    return json.loads(r.stdout)


def gates(d):
    return {g['framework']: g for g in d['gates']}


def meminfo(tree):
    fields = {}
    with open(os.path.join(TREES, tree, 'proc', 'meminfo')) as f:
        for line in f:
            name, value = line.split(':', 1)
            fields[name] = int(value.split()[0])
    return fields


def actions(g):
    return ' | '.join(a['action'] for a in g['actions'])


@test
def thor_every_gate_but_pytorch_says_no_where_jmem_finds_room():
    m = meminfo('thor-unified')
    d = doc('thor-unified', '--need', '49G')
    h, g = d['headroom'], gates(d)
    assert h['verdict'] == 'fits-after-reclaim', h['verdict']
    assert list(g) == FRAMEWORKS and d['for'] is None, (list(g), d['for'])
    # vLLM and SGLang read MemAvailable on Thor (sm 11.0)
    for name in ('vllm', 'sglang'):
        assert g[name]['kib'] == m['MemAvailable'] and not g[name]['approximated'], g[name]
        assert g[name]['fits'] is False and g[name]['agrees'] is False, g[name]
    # the largest share of total its start check passes: floor(MemAvailable / MemTotal, 0.01)
    share = math.floor(m['MemAvailable'] * 100 / m['MemTotal']) / 100
    assert '--gpu-memory-utilization %.2f:' % share in actions(g['vllm']), actions(g['vllm'])
    assert '--mem-fraction-static' in actions(g['sglang']), actions(g['sglang'])
    # TensorRT: cudaMemGetInfo's free, approximated from MemFree
    assert g['tensorrt']['kib'] == m['MemFree'] and g['tensorrt']['approximated'], g['tensorrt']
    assert g['tensorrt']['agrees'] is False
    assert '--memPoolSize=workspace:%dM' % (m['MemFree'] // 1024) in actions(g['tensorrt'])
    # PyTorch checks no number: cudaMalloc gets what jmem finds after reclaim
    assert g['pytorch']['kib'] == h['allocatable_after_reclaim_kib'], g['pytorch']
    assert g['pytorch']['fits'] is True and g['pytorch']['agrees'] is True and g['pytorch']['actions'] == []
    # llama.cpp reads only the hugetlb pool's free pages where one exists, less 1 GiB
    pool = m['HugePages_Free'] * m['Hugepagesize']
    assert g['llama.cpp']['kib'] == pool - GIB, g['llama.cpp']
    assert g['ollama']['kib'] == min(m['MemAvailable'], pool) - 457 * 1024, g['ollama']
    assert g['llama.cpp']['fits'] is False and g['ollama']['fits'] is False
    # the carveout grown to hold 49 GiB and the 1 GiB margin, in huge pages
    pages = m['HugePages_Total'] + math.ceil((49 * GIB + GIB - pool) / m['Hugepagesize'])
    assert 'sudo sysctl vm.nr_hugepages=%d' % pages in actions(g['llama.cpp']), actions(g['llama.cpp'])
    assert any(a['admin'] for a in g['llama.cpp']['actions'])
    assert 'num_ctx' in actions(g['ollama']), actions(g['ollama'])


@test
def orin_page_cache_tensorrt_short_until_caches_are_dropped():
    m = meminfo('headroom-page-cache')
    d = doc('headroom-page-cache', '--need', '4G')
    h, g = d['headroom'], gates(d)
    assert h['verdict'] == 'fits-after-reclaim', h['verdict']
    # MemAvailable counts most of the page cache: vLLM and llama.cpp agree with jmem
    for name in ('vllm', 'sglang', 'ollama', 'llama.cpp', 'pytorch'):
        assert g[name]['fits'] is True and g[name]['agrees'] is True and g[name]['actions'] == [], g[name]
    assert g['llama.cpp']['kib'] == m['MemAvailable'] - GIB, g['llama.cpp']
    # cudaMemGetInfo does not: dropping the caches is what raises it
    t = g['tensorrt']
    assert t['kib'] == m['MemFree'] and t['fits'] is False and t['agrees'] is False, t
    assert t['actions'][0]['action'].startswith('jmem drop-caches: frees up to 8.9 GiB'), t['actions']
    assert 'jmem headroom --need 4G --drop' in t['actions'][0]['action'] and not t['actions'][0]['admin']


@test
def orin_agx_memavailable_short_of_what_swap_gives():
    m = meminfo('orin-agx-nvgpu')
    d = doc('orin-agx-nvgpu', '--need', '41G')
    h, g = d['headroom'], gates(d)
    assert h['verdict'] == 'fits-after-reclaim', h['verdict']
    v = g['vllm']
    assert v['kib'] == m['MemAvailable'] and v['fits'] is False and v['agrees'] is False, v
    # MemAvailable leaves swap out, which jmem counts
    assert 'that swap can take, which this figure leaves out' in actions(v), actions(v)
    assert g['llama.cpp']['kib'] == m['MemAvailable'] - GIB and g['llama.cpp']['fits'] is False
    # 40 GiB: in MemAvailable, not with llama.cpp's 1 GiB margin; a smaller one makes it fit
    g = gates(doc('orin-agx-nvgpu', '--need', '40G'))
    assert g['vllm']['agrees'] is True and g['llama.cpp']['agrees'] is False, (g['vllm'], g['llama.cpp'])
    target = (m['MemAvailable'] - 40 * GIB) // 1024
    assert 'llama-server --fit-target %d:' % target in actions(g['llama.cpp']), actions(g['llama.cpp'])


@test
def xavier_vllm_reads_cuda_free_approximated_from_memfree():
    m = meminfo('r32-xavier-nx')
    g = gates(doc('r32-xavier-nx', '--need', '5G'))
    # sm 7.2 is outside vLLM's and SGLang's MemAvailable branch
    for name in ('vllm', 'sglang'):
        assert g[name]['kib'] == m['MemFree'] and g[name]['approximated'], g[name]
        assert g[name]['fits'] is False and g[name]['agrees'] is False, g[name]
    assert g['llama.cpp']['kib'] == m['MemAvailable'] - GIB


@test
def no_need_gives_the_numbers_and_no_verdict():
    d = doc('r36-orin-nano')
    for g in d['gates']:
        assert g['fits'] is None and g['agrees'] is None and g['actions'] == [], g
        assert g['kib'] is not None and g['source'], g


@test
def for_gives_one_gate():
    d = doc('thor-unified', '--need', '49G', '--for', 'vllm')
    assert d['for'] == 'vllm' and [g['framework'] for g in d['gates']] == ['vllm'], d['gates']
    r = jmem('thor-unified', '--need', '49G', '--for', 'llama.cpp')
    assert r.returncode == 1, r.stderr
    assert 'llama.cpp checks device free - --fit-target (1 GiB): 1.0 GiB here' in r.stdout, r.stdout
    assert '49.0 GiB does not fit by it; by jmem\'s estimate it fits after reclaim.' in r.stdout, r.stdout
    assert 'Source: ggml/src/ggml-cuda/ggml-cuda.cu' in r.stdout, r.stdout
    assert 'vllm' not in r.stdout.split('llama.cpp checks', 1)[1], r.stdout


@test
def an_unknown_framework_is_a_usage_error():
    r = jmem('thor-unified', '--for', 'tensorflow')
    assert r.returncode == 64 and r.stdout == '', (r.returncode, r.stdout)
    assert ('--for takes vllm, sglang, tensorrt, pytorch, ollama or llama.cpp, not "tensorflow"'
            in r.stderr), r.stderr


@test
def the_table_names_every_gate_within_80_columns():
    for tree in ('thor-unified', 'headroom-page-cache', 'hostile'):
        r = jmem(tree, '--need', '49G')
        assert r.returncode in (1, 2), r.stderr
        for line in r.stdout.splitlines():
            assert len(line) <= 80, 'wider than 80 columns: %r' % line
        table = r.stdout.split('Gate ', 1)[1]
        for name in FRAMEWORKS:
            assert '\n%s ' % name in table and '  %s: ' % name in table, (name, r.stdout)


def mcp(tree, *calls):
    """The answers of `jmem mcp` on @tree to tools/list and each headroom call's arguments."""
    lines = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                         "clientInfo": {"name": "t", "version": "1"}}},
             {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}]
    for i, arguments in enumerate(calls):
        lines.append({"jsonrpc": "2.0", "id": 3 + i, "method": "tools/call",
                      "params": {"name": "headroom", "arguments": arguments}})
    r = subprocess.run([JMEM, 'mcp', '--sysroot', os.path.join(TREES, tree)],
                       input=''.join(json.dumps(m) + '\n' for m in lines),
                       capture_output=True, text=True, timeout=120)
    return [json.loads(line)['result'] for line in r.stdout.splitlines()[1:]]


@test
def the_mcp_tool_takes_for_as_the_command_does():
    tools, one, bad = mcp('thor-unified', {'need': '49G', 'for': 'tensorrt'}, {'for': 'tensorflow'})
    arg = next(t for t in tools['tools'] if t['name'] == 'headroom')['inputSchema']['properties']['for']
    assert arg['type'] == 'string' and arg['enum'] == FRAMEWORKS, arg
    d = one['structuredContent']
    assert d['for'] == 'tensorrt' and len(d['gates']) == 1, d['gates']
    assert d['gates'] == doc('thor-unified', '--need', '49G', '--for', 'tensorrt')['gates']
    assert bad['isError'] and 'takes one of vllm, sglang' in bad['content'][0]['text'], bad


tap.main()
