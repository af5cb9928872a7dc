import 'reflect-metadata';
import { Injectable, Module, type OnModuleInit } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Server, type CustomTransportStrategy } from '@nestjs/microservices';
import { startInOrder } from './run-service';

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
