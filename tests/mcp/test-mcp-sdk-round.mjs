// SPDX-License-Identifier: GPL-2.0-or-later
// An older line of the official MCP TypeScript SDK (pinned by run-sdk-test
// --pin) against `jmem mcp --sysroot TREE`: the handshake in the SDK's own
// protocol revision, tools/list, and tools/call, as agents that ship that
// SDK do them. Each revision gets what it defines and nothing else. TAP.
// Usage: node test-mcp-sdk-round.mjs JMEM_EXE FIXTURE_TREE
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { readFileSync } from 'node:fs';
import assert from 'node:assert/strict';
import { test, run } from './tap.mjs';

const [jmem, tree] = process.argv.slice(2);
// the SDK exports no package.json: read the one npm installed beside this script
const sdk = JSON.parse(readFileSync(new URL('./node_modules/@modelcontextprotocol/sdk/package.json', import.meta.url))).version;

const transport = new StdioClientTransport({ command: jmem, args: ['mcp', '--sysroot', tree], stderr: 'pipe' });
// the Client sets onmessage before it starts the transport: see every answer
const answers = [];
const start = transport.start.bind(transport);
transport.start = async () => {
  const handler = transport.onmessage;
  transport.onmessage = (message) => { answers.push(message); handler(message); };
  return start();
};
const client = new Client({ name: 'jmem-sdk-round', version: '1.0.0' }, { capabilities: {} });
let tools;

test(`SDK ${sdk} connects: jmem answers its revision ${LATEST_PROTOCOL_VERSION}`, async () => {
  await client.connect(transport);
  assert.equal(answers[0].result.protocolVersion, LATEST_PROTOCOL_VERSION);
  assert.equal(client.getServerVersion().name, 'jmem');
  assert.deepEqual(client.getServerCapabilities().tools, { listChanged: false });
  assert.match(client.getInstructions?.() ?? answers[0].result.instructions, /admin: true/);
});

test('tools/list: the tools, with only what the revision defines', async () => {
  ({ tools } = await client.listTools());
  const names = tools.map((t) => t.name);
  for (const name of ['snapshot', 'triage', 'allocations', 'drop_caches', 'audit'])
    assert.ok(names.includes(name), names.join(' '));
  const raw = answers.find((a) => a.result?.tools).result.tools;
  for (const t of raw) {
    assert.equal(t.inputSchema.type, 'object', t.name);
    // outputSchema and title came with 2025-06-18, annotations with 2025-03-26
    assert.equal(t.outputSchema, undefined, t.name);
    assert.equal(t.title, undefined, t.name);
    assert.equal(t.annotations !== undefined, LATEST_PROTOCOL_VERSION >= '2025-03-26', t.name);
  }
});

test('tools/call triage: the document as text, no structuredContent', async () => {
  const r = await client.callTool({ name: 'triage', arguments: {} });
  assert.notEqual(r.isError, true, r.content[0].text);
  const raw = answers.at(-1).result;
  assert.equal(raw.structuredContent, undefined);
  const doc = JSON.parse(r.content[0].text);
  assert.equal(doc.schema, 'jmem-triage');
  const ids = doc.findings.map((f) => f.id);
  assert.ok(ids.includes('single-process-dominates'), ids.join(' '));
  for (const f of doc.findings) assert.equal(typeof f.admin, 'boolean', f.id);
});

test('tools/call snapshot with arguments', async () => {
  const r = await client.callTool({ name: 'snapshot', arguments: { top: 2 } });
  const doc = JSON.parse(r.content[0].text);
  assert.equal(doc.processes.list.length, 2);
  assert.match(doc.nvmap.by_pid[0].process, /^VLLM::EngineCor/);
});

test('a tool that fails: isError with the fix', async () => {
  const r = await client.callTool({ name: 'drop_caches', arguments: {} });
  assert.equal(r.isError, true);
  assert.match(r.content[0].text, /To fix: start `jmem mcp` without --sysroot/);
  await client.ping();
  await client.close();
});

process.exit(await run());
