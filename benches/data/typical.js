const fs = require('fs');
const path = require('path');

function parseCsv(text) {
  const [header, ...rows] = text.trim().split('\n').map((l) => l.split(','));
  return rows.map((r) => Object.fromEntries(header.map((h, i) => [h, r[i]])));
}

function summarize(values) {
  const xs = values.map(Number).sort((a, b) => a - b);
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const variance = xs.reduce((a, b) => a + (b - mean) ** 2, 0) / xs.length;
  return { n: xs.length, mean, stdev: Math.sqrt(variance), max: xs[xs.length - 1] };
}

const data = 'city,temp\nOslo,3.5\nLima,19.0\nCairo,27.1\nOslo,4.0\n';
const byCity = new Map();
for (const row of parseCsv(data)) {
  if (!byCity.has(row.city)) byCity.set(row.city, []);
  byCity.get(row.city).push(row.temp);
}
const report = Object.fromEntries([...byCity].map(([city, temps]) => [city, summarize(temps)]));
console.log(JSON.stringify(report, null, 2));

class Matrix {
  constructor(rows, cols) {
    this.rows = rows;
    this.cols = cols;
    this.data = new Float64Array(rows * cols);
  }
  get(i, j) { return this.data[i * this.cols + j]; }
  set(i, j, v) { this.data[i * this.cols + j] = v; }
}
const m = new Matrix(3, 3);
m.set(1, 1, 42);
fs.writeFileSync(path.join('.', 'out.json'), JSON.stringify({ value: m.get(1, 1) }));
