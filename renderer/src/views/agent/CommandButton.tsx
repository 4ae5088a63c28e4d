import { appStore, useApp } from '../../store/index.js';
import { COMMANDS, runCommand, titleOf, type CommandName } from '../../commands/index.js';

/** A button for a command: enabled by the command's predicate, titled with its shortcut. */
export function CommandButton({ name, testId, primary }: { name: CommandName; testId: string; primary?: boolean }) {
  const enabled = useApp((s) => COMMANDS[name].predicate?.(s) ?? true);
  const reason = useApp((s) => COMMANDS[name].reason?.(s) ?? null);
  return (
    <button
      className={primary ? 'primary' : undefined}
      data-testid={testId}
      disabled={!enabled}
      title={reason ? `${reason} — ${titleOf(name)}` : titleOf(name)}
      onClick={() => runCommand(name, appStore())}
    >
      {COMMANDS[name].label}
    </button>
  );
}
