import { randomBytes } from 'node:crypto';
import { ActionDecisionSchema, DEFAULT_MAX_ARRAY_LENGTH, DEFAULT_MAX_KEYS, DlqRecordSchema, exceedsSafeInteger, IntentMessageSchema, parseInbound } from './index';

const opts = { maxBytes: 64 * 1024 };
const decision = {
  specVersion: 1,
  decisionId: 'd-1',
  runId: 'run-1',
  causalId: 'c-1',
  tool: 'payments.transfer',
  payload: { amountMinor: 1250 },
  riskScore: 0.2,
  identity: 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl',
};
const bytes = (s: string): Buffer => Buffer.from(s, 'utf8');
const json = (v: unknown): Buffer => bytes(JSON.stringify(v));
// Splices a raw number literal into the payload, bypassing JSON.stringify's rounding.
const withPayloadLiteral = (literal: string): Buffer =>
  bytes(JSON.stringify({ ...decision, payload: { n: '__N__' } }).replace('"__N__"', literal));

describe('parseInbound', () => {
  it('returns the parsed decision with defaults applied', () => {
    const result = parseInbound(ActionDecisionSchema, json(decision), opts);
    expect(result).toEqual({ ok: true, value: { ...decision, processId: 'default' } });
  });

  describe('empty input', () => {
    it.each([
      ['null', null],
      ['undefined', undefined],
      ['zero bytes', Buffer.alloc(0)],
    ])('refuses %s as malformed_message', (_name, raw) => {
      expect(parseInbound(ActionDecisionSchema, raw, opts)).toEqual({
        ok: false,
        reasonCode: 'malformed_message',
        detail: 'empty message',
      });
    });
  });

  it('refuses a message over maxBytes as payload_too_large, before looking inside', () => {
    const result = parseInbound(ActionDecisionSchema, Buffer.alloc(11, 0xff), { maxBytes: 10 });
    expect(result).toEqual({ ok: false, reasonCode: 'payload_too_large', detail: 'message is 11 bytes; the limit is 10' });
    expect(parseInbound(ActionDecisionSchema, json(decision), { maxBytes: json(decision).byteLength }).ok).toBe(true);
  });

  it('refuses invalid UTF-8 as malformed_message', () => {
    const raw = Buffer.concat([bytes('{"specVersion":1,"x":"'), Buffer.from([0xc3, 0x28]), bytes('"}')]);
    expect(parseInbound(ActionDecisionSchema, raw, opts)).toMatchObject({
      ok: false,
      reasonCode: 'malformed_message',
      detail: 'message is not valid UTF-8',
    });
  });

  it('refuses invalid JSON as malformed_message', () => {
    const result = parseInbound(ActionDecisionSchema, bytes('{"specVersion":1,'), opts);
    expect(result).toMatchObject({ ok: false, reasonCode: 'malformed_message' });
    expect(!result.ok && result.detail).toMatch(/^invalid JSON: /);
  });

  describe('integers beyond 2^53', () => {
    it.each(['9007199254740993', '-9007199254740993', '9007199254740992', '1e300', '1E16', '9.007199254740993e15', '9007199254740991.5', '1e400', '12345678901234567890.5'])(
      'refuses %s as malformed_message naming the number',
      (literal) => {
        const result = parseInbound(ActionDecisionSchema, withPayloadLiteral(literal), opts);
        expect(result).toMatchObject({ ok: false, reasonCode: 'malformed_message' });
        expect(!result.ok && result.detail).toContain(`number ${literal} exceeds 2^53-1`);
      },
    );

    it.each(['9007199254740991', '-9007199254740991', '90071992547409910e-1', '1e15', '0.5', '-0', '1e-400', '123.456e2'])(
      'accepts %s',
      (literal) => {
        expect(parseInbound(ActionDecisionSchema, withPayloadLiteral(literal), opts).ok).toBe(true);
      },
    );

    it('accepts the same digits inside a string, even next to escaped quotes', () => {
      const raw = json({ ...decision, payload: { n: '9007199254740993', m: 'a\\"1e300"\\' } });
      expect(parseInbound(ActionDecisionSchema, raw, opts).ok).toBe(true);
    });

    it('finds a big integer in a key-adjacent array and nested position', () => {
      const raw = bytes(JSON.stringify({ ...decision, payload: { a: [1, { b: '__N__' }] } }).replace('"__N__"', '18446744073709551615'));
      expect(parseInbound(ActionDecisionSchema, raw, opts)).toMatchObject({ ok: false, reasonCode: 'malformed_message' });
    });

    it('exceedsSafeInteger is exact at the boundary, whatever the notation', () => {
      expect(exceedsSafeInteger('9007199254740991')).toBe(false);
      expect(exceedsSafeInteger('9007199254740991.0')).toBe(false);
      expect(exceedsSafeInteger('0.9007199254740991e16')).toBe(false);
      expect(exceedsSafeInteger('9007199254740991e0')).toBe(false);
      expect(exceedsSafeInteger('9007199254740992')).toBe(true);
      expect(exceedsSafeInteger('0.9007199254740992e16')).toBe(true);
      expect(exceedsSafeInteger('9007199254740991.000001')).toBe(true);
      expect(exceedsSafeInteger('0e999999')).toBe(false);
      expect(exceedsSafeInteger('00000000000000000001')).toBe(false);
    });
  });

  it.each([
    ['an array', '[1,2]'],
    ['a number', '1'],
    ['a string', '"specVersion"'],
    ['null', 'null'],
  ])('refuses %s at top level as malformed_message', (_name, text) => {
    expect(parseInbound(ActionDecisionSchema, bytes(text), opts)).toEqual({
      ok: false,
      reasonCode: 'malformed_message',
      detail: 'top level must be a JSON object',
    });
  });

  it('refuses an unknown specVersion with a clear unsupported_spec_version', () => {
    expect(parseInbound(ActionDecisionSchema, json({ ...decision, specVersion: 2 }), opts)).toEqual({
      ok: false,
      reasonCode: 'unsupported_spec_version',
      detail: 'specVersion 2 is not supported; this service accepts 1',
    });
    expect(parseInbound(ActionDecisionSchema, json({ ...decision, specVersion: '1' }), opts)).toEqual({
      ok: false,
      reasonCode: 'unsupported_spec_version',
      detail: 'specVersion "1" is not supported; this service accepts 1',
    });
  });

  it('refuses a missing specVersion as malformed_message', () => {
    const { specVersion: _omit, ...rest } = decision;
    expect(parseInbound(ActionDecisionSchema, json(rest), opts)).toEqual({
      ok: false,
      reasonCode: 'malformed_message',
      detail: 'specVersion is missing',
    });
  });

  it('refuses a schema violation with the paths and messages of the issues', () => {
    const result = parseInbound(ActionDecisionSchema, json({ ...decision, riskScore: 2, tool: '' }), opts);
    expect(result).toMatchObject({ ok: false, reasonCode: 'malformed_message' });
    expect(!result.ok && result.detail).toMatch(/^schema violation: /);
    expect(!result.ok && result.detail).toContain('riskScore: ');
    expect(!result.ok && result.detail).toContain('tool: ');
  });

  it('bounds the detail of a schema violation', () => {
    const noisy = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`unknownField${i}`, i]));
    const result = parseInbound(ActionDecisionSchema, json({ specVersion: 1, ...noisy }), opts);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.detail.length).toBeLessThanOrEqual(500);
  });

  it('says retry is set by the system only when a decision carries retry', () => {
    const raw = json({ ...decision, retry: { attempt: 1, chainId: 'x', parentCausalId: 'y' } });
    const result = parseInbound(ActionDecisionSchema, raw, opts);
    expect(result).toEqual({
      ok: false,
      reasonCode: 'malformed_message',
      detail: 'schema violation: (root): retry is set by the system only',
    });
  });

  it('names other unknown fields', () => {
    const result = parseInbound(ActionDecisionSchema, json({ ...decision, retry: 1, colour: 'red' }), opts);
    expect(!result.ok && result.detail).toBe(
      'schema violation: (root): retry is set by the system only; (root): unrecognized key(s) "colour"',
    );
  });

  it.each([
    ['plain', '{"__proto__":{"amountMinor":1}}'],
    ['escaped', '{"\\u005f_proto__":{"amountMinor":1}}'],
  ])('refuses a %s __proto__ key that schema parsing would silently drop', (_name, payload) => {
    const raw = bytes(JSON.stringify({ ...decision, payload: '__P__' }).replace('"__P__"', payload));
    expect(parseInbound(ActionDecisionSchema, raw, opts)).toEqual({
      ok: false,
      reasonCode: 'malformed_message',
      detail: 'the key "__proto__" is not allowed',
    });
  });

  it('accepts "__proto__" as a string value', () => {
    expect(parseInbound(ActionDecisionSchema, json({ ...decision, payload: { k: '__proto__' } }), opts).ok).toBe(true);
  });

  it('refuses nesting beyond maxDepth', () => {
    const deep = (n: number): string => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
    const at = (n: number): Buffer =>
      bytes(JSON.stringify({ ...decision, payload: '__P__' }).replace('"__P__"', deep(n)));
    expect(parseInbound(ActionDecisionSchema, at(9), { ...opts, maxDepth: 10 }).ok).toBe(true);
    expect(parseInbound(ActionDecisionSchema, at(10), { ...opts, maxDepth: 10 })).toEqual({
      ok: false,
      reasonCode: 'malformed_message',
      detail: 'nesting deeper than 10 levels',
    });
    const bomb = bytes('['.repeat(50_000) + ']'.repeat(50_000));
    expect(parseInbound(ActionDecisionSchema, bomb, { maxBytes: 1_000_000 })).toMatchObject({ ok: false });
  });

  describe('bounds on what an unauthenticated message can make us walk', () => {
    const withPayload = (literal: string): Buffer => bytes(JSON.stringify({ ...decision, payload: '__P__' }).replace('"__P__"', literal));
    const objectOf = (n: number): string => `{${Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(',')}}`;
    const arrayOf = (n: number): string => `[${Array.from({ length: n }, (_, i) => i).join(',')}]`;

    it('accepts an object with maxKeys keys and refuses one more', () => {
      expect(parseInbound(ActionDecisionSchema, withPayload(objectOf(20)), { ...opts, maxKeys: 20 }).ok).toBe(true); // the decision itself has 8
      expect(parseInbound(ActionDecisionSchema, withPayload(objectOf(21)), { ...opts, maxKeys: 20 })).toEqual({
        ok: false,
        reasonCode: 'malformed_message',
        detail: 'an object has more than 20 keys',
      });
    });

    it('accepts an array of maxArrayLength elements, however nested, and refuses one more', () => {
      expect(parseInbound(ActionDecisionSchema, withPayload(`{"a":{"b":${arrayOf(30)}}}`), { ...opts, maxArrayLength: 30 }).ok).toBe(true);
      expect(parseInbound(ActionDecisionSchema, withPayload(`{"a":{"b":${arrayOf(31)}}}`), { ...opts, maxArrayLength: 30 })).toEqual({
        ok: false,
        reasonCode: 'malformed_message',
        detail: 'an array has more than 30 elements',
      });
    });

    it('does not count commas inside strings, nor the members of sibling containers together', () => {
      const commas = JSON.stringify({ t: ',,,,,,,,,,,,,,,,,,,,,,,,,' });
      const siblings = `{"a":${objectOf(8)},"b":${objectOf(8)},"c":${arrayOf(5)}}`;
      expect(parseInbound(ActionDecisionSchema, withPayload(commas), { ...opts, maxKeys: 8, maxArrayLength: 5 }).ok).toBe(true);
      expect(parseInbound(ActionDecisionSchema, withPayload(siblings), { ...opts, maxKeys: 8, maxArrayLength: 5 }).ok).toBe(true);
    });

    it('applies defaults when no bounds are given', () => {
      const big = { maxBytes: 1_000_000 };
      expect(parseInbound(ActionDecisionSchema, withPayload(objectOf(DEFAULT_MAX_KEYS + 1)), big)).toMatchObject({ ok: false, reasonCode: 'malformed_message' });
      expect(parseInbound(ActionDecisionSchema, withPayload(`{"a":${arrayOf(DEFAULT_MAX_ARRAY_LENGTH + 1)}}`), big)).toMatchObject({ ok: false });
      expect(parseInbound(ActionDecisionSchema, withPayload(objectOf(DEFAULT_MAX_KEYS)), big).ok).toBe(true);
    });
  });

  describe('duplicate keys (JSON.parse keeps the last one, silently)', () => {
    const withPayload = (literal: string): Buffer => bytes(JSON.stringify({ ...decision, payload: '__P__' }).replace('"__P__"', literal));
    const refused = (key: string) => ({ ok: false, reasonCode: 'malformed_message', detail: `duplicate key ${JSON.stringify(key)} in one object` });

    it.each([
      ['in the payload', '{"a":1,"a":2}', 'a'],
      ['spelled once plainly and once escaped', '{"a":1,"\\u0061":2}', 'a'],
      ['both escaped differently', '{"\\u0041b":1,"A\\u0062":2}', 'Ab'],
      ['with an escaped quote in the key', '{"a\\"":1,"a\\"":2}', 'a"'],
      ['an emoji, once as a surrogate-pair escape', '{"\\ud83d\\ude00":1,"😀":2}', '😀'],
      ['deep in nested objects', '{"x":{"y":{"k":1,"k":2}}}', 'k'],
      ['after a nested object closed in between', '{"a":{"b":1,"c":[1,{"d":2}]},"a":2}', 'a'],
      ['inside an object inside an array', '{"list":[{"k":1},{"k":1,"k":2}]}', 'k'],
      ['with whitespace before the colon', '{"a" :1, "a"\n:2}', 'a'],
      ['the empty key', '{"":1,"":2}', ''],
    ])('refuses a duplicate %s as malformed_message', (_case, literal, key) => {
      expect(parseInbound(ActionDecisionSchema, withPayload(literal), opts)).toEqual(refused(key));
    });

    it('refuses a duplicate at the top level, before the schema or specVersion is looked at', () => {
      const raw = bytes(JSON.stringify(decision).replace('"decisionId":"d-1"', '"decisionId":"forged","decisionId":"d-1"'));
      expect(parseInbound(ActionDecisionSchema, raw, opts)).toEqual(refused('decisionId'));
    });

    it.each([
      ['the same key in sibling objects', '{"a":{"k":1},"b":{"k":2}}'],
      ['the same key in objects of one array', '{"list":[{"k":1},{"k":1}]}'],
      ['the same key at different depths', '{"k":{"k":{"k":1}}}'],
      ['a value that spells a key', '{"a":"a","b":"a"}'],
      ['keys that differ only in case', '{"a":1,"A":2}'],
      ['a key with a trailing backslash and its prefix', '{"a\\\\":1,"a":2}'],
      ['keys that look alike inside strings', '{"t":"{\\"a\\":1,\\"a\\":2}"}'],
    ])('accepts %s', (_case, literal) => {
      expect(parseInbound(ActionDecisionSchema, withPayload(literal), opts).ok).toBe(true);
    });

    it('applies to intents too (one shared parser)', () => {
      const intent = { specVersion: 1, intentId: 'i-1', intentId2: 'x' };
      const raw = bytes(JSON.stringify(intent).replace('"intentId2":"x"', '"intentId":"i-2"'));
      expect(parseInbound(IntentMessageSchema, raw, opts)).toEqual(refused('intentId'));
    });
  });

  it('works with any schema, e.g. a DLQ record', () => {
    const record = {
      specVersion: 1,
      sourceTopic: 'arvis.intents',
      partition: 0,
      offset: '0',
      reasonCode: 'untrusted_tool_authorization_outcome',
      detail: 'bad signature',
      rawBase64: '',
      receivedAt: '2025-01-02T03:04:05.678Z',
    };
    expect(parseInbound(DlqRecordSchema, json(record), opts)).toEqual({ ok: true, value: record });
  });

  it('never throws, whatever the bytes', () => {
    const samples: Buffer[] = [];
    for (let i = 0; i < 2000; i += 1) samples.push(randomBytes(1 + (i % 64)));
    const text = JSON.stringify(decision);
    for (let i = 0; i < text.length; i += 1) samples.push(bytes(text.slice(0, i)));
    for (const raw of samples) {
      expect(() => parseInbound(ActionDecisionSchema, raw, opts)).not.toThrow();
    }
  });
});
