// The target's output, live, in a terminal of its own: a Pseudoterminal that streams what the
// run writes (stdout and stderr of `strata record` and the target) and ends with how it exited.
// Ctrl+C in the terminal (or closing it while the run goes on) cancels the run like the
// progress notification's Cancel does.
import * as vscode from 'vscode';

export class RunTerminal implements vscode.Disposable {
  private readonly writeEmitter = new vscode.EventEmitter<string>();
  private readonly closeEmitter = new vscode.EventEmitter<number | void>();
  private pending: string[] = [];     // written before VS Code opened the terminal
  private opened = false;
  private ended = false;
  readonly terminal: vscode.Terminal;

  constructor(name: string, private readonly onInterrupt: () => void) {
    const pty: vscode.Pseudoterminal = {
      onDidWrite: this.writeEmitter.event,
      onDidClose: this.closeEmitter.event,
      open: () => {
        this.opened = true;
        for (const s of this.pending) this.writeEmitter.fire(s);
        this.pending = [];
      },
      close: () => {
        // The user closed the terminal: a run still going is stopped (its profile is kept).
        if (!this.ended) this.onInterrupt();
        this.ended = true;
      },
      handleInput: (data: string) => {
        if (this.ended) { this.closeEmitter.fire(); return; }   // "press any key to close"
        if (data.includes('\x03')) { this.write('^C\n'); this.onInterrupt(); }
      },
    };
    this.terminal = vscode.window.createTerminal({ name, pty, iconPath: new vscode.ThemeIcon('flame') });
  }

  /** Writes program output; a terminal needs CR LF. */
  write(s: string): void {
    const t = s.replace(/\r?\n/g, '\r\n');
    if (this.opened) this.writeEmitter.fire(t);
    else this.pending.push(t);
  }

  /** A line of Strata's own (dim), e.g. the command line or the exit status. */
  note(s: string): void {
    this.write(`\x1b[2m${s}\x1b[0m\n`);
  }

  /** The run is over: the last line says how it ended; any key closes the terminal. */
  end(summary: string): void {
    this.note(summary);
    this.write('\x1b[2m(press any key to close this terminal)\x1b[0m\n');
    this.ended = true;
  }

  show(): void {
    this.terminal.show(true);   // preserveFocus: the editor keeps the keyboard
  }

  dispose(): void {
    this.ended = true;
    this.terminal.dispose();
    this.writeEmitter.dispose();
    this.closeEmitter.dispose();
  }
}
