// A fixture package: the demo package at its next version, in which notes.append takes notes up
// to 4000 characters instead of 2000. Its input schema changes, so the catalog fingerprint does:
// what a dispatcher upgraded before the authorizer sees during a rolling deploy. Plain CommonJS,
// loaded only through ARVIS_TOOL_PACKAGES, as an installed package would be.
const { z } = require('zod');
const demo = require('../../../../dist/tools/demo').toolPackage;

const notesInput = z.strictObject({ text: z.string().min(1).max(4000), ref: z.string().max(200).optional() });

module.exports.toolPackage = {
  ...demo,
  version: '0.2.0',
  tools: demo.tools.map((t) => (t.name === 'notes.append' ? { ...t, input: notesInput } : t)),
};
