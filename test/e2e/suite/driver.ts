/**
 * What only the browser can do, asked of the driver (test/e2e/runE2E.mjs) from inside the
 * extension host: the suite logs `E2E-DRIVER {json}` and the driver answers in a file beside
 * PEAGEN_E2E_SCREENSHOT_ACK. Without the driver (e.g. under @vscode/test-electron) screenshots
 * are skipped and webview queries fail, saying why.
 */
import * as fs from 'node:fs';

let nextId = 0;

async function ask<T>(request: Record<string, unknown>, timeoutMs: number): Promise<T> {
  const ack = process.env.PEAGEN_E2E_SCREENSHOT_ACK;
  if (!ack) throw new Error('no e2e driver (PEAGEN_E2E_SCREENSHOT_ACK is not set)');
  const id = `${process.pid}-${nextId++}`;
  const file = `${ack}.${id}.json`;
  console.log(`E2E-DRIVER ${JSON.stringify({ ...request, id })}`);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (fs.existsSync(file)) {
      let answer: { ok: boolean; value?: T; error?: string };
      try {
        answer = JSON.parse(fs.readFileSync(file, 'utf8')) as typeof answer;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 50)); // being written
        continue;
      }
      fs.rmSync(file, { force: true });
      if (!answer.ok) throw new Error(`the e2e driver could not ${String(request.op)}: ${answer.error}`);
      return answer.value as T;
    }
    if (Date.now() > deadline) throw new Error(`the e2e driver did not answer ${String(request.op)} within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Saves test-artifacts/e2e-NAME.png of the workbench as it is now; best effort (never fails a test). */
export async function screenshot(name: string): Promise<string | undefined> {
  try {
    return await ask<string>({ op: 'screenshot', name }, 20_000);
  } catch (error) {
    console.log(`[e2e] no screenshot ${name}: ${(error as Error).message}`);
    return undefined;
  }
}

/** The text of every element matching `selector` inside the open webviews (their DOM). */
export function webviewTexts(selector: string): Promise<string[]> {
  return ask<string[]>({ op: 'webview', selector }, 20_000);
}

/**
 * Clicks the first workbench element matching `selector` (and containing `text`), as a person
 * would: e.g. the Cancel button of a progress notification.
 */
export async function click(selector: string, text?: string): Promise<void> {
  await ask<boolean>({ op: 'click', selector, ...(text !== undefined && { text }) }, 20_000);
}
