import 'reflect-metadata';
import { Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Server, type CustomTransportStrategy } from '@nestjs/microservices';
import { refuseWhileRolledBack, startInOrder } from './run-service';

const events: string[] = [];

@Injectable()
class SlowInit implements OnModuleInit {
  async onModuleInit(): Promise<void> {
    await new Promise((r) => setTimeout(r, 200));
    events.push('onModuleInit done');
  }
}

@Module({ providers: [SlowInit] })
class AppModule {}

class RecordingTransport extends Server implements CustomTransportStrategy {
  listen(callback: () => void): void {
    events.push('consumer started');
    callback();
  }
  close(): void {}
  on(): never {
    throw new Error('not used');
  }
  unwrap<T>(): T {
    throw new Error('not used');
  }
}

describe('a service starting up', () => {
  it('runs every onModuleInit before its consumer and relay start, and serves HTTP last', async () => {
    const app = await NestFactory.create(AppModule, { logger: false });
    app.connectMicroservice({ strategy: new RecordingTransport() });
    await startInOrder(app, async () => void events.push('relay started'), { management: 0 }, '127.0.0.1');
    events.push('http listening');
    await app.close();
    expect(events).toEqual(['onModuleInit done', 'relay started', 'consumer started', 'http listening']);
  });
});

describe('the API while the database is behind the journal topic', () => {
  const answer = (guard: { open: boolean; verdict: unknown }, method: string, url: string) => {
    const res = { statusCode: 200, body: '', headers: {} as Record<string, string>, setHeader(k: string, v: string) { this.headers[k] = v; }, end(b: string) { this.body = b; } };
    let passed = false;
    refuseWhileRolledBack(guard as never)({ method, url } as never, res as never, () => (passed = true));
    return passed ? 'passed' : { status: res.statusCode, body: JSON.parse(res.body) as Record<string, unknown> };
  };
  const refusing = { open: false, verdict: { state: 'journal_rolled_back', chain: 'main', databaseSeq: '3', databaseHash: 'a', topicSeq: '5', topicHash: 'b', signedSeq: null } };

  it('refuses what could append, with the verdict as its code; reads and the reconcile act pass', () => {
    expect(answer(refusing, 'POST', '/admin/sessions/revoke')).toMatchObject({ status: 503, body: { statusCode: 503, error: 'journal_rolled_back' } });
    expect(answer(refusing, 'POST', '/console/session')).toMatchObject({ status: 503 });
    expect(answer(refusing, 'GET', '/admin/store')).toBe('passed');
    expect(answer(refusing, 'POST', '/admin/store/reconcile-rollback?x=1')).toBe('passed');
    expect(answer({ ...refusing, open: true }, 'POST', '/admin/sessions/revoke')).toBe('passed');
  });
});
