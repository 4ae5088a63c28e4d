import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { BOOT_SNAPSHOT } from '../../../core/device/device.js';
import { device, find, get, sh, tap, texts, typeInto } from '../../helpers/simdroid.js';
import { splitScripts, WebPage } from '../../../emulators/simdroid/apps/chrome/page.js';
import { cssColor } from '../../../emulators/simdroid/apps/chrome/dom-view.js';
import { dragPoints } from '../../../emulators/simdroid/apps/chrome/canvas-view.js';

/** Chrome driven through its UI: pages from the device's storage, their scripts, and what the screen shows of them. */
const d = device();
afterAll(() => d.close());

const PKG = 'com.android.chrome';
const PAGE = '/sdcard/Download/task.html';

function open(html: string): void {
  d.fs.writeFile(PAGE, html, { parents: true });
  sh(d, `am start -a android.intent.action.VIEW -d file://${PAGE}`);
}

const COUNTER = `<!DOCTYPE html><html><head><title>Counter</title><style>.gone { display: none; }</style></head><body>
<p id="count">0</p><p class="gone">Hidden text</p>
<button onclick="bump()">Add one</button>
<input id="name" type="text" placeholder="Your name"> <button id="greet">Greet</button>
<div id="out"></div>
<script>let n = 0; function bump() { n += 1; document.getElementById('count').textContent = String(n); }
document.getElementById('greet').addEventListener('click', () => {
  document.getElementById('out').innerHTML = '<h2>Hello ' + document.getElementById('name').value + '</h2>';
});</script></body></html>`;

beforeEach(() => d.loadSnapshotSync(BOOT_SNAPSHOT));

