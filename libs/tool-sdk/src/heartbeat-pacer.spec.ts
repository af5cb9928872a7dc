import { HeartbeatPacer } from './heartbeat-pacer';

describe('HeartbeatPacer', () => {
  it('writes at most one heartbeat in a third of the timeout, one at a time', () => {
    const p = new HeartbeatPacer(300, 10_000);
    expect(p.minIntervalMs).toBe(100);
    expect(p.beat(50)).toBe(false); // within a third of the start
    expect(p.beat(100)).toBe(true);
    expect(p.beat(150)).toBe(false); // one in flight
    expect(p.written(100)).toBe(400);
    expect(p.beat(199)).toBe(false);
    expect(p.beat(200)).toBe(true);
    p.failed();
    // A failed write moved nothing; the next heartbeat may try again at once.
    expect(p.abortAt()).toBe(400);
    expect(p.beat(201)).toBe(true);
    expect(p.written(201)).toBe(501);
  });

  it('never moves the abort time past the maximum run time, and stops writing there', () => {
    const p = new HeartbeatPacer(300, 700);
    expect(p.beat(200)).toBe(true);
    expect(p.written(200)).toBe(500);
    expect(p.beat(450)).toBe(true);
    expect(p.written(450)).toBe(700); // 750 capped
    expect(p.beat(600)).toBe(false); // at the cap: a write would move nothing
    expect(p.abortAt()).toBe(700);
  });

  it('writes nothing once the effect is no longer started', () => {
    const p = new HeartbeatPacer(300, 10_000);
    p.close();
    expect(p.beat(1000)).toBe(false);
    expect(p.abortAt()).toBe(300);
  });
});
