import { planBatch, type CandidateRow } from './plan-batch';

const rows = (...sizes: number[]): CandidateRow[] => sizes.map((bytes, i) => ({ seq: String(i + 1), bytes }));
const seqs = (r: CandidateRow[]) => r.map((x) => x.seq);
const limits = { maxBatchBytes: 1000, maxMessageBytes: 1500, maxRows: Infinity };

describe('planBatch', () => {
  it('takes rows in order until the byte budget would be exceeded', () => {
    const plan = planBatch(rows(400, 400, 400, 10), limits);
    expect(seqs(plan.send)).toEqual(['1', '2']);
    expect(plan.tooLarge).toEqual([]);
    expect(plan.cut).toBe(true);
  });

  it('takes everything that fits and says nothing was cut', () => {
    const plan = planBatch(rows(100, 200, 300), limits);
    expect(seqs(plan.send)).toEqual(['1', '2', '3']);
    expect(plan.cut).toBe(false);
  });

  it('sends a row above the batch budget but within the message limit alone', () => {
    expect(seqs(planBatch(rows(1200, 10), limits).send)).toEqual(['1']);
    expect(seqs(planBatch(rows(10, 1200), limits).send)).toEqual(['1']);
  });

  it('sets aside every row above the message limit and keeps the others in order', () => {
    const plan = planBatch(rows(1501, 100, 5000, 200), limits);
    expect(seqs(plan.tooLarge)).toEqual(['1', '3']);
    expect(seqs(plan.send)).toEqual(['2', '4']);
  });

  it('sends one row at a time while isolating', () => {
    const plan = planBatch(rows(10, 10, 10), { ...limits, maxRows: 1 });
    expect(seqs(plan.send)).toEqual(['1']);
    expect(plan.cut).toBe(true);
  });

  it('plans nothing for nothing', () => {
    expect(planBatch([], limits)).toEqual({ send: [], tooLarge: [], cut: false });
  });
});
