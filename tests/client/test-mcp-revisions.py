#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""`jmem mcp` chooses the MCP revision per request: 2026-07-28, named in a
request's _meta with no handshake (server/discover, resultType, ttlMs and
cacheScope, the server's identity in every result, no ping), and the four
earlier revisions through initialize, as before, in the same process.
JSON-RPC lines over pipes, as a client writes them. Prints TAP.
Usage: test-mcp-revisions.py JMEM FIXTURES"""

import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: tap, scratch
import tap  # noqa: E402
from tap import test

JMEM, FIXTURES = sys.argv[1:3]
TREE = os.path.join(FIXTURES, 'trees', 'orin-agx-nvgpu')
MODERN = '2026-07-28'
REVISIONS = [MODERN, '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']
TOOLS = ['snapshot', 'triage', 'headroom', 'allocations', 'drop_caches', 'audit']


def meta(version=MODERN, capabilities=True):
    m = {'io.modelcontextprotocol/protocolVersion': version,
         'io.modelcontextprotocol/clientInfo': {'name': 'test-mcp-revisions', 'version': '1'}}
    if capabilities:
        m['io.modelcontextprotocol/clientCapabilities'] = {}
    return m


class Server:
    """`jmem mcp --sysroot TREE`; each request is answered before the next."""

    def __init__(self):
        self.proc = subprocess.Popen([JMEM, 'mcp', '--sysroot', TREE], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE)
        self.next_id = 0

    def line(self, method, params=None):
        """The answer, as the line sent."""
        self.next_id += 1
        message = {'jsonrpc': '2.0', 'id': self.next_id, 'method': method}
        if params is not None:
            message['params'] = params
        self.proc.stdin.write(json.dumps(message).encode() + b'\n')
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        assert json.loads(line)['id'] == self.next_id, line
        return line

    def request(self, method, params=None):
        return json.loads(self.line(method, params))

    def result(self, method, params=None):
        answer = self.request(method, params)
        assert 'result' in answer, answer
        return answer['result']

    def error(self, method, params, code):
        answer = self.request(method, params)
        assert 'error' in answer and 'result' not in answer, answer
        assert answer['error']['code'] == code, answer
        return answer['error']

    def initialize(self, revision):
        result = self.result('initialize', {'protocolVersion': revision, 'capabilities': {},
                                            'clientInfo': {'name': 't', 'version': '1'}})
        assert result['protocolVersion'] == revision, result

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.proc.stdin.close()
        rest = self.proc.stdout.read()
        status = self.proc.wait(timeout=60)
        if exc[0] is None:
            assert rest == b'', rest
            assert status == 0, status


def assert_modern(result):
    """What every 2026-07-28 result carries: resultType, and who answered."""
    assert result['resultType'] == 'complete', result.keys()
    info = result['_meta']['io.modelcontextprotocol/serverInfo']
    assert info['name'] == 'jmem' and info['version'], info


def assert_cacheable(result):
    assert isinstance(result['ttlMs'], int) and result['ttlMs'] >= 0, result['ttlMs']
    assert result['cacheScope'] == 'public', result['cacheScope']


@test
def discover_names_every_revision():
    with Server() as s:
        r = s.result('server/discover', {'_meta': meta()})
        assert r['supportedVersions'] == REVISIONS, r['supportedVersions']
        assert r['capabilities'] == {'tools': {'listChanged': False}}, r['capabilities']
        assert 'jmem group' in r['instructions'], r['instructions']
        assert_modern(r)
        assert_cacheable(r)


@test
def discover_needs_the_request_metadata():
    with Server() as s:
        # without _meta, and with no client capabilities: malformed (-32602)
        e = s.error('server/discover', None, -32602)
        assert 'io.modelcontextprotocol/protocolVersion' in e['message'], e
        e = s.error('server/discover', {'_meta': meta(capabilities=False)}, -32602)
        assert 'clientCapabilities' in e['message'], e
        s.error('server/discover', {'_meta': meta(version=42)}, -32602)


@test
def call_without_initialize():
    """A 2026-07-28 client's first request is its tools/list or tools/call."""
    with Server() as s:
        listed = s.result('tools/list', {'_meta': meta()})
        assert [t['name'] for t in listed['tools']] == TOOLS, listed['tools']
        assert all('outputSchema' in t and 'annotations' in t and 'title' in t
                   for t in listed['tools'])
        assert_modern(listed)
        assert_cacheable(listed)
        r = s.result('tools/call', {'name': 'triage', 'arguments': {}, '_meta': meta()})
        assert r['isError'] is False, r
        assert r['structuredContent']['schema'] == 'jmem-triage'
        assert r['content'][0]['text'].startswith(r['structuredContent']['summary']), r['content']
        assert_modern(r)
        assert 'ttlMs' not in r and 'cacheScope' not in r, r.keys()
        # a tool's own failure is a result too, and says so as 2026-07-28 asks
        r = s.result('tools/call', {'name': 'drop_caches', 'arguments': {}, '_meta': meta()})
        assert r['isError'] is True, r
        assert_modern(r)


