import type { Database as Service } from './database';

// ADR 0051: the Prisma client (and its WebAssembly query compiler) is loaded only when a model is
// asked for; the raw statements and transactions never need it. No database is reached here:
// pg connects at the first query only.
describe('the Prisma client', () => {
  let loaded = 0;
  beforeEach(() => {
    loaded = 0;
    jest.resetModules();
    jest.doMock('./generated/prisma/client', () => {
      loaded++;
      return jest.requireActual('./generated/prisma/client');
    });
  });

  it('is not loaded by the library or by a Database, and is loaded once at the first model use', async () => {
    let service: Service | undefined;
    jest.isolateModules(() => {
      const { Database } = jest.requireActual<typeof import('./index')>('./index');
      service = new Database({ url: 'postgresql://nobody@127.0.0.1:1/none', poolSize: 1, txTimeoutMs: 1000 });
    });
    expect(loaded).toBe(0);
    expect(typeof service!.$queryRaw).toBe('function');
    expect(loaded).toBe(0);
    const delegate = service!.confirmation;
    expect(typeof delegate.findUnique).toBe('function');
    expect(service!.client()).toBe(service!.client());
    expect(loaded).toBe(1);
    await service!.$disconnect();
  });
});
