// What one `matches` condition costs on a 100,000-character text (the longest message body).
// RE2 is linear in the text, with a factor that grows with the compiled pattern when its DFA
// gives up and it simulates the NFA; the adversarial cases are patterns at the size cap
// (MAX_PROGRAM_SIZE instructions) whose DFA explodes on the text.
//
//   node bench/matches.ts        prints the slowest of 3 runs per case: wall time and CPU time
//                                (the CPU time holds up better on a busy machine)

import { evaluateCondition, MAX_PROGRAM_SIZE, patternProblem } from '../src/graph/index.ts';

const N = 100_000;
let seed = 1;
const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
/** a/b at random with "cd" every 997 characters: no match, and no literal to skip ahead to. */
const ab = Array.from({ length: N }, (_, i) => (i % 997 === 0 ? 'cd' : random() < 0.5 ? 'a' : 'b')).join('').slice(0, N);
const k = MAX_PROGRAM_SIZE - 10;
const quarter = Math.floor(k / 4) - 2;

const cases: Array<[name: string, pattern: string, text: string]> = [
  ['typical: an order number', 'order\\s*#?\\s*\\d{5,10}', 'lorem ipsum '.repeat(N / 12)],
  ['typical: an e-mail address', '^\\S+@\\S+\\.\\S+$', `${'@'.repeat(N / 2)}${'.'.repeat(N / 2 - 1)} `],
  ['typical: 25 keywords', 'urgent|asap|immediately|emergency|critical|outage|down|broken|not working|cannot log ?in|password reset|refund|chargeback|invoice|billing|payment failed|cancel|unsubscribe|complaint|lawyer|legal|gdpr|data breach|security', 'x'.repeat(N)],
  ['at the cap: a[ab]{k}d (2^k DFA states)', `a[ab]{${k}}d`, ab],
  ['at the cap: alternatives in a counted group', `(?:a|b|ab|ba){${Math.floor(k / 7)}}d`, ab],
  ['at the cap: four counted branches', `(?:a[ab]{${quarter}}d|b[ab]{${quarter}}d|a{${quarter}}c|b{${quarter}}c)`, ab],
  ['at the cap: Unicode classes', `(?:\\p{L}|\\p{N}){${k}}!`, 'aé'.repeat(N / 2)],
];

console.log(`matches on ${N.toLocaleString('en')} characters, pattern cap ${MAX_PROGRAM_SIZE} instructions`);
for (const [name, pattern, text] of cases) {
  const problem = patternProblem(pattern, false);
  if (problem !== undefined) throw new Error(`${name}: ${pattern} ${problem}`);
  const cond = { field: 'data.text', operator: 'matches' as const, value: pattern };
  let wall = 0;
  let cpu = 0;
  for (let run = 0; run < 3; run++) {
    const started = performance.now();
    const usage = process.cpuUsage();
    evaluateCondition(cond, { data: { text } });
    const used = process.cpuUsage(usage);
    wall = Math.max(wall, performance.now() - started);
    cpu = Math.max(cpu, (used.user + used.system) / 1000);
  }
  console.log(`${wall.toFixed(0).padStart(6)} ms wall ${cpu.toFixed(0).padStart(6)} ms CPU  ${name}`);
}
