/**
 * Progress a person can read. On a terminal, each long phase is one line that updates in place
 * (count, rate, time left), and other lines print above it; elsewhere (CI, a pipe, a log file) every
 * line is plain and final: a phase prints where it starts, at most every `plainEveryMs`, and where
 * it ends. A dozen lines of ANSI (clear the line, return the carriage) instead of a progress-bar
 * library: the demo needs one line at a time, not bars, spinners or multi-line layouts.
 */
export interface Phase {
  /** `done` of the phase's total, so far. */
  update(done: number): void;
  /** Ends the phase with one final line. */
  finish(line: string): void;
}

export interface ProgressOptions {
  tty?: boolean;
  write?: (text: string) => void;
  now?: () => number;
  plainEveryMs?: number;
}

const CLEAR = '\r\x1b[2K';

/** "12 s", "1 min 05 s". */
export function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
}

const remaining = (ms: number) => (ms < 1_000 ? 'finishing' : `about ${duration(ms)} left`);

/** `label: done/total unit · rate/s · about N s left`; the rate and time left once there is one. */
export function progressLine(label: string, done: number, total: number, unit: string, elapsedMs: number): string {
  const rate = elapsedMs > 0 ? done / (elapsedMs / 1000) : 0;
  const parts = [`${label}: ${done}/${total} ${unit}`];
  if (done > 0 && rate > 0) {
    parts.push(`${rate.toFixed(1)}/s`);
    if (done < total) parts.push(`${remaining(((total - done) / rate) * 1000)}`);
  }
  return parts.join(' · ');
}

export class Progress {
  private readonly tty: boolean;
  private readonly write: (text: string) => void;
  private readonly now: () => number;
  private readonly plainEveryMs: number;
  /** The line a running phase shows at the bottom of a terminal ('' when none). */
  private live = '';

  constructor(o: ProgressOptions = {}) {
    this.tty = o.tty ?? process.stdout.isTTY === true;
    this.write = o.write ?? ((text) => process.stdout.write(text));
    this.now = o.now ?? Date.now;
    this.plainEveryMs = o.plainEveryMs ?? 10_000;
  }

  /** One final line (above the live one, on a terminal). */
  say(line: string): void {
    this.write(this.tty && this.live ? `${CLEAR}${line}\n${this.live}` : `${line}\n`);
  }

  /** Ends a live line (on a terminal), so that what follows, on any stream, starts on a line of its own. */
  interrupt(): void {
    if (this.tty && this.live) this.write('\n');
    this.live = '';
  }

  phase(label: string, total: number, unit: string): Phase {
    const started = this.now();
    let lastPlain = started;
    let lastDone = -1;
    const line = (done: number) => `• ${progressLine(label, done, total, unit, this.now() - started)}`;
    const show = (done: number) => {
      if (this.tty) {
        this.live = line(done);
        this.write(`${CLEAR}${this.live}`);
      } else if (lastDone < 0 || (done !== lastDone && this.now() - lastPlain >= this.plainEveryMs)) {
        lastPlain = this.now();
        this.write(`${line(done)}\n`);
      }
      lastDone = done;
    };
    show(0);
    return {
      update: (done) => show(done),
      finish: (text) => {
        const final = `• ${label}: ${text} (${duration(this.now() - started)})`;
        this.write(this.tty ? `${CLEAR}${final}\n` : `${final}\n`);
        this.live = '';
      },
    };
  }
}
