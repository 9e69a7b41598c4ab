#!/usr/bin/env node
/**
 * The worked example of docs/integrity.md, computed with this package's own tree code (the
 * compiled dist/: `npm run build -w contracts` first): two users, two currencies (1 = BTC,
 * 3 = USDT), fixed salts. Run: `node contracts/scripts/proof-example.js`.
 */
const c = require('../dist/index.js');

const hex = (bytes) => Buffer.from(bytes).toString('hex');
const E18 = 10n ** BigInt(c.PROOF_DECIMALS); // one whole coin in units
const currencies = [1, 3];
const leaves = [
  { name: 'Alice', salt: '11'.repeat(32), balances: [E18 / 2n, 100n * E18] }, // 0.5 BTC, 100 USDT
  { name: 'Bob', salt: '22'.repeat(32), balances: [0n, 2500n * E18 + E18 / 4n] }, // 0 BTC, 2500.25 USDT
];
for (const l of leaves) {
  const sums = c.encodeSums(l.balances);
  console.log(`${l.name}: balances (units) ${l.balances.join(', ')}`);
  console.log(`  sums(x)   ${hex(sums)}`);
  console.log(`  leaf hash SHA-256(00 ‖ salt ‖ sums) = ${hex(c.leafHash(Buffer.from(l.salt, 'hex'), l.balances))}`);
}
const tree = c.buildTree(leaves, currencies.length);
console.log(`root      SHA-256(01 ‖ Alice's hash ‖ Alice's sums ‖ Bob's hash ‖ Bob's sums) = ${tree.root}`);
console.log(`totals    ${tree.totals.join(', ')} (${tree.totals.map((t) => c.formatUnits(t)).join(' BTC, ')} USDT)`);
const proof = c.proofFor(tree, 0, currencies, leaves[0]);
console.log(`Alice's proof:\n${JSON.stringify(proof, null, 2)}`);
const v = c.verifyProof(proof);
console.log(v.ok ? `verified: ${v.root}` : `FAILED at step ${v.failedStep}: ${v.detail}`);
