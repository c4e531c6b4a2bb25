import type { ChildProcess } from 'node:child_process';

/** The output lines of one process, kept with the time they arrived, for printing when a drill fails. */
export class LineLog {
  private readonly lines: { at: number; text: string }[] = [];
  private partial = '';

  constructor(readonly name: string) {}

  attach(child: ChildProcess): void {
    const take = (chunk: Buffer) => {
      const parts = (this.partial + chunk.toString('utf8')).split('\n');
      this.partial = parts.pop() ?? '';
      for (const text of parts) if (text.trim()) this.push(text);
    };
    child.stdout?.on('data', take);
    child.stderr?.on('data', take);
    child.once('exit', (code, signal) => this.push(`[process exited: ${signal ?? `code ${code}`}]`));
  }

  push(text: string): void {
    // Stack traces make JSON lines long; the start says what happened.
    this.lines.push({ at: Date.now(), text: text.length > 1_000 ? `${text.slice(0, 1_000)}…` : text });
    // Bounded: a service logging in a loop must not exhaust the test process.
    if (this.lines.length > 5_000) this.lines.splice(0, 1_000);
  }

  since(at: number): { at: number; text: string }[] {
    return this.lines.filter((l) => l.at >= at).map((l) => ({ at: l.at, text: `${this.name} | ${l.text}` }));
  }

  /** Lines since `at` that contain `text`. */
  count(at: number, text: string): number {
    return this.lines.filter((l) => l.at >= at && l.text.includes(text)).length;
  }

  tail(count: number): string {
    return this.lines
      .slice(-count)
      .map((l) => l.text)
      .join('\n');
  }
}
