import { createHash } from 'node:crypto';

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

function base58Decode(s: string): Buffer | undefined {
  let n = 0n;
  for (const ch of s) {
    const v = BASE58.indexOf(ch);
    if (v < 0) return undefined;
    n = n * 58n + BigInt(v);
  }
  const hex = n === 0n ? '' : n.toString(16);
  const body = Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex');
  const zeros = /^1*/.exec(s)![0].length;
  return Buffer.concat([Buffer.alloc(zeros), body]);
}

/** Base58Check: the last 4 bytes are the first 4 of sha256(sha256(payload)). Returns the payload. */
function base58Check(s: string): Buffer | undefined {
  const raw = base58Decode(s);
  if (!raw || raw.length < 5) return undefined;
  const payload = raw.subarray(0, raw.length - 4);
  const sum = createHash('sha256').update(createHash('sha256').update(payload).digest()).digest();
  return sum.subarray(0, 4).equals(raw.subarray(raw.length - 4)) ? payload : undefined;
}

const BECH32 = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
function bech32Polymod(values: number[]): number {
  const gen = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];
  let chk = 1;
  for (const v of values) {
    const top = chk >>> 25;
    chk = ((chk & 0x1ffffff) << 5) ^ v;
    for (let i = 0; i < 5; i++) if ((top >>> i) & 1) chk ^= gen[i];
  }
  return chk >>> 0;
}

/** Segwit address on mainnet (bech32 for v0, bech32m for v1+; BIP-173/350). */
function isSegwit(s: string): boolean {
  if (s !== s.toLowerCase() || !s.startsWith('bc1') || s.length < 14 || s.length > 74) return false;
  const data = [...s.slice(3)].map((c) => BECH32.indexOf(c));
  if (data.some((v) => v < 0)) return false;
  const hrp = [...'bc'].map((c) => c.charCodeAt(0));
  const expanded = [...hrp.map((c) => c >> 5), 0, ...hrp.map((c) => c & 31)];
  const check = bech32Polymod([...expanded, ...data]);
  const version = data[0];
  return version === 0 ? check === 1 : version <= 16 && check === 0x2bc830a3;
}

/** Legacy P2PKH (version 0x00) or P2SH (0x05) with a valid checksum. */
function isBitcoinBase58(s: string): boolean {
  if (!/^[13][1-9A-HJ-NP-Za-km-z]{25,34}$/.test(s)) return false;
  const p = base58Check(s);
  return !!p && p.length === 21 && (p[0] === 0x00 || p[0] === 0x05);
}

/** Tron: base58check, 21 bytes starting with 0x41 ("T…"). */
function isTron(s: string): boolean {
  if (!/^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(s)) return false;
  const p = base58Check(s);
  return !!p && p.length === 21 && p[0] === 0x41;
}

/** EVM chains: 0x + 20 bytes. (EIP-55 mixed-case checksums need keccak-256, which Node lacks; the form is checked.) */
function isEvm(s: string): boolean {
  return /^0x[0-9a-fA-F]{40}$/.test(s);
}

const RULES: Record<string, (s: string) => boolean> = {
  TRC20: isTron,
  ERC20: isEvm,
  BEP20: isEvm,
  OMNI: isBitcoinBase58,
  BITCOIN: (s) => isBitcoinBase58(s) || isSegwit(s),
};

/** True when `address` is well formed for `chain` (checksums verified where the chain has one we can check). */
export function isValidAddress(chain: string, address: string): boolean {
  const rule = RULES[chain.toUpperCase()];
  return !!rule && rule(address);
}
