// SPDX-License-Identifier: GPL-2.0-or-later
// mcporter, an outside MCP client (pinned by run-sdk-test --pin mcporter),
// against `jmem mcp --sysroot TREE` as an ad-hoc stdio server: the tools
// with their schemas, a call with an argument, and a tool's isError. TAP.
// Usage: node test-mcp-mcporter.mjs JMEM_EXE FIXTURE_TREE
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import assert from 'node:assert/strict';
import { test, run } from './tap.mjs';

// mcporter runs in a directory of its own: the paths are made absolute
const [jmem, tree] = process.argv.slice(2).map((p) => resolve(p));
const cli = new URL('./node_modules/mcporter/dist/cli.js', import.meta.url).pathname;
// mcporter looks for its configuration under HOME: a home of its own, removed after
const home = mkdtempSync(join(tmpdir(), 'jmem-mcporter-'));
const server = ['--stdio', jmem, '--stdio-arg', 'mcp', '--stdio-arg', '--sysroot', '--stdio-arg', tree,
  '--name', 'jmem'];

function mcporter(...args) {
  const r = spawnSync(process.execPath, [cli, ...args], {
    encoding: 'utf8', cwd: home, env: { ...process.env, HOME: home }, timeout: 60000,
  });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

test('list: the server and its tools, each with its schemas', () => {
  const r = mcporter('list', ...server, '--schema', '--json');
  assert.equal(r.status, 0, r.err);
  const listed = JSON.parse(r.out);
  assert.equal(listed.status, 'ok', r.out.slice(0, 500));
  const names = listed.tools.map((t) => t.name);
  for (const name of ['snapshot', 'triage', 'allocations', 'drop_caches', 'audit'])
    assert.ok(names.includes(name), names.join(' '));
});

test('call snapshot with an argument', () => {
  const r = mcporter('call', ...server, '--tool', 'snapshot', '--args', '{"top":2}', '--output', 'json');
  assert.equal(r.status, 0, r.err);
  const doc = JSON.parse(r.out);
  assert.equal(doc.schema, 'jmem-snapshot');
  assert.equal(doc.processes.list.length, 2);
});

test("a tool's isError reaches the integrator with its fix", () => {
  const r = mcporter('call', ...server, '--tool', 'drop_caches', '--output', 'json');
  const result = JSON.parse(r.out);
  assert.equal(result.isError, true);
  assert.match(result.content[0].text, /To fix: start `jmem mcp` without --sysroot/);
});

const status = await run();
rmSync(home, { recursive: true, force: true });
process.exit(status);
