/**
 * The next LF and CR in one read's text, each found with one native search and searched again only
 * once the decoder has passed it. The decoder's positions only move forward within a read, so every
 * character is searched at most once per kind: decoding stays linear whatever the server sends.
 */
export class LineBreaks {
  private text = '';
  private lf = -1;
  /** Where the cached LF search started; -1: nothing searched yet in this read. */
  private lfFrom = -1;
  private cr = -1;
  private crFrom = -1;

  /** A new read: nothing is known of it yet. */
  reset(text: string): void {
    this.text = text;
    this.lfFrom = -1;
    this.crFrom = -1;
  }

  /** Index of the first LF at or after `from`, or -1. */
  nextLf(from: number): number {
    if (this.lfFrom === -1 || from < this.lfFrom || (this.lf !== -1 && from > this.lf)) {
      this.lf = this.text.indexOf('\n', from);
      this.lfFrom = from;
    }
    return this.lf;
  }

  /** Index of the first CR at or after `from`, or -1. */
  nextCr(from: number): number {
    if (this.crFrom === -1 || from < this.crFrom || (this.cr !== -1 && from > this.cr)) {
      this.cr = this.text.indexOf('\r', from);
      this.crFrom = from;
    }
    return this.cr;
  }

  /** Index of the first CR or LF at or after `from`, or -1. */
  next(from: number): number {
    const lf = this.nextLf(from);
    const cr = this.nextCr(from);
    if (cr === -1) return lf;
    if (lf === -1) return cr;
    return Math.min(cr, lf);
  }
}
