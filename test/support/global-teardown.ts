import './register-aliases';
import { stopApp, type RunningApp } from './services';

export default async function globalTeardown(): Promise<void> {
  const apps = (globalThis as { __ARVIS_APPS__?: RunningApp[] }).__ARVIS_APPS__ ?? [];
  await Promise.all(apps.map((a) => stopApp(a)));
}
