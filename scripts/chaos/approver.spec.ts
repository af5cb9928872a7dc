import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Approver } from './load';
import { approverLine } from './report';

// The suite's approver against an authorizer that rate-limits it: the refusals are counted, not
// mistaken for errors or lost decisions, and the rest of a pass waits for the next one.
describe("the chaos suite's approver", () => {
  let server: Server;
  const posts: string[] = [];
  let refuseAfter = Infinity;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.method === 'GET') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify([{ confirmationId: 'a' }, { confirmationId: 'b' }, { confirmationId: 'c' }]));
      posts.push(req.url!);
      if (posts.length > refuseAfter) return void res.writeHead(429, { 'retry-after': '60' }).end('{}');
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('counts 429s apart from errors and stops the pass at the first one', async () => {
    refuseAfter = 1;
    const approver = new Approver((server.address() as AddressInfo).port, 'token');
    await (approver as unknown as { pass(): Promise<void> }).pass();
    expect({ approved: approver.approved, errors: approver.errors, rateLimited: approver.rateLimited, posts: posts.length }).toEqual({ approved: 1, errors: 0, rateLimited: 1, posts: 2 });
    expect(approverLine(approver.rateLimited)).toContain('refused 1 time(s) with 429');
    expect(approverLine(0)).toContain('never refused');
  });
});
