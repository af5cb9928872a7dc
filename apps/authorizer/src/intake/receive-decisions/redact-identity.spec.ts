import { sha256Hex } from '@arvis/crypto';
import { redactIdentity } from './redact-identity';

const token = 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl';
const hashed = `sha256:${sha256Hex(token)}`;

describe('a decision message copied into a dead letter', () => {
  it('carries the identity token SHA-256 in its place, the other bytes unchanged', () => {
    const raw = Buffer.from(`{ "decisionId": "d1",  "identity": "${token}", "tool": "notes.append" }`);
    const r = redactIdentity(raw);
    expect(r.bytes.toString()).toBe(`{ "decisionId": "d1",  "identity": "${hashed}", "tool": "notes.append" }`);
    expect(r.identitySha256).toBe(sha256Hex(token));
  });

  it('finds a token the sender escaped, and one in a message that is not JSON', () => {
    const escaped = Buffer.from(JSON.stringify({ decisionId: 'd1', identity: token }).replace('eyJ', '\\u0065yJ'));
    const r = redactIdentity(escaped);
    expect(JSON.parse(r.bytes.toString())).toEqual({ decisionId: 'd1', identity: hashed });
    expect(r.bytes.toString()).not.toContain(token.slice(1));
    const broken = redactIdentity(Buffer.from(`{"identity":"${token}",`));
    expect(broken.bytes.toString()).toBe(`{"identity":"${hashed}",`);
    expect(broken.identitySha256).toBeUndefined();
  });

  it('leaves a message without a token as it is', () => {
    const raw = Buffer.from('{"decisionId":"arvis.retry.ab.1","tool":"notes.append"}');
    expect(redactIdentity(raw)).toEqual({ bytes: raw, replaced: 0 });
    expect(redactIdentity(null)).toEqual({ bytes: Buffer.alloc(0), replaced: 0 });
  });
});
