// ARVIS_TOOL_PACKAGES entry of the chaos suite's ledger pool (scripts/chaos/pool-packages.ts).
export { ledgerPoolPackage as toolPackage } from './pool-packages';
