import { join } from 'node:path';
import { defineToolPackage } from '@arvis/tool-sdk';
import { version } from '../package.json';
import { flakyRecord } from './flaky-record.tool';
import { ledgerTransfer } from './ledger-transfer.tool';
import { mailSend } from './mail-send.tool';
import { notesAppend } from './notes-append.tool';

export { flakyRecord, ledgerTransfer, mailSend, notesAppend };

/** The demo tools, loaded like any team's package: ARVIS_TOOL_PACKAGES=./dist/tools/demo. */
export const toolPackage = defineToolPackage({
  name: '@arvis/tool-demo',
  version,
  tools: [notesAppend, flakyRecord, mailSend, ledgerTransfer],
  // Beside src/ both here and in the build (dist/tools/demo/migrations, copied by the build).
  migrationsDir: join(__dirname, '..', 'migrations'),
});
