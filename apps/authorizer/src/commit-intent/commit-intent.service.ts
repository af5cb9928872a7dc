import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { SPEC_VERSION, type IntentMessage, type UnsignedIntentMessage } from '@arvis/contracts';
import {
  commitment,
  effectContextCommitment,
  loadEd25519PrivateKey,
  signCanonical,
  type SigningKey,
} from '@arvis/effect-context';
import { enqueueOutbox, reserveOutboxSeqs } from '@arvis/outbox';
import { Prisma, PrismaService, readStoreFingerprint, type Tx } from '@arvis/persistence';
import { ToolCatalog } from '@arvis/tool-catalog';
import type { Authorized } from '../authorize-decision/authorization.types';
import { AUTHORIZER_CONFIG, type AuthorizerConfig } from '../config/authorizer.config';

/**
 * Mints the capability and commits the exact intent, its receipt and its signed message in the
 * caller's transaction. The message carries identifiers and hashes only; the frozen payload
 * stays in the intents table for the dispatcher.
 */
@Injectable()
export class CommitIntentService implements OnModuleInit {
  private storeFingerprint!: string;
  private readonly signingKey: SigningKey;

  constructor(
    @Inject(AUTHORIZER_CONFIG) private readonly config: AuthorizerConfig,
    private readonly prisma: PrismaService,
    private readonly catalog: ToolCatalog,
  ) {
    this.signingKey = { keyId: config.signing.keyId, privateKey: loadEd25519PrivateKey(config.signing.privateKey) };
  }

  async onModuleInit(): Promise<void> {
    this.storeFingerprint = await readStoreFingerprint(this.prisma);
  }

  async commit(tx: Tx, authorized: Authorized[], committedAt: Date): Promise<IntentMessage[]> {
    if (authorized.length === 0) return [];
    const seqs = await reserveOutboxSeqs(tx, authorized.length);
    const intents: Prisma.IntentCreateManyInput[] = [];
    const capabilities: Prisma.CapabilityCreateManyInput[] = [];
    const messages: IntentMessage[] = [];
    authorized.forEach((a, i) => {
      const d = a.decision;
      const intentId = randomUUID();
      const capabilityId = randomUUID();
      const ctxCommitment = effectContextCommitment(a.effectContext);
      const intentCommitment = commitment({
        intentFormatVersion: 1,
        intentId,
        capabilityId,
        decisionId: d.decisionId,
        runId: d.runId,
        causalId: d.causalId,
        tenant: a.identity.tenant,
        principal: a.identity.principal,
        tool: a.spec.name,
        processId: d.processId,
        payloadSha256: a.frozen.sha256,
        effectContextCommitment: ctxCommitment,
        idempotencyKey: a.idempotencyKey,
        catalogFingerprint: this.catalog.fingerprint,
      });
      const receipt = {
        receiptId: randomUUID(),
        runId: d.runId,
        causalId: d.causalId,
        intentSha256: intentCommitment,
        durablePosition: seqs[i].toString(),
        storeFingerprint: this.storeFingerprint,
        committedAt: committedAt.toISOString(),
      };
      intents.push({
        intentId,
        decisionId: d.decisionId,
        capabilityId,
        runId: d.runId,
        causalId: d.causalId,
        tenant: a.identity.tenant,
        principal: a.identity.principal,
        tool: a.spec.name,
        processId: d.processId,
        payloadCanonical: a.frozen.canonical,
        payloadSha256: a.frozen.sha256,
        effectContext: a.effectContext as object,
        effectContextCommitment: ctxCommitment,
        idempotencyKey: a.idempotencyKey,
        catalogFingerprint: this.catalog.fingerprint,
        intentCommitment,
        receiptId: receipt.receiptId,
        durablePosition: seqs[i],
        storeFingerprint: this.storeFingerprint,
        committedAt,
      });
      capabilities.push({
        capabilityId,
        decisionId: d.decisionId,
        intentId,
        state: 'minted',
        // Binds invocation, effect context, snapshot and idempotency key: any change is visible.
        commitment: commitment({
          capabilityFormatVersion: 1,
          capabilityId,
          intentCommitment,
          effectContextCommitment: ctxCommitment,
          snapshot: a.snapshot,
          idempotencyKey: a.idempotencyKey,
        }),
      });
      const unsigned: UnsignedIntentMessage = {
        specVersion: SPEC_VERSION,
        intentId,
        capabilityId,
        decisionId: d.decisionId,
        runId: d.runId,
        causalId: d.causalId,
        tenant: a.identity.tenant,
        tool: a.spec.name,
        intentCommitment,
        payloadSha256: a.frozen.sha256,
        effectContextCommitment: ctxCommitment,
        idempotencyKey: a.idempotencyKey,
        catalogFingerprint: this.catalog.fingerprint,
        receipt,
      };
      messages.push(signCanonical(unsigned, this.signingKey) as IntentMessage);
    });
    await tx.intent.createMany({ data: intents });
    await tx.capability.createMany({ data: capabilities });
    await enqueueOutbox(
      tx,
      messages.map((m, i) => ({
        seq: seqs[i],
        topic: this.config.topics.intents,
        key: m.runId,
        payload: JSON.stringify(m),
      })),
    );
    return messages;
  }
}
