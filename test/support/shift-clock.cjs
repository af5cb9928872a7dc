// Preloaded into an app (NODE_OPTIONS=--require) by specs that must tell the app's clock from the
// database's: Date.now() and new Date() run ARVIS_TEST_CLOCK_OFFSET_MS off the real time.
const offset = Number(process.env.ARVIS_TEST_CLOCK_OFFSET_MS || 0);
if (offset !== 0) {
  const RealDate = Date;
  class ShiftedDate extends RealDate {
    constructor(...args) {
      if (args.length === 0) super(RealDate.now() + offset);
      else super(...args);
    }
    static now() {
      return RealDate.now() + offset;
    }
  }
  globalThis.Date = ShiftedDate;
}