@test
def tools_in_one_order():
    """The same bytes every time: a client and a model's prompt cache keep them."""
    with Server() as s:
        first = s.line('tools/list', {'_meta': meta()})
        second = s.line('tools/list', {'_meta': meta()})
        assert first.replace(b'"id":1,', b'"id":2,') == second


@test
def unsupported_revision():
    """UnsupportedProtocolVersionError (-32022), with what is spoken, to any
    request naming a revision that is not."""
    with Server() as s:
        for method, params in (('tools/call', {'name': 'triage', 'arguments': {}}),
                               ('tools/list', {}), ('server/discover', {})):
            e = s.error(method, {**params, '_meta': meta(version='1900-01-01')}, -32022)
            assert e['data'] == {'supported': REVISIONS, 'requested': '1900-01-01'}, e
        # the server goes on serving
        assert_modern(s.result('tools/list', {'_meta': meta()}))


@test
def malformed_request_metadata():
    with Server() as s:
        e = s.error('tools/call', {'name': 'triage', 'arguments': {}, '_meta': meta(capabilities=False)},
                    -32602)
        assert 'io.modelcontextprotocol/clientCapabilities' in e['message'], e
        s.error('tools/list', {'_meta': meta(version=['2026-07-28'])}, -32602)


@test
def ping_is_gone_in_2026_07_28():
    with Server() as s:
        e = s.error('ping', {'_meta': meta()}, -32601)
        assert MODERN in e['message'], e
        s.error('logging/setLevel', {'level': 'info', '_meta': meta()}, -32601)
        s.error('initialize', {'protocolVersion': MODERN, 'capabilities': {},
                               'clientInfo': {'name': 't', 'version': '1'}, '_meta': meta()}, -32601)
        # a handshake client in the same process still pings
        s.initialize('2025-11-25')
        assert s.result('ping') == {}
        assert s.result('ping', {'_meta': meta('2025-11-25', capabilities=False)}) == {}


@test
def each_request_as_its_revision_says():
    """A 2024-11-05 session and 2026-07-28 requests in one process: each gets
    what its own revision defines, and the session is not changed."""
    with Server() as s:
        s.initialize('2024-11-05')
        old = s.result('tools/list')
        assert all('annotations' not in t and 'outputSchema' not in t for t in old['tools'])
        assert 'resultType' not in old and 'ttlMs' not in old, old.keys()
        new = s.result('tools/list', {'_meta': meta()})
        assert all('outputSchema' in t for t in new['tools'])
        assert_modern(new)
        r = s.result('tools/call', {'name': 'triage', 'arguments': {}})
        assert 'structuredContent' not in r and 'resultType' not in r and '_meta' not in r, r.keys()
        # an earlier revision named in _meta: that one, handshake or not
        mid = s.result('tools/list', {'_meta': meta('2025-03-26', capabilities=False)})
        assert all('annotations' in t and 'outputSchema' not in t for t in mid['tools'])
        assert 'resultType' not in mid
        assert s.result('tools/list') == old


@test
def handshake_revisions_unchanged():
    """initialize never answers 2026-07-28, which has no handshake."""
    with Server() as s:
        r = s.result('initialize', {'protocolVersion': MODERN, 'capabilities': {},
                                    'clientInfo': {'name': 't', 'version': '1'}})
        assert r['protocolVersion'] == '2025-11-25', r
        assert 'resultType' not in r, r.keys()
        listed = s.result('tools/list')
        assert 'resultType' not in listed and 'ttlMs' not in listed, listed.keys()


if __name__ == '__main__':
    tap.main()
