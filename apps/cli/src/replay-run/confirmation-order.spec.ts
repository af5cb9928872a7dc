import { checkConfirmationOrder } from './confirmation-order';

let seq = 0;
const entry = (decisionId: string, kind: string, reasonCode?: string) => ({ journalSeq: String(++seq), decisionId, kind, ...(reasonCode ? { reasonCode } : {}) });
const messages = (entries: ReturnType<typeof entry>[]) => checkConfirmationOrder(entries).map((m) => m.message.replace(/^journal_seq \d+: /, ''));

describe('replay: an approver verdict in journal order', () => {
  it('accepts pending, approved, tool_result and pending, denied, refusal confirmation_denied', () => {
    expect(
      messages([
        entry('a', 'confirmation_pending', 'confirmation_required'),
        entry('b', 'confirmation_pending', 'confirmation_required'),
        entry('a', 'confirmation_approved'),
        entry('b', 'confirmation_denied', 'confirmation_denied'),
        entry('a', 'tool_result'),
        entry('b', 'authorization_refusal', 'confirmation_denied'),
      ]),
    ).toEqual([]);
  });

  it('accepts journals without verdicts (written before the kinds existed) and an approval refused at admission', () => {
    expect(messages([entry('a', 'confirmation_pending'), entry('a', 'authorization_refusal', 'confirmation_denied')])).toEqual([]);
    expect(messages([entry('a', 'confirmation_pending'), entry('a', 'confirmation_approved'), entry('a', 'admission_refusal', 'identity_invalid')])).toEqual([]);
  });

  it('flags a verdict after the final entry, without a pending entry, or twice', () => {
    expect(messages([entry('a', 'confirmation_pending'), entry('a', 'tool_result'), entry('a', 'confirmation_approved')])).toEqual([
      "confirmation_approved after the decision's final tool_result",
    ]);
    expect(messages([entry('a', 'confirmation_denied', 'confirmation_denied')])).toEqual(['confirmation_denied without an earlier confirmation_pending']);
    expect(messages([entry('a', 'confirmation_pending'), entry('a', 'confirmation_approved'), entry('a', 'confirmation_denied')])).toEqual([
      'confirmation_denied after confirmation_approved (a decision has one verdict)',
    ]);
  });

  it('flags a denied decision that ran, and an approved one that ends denied, naming the entry', () => {
    expect(messages([entry('a', 'confirmation_pending'), entry('a', 'confirmation_denied', 'confirmation_denied'), entry('a', 'tool_result')])).toEqual([
      'denied, but ends in tool_result',
    ]);
    expect(messages([entry('a', 'confirmation_pending'), entry('a', 'confirmation_approved'), entry('a', 'authorization_refusal', 'confirmation_denied')])).toEqual([
      'approved, but ends denied',
    ]);
    const [m] = checkConfirmationOrder([entry('x', 'confirmation_approved')]);
    expect(m).toMatchObject({ decisionId: 'x', journalSeq: String(seq) });
  });
});
