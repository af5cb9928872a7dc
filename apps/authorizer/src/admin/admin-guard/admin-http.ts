import { HttpStatus } from '@nestjs/common';
import { ApiError } from '@arvis/runtime';
import type { z } from 'zod';
import type { VerifiedIdentity } from '@arvis/effect-context';

/** The operator as the journal names them, with the tenant their token speaks for. */
export interface Operator {
  issuer: string;
  subject: string;
  tenant: string;
}

export const operatorOf = (identity: VerifiedIdentity): Operator => ({ issuer: identity.issuer, subject: identity.principal, tenant: identity.tenant });

/** An expected refusal of an admin act: its HTTP status, a stable code and a sentence. */
export interface AdminRefusal {
  status: HttpStatus;
  error: string;
  message: string;
}

export const refusal = (status: HttpStatus, error: string, message: string): AdminRefusal => ({ status, error, message });

/** Outcome of an admin act: its response body, or a typed refusal. */
export type AdminOutcome<T> = { ok: true; body: T } | ({ ok: false } & AdminRefusal);

/** The HTTP answer: the body, or the refusal as `{error, message}` with its status. */
export function answer<T>(outcome: AdminOutcome<T>): T {
  if (outcome.ok) return outcome.body;
  throw new ApiError(outcome.status, outcome.error, { message: outcome.message });
}

/** Parses a request body with its schema; a bad one is a 400 naming the fields. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const parsed = schema.safeParse(body ?? {});
  if (parsed.success) return parsed.data;
  const message = parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ');
  throw new ApiError(HttpStatus.BAD_REQUEST, 'bad_request', { message });
}
