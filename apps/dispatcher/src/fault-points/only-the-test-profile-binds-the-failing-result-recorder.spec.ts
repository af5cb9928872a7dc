import 'reflect-metadata';
import type { FactoryProvider, Provider } from '@nestjs/common';
import { MODULE_METADATA } from '@nestjs/common/constants';
import type { EffectStore } from '@arvis/lifecycle';
import type { Database } from '@arvis/persistence';
import { loadDispatcherConfig } from '../config/dispatcher.config';
import type { CloseEffectsService } from '../outcomes/close-effects/close-effects.service';
import { OutcomesModule } from '../outcomes/outcomes.module';
import { RecordResultsService } from '../outcomes/record-results/record-results.service';
import { ResultRecorder } from '../outcomes/record-results/result-recorder';
import { FailingResultRecorder } from './failing-result-recorder';

// ADR 0016: journaling that fails lives in a decorator OutcomesModule binds only when fault points
// are configured, which the production profile refuses; production's recorder is the plain one.
const env = { DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/arvis_spec', INTENT_VERIFICATION_KEYS: JSON.stringify({ k1: 'key' }), KAFKA_GROUP_ID: 'g' };

const recorderBound = (e: Record<string, string>) => {
  const providers = (Reflect.getMetadata(MODULE_METADATA.PROVIDERS, OutcomesModule) ?? []) as Provider[];
  const recorders = providers.filter((p): p is FactoryProvider<ResultRecorder> => typeof p === 'object' && 'provide' in p && p.provide === ResultRecorder);
  // The decorator extends the recorder: neither is also bound under its own class.
  expect(providers.filter((p) => p === RecordResultsService || p === FailingResultRecorder)).toEqual([]);
  expect(recorders).toHaveLength(1);
  // Never connected: the recorder only keeps what it is handed.
  const recorder = recorders[0].useFactory(loadDispatcherConfig({ ...env, ...e }), {} as Database, {} as EffectStore, {} as CloseEffectsService) as ResultRecorder;
  return recorder.constructor;
};

describe('the result recorder a profile binds', () => {
  it('is the plain recorder in production, and without fault points in any profile', () => {
    expect(recorderBound({})).toBe(RecordResultsService);
    expect(recorderBound({ ARVIS_PROFILE: 'test' })).toBe(RecordResultsService);
  });

  it('is the failing decorator in the test profile with fault points', () => {
    expect(recorderBound({ ARVIS_PROFILE: 'test', ARVIS_FAULTS: JSON.stringify({ journalResultFails: [{ decisionIdPrefix: 'x:' }] }) })).toBe(FailingResultRecorder);
  });
});
