/**
 * Our own task pages (HTML with inline scripts) for the Chrome templates. They are in the spirit of
 * AndroidWorld's Browser* pages (a page pushed to Download, solved in Chrome, "Success!" shown when
 * done) but written here: a product quiz, a maze, a colour drawing.
 */
const STYLE = 'body { font-family: sans-serif; text-align: center; margin: 16px; } button { font-size: 22px; padding: 10px 18px; }';

function page(title: string, body: string, script: string, viewport = false): string {
  const meta = viewport ? '\n<meta name="viewport" content="width=device-width, initial-scale=1">' : '';
  return `<!DOCTYPE html>\n<html>\n<head>\n<title>${title}</title>${meta}\n<style>${STYLE}</style>\n</head>\n<body>\n${body}\n<script>\n${script}\n</script>\n</body>\n</html>\n`;
}

/** Shows the numbers one per press of "Next number", then asks for their product. */
export function multiplyPage(numbers: readonly number[]): string {
  return page('Product quiz', `<h2>Remember every number</h2>
<div id="shown" style="font-size: 64px; margin: 24px;"></div>
<button id="next">Next number</button>
<div id="ask" style="display: none;">
  <input id="product" type="number" placeholder="Product of the numbers">
  <button id="check">Submit</button>
</div>
<p id="verdict"></p>`, `const numbers = ${JSON.stringify(numbers)};
let at = 0;
const byId = (id) => document.getElementById(id);
function show() { byId('shown').textContent = String(numbers[at]); }
byId('next').addEventListener('click', () => {
  at += 1;
  if (at < numbers.length) { show(); return; }
  byId('next').style.display = 'none';
  byId('shown').style.display = 'none';
  byId('ask').style.display = 'block';
});
byId('check').addEventListener('click', () => {
  const product = numbers.reduce((p, n) => p * n, 1);
  byId('verdict').textContent = Number(byId('product').value) === product ? 'Success!' : 'Not the product.';
});
show();`);
}

/**
 * A maze of `rows` strings ('#' wall, '.' open); the X starts top-left and must reach the
 * bottom-right cell with the arrow buttons.
 */
export function mazePage(rows: readonly string[]): string {
  return page('Maze', `<div id="grid"></div>
<div style="margin-top: 12px;">
  <button id="up">Up</button> <button id="down">Down</button> <button id="left">Left</button> <button id="right">Right</button>
</div>`, `const rows = ${JSON.stringify(rows)};
const pos = { r: 0, c: 0 };
const last = rows.length - 1;
function draw() {
  const grid = document.getElementById('grid');
  grid.innerHTML = '';
  rows.forEach((line, r) => {
    const row = document.createElement('div');
    row.style.display = 'flex';
    row.style.justifyContent = 'center';
    [...line].forEach((cell, c) => {
      const box = document.createElement('div');
      box.style.width = '90px';
      box.style.height = '90px';
      box.style.border = '1px solid #444444';
      box.style.display = 'flex';
      box.style.justifyContent = 'center';
      box.style.alignItems = 'center';
      box.style.fontSize = '48px';
      box.style.backgroundColor = cell === '#' ? '#37474f' : r === last && c === last ? '#66bb6a' : '#ffffff';
      if (r === pos.r && c === pos.c) box.textContent = 'X';
      row.appendChild(box);
    });
    grid.appendChild(row);
  });
}
function move(dr, dc) {
  const r = pos.r + dr, c = pos.c + dc;
  if (r < 0 || c < 0 || r > last || c > last || rows[r][c] === '#') return;
  pos.r = r; pos.c = c;
  draw();
  if (r === last && c === last) document.body.innerHTML = '<h1>Success!</h1>';
}
document.getElementById('up').addEventListener('click', () => move(-1, 0));
document.getElementById('down').addEventListener('click', () => move(1, 0));
document.getElementById('left').addEventListener('click', () => move(0, -1));
document.getElementById('right').addEventListener('click', () => move(0, 1));
draw();`);
}

/**
 * A canvas to draw on with a palette; "Success!" when the drawing holds every colour of the three
 * shown at the top (a pixel of exactly that colour).
 */
export function drawPage(targets: readonly string[], palette: readonly string[]): string {
  return page('Colour drawing', `<p>Draw with these colours:</p>
<div id="targets"></div>
<canvas id="sketch" width="320" height="320" style="border: 1px solid #000000; touch-action: none;"></canvas>
<div id="palette" style="display: flex; flex-wrap: wrap; justify-content: center; max-width: 320px; margin: 8px auto;"></div>
<button id="wipe">Clear</button> <button id="done">Submit</button>
<p id="verdict"></p>`, `const targets = ${JSON.stringify(targets)};
const palette = ${JSON.stringify(palette)};
const sketch = document.getElementById('sketch');
const pen = sketch.getContext('2d');
pen.lineWidth = 2;
for (const colour of targets) {
  const swatch = document.createElement('div');
  swatch.style.display = 'inline-block';
  swatch.style.width = '40px';
  swatch.style.height = '40px';
  swatch.style.margin = '4px';
  swatch.style.backgroundColor = colour;
  document.getElementById('targets').appendChild(swatch);
}
for (const colour of palette) {
  const b = document.createElement('button');
  b.style.width = '36px';
  b.style.height = '36px';
  b.style.margin = '2px';
  b.style.backgroundColor = colour;
  b.addEventListener('click', () => { pen.strokeStyle = colour; });
  document.getElementById('palette').appendChild(b);
}
let last = null;
function at(e) {
  const box = sketch.getBoundingClientRect();
  const t = e.touches[0] || e.changedTouches[0];
  return [(t.clientX - box.left) * sketch.width / box.width, (t.clientY - box.top) * sketch.height / box.height];
}
sketch.addEventListener('touchstart', (e) => { last = at(e); });
sketch.addEventListener('touchmove', (e) => {
  if (!last) return;
  const p = at(e);
  pen.beginPath(); pen.moveTo(last[0], last[1]); pen.lineTo(p[0], p[1]); pen.stroke();
  last = p;
});
sketch.addEventListener('touchend', () => { last = null; });
document.getElementById('wipe').addEventListener('click', () => pen.clearRect(0, 0, sketch.width, sketch.height));
document.getElementById('done').addEventListener('click', () => {
  const px = pen.getImageData(0, 0, sketch.width, sketch.height).data;
  const seen = new Set();
  for (let i = 0; i < px.length; i += 4) {
    if (px[i + 3] === 0) continue;
    seen.add('#' + [px[i], px[i + 1], px[i + 2]].map((v) => v.toString(16).padStart(2, '0')).join(''));
  }
  document.getElementById('verdict').textContent = targets.every((t) => seen.has(t)) ? 'Success!' : 'Some colours are missing.';
});`, true);
}
