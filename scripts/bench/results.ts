// The shape of one benchmark run, as written to results.json and rendered by report.ts.
import type { CpuFigures } from './proc';
import type { LatencySummary } from './stats';

export const ROLES = ['authorizer', 'dispatcher', 'broker', 'postgres', 'producer'] as const;

export interface StepResult {
  kind: 'throughput' | 'sweep';
  /** Offered decisions/s (sweep steps); null for the throughput step (everything at once). */
  offered: number | null;
  decisions: number;
  windowMs: number;
  /** Decisions/s completed (final journal entry seen on the topic). */
  achieved: number;
  latency: LatencySummary;
  cpu: CpuFigures;
}

export interface VariantResult {
  label: string;
  commit: string;
  steps: StepResult[];
  /** Highest VmHWM seen of each app over the whole run, MB. */
  peakRssMb: Record<string, number>;
  saturation: number | null;
  duplicatesOnJournalTopic: number;
}

export interface Baselines {
  pgbench?: { clients: number; seconds: number; tps: number } | { error: string };
  kafkaRoundTrip?: ({ rate: number } & LatencySummary) | { error: string };
}

export interface BenchResults {
  startedAt: string;
  finishedAt: string;
  durationS: number;
  machine: { cpus: number; loadAverageAtStart: number[] };
  options: { decisions: number; sweep: number[]; stepSeconds: number; p99BoundMs: number; baselineSeconds: number; compare?: string };
  notes: string[];
  variants: VariantResult[];
  baselines: Baselines;
}
