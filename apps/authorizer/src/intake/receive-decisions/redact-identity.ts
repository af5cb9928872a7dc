import { sha256Hex } from '@arvis/crypto';

// A compact JWS whose header is a JSON object ("{" encodes to "ey" in base64url), as far as it
// goes: catches a token anywhere in bytes that are not a readable decision.
const JWS_LIKE = /ey[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g;

export interface Redacted {
  bytes: Buffer;
  /** SHA-256 of the decision's identity token, when the message had one where a decision keeps it. */
  identitySha256?: string;
  /** How many tokens were replaced. */
  replaced: number;
}

/**
 * A decision message as a dead letter may copy it (ADR 0035): every identity token replaced by
 * `sha256:<hex of the token>`, the rest byte for byte. The decision's own `identity` field is
 * found by parsing (and replaced in the bytes, or, if the sender escaped it, by writing the
 * parsed message again); anything else shaped like a signed token is replaced as it appears.
 */
export function redactIdentity(raw: Buffer | null): Redacted {
  if (raw === null) return { bytes: Buffer.alloc(0), replaced: 0 };
  let text = raw.toString('utf8');
  let identitySha256: string | undefined;
  let replaced = 0;
  const token = identityField(text);
  if (token !== undefined) {
    identitySha256 = sha256Hex(token);
    if (text.includes(token)) {
      text = text.split(token).join(`sha256:${identitySha256}`);
      replaced++;
    } else {
      const parsed = JSON.parse(text) as Record<string, unknown>;
      text = JSON.stringify({ ...parsed, identity: `sha256:${identitySha256}` });
      replaced++;
    }
  }
  text = text.replace(JWS_LIKE, (t) => {
    replaced++;
    return `sha256:${sha256Hex(t)}`;
  });
  return { bytes: replaced === 0 ? raw : Buffer.from(text, 'utf8'), replaced, ...(identitySha256 ? { identitySha256 } : {}) };
}

function identityField(text: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
    const identity = (parsed as Record<string, unknown>)['identity'];
    return typeof identity === 'string' && identity.length > 0 ? identity : undefined;
  } catch {
    return undefined;
  }
}
