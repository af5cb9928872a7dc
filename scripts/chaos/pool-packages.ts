import { defineToolPackage } from '@arvis/tool-sdk';
import { ledgerTransfer, toolPackage as demo } from '../../tools/demo/src';

/**
 * The chaos suite's two pools (ADR 0081): the demo tools split in two packages, ledger.transfer in
 * the `ledger` pool and the rest in the shared pool, so faults on one pool's dispatchers run beside
 * the other's. Loaded by path, one module per package: ARVIS_TOOL_PACKAGES takes one export each.
 */
export const LEDGER_POOL = 'ledger';

/** The demo package without ledger.transfer: same name and migrations, the shared pool. */
export const sharedPoolPackage = defineToolPackage({ ...demo, tools: demo.tools.filter((t) => t.name !== ledgerTransfer.name) });

/** ledger.transfer on its own, in the ledger pool; its tables are the demo package's. */
export const ledgerPoolPackage = defineToolPackage({ name: '@arvis/tool-demo-ledger', version: demo.version, pool: LEDGER_POOL, tools: [ledgerTransfer] });
