/** The shell's name in its messages (`/system/bin/sh: x: inaccessible or not found`), as Android's mksh. */
export const SH = '/system/bin/sh';

/** What a command or list wrote and its exit status. */
export interface Result {
  stdout: Buffer;
  stderr: Buffer;
  code: number;
}
