import { createRequire } from "node:module";
import type * as NodeCrypto from "node:crypto";

/**
 * node:crypto, loaded on first use. Importing it costs a couple of milliseconds at
 * start-up, and a read on an unchanged wiki never hashes or draws a random number.
 */
let loaded: typeof NodeCrypto | undefined;

function crypto(): typeof NodeCrypto {
  return (loaded ??= createRequire(import.meta.url)("node:crypto") as typeof NodeCrypto);
}

export function sha256Hex(data: string | Uint8Array): string {
  return crypto().createHash("sha256").update(data).digest("hex");
}

export function randomHex(bytes: number): string {
  return crypto().randomBytes(bytes).toString("hex");
}

/** A SHA-256 fed piece by piece, for files too big to hold in memory at once. */
export function sha256Hasher(): { update(data: Uint8Array): void; hex(): string } {
  const hash = crypto().createHash("sha256");
  return { update: (data) => void hash.update(data), hex: () => hash.digest("hex") };
}

/** node:crypto's `createHash`, for digests fed in parts or encoded otherwise than the helpers above. */
export function createHash(algorithm: string): NodeCrypto.Hash {
  return crypto().createHash(algorithm);
}
