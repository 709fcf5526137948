// The Peagen dashboard webview: renders the model the extension posts (numbers into
// [data-metric], line charts into <svg data-chart>), and keeps it with setState so the panel
// shows it at once when it is shown again. No library: the charts are one polyline each.
/* global acquireVsCodeApi, document, window, module */
'use strict';

const SVG = 'http://www.w3.org/2000/svg';
const WIDTH = 200;
const HEIGHT = 50;
const PAD = 3;

/**
 * The points of a series scaled into the chart's viewBox (y grows downwards), as the
 * `points` attribute of a polyline. A flat or single-point series is drawn mid-height.
 */
function chartPoints(series, width = WIDTH, height = HEIGHT, pad = PAD) {
  if (!series || series.length === 0) return '';
  const xs = series.map((point) => point[0]);
  const ys = series.map((point) => point[1]);
  const [xMin, xMax] = [Math.min(...xs), Math.max(...xs)];
  const [yMin, yMax] = [Math.min(...ys), Math.max(...ys)];
  const x = (value) => (xMax === xMin ? width / 2 : pad + ((value - xMin) / (xMax - xMin)) * (width - 2 * pad));
  const y = (value) => (yMax === yMin ? height / 2 : height - pad - ((value - yMin) / (yMax - yMin)) * (height - 2 * pad));
  const points = series.map((point) => `${x(point[0]).toFixed(1)},${y(point[1]).toFixed(1)}`);
  // One point alone is a short flat stroke, so that it is visible.
  if (points.length === 1) points.unshift(`${pad},${y(series[0][1]).toFixed(1)}`);
  return points.join(' ');
}

function drawChart(svg, series) {
  while (svg.firstChild) svg.removeChild(svg.firstChild);
  const points = chartPoints(series);
  svg.dataset.points = String(series ? series.length : 0);
  if (!points) {
    const empty = document.createElementNS(SVG, 'line');
    empty.setAttribute('class', 'baseline');
    empty.setAttribute('x1', '0');
    empty.setAttribute('x2', String(WIDTH));
    empty.setAttribute('y1', String(HEIGHT - PAD));
    empty.setAttribute('y2', String(HEIGHT - PAD));
    svg.appendChild(empty);
    return;
  }
  const line = document.createElementNS(SVG, 'polyline');
  line.setAttribute('class', 'series');
  line.setAttribute('points', points);
  line.setAttribute('vector-effect', 'non-scaling-stroke');
  svg.appendChild(line);
}

function render(model) {
  const caption = document.querySelector('[data-caption]');
  if (caption) caption.textContent = model.caption;
  for (const element of document.querySelectorAll('[data-metric]')) {
    const name = element.getAttribute('data-metric');
    element.textContent = model.display[name] ?? '—';
  }
  for (const svg of document.querySelectorAll('svg[data-chart]')) drawChart(svg, model.series[svg.getAttribute('data-chart')]);
  const best = document.querySelector('[data-label="bestObjective"]');
  if (best && model.run) best.textContent = `Best ${model.run.objectiveName} (${model.run.direction === 'maximize' ? 'higher' : 'lower'} is better)`;
}

if (typeof acquireVsCodeApi === 'function') {
  const vscode = acquireVsCodeApi();
  const saved = vscode.getState();
  if (saved) render(saved);
  window.addEventListener('message', (event) => {
    const message = event.data;
    if (message && message.type === 'model') {
      vscode.setState(message.model);
      render(message.model);
    }
  });
  // The extension holds the whole history: ask for it (the panel may have been hidden a while).
  vscode.postMessage({ type: 'ready' });
} else if (typeof module !== 'undefined') {
  module.exports = { chartPoints };
}
