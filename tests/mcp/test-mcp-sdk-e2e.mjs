// SPDX-License-Identifier: GPL-2.0-or-later
// In the e2e sandbox, the official MCP TypeScript SDK against `jmem mcp` on
// the live system, run as the account this script runs as: a member of the
// jmem group gets the fixture's NvMap rows through the helper and drops
// caches; an outsider gets isError results with the fix, never a prompt.
// The SDK validates each structuredContent against its outputSchema. The
// outsider's snapshot holds what the Skill's outsider evals (evals.json,
// account "outsider") take as facts: each is checked here. TAP.
// Usage: node test-mcp-sdk-e2e.mjs JMEM_EXE EVALS_JSON agent|outsider
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

const [jmem, evalsPath, role] = process.argv.slice(2);
const transport = new StdioClientTransport({ command: jmem, args: ['mcp'], stderr: 'inherit' });
const client = new Client({ name: 'jmem-e2e', version: '1.0.0' });
const results = [];

async function step(name, fn) {
  try {
    await fn();
    results.push(`ok ${results.length + 1} - ${role}: ${name}`);
  } catch (e) {
    results.push(`not ok ${results.length + 1} - ${role}: ${name}\n# ${String(e.stack || e).split('\n').join('\n# ')}`);
  }
}

await step('connect', async () => {
  await client.connect(transport);
  await client.listTools();  // caches the output schemas the SDK validates with
});

await step('snapshot', async () => {
  const r = await client.callTool({ name: 'snapshot', arguments: { top: 3 } });
  assert.notEqual(r.isError, true, r.content[0].text);
  const nvmap = r.structuredContent.nvmap;
  if (role === 'agent') {
    assert.equal(nvmap.readable, true);
    assert.equal(nvmap.via, 'helper');
    assert.match(nvmap.by_pid[0].process, /^VLLM::EngineCor/);
  } else {
    assert.equal(nvmap.readable, false);
    assert.deepEqual(nvmap.clients, []);
    assert.ok(r.structuredContent.warnings.some((w) => w.source === 'nvmap' && /jmem group/.test(w.action ?? '')),
      JSON.stringify(r.structuredContent.warnings));
  }
});

// 'a.b[k=v].c[0]' in @doc, as tests/client/test-skill-evals.py reads a fact's source
function resolve(doc, path) {
  let node = doc;
  for (const [, name, selector] of path.matchAll(/([^.[\]]+)|\[([^\]]*)\]/g)) {
    if (name !== undefined) node = node[name];
    else if (/^\d+$/.test(selector)) node = node[Number(selector)];
    else {
      const [key, value] = selector.split('=');
      node = node.find((e) => e && (e[key] === value || JSON.stringify(e[key]) === value));
    }
    if (node === undefined) throw new Error(`${path}: nothing at ${name ?? selector}`);
  }
  return node;
}

if (role === 'outsider') {
  const outsiderEvals = JSON.parse(readFileSync(evalsPath, 'utf8')).evals.filter((e) => e.account === 'outsider');
  await step(`the Skill's outsider evals (${outsiderEvals.map((e) => e.id).join(', ')}) hold`, async () => {
    assert.ok(outsiderEvals.length > 0);
    for (const e of outsiderEvals)
      for (const fact of e.facts.filter((f) => f.source)) {
        const r = await client.callTool({ name: fact.source.tool, arguments: fact.source.arguments ?? {} });
        const got = resolve(r.structuredContent, fact.source.path);
        if ('matches' in fact.source)
          assert.match(got, new RegExp(fact.source.matches), `${e.id}: ${fact.id}`);
        else
          assert.deepEqual(got, fact.source.equals ?? fact.kib ?? fact.percent ?? fact.integer, `${e.id}: ${fact.id}`);
      }
  });
}

await step('drop_caches', async () => {
  const r = await client.callTool({ name: 'drop_caches', arguments: { level: 1 } });
  if (role === 'agent') {
    assert.notEqual(r.isError, true, r.content[0].text);
    assert.equal(r.structuredContent.level, 1);
    assert.equal(r.structuredContent.helper_result.drop_caches, 1);
  } else {
    assert.equal(r.isError, true);
    assert.match(r.content[0].text, /caches were not dropped: .*\nTo fix: add this account to the jmem group/s);
  }
});

await client.close();
console.log(`1..${results.length}\n${results.join('\n')}`);
process.exit(results.some((r) => r.startsWith('not ok')) ? 1 : 0);
