// SPDX-License-Identifier: GPL-2.0-or-later
// The MCP TypeScript SDK's v2 client (pinned by run-sdk-test --pin client-v2)
// against `jmem mcp --sysroot TREE` in revision 2026-07-28: pinned to it, the
// client probes server/discover and then sends every request with its
// revision in _meta, no initialize. tools/list, all six tools, every
// structuredContent against its outputSchema (by the client itself and by
// ajv in strict 2020-12 mode), and the same client in its default (handshake)
// mode still served 2025-11-25. What went over the wire is recorded and
// checked too. TAP.
// Usage: node test-mcp-client-v2.mjs JMEM_EXE FIXTURE_TREE
import { Client, ProtocolError } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { test, run } from './tap.mjs';
import { checkTool, toolCalls } from './calls.mjs';

const [jmem, tree] = process.argv.slice(2);
const MODERN = '2026-07-28';
const TOOLS = ['snapshot', 'triage', 'headroom', 'allocations', 'drop_caches', 'audit'];
const scratch = mkdtempSync(join(tmpdir(), 'jmem-client-v2-'));
const wire = join(scratch, 'requests');
let client;
let tools;

// `jmem mcp` behind a tee of what the client writes to it (the probe's
// process and the session's alike)
function transport() {
  return new StdioClientTransport({
    command: 'sh',
    args: ['-c', 'tee -a "$0" | exec "$@"', wire, jmem, 'mcp', '--sysroot', tree],
    stderr: 'pipe',
  });
}

function sent() {
  return readFileSync(wire, 'utf8').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));
}

const { callOk, callError } = toolCalls(() => ({ client, tools }));

test('connect pinned to 2026-07-28: server/discover, no initialize', async () => {
  client = new Client({ name: 'jmem-test', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: MODERN } } });
  await client.connect(transport());
  assert.equal(client.getProtocolEra(), 'modern');
  assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
  const discover = client.getDiscoverResult();
  assert.deepEqual(discover.supportedVersions,
    [MODERN, '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']);
  assert.equal(discover.cacheScope, 'public');
  assert.ok(discover.ttlMs >= 0);
  assert.equal(client.getServerVersion().name, 'jmem');
  assert.deepEqual(client.getServerCapabilities().tools, { listChanged: false });
  assert.match(client.getInstructions(), /jmem group/);
});

test('tools/list: the six tools in order, with their schemas', async () => {
  ({ tools } = await client.listTools());
  assert.deepEqual(tools.map((t) => t.name), TOOLS);
  for (const t of tools) checkTool(t);
});

test('snapshot, triage, headroom, allocations: structuredContent valid', async () => {
  const s = await callOk('snapshot', { top: 3 });
  assert.equal(s.schema, 'jmem-snapshot');
  assert.equal(s.nvmap.via, 'sysroot');
  assert.match(s.nvmap.by_pid[0].process, /^VLLM::EngineCor/);
  const t = await callOk('triage', {});
  assert.ok(t.findings.some((f) => f.id === 'nvmap-orphan'), t.findings.map((f) => f.id).join(' '));
  const h = await callOk('headroom', { need: '1G' });
  assert.equal(h.headroom.verdict, 'fits-now');
  const a = await callOk('allocations', { limit: 2 });
  assert.equal(a.clients.flatMap((c) => c.handles).length, 2);
});

test('drop_caches and audit: isError on a capture, with the fix', async () => {
  await callError('drop_caches', {}, /live system.*--sysroot/s);
  await callError('audit', { level: 1 }, /live system.*--sysroot/s);
  await callError('drop_caches', { level: 7 }, /"level" takes an integer from 1 to 3, not 7/);
});

test('an unknown tool: JSON-RPC error -32602', async () => {
  await assert.rejects(client.callTool({ name: 'rm_rf', arguments: {} }),
    (e) => e instanceof ProtocolError && e.code === -32602);
  await client.close();
});

test('on the wire: discover first, every request naming 2026-07-28, no initialize', () => {
  const requests = sent().filter((m) => m.id !== undefined);
  assert.equal(requests[0].method, 'server/discover');
  assert.ok(!requests.some((m) => m.method === 'initialize' || m.method === 'ping'),
    requests.map((m) => m.method).join(' '));
  for (const m of requests) {
    assert.equal(m.params._meta['io.modelcontextprotocol/protocolVersion'], MODERN, m.method);
    assert.equal(typeof m.params._meta['io.modelcontextprotocol/clientCapabilities'], 'object', m.method);
  }
  assert.equal(requests.filter((m) => m.method === 'tools/call').length, 8);
});

test('the same client in its default mode: the 2025-11-25 handshake', async () => {
  rmSync(wire, { force: true });
  const legacy = new Client({ name: 'jmem-test', version: '1.0.0' });
  await legacy.connect(transport());
  assert.equal(legacy.getNegotiatedProtocolVersion(), '2025-11-25');
  assert.equal(legacy.getProtocolEra(), 'legacy');
  await legacy.ping();
  const { tools: listed } = await legacy.listTools();
  assert.deepEqual(listed.map((t) => t.name), TOOLS);
  const r = await legacy.callTool({ name: 'triage', arguments: {} });
  assert.equal(r.structuredContent.schema, 'jmem-triage');
  await legacy.close();
  assert.equal(sent()[0].method, 'initialize');
});

const status = await run();
rmSync(scratch, { recursive: true, force: true });
process.exit(status);
