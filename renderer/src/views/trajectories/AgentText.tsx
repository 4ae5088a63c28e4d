import { useMemo, useState } from 'react';
import { formatBytes, shownText, textSize } from './agent-text.js';

/**
 * One piece of text an outside agent attached to a step (its prompt, its model's reply): collapsed, with its size;
 * opened, the text with data URLs shown by size (agent-text.ts); Copy puts the text as recorded on the clipboard.
 */
export function AgentText({ title, text, testId }: { title: string; text: string; testId: string }) {
  const [open, setOpen] = useState(false);
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null);
  // Only the summary is worked out while closed: the size, and how many data URLs.
  const shown = useMemo(() => (open ? shownText(text) : null), [open, text]);
  const size = useMemo(() => textSize(text), [text]);
  const copy = () => {
    setCopied(null);
    void navigator.clipboard?.writeText(text).then(() => setCopied('yes'), () => setCopied('failed'));
  };
  return (
    <details className="replay-section replay-agent-text" data-testid={testId} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>
        <h3>
          {title}
          <span className="replay-section-extra" data-testid={`${testId}-size`}>
            {formatBytes(size.bytes)}
            {size.dataUrls ? ` · ${size.dataUrls} data URL${size.dataUrls === 1 ? '' : 's'} (${formatBytes(size.dataBytes)})` : ''}
          </span>
        </h3>
      </summary>
      {shown ? (
        <>
          <div className="row">
            <button onClick={copy} data-testid={`${testId}-copy`} title="Copy the text as recorded (data URLs included)">Copy</button>
            {copied === 'yes' ? <span className="muted">Copied</span> : copied === 'failed' ? <span className="replay-error">The clipboard refused it</span> : null}
          </div>
          <pre className="replay-agent-pre" data-testid={`${testId}-text`}>{shown.text}</pre>
          {shown.cut ? <div className="muted">… {shown.cut.toLocaleString('en-US')} more characters (Copy takes them all).</div> : null}
        </>
      ) : null}
    </details>
  );
}
