// SPDX-License-Identifier: GPL-2.0-or-later
// The TAP the SDK tests print: test(name, fn) adds a case, run() runs them
// in order and gives the exit status: 0 when all passed.
const cases = [];

export function test(name, fn) {
  cases.push([name, fn]);
}

export async function run() {
  console.log(`1..${cases.length}`);
  let failed = 0;
  for (const [i, [name, fn]] of cases.entries()) {
    try {
      await fn();
      console.log(`ok ${i + 1} - ${name}`);
    } catch (e) {
      failed++;
      console.log(`not ok ${i + 1} - ${name}`);
      for (const line of String(e.stack || e).split('\n')) console.log(`# ${line}`);
    }
  }
  return failed ? 1 : 0;
}
