import { parseExports } from './services';

describe('bench services', () => {
  it("reads local-env's export lines, quotes included", () => {
    const text = "export A='plain'\nexport KEY='-----BEGIN\nline2\n-----END'\nexport Q='it'\\''s'\nnoise\n";
    expect(parseExports(text)).toEqual({ A: 'plain', KEY: '-----BEGIN\nline2\n-----END', Q: "it's" });
  });
});
