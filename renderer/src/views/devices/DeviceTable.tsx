import type { DeviceSummary } from '../../../../core/api/types.js';
import { appStore, useApp } from '../../store/index.js';

/** adb's serial for a network device is its address (HOST:PORT); only those can be disconnected. */
const ADDRESS = /^[A-Za-z0-9.\-:[\]]+:\d{1,5}$/;

function screenText(d: DeviceSummary): string {
  return d.screen ? `${d.screen.width}×${d.screen.height} · ${d.screen.density} dpi` : '—';
}

export function DeviceTable() {
  const devices = useApp((s) => s.devices);
  const selected = useApp((s) => s.selectedSerial);
  if (devices.length === 0) {
    return <div className="panel muted" data-testid="no-devices">No devices. Start a SimDroid, connect one by address, or launch an AVD.</div>;
  }
  const open = (serial: string) => {
    const s = appStore().getState();
    s.selectDevice(serial);
    s.setView('live');
  };
  return (
    <table className="devices-table panel">
      <thead>
        <tr>
          <th>Device</th><th>Kind</th><th>Transport</th><th>State</th><th>Screen</th><th>adb address</th><th>Session</th><th />
        </tr>
      </thead>
      <tbody>
        {devices.map((d) => (
          <tr
            key={d.serial}
            data-testid={`device-row-${d.serial}`}
            className={d.serial === selected ? 'selected' : undefined}
            aria-selected={d.serial === selected}
            onClick={() => appStore().getState().selectDevice(d.serial)}
            onDoubleClick={() => d.online && open(d.serial)}
            tabIndex={0}
            onKeyDown={(e) => {
              if (e.target === e.currentTarget && e.key === 'Enter' && d.online) open(d.serial);
            }}
            onFocus={(e) => e.target === e.currentTarget && appStore().getState().selectDevice(d.serial)}
            title={d.online ? 'Double-click or Enter: open in Live' : undefined}
          >
            <td className="mono">{d.serial}</td>
            <td>{d.kind}</td>
            <td>{d.transport}</td>
            <td>
              <span className={`devices-dot ${d.online ? 'online' : 'offline'}`} aria-hidden /> {d.online ? 'online' : d.state}
            </td>
            <td>{screenText(d)}</td>
            <td className="mono">{d.adbAddress ?? '—'}</td>
            <td className="mono">{d.sessionId ?? '—'}</td>
            <td className="devices-actions" onClick={(e) => e.stopPropagation()}>
              <button data-testid={`open-live-${d.serial}`} disabled={!d.online} onClick={() => open(d.serial)}>Open in Live</button>
              {d.transport === 'embedded' ? (
                <button
                  data-testid={`stop-simdroid-${d.serial}`}
                  title={d.sessionId ? 'Stops the session using it too' : undefined}
                  onClick={() => void appStore().getState().stopSimDroid(d.serial)}
                >
                  Stop
                </button>
              ) : ADDRESS.test(d.serial) ? (
                <button data-testid={`disconnect-${d.serial}`} onClick={() => void appStore().getState().disconnectDevice(d.serial)}>Disconnect</button>
              ) : null}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
