import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Secrets at rest (installation tokens), sealed with AES-256-GCM under POLBOT_ENCRYPTION_KEY.
 * Each sealing draws a fresh 96-bit nonce; `context` (the row's key) is authenticated with the
 * text, so a sealed value copied into another row does not open there.
 *
 * The stored form is `v1.<nonce>.<tag>.<ciphertext>`, each part base64url: the version lets a
 * later key rotation tell old rows from new.
 */
const VERSION = 'v1';

export class SealError extends Error {
  override name = 'SealError';
}

export interface Sealer {
  seal(plain: string, context: string): string;
  /** Throws SealError when the value was sealed with another key, for another context, or altered. */
  open(sealed: string, context: string): string;
}

export function createSealer(key: Buffer): Sealer {
  if (key.length !== 32) throw new SealError('the sealing key must be 32 bytes');
  return {
    seal(plain, context) {
      const nonce = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, nonce);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const text = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [VERSION, nonce.toString('base64url'), cipher.getAuthTag().toString('base64url'), text.toString('base64url')].join('.');
    },
    open(sealed, context) {
      const [version, nonce, tag, text] = sealed.split('.');
      if (version !== VERSION || nonce === undefined || tag === undefined || text === undefined) throw new SealError('not a sealed value');
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(nonce, 'base64url'));
        decipher.setAAD(Buffer.from(context, 'utf8'));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(text, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        throw new SealError('the value does not open with this key');
      }
    },
  };
}
