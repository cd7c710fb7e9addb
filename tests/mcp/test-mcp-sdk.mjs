// SPDX-License-Identifier: GPL-2.0-or-later
// `jmem mcp --sysroot TREE` driven by the official MCP TypeScript SDK: the
// handshake, tools/list, every tool, each structuredContent validated against
// its outputSchema (by the SDK's own client and again by ajv in strict
// draft 2020-12 mode, which also checks the schemas themselves), the errors a
// model sees, a cancelled audit, and a server that keeps serving after
// malformed input. TAP output.
// Usage: node test-mcp-sdk.mjs JMEM_EXE FIXTURE_TREE
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError, ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import assert from 'node:assert/strict';
import { test, run } from './tap.mjs';
import { checkTool, toolCalls } from './calls.mjs';

const [jmem, tree] = process.argv.slice(2);

const TOOLS = ['snapshot', 'triage', 'headroom', 'allocations', 'drop_caches', 'audit'];
let client;
let tools;

const { callOk, callError } = toolCalls(() => ({ client, tools }));

test('connect with StdioClientTransport', async () => {
  const transport = new StdioClientTransport({ command: jmem, args: ['mcp', '--sysroot', tree], stderr: 'pipe' });
  client = new Client({ name: 'jmem-test', version: '1.0.0' });
  await client.connect(transport);
  assert.equal(client.getServerVersion().name, 'jmem');
  assert.deepEqual(client.getServerCapabilities().tools, { listChanged: false });
  await client.ping();
});

test('tools/list: the six tools in order, with schemas and annotations', async () => {
  ({ tools } = await client.listTools());
  assert.deepEqual(tools.map((t) => t.name), TOOLS);
  for (const t of tools) checkTool(t);
  for (const name of ['snapshot', 'triage', 'headroom', 'allocations'])
    assert.equal(tools.find((t) => t.name === name).annotations.readOnlyHint, true, name);
  const drop = tools.find((t) => t.name === 'drop_caches').annotations;
  assert.deepEqual([drop.readOnlyHint, drop.destructiveHint, drop.idempotentHint], [false, false, true]);
  assert.deepEqual(tools.find((t) => t.name === 'drop_caches').inputSchema.properties.level,
    { type: 'integer', minimum: 1, maximum: 3, description: tools.find((t) => t.name === 'drop_caches').inputSchema.properties.level.description });
});

test('snapshot: the capture, NvMap rows and the vLLM engine on top', async () => {
  const s = await callOk('snapshot', {});
  assert.equal(s.schema, 'jmem-snapshot');
  assert.equal(s.nvmap.readable, true);
  assert.equal(s.nvmap.via, 'sysroot');
  assert.ok(s.processes.list.length <= 10);
  assert.match(s.processes.list[0].name, /^VLLM::EngineCor/);
  // held to its budget, it names what it left out, and says how to get it
  assert.ok(s.cut.lists.some((l) => l.list === 'nvmap.by_pid' && l.kept === 0), JSON.stringify(s.cut));
  assert.match(s.summary, /call with top or all for the whole/);
  const whole = await callOk('snapshot', { top: 10 });
  assert.equal(whole.cut, undefined);
  const top = whole.nvmap.by_pid[0];
  assert.match(top.process, /^VLLM::EngineCor/);
  assert.equal(whole.processes.list[0].pid, top.pid);
});

test('snapshot: all and top', async () => {
  const all = await callOk('snapshot', { all: true });
  const two = await callOk('snapshot', { top: 2 });
  assert.equal(two.processes.list.length, 2);
  assert.ok(all.processes.list.length > 2);
  assert.equal(all.processes.list.length, all.processes.total);
});

test('snapshot: pid keeps that process, its NvMap and GPU rows', async () => {
  const s = await callOk('snapshot', { pid: 1731 });
  assert.deepEqual(s.processes.list.map((p) => p.pid), [1731]);
  assert.deepEqual(s.nvmap.clients.map((c) => c.pid), [1731]);
  assert.deepEqual(s.nvmap.by_pid.map((c) => c.pid), [1731]);
  assert.ok(s.gpu.processes.every((p) => p.pid === 1731));
});

test('triage: findings with evidence and actions', async () => {
  const t = await callOk('triage', {});
  const ids = t.findings.map((f) => f.id);
  assert.ok(ids.includes('single-process-dominates'), ids.join(' '));
  assert.ok(ids.includes('nvmap-orphan'), ids.join(' '));
  for (const f of t.findings) assert.ok(f.action.length > 0);
});

test('headroom: the verdict for a need given as a size or as bytes', async () => {
  const none = await callOk('headroom', {});
  assert.equal(none.schema, 'jmem-headroom');
  assert.equal(none.headroom.verdict, null);
  const now = none.headroom.allocatable_now_kib;
  const after = none.headroom.allocatable_after_reclaim_kib;
  assert.ok(now > 0 && after > now, JSON.stringify(none.headroom));
  const fits = await callOk('headroom', { need: '1G' });
  assert.equal(fits.headroom.verdict, 'fits-now');
  assert.equal(fits.exit_status, 0);
  const reclaim = await callOk('headroom', { need: (now + 1024) * 1024 });
  assert.equal(reclaim.headroom.verdict, 'fits-after-reclaim');
  assert.match(reclaim.headroom.actions[0].action, /^jmem drop-caches/);
  assert.equal(reclaim.headroom.actions[0].admin, false);
  const no = await callOk('headroom', { need: '1T' });
  assert.equal(no.headroom.verdict, 'does-not-fit');
  assert.equal(no.exit_status, 2);
  await callError('headroom', { need: '6X' }, /"need" takes a size: "6X" is not a size: unknown unit "X"/);
  await callError('headroom', { need: -1 }, /"need" takes a size .* not -1/);
});

