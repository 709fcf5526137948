/**
 * The dashboard webview's page, without vscode: a strict Content-Security-Policy (nothing by
 * default; our script only by nonce; our stylesheet only from the webview's own origin), one
 * card per metric with its number (`data-metric`) and its chart (`data-chart`), drawn by
 * media/dashboard.js.
 */
import { randomBytes } from 'node:crypto';
import { METRICS, type MetricName } from './dashboardModel';

const TITLES: Record<MetricName, string> = {
  bestObjective: 'Best objective',
  evaluations: 'Evaluations',
  evaluationsPerMinute: 'Evaluations / min',
  tokensPerSecond: 'Tokens / s',
  pendingTasks: 'Pending tasks',
  patchYield: 'Patch yield (first try)',
};

export function newNonce(): string {
  return randomBytes(18).toString('base64url');
}

export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [`default-src 'none'`, `style-src ${cspSource}`, `script-src 'nonce-${nonce}'`].join('; ');
}

function escapeAttribute(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

/** @param assets the webview URIs (`asWebviewUri`) of media/dashboard.js and media/dashboard.css. */
export function dashboardHtml(options: { cspSource: string; nonce: string; scriptUri: string; styleUri: string }): string {
  const cards = METRICS.map(
    (metric) => `
      <section class="card">
        <h2 data-label="${metric}">${TITLES[metric]}</h2>
        <div class="value" data-metric="${metric}">—</div>
        <svg class="chart" data-chart="${metric}" viewBox="0 0 200 50" preserveAspectRatio="none" role="img" aria-label="${TITLES[metric]} over time"></svg>
      </section>`,
  ).join('');
  return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="UTF-8">
  <meta http-equiv="Content-Security-Policy" content="${escapeAttribute(contentSecurityPolicy(options.cspSource, options.nonce))}">
  <meta name="viewport" content="width=device-width, initial-scale=1.0">
  <link rel="stylesheet" href="${escapeAttribute(options.styleUri)}">
  <title>Peagen Dashboard</title>
</head>
<body>
  <header>
    <h1>Peagen</h1>
    <p class="caption" data-caption>Waiting for the extension…</p>
  </header>
  <main class="grid">${cards}
  </main>
  <script nonce="${escapeAttribute(options.nonce)}" src="${escapeAttribute(options.scriptUri)}"></script>
</body>
</html>`;
}
