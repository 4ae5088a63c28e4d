import { startGrpcEmulator } from './test/e2e/grpc-emulator.js';
import { AdbServer } from './core/device/adb/server.js';
const emu = await startGrpcEmulator();
try {
  const server = new AdbServer({ port: emu.adbPort });
  const dev = server.device(emu.serial, { env: { AWB_AVD_RUNNING_DIR: emu.serveEnv.AWB_AVD_RUNNING_DIR! } });
  for (const emulator of ['grpc-png', 'grpc-rgba'] as const) {
    await dev.input({ kind: 'key', key: 'HOME' });
    await dev.input({ kind: 'swipe', x1: 540, y1: 2000, x2: 540, y2: 600, durationMs: 200 });
    const src = dev.frames({ scale: 0.5, fps: 60, emulator });
    const times: number[] = [];
    src.onFrame((f) => times.push(performance.now()));
    src.start();
    await new Promise((r) => setTimeout(r, 1500));
    const t0 = performance.now(); const n0 = times.length;
    let inputs = 0; const inputT: number[] = [];
    const end = Date.now() + 4000; let n = 0;
    const drive = async () => { while (Date.now() < end) { const down = n++ % 2 === 0; const t = performance.now(); await dev.input({ kind: 'swipe', x1: 540, y1: down ? 1600 : 900, x2: 540, y2: down ? 900 : 1600, durationMs: 100 }); inputT.push(performance.now() - t); inputs++; } };
    await Promise.all([drive(), drive()]);
    const span = (performance.now() - t0) / 1000;
    console.log(emulator, src.kind, 'fps', ((times.length - n0) / span).toFixed(1), 'swipes', inputs, 'swipe ms median', inputT.sort((a,b)=>a-b)[inputT.length>>1].toFixed(0));
    src.stop();
  }
  dev.close();
} finally { await emu.stop(); }
