import { useEffect, useState, type FormEvent } from 'react';
import { appStore, useApp } from '../../store/index.js';
import { DeviceTable } from './DeviceTable.js';
import { AvdPanel } from './AvdPanel.js';

/**
 * The Devices view: what the workbench can drive (embedded SimDroids, adb devices), kept live by
 * onDevices; start and stop SimDroids, connect remote devices by address, launch AVDs.
 */
export function DevicesView() {
  const adbError = useApp((s) => s.adbError);
  const loaded = useApp((s) => s.devicesLoaded);
  useEffect(() => appStore().getState().watchDevices(), []);

  return (
    <div className="devices-view" data-testid="devices-view">
      <div className="devices-toolbar">
        <StartSimDroid />
        <ConnectForm />
        <button onClick={() => void appStore().getState().refreshDevices()} title="List the devices again">Refresh</button>
      </div>
      {adbError ? <div className="devices-notice" role="note" data-testid="adb-notice">{adbError}</div> : null}
      {loaded ? <DeviceTable /> : <div className="muted">Listing devices…</div>}
      <AvdPanel />
    </div>
  );
}

function StartSimDroid() {
  const [port, setPort] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    const d = await appStore().getState().startSimDroid(port);
    setBusy(false);
    if (d) setPort('');
  };
  return (
    <form className="row devices-form" onSubmit={(e) => void submit(e)}>
      <button type="submit" className="primary" data-testid="start-simdroid" disabled={busy}>
        {busy ? 'Starting…' : 'Start SimDroid'}
      </button>
      <input
        data-testid="simdroid-adb-port" value={port} onChange={(e) => setPort(e.target.value)} inputMode="numeric" size={14}
        placeholder="adb port (optional)" title="Also serve ADB on this odd port (and the emulator console on the one below), so `adb connect` and other tools can reach it"
      />
    </form>
  );
}

function ConnectForm() {
  const [address, setAddress] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    const d = await appStore().getState().connectDevice(address);
    setBusy(false);
    if (d) setAddress('');
  };
  return (
    <form className="row devices-form" onSubmit={(e) => void submit(e)}>
      <input
        data-testid="connect-address" value={address} onChange={(e) => setAddress(e.target.value)} size={22}
        placeholder="host:port" aria-label="Device address (host:port)" title="adb connect HOST:PORT — a remote emulator or a phone with wireless debugging"
      />
      <button type="submit" data-testid="connect-device" disabled={busy}>{busy ? 'Connecting…' : 'Connect'}</button>
    </form>
  );
}
