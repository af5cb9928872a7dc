import { SliceSizer } from './slice-sizer';

describe('SliceSizer', () => {
  it('starts small and doubles while full slices finish within the target, up to the maximum', () => {
    const s = new SliceSizer(500, 250);
    const sizes = [s.next('p')];
    for (let i = 0; i < 6; i++) {
      s.record('p', s.next('p'), 10);
      sizes.push(s.next('p'));
    }
    expect(sizes).toEqual([32, 64, 128, 256, 500, 500, 500]);
  });

  it('does not grow on a slice that was not full (nothing more was waiting)', () => {
    const s = new SliceSizer(500, 250);
    s.record('p', 3, 5);
    expect(s.next('p')).toBe(32);
  });

  it('shrinks in proportion when a slice overruns the target, never below the initial size', () => {
    const s = new SliceSizer(500, 250);
    for (let i = 0; i < 5; i++) s.record('p', s.next('p'), 10);
    s.record('p', 500, 2500);
    expect(s.next('p')).toBe(50);
    s.record('p', 50, 1_000_000);
    expect(s.next('p')).toBe(32);
  });

  it('keeps each partition apart, and never exceeds a maximum below the initial size', () => {
    const s = new SliceSizer(5, 250);
    s.record('a', 5, 10_000);
    s.record('b', 5, 10);
    expect([s.next('a'), s.next('b')]).toEqual([5, 5]);
  });
});
