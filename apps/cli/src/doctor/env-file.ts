/**
 * An environment file as a deployment writes one: `NAME=value` lines, `export` allowed, `#`
 * comments, values bare, in single quotes (verbatim, across lines, `'\''` for a quote: what
 * `arvis keys generate` prints) or in double quotes (backslash escapes `"`, `\`, `$`, backtick).
 * Read as text: nothing is expanded or executed.
 */
export function parseEnvFile(text: string): { env: Record<string, string>; problems: string[] } {
  const env: Record<string, string> = {};
  const problems: string[] = [];
  let i = 0;
  let line = 1;
  while (i < text.length) {
    const rest = text.slice(i);
    const head = /^[ \t]*(?:export[ \t]+)?([A-Za-z_][A-Za-z0-9_]*)=/.exec(rest);
    if (!head) {
      const end = text.indexOf('\n', i);
      const skipped = text.slice(i, end === -1 ? text.length : end).trim();
      if (skipped !== '' && !skipped.startsWith('#')) problems.push(`line ${line}: not NAME=value`);
      i = end === -1 ? text.length : end + 1;
      line += 1;
      continue;
    }
    const value = readValue(text, i + head[0].length);
    if (value.unterminated) problems.push(`line ${line}: ${head[1]}: unterminated quote`);
    env[head[1]] = value.text;
    line += text.slice(i, value.end).split('\n').length;
    i = value.end + 1;
  }
  return { env, problems };
}

function readValue(text: string, start: number): { text: string; end: number; unterminated: boolean } {
  let out = '';
  let i = start;
  while (i < text.length && text[i] !== '\n') {
    const c = text[i];
    if (c === "'") {
      const close = text.indexOf("'", i + 1);
      if (close === -1) return { text: out + text.slice(i + 1), end: text.length, unterminated: true };
      out += text.slice(i + 1, close);
      i = close + 1;
    } else if (c === '"') {
      i += 1;
      while (i < text.length && text[i] !== '"') {
        if (text[i] === '\\' && '"\\$`'.includes(text[i + 1] ?? '')) i += 1;
        out += text[i];
        i += 1;
      }
      if (i >= text.length) return { text: out, end: text.length, unterminated: true };
      i += 1;
    } else if (c === '#' && (i === start || /\s/.test(text[i - 1]))) {
      while (i < text.length && text[i] !== '\n') i += 1;
    } else {
      out += c === '\\' && i + 1 < text.length && text[i + 1] !== '\n' ? text[++i] : c;
      i += 1;
    }
  }
  return { text: out.replace(/[ \t]+$/, ''), end: i, unterminated: false };
}
