import { parseExports, shippedNodeFlags } from './services';

describe('bench services', () => {
  it("reads local-env's export lines, quotes included", () => {
    const text = "export A='plain'\nexport KEY='-----BEGIN\nline2\n-----END'\nexport Q='it'\\''s'\nnoise\n";
    expect(parseExports(text)).toEqual({ A: 'plain', KEY: '-----BEGIN\nline2\n-----END', Q: "it's" });
  });

  it("runs each build's apps with the Node flags its start script ships", () => {
    const pkg = (start: string) => JSON.stringify({ scripts: { 'start:authorizer': start } });
    expect(shippedNodeFlags(pkg('node --max-semi-space-size=8 dist/apps/authorizer/src/main.js'), 'authorizer')).toEqual(['--max-semi-space-size=8']);
    expect(shippedNodeFlags(pkg('node dist/apps/authorizer/src/main.js'), 'authorizer')).toEqual([]);
    expect(shippedNodeFlags(pkg('node dist/apps/authorizer/src/main.js'), 'dispatcher')).toEqual([]);
  });
});
