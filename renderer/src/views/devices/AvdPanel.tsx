import { useEffect, useState } from 'react';
import { appStore, useApp } from '../../store/index.js';

/** The Android SDK's virtual devices: launched through the SDK's emulator; progress shows in the status area. */
export function AvdPanel() {
  const avds = useApp((s) => s.avds);
  const [port, setPort] = useState('');
  const [launching, setLaunching] = useState<string | null>(null);
  useEffect(() => void appStore().getState().loadAvds(), []);

  const launch = async (name: string) => {
    setLaunching(name);
    await appStore().getState().launchAvd(name, port);
    setLaunching(null);
  };

  return (
    <section className="panel devices-avds" data-testid="avd-list">
      <div className="row">
        <h3>Android Virtual Devices</h3>
        <button onClick={() => void appStore().getState().loadAvds()}>Refresh</button>
        <input
          value={port} onChange={(e) => setPort(e.target.value)} size={12} inputMode="numeric" placeholder="port (5554)" data-testid="avd-port"
          title="The emulator's console port (even, 5554–65534); adb's is the next one. Default 5554."
        />
      </div>
      {avds === null ? (
        <div className="muted">Looking for the Android SDK…</div>
      ) : (
        <>
          {/* The missing SDK is said once: the server's error names where it looked and what to set. */}
          {avds.sdk || !avds.error ? (
            <div className="muted" data-testid="avd-sdk">{avds.sdk ? <>SDK: <span className="mono">{avds.sdk}</span></> : 'No Android SDK found.'}</div>
          ) : null}
          {avds.error ? <div className="devices-notice" role="note" data-testid="avd-error">{avds.error}</div> : null}
          {avds.avds.length === 0 && !avds.error ? <div className="muted">No AVDs: create one with Android Studio's Device Manager or avdmanager.</div> : null}
          <ul className="devices-avd-list">
            {avds.avds.map((name) => (
              <li key={name} className="row">
                <span className="mono">{name}</span>
                <button data-testid={`launch-avd-${name}`} disabled={launching !== null} onClick={() => void launch(name)}>
                  {launching === name ? 'Launching…' : 'Launch'}
                </button>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
