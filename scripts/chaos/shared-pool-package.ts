// ARVIS_TOOL_PACKAGES entry of the chaos suite's shared pool (scripts/chaos/pool-packages.ts).
export { sharedPoolPackage as toolPackage } from './pool-packages';
