// SPDX-License-Identifier: GPL-2.0-or-later
// The MCP Inspector's CLI, an outside client on the v2 client line (pinned
// by run-sdk-test --pin inspector), against `jmem mcp --sysroot TREE`: the
// scripted round an integrator runs, tools/list, tools/call with arguments,
// and a tool's isError. TAP.
// Usage: node test-mcp-inspector.mjs JMEM_EXE FIXTURE_TREE
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { test, run } from './tap.mjs';

const [jmem, tree] = process.argv.slice(2);
const cli = new URL('./node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js',
  import.meta.url).pathname;
// the Inspector keeps its catalog under HOME: a home of its own, removed after
const home = mkdtempSync(join(tmpdir(), 'jmem-inspector-'));

function inspect(...args) {
  const r = spawnSync(process.execPath, [cli, '--cli', jmem, 'mcp', '--sysroot', tree, ...args],
    { encoding: 'utf8', env: { ...process.env, HOME: home }, timeout: 60000 });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

// its output is one JSON document, or two when a tool failed
function documents(text) {
  return text.split(/\n(?=\{)/).map((part) => JSON.parse(part));
}

test('tools/list: the tools, each with its output schema', () => {
  const r = inspect('--method', 'tools/list');
  assert.equal(r.status, 0, r.err);
  const { tools } = documents(r.out)[0];
  const names = tools.map((t) => t.name);
  for (const name of ['snapshot', 'triage', 'allocations', 'drop_caches', 'audit'])
    assert.ok(names.includes(name), names.join(' '));
  for (const t of tools) assert.equal(t.outputSchema.type, 'object', t.name);
});

test('tools/call snapshot with an argument', () => {
  const r = inspect('--method', 'tools/call', '--tool-name', 'snapshot', '--tool-arg', 'top=2');
  assert.equal(r.status, 0, r.err);
  const [result] = documents(r.out);
  assert.notEqual(result.isError, true);
  assert.equal(result.structuredContent.processes.list.length, 2);
  // the document once: the text block is its summary and key figures
  assert.ok(result.content[0].text.startsWith(result.structuredContent.summary), result.content[0].text);
});

test('tools/call triage: findings with admin', () => {
  const r = inspect('--method', 'tools/call', '--tool-name', 'triage');
  assert.equal(r.status, 0, r.err);
  const [result] = documents(r.out);
  const desktop = result.structuredContent.findings.find((f) => f.id === 'desktop-nvmap');
  assert.equal(desktop.admin, true);
});

test("a tool's isError reaches the integrator with its fix", () => {
  const r = inspect('--method', 'tools/call', '--tool-name', 'drop_caches');
  assert.notEqual(r.status, 0);
  const [result] = documents(r.out);
  assert.equal(result.isError, true);
  assert.match(result.content[0].text, /To fix: start `jmem mcp` without --sysroot/);
});

const status = await run();
rmSync(home, { recursive: true, force: true });
process.exit(status);