test('allocations: the largest handles, and every handle by process and by tag', async () => {
  const whole = await callOk('allocations', {});
  const n = whole.totals.handles;
  assert.equal(whole.omitted, undefined);
  assert.equal(whole.clients.reduce((a, c) => a + c.handles.length, 0), n);
  const cut = await callOk('allocations', { limit: 2 });
  const shown = cut.clients.flatMap((c) => c.handles);
  assert.equal(shown.length, 2);
  assert.equal(cut.omitted.handles, n - 2);
  // the two largest of all, whoever holds them
  const sizes = whole.clients.flatMap((c) => c.handles.map((h) => h.size_kib)).sort((a, b) => b - a);
  assert.deepEqual(shown.map((h) => h.size_kib).sort((a, b) => b - a), sizes.slice(0, 2));
  assert.deepEqual(cut.totals, whole.totals);
  assert.equal(cut.totals.by_process.reduce((a, p) => a + p.handles, 0) + cut.totals.other_processes.handles, n);
  assert.equal(cut.totals.by_tag.reduce((a, t) => a + t.handles, 0) + cut.totals.other_tags.handles, n);
  assert.match(cut.totals.by_process[0].process, /^VLLM::EngineCor/);
  const one = await callOk('allocations', { pid: 1731 });
  assert.deepEqual([...new Set(one.clients.map((c) => c.pid))], [1731]);
  assert.deepEqual(one.totals.by_process.map((p) => p.pid), [1731]);
});

test('drop_caches and audit refuse on a capture', async () => {
  await callError('drop_caches', {}, /live system.*--sysroot/s);
  await callError('audit', { level: 1 }, /live system.*--sysroot/s);
});

test('arguments that do not match the inputSchema: isError naming the argument', async () => {
  await callError('drop_caches', { level: 7 }, /"level" takes an integer from 1 to 3, not 7/);
  await callError('drop_caches', { level: '3' }, /"level" takes an integer .* not a string/);
  await callError('snapshot', { top: -1 }, /"top"/);
  await callError('snapshot', { all: 1 }, /"all" takes true or false/);
  await callError('snapshot', { colour: true }, /no argument "colour"/);
  await callError('snapshot', { top: 3, all: true }, /"top" or "all"/);
});

test('unknown tool: JSON-RPC error -32602', async () => {
  await assert.rejects(client.callTool({ name: 'rm_rf', arguments: {} }),
    (e) => e instanceof McpError && e.code === ErrorCode.InvalidParams);
});

test('the server still answers after every error', async () => {
  await client.ping();
  await callOk('triage', {});
  await client.close();
});

// The SDK's own cancellation (an AbortSignal sends notifications/cancelled):
// the audit stops, nothing answers it, and the server is free at once. On
// the live system, where an audit without a drop needs no helper.
test('a cancelled audit stops and the server serves on', async () => {
  const live = new Client({ name: 'jmem-cancel', version: '1.0.0' });
  await live.connect(new StdioClientTransport({
    command: jmem, args: ['mcp'], stderr: 'pipe',
    env: { ...process.env, DBUS_SYSTEM_BUS_ADDRESS: 'unix:path=/nonexistent/jmem-test-bus' },
  }));
  const abort = new AbortController();
  const audit = live.callTool({ name: 'audit', arguments: { wait_seconds: 50, top: 0 } }, undefined,
    { signal: abort.signal });
  const started = Date.now();
  await live.ping();
  abort.abort('the user gave up');
  await assert.rejects(audit);
  const t = await live.callTool({ name: 'triage', arguments: {} });
  assert.notEqual(t.isError, true);
  assert.ok(Date.now() - started < 40000, `the audit held the server for ${Date.now() - started} ms`);
  await live.close();
});

// Raw lines the SDK would never send: each is answered and the server goes on.
test('malformed input is answered and the server keeps serving', async () => {
  const child = spawn(jmem, ['mcp', '--sysroot', tree], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const answers = [];
  lines.on('line', (l) => answers.push(JSON.parse(l)));
  const closed = new Promise((resolve) => lines.on('close', resolve));
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  child.stdin.write('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1999-01-01","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}\n');
  child.stdin.write('not json\n');
  child.stdin.write('{"jsonrpc":"2.0","id":2,"method":"no/such"}\n');
  child.stdin.write('{"jsonrpc":"2.0","id":3,"method":"ping"}\n');
  child.stdin.end();
  assert.equal(await exited, 0);
  await closed;
  assert.equal(answers.length, 4, JSON.stringify(answers));
  assert.equal(answers[0].result.protocolVersion, '2025-11-25');
  assert.equal(answers[1].error.code, ErrorCode.ParseError);
  assert.equal(answers[1].id, null);
  assert.equal(answers[2].error.code, ErrorCode.MethodNotFound);
  assert.deepEqual(answers[3], { jsonrpc: '2.0', id: 3, result: {} });
});

process.exit(await run());