describe('Chrome', () => {
  it("opens com.google.android.apps.chrome.Main, AndroidWorld's launch component, on its new tab page", () => {
    sh(d, `am start -n ${PKG}/com.google.android.apps.chrome.Main`);
    expect(d.wm.foreground()).toMatchObject({ package: PKG, activity: 'com.google.android.apps.chrome.Main' });
    expect(find(d, { resourceId: `${PKG}:id/url_bar` })?.node.text).toBe('Search or type URL');
  });

  it('shows a page as Chrome reports web content: text, buttons, fields; display:none left out', () => {
    open(COUNTER);
    expect(get(d, { text: 'Add one' }).node.className).toBe('android.widget.Button');
    expect(get(d, { text: 'Your name' }).node.className).toBe('android.widget.EditText');
    expect(get(d, { text: '0' }).node.className).toBe('android.widget.TextView');
    expect(find(d, { text: 'Hidden text' })).toBeUndefined();
    expect(get(d, { resourceId: `${PKG}:id/url_bar` }).node.text).toBe(`file://${PAGE}`);
  });

  it("runs the page's script: an onclick attribute finds the script's global function", () => {
    open(COUNTER);
    tap(d, { text: 'Add one' });
    tap(d, { text: 'Add one' });
    expect(find(d, { text: '2' })).toBeDefined();
  });

  it('gives the page what was typed into its field when a button is pressed', () => {
    open(COUNTER);
    typeInto(d, { text: 'Your name' }, 'Ada');
    tap(d, { text: 'Greet' });
    expect(find(d, { text: 'Hello Ada' })).toBeDefined();
  });

  it('rebuilds a page from its events when a snapshot is restored', () => {
    open(COUNTER);
    tap(d, { text: 'Add one' });
    d.saveSnapshotSync('one-press');
    tap(d, { text: 'Add one' });
    tap(d, { text: 'Add one' });
    expect(find(d, { text: '3' })).toBeDefined();
    d.loadSnapshotSync('one-press');
    expect(find(d, { text: '1' })).toBeDefined();
    tap(d, { text: 'Add one' });
    expect(find(d, { text: '2' })).toBeDefined();
  });

  it('draws on a canvas with a drag (touch events), and the page reads the pixels back', () => {
    open(`<html><head><meta name="viewport" content="width=device-width"></head><body>
<canvas id="pad" width="200" height="200"></canvas><button id="check">Check</button><p id="r"></p>
<script>const pad = document.getElementById('pad'); const g = pad.getContext('2d'); g.strokeStyle = '#ff0000'; let last = null;
pad.addEventListener('touchstart', (e) => { const b = pad.getBoundingClientRect(); last = [e.touches[0].clientX - b.left, e.touches[0].clientY - b.top]; });
pad.addEventListener('touchmove', (e) => { const b = pad.getBoundingClientRect(); const p = [e.touches[0].clientX - b.left, e.touches[0].clientY - b.top];
  g.beginPath(); g.moveTo(last[0], last[1]); g.lineTo(p[0], p[1]); g.stroke(); last = p; });
document.getElementById('check').addEventListener('click', () => {
  const px = g.getImageData(0, 0, 200, 200).data; let red = 0;
  for (let i = 0; i < px.length; i += 4) if (px[i] === 255 && px[i + 1] === 0 && px[i + 2] === 0) red++;
  document.getElementById('r').textContent = red > 50 ? 'Drawn' : 'Empty ' + red;
});</script></body></html>`);
    const b = get(d, { resourceId: `${PKG}:id/pad` }).node.bounds;
    tap(d, { text: 'Check' });
    expect(find(d, { textContains: 'Empty' })).toBeDefined();
    const y = (b.top + b.bottom) >> 1;
    // The drag would scroll the page anywhere else; on the canvas it draws.
    d.inputSync({ kind: 'swipe', x1: b.left + 20, y1: y - 30, x2: b.right - 20, y2: y + 30, durationMs: 300 });
    tap(d, { text: 'Check' });
    expect(find(d, { text: 'Drawn' })).toBeDefined();
  });

  it('opens a path typed into the omnibox; a missing file and the web (offline) show error pages', () => {
    d.fs.writeFile(PAGE, COUNTER, { parents: true });
    sh(d, `am start -n ${PKG}/com.google.android.apps.chrome.Main`);
    typeInto(d, { resourceId: `${PKG}:id/url_bar` }, PAGE);
    d.inputSync({ kind: 'key', key: 'ENTER' });
    expect(find(d, { text: 'Add one' })).toBeDefined();
    typeInto(d, { resourceId: `${PKG}:id/url_bar` }, '/sdcard/Download/missing.html');
    d.inputSync({ kind: 'key', key: 'ENTER' });
    expect(find(d, { text: 'ERR_FILE_NOT_FOUND' })).toBeDefined();
    typeInto(d, { resourceId: `${PKG}:id/url_bar` }, 'example.com');
    d.inputSync({ kind: 'key', key: 'ENTER' });
    expect(find(d, { text: 'ERR_INTERNET_DISCONNECTED' })).toBeDefined();
  });

  it('is what Files opens a downloaded .html file with', () => {
    d.fs.writeFile(PAGE, COUNTER, { parents: true });
    sh(d, 'am start -n com.google.android.documentsui/com.android.documentsui.files.FilesActivity');
    tap(d, { text: 'Download' });
    tap(d, { text: 'task.html' });
    expect(d.wm.foreground().package).toBe(PKG);
    expect(texts(d)).toContain('Add one');
  });
});

describe('WebPage', () => {
  it('keeps external and module scripts out of what it runs', () => {
    const { scripts, markup } = splitScripts('<p>a</p><script src="x.js"></script><script type="module">m()</script><script>run()</script>');
    expect(scripts).toEqual(['run()']);
    expect(markup).toBe('<p>a</p>');
  });

  it("records a script's error instead of throwing, and runs the scripts after it", () => {
    const p = new WebPage('file:///t.html', '<body><div id="o"></div><script>nope(</script><script>document.getElementById("o").textContent = "ran"</script></body>', 980);
    expect(p.errors).toHaveLength(1);
    expect(p.errors[0]!.name).toBe('PageScriptError');
    expect(p.document.getElementById('o')!.textContent).toBe('ran');
    p.close();
  });

  it('reads CSS colours as #RRGGBB and transparent as none', () => {
    expect(cssColor('rgb(255, 0, 16)')).toBe('#FF0010');
    expect(cssColor('#0f0')).toBe('#00FF00');
    expect(cssColor('rgba(0, 0, 0, 0)')).toBeUndefined();
    expect(cssColor('black')).toBe('#000000');
  });

  it('samples a drag every few CSS pixels, ends included', () => {
    const pts = dragPoints([[0, 0], [10, 0]]);
    expect(pts[0]).toEqual([0, 0]);
    expect(pts[pts.length - 1]).toEqual([10, 0]);
    expect(pts.length).toBe(4);
  });
});
