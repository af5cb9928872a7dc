import type { AdminRequest } from './admin-request';

export interface AdminAnswer {
  status: number;
  body: unknown;
}

/** Sends one admin request to the authorizer with the operator's bearer token. */
export async function sendAdminRequest(baseUrl: string, token: string, request: AdminRequest, timeoutMs = 60_000): Promise<AdminAnswer> {
  const res = await fetch(new URL(request.path, baseUrl), {
    method: request.method,
    headers: { authorization: `Bearer ${token}`, ...(request.body ? { 'content-type': 'application/json' } : {}) },
    ...(request.body ? { body: JSON.stringify(request.body) } : {}),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: shown as text
  }
  return { status: res.status, body };
}

export function renderAdminAnswer(request: AdminRequest, a: AdminAnswer): string[] {
  const ok = a.status >= 200 && a.status < 300;
  return [`${request.method} ${request.path}: ${a.status} ${ok ? 'done' : 'refused'}`, JSON.stringify(a.body, null, 2)];
}
