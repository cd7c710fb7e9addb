// SPDX-License-Identifier: GPL-2.0-or-later
// What the SDK tests check of every tools/call, whichever SDK line makes
// it: a result that ran has a structuredContent valid against its tool's
// outputSchema (ajv in strict draft 2020-12 mode, which also checks the
// schema itself: an unknown keyword, a keyword without its type, a required
// property the schema does not define) and a one-sentence summary, which
// the text block starts with: the key figures, not the document again;
// a refusal is isError with the reason in its text and no structuredContent.
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import assert from 'node:assert/strict';

export function validate(tool, structured) {
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
  addFormats(ajv);
  const check = ajv.compile(tool.outputSchema);
  assert.ok(check(structured), `${tool.name}: ${ajv.errorsText(check.errors)}`);
}

// What every tool of tools/list declares: an output schema that compiles in
// ajv's strict 2020-12 mode without $schema, a closed object inputSchema,
// openWorldHint false.
export function checkTool(t) {
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
  addFormats(ajv);
  assert.doesNotThrow(() => ajv.compile(t.outputSchema), t.name);
  assert.equal(t.inputSchema.type, 'object', t.name);
  assert.equal(t.inputSchema.additionalProperties, false, t.name);
  assert.equal(t.outputSchema.type, 'object', t.name);
  assert.equal(t.outputSchema.$schema, undefined, t.name);
  assert.equal(t.annotations.openWorldHint, false, t.name);
}

// The calls through the client and tool list @session() gives, once they are there.
export function toolCalls(session) {
  async function call(name, args) {
    const result = await session().client.callTool({ name, arguments: args });
    assert.equal(result.content[0].type, 'text');
    return result;
  }

  async function callOk(name, args) {
    const result = await call(name, args);
    assert.notEqual(result.isError, true, `${name} failed: ${result.content[0].text}`);
    validate(session().tools.find((t) => t.name === name), result.structuredContent);
    assert.equal(typeof result.structuredContent.summary, 'string');
    assert.ok(result.content[0].text.startsWith(result.structuredContent.summary), result.content[0].text);
    assert.throws(() => JSON.parse(result.content[0].text));
    return result.structuredContent;
  }

  async function callError(name, args, pattern) {
    const result = await call(name, args);
    assert.equal(result.isError, true, `${name} ${JSON.stringify(args)} did not fail`);
    assert.equal(result.structuredContent, undefined);
    assert.match(result.content[0].text, pattern);
  }

  return { call, callOk, callError };
}
