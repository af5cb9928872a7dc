import 'reflect-metadata';
import type { FactoryProvider, Provider } from '@nestjs/common';
import { MODULE_METADATA } from '@nestjs/common/constants';
import type { CapabilityStore, ConfirmationStore } from '@arvis/lifecycle';
import type { StoreFingerprint } from '@arvis/persistence';
import { assembleTools, defineTool } from '@arvis/tool-catalog';
import { loadAuthorizerConfig } from '../config/authorizer.config';
import { CommitIntentService } from '../pipeline/commit-intent/commit-intent.service';
import { IntentSink } from '../pipeline/commit-intent/intent-sink';
import { PipelineModule } from '../pipeline/pipeline.module';
import { ed25519Pem, specTool } from '../../../../test/support/spec-tool';
import { TamperingIntentSink } from './tampering-intent-sink';

// ADR 0005: the sink's fault points live in a decorator PipelineModule binds only when fault
// points are configured, which the production profile refuses; production's sink is the plain one.
const env = {
  DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/arvis_spec',
  INTENT_SIGNING_KEY: ed25519Pem('private'),
  TRUST_PROXY: 'false',
  TRUSTED_ISSUERS: JSON.stringify([{ issuer: 'i', alg: 'EdDSA', publicKey: ed25519Pem('public'), tenants: ['*'] }]),
};
const { catalog } = assembleTools([
  {
    name: 'a',
    version: '1.0.0',
    tools: [
      defineTool(specTool('a.run')),
    ],
  },
]);

const sinkBound = (e: Record<string, string>) => {
  const providers = (Reflect.getMetadata(MODULE_METADATA.PROVIDERS, PipelineModule) ?? []) as Provider[];
  const sinks = providers.filter((p): p is FactoryProvider<IntentSink> => typeof p === 'object' && 'provide' in p && p.provide === IntentSink);
  // The decorator extends the sink: neither is also bound under its own class.
  expect(providers.filter((p) => p === CommitIntentService || p === TamperingIntentSink)).toEqual([]);
  expect(sinks).toHaveLength(1);
  // Never connected: the sink only keeps what it is handed.
  const sink = sinks[0].useFactory(loadAuthorizerConfig({ ...env, ...e }), { value: 'f' } as StoreFingerprint, catalog, {} as ConfirmationStore, {} as CapabilityStore) as IntentSink;
  return sink.constructor;
};

describe('the intent sink a profile binds', () => {
  it('is the plain sink in production, and without fault points in any profile', () => {
    expect(sinkBound({})).toBe(CommitIntentService);
    expect(sinkBound({ ARVIS_PROFILE: 'test' })).toBe(CommitIntentService);
  });

  it('is the tampering decorator in the test profile with fault points', () => {
    expect(sinkBound({ ARVIS_PROFILE: 'test', ARVIS_FAULTS: JSON.stringify({ intentInsertFails: [{ decisionIdPrefix: 'x:' }] }) })).toBe(TamperingIntentSink);
  });
});
