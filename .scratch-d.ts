import { openEmulatorRig } from './test/e2e/grpc-emulator.js';
import { apiClient, openBrowser, startServe } from './test/e2e/harness.js';
const rig = await openEmulatorRig();
const browser = await openBrowser();
const serve = await startServe({ adbPort: rig.adbPort, env: rig.serveEnv, args: ['--no-device'] });
try {
  const emu = await rig.start();
  const d = await apiClient(serve);
  await d.api.updateSettings({ mirrorFps: 60 });
  const page = browser.page;
  await page.goto(serve.url); await page.locator('.connection.open').waitFor();
  await page.click('[data-view="live"]'); await page.locator('[data-testid="live-screen"] img').waitFor();
  const cdp = await page.context().newCDPSession(page); await cdp.send('Network.enable');
  const sizes: number[] = [];
  cdp.on('Network.webSocketFrameReceived', (e: any) => sizes.push(e.response.opcode * 1e7 + e.response.payloadData.length));
  await d.api.sendInput({ serial: emu.serial, event: { kind: 'key', key: 'HOME' } });
  await d.api.sendInput({ serial: emu.serial, event: { kind: 'swipe', x1: 540, y1: 2000, x2: 540, y2: 600, durationMs: 200 } });
  const st = await d.api.screenState({ serial: emu.serial }); console.log(st.foreground, st.xml.slice(0, 600));
  await page.waitForTimeout(500);
  console.log(sizes.join(' ')); sizes.length = 0;
  for (let i = 0; i < 10; i++) { const down = i % 2 === 0; await d.api.sendInput({ serial: emu.serial, event: { kind: 'swipe', x1: 540, y1: down ? 1600 : 900, x2: 540, y2: down ? 900 : 1600, durationMs: 16 } }); }
  await page.waitForTimeout(500);
  console.log(sizes.join(' '));
  const st2 = await d.api.screenState({ serial: emu.serial }); console.log(st2.foreground, st2.xml.slice(0, 600));
  d.close();
} finally { await browser.close(); await serve.stop(); await rig.stop(); }
