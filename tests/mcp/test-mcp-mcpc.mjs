// SPDX-License-Identifier: GPL-2.0-or-later
// mcpc, an outside MCP client on the v1 SDK (pinned by run-sdk-test --pin
// mcpc), against `jmem mcp --sysroot TREE` as a stdio server from an MCP
// config file: connect a session, the tools with their schemas, a call with
// an argument, a tool's isError, close; nothing left behind. TAP.
// Usage: node test-mcp-mcpc.mjs JMEM_EXE FIXTURE_TREE
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { test, run } from './tap.mjs';

const [jmem, tree] = process.argv.slice(2);
const cli = new URL('./node_modules/@apify/mcpc/bin/mcpc', import.meta.url).pathname;
// mcpc keeps its sessions, bridge sockets and logs under MCPC_HOME_DIR and
// HOME: a home of its own, removed after
const home = mkdtempSync(join(tmpdir(), 'jmem-mcpc-'));
const config = join(home, 'mcp.json');
writeFileSync(config, JSON.stringify({
  mcpServers: { jmem: { command: jmem, args: ['mcp', '--sysroot', tree] } },
}));
// No session bus: mcpc's credential store stays a file in that home.
const env = { ...process.env, HOME: home, MCPC_HOME_DIR: join(home, '.mcpc'), XDG_RUNTIME_DIR: home };
delete env.DBUS_SESSION_BUS_ADDRESS;

function mcpc(...args) {
  const r = spawnSync(process.execPath, [cli, '--json', ...args],
    { encoding: 'utf8', cwd: home, env, timeout: 60000 });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

// the keys this account sees that mcpc names (its service is "mcpc")
function mcpcKeys() {
  if (!existsSync('/proc/keys')) return [];
  return readFileSync('/proc/keys', 'utf8').split('\n').filter((l) => l.includes('@mcpc'));
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const keysBefore = mcpcKeys();
let bridge = null;
let server = null;

// the process PID started named NAME, or null
function child(pid, name) {
  for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    let stat;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // pid (comm) state ppid ...
    const m = /^\d+ \((.*)\) \S+ (\d+)/s.exec(stat);
    if (m && m[1] === name && Number(m[2]) === pid) return Number(entry);
  }
  return null;
}

test('mcpc has no keyring binding to reach', () => {
  // tests/mcp/mcpc/.npmrc omits the optional native packages
  const require = createRequire(cli);
  assert.throws(() => require('@napi-rs/keyring'));
});

test('connect: a session to jmem as a stdio server', () => {
  const r = mcpc('connect', `${config}:jmem`, '@jmem');
  assert.equal(r.status, 0, r.err);
  const info = JSON.parse(r.out);
  assert.equal(info.serverInfo.name, 'jmem');
  assert.match(info.instructions, /Start with triage/);
  const sessions = JSON.parse(readFileSync(join(home, '.mcpc', 'sessions.json'), 'utf8')).sessions;
  bridge = sessions['@jmem'].pid;
  assert.ok(alive(bridge), `bridge ${bridge}`);
  server = child(bridge, 'jmem');
  assert.ok(server, 'no jmem mcp under the bridge');
});

test('tools-list: all six tools, each with its schemas', () => {
  const r = mcpc('@jmem', 'tools-list', '--full');
  assert.equal(r.status, 0, r.err);
  const tools = JSON.parse(r.out);
  assert.deepEqual(tools.map((t) => t.name).sort(),
    ['allocations', 'audit', 'drop_caches', 'headroom', 'snapshot', 'triage']);
  for (const t of tools) {
    assert.equal(t.inputSchema.type, 'object', t.name);
    assert.equal(t.outputSchema.type, 'object', t.name);
  }
});

test('tools-call snapshot with an argument', () => {
  const r = mcpc('@jmem', 'tools-call', 'snapshot', 'top:=2');
  assert.equal(r.status, 0, r.err);
  const result = JSON.parse(r.out);
  assert.notEqual(result.isError, true);
  assert.equal(result.structuredContent.schema, 'jmem-snapshot');
  assert.equal(result.structuredContent.processes.list.length, 2);
  // the document once: the text block is its summary and key figures
  assert.ok(result.content[0].text.startsWith(result.structuredContent.summary), result.content[0].text);
});

test("a tool's isError reaches the integrator with its fix", () => {
  const r = mcpc('@jmem', 'tools-call', 'drop_caches');
  const result = JSON.parse(r.out);
  assert.equal(result.isError, true);
  assert.match(result.content[0].text, /To fix: start `jmem mcp` without --sysroot/);
});

test('close: the bridge and the server end, no key is left', async () => {
  const r = mcpc('@jmem', 'close');
  assert.equal(r.status, 0, r.err);
  assert.equal(JSON.parse(r.out).closed, true);
  for (let i = 0; i < 50 && alive(bridge); i++) await new Promise((done) => setTimeout(done, 100));
  assert.equal(alive(bridge), false, `bridge ${bridge} still runs`);
  for (let i = 0; i < 50 && alive(server); i++) await new Promise((done) => setTimeout(done, 100));
  assert.equal(alive(server), false, `jmem mcp ${server} still runs`);
  assert.deepEqual(mcpcKeys(), keysBefore);
});

const status = await run();
// a bridge left by a failed case: ours to end
if (bridge && alive(bridge)) process.kill(bridge, 'SIGTERM');
rmSync(home, { recursive: true, force: true });
process.exit(status);
