import { z } from 'zod';

/** This package's own settings, read from its process's environment. */
const Settings = z.object({
  WEBHOOK_TOOL_URL: z.url({ protocol: /^https?$/ }),
  WEBHOOK_TOOL_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5000),
});
export type WebhookSettings = { url: string; timeoutMs: number };

let cached: WebhookSettings | undefined;

/**
 * Read on first use, not at load: the authorizer and the migrate step load this package too and
 * never post anything, so they need no endpoint. A malformed value still fails the first call
 * with a message naming the variable.
 */
export function webhookSettings(env: NodeJS.ProcessEnv = process.env): WebhookSettings {
  if (cached) return cached;
  const r = Settings.safeParse(env);
  if (!r.success) {
    const issues = r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`acme-webhook-tool is not configured: ${issues}`);
  }
  cached = { url: r.data.WEBHOOK_TOOL_URL.replace(/\/+$/, ''), timeoutMs: r.data.WEBHOOK_TOOL_TIMEOUT_MS };
  return cached;
}
