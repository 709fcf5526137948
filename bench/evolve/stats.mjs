// Medians and spread over seeds, and the table layout the evolve bench prints.

/** The median of the finite numbers in `values` (undefined when there are none). */
export function median(values) {
  const sorted = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return undefined;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** `median [min–max]` of `values`, each shown by `format`. */
export function spread(values, format) {
  const finite = values.filter((value) => Number.isFinite(value));
  if (finite.length === 0) return '—';
  const m = median(finite);
  if (finite.length === 1) return format(m);
  return `${format(m)} [${format(Math.min(...finite))}–${format(Math.max(...finite))}]`;
}

export const times = (value) => `${value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2)}x`;
export const percent = (share) => `${(share * 100).toFixed(0)}%`;
export const number = (digits) => (value) => value.toFixed(digits);

/** Prints rows of cells as an aligned table (first column left-aligned, the rest right-aligned). */
export function printTable(rows, indent = '  ') {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => String(row[column]).length)));
  for (const row of rows) {
    console.log(indent + row.map((cell, column) => (column === 0 ? String(cell).padEnd(widths[column]) : String(cell).padStart(widths[column]))).join('   '));
  }
}
