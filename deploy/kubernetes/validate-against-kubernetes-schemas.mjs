// Validates Kubernetes objects (a JSON array on stdin) against the API's own OpenAPI schemas, as
// the `kubernetes-models` package compiles them (pinned in package.json), and prints one problem
// per line as JSON: `{ object, problem }`. An ES module run by node, because the package is one;
// the spec beside it (manifests-render-and-name-only-what-the-code-reads) feeds it what
// `kubectl kustomize` renders. An object of a kind the package has no model for is a problem too.
import { readFileSync } from 'node:fs';

const objects = JSON.parse(readFileSync(0, 'utf8'));
const problems = [];
for (const o of objects) {
  const object = `${o.kind}/${o.metadata?.name} (${o.apiVersion})`;
  let Model;
  try {
    Model = (await import(`kubernetes-models/${o.apiVersion}`))[o.kind];
  } catch {
    Model = undefined;
  }
  if (typeof Model !== 'function') {
    problems.push({ object, problem: 'no schema for this apiVersion and kind' });
    continue;
  }
  try {
    new Model(o).validate();
  } catch (e) {
    for (const err of e.errors ?? [{ instancePath: '', message: e.message }]) problems.push({ object, problem: `${err.instancePath || '/'} ${err.message}` });
  }
}
process.stdout.write(JSON.stringify(problems));
