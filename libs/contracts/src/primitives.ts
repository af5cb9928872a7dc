import { z } from 'zod';

export const Sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, 'expected lowercase hex SHA-256');
export type Sha256Hex = z.infer<typeof Sha256Hex>;

// W3C trace-context trace id: 32 lowercase hex, not all zeros (an invalid id).
export const TraceId = z
  .string()
  .regex(/^[0-9a-f]{32}$/, 'expected a W3C trace id (32 lowercase hex)')
  .refine((s) => s !== '0'.repeat(32), 'the all-zero trace id is invalid');
export type TraceId = z.infer<typeof TraceId>;

export const IdempotencyKey = z.string().regex(/^idem:[0-9a-f]{64}$/, 'expected idem:<lowercase hex SHA-256>');
export type IdempotencyKey = z.infer<typeof IdempotencyKey>;

// 64-bit ids travel as strings because JSON numbers lose precision past 2^53;
// 20 digits is the longest unsigned 64-bit value.
export const DecimalString = z
  .string()
  .max(20)
  .regex(/^(0|[1-9][0-9]*)$/, 'expected a non-negative decimal integer string');
export type DecimalString = z.infer<typeof DecimalString>;

// The round-trip check refuses well-shaped but impossible dates (2024-02-30) that the regex lets through.
export const Rfc3339Utc = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/, 'expected RFC 3339 UTC with milliseconds')
  .refine((s) => {
    const d = new Date(s);
    return !Number.isNaN(d.getTime()) && d.toISOString() === s;
  }, 'not a real UTC instant');
export type Rfc3339Utc = z.infer<typeof Rfc3339Utc>;

// Control characters in ids corrupt logs and Kafka keys and let two ids look identical.
// eslint-disable-next-line no-control-regex
const NO_CONTROL_CHARS = /^[^\u0000-\u001f\u007f-\u009f]*$/;

export const Identifier = z
  .string()
  .min(1)
  .max(200)
  .regex(NO_CONTROL_CHARS, 'must not contain control characters');
export type Identifier = z.infer<typeof Identifier>;
