// SPDX-License-Identifier: GPL-2.0-or-later
// The agent setup snippets of docs/agents/ (the files docs/mcp.md shows),
// each read by its client's own loader, then started as parsed. TAP.
//   claude-code  .mcp.json: Claude Code itself (`claude mcp get jmem`, pin
//                claude-code), which starts the server it names and says
//                whether it connected;
//   codex        config.toml: Codex itself (`codex mcp get jmem --json`,
//                pin codex);
//   vscode       .vscode/mcp.json (JSONC, `servers`): jsonc-parser, VS
//                Code's own (pin agents);
//   cursor       .cursor/mcp.json (`mcpServers`): Cursor, a VS Code fork,
//                is not on npm: jsonc-parser too (pin agents).
// `jmem` on PATH is a stand-in that runs JMEM_EXE with the arguments it is
// given and --sysroot TREE, and records them: the parsed command must be
// `jmem`, started with ["mcp"], and answer initialize and tools/list.
// Usage: node test-mcp-agents.mjs JMEM_EXE FIXTURE_TREE SNIPPET_DIR CLIENT...
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import assert from 'node:assert/strict';
import { test, run } from './tap.mjs';

const [jmem, tree, dir] = process.argv.slice(2, 5).map((p) => resolve(p));
const wanted = process.argv.slice(5);
const require = createRequire(import.meta.url);
// waits stretch with the load, as meson's own limit does
const scale = Number(process.env.JMEM_TEST_TIMEOUT_MULTIPLIER) || 1;
const scratch = mkdtempSync(join(tmpdir(), 'jmem-agents-'));
const bin = join(scratch, 'bin');
const called = join(scratch, 'called');
mkdirSync(bin);
const quote = (s) => `'${s.replaceAll("'", "'\\''")}'`;
writeFileSync(join(bin, 'jmem'), '#!/bin/sh\n' +
  `printf '%s\\n' "$*" >> ${quote(called)}\n` +
  `exec ${quote(jmem)} "$@" --sysroot ${quote(tree)}\n`);
chmodSync(join(bin, 'jmem'), 0o755);
// a client's own files go to a home of its own; no update check, no telemetry
const env = {
  ...process.env, PATH: `${bin}:${process.env.PATH}`, HOME: join(scratch, 'home'),
  CODEX_HOME: join(scratch, 'codex'), DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
};
mkdirSync(env.HOME);
mkdirSync(env.CODEX_HOME);

function client(program, args, options = {}) {
  const r = spawnSync(program, args, { encoding: 'utf8', env, timeout: 120000 * scale, ...options });
  assert.equal(r.status, 0, `${program} ${args.join(' ')}: ${r.error ?? ''}${r.stderr}${r.stdout}`);
  return r.stdout;
}

async function jsonc(file) {
  const { parse, printParseErrorCode } = await import('jsonc-parser');
  const errors = [];
  const value = parse(readFileSync(join(dir, file), 'utf8'), errors, { allowTrailingComma: false });
  assert.deepEqual(errors.map((e) => `${printParseErrorCode(e.error)} at ${e.offset}`), []);
  return value;
}

// Each gives the server entry named jmem as its client read it: {command, args}.
const loaders = {
  async 'claude-code'() {
    // a project with the snippet as its .mcp.json, its servers approved
    const project = join(scratch, 'project');
    mkdirSync(project);
    copyFileSync(join(dir, 'claude-code.mcp.json'), join(project, '.mcp.json'));
    mkdirSync(join(env.HOME, '.claude'));
    writeFileSync(join(env.HOME, '.claude', 'settings.json'), '{"enableAllProjectMcpServers": true}\n');
    const claude = join(require.resolve(`@anthropic-ai/claude-code-linux-${process.arch}/package.json`), '../claude');
    const out = client(claude, ['mcp', 'get', 'jmem'], { cwd: project });
    const field = (name) => out.match(new RegExp(`^\\s*${name}: (.*)$`, 'm'))?.[1];
    assert.match(field('Scope') ?? '', /\.mcp\.json/, out);
    // Claude Code started the command and spoke MCP with it
    assert.match(field('Status') ?? '', /Connected/, out);
    assert.equal(field('Type'), 'stdio', out);
    return { command: field('Command'), args: field('Args')?.split(' ') };
  },
  async codex() {
    copyFileSync(join(dir, 'codex-config.toml'), join(env.CODEX_HOME, 'config.toml'));
    const codex = require.resolve('@openai/codex/bin/codex.js');
    const server = JSON.parse(client(process.execPath, [codex, 'mcp', 'get', 'jmem', '--json']));
    assert.equal(server.enabled, true);
    assert.equal(server.transport.type, 'stdio');
    return server.transport;
  },
  async vscode() {
    return (await jsonc('vscode-mcp.json')).servers?.jmem;
  },
  async cursor() {
    return (await jsonc('cursor-mcp.json')).mcpServers?.jmem;
  },
};

// One initialize and one tools/list over stdio, newline-delimited JSON-RPC.
function round(command, args) {
  return new Promise((done, fail) => {
    const child = spawn(command, args, { env, stdio: ['pipe', 'pipe', 'inherit'] });
    const answers = new Map();
    let buffered = '';
    const timer = setTimeout(() => { child.kill(); fail(new Error(`no answer in ${60 * scale} s`)); }, 60000 * scale);
    child.on('error', fail);
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      buffered += chunk;
      for (let nl; (nl = buffered.indexOf('\n')) >= 0; buffered = buffered.slice(nl + 1)) {
        const message = JSON.parse(buffered.slice(0, nl));
        answers.set(message.id, message);
        if (answers.size === 2) child.stdin.end();
      }
    });
    child.on('exit', (status) => {
      clearTimeout(timer);
      done({ status, init: answers.get(1), list: answers.get(2) });
    });
    const send = (m) => child.stdin.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\n');
    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {},
      clientInfo: { name: 'snippet-test', version: '1' } } });
    send({ method: 'notifications/initialized' });
    send({ id: 2, method: 'tools/list' });
  });
}

for (const name of wanted) {
  test(`${name}: its loader reads jmem mcp, which answers initialize and tools/list`, async () => {
    assert.ok(loaders[name], `no client ${name}`);
    rmSync(called, { force: true });
    const server = await loaders[name]();
    assert.ok(server, 'no server named jmem');
    // a missing type is stdio to every client; one that says must say stdio
    assert.ok(server.type === undefined || server.type === 'stdio', `type ${server.type}`);
    assert.equal(server.command, 'jmem');
    assert.deepEqual(server.args, ['mcp']);
    const r = await round(server.command, server.args);
    assert.equal(r.status, 0);
    assert.equal(r.init?.result?.serverInfo?.name, 'jmem', JSON.stringify(r.init));
    const tools = r.list?.result?.tools?.map((t) => t.name) ?? [];
    for (const tool of ['snapshot', 'triage', 'headroom', 'allocations', 'drop_caches', 'audit'])
      assert.ok(tools.includes(tool), tools.join(' '));
    // every start, the client's own included, was `jmem mcp`
    const starts = readFileSync(called, 'utf8').trim().split('\n');
    assert.deepEqual([...new Set(starts)], ['mcp']);
  });
}

const status = await run();
rmSync(scratch, { recursive: true, force: true });
process.exit(status);
