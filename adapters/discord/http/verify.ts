import { createPublicKey, verify, type KeyObject } from 'node:crypto';

/** DER SubjectPublicKeyInfo header of an Ed25519 key: what precedes the raw 32 bytes Discord shows. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const SIGNATURE = /^[0-9a-f]{128}$/i;

/** The application's public key (64 hex characters, from the Developer Portal) as a key Node can verify with. */
export function publicKeyFromHex(hex: string): KeyObject {
  if (!/^[0-9a-f]{64}$/i.test(hex)) throw new TypeError('a Discord public key is 64 hex characters');
  return createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, Buffer.from(hex, 'hex')]), format: 'der', type: 'spki' });
}

/**
 * Whether Discord signed `timestamp + body` with the key. The signature's shape is checked first:
 * Buffer.from(…, 'hex') stops quietly at the first character that is not hex, and a shortened
 * signature must not reach the verifier as if it were the one sent.
 */
export function signedByDiscord(key: KeyObject, signature: string, timestamp: string, body: Buffer): boolean {
  if (!SIGNATURE.test(signature)) return false;
  try {
    return verify(null, Buffer.concat([Buffer.from(timestamp, 'utf8'), body]), key, Buffer.from(signature, 'hex'));
  } catch {
    return false;
  }
}
