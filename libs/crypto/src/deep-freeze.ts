/**
 * Freezes a value and everything reachable from it through own data properties, so a
 * snapshot handed to other code cannot be changed behind the hash that describes it.
 * Cycles are fine. Typed arrays / DataViews are left as they are: the engine cannot freeze
 * a buffer view with elements (Object.freeze throws), and JSON snapshots never hold them.
 * Accessor properties are not invoked.
 */
export function deepFreeze<T>(value: T): T {
  freeze(value, new WeakSet());
  return value;
}

function freeze(value: unknown, seen: WeakSet<object>): void {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return;
  const obj = value as object;
  if (seen.has(obj) || ArrayBuffer.isView(obj)) return;
  seen.add(obj);
  for (const key of Reflect.ownKeys(obj)) {
    const desc = Object.getOwnPropertyDescriptor(obj, key);
    if (desc && 'value' in desc) freeze(desc.value, seen);
  }
  Object.freeze(obj);
}
