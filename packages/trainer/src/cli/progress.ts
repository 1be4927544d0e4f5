import cliProgress from 'cli-progress';

/** A progress bar per phase (cli-progress), with live key metrics in its payload. */
export class PhaseProgress {
  private bar: cliProgress.SingleBar | null = null;

  constructor(private readonly enabled = process.stderr.isTTY ?? false) {}

  phase(name: string, total = 0): void {
    this.stop();
    if (!this.enabled) {
      console.error(`[${name}]`);
      return;
    }
    this.bar = new cliProgress.SingleBar(
      { format: `${name.padEnd(20)} {bar} {value}/{total} {eta_formatted} {info}`, hideCursor: true, stream: process.stderr },
      cliProgress.Presets.shades_classic,
    );
    this.bar.start(total, 0, { info: '' });
  }

  update(done: number, info: Record<string, number | string> = {}): void {
    const text = Object.entries(info)
      .map(([k, v]) => `${k} ${v}`)
      .join('  ');
    if (this.bar) this.bar.update(done, { info: text });
    else if (text) console.error(`  ${done}  ${text}`);
  }

  stop(): void {
    this.bar?.stop();
    this.bar = null;
  }
}
