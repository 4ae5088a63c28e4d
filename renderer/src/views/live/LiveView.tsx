import { useEffect, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { FramePath } from '../../../../core/api/types.js';
import { appStore, useApp } from '../../store/index.js';
import { LiveScreen } from './LiveScreen.js';
import { Inspector } from './Inspector.js';

/** Displayed screen height: as tall as the window allows, within reason. */
function useScreenHeight(): number {
  const calc = () => Math.max(360, Math.min(1000, window.innerHeight - 200));
  const [h, setH] = useState(calc);
  useEffect(() => {
    const on = () => setH(calc());
    window.addEventListener('resize', on);
    return () => window.removeEventListener('resize', on);
  }, []);
  return h;
}

/**
 * The Live view: the selected device's mirrored screen, controlled like scrcpy, beside an
 * accessibility inspector like Appium Inspector's.
 */
export function LiveView() {
  const serial = useApp((s) => s.selectedSerial);
  const settingsLoaded = useApp((s) => s.settingsLoaded);
  const scale = useApp((s) => s.settings?.mirrorScale);
  const maxFps = useApp((s) => s.settings?.mirrorFps);
  const emulatorMirror = useApp((s) => s.settings?.emulatorMirror);
  const device = useApp((s) => s.devices.find((d) => d.serial === s.selectedSerial) ?? null);
  const online = useApp(useShallow((s) => s.devices.filter((d) => d.online).map((d) => d.serial)));
  const loaded = useApp((s) => s.devicesLoaded);
  const height = useScreenHeight();

  useEffect(() => appStore().getState().watchDevices(), []);
  useEffect(() => {
    if (!appStore().getState().settingsLoaded) void appStore().getState().loadSettings();
  }, []);
  // Mirror the selected device; a new device or new mirror settings resubscribe, leaving unsubscribes.
  useEffect(() => {
    if (!serial || !settingsLoaded) return;
    return appStore().getState().startMirror(serial);
  }, [serial, settingsLoaded, scale, maxFps, emulatorMirror]);

  return (
    <div className="live-view" data-testid="live-view">
      <div className="live-header row">
        <label className="row">
          Device
          <select
            data-testid="live-device" value={serial ?? ''}
            onChange={(e) => appStore().getState().selectDevice(e.target.value || null)}
          >
            {serial && !online.includes(serial) ? <option value={serial}>{serial} (offline)</option> : null}
            {!serial ? <option value="">(none)</option> : null}
            {online.map((s) => <option key={s} value={s}>{s}</option>)}
          </select>
        </label>
        {serial ? <LiveStats /> : null}
        {serial ? <FramePathBadge /> : null}
        <ForegroundApp />
      </div>
      {!serial ? (
        <div className="panel muted" data-testid="live-no-device">
          {loaded ? 'No device is online. ' : 'Listing devices… '}
          <button className="link" onClick={() => appStore().getState().setView('devices')}>Start or connect one on the Devices view</button>
        </div>
      ) : (
        <>
          {device && !device.online ? <div className="live-notice" role="note">{serial} is {device.state}: its screen cannot be mirrored.</div> : null}
          <div className="live-body">
            <LiveScreen height={height} />
            <Inspector height={height} />
          </div>
        </>
      )}
    </div>
  );
}

/** Which path mirrors the device, so users see when an emulator fell back from its gRPC stream to polling. */
const FRAME_PATHS: Record<FramePath, { label: string; title: string }> = {
  push: { label: 'SimDroid push', title: 'SimDroid in the workbench renders a frame when its screen changes' },
  'grpc-stream': { label: 'gRPC stream', title: "The emulator's gRPC streamScreenshot pushes a frame when its display changes" },
  polling: { label: 'adb polling', title: 'screencap over adb at the mirror frame rate (no usable gRPC endpoint, or the setting says so)' },
};

function FramePathBadge() {
  const path = useApp((s) => s.frame?.path ?? null);
  if (!path) return null;
  const p = FRAME_PATHS[path];
  return <span className={`live-path live-path-${path}`} data-testid="live-frame-path" data-path={path} title={p.title}>{p.label}</span>;
}

function LiveStats() {
  const fps = useApp((s) => s.liveFps);
  const latency = useApp((s) => s.frameLatencyMs);
  const input = useApp((s) => s.inputLatencyMs);
  const frame = useApp((s) => (s.frame ? `${s.frame.width}×${s.frame.height}` : null));
  return (
    <span className="live-stats muted" data-testid="live-fps" title="Frames received in the last second; frame latency = capture time − change time; input→frame = from sending an input to the first frame showing a change">
      {fps} fps
      {latency !== null ? ` · frame ${latency} ms` : ''}
      {input !== null ? ` · input→frame ${input} ms` : ''}
      {frame ? ` · ${frame}` : ' · waiting for the first frame…'}
    </span>
  );
}

function ForegroundApp() {
  const fg = useApp((s) => s.screenState?.foreground ?? null);
  const last = useApp((s) => s.lastInput);
  return (
    <span className="live-foreground muted">
      {fg ? <span className="mono" title={fg.activity} data-testid="live-foreground">{fg.package}</span> : null}
      {last ? <span data-testid="live-last-input"> · last: {last}</span> : null}
    </span>
  );
}
