import { join } from 'node:path';
import { defineToolPackage } from '@arvis/tool-sdk';
import { webhookPost } from './webhook-post.tool';

export { webhookPost };

/** What ARVIS_TOOL_PACKAGES loads: name this package's folder (or its installed name) there. */
export const toolPackage = defineToolPackage({
  name: 'acme-webhook-tool',
  version: '1.0.0',
  tools: [webhookPost],
  migrationsDir: join(__dirname, '..', 'migrations'),
});
